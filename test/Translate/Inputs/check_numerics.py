#!/usr/bin/env python3
"""Compares an imported model with onnxruntime: the end-to-end check of the importer's semantics.

    check_numerics.py NAME WORKDIR

Writes model NAME of make_models.py into WORKDIR, runs it with onnxruntime on seeded inputs,
imports it with turbine-translate, runs the import with `turbine-run --interpret` (the graph
dialect's reference interpreter) on the same inputs, and compares every output. Prints one line
per output and exits non-zero on the first difference beyond the rounding of the output's type.
"""

import os
import subprocess
import sys

import numpy as np
import onnxruntime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_models  # noqa: E402

# Values for the symbolic dimensions of the models (the --input-shape the import gets).
SIZES = {"batch": 1, "sequence": 8}


# (rtol, atol) per output type: float32 rounding, and for float16 outputs four and two units of
# float16's roundoff 2^-11 (onnxruntime and Turbine may each round an op's result to a different
# neighbour).
TOLERANCE = {np.dtype(np.float16): (2.0**-9, 2.0**-10)}


def inputs_for(session, random):
    """Seeded inputs: floats in [0.1, 2) (positive, so Log and Sqrt stay real), int64 in {0, 1}
    (valid token ids, mask values and indices for every model), uint8 over its whole range."""
    feeds, shapes = {}, []
    for info in session.get_inputs():
        shape = [SIZES[dim] if isinstance(dim, str) else dim for dim in info.shape]
        if any(isinstance(dim, str) for dim in info.shape):
            shapes += ["--input-shape", f"{info.name}={'x'.join(map(str, shape))}"]
        if info.type == "tensor(int64)":
            feeds[info.name] = random.integers(0, 2, shape).astype(np.int64)
        elif info.type == "tensor(uint8)":
            feeds[info.name] = random.integers(0, 256, shape).astype(np.uint8)
        elif info.type == "tensor(float16)":
            feeds[info.name] = random.uniform(0.1, 2.0, shape).astype(np.float16)
        else:
            feeds[info.name] = random.uniform(0.1, 2.0, shape).astype(np.float32)
    return feeds, shapes


def main():
    name, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    base = os.path.join(workdir, name)
    with open(base + ".onnx", "wb") as file:
        file.write(make_models.MODELS[name]().SerializeToString())
    session = onnxruntime.InferenceSession(base + ".onnx", providers=["CPUExecutionProvider"])
    feeds, shapes = inputs_for(session, np.random.default_rng(0))
    expected = session.run(None, feeds)

    subprocess.run(["turbine-translate", "--import-onnx", base + ".onnx", "-o", base + ".mlir"] + shapes, check=True)
    command = ["turbine-run", "--interpret", base + ".mlir"]
    for index, info in enumerate(session.get_inputs()):
        np.save(f"{base}.in{index}.npy", feeds[info.name])
        command += ["--input", f"{base}.in{index}.npy"]
    outputs = [f"{base}.out{index}.npy" for index in range(len(expected))]
    for path in outputs:
        command += ["--output", path]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    status = 0
    for info, reference, path in zip(session.get_outputs(), expected, outputs):
        actual = np.load(path)
        if actual.shape != reference.shape or actual.dtype != reference.dtype:
            print(f"{name} {info.name}: got {actual.dtype}{list(actual.shape)}, "
                  f"expected {reference.dtype}{list(reference.shape)}")
            status = 1
            continue
        error = float(np.max(np.abs(actual.astype(np.float64) - reference))) if reference.size else 0.0
        rtol, atol = TOLERANCE.get(reference.dtype, (1e-4, 1e-5))
        close = np.allclose(actual, reference, rtol=rtol, atol=atol)
        print(f"{name} {info.name}: {'ok' if close else 'MISMATCH'} (max error {error:.3g})")
        status |= not close
    return status


if __name__ == "__main__":
    sys.exit(main())
