"""`benchmark.py --precisions`: the same models computed in f32, f16 and bf16 (`turbine-run
--precision`, the graph-reduce-precision policy: numerically sensitive ops stay f32), side by side
in one run, each compiled with one schedule (`--schedule`, GraphTurbo's by default for this table)
and run on the software DSA with seeded inputs.

Per model and precision: simulated cycles and the speedup over f32, matrix-engine utilisation,
DDR and GB<->LB bytes, the compute bound of that precision (the run's matrix flops over the peak
flops of all cores at that precision's rate in the target file) and the cycles over it, and the
accuracy against onnxruntime running the f32 model: the largest difference relative to the largest
output magnitude, and for classifiers top-1 and top-5 accuracy with onnxruntime's f32 classes as
the labels (the share of images whose largest logit, or five largest, include onnxruntime's).
"""

import json
import os
import subprocess
import tempfile
import tomllib

import numpy as np
import onnx
import onnxruntime

PRECISIONS = ["f32", "f16", "bf16"]


# The scales of each residual block's last batch norm: trained ResNets keep them small, so that
# the residual stream stays in range (torchvision can start them at zero). Drawn in [0.5, 1.5) as
# the other tables' ResNets are, each block doubles the stream's scale and ResNet-50's logits
# reach about 5e4, near f16's largest finite value (65504), past which its activations overflow.
RESIDUAL_GAMMA = (0.05, 0.15)


def models(benchmark, oracle):
    """(name, ONNX model builder) per model of the table."""
    resnet = lambda batch: benchmark.resnet(50, batch, residual_gamma=RESIDUAL_GAMMA)
    return [
        ("ResNet-50 b1", lambda: resnet(1)),
        ("ResNet-50 b8", lambda: resnet(8)),
        ("ResNet-50 b32", lambda: resnet(32)),
        ("MobileNet-V2 b1", oracle.mobilenet_v2),
        ("BERT-base layer b8 s128", lambda: oracle.bert_layer(batch=8)),
    ]


def peak_flops(arguments, here):
    """The device's matrix flops per cycle per precision, from the target file (a precision the
    matrix engine gives no rate runs at its f32 rate)."""
    path = arguments.target if os.path.exists(arguments.target) else \
        os.path.join(here, "..", "..", "targets", "descriptions", f"{arguments.target}.toml")
    target = tomllib.load(open(path, "rb"))
    engines = target["device"]["clusters"] * target["cluster"]["cores"] * \
        target["core"]["units"].count("matrix_engine")
    rates = target["throughput"]["matrix_engine"]
    return {precision: engines * rates.get(precision, rates["f32"]) for precision in PRECISIONS}


def run(arguments, path, inputs, precision, work):
    """turbine-run on the ONNX model at `path` in `precision`: (report, outputs) or an error."""
    command = [os.path.join(arguments.bin_dir, "turbine-run"), path, "--target", arguments.target,
               "--schedule", arguments.schedule, "--threads", str(arguments.threads),
               "--report-json", os.path.join(work, "report.json")]
    if precision != "f32":
        command += ["--precision", precision]
    for index in range(len(inputs)):
        command += ["--input", os.path.join(work, f"in{index}.npy")]
    command += ["--output", os.path.join(work, "out0.npy")]
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        return None, (ran.stderr.strip() or ran.stdout.strip()).splitlines()[-1]
    return json.load(open(os.path.join(work, "report.json"))), np.load(os.path.join(work, "out0.npy"))


def agreement(got, expected, k):
    """The share of rows whose k largest entries include the reference's largest: top-k accuracy
    with onnxruntime's f32 classes as the labels."""
    top = np.argsort(-got, axis=-1, kind="stable")[:, :k]
    labels = np.argmax(expected, axis=-1)
    return float(np.mean([label in row for label, row in zip(labels, top)]))


def measure(arguments, name, model, peaks, progress):
    """One model in every precision: a row of figures (or an error) per precision."""
    rows = []
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "model.onnx")
        onnx.save(model, path)
        feeds = {}
        for index, value in enumerate(model.graph.input):
            shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
            feeds[value.name] = np.random.default_rng(index).standard_normal(shape).astype(np.float32)
            np.save(os.path.join(work, f"in{index}.npy"), feeds[value.name])
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        expected = session.run(None, feeds)[0]
        for precision in PRECISIONS:
            report, outputs = run(arguments, path, list(feeds), precision, work)
            progress(f"measured {name} in {precision}")
            if report is None:
                rows.append({"precision": precision, "error": outputs})
                continue
            transfers = report["transfers"]
            matrix = [u for u in report["units"] if u["kind"] == "matrix_engine"]
            flops = sum(u["work"] for u in matrix)
            row = {
                "precision": precision,
                "cycles": report["cycles"],
                "matrix_util": sum(u["utilisation"] for u in matrix) / max(len(matrix), 1),
                "ddr": sum(t["bytes"] for t in transfers if "ddr" in (t["src"], t["dst"])),
                "gb": sum(t["bytes"] for t in transfers
                          if "gb" in (t["src"], t["dst"]) and "ddr" not in (t["src"], t["dst"])),
                "bound": flops / peaks[precision],
                "error": None,
                "max_diff": float(np.abs(outputs - expected).max() / max(np.abs(expected).max(), 1e-30)),
            }
            if expected.ndim == 2 and expected.shape[1] >= 5:
                row["top1"] = agreement(outputs, expected, 1)
                row["top5"] = agreement(outputs, expected, 5)
            rows.append(row)
    return rows


def precisions(arguments, benchmark, oracle, progress):
    """The table (markdown) and whether a run failed."""
    peaks = peak_flops(arguments, benchmark.HERE)
    lines = [f"target {arguments.target}, schedule {arguments.schedule}; accuracy against onnxruntime "
             "running the f32 model on the same seeded inputs", "",
             "| model | precision | simulated cycles | speedup over f32 | compute bound | × bound | "
             "matrix util | DDR MB | GB↔LB MB | max diff / max abs | top-1 | top-5 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    failed = False
    for name, build in models(benchmark, oracle):
        if arguments.only and arguments.only not in name:
            continue
        rows = measure(arguments, name, build(), peaks, progress)
        base = rows[0].get("cycles")
        for row in rows:
            if row.get("error"):
                failed = True
                lines.append(f"| {name} | {row['precision']} | failed: {row['error']} |" + " |" * 9)
                continue
            speedup = f"{base / row['cycles']:.2f}x" if base else ""
            top = [f"{100 * row[k]:.0f}%" if k in row else "" for k in ("top1", "top5")]
            lines.append(
                f"| {name} | {row['precision']} | {row['cycles']:,} | {speedup} | {row['bound']:,.0f} | "
                f"{row['cycles'] / row['bound']:.2f} | {100 * row['matrix_util']:.1f}% | "
                f"{row['ddr'] / 1e6:.0f} | {row['gb'] / 1e6:.0f} | {row['max_diff']:.1e} | {top[0]} | {top[1]} |")
    return "\n".join(lines), failed
