#!/usr/bin/env python3
"""Benchmark (not a test): Turbine's compiled pipeline on the software DSA against onnxruntime, side
by side in one run, on models built here with onnx.helper (seeded weights, nothing downloaded):
ResNet-50 at batch 8 (the paper's setting) and 1, ResNet-18, a BERT-base encoder layer and a
MobileNet-V2 block.

Per model it prints Turbine's compile time per phase (graph passes, lowering to the LLVM dialect,
LLVM optimisation, JIT), the kernels launched, the simulated cycles and DDR bytes of one inference
on the target, the host wall time of a run on the software DSA (inputs written, recording,
simulation and the real arithmetic, outputs read; loading the weights is timed apart, as
onnxruntime's session creation is; the median of 7 runs of the loaded model), without and with
the race check (turbine-run's default and --race-check), and onnxruntime's wall time for the same
model with the same number of threads (median of 7 after a warm-up), their ratio, and the largest difference between
the two outputs relative to the largest output magnitude. Usage: tools/scripts/benchmark.py --bin-dir target/release [--threads 2]
[--schedule layerwise] [--markdown docs/Benchmarks.md] (the table of another schedule goes between the
`benchmark-SCHEDULE` markers).

With --compare-schedules it compares the kernel schedules instead, side by side in one run, on the
paper's models (the built-in ResNet-50 at batch 8 and 32 and DenseNet-121 at batch 1, a BERT-base
encoder layer at batch 32, sequence 128): per schedule the simulated cycles, kernels, DDR bytes,
GB<->LB bytes and matrix-engine utilisation, each schedule's speedup over the layer-wise one, and
the bound of the same target: the larger of the compute bound (the matrix engines' flops of the
layer-wise run, which computes nothing twice, over the peak flops of all cores) and the
compulsory DDR traffic (inputs, weights and outputs once, over the clusters' DDR bandwidth).

With --ablation it runs GraphTurbo's ablation (Fig. 15) on ResNet-50 at batch 32 and the BERT-base
encoder layer at batch 32: (0) the layer-wise schedule, (1) groups with their data in the global
buffer, (2) instances sized for the local buffers and computed per core where that pays, (3) the
same with cross-layer scheduling (software-pipelined tiles, weights prefetched); steps 0-2 without
the pipelining of step 3. Per step the cycles and the speedup over the step before, beside the
paper's.

With --depths it compiles (without running) ResNet-18 to -152 imported from ONNX with each schedule
and prints the compile time per phase and per ONNX op; then Relu chains of 1,000, 10,000 and
100,000 ops and stacks of 30 and 300 small transformer encoder layers (about 1,000 and 10,000 ops),
with each size's time per op over the smallest size's of its kind ("x linear"); it exits non-zero
when one of those ratios exceeds 1.5. --scaling runs only the second table.

With --pairs it runs both schedules on every model of the benchmark set at batch 1, 8 and 32 and
fails when GraphTurbo is slower than layer-wise on one (benchmark_pairs.py says what it measures).

With --precisions it runs ResNet-50 (b1, b8, b32), MobileNet-V2 and the BERT-base layer in f32,
f16 and bf16 with one schedule (benchmark_precision.py says what it measures).
"""

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib

import numpy as np
import onnx
import onnxruntime

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("oracle", os.path.join(HERE, "onnxruntime-oracle.py"))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)
spec = importlib.util.spec_from_file_location("benchmark_precision", os.path.join(HERE, "benchmark_precision.py"))
benchmark_precision = importlib.util.module_from_spec(spec)
spec.loader.exec_module(benchmark_precision)
spec = importlib.util.spec_from_file_location("benchmark_pairs", os.path.join(HERE, "benchmark_pairs.py"))
benchmark_pairs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(benchmark_pairs)


# Blocks per stage of torchvision's ResNets, and whether they are bottleneck blocks.
RESNET_DEPTHS = {18: ([2, 2, 2, 2], False), 34: ([3, 4, 6, 3], False), 50: ([3, 4, 6, 3], True),
                 101: ([3, 4, 23, 3], True), 152: ([3, 8, 36, 3], True)}


def resnet(depth, batch=1, residual_gamma=(0.5, 1.5)):
    """torchvision's ResNet of that depth (v1.5: stride on the 3x3 convolution) with batch norms,
    the scales of each block's last batch norm drawn from `residual_gamma`."""
    blocks_per_stage, bottleneck = RESNET_DEPTHS[depth]
    b = oracle.Builder(depth)
    x = b.conv_bn("input", 3, 64, 7, stride=2, pad=3)
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (width, blocks) in enumerate(zip([64, 128, 256, 512], blocks_per_stage)):
        cout = width * 4 if bottleneck else width
        for block in range(blocks):
            stride = 2 if stage > 0 and block == 0 else 1
            if bottleneck:
                y = b.conv_bn(x, cin, width, 1)
                y = b.conv_bn(y, width, width, 3, stride=stride, pad=1)
                y = b.conv_bn(y, width, cout, 1, relu=False, gamma=residual_gamma)
            else:
                y = b.conv_bn(x, cin, width, 3, stride=stride, pad=1)
                y = b.conv_bn(y, width, cout, 3, pad=1, relu=False, gamma=residual_gamma)
            projection = stride != 1 or cin != cout
            shortcut = b.conv_bn(x, cin, cout, 1, stride=stride, relu=False) if projection else x
            x = b.op("Relu", [b.op("Add", [y, shortcut])])
            cin = cout
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    logits = b.op("Gemm", [x, b.weight([1000, cin]), b.constant(np.zeros(1000, np.float32))], transB=1)
    return b.model(f"resnet{depth}", [("input", [batch, 3, 224, 224])], [logits])


def resnet50(batch=8):
    return resnet(50, batch)


MODELS = [("resnet50 b8", resnet50), ("resnet50 b1", lambda: resnet(50)), ("resnet18 b1", oracle.resnet18), ("bert layer", oracle.bert_layer),
          ("mobilenet-v2 block", oracle.mobilenet_v2_block)]


# turbine-run's line of compile times per phase, and the kernel count.
PHASES = re.compile(r"graph passes ([\d.]+) s, lowering to LLVM ([\d.]+) s, translation ([\d.]+) s, "
                    r"LLVM optimisation ([\d.]+) s, JIT ([\d.]+) s; (\d+) kernels")


# Runs of each model on each side, after onnxruntime's warm-up run; the median is reported.
REPEATS = 7


def measure(name, model, arguments, work):
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    feeds = {}
    command = [os.path.join(arguments.bin_dir, "turbine-run"), path, "--target", arguments.target,
               "--schedule", arguments.schedule, "--threads", str(arguments.threads),
               "--report-json", os.path.join(work, "report.json")]
    for index, value in enumerate(model.graph.input):
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = np.random.default_rng(index).standard_normal(shape).astype(np.float32)
        np.save(os.path.join(work, f"in{index}.npy"), feeds[value.name])
        command += ["--input", os.path.join(work, f"in{index}.npy")]
    # The loaded model runs as often as onnxruntime's session; both report the median.
    command += ["--output", os.path.join(work, "out0.npy"), "--repeat", str(REPEATS)]
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        return {"model": name, "error": ran.stderr.strip()}
    phases = PHASES.search(ran.stdout)
    host = float(re.search(r"ran on the software DSA in ([\d.]+) s", ran.stdout).group(1))
    checked = subprocess.run(command + ["--race-check"], capture_output=True, text=True)
    if checked.returncode != 0:
        return {"model": name, "error": checked.stderr.strip()}
    host_checked = float(re.search(r"ran on the software DSA in ([\d.]+) s", checked.stdout).group(1))
    report = json.load(open(os.path.join(work, "report.json")))
    ddr = sum(t["bytes"] for t in report["transfers"] if "ddr" in (t["src"], t["dst"]) and "host" not in (t["src"], t["dst"]))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = arguments.threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)[0]
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - start)
    ort = sorted(times)[REPEATS // 2]
    got = np.load(os.path.join(work, "out0.npy"))
    return {
        "model": name,
        "compile": [float(phases.group(i)) for i in range(1, 6)],
        "kernels": int(phases.group(6)),
        "cycles": report["cycles"],
        "time_us": report["time_us"],
        "ddr_bytes": ddr,
        "host_s": host,
        "host_checked_s": host_checked,
        "ort_s": ort,
        "max_diff": float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30)),
    }


def table(rows, arguments):
    lines = [
        f"target {arguments.target}, schedule {arguments.schedule}, {arguments.threads} host threads for both",
        "",
        "| model | compile s (graph / to LLVM / translate / LLVM opt / JIT) | kernels | simulated cycles | simulated ms | DDR MB | "
        "software DSA host s (race check off / on) | onnxruntime s | DSA/ORT (off / on) | max diff / max abs |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['model']} | failed: {row['error']} | | | | | | | | |")
            continue
        compile_text = " / ".join(f"{t:.2f}" for t in row["compile"])
        lines.append(
            f"| {row['model']} | {sum(row['compile']):.2f} ({compile_text}) | {row['kernels']} | {row['cycles']:,} | "
            f"{row['time_us'] / 1000:.2f} | {row['ddr_bytes'] / 1e6:.1f} | {row['host_s']:.2f} / {row['host_checked_s']:.2f} | "
            f"{row['ort_s']:.3f} | {row['host_s'] / row['ort_s']:.1f}x / {row['host_checked_s'] / row['ort_s']:.1f}x | "
            f"{row['max_diff']:.1e} |"
        )
    return "\n".join(lines)


SCHEDULE_MODELS = [
    ("ResNet-50 b8", ["--builtin", "resnet50", "--batch", "8"]),
    ("ResNet-50 b32", ["--builtin", "resnet50", "--batch", "32"]),
    ("DenseNet-121 b1", ["--builtin", "densenet121"]),
    ("BERT-base layer b32 s128", "bert"),
]


def progress(text):
    """Shows how far a long run has got on a terminal; says nothing into a pipe or a file."""
    if sys.stderr.isatty():
        print(text, file=sys.stderr, flush=True)


def run_compiled(arguments, model, schedule, work):
    """Compiles and runs `model` with `schedule`: (the runtime's report, turbine-run's output), or
    (None, the error)."""
    report_path = os.path.join(work, "report.json")
    command = [os.path.join(arguments.bin_dir, "turbine-run"), *model, "--target", arguments.target,
               "--schedule", schedule, "--threads", str(arguments.threads), "--report-json", report_path]
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        return None, (ran.stderr.strip() or ran.stdout.strip()).splitlines()[-1]
    return json.load(open(report_path)), ran.stdout


def figures(report):
    """A compiled run's figures from its report, all deterministic: cycles, kernel launches, DMA
    bytes per pair of memory levels (`ddr`: every transfer to or from DDR; `gb`: between a GB and
    the LBs or within a GB), the matrix engines' flops, the host's bytes to and from DDR and the
    mean utilisation per kind of unit."""
    transfers = report["transfers"]
    paths = {}
    for transfer in transfers:
        path = "<->".join(sorted((transfer["src"], transfer["dst"])))
        paths[path] = paths.get(path, 0) + transfer["bytes"]
    kinds = {}
    for unit in report["units"]:
        kinds.setdefault(unit["kind"], []).append(unit["utilisation"])
    return {
        "cycles": report["cycles"],
        "kernels": report["kernel_launches"],
        "ddr": sum(t["bytes"] for t in transfers if "ddr" in (t["src"], t["dst"])),
        "gb": sum(t["bytes"] for t in transfers if "gb" in (t["src"], t["dst"]) and "ddr" not in (t["src"], t["dst"])),
        "paths": dict(sorted(paths.items())),
        "flops": int(sum(u["work"] for u in report["units"] if u["kind"] == "matrix_engine")),
        "host_bytes": report["host"]["to_ddr_bytes"] + report["host"]["from_ddr_bytes"],
        "utilisation": {kind: round(sum(values) / len(values), 6) for kind, values in sorted(kinds.items())},
    }


def run_schedule(arguments, model, schedule, work):
    """One compiled run: its figures, or an error."""
    report, output = run_compiled(arguments, model, schedule, work)
    if report is None:
        return {"error": output}
    return figures(report)


def target_figures(arguments):
    """The peak matrix flops per cycle of the device and its DDR bytes per cycle."""
    path = arguments.target if os.path.exists(arguments.target) else \
        os.path.join(HERE, "..", "..", "targets", "descriptions", f"{arguments.target}.toml")
    target = tomllib.load(open(path, "rb"))
    cores = target["device"]["clusters"] * target["cluster"]["cores"]
    engines = target["core"]["units"].count("matrix_engine")
    return cores * engines * target["throughput"]["matrix_engine"]["f32"], target["device"]["clusters"] * target["bandwidth"]["ddr_gb"]


def model_arguments(model, work):
    """turbine-run's arguments for a model of SCHEDULE_MODELS ("bert": the encoder layer at batch
    32, saved as ONNX in `work`)."""
    if model != "bert":
        return model
    path = os.path.join(work, "bert.onnx")
    onnx.save(oracle.bert_layer(batch=32), path)
    return [path]


def schedules_table(arguments, measured):
    """The schedule comparison of `measured`, a list of (model, {schedule: figures or error}):
    the markdown table and whether a run failed."""
    peak_flops, ddr_rate = target_figures(arguments)
    lines = [f"target {arguments.target}; bound = max(compute, compulsory DDR) of the same target", "",
             "| model | schedule | simulated cycles | speedup over layerwise | × bound | kernels | DDR MB | GB↔LB MB | matrix util |",
             "|---|---|---|---|---|---|---|---|---|"]
    failed = False
    for name, runs in measured:
        base = runs.get("layerwise", {})
        bound = None
        if "flops" in base:
            bound = max(base["flops"] / peak_flops, base["host_bytes"] / ddr_rate)
        for schedule, run in runs.items():
            if "error" in run:
                failed = True
                lines.append(f"| {name} | {schedule} | failed: {run['error']} | | | | | | |")
                continue
            speedup = f"{base['cycles'] / run['cycles']:.2f}x" if "cycles" in base else ""
            over_bound = f"{run['cycles'] / bound:.2f}" if bound else ""
            lines.append(f"| {name} | {schedule} | {run['cycles']:,} | {speedup} | {over_bound} | {run['kernels']} | "
                         f"{run['ddr'] / 1e6:.0f} | {run['gb'] / 1e6:.0f} | {100 * run['utilisation']['matrix_engine']:.1f}% |")
        if bound:
            lines.append(f"| {name} | bound | {bound:,.0f} | | 1.00 | | {base['host_bytes'] / 1e6:.0f} | | |")
    return "\n".join(lines), failed


def compare_schedules(arguments):
    schedules = arguments.schedules.split(",")
    measured = []
    for name, model in SCHEDULE_MODELS:
        if arguments.only and arguments.only not in name:
            continue
        with tempfile.TemporaryDirectory() as work:
            model = model_arguments(model, work)
            measured.append((name, {schedule: run_schedule(arguments, model, schedule, work) for schedule in schedules}))
        progress(f"measured {name}")
    return schedules_table(arguments, measured)


def export_models():
    """Exports as users bring them beside the same networks built in the benchmark's layout:
    (name, export, twin, same weights, the schedules gated). torch.onnx writes
    nn.TransformerEncoder sequence-first ([S, B, E], one in-projection for q, k and v, shapes
    computed at run time); its twin is the batch-first BERT layer with the same sizes and ReLU
    (other weights). The other exports are the models of the onnxruntime oracle, each beside its
    hand-written form with the same weights (`hand=True`), whose outputs must agree. The
    sequence-first encoder is measured but not gated where GraphTurbo's cluster split cannot cut
    it as it cuts the twin: at batch 8 its batch, which the export's out-projection flattens into
    the rows together with the sequence ([S·B, E]); at batch 1 its attention by heads, which the
    one in-projection's result ([q | k | v] through reshapes and a transpose) does not separate
    over the clusters, so the attention runs on one cluster where the twin's three projections
    hand each cluster its heads (docs/Benchmarks.md)."""
    sizes = dict(sequence=128, hidden=768, heads=12, ffn=3072, layers=2)
    encoders = [
        (f"encoder 2 layers s128 b{batch}",
         lambda batch=batch: oracle.torch_encoder_layer(batch=batch, **sizes),
         lambda batch=batch: oracle.bert_layer(batch=batch, layers=2, activation="relu"), False,
         ("layerwise",) if batch == 1 else ())
        for batch in (1, 8)
    ]
    every = ("layerwise", "graphturbo")
    return encoders + [(make.__name__, make, lambda make=make: make(hand=True), True, every)
                       for make in (oracle.bert_ids, oracle.gpt2_block, oracle.vit_block,
                                    oracle.audio_cnn, oracle.unet_small)]


def same_outputs(paths):
    """None when onnxruntime computes the same outputs for the models at `paths` (the oracle's
    tolerance) on one set of inputs, else what differs."""
    runners = [onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]) for path in paths]
    feeds = {}
    for value in runners[0].get_inputs():
        random = np.random.default_rng(0)
        if value.type == "tensor(int64)":
            feeds[value.name] = random.integers(*oracle.INTEGER_INPUTS[value.name], value.shape)
        else:
            feeds[value.name] = random.standard_normal(value.shape).astype(np.float32)
    outputs = [runner.run(None, feeds) for runner in runners]
    for index, (got, want) in enumerate(zip(*outputs)):
        bound = 1e-4 * np.abs(want).max() + 1e-4 * np.abs(want)
        if got.shape != want.shape or (np.abs(got - want) > bound).any():
            return f"output {index} of the twin differs from the export's"
    return None


def exports(arguments):
    """Simulated cycles of each export and of its twin, with every schedule: the export should run
    as fast as the network built by hand. With --gate, a ratio above it fails."""
    schedules = arguments.schedules.split(",")
    lines = [f"target {arguments.target}", "",
             "| model | schedule | export cycles | twin cycles | export / twin |",
             "|---|---|---|---|---|"]
    failed = False
    for name, export, twin, same, gated_schedules in export_models():
        if arguments.only and arguments.only not in name:
            continue
        with tempfile.TemporaryDirectory() as work:
            paths = []
            for label, make in (("export", export), ("twin", twin)):
                path = os.path.join(work, f"{label}.onnx")
                onnx.save(make(), path)
                paths.append(path)
            differs = same and same_outputs(paths)
            if differs:
                failed = True
                lines.append(f"| {name} | | failed: {differs} | | |")
                continue
            for schedule in schedules:
                runs = [run_schedule(arguments, [path], schedule, work) for path in paths]
                progress(f"measured {name} ({schedule})")
                if any("error" in run for run in runs):
                    failed = True
                    error = next(run["error"] for run in runs if "error" in run)
                    lines.append(f"| {name} | {schedule} | failed: {error} | | |")
                    continue
                ratio = runs[0]["cycles"] / runs[1]["cycles"]
                gated = schedule in gated_schedules
                over = gated and arguments.gate is not None and ratio > arguments.gate
                failed |= over
                remark = " (over the gate)" if over else "" if gated else " (not gated)"
                lines.append(f"| {name} | {schedule} | {runs[0]['cycles']:,} | {runs[1]['cycles']:,} | "
                             f"{ratio:.2f}{remark} |")
    return "\n".join(lines), failed


def compile_only(arguments, path, schedule):
    """`turbine-run --compile-only` on the model at `path`: (phase times, process seconds, kernels),
    or the error's last line."""
    command = [os.path.join(arguments.bin_dir, "turbine-run"), path, "--target", arguments.target,
               "--schedule", schedule, "--compile-only"]
    start = time.perf_counter()
    try:
        ran = subprocess.run(command, capture_output=True, text=True, timeout=arguments.compile_timeout)
    except subprocess.TimeoutExpired:
        return f"not compiled in {arguments.compile_timeout} s"
    process = time.perf_counter() - start
    phases = PHASES.search(ran.stdout)
    if ran.returncode != 0 or not phases:
        return (ran.stderr.strip() or ran.stdout.strip() or "no output").splitlines()[-1]
    return [float(phases.group(i)) for i in range(1, 6)], process, phases.group(6)


def depths(arguments):
    """Compile time against model size: each ResNet depth imported from ONNX and compiled (not run)
    with each schedule; the time per ONNX op shows whether the cost grows linearly."""
    schedules = arguments.schedules.split(",")
    lines = [f"target {arguments.target}; batch 1; compile s = the phases turbine-run reports (graph / to LLVM / "
             "translate / LLVM opt / JIT); process s = the whole command, reading the ONNX file included", "",
             "| model | ONNX ops | schedule | compile s (graph / to LLVM / translate / LLVM opt / JIT) | ms per op | process s | kernels |",
             "|---|---|---|---|---|---|---|"]
    failed = False
    for depth in RESNET_DEPTHS:
        model = resnet(depth)
        ops = len(model.graph.node)
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "model.onnx")
            onnx.save(model, path)
            for schedule in schedules:
                compiled = compile_only(arguments, path, schedule)
                progress(f"compiled ResNet-{depth} ({schedule})")
                if isinstance(compiled, str):
                    failed = True
                    lines.append(f"| ResNet-{depth} | {ops} | {schedule} | failed: {compiled} | | | |")
                    continue
                times, process, kernels = compiled
                lines.append(f"| ResNet-{depth} | {ops} | {schedule} | {sum(times):.2f} ({' / '.join(f'{t:.2f}' for t in times)}) | "
                             f"{1000 * sum(times) / ops:.2f} | {process:.2f} | {kernels} |")
    return "\n".join(lines), failed


def relu_chain(ops):
    """`ops` Relu nodes in a row on a [1, 32, 16, 16] input: the longest graph per op."""
    b = oracle.Builder(0)
    x = "input"
    for _ in range(ops):
        x = b.op("Relu", [x])
    return b.model(f"relu_chain_{ops}", [("input", [1, 32, 16, 16])], [x])


def encoder(layers, sequence=32, hidden=64, heads=4, ffn=256):
    """`layers` transformer encoder layers built like the BERT-base layer of the benchmark (fused
    q/k/v projections apart, erf GELU, post-norm), at a small width so that a deep stack's weights
    stay small: the real-shaped graph of the size scaling table."""
    b = oracle.Builder(7)
    head = hidden // heads

    def dense(v, cin, cout):
        return b.op("Add", [b.op("MatMul", [v, b.weight([cin, cout], 0.02)]),
                            b.constant(np.zeros(cout, np.float32))])

    def split_heads(v):
        v = b.op("Reshape", [v, b.constant(np.array([1, sequence, heads, head], np.int64))])
        return b.op("Transpose", [v], perm=[0, 2, 1, 3])

    def norm(v):
        return b.op("LayerNormalization", [v, b.constant(np.ones(hidden, np.float32)),
                                           b.constant(np.zeros(hidden, np.float32))],
                    axis=-1, epsilon=1e-12)

    x = "hidden_states"
    for _ in range(layers):
        q, k, v = (split_heads(dense(x, hidden, hidden)) for _ in range(3))
        scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
        scores = b.op("Div", [scores, b.constant(np.array(np.sqrt(head), np.float32))])
        context = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
        context = b.op("Transpose", [context], perm=[0, 2, 1, 3])
        context = b.op("Reshape", [context, b.constant(np.array([1, sequence, hidden], np.int64))])
        x1 = norm(b.op("Add", [dense(context, hidden, hidden), x]))
        h = dense(x1, hidden, ffn)
        erf = b.op("Erf", [b.op("Div", [h, b.constant(np.array(np.sqrt(2.0), np.float32))])])
        half = b.op("Mul", [h, b.op("Add", [erf, b.constant(np.array(1.0, np.float32))])])
        gelu = b.op("Mul", [half, b.constant(np.array(0.5, np.float32))])
        x = norm(b.op("Add", [dense(gelu, ffn, hidden), x1]))
    return b.model(f"encoder_{layers}", [("hidden_states", [1, sequence, hidden])], [x])


# The size scaling table: per kind of graph, its sizes (the first is the base of the linear
# scaling) and how to build each. An encoder layer is 34 ONNX ops.
SCALING = [("Relu chain", [(relu_chain, 1000), (relu_chain, 10000), (relu_chain, 100000)]),
           ("encoder", [(encoder, 30), (encoder, 300)])]

# The largest ratio of time per op to the smallest size's that the table accepts.
LINEAR_TOLERANCE = 1.5


def scaling(arguments):
    """Compile time per op across graph sizes 1k to 100k ops, each with each schedule, and its
    ratio to the smallest size's: 1.0 is linear scaling. Fails past LINEAR_TOLERANCE."""
    schedules = arguments.schedules.split(",")
    lines = [f"target {arguments.target}; compile s = the phases turbine-run reports (graph / to LLVM / "
             "translate / LLVM opt / JIT); × linear = ms per op over the smallest size's with the same "
             f"schedule (at most {LINEAR_TOLERANCE} accepted)", "",
             "| graph | ONNX ops | schedule | compile s (graph / to LLVM / translate / LLVM opt / JIT) | "
             "ms per op | × linear | process s | kernels |",
             "|---|---|---|---|---|---|---|---|"]
    failed = False
    for kind, sizes in SCALING:
        base = {}
        for make, size in sizes:
            model = make(size)
            ops = len(model.graph.node)
            name = f"{kind} ({size} layers)" if make is encoder else kind
            with tempfile.TemporaryDirectory() as work:
                path = os.path.join(work, "model.onnx")
                onnx.save(model, path)
                del model
                for schedule in schedules:
                    compiled = compile_only(arguments, path, schedule)
                    progress(f"compiled {name}, {ops} ops ({schedule})")
                    if isinstance(compiled, str):
                        failed = True
                        lines.append(f"| {name} | {ops} | {schedule} | failed: {compiled} | | | | |")
                        continue
                    times, process, kernels = compiled
                    per_op = 1000 * sum(times) / ops
                    ratio = per_op / base.setdefault(schedule, per_op)
                    failed |= ratio > LINEAR_TOLERANCE
                    lines.append(f"| {name} | {ops} | {schedule} | {sum(times):.2f} "
                                 f"({' / '.join(f'{t:.2f}' for t in times)}) | {per_op:.2f} | "
                                 f"{ratio:.2f} | {process:.2f} | {kernels} |")
    return "\n".join(lines), failed


# GraphTurbo's ablation (Fig. 15): each step's schedule and the paper's speedup over the step before.
ABLATION_STEPS = [
    ("(0) layer-wise", "layerwise{pipeline=false}", None),
    ("(1) groups, data in the GB", "graphturbo{pipeline=false}", 3.67),
    ("(2) + instances in the LBs", "graphturbo{scope=lb pipeline=false}", 2.20),
    ("(3) + cross-layer scheduling", "graphturbo{scope=lb}", 1.72),
]

ABLATION_MODELS = [entry for entry in SCHEDULE_MODELS if entry[0] in ("ResNet-50 b32", "BERT-base layer b32 s128")]


def ablation(arguments):
    lines = [f"target {arguments.target}; each step's speedup is over the step before it", "",
             "| model | step | schedule | simulated cycles | speedup | paper | kernels | DDR MB | GB↔LB MB | matrix util |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    failed = False
    for name, model in ABLATION_MODELS:
        if arguments.only and arguments.only not in name:
            continue
        with tempfile.TemporaryDirectory() as work:
            model = model_arguments(model, work)
            previous = None
            for step, schedule, paper in ABLATION_STEPS:
                run = run_schedule(arguments, model, schedule, work)
                progress(f"measured {name} {step}")
                if "error" in run:
                    failed = True
                    lines.append(f"| {name} | {step} | `{schedule}` | failed: {run['error']} | | | | | | |")
                    previous = None
                    continue
                speedup = f"{previous / run['cycles']:.2f}x" if previous else ""
                lines.append(f"| {name} | {step} | `{schedule}` | {run['cycles']:,} | {speedup} | "
                             f"{f'{paper:.2f}x' if paper else ''} | {run['kernels']} | {run['ddr'] / 1e6:.0f} | "
                             f"{run['gb'] / 1e6:.0f} | {100 * run['utilisation']['matrix_engine']:.1f}% |")
                previous = run["cycles"]
    return "\n".join(lines), failed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--target", default="stcp920")
    parser.add_argument("--schedule", default="layerwise")
    parser.add_argument("--only")
    parser.add_argument("--markdown", help="also write the table into this file, between its benchmark markers")
    parser.add_argument("--compare-schedules", action="store_true", help="compare the kernel schedules on the paper's models")
    parser.add_argument("--schedules", default="layerwise,graphturbo", help="schedules --compare-schedules runs")
    parser.add_argument("--exports", action="store_true", help="exports as torch.onnx writes them against the same networks "
                        "built in the benchmark's layout")
    parser.add_argument("--gate", type=float, help="with --exports: fail when an export takes more than this "
                        "many times its twin's cycles")
    parser.add_argument("--ablation", action="store_true", help="GraphTurbo's ablation (Fig. 15) on ResNet-50 b32 and BERT b32")
    parser.add_argument("--depths", action="store_true", help="compile time per op across ResNet-18/34/50/101/152, Relu chains of 1k to 100k ops and "
                        "encoder stacks of 1k and 10k ops (compiled, not run); fails when a time per op exceeds "
                        "1.5 times the smallest size's of its kind")
    parser.add_argument("--scaling", action="store_true", help="only the second table of --depths: Relu chains and "
                        "encoder stacks")
    parser.add_argument("--precisions", action="store_true", help="the models in f32, f16 and bf16 side by side "
                        "(cycles, compute bound per precision, accuracy against onnxruntime f32)")
    parser.add_argument("--pairs", action="store_true", help="GraphTurbo against layer-wise on every model and batch "
                        "of the benchmark set; fails when GraphTurbo is slower on one")
    parser.add_argument("--batches", help="with --pairs: the batches to run, comma-separated (default 1,8,32)")
    parser.add_argument("--compile-timeout", type=float, default=1800,
                        help="seconds one compilation of --depths may take before it counts as failed")
    arguments = parser.parse_args()
    if arguments.depths or arguments.scaling:
        text, failed = depths(arguments) if arguments.depths else (None, False)
        if text:
            print(text)
        sizes, too_slow = scaling(arguments)
        print(sizes)
        if arguments.markdown:
            if text:
                write_between(arguments.markdown, "depths", text)
            write_between(arguments.markdown, "scaling", sizes)
        sys.exit(1 if failed or too_slow else 0)
    if arguments.ablation:
        text, failed = ablation(arguments)
        print(text)
        if arguments.markdown:
            write_between(arguments.markdown, "ablation", text)
        sys.exit(1 if failed else 0)
    if arguments.exports:
        text, failed = exports(arguments)
        print(text)
        if arguments.markdown:
            write_between(arguments.markdown, "exports", text)
        sys.exit(1 if failed else 0)
    if arguments.precisions:
        text, failed = benchmark_precision.precisions(arguments, sys.modules[__name__], oracle, progress)
        print(text)
        if arguments.markdown:
            write_between(arguments.markdown, "precisions", text)
        sys.exit(1 if failed else 0)
    if arguments.pairs:
        text, failed = benchmark_pairs.pairs(arguments, sys.modules[__name__], oracle)
        print(text)
        if arguments.markdown:
            write_between(arguments.markdown, "pairs", text)
        sys.exit(1 if failed else 0)
    if arguments.compare_schedules:
        text, failed = compare_schedules(arguments)
        print(text)
        if arguments.markdown:
            write_between(arguments.markdown, "schedules", text)
        sys.exit(1 if failed else 0)
    rows = []
    for name, make in MODELS:
        if arguments.only and arguments.only not in name:
            continue
        with tempfile.TemporaryDirectory() as work:
            rows.append(measure(name, make(), arguments, work))
        progress(f"measured {name}")
    text = table(rows, arguments)
    print(text)
    if arguments.markdown:
        marker = "benchmark" if arguments.schedule == "layerwise" else f"benchmark-{arguments.schedule}"
        write_between(arguments.markdown, marker, text)
    sys.exit(1 if any("error" in row for row in rows) else 0)


def write_between(path, marker, text):
    """Replaces what lies between the `<!-- marker:begin -->` and `<!-- marker:end -->` lines of a file."""
    document = open(path).read()
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    head, rest = document.split(begin)
    _, tail = rest.split(end)
    open(path, "w").write(f"{head}{begin}\n{text}\n{end}{tail}")


if __name__ == "__main__":
    main()
