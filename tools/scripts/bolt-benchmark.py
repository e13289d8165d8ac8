#!/usr/bin/env python3
"""Benchmark (not a test) of chain fusion (BOLT §3.1), side by side in one run: each model is
compiled with the layer-wise schedule three times, `fuse-chains=never` (every product and
convolution a layer of its own), `auto` (the default: fused where the cost model estimates it
faster) and `always` (fused wherever the blocks fit the LB), and run on the software DSA. Per run
it prints the simulated cycles, the kernels launched and the DMA bytes to and from DDR and between
the GBs and the LBs, and the speedup of `auto` and `always` over `never`.

The models are built here with onnx.helper (seeded weights): a BERT-base feed-forward pair
(768 -> 3072 -> 768 over 128 tokens per sample, erf GELU between, biases), an MLP stack (four
64-wide dense layers with ReLU over 256 rows per sample), ResNet-50's first bottleneck of its
first stage (1x1 -> 3x3 -> 1x1 at 56x56, batch norms folded, a residual after) and a MobileNet-V2
block (expand 1x1, depthwise 3x3, project 1x1 at 56x56, ReLU6), at batch 1, 8 and 32.

With --tuning it measures the profiler instead (BOLT §3.2): ResNet-50 at batch 1 and 8,
DenseNet-121 at batch 1 (the built-in models) and the BERT-base encoder layer at batch 1 and 8,
each run untuned (the estimate's tilings) and after `turbine-run --tune` (4 candidates per
layer), with the tuning time and the estimate's error against the measurements.

Usage: tools/scripts/bolt-benchmark.py --bin-dir target/release [--batches 1,8,32] [--tuning]
[--markdown docs/Bolt.md] (the table goes between the `bolt` or `bolt-tuning` markers) [--check]
(every run also checked against the interpreter, which at batch 32 takes minutes).
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("oracle", os.path.join(HERE, "onnxruntime-oracle.py"))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)

FUSIONS = ["never", "auto", "always"]


def feed_forward(batch):
    """BERT-base's feed-forward pair over [batch, 128, 768]."""
    b = oracle.Builder(48)

    def dense(v, cin, cout):
        return b.op("Add", [b.op("MatMul", [v, b.weight([cin, cout], 0.02)]),
                            b.constant(np.zeros(cout, np.float32))])

    h = dense("input", 768, 3072)
    erf = b.op("Erf", [b.op("Div", [h, b.constant(np.array(np.sqrt(2.0), np.float32))])])
    gelu = b.op("Mul", [b.op("Mul", [h, b.op("Add", [erf, b.constant(np.array(1.0, np.float32))])]),
                        b.constant(np.array(0.5, np.float32))])
    return b.model("feed_forward", [("input", [batch, 128, 768])], [dense(gelu, 3072, 768)])


def mlp_stack(batch):
    """Four 64-wide dense layers with ReLU over [batch * 256, 64]."""
    b = oracle.Builder(64)
    x = "input"
    for _ in range(4):
        x = b.op("Relu", [b.op("Gemm", [x, b.weight([64, 64]), b.constant(np.zeros(64, np.float32))])])
    return b.model("mlp_stack", [("input", [batch * 256, 64])], [x])


def bottleneck(batch):
    """ResNet-50's first stage-1 bottleneck body with an identity shortcut: 256 -> 64 (1x1) ->
    64 (3x3) -> 256 (1x1), plus the input."""
    b = oracle.Builder(50)
    y = b.conv_bn("input", 256, 64, 1)
    y = b.conv_bn(y, 64, 64, 3, pad=1)
    y = b.conv_bn(y, 64, 256, 1, relu=False)
    return b.model("bottleneck", [("input", [batch, 256, 56, 56])], [b.op("Relu", [b.op("Add", [y, "input"])])])


def mobilenet_block(batch):
    """oracle.mobilenet_v2_block at `batch`."""
    model = oracle.mobilenet_v2_block()
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = batch
    for value in model.graph.output:
        value.type.tensor_type.shape.dim[0].dim_value = batch
    return model


MODELS = [("BERT-base feed-forward pair", feed_forward), ("MLP stack (4 x 64)", mlp_stack),
          ("ResNet-50 bottleneck (56x56)", bottleneck), ("MobileNet-V2 block (56x56)", mobilenet_block)]


def run(bin_dir, path, fusion, check, work):
    """Compiles and runs the model at `path` with `fuse-chains=fusion`: its figures."""
    report = os.path.join(work, "report.json")
    command = [os.path.join(bin_dir, "turbine-run"), path, "--target", "stcp920", "--schedule",
               f"layerwise{{fuse-chains={fusion}}}", "--report-json", report]
    if check:
        command.append("--check")
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        raise RuntimeError(f"{path} fuse-chains={fusion}: {ran.stderr.strip()}")
    counts = json.load(open(report))
    transfers = counts["transfers"]
    touching = lambda level: sum(t["bytes"] for t in transfers if level in (t["src"], t["dst"]))
    return {"cycles": counts["cycles"], "kernels": counts["kernel_launches"],
            "ddr": touching("ddr"),
            "gb": sum(t["bytes"] for t in transfers
                      if "gb" in (t["src"], t["dst"]) and "ddr" not in (t["src"], t["dst"]))}


def table(rows):
    lines = ["| model | batch | fuse-chains | cycles | speedup | kernels | DDR MB | GB<->LB MB |",
             "|---|---|---|---|---|---|---|---|"]
    for name, batch, fusion, figures, base in rows:
        speedup = base["cycles"] / figures["cycles"]
        lines.append(f"| {name} | {batch} | {fusion} | {figures['cycles']:,} | {speedup:.2f}x | "
                     f"{figures['kernels']} | {figures['ddr'] / 1e6:,.1f} | {figures['gb'] / 1e6:,.1f} |")
    return "\n".join(lines)


TUNED_MODELS = [("ResNet-50 b1", ["--builtin", "resnet50", "--batch", "1"]),
                ("ResNet-50 b8", ["--builtin", "resnet50", "--batch", "8"]),
                ("DenseNet-121 b1", ["--builtin", "densenet121"]),
                ("BERT-base layer b1 s128", "bert:1"), ("BERT-base layer b8 s128", "bert:8")]

TUNER = re.compile(r"tuned (\d+) decisions in ([0-9.]+) s \(\d+ compiles\): (\d+) take another candidate.*"
                   r"estimate error over (\d+) measurements: mean ([0-9.]+) %, worst ([-+0-9.]+) %")


def run_tuning(bin_dir, model, work):
    """Runs `model` (turbine-run's arguments) untuned, then tuned: the figures of both and what
    the tuner printed."""
    report = os.path.join(work, "report.json")
    base = [os.path.join(bin_dir, "turbine-run"), *model, "--target", "stcp920", "--report-json", report]

    def cycles(command):
        ran = subprocess.run(command, capture_output=True, text=True)
        if ran.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: {ran.stderr.strip()}")
        return json.load(open(report))["cycles"], ran.stdout

    untuned, _ = cycles(base)
    tuned, printed = cycles(base + ["--tune", "--tuning-cache", os.path.join(work, "cache.json")])
    found = TUNER.search(printed)
    if found is None:
        raise RuntimeError(f"{model}: the tuner printed no summary")
    return untuned, tuned, found.groups()


def tuning_table(bin_dir, work):
    lines = ["| model | untuned cycles | tuned cycles | speedup | decisions | changed | tuning time | "
             "estimate error (mean / worst) |", "|---|---|---|---|---|---|---|---|"]
    for name, model in TUNED_MODELS:
        if isinstance(model, str):
            path = os.path.join(work, "bert.onnx")
            onnx.save(oracle.bert_layer(batch=int(model.split(":")[1])), path)
            model = [path]
        untuned, tuned, (kinds, seconds, retiled, _, mean, worst) = run_tuning(bin_dir, model, work)
        print(f"{name}: {untuned:,} -> {tuned:,} cycles, tuned in {seconds} s", file=sys.stderr)
        lines.append(f"| {name} | {untuned:,} | {tuned:,} | {untuned / tuned:.3f}x | {kinds} | {retiled} | "
                     f"{float(seconds):.0f} s | {mean} % / {worst} % |")
    return "target stcp920, layer-wise schedule; 4 candidates per layer\n\n" + "\n".join(lines)


def write_markdown(path, text, marker):
    with open(path) as file:
        content = file.read()
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    head, rest = content.split(begin)
    _, tail = rest.split(end)
    with open(path, "w") as file:
        file.write(f"{head}{begin}\n{text}\n{end}{tail}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--batches", default="1,8,32")
    parser.add_argument("--markdown")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--tuning", action="store_true")
    arguments = parser.parse_args()
    if arguments.tuning:
        with tempfile.TemporaryDirectory() as work:
            text = tuning_table(arguments.bin_dir, work)
        print(text)
        if arguments.markdown:
            write_markdown(arguments.markdown, text, "bolt-tuning")
        return
    batches = [int(batch) for batch in arguments.batches.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, make in MODELS:
            for batch in batches:
                path = os.path.join(work, "model.onnx")
                onnx.save(make(batch), path)
                measured = {fusion: run(arguments.bin_dir, path, fusion, arguments.check, work)
                            for fusion in FUSIONS}
                for fusion in FUSIONS:
                    rows.append((name, batch, fusion, measured[fusion], measured["never"]))
                print(f"{name} b{batch}: " + ", ".join(
                    f"{fusion} {measured[fusion]['cycles']:,} cycles" for fusion in FUSIONS),
                    file=sys.stderr)
    text = "target stcp920, layer-wise schedule; speedup over `fuse-chains=never`\n\n" + table(rows)
    print(text)
    if arguments.markdown:
        write_markdown(arguments.markdown, text, "bolt")


if __name__ == "__main__":
    main()
