#!/usr/bin/env python3
"""GraphTurbo's evaluation (OSDI'23 §5) reproduced on the software DSA, side by side in one run,
for docs/Paper.md (not a test): the layer-wise schedule against GraphTurbo's on stcp920.

- Table 1: the BERT-base encoder layer (sequence 128) at batch 8, 16 and 32: latency of one
  inference at the target's clock and throughput in sentences per second; then the like-for-like
  row (`table1-f16`): the whole 12-layer BERT-base in f16 (`--precision f16`) with GraphTurbo's
  schedule, beside the paper's figures for the same model.
- Table 3: bytes moved per memory path (DDR, GB<->LB, LB<->LB) for ResNet-50 b32 and BERT b32.
- Table 4: compile time per phase (graph passes, lowering to LLVM, translation, LLVM optimisation,
  JIT) for the same models and schedules, on this machine.
- Figs. 16/17: mean utilisation of the matrix engines, vector engines and vector cores against the
  batch size (ResNet-50 at batch 1, 8 and 32), and the matrix engines' per ResNet-50 stage (from
  the report's per-layer table: a stage's matrix busy cycles over the cycles its convolutions ran).

Usage: tools/scripts/paper-tables.py --bin-dir target/release [--markdown docs/Paper.md]
[--only table1|table1-f16|table3|table4|utilisation]. GraphTurbo's ablation (Fig. 15) is
tools/scripts/benchmark.py --ablation.
"""

import argparse
import importlib.util
import os
import re
import sys
import tempfile
import tomllib

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


benchmark = load("benchmark", "benchmark.py")
oracle = benchmark.oracle

SCHEDULES = ["layerwise", "graphturbo"]
PHASES = ["graph passes", "lowering to LLVM", "translation", "LLVM optimisation", "JIT"]


def run(arguments, model, schedule, work):
    """One compiled run: its report and compile phases, or an error."""
    report, output = benchmark.run_compiled(arguments, model, schedule, work)
    if report is None:
        return {"error": output}
    phases = re.search(r"graph passes ([\d.]+) s, lowering to LLVM ([\d.]+) s, translation ([\d.]+) s, "
                       r"LLVM optimisation ([\d.]+) s, JIT ([\d.]+) s", output)
    return {"report": report, "phases": [float(phases.group(i)) for i in range(1, 6)]}


def bert(work, batch):
    path = os.path.join(work, f"bert-b{batch}.onnx")
    onnx.save(oracle.bert_layer(batch=batch), path)
    return [path]


def clock_mhz(arguments):
    path = arguments.target if os.path.exists(arguments.target) else \
        os.path.join(HERE, "..", "..", "targets", "descriptions", f"{arguments.target}.toml")
    return tomllib.load(open(path, "rb"))["clock_mhz"]


def latency_row(batch, what, result, mhz, paper):
    """A row of Table 1: `what` (schedule or model) at `batch`, its cycles, latency at the target's
    clock, throughput and the `paper`'s figure, or its failure."""
    if "error" in result:
        return f"| {batch} | {what} | failed: {result['error']} | | | |"
    cycles = result["report"]["cycles"]
    latency_ms = cycles / (mhz * 1e3)
    return f"| {batch} | {what} | {cycles:,} | {latency_ms:.3f} | {batch / (latency_ms / 1e3):,.0f} | {paper} |"


def table1(arguments, work):
    mhz = clock_mhz(arguments)
    lines = ["| batch | schedule | cycles | latency (ms) | throughput (sentences/s) | paper (GraphTurbo, 12 layers) |",
             "|---|---|---|---|---|---|"]
    paper = {32: "4052 sentences/s, 7.67 ms (TVM: 512, 18.96 ms)"}
    for batch in [8, 16, 32]:
        model = bert(work, batch)
        for schedule in SCHEDULES:
            result = run(arguments, model, schedule, work)
            benchmark.progress(f"measured BERT b{batch} {schedule}")
            figure = paper.get(batch, "comparable to TVM") if schedule == "graphturbo" else ""
            lines.append(latency_row(batch, schedule, result, mhz, figure))
    return "\n".join(lines)


def table1_reduced(arguments, work):
    """The 12-layer BERT-base in f16 with GraphTurbo's schedule at batch 8, 16 and 32."""
    mhz = clock_mhz(arguments)
    lines = ["| batch | model | cycles | latency (ms) | throughput (sentences/s) | paper (GraphTurbo, 12 layers) |",
             "|---|---|---|---|---|---|"]
    paper = {32: "4052 sentences/s, 7.67 ms"}
    for batch in [8, 16, 32]:
        path = os.path.join(work, f"bert12-b{batch}.onnx")
        onnx.save(oracle.bert_layer(batch=batch, layers=12), path)
        result = run(arguments, [path, "--precision", "f16"], "graphturbo", work)
        benchmark.progress(f"measured 12-layer BERT b{batch} in f16")
        lines.append(latency_row(batch, "12 layers, f16", result, mhz, paper.get(batch, "")))
    return "\n".join(lines)


PAPER_MODELS = [("ResNet-50 b32", lambda work: ["--builtin", "resnet50", "--batch", "32"]),
                ("BERT-base layer b32 s128", lambda work: bert(work, 32))]


BYTES_HEADER = ["| model | schedule | DDR MB | GB<->LB MB | LB<->LB MB | GB<->GB MB |", "|---|---|---|---|---|---|"]


def bytes_line(name, schedule, figures):
    """Table 3's row of one run's figures (benchmark.figures)."""
    paths = figures["paths"]

    def moved(path):
        return paths.get(path, 0) / 1e6

    return (f"| {name} | {schedule} | {figures['ddr'] / 1e6:,.0f} | {moved('gb<->lb'):,.0f} | "
            f"{moved('lb<->lb'):,.0f} | {moved('gb<->gb'):,.0f} |")


def table3_and_4(arguments, work):
    bytes_lines = list(BYTES_HEADER)
    time_lines = ["| model | schedule | " + " | ".join(f"{phase} (s)" for phase in PHASES) + " | total (s) |",
                  "|---|---|" + "---|" * (len(PHASES) + 1)]
    for name, make in PAPER_MODELS:
        model = make(work)
        for schedule in SCHEDULES:
            result = run(arguments, model, schedule, work)
            benchmark.progress(f"measured {name} {schedule}")
            if "error" in result:
                bytes_lines.append(f"| {name} | {schedule} | failed: {result['error']} | | | |")
                time_lines.append(f"| {name} | {schedule} | failed |" + " |" * len(PHASES))
                continue
            bytes_lines.append(bytes_line(name, schedule, benchmark.figures(result["report"])))
            phases = result["phases"]
            time_lines.append(f"| {name} | {schedule} | " + " | ".join(f"{p:.2f}" for p in phases) + f" | {sum(phases):.2f} |")
    return "\n".join(bytes_lines), "\n".join(time_lines)


def stage_of(layer):
    """The ResNet-50 stage of a built-in model's layer: its name's first part (`layer3.1.conv2`:
    `layer3`), the stem before the stages, the classifier after them."""
    name = layer["name"]
    if name.startswith("layer"):
        return name.split(".")[0]
    return "fc" if name in ("fc", "avgpool", "flatten") else "stem"


def stage_utilisation(report):
    """Per stage: the matrix engines' busy cycles of its layers over the cycles its convolutions
    and products ran (their `active_cycles`, the union of their instructions' intervals) times
    the device's matrix engines."""
    engines = sum(1 for u in report["units"] if u["kind"] == "matrix_engine")
    stages = {}
    for layer in report.get("layers", []):
        busy, active = stages.get(stage_of(layer), (0, 0))
        anchor = layer["matrix_engine_busy"] > 0
        stages[stage_of(layer)] = (busy + layer["matrix_engine_busy"], active + (layer["active_cycles"] if anchor else 0))
    return {stage: 100 * busy / max(active * engines, 1) for stage, (busy, active) in stages.items()}


STAGES = ["stem", "layer1", "layer2", "layer3", "layer4", "fc"]


UTILISATION_HEADER = ["| batch | schedule | cycles | matrix engines | vector engines | vector cores |",
                      "|---|---|---|---|---|---|"]


def utilisation_line(batch, schedule, figures):
    """Figs. 16's row of one run's figures (benchmark.figures)."""
    means = {kind: 100 * figures["utilisation"].get(kind, 0) for kind in ("matrix_engine", "vector_engine", "vector_core")}
    return (f"| {batch} | {schedule} | {figures['cycles']:,} | {means['matrix_engine']:.1f}% | "
            f"{means['vector_engine']:.1f}% | {means['vector_core']:.1f}% |")


def utilisation(arguments, work):
    lines = list(UTILISATION_HEADER)
    per_stage = ["| batch | schedule | " + " | ".join(STAGES) + " |", "|---|---|" + "---|" * len(STAGES)]
    for batch in [1, 8, 32]:
        for schedule in SCHEDULES:
            result = run(arguments, ["--builtin", "resnet50", "--batch", str(batch)], schedule, work)
            benchmark.progress(f"measured ResNet-50 b{batch} {schedule}")
            if "error" in result:
                lines.append(f"| {batch} | {schedule} | failed: {result['error']} | | | |")
                continue
            lines.append(utilisation_line(batch, schedule, benchmark.figures(result["report"])))
            stages = stage_utilisation(result["report"])
            per_stage.append(f"| {batch} | {schedule} | " + " | ".join(f"{stages.get(s, 0):.1f}%" for s in STAGES) + " |")
    return "\n".join(lines), "\n".join(per_stage)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--target", default="stcp920")
    parser.add_argument("--only", choices=["table1", "table1-f16", "table3", "table4", "utilisation"])
    parser.add_argument("--markdown", help="also write each table into this file, between its markers")
    arguments = parser.parse_args()
    tables = {}
    with tempfile.TemporaryDirectory() as work:
        if arguments.only in (None, "table1"):
            tables["table1"] = table1(arguments, work)
        if arguments.only in (None, "table1-f16"):
            tables["table1-f16"] = table1_reduced(arguments, work)
        if arguments.only in (None, "table3", "table4"):
            tables["table3"], tables["table4"] = table3_and_4(arguments, work)
        if arguments.only in (None, "utilisation"):
            tables["utilisation"], tables["stages"] = utilisation(arguments, work)
    failed = False
    for marker, text in tables.items():
        print(f"{marker}\n{text}\n")
        failed |= "failed" in text
        if arguments.markdown:
            benchmark.write_between(arguments.markdown, marker, text)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
