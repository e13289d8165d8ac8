#!/usr/bin/env python3
"""Measures graph-substitute (MetaFlow's relaxed graph substitution, docs/Substitution.md) on the
paper's kinds of models, side by side in one run: ResNet-50 and DenseNet-121 at batch 1, an
Inception-v1 and an Inception-v3 block, a SqueezeNet fire module, a BERT-base encoder layer (sequence 128) and a
transformer encoder layer as torch.onnx exports it. Models are built with onnx.helper (seeded
weights, nothing downloaded) or are the built-in ones.

For each model and search setting (no substitution; alpha = 1, the greedy search; alpha = 1.05
and 1.1, MetaFlow's backtracking; equality saturation with egg) it prints the cost model's estimate before and after (cycles
of the layer-wise schedule on stcp920, as the lowering estimates them), the rewrites and the
rules that made them, the search time (`turbine-opt --mlir-timing`), and the simulated cycles and
kernels of the compiled model on the software DSA (`turbine-run`, layer-wise schedule). A model
that does not compile without substitution shows why.

Usage: tools/scripts/substitution-report.py --bin-dir target/release [--markdown docs/Substitution.md]
"""

import argparse
import collections
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


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


oracle = load("oracle", "onnxruntime-oracle.py")
benchmark = load("benchmark", "benchmark.py")


def inception_block():
    """GoogLeNet's inception (3a) block on 28x28x192: 1x1, 1x1->3x3, 1x1->5x5 and pool->1x1
    branches concatenated; three 1x1 convolutions read the block's input (MetaFlow's example)."""
    b = oracle.Builder(3)
    x = "input"

    def conv(v, cin, cout, kernel):
        y = b.op("Conv", [v, b.weight([cout, cin, kernel, kernel]), b.constant(np.zeros(cout, np.float32))],
                 pads=[kernel // 2] * 4, kernel_shape=[kernel, kernel])
        return b.op("Relu", [y])

    one = conv(x, 192, 64, 1)
    three = conv(conv(x, 192, 96, 1), 96, 128, 3)
    five = conv(conv(x, 192, 16, 1), 16, 32, 5)
    pool = conv(b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]), 192, 32, 1)
    out = b.op("Concat", [one, three, five, pool], axis=1)
    return b.model("inception_3a", [("input", [1, 192, 28, 28])], [out])


def inception_v3_block():
    """Inception-v3's Mixed_6b-style block on 17x17x768: a 1x1 branch, a 1x1 -> 1x7 -> 7x1
    branch, a 1x1 -> 7x1 -> 1x7 -> 7x1 -> 1x7 branch and an average-pool -> 1x1 branch; three
    1x1 convolutions read the block's input."""
    b = oracle.Builder(6)
    x = "input"

    def conv(v, cin, cout, kh, kw):
        y = b.op("Conv", [v, b.weight([cout, cin, kh, kw]), b.constant(np.zeros(cout, np.float32))],
                 pads=[kh // 2, kw // 2, kh // 2, kw // 2], kernel_shape=[kh, kw])
        return b.op("Relu", [y])

    one = conv(x, 768, 192, 1, 1)
    seven = conv(conv(conv(x, 768, 128, 1, 1), 128, 128, 1, 7), 128, 192, 7, 1)
    double = conv(x, 768, 128, 1, 1)
    for cin, cout, (kh, kw) in [(128, 128, (7, 1)), (128, 128, (1, 7)), (128, 128, (7, 1)), (128, 192, (1, 7))]:
        double = conv(double, cin, cout, kh, kw)
    pool = b.op("AveragePool", [x], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1])
    out = b.op("Concat", [one, seven, double, conv(pool, 768, 192, 1, 1)], axis=1)
    return b.model("inception_6b", [("input", [1, 768, 17, 17])], [out])


MODELS = [
    ("ResNet-50", lambda: benchmark.resnet(50)),
    ("DenseNet-121", "densenet121"),
    ("Inception-v1 block", inception_block),
    ("Inception-v3 block", inception_v3_block),
    ("SqueezeNet fire", oracle.squeezenet_fire),
    ("BERT-base layer", oracle.bert_layer),
    ("torch encoder layer", oracle.torch_encoder_layer),
]

SETTINGS = [("none", None), ("alpha 1", 1.0), ("alpha 1.05", 1.05), ("alpha 1.1", 1.1), ("egraph", "egraph")]


def prepare(make, bin_dir, work):
    """The model as graph-dialect text (a file), and how turbine-run takes it."""
    mlir = os.path.join(work, "model.mlir")
    if isinstance(make, str):
        text = subprocess.run([os.path.join(bin_dir, "turbine-run"), "--builtin", make, "--print-model"],
                              capture_output=True, text=True, check=True).stdout
        open(mlir, "w").write(text)
        return mlir, ["--builtin", make]
    path = os.path.join(work, "model.onnx")
    onnx.save(make(), path)
    subprocess.run([os.path.join(bin_dir, "turbine-translate"), "--import-onnx", path, "-o", mlir],
                   capture_output=True, text=True, check=True)
    return mlir, [mlir]


def search(bin_dir, mlir, alpha):
    engine = "search=egraph" if alpha == "egraph" else f"alpha={alpha}"
    # As the layer-wise pipeline runs it: the weights computed from weights are prepared at load
    # time, so they cost nothing, and the batch norms fold into the convolutions first.
    options = f"target=stcp920 explain=true prepared-weights=true weight-folds=true {engine}"
    ran = subprocess.run([os.path.join(bin_dir, "turbine-opt"), mlir, "--graph-fold-reshapes",
                          f"--graph-substitute={options}", "--mlir-timing", "-o", os.devnull],
                         capture_output=True, text=True)
    if ran.returncode != 0:
        return {"error": ran.stderr.strip().splitlines()[-1]}
    seconds = re.search(r"([\d.]+) \(\s*[\d.]+%\)\s+graph-substitute", ran.stderr)
    saturated = re.search(r"equality saturation: (\d+) rounds \((\w+)\), (\d+) e-nodes in (\d+) e-classes, \d+ rules left out; "
                          r"merges: (.*); extracted cost (\d+) -> (\d+) \((kept|not cheaper)", ran.stderr)
    if saturated:
        merges = collections.Counter({rule: int(count) for rule, count in re.findall(r"([a-z0-9_]+) x(\d+)", saturated.group(5))})
        kept = saturated.group(8) == "kept"
        return {
            "before": int(saturated.group(6)), "after": int(saturated.group(7)) if kept else int(saturated.group(6)),
            "rewrites": sum(merges.values()), "expanded": f"{saturated.group(1)} rounds ({saturated.group(2).lower()})",
            "generated": f"{saturated.group(3)} e-nodes", "seconds": float(seconds.group(1)) if seconds else float("nan"),
            "rules": merges,
        }
    total = re.search(r"substitution: cost (\d+) -> (\d+) \((\d+) rewrites; (\d+) candidates expanded, (\d+) generated\)", ran.stderr)
    rules = collections.Counter(re.findall(r"remark: applied '([a-z0-9_]+)'", ran.stderr))
    return {
        "before": int(total.group(1)), "after": int(total.group(2)), "rewrites": int(total.group(3)),
        "expanded": int(total.group(4)), "generated": int(total.group(5)),
        "seconds": float(seconds.group(1)) if seconds else float("nan"), "rules": rules,
    }


def simulate(bin_dir, model, alpha, work):
    if alpha is None:
        substitute = "substitute=none"
    elif alpha == "egraph":
        substitute = "substitute=egraph"
    else:
        substitute = f"substitute=backtracking substitute-alpha={alpha}"
    report = os.path.join(work, "report.json")
    ran = subprocess.run([os.path.join(bin_dir, "turbine-run"), *model, "--target", "stcp920",
                          "--schedule", f"layerwise{{{substitute}}}", "--report-json", report],
                         capture_output=True, text=True)
    if ran.returncode != 0:
        reason = ran.stderr.strip().splitlines()[-1] if ran.stderr.strip() else "failed"
        return {"error": re.sub(r'"[^"]*/(model\.mlir)"', r"\1", reason)}
    figures = json.load(open(report))
    return {"cycles": figures["cycles"], "kernels": figures["kernel_launches"]}


def measure(bin_dir):
    rows = []
    for name, make in MODELS:
        with tempfile.TemporaryDirectory() as work:
            mlir, model = prepare(make, bin_dir, work)
            for setting, alpha in SETTINGS:
                found = search(bin_dir, mlir, alpha) if alpha is not None else None
                ran = simulate(bin_dir, model, alpha, work)
                rows.append({"model": name, "setting": setting, "search": found, "run": ran})
                print(f"{name:20} {setting:11} {describe(found, ran)}", flush=True)
    return rows


def describe(found, ran):
    run = ran.get("error") or f"{ran['cycles']:,} cycles, {ran['kernels']} kernels"
    if found is None:
        return f"simulated {run}"
    if "error" in found:
        return f"search failed: {found['error']}; simulated {run}"
    return (f"estimate {found['before']:,} -> {found['after']:,}, {found['rewrites']} rewrites, "
            f"{found['seconds']:.2f} s; simulated {run}")


def markdown(rows):
    lines = [
        "| model | search | estimate before | estimate after | rewrites or e-graph merges (rules) | candidates expanded / generated, or rounds / e-nodes | search s | simulated cycles | kernels |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        found, ran = row["search"], row["run"]
        simulated = f"{ran['cycles']:,} | {ran['kernels']}" if "cycles" in ran else f"does not compile: {ran['error']} | "
        if found is None:
            lines.append(f"| {row['model']} | {row['setting']} | | | | | | {simulated} |")
            continue
        if "error" in found:
            lines.append(f"| {row['model']} | {row['setting']} | search failed: {found['error']} | | | | | {simulated} |")
            continue
        rules = ", ".join(f"{rule} x{count}" for rule, count in sorted(found["rules"].items())) or "-"
        lines.append(
            f"| {row['model']} | {row['setting']} | {found['before']:,} | {found['after']:,} | {found['rewrites']} ({rules}) | "
            f"{found['expanded']} / {found['generated']} | {found['seconds']:.2f} | {simulated} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--markdown", help="Replace the measurements table of this file (docs/Substitution.md)")
    arguments = parser.parse_args()
    table = markdown(measure(arguments.bin_dir))
    print(table)
    if arguments.markdown:
        text = open(arguments.markdown).read()
        begin, end = "<!-- substitution-report: begin -->", "<!-- substitution-report: end -->"
        head, rest = text.split(begin)
        _, tail = rest.split(end)
        open(arguments.markdown, "w").write(f"{head}{begin}\n{table}\n{end}{tail}")


if __name__ == "__main__":
    sys.exit(main())
