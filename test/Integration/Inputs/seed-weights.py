"""Writes a safetensors file of seeded weights for every `graph.weight` of a graph-dialect model.

Usage: seed-weights.py MODEL.mlir OUT.safetensors. Each weight is uniform in +-sqrt(3 / fan-in)
(the variance that keeps activations in range through a stack of layers), a 1-D weight (a bias)
in +-0.17; the generator is seeded, so the file is the same on every run.
"""
import json
import re
import struct
import sys

import numpy as np


def main(model_path, out_path):
    text = open(model_path).read()
    rng = np.random.default_rng(0)
    tensors = {}
    for name, shape in re.findall(r'graph\.weight "([^"]+)" : tensor<([0-9x]+)xf32>', text):
        dims = [int(d) for d in shape.split("x")]
        variance = 1.0 / int(np.prod(dims[1:])) if len(dims) > 1 else 0.01
        bound = np.sqrt(3 * variance)
        tensors[name] = rng.uniform(-bound, bound, size=dims).astype(np.float32)
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        data = tensor.tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    encoded = json.dumps(header).encode()
    encoded += b" " * ((8 - len(encoded) % 8) % 8)
    with open(out_path, "wb") as out:
        out.write(struct.pack("<Q", len(encoded)))
        out.write(encoded)
        for data in blobs:
            out.write(data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
