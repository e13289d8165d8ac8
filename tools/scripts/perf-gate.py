#!/usr/bin/env python3
"""Performance regression gate: the simulated figures of the benchmark models with both schedules,
compared exactly with the checked-in test/Perf/baseline.json (the simulation is deterministic, so
any change is a change of the compiler, the runtime or the target), and GraphTurbo's schedule
never slower than the layer-wise one on a gated model.

Per run it records the simulated cycles, the kernel launches, the DMA bytes per pair of memory
levels (and the DDR and GB<->LB totals), the matrix engines' flops, the host's bytes and the mean
utilisation per kind of unit. A difference fails the gate with a table of what changed. The tables
of docs/Benchmarks.md and docs/Paper.md that come from the same runs (the schedule comparison,
Table 3's bytes per path, Fig. 16's utilisation) are generated from the baseline: the gate also
fails when they differ from it.

Usage:
  tools/scripts/perf-gate.py --bin-dir target/release           check (the test suite runs this)
  tools/scripts/perf-gate.py --bin-dir target/release --bless   rewrite the baseline and the tables
  [--only TEXT] runs only the runs whose name contains TEXT (checks only them; no --bless)
"""

import argparse
import importlib.util
import json
import os
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BASELINE = os.path.join(ROOT, "test", "Perf", "baseline.json")
SCHEDULES = ["layerwise", "graphturbo"]


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


paper_tables = load("paper_tables", "paper-tables.py")
benchmark = paper_tables.benchmark
oracle = benchmark.oracle


def builtin(name, batch):
    return lambda work: ["--builtin", name, "--batch", str(batch)]


def onnx_model(name, make):
    def arguments(work):
        path = os.path.join(work, f"{name}.onnx")
        onnx.save(make(), path)
        return [path]
    return arguments


# The gated models: the benchmarks' CNNs, the BERT-base encoder layer (sequence 128) and the
# ViT-B/16 block, at the batches the test time allows (every model of `benchmark.py --pairs` at
# batch 1).
MODELS = [
    ("ResNet-18 b1", builtin("resnet18", 1)),
    ("ResNet-18 b8", builtin("resnet18", 8)),
    ("ResNet-50 b1", builtin("resnet50", 1)),
    ("ResNet-50 b8", builtin("resnet50", 8)),
    ("ResNet-50 b32", builtin("resnet50", 32)),
    ("MobileNet-V2 b1", onnx_model("mobilenet_v2", oracle.mobilenet_v2)),
    ("DenseNet-121 b1", builtin("densenet121", 1)),
    ("BERT-base layer b1 s128", onnx_model("bert_b1", lambda: oracle.bert_layer(batch=1))),
    ("BERT-base layer b8 s128", onnx_model("bert_b8", lambda: oracle.bert_layer(batch=8))),
    ("BERT-base layer b32 s128", onnx_model("bert_b32", lambda: oracle.bert_layer(batch=32))),
    ("ViT-B/16 block b1", onnx_model("vit_b1", lambda: oracle.vit_b16_block(batch=1))),
]

# Generated tables: (file, marker, models) per table whose rows come from the gated runs.
SCHEDULE_TABLE_MODELS = ["ResNet-50 b8", "ResNet-50 b32", "DenseNet-121 b1", "BERT-base layer b32 s128"]
BYTES_TABLE_MODELS = ["ResNet-50 b32", "BERT-base layer b32 s128"]
UTILISATION_BATCHES = [1, 8, 32]


def measure(arguments):
    """{model: {schedule: figures or {"error": ...}}} for the selected models."""
    measured = {}
    for name, make in MODELS:
        if arguments.only and arguments.only not in name:
            continue
        with tempfile.TemporaryDirectory(prefix="perf-gate-") as work:
            model = make(work)
            measured[name] = {schedule: benchmark.run_schedule(arguments, model, schedule, work)
                              for schedule in SCHEDULES}
        benchmark.progress(f"measured {name}")
    return measured


def flatten(figures, prefix=""):
    """{"cycles": 1, "paths": {"ddr<->gb": 2}} as {"cycles": 1, "paths ddr<->gb": 2}."""
    flat = {}
    for key, value in figures.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key} "))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def changes(baseline, measured):
    """Rows (run, figure, baseline, now) for every figure that differs."""
    rows = []
    for name, runs in measured.items():
        for schedule, figures in runs.items():
            run = f"{name} {schedule}"
            expected = baseline.get(name, {}).get(schedule)
            if expected is None:
                rows.append((run, "(whole run)", "not in the baseline", "measured"))
                continue
            if "error" in figures:
                rows.append((run, "(whole run)", "measured", f"failed: {figures['error']}"))
                continue
            old, new = flatten(expected), flatten(figures)
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key):
                    rows.append((run, key, old.get(key, "-"), new.get(key, "-")))
    return rows


def change_table(rows):
    def show(value):
        return f"{value:,}" if isinstance(value, (int, float)) else str(value)

    def change(old, new):
        if not (isinstance(old, (int, float)) and isinstance(new, (int, float))):
            return ""
        relative = f" ({100 * (new - old) / old:+.3f}%)" if old else ""
        return f"{new - old:+,}{relative}"

    lines = ["| run | figure | baseline | now | change |", "|---|---|---|---|---|"]
    lines += [f"| {run} | {key} | {show(old)} | {show(new)} | {change(old, new)} |" for run, key, old, new in rows]
    return "\n".join(lines)


def generated_tables(arguments, baseline):
    """(file, marker, text) per docs table generated from the baseline."""
    schedules, _ = benchmark.schedules_table(arguments, [(name, baseline[name]) for name in SCHEDULE_TABLE_MODELS])
    bytes_lines = list(paper_tables.BYTES_HEADER)
    bytes_lines += [paper_tables.bytes_line(name, schedule, baseline[name][schedule])
                    for name in BYTES_TABLE_MODELS for schedule in SCHEDULES]
    utilisation = list(paper_tables.UTILISATION_HEADER)
    utilisation += [paper_tables.utilisation_line(batch, schedule, baseline[f"ResNet-50 b{batch}"][schedule])
                    for batch in UTILISATION_BATCHES for schedule in SCHEDULES]
    docs = os.path.join(ROOT, "docs")
    return [(os.path.join(docs, "Benchmarks.md"), "schedules", schedules),
            (os.path.join(docs, "Paper.md"), "table3", "\n".join(bytes_lines)),
            (os.path.join(docs, "Paper.md"), "utilisation", "\n".join(utilisation))]


def stale_tables(arguments, baseline):
    """The docs tables that differ from what the baseline generates."""
    stale = []
    for path, marker, text in generated_tables(arguments, baseline):
        document = open(path).read()
        begin, end = f"<!-- {marker}:begin -->\n", f"\n<!-- {marker}:end -->"
        if f"{begin}{text}{end}" not in document:
            stale.append(f"{os.path.relpath(path, ROOT)} ({marker})")
    return stale


def inversions(measured):
    """The models on which GraphTurbo's schedule takes more cycles than the layer-wise one."""
    return [f"{name} ({runs['graphturbo']['cycles']:,} against {runs['layerwise']['cycles']:,})"
            for name, runs in measured.items()
            if all("cycles" in runs.get(schedule, {}) for schedule in SCHEDULES)
            and runs["graphturbo"]["cycles"] > runs["layerwise"]["cycles"]]


def write_baseline(measured):
    failed = [f"{name} {schedule}" for name, runs in measured.items() for schedule, figures in runs.items()
              if "error" in figures]
    if failed:
        sys.exit("perf-gate: not blessing a baseline with failed runs: " + ", ".join(failed))
    os.makedirs(os.path.dirname(BASELINE), exist_ok=True)
    with open(BASELINE, "w") as file:
        json.dump(measured, file, indent=1)
        file.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--target", default="stcp920")
    parser.add_argument("--only", help="only the models whose name contains this")
    parser.add_argument("--bless", action="store_true", help="rewrite the baseline and the docs tables from this run")
    arguments = parser.parse_args()
    if arguments.bless and arguments.only:
        parser.error("--bless measures every model: it cannot be combined with --only")
    measured = measure(arguments)
    inverted = inversions(measured)
    if inverted:
        print("perf-gate: GraphTurbo is slower than the layer-wise schedule on " + ", ".join(inverted))
        sys.exit(1)
    if arguments.bless:
        write_baseline(measured)
        for path, marker, text in generated_tables(arguments, measured):
            benchmark.write_between(path, marker, text)
        print(f"perf-gate: wrote {os.path.relpath(BASELINE, ROOT)} and the docs tables generated from it")
        return
    baseline = json.load(open(BASELINE))
    rows = changes(baseline, measured)
    stale = [] if arguments.only else stale_tables(arguments, baseline)
    runs = sum(len(r) for r in measured.values())
    if rows:
        print(f"perf-gate: {len(rows)} figures of {runs} runs differ from {os.path.relpath(BASELINE, ROOT)}:\n")
        print(change_table(rows))
    if stale:
        print("perf-gate: docs tables differ from the baseline: " + ", ".join(stale))
    if rows or stale:
        print("\nIf the change is intended: tools/scripts/perf-gate.py --bin-dir target/release --bless")
        sys.exit(1)
    print(f"perf-gate: {runs} runs equal to the baseline")


if __name__ == "__main__":
    main()
