"""`benchmark.py --pairs`: GraphTurbo's schedule against the layer-wise one on every model of the
benchmark set at every batch, side by side in one run: ResNet-18, ResNet-50, MobileNet-V2,
DenseNet-121, a BERT-base encoder layer (sequence 128) and a ViT-B/16 block, at batch 1, 8 and 32
(`--batches` picks fewer). Per pair the simulated cycles of both schedules, GraphTurbo's speedup,
its kernels and matrix-engine utilisation. GraphTurbo must never be slower: the run fails when a
pair inverts (GraphTurbo's cycles above the layer-wise ones) or a compilation fails.
"""

import os
import tempfile

import onnx

BATCHES = [1, 8, 32]


def models(oracle):
    """(name, arguments(batch, work) giving turbine-run's model arguments) per model of the set."""

    def builtin(name):
        return lambda batch, work: ["--builtin", name, "--batch", str(batch)]

    def exported(name, make):
        def arguments(batch, work):
            path = os.path.join(work, f"{name}_b{batch}.onnx")
            onnx.save(make(batch), path)
            return [path]
        return arguments

    return [
        ("ResNet-18", builtin("resnet18")),
        ("ResNet-50", builtin("resnet50")),
        ("MobileNet-V2", exported("mobilenet_v2", lambda batch: oracle.mobilenet_v2(batch=batch))),
        ("DenseNet-121", builtin("densenet121")),
        ("BERT-base layer s128", exported("bert", lambda batch: oracle.bert_layer(batch=batch))),
        ("ViT-B/16 block", exported("vit", lambda batch: oracle.vit_b16_block(batch=batch))),
    ]


def measure(arguments, benchmark, oracle):
    """[(model, batch, {schedule: figures or {"error": ...}})] for the selected pairs."""
    batches = [int(batch) for batch in arguments.batches.split(",")] if arguments.batches else BATCHES
    measured = []
    for name, model in models(oracle):
        if arguments.only and arguments.only not in name:
            continue
        for batch in batches:
            with tempfile.TemporaryDirectory(prefix="pairs-") as work:
                model_arguments = model(batch, work)
                runs = {schedule: benchmark.run_schedule(arguments, model_arguments, schedule, work)
                        for schedule in ("layerwise", "graphturbo")}
            measured.append((name, batch, runs))
            benchmark.progress(f"measured {name} b{batch}")
    return measured


def inverted(runs):
    """Whether a pair fails the rule: a run failed, or GraphTurbo took more cycles."""
    layerwise, graphturbo = runs["layerwise"], runs["graphturbo"]
    if "error" in layerwise or "error" in graphturbo:
        return True
    return graphturbo["cycles"] > layerwise["cycles"]


def table(measured):
    """The markdown table of `measured` and whether a pair inverted or failed."""
    lines = ["| model | batch | layerwise cycles | graphturbo cycles | speedup | kernels (lw / gt) | "
             "matrix util (lw / gt) | |",
             "|---|---|---|---|---|---|---|---|"]
    failed = False
    for name, batch, runs in measured:
        bad = inverted(runs)
        failed |= bad
        layerwise, graphturbo = runs["layerwise"], runs["graphturbo"]
        errors = [f"{schedule} failed: {run['error']}" for schedule, run in runs.items() if "error" in run]
        if errors:
            lines.append(f"| {name} | {batch} | | | | | | {'; '.join(errors)} |")
            continue
        speedup = layerwise["cycles"] / graphturbo["cycles"]
        utilisation = " / ".join(f"{100 * run['utilisation']['matrix_engine']:.1f}%"
                                 for run in (layerwise, graphturbo))
        lines.append(f"| {name} | {batch} | {layerwise['cycles']:,} | {graphturbo['cycles']:,} | "
                     f"{speedup:.2f}x | {layerwise['kernels']} / {graphturbo['kernels']} | {utilisation} | "
                     f"{'**inverted**' if bad else ''} |")
    return "\n".join(lines), failed


def pairs(arguments, benchmark, oracle):
    """The table of every pair and whether one inverted or failed."""
    return table(measure(arguments, benchmark, oracle))
