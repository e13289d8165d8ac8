#!/usr/bin/env python3
"""ONNX conformance: every case of the backend test data that the `onnx` package ships
(onnx/backend/test/data/{simple,pytorch-converted,pytorch-operator,node,light}) is imported with
`turbine-translate --import-onnx` and evaluated with `turbine-run --interpret`; the outputs are
compared with the shipped expected outputs (with onnxruntime's for the few cases whose shipped
outputs break their operator's specification, SPEC_OUTPUTS_FROM_ONNXRUNTIME); the same module
grouped by `hw-group` (GraphTurbo §3.2, scope=lb) and interpreted again must pass too. Every
case that passes is then compiled for the stcp920 target and run on the software DSA
(`turbine-run`) with each kernel schedule (the
layer-wise baseline and GraphTurbo's, `--schedules`), and compared with the same expected outputs
at the same tolerance; a case the compiler does not support yet is counted as a compiled skip with
the compiler's reason.

Turbine imports opsets 13 to 22; most of this data predates them, so a model of an older opset is
first upgraded to opset 13 with ONNX's own version converter (onnx.version_converter), the way a
user would. A case is skipped, with the reason, when the converter cannot upgrade it, when the
import refuses the upgraded model as invalid and onnxruntime cannot run it either (the converter
does not rewrite every operator whose meaning changed), when its data are not tensors (sequences,
optionals) or no longer fit the upgraded model, or when it uses something Turbine does not support
(an op, an element type, a rank, another operator set); every other case must pass. Tolerance, for every case: |actual - expected| <= atol + rtol * |expected| with rtol = 1e-4 and
atol = 1e-5 (atol covers values that should be 0). This is tighter than onnx's own runner uses for
the light models (1e-3, densenet121 2e-3); they pass at it. Outputs whose expected type is float16
or bfloat16 are compared at the precision of that type instead: with u its unit roundoff (2^-11
for float16, 2^-8 for bfloat16), rtol = 4u (two ulps: the reference and Turbine may each round an
op's result to a different neighbour) and atol = 2u (an ulp of an operand near 1 left over where a
result cancels to near 0): rtol 2^-9 and atol 2^-10 for float16, 2^-6 and 2^-7 for bfloat16.
Integer and boolean outputs are compared exactly. The type of an input or output is the one
the model declares: NumPy has no bfloat16 type, and the test data hold bfloat16 tensors as their
16-bit patterns (uint16), which are widened to float32 here, the form in which `turbine-run` reads
and writes bfloat16 values.

Cases run `--jobs` at a time (default: one per CPU); the lines come out in the cases' order.
Prints one line per case, then `N passed, N failed, N skipped` for the interpreter and the same
for the compiled runs of each schedule; exits non-zero on any failure.
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime
import onnx
import onnx.version_converter
from onnx import numpy_helper

SUITES = ["simple", "pytorch-converted", "pytorch-operator", "node", "light"]
# Many per-operator cases pass an operator's parameters (a shape, axes, pads, starts, repeats, clip
# bounds, Resize's roi, scales and sizes, ConvTranspose's filter and bias) as graph inputs, where
# exporters write constants. A graph
# input that feeds one of these parameter positions is made an initializer from the data sets, as
# an exporter would write it; a case is skipped when its data sets disagree on it. Positions count
# from 0 and follow the operator's current signature.
REDUCTIONS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]
PARAMETER_INPUTS = {
    **{op: {1} for op in REDUCTIONS},
    "Reshape": {1}, "Expand": {1}, "Tile": {1}, "Squeeze": {1}, "Unsqueeze": {1}, "Split": {1},
    "Slice": {1, 2, 3, 4}, "Pad": {1, 2, 3}, "Clip": {1, 2}, "Resize": {1, 2, 3}, "Trilu": {1},
    "ConstantOfShape": {0}, "Dropout": {1, 2}, "ConvTranspose": {1, 2}, "TopK": {1}, "OneHot": {1}, "CenterCropPad": {1},
}
# Cases whose shipped outputs break their operator's specification. ONNX's reference QLinearMatMul
# converts its rounded result with numpy's astype instead of saturating it, and these outputs were
# written by it: in int8, -236 is shipped as 20 where the specification (and onnxruntime) give
# -128. They are compared with onnxruntime's outputs on the same inputs instead.
SPEC_OUTPUTS_FROM_ONNXRUNTIME = {
    f"node/test_qlinearmatmul_{rank}_int8_{scale}"
    for rank in ("2D", "3D") for scale in ("float16", "float32")
}
RTOL, ATOL = 1e-4, 1e-5
# (rtol, atol) for float16 and bfloat16 outputs, from each type's unit roundoff u: 4u and 2u.
HALF_TOLERANCE = {onnx.TensorProto.FLOAT16: (2.0**-9, 2.0**-10), onnx.TensorProto.BFLOAT16: (2.0**-6, 2.0**-7)}


def declared_types(model_path):
    """The element types (TensorProto codes) the model declares for its graph inputs
    (initializers excluded) and its outputs."""
    graph = onnx.load(model_path, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    inputs = [i.type.tensor_type.elem_type for i in graph.input if i.name not in initializers]
    return inputs, [o.type.tensor_type.elem_type for o in graph.output]


def as_declared(array, elem_type):
    """`array` as `turbine-run` reads or writes a tensor of `elem_type`: bfloat16 values, stored
    as their 16-bit patterns, widened to float32 (exactly); anything else as it is."""
    if elem_type == onnx.TensorProto.BFLOAT16:
        return (array.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return array


def load_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as handle:
        tensor.ParseFromString(handle.read())
    try:
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError):
        # Sequence and optional values (SequenceProto, OptionalProto) do not read as tensors.
        raise ValueError(f"{os.path.basename(path)} is not a tensor (a sequence or an optional value)")


def light_input(value_info):
    """The input onnx's backend runner feeds light models: arange(n) / n, unknown dims as 1."""
    shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in value_info.type.tensor_type.shape.dim)
    count = int(np.prod(shape))
    return (np.arange(count).reshape(shape) / count).astype(np.float32)


def cases(data_root, only):
    """Yields (name, model path, [(inputs, expected outputs)]) for every case; instead of the data
    sets, the reason they cannot be read."""
    for suite in SUITES:
        if suite == "light":
            for model in sorted(glob.glob(os.path.join(data_root, "light", "light_*.onnx"))):
                name = os.path.splitext(os.path.basename(model))[0]
                if only and only not in name:
                    continue
                graph = onnx.load(model, load_external_data=False).graph
                initializers = {i.name for i in graph.initializer}
                inputs = [light_input(i) for i in graph.input if i.name not in initializers]
                outputs = [load_tensor(f"{os.path.splitext(model)[0]}_output_{i}.pb") for i in range(len(graph.output))]
                yield name, model, [(inputs, outputs)]
            continue
        for directory in sorted(glob.glob(os.path.join(data_root, suite, "test_*"))):
            name = f"{suite}/{os.path.basename(directory)}"
            if only and only not in name:
                continue
            data_sets = []
            try:
                for data in sorted(glob.glob(os.path.join(directory, "test_data_set_*"))):
                    inputs = [load_tensor(p) for p in sorted(glob.glob(os.path.join(data, "input_*.pb")))]
                    outputs = [load_tensor(p) for p in sorted(glob.glob(os.path.join(data, "output_*.pb")))]
                    data_sets.append((inputs, outputs))
            except ValueError as reason:
                data_sets = str(reason)
            yield name, os.path.join(directory, "model.onnx"), data_sets


MIN_OPSET = 13


def upgraded(model_path, work):
    """The model at opset 13 or later (written to `work`), or raises ValueError with the reason."""
    model = onnx.load(model_path)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    if opset is None or opset >= MIN_OPSET:
        return model_path
    try:
        converted = onnx.version_converter.convert_version(model, MIN_OPSET)
    except Exception as error:  # the converter raises several exception types
        raise ValueError(f"onnx's version converter cannot upgrade opset {opset} to {MIN_OPSET}: {first_line(str(error))}")
    path = os.path.join(work, "upgraded.onnx")
    onnx.save(converted, path)
    return path


def parameter_inputs(graph):
    """The names of the graph inputs (initializers excluded) that feed a parameter position of
    PARAMETER_INPUTS."""
    initializers = {i.name for i in graph.initializer}
    inputs = {i.name for i in graph.input if i.name not in initializers}
    return {
        name
        for node in graph.node
        for position, name in enumerate(node.input)
        if name in inputs and position in PARAMETER_INPUTS.get(node.op_type, ())
    }


def constants_as_initializers(model_path, data_sets, work):
    """The model with its parameter inputs as initializers, and the data sets without them."""
    model = onnx.load(model_path)
    initializers = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initializers]
    parameters = parameter_inputs(model.graph)
    constant = [n for n in names if n in parameters]
    if not constant:
        return model_path, data_sets
    for name in constant:
        position = names.index(name)
        values = [inputs[position] for inputs, _ in data_sets]
        if any(not np.array_equal(values[0], v) for v in values[1:]):
            raise ValueError(f"input '{name}' differs between data sets")
        model.graph.initializer.append(numpy_helper.from_array(values[0], name))
    kept = [i for i in model.graph.input if i.name not in parameters]
    del model.graph.input[:]
    model.graph.input.extend(kept)
    positions = [p for p, n in enumerate(names) if n not in parameters]
    data_sets = [([inputs[p] for p in positions], outputs) for inputs, outputs in data_sets]
    path = os.path.join(work, "constants.onnx")
    onnx.save(model, path)
    return path, data_sets


def input_shapes(model_path, data_sets):
    """`--input-shape` flags fixing symbolic dimensions from the first data set."""
    graph = onnx.load(model_path, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    names = [i.name for i in graph.input if i.name not in initializers]
    flags = []
    if data_sets:
        for name, value in zip(names, data_sets[0][0]):
            if value.ndim:
                flags += ["--input-shape", f"{name}={'x'.join(str(d) for d in value.shape)}"]
    return flags


def ranks_match(model_path, data_sets):
    """Whether the first data set's inputs have the ranks the model declares."""
    graph = onnx.load(model_path, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    declared = [i.type.tensor_type for i in graph.input if i.name not in initializers]
    return not data_sets or all(
        not tensor.HasField("shape") or len(tensor.shape.dim) == value.ndim
        for tensor, value in zip(declared, data_sets[0][0])
    )


def onnxruntime_runs(model_path, data_sets):
    """Whether onnxruntime runs the model on the first data set (an upgraded model can be invalid:
    the version converter does not rewrite every operator whose semantics changed)."""
    try:
        session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        inputs, _ = data_sets[0]
        feeds = {info.name: value for info, value in zip(session.get_inputs(), inputs)}
        session.run(None, feeds)
        return True
    except Exception:  # onnxruntime raises several exception types
        return False


def onnxruntime_outputs(model_path, data_sets):
    """`data_sets` with their expected outputs computed by onnxruntime."""
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    names = [info.name for info in session.get_inputs()]
    return [(inputs, session.run(None, dict(zip(names, inputs)))) for inputs, _ in data_sets]


def first_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else "(no message)"


def run_case(model, data_sets, bin_dir, work, schedules):
    """Returns ("pass" | "fail" | "skip", detail, compiled) where compiled is, per schedule, the
    outcome and detail of the compiled run for a case the interpreter passes, else None."""
    if isinstance(data_sets, str):
        return "skip", data_sets, None
    try:
        original = model
        model = upgraded(model, work)
        model, data_sets = constants_as_initializers(model, data_sets, work)
    except ValueError as reason:
        return "skip", str(reason), None
    if model != original and not ranks_match(model, data_sets):
        return "skip", "onnx's version converter changed the ranks of the inputs; the data no longer fits", None
    types = declared_types(model)
    mlir = os.path.join(work, "model.mlir")
    imported = subprocess.run(
        [os.path.join(bin_dir, "turbine-translate"), "--import-onnx", model, "-o", mlir] + input_shapes(model, data_sets),
        capture_output=True, text=True, timeout=600,
    )
    if imported.returncode != 0:
        message = first_line(imported.stderr)
        if "unsupported" in message or "not supported" in message:
            return "skip", message, None
        if model != original and not onnxruntime_runs(model, data_sets):
            return "skip", f"onnx's version converter wrote a model that onnxruntime cannot run either: {message}", None
        return "fail", f"import failed: {message}", None
    outcome = evaluate(mlir, data_sets, types, [os.path.join(bin_dir, "turbine-run"), "--interpret", mlir], work, "interpreter")
    if outcome[0] != "pass":
        return outcome + (None,)
    # Grouping (hw-group) must not change a number: the grouped module, interpreted, must pass too.
    # With scope=lb, where an instance must fit the local buffers, these batch-1 models break into
    # the most groups (at the default scope most of them fit one global buffer whole).
    grouped = os.path.join(work, "grouped.mlir")
    ran = subprocess.run([os.path.join(bin_dir, "turbine-opt"), mlir, "--hw-group=target=stcp920 scope=lb", "-o", grouped],
                         capture_output=True, text=True, timeout=600)
    if ran.returncode != 0:
        return "fail", f"hw-group failed: {first_line(ran.stderr)}", None
    outcome = evaluate(grouped, data_sets, types, [os.path.join(bin_dir, "turbine-run"), "--interpret", grouped], work, "grouped interpreter")
    if outcome[0] != "pass":
        return "fail", f"after hw-group: {outcome[1]}", None
    compiled = {
        schedule: evaluate(mlir, data_sets, types, [os.path.join(bin_dir, "turbine-run"), mlir, "--target", "stcp920", "--schedule", schedule,
                                                          "--race-check"],
                           work, f"compiled run ({schedule})")
        for schedule in schedules
    }
    return "pass", "", compiled


def run_isolated(model, data_sets, bin_dir, schedules):
    """run_case in a folder of its own; a timeout is a failure."""
    with tempfile.TemporaryDirectory() as work:
        try:
            return run_case(model, data_sets, bin_dir, work, schedules)
        except subprocess.TimeoutExpired as timeout:
            return "fail", f"timed out after {timeout.timeout} s", None


def evaluate(mlir, data_sets, types, base, work, what):
    """Runs `base` on every data set, the model's inputs and outputs of the element `types`
    (declared_types); returns ("pass" | "fail" | "skip", detail)."""
    input_types, output_types = types
    for index, (inputs, expected) in enumerate(data_sets):
        command = list(base)
        for i, (value, elem_type) in enumerate(zip(inputs, input_types)):
            path = os.path.join(work, f"input_{i}.npy")
            np.save(path, np.asarray(as_declared(value, elem_type), order="C"))  # ascontiguousarray makes scalars 1-D
            command += ["--input", path]
        outputs = [os.path.join(work, f"output_{i}.npy") for i in range(len(expected))]
        for path in outputs:
            if os.path.exists(path):
                os.remove(path)
            command += ["--output", path]
        ran = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        if ran.returncode != 0:
            message = first_line(ran.stderr)
            if "unsupported" in message or "not supported" in message:
                return "skip", message
            return "fail", f"data set {index}: {what} failed: {message}"
        for i, (path, want, elem_type) in enumerate(zip(outputs, expected, output_types)):
            got = np.load(path)
            want = as_declared(want, elem_type)
            if got.shape != want.shape:
                return "fail", f"data set {index}, output {i}: shape {got.shape} but expected {want.shape}"
            if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
                if not np.array_equal(got.astype(want.dtype), want):
                    return "fail", f"data set {index}, output {i}: values differ"
                continue
            rtol, atol = HALF_TOLERANCE.get(elem_type, (RTOL, ATOL))
            want32 = want.astype(np.float32)
            if not np.allclose(got, want32, rtol=rtol, atol=atol, equal_nan=True):
                error = np.abs(got.astype(np.float64) - want32)
                bound = atol + rtol * np.abs(want32)
                worst = np.unravel_index(np.argmax(error - bound), error.shape)
                return "fail", (
                    f"data set {index}, output {i}: max excess at {worst}: got {got[worst]}, "
                    f"expected {want32[worst]} (rtol {rtol}, atol {atol})"
                )
    return "pass", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True, help="folder holding turbine-translate and turbine-run")
    parser.add_argument("--only", help="run only cases whose name contains this text")
    parser.add_argument("--schedules", default="layerwise,graphturbo",
                        help="kernel schedules to compile each case with, comma-separated (default: layerwise,graphturbo)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases run at once (default: one per CPU)")
    arguments = parser.parse_args()
    schedules = arguments.schedules.split(",")
    data_root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    counts = {"pass": 0, "fail": 0, "skip": 0}
    compiled_counts = {schedule: {"pass": 0, "fail": 0, "skip": 0} for schedule in schedules}

    def report(name, future):
        outcome, detail, compiled = future.result()
        counts[outcome] += 1
        line = f"{outcome.upper():4} {name}{': ' + detail if detail else ''}"
        for schedule, (result, why) in (compiled or {}).items():
            compiled_counts[schedule][result] += 1
            line += f" | {schedule}: {result}{' (' + why + ')' if why else ''}"
        print(line, flush=True)

    jobs = max(1, arguments.jobs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        # A window of cases in flight, reported in order: the cases' data stay off the heap
        # until their turn comes near.
        pending = collections.deque()
        for name, model, data_sets in cases(data_root, arguments.only):
            if name in SPEC_OUTPUTS_FROM_ONNXRUNTIME and not isinstance(data_sets, str):
                data_sets = onnxruntime_outputs(model, data_sets)
            pending.append((name, pool.submit(run_isolated, model, data_sets, arguments.bin_dir, schedules)))
            if len(pending) > 2 * jobs:
                report(*pending.popleft())
        while pending:
            report(*pending.popleft())
    print(f"conformance: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    for schedule, tally in compiled_counts.items():
        print(f"conformance compiled for stcp920 ({schedule}): {tally['pass']} passed, {tally['fail']} failed, {tally['skip']} skipped")
    sys.exit(1 if counts["fail"] or any(tally["fail"] for tally in compiled_counts.values()) else 0)


if __name__ == "__main__":
    main()
