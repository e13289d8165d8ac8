#!/usr/bin/env python3
"""Benchmark (not a test) of control flow on the device against control flow on the host
(Cocktailer), side by side in one run on the stcp920 target, with the layer-wise schedule.

Models, built here with onnx.helper as torch.onnx exports them (seeded weights, nothing
downloaded), and one in the graph dialect:
- an LSTM language model: token ids embedded by Gather, two stacked LSTM layers over 32 steps,
  the last state projected onto a vocabulary of 1,000;
- a greedy decoder: a Loop that embeds the last token, steps a GRU-like cell, picks the next
  token by ArgMax and stops when it is the end token (a length penalty on the end token's logit
  makes the stop come after a dozen steps), at most 32;
- an early-exit CNN: a small head after two convolutions decides by If whether its confidence is
  enough or two more convolutions and a second head run (both paths measured);
- a recursive tree model (RAE-like): a function that calls itself twice under graph.if, four levels
  deep (31 calls), written in the graph dialect.

For each, with `control=device` (the cores read the conditions; a construct's launches are steps
of one persistent kernel), with `control=host` (a synchronisation per condition, every kernel
launched), and with `control=device` but loops reading their invariant inputs from DDR at every
iteration (`keep-invariants=false`; by default they stay in the clusters' GBs where the cost
model says it pays): simulated cycles, kernel launches, device steps, host synchronisations and
device branches, and the speedup over the host. Results are checked against onnxruntime (the interpreter for
the recursive model). Usage: tools/scripts/control-flow-benchmark.py --bin-dir target/release
[--markdown docs/ControlFlow.md] (the table goes between the `control-flow` markers) [--gate]
(exit non-zero when the device takes more cycles than the host on a model; the test command runs
it so).
"""

import argparse
import importlib.util
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("oracle", os.path.join(HERE, "onnxruntime-oracle.py"))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def info(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def lstm_lm():
    b = oracle.Builder(71)
    steps, width, hidden, vocabulary = 32, 256, 256, 1000
    x = b.op("Gather", [b.weight([vocabulary, width], 0.5), "token_ids"])
    for layer in range(2):
        inputs = width if layer == 0 else hidden
        w, r = b.weight([1, 4 * hidden, inputs], 0.1), b.weight([1, 4 * hidden, hidden], 0.1)
        bias = b.weight([1, 8 * hidden], 0.05)
        b.count += 1
        outputs = [f"y_{b.count}", f"h_{b.count}"]
        b.nodes.append(helper.make_node("LSTM", [x, w, r, bias], outputs, name=f"lstm{layer}", hidden_size=hidden))
        x = b.op("Reshape", [outputs[0], b.constant(np.array([steps, 1, hidden]))])
    last = b.op("Reshape", [outputs[1], b.constant(np.array([1, hidden]))])
    logits = b.op("MatMul", [last, b.weight([hidden, vocabulary], 0.1)])
    return b.model("lstm_lm", [("token_ids", [steps, 1], I64)], [logits])


def greedy_decoder():
    b = oracle.Builder(72)
    hidden, vocabulary, end = 256, 512, 7
    table, wx, wh = b.weight([vocabulary, hidden], 0.5), b.weight([hidden, hidden], 0.1), b.weight([hidden, hidden], 0.1)
    wo = b.weight([hidden, vocabulary], 0.2)
    penalty = b.constant(np.eye(vocabulary, dtype=np.float32)[end] * 0.8)
    body = helper.make_graph([
        helper.make_node("Gather", [table, "token"], ["e"]),
        helper.make_node("MatMul", ["e", wx], ["ex"]), helper.make_node("MatMul", ["h", wh], ["hh"]),
        helper.make_node("Add", ["ex", "hh"], ["s"]), helper.make_node("Tanh", ["s"], ["h_next"]),
        helper.make_node("MatMul", ["h_next", wo], ["raw"]),
        helper.make_node("Cast", ["i"], ["step"], to=F32), helper.make_node("Mul", ["step", penalty], ["bias"]),
        helper.make_node("Add", ["raw", "bias"], ["logits"]),
        helper.make_node("ArgMax", ["logits"], ["token_next"], axis=1, keepdims=0),
        helper.make_node("Equal", ["token_next", b.constant(np.array([end], np.int64))], ["ended"]),
        helper.make_node("Not", ["ended"], ["again_1"]),
        helper.make_node("Squeeze", ["again_1", b.constant(np.array([0], np.int64))], ["again"])],
        "decode", [info("i", I64, []), info("go", BOOL, []), info("h", F32, [1, hidden]), info("token", I64, [1])],
        [info("again", BOOL, []), info("h_next", F32, [1, hidden]), info("token_next", I64, [1])])
    b.count += 1
    outputs = [f"state_{b.count}", f"last_{b.count}"]
    b.nodes.append(helper.make_node("Loop", [b.constant(np.int64(32)), b.constant(np.bool_(True)), "encoded",
                                             b.constant(np.array([1], np.int64))], outputs, name="decode", body=body))
    return b.model("greedy_decoder", [("encoded", [1, hidden])], [(outputs[0], [1, hidden])])


def early_exit_cnn(threshold):
    def make():
        b = oracle.Builder(73)
        x = b.conv_bn("image", 3, 32, 3, stride=2, pad=1)
        x = b.conv_bn(x, 32, 64, 3, stride=2, pad=1)

        def head(builder, features, channels):
            pooled = builder.op("Flatten", [builder.op("GlobalAveragePool", [features])], axis=1)
            return builder.op("Gemm", [pooled, builder.weight([10, channels], 0.3), builder.constant(np.zeros(10, np.float32))],
                              transB=1)

        first = head(b, x, 64)
        confidence = b.op("ReduceMax", [b.op("Softmax", [first], axis=1)], keepdims=0)
        confident = b.op("Greater", [confidence, b.constant(np.float32(threshold))])
        deep = oracle.Builder(74)
        deep.count = 1000  # names unique beside the outer graph's
        y = deep.conv_bn(x, 64, 128, 3, stride=2, pad=1)
        y = deep.conv_bn(y, 128, 128, 3, pad=1)
        second = head(deep, y, 128)
        b.initializers.extend(deep.initializers)
        keep = helper.make_graph([helper.make_node("Identity", [first], ["exit"])], "exit", [], [info("exit", F32, [1, 10])])
        more = helper.make_graph(deep.nodes + [helper.make_node("Identity", [second], ["full"])], "full", [],
                                 [info("full", F32, [1, 10])])
        logits = b.op("If", [confident], then_branch=keep, else_branch=more)
        return b.model("early_exit_cnn", [("image", [1, 3, 64, 64])], [(logits, [1, 10])])

    return make


TREE = """module attributes {{graph.weights = "tree.safetensors"}} {{
  func.func @main(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {{
    %depth = graph.constant dense<{depth}> : tensor<i64>
    %r = func.call @node(%depth, %x) : (tensor<i64>, tensor<1x64xf32>) -> tensor<1x64xf32>
    return %r : tensor<1x64xf32>
  }}
  func.func private @node(%depth: tensor<i64>, %x: tensor<1x64xf32>) -> tensor<1x64xf32> {{
    %zero = graph.constant dense<0> : tensor<i64>
    %leaf = graph.compare eq, %depth, %zero : tensor<i64>, tensor<i64> -> tensor<i1>
    %r = graph.if %leaf -> (tensor<1x64xf32>) {{
      %w = graph.weight "leaf" : tensor<64x64xf32>
      %p = graph.matmul %x, %w : tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>
      %t = graph.tanh %p : tensor<1x64xf32>
      graph.yield %t : tensor<1x64xf32>
    }} else {{
      %one = graph.constant dense<1> : tensor<i64>
      %below = graph.sub %depth, %one : tensor<i64>, tensor<i64> -> tensor<i64>
      %a = graph.weight "left" : tensor<64x64xf32>
      %b = graph.weight "right" : tensor<64x64xf32>
      %xa = graph.matmul %x, %a : tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>
      %xb = graph.matmul %x, %b : tensor<1x64xf32>, tensor<64x64xf32> -> tensor<1x64xf32>
      %la = graph.tanh %xa : tensor<1x64xf32>
      %lb = graph.tanh %xb : tensor<1x64xf32>
      %l = func.call @node(%below, %la) : (tensor<i64>, tensor<1x64xf32>) -> tensor<1x64xf32> loc("left")
      %r2 = func.call @node(%below, %lb) : (tensor<i64>, tensor<1x64xf32>) -> tensor<1x64xf32> loc("right")
      %c = graph.concat %l, %r2 {{axis = 1 : i64}} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32>
      %j = graph.weight "join" : tensor<128x64xf32>
      %s = graph.matmul %c, %j : tensor<1x128xf32>, tensor<128x64xf32> -> tensor<1x64xf32>
      %t = graph.tanh %s : tensor<1x64xf32>
      graph.yield %t : tensor<1x64xf32>
    }} loc("combine")
    return %r : tensor<1x64xf32>
  }}
}}
"""


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, value in tensors.items():
        data = value.astype(np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    encoded = json.dumps(header).encode()
    with open(path, "wb") as file:
        file.write(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))


def recursive_tree(work, depth=4):
    rng = np.random.default_rng(75)
    write_safetensors(os.path.join(work, "tree.safetensors"), {
        "leaf": rng.standard_normal((64, 64)) * 0.2, "left": rng.standard_normal((64, 64)) * 0.2,
        "right": rng.standard_normal((64, 64)) * 0.2, "join": rng.standard_normal((128, 64)) * 0.15})
    path = os.path.join(work, "tree.mlir")
    with open(path, "w") as file:
        file.write(TREE.format(depth=depth))
    return path


MODELS = [
    ("LSTM language model (2 layers, 32 steps)", lstm_lm),
    ("greedy decoder (stops at its end token)", greedy_decoder),
    ("early-exit CNN, exit taken", early_exit_cnn(0.0)),
    ("early-exit CNN, exit not taken", early_exit_cnn(1.0)),
    ("recursive tree (4 levels, 31 calls)", None),
]

COUNTERS = ["cycles", "kernel_launches", "device_steps", "host_syncs", "device_branches"]


# The runs of each model: who runs the control flow, and whether loops keep their invariant
# inputs in the clusters' GBs (the lowering's default, where its cost model says it pays).
RUNS = [("device", "control=device"), ("host", "control=host"),
        ("device, invariants from DDR", "control=device keep-invariants=false")]


def run(bin_dir, model_path, inputs, work, label, options, check):
    report = os.path.join(work, "report.json")
    command = [os.path.join(bin_dir, "turbine-run"), model_path, "--target", "stcp920",
               "--schedule", f"layerwise{{{options}}}", "--report-json", report]
    for index, path in enumerate(inputs):
        command += ["--input", path]
    command += ["--output", os.path.join(work, "out.npy")]
    if check:
        command.append("--check")
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        raise RuntimeError(f"{label}: {ran.stderr.strip()}")
    counts = json.load(open(report))
    return {key: counts[key] for key in COUNTERS}, np.load(os.path.join(work, "out.npy"))


def measure(name, make, bin_dir, work):
    inputs = []
    if make is None:
        path = recursive_tree(work)
        value = np.random.default_rng(0).standard_normal((1, 64)).astype(np.float32)
        np.save(os.path.join(work, "in0.npy"), value)
        inputs.append(os.path.join(work, "in0.npy"))
        expected = None
    else:
        model = make()
        path = os.path.join(work, "model.onnx")
        onnx.save(model, path)
        feeds = {}
        for index, value in enumerate(model.graph.input):
            shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
            rng = np.random.default_rng(index)
            if value.type.tensor_type.elem_type == I64:
                feeds[value.name] = rng.integers(0, 1000, shape)
            else:
                feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
            np.save(os.path.join(work, f"in{index}.npy"), feeds[value.name])
            inputs.append(os.path.join(work, f"in{index}.npy"))
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        expected = session.run(None, feeds)[0]
    results = {}
    for label, options in RUNS:
        counts, output = run(bin_dir, path, inputs, work, label, options, check=expected is None)
        if expected is not None:
            bound = 1e-4 * np.abs(expected).max() + 1e-4 * np.abs(expected)
            if (np.abs(output - expected) > bound).any():
                raise RuntimeError(f"{label}: differs from onnxruntime by {np.abs(output - expected).max()}")
        results[label] = counts
    return results


def table(rows):
    lines = ["| model | run | cycles | kernel launches | device steps | host syncs | device branches | "
             "speedup over the host |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, results in rows:
        for label, _ in RUNS:
            c = results[label]
            speedup = results["host"]["cycles"] / c["cycles"]
            lines.append(f"| {name} | {label} | {c['cycles']:,} | {c['kernel_launches']:,} | {c['device_steps']:,} | "
                         f"{c['host_syncs']:,} | {c['device_branches']:,} | "
                         f"{'' if label == 'host' else f'{speedup:.2f}x'} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--markdown", help="write the table into this file between the control-flow markers")
    parser.add_argument("--gate", action="store_true",
                        help="exit non-zero when control on the device takes more cycles than on the host")
    arguments = parser.parse_args()
    rows = []
    for name, make in MODELS:
        with tempfile.TemporaryDirectory() as work:
            try:
                rows.append((name, measure(name, make, arguments.bin_dir, work)))
            except RuntimeError as error:
                print(f"FAIL {name}: {error}", file=sys.stderr)
                return 1
        print(f"{name}: done", file=sys.stderr, flush=True)
    text = table(rows)
    print(text)
    slower = [name for name, results in rows if results["device"]["cycles"] > results["host"]["cycles"]]
    if arguments.gate and slower:
        print(f"control on the device is slower than on the host for: {', '.join(slower)}", file=sys.stderr)
        return 1
    if arguments.markdown:
        with open(arguments.markdown) as file:
            document = file.read()
        start, end = "<!-- control-flow -->", "<!-- /control-flow -->"
        head, rest = document.split(start, 1)
        _, tail = rest.split(end, 1)
        with open(arguments.markdown, "w") as file:
            file.write(f"{head}{start}\n{text}\n{end}{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
