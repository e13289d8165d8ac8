#!/usr/bin/env python3
"""Random ONNX models against onnxruntime: seeded graphs of every operator the importer
supports (tools/scripts/random_onnx_models.py) are run by onnxruntime, by the reference
interpreter (`turbine-run --interpret`) and compiled for stcp920 and run on the software DSA with
every kernel schedule; each result is compared with onnxruntime's.

Every pipeline's outcome on a model is one of:
- match: ran, and every output has onnxruntime's shape and values within
  |ours - ort| <= 1e-4 * max|ort| + 1e-4 * |ort| (onnxruntime sums in another order);
- refused: exited non-zero with an error saying what is not supported (allowed);
- wrong: ran, but an output differs (never allowed);
- internal: any other failure — an error that is not a refusal, a crash, a timeout (never
  allowed).

Usage: random-onnx.py --bin-dir target/debug --count 300 [--seed 0] [--keep DIR]
Replay one model: --seed S --count 1 --keep DIR (DIR gets the .onnx and its input .npy files).
Prints a line per model that is not a match everywhere, the counts per pipeline, and exits
non-zero on any wrong answer or internal error.
"""

import argparse
import concurrent.futures
import multiprocessing
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime

# Draws onnxruntime refuses are drawn again; its error log would only repeat that.
onnxruntime.set_default_logger_severity(4)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_onnx_models  # noqa: E402

SCHEDULES = ["layerwise", "graphturbo", "graphturbo{scope=lb}"]
TIMEOUT = 300
# Sub-seeds tried per model seed before the draw counts as a generator failure.
DRAWS = 50


def oracle(model, inputs):
    """onnxruntime's outputs for `model`, None when it refuses the model."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        feeds = {i.name: value for i, value in zip(session.get_inputs(), inputs)}
        return session.run(None, feeds)
    except Exception:  # onnxruntime refuses some draws that ONNX's checker accepts
        return None


def attempt(sub_seed, pipe):
    """In a child process: draws `sub_seed` and runs onnxruntime on it, sending what came out."""
    try:
        model, inputs = random_onnx_models.generate(sub_seed)
    except random_onnx_models.Invalid:
        pipe.send(None)
        return
    expected = oracle(model, inputs)
    pipe.send(None if expected is None else (model.SerializeToString(), inputs, expected))


# Draws on which onnxruntime itself crashed (it runs in a child process, so that a crash costs
# the draw, not the run): (seed, sub-seed, signal).
CRASHES = []


def draw(seed):
    """The first valid model of seed's sub-seeds, with its inputs and onnxruntime's outputs."""
    context = multiprocessing.get_context("fork")
    for index in range(DRAWS):
        sub_seed = seed * DRAWS + index
        receiver, sender = context.Pipe(duplex=False)
        child = context.Process(target=attempt, args=(sub_seed, sender))
        child.start()
        sender.close()
        try:
            result = receiver.recv() if receiver.poll(TIMEOUT) else None
        except EOFError:  # the child died before sending
            result = None
        child.join(TIMEOUT)
        if child.exitcode is None:
            child.kill()
            child.join()
        if child.exitcode != 0:
            CRASHES.append((seed, sub_seed, child.exitcode))
            continue
        if result is None:
            continue
        serialized, inputs, expected = result
        model = onnx.load_from_string(serialized)
        # The outputs are declared with the shapes onnxruntime computes: ONNX's shape inference
        # differs from it on a few corners (the last window of a ceil-mode pooling).
        for declared, value in zip(model.graph.output, expected):
            dims = declared.type.tensor_type.shape.dim
            for dim, size in zip(dims, value.shape):
                dim.dim_value = size
        return model, inputs, expected
    raise RuntimeError(f"seed {seed}: no valid model in {DRAWS} draws (a generator bug)")


def describe(model):
    graph = model.graph
    shapes = ", ".join("x".join(str(d.dim_value) for d in i.type.tensor_type.shape.dim) for i in graph.input)
    return f"opset {model.opset_import[0].version}, [{shapes}] -> " + " ".join(n.op_type for n in graph.node)


def compare(actual, expected):
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)}, onnxruntime {list(expected.shape)}"
    if expected.size == 0:
        return None
    scale = float(np.max(np.abs(expected))) if np.all(np.isfinite(expected)) else 0.0
    bound = 1e-4 * scale + 1e-4 * np.abs(expected)
    same_nan = np.isnan(actual) & np.isnan(expected)
    bad = ~(same_nan | (np.abs(actual.astype(np.float64) - expected) <= bound) | (actual == expected))
    if np.any(bad):
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        return f"{int(bad.sum())} of {expected.size} values differ, first at {list(index)}: {actual[index]} vs {expected[index]}"
    return None


def refusal(message):
    return "not supported" in message or "unsupported" in message


def run_turbine(bin_dir, work, model_path, input_paths, count, pipeline):
    """Runs turbine-run with `pipeline` (a schedule, or `interpret`) on the model and its input
    files: ("ran", the `count` output arrays), ("refused", why) or ("internal", why)."""
    name = pipeline.replace('{', '_').replace('}', '').replace('=', '_')
    outputs = [os.path.join(work, f"{name}_{i}.npy") for i in range(count)]
    command = [os.path.join(bin_dir, "turbine-run"), model_path, "--threads", "1"]
    command += ["--interpret"] if pipeline == "interpret" else ["--schedule", pipeline, "--race-check"]
    for path in input_paths:
        command += ["--input", path]
    for path in outputs:
        command += ["--output", path]
    try:
        ran = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "internal", f"no answer in {TIMEOUT} s"
    if ran.returncode != 0:
        message = (ran.stderr.strip() or ran.stdout.strip() or f"exit {ran.returncode}").splitlines()
        text = " ".join(message)[:300]
        if ran.returncode < 0 or "panicked" in text:
            return "internal", f"exit {ran.returncode}: {text}"
        return ("refused" if refusal(text) else "internal"), text
    return "ran", [np.load(path) for path in outputs]


def run_pipeline(bin_dir, work, model_path, input_paths, expected, pipeline):
    outcome, detail = run_turbine(bin_dir, work, model_path, input_paths, len(expected), pipeline)
    if outcome != "ran":
        return outcome, detail
    for index, (got, want) in enumerate(zip(detail, expected)):
        difference = compare(got, want)
        if difference:
            return "wrong", f"output {index}: {difference}"
    return "match", ""


def check(seed, drawn, bin_dir, pipelines, keep):
    model, inputs, expected = drawn
    with tempfile.TemporaryDirectory() as scratch:
        work = keep or scratch
        os.makedirs(work, exist_ok=True)
        model_path = os.path.join(work, f"random-{seed}.onnx")
        onnx.save(model, model_path)
        input_paths = []
        for index, value in enumerate(inputs):
            input_paths.append(os.path.join(work, f"random-{seed}-input{index}.npy"))
            np.save(input_paths[-1], value)
        results = {pipeline: run_pipeline(bin_dir, work, model_path, input_paths, expected, pipeline) for pipeline in pipelines}
    return seed, describe(model), results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default="target/debug")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0, help="first model seed; model i uses seed + i")
    parser.add_argument("--schedules", default=",".join(SCHEDULES), help="compiled schedules, comma-separated")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", help="keep the models and inputs in this folder (to replay one)")
    parser.add_argument("--show-refused", action="store_true", help="also print the models some pipeline refused")
    arguments = parser.parse_args()
    pipelines = ["interpret"] + [s for s in arguments.schedules.split(",") if s]
    counts = {pipeline: {"match": 0, "refused": 0, "wrong": 0, "internal": 0} for pipeline in pipelines}
    reasons = {}
    progress = sys.stderr.isatty()
    seeds = range(arguments.seed, arguments.seed + arguments.count)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, arguments.jobs)) as pool:
        # Models are drawn here, in the main thread: each draw forks a child that runs
        # onnxruntime, and a child forked from a worker thread does not run.
        futures = [pool.submit(check, seed, draw(seed), arguments.bin_dir, pipelines, arguments.keep) for seed in seeds]
        for done, future in enumerate(futures, 1):
            seed, description, results = future.result()
            failed = {p: r for p, r in results.items() if r[0] in ("wrong", "internal") or (arguments.show_refused and r[0] == "refused")}
            for pipeline, (outcome, detail) in results.items():
                counts[pipeline][outcome] += 1
                if outcome == "refused":
                    key = detail.split(":")[-1].strip()[:100]
                    reasons[key] = reasons.get(key, 0) + 1
            if failed:
                if progress:
                    print("\r\033[K", end="", file=sys.stderr)
                print(f"seed {seed}: {description}")
                for pipeline, (outcome, detail) in failed.items():
                    print(f"  {pipeline}: {outcome}: {detail}")
                sys.stdout.flush()
            if progress:
                print(f"\r\033[K{done}/{len(futures)} models", end="", file=sys.stderr, flush=True)
    if progress:
        print("\r\033[K", end="", file=sys.stderr)
    print(f"{arguments.count} random models (seeds {arguments.seed}..{arguments.seed + arguments.count - 1}) against onnxruntime:")
    for pipeline, tally in counts.items():
        print(f"  {pipeline:24} {tally['match']} match, {tally['refused']} refused, {tally['wrong']} wrong, {tally['internal']} internal errors")
    if CRASHES:
        print(f"onnxruntime crashed on {len(CRASHES)} draws (drawn again; seed, sub-seed, exit): {CRASHES[:10]}")
    if reasons:
        print("refusals (all pipelines):")
        for reason, count in sorted(reasons.items(), key=lambda item: -item[1])[:15]:
            print(f"  {count:5}  {reason}")
    bad = sum(t["wrong"] + t["internal"] for t in counts.values())
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
