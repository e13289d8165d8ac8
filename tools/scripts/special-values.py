#!/usr/bin/env python3
"""Special values per operator: for every operator the ONNX importer supports, a small model
(onnx.helper, through onnxruntime-oracle.py's Builder) gets inputs holding NaN, +inf, -inf, -0.0,
+0.0, denormals and ordinary values, and runs on onnxruntime (one thread, no graph optimisation),
on the interpreter (`turbine-run --interpret`) and compiled for stcp920 with each schedule
(`--schedule layerwise`, `--schedule graphturbo`). Binary operators see every pair of special
values (operands of shapes [n, 1] and [1, n]); a few cases put the operator on constants, which
the importer folds.

The expected values are onnxruntime's, except where onnxruntime departs from the ONNX
definition (the cases with a `definition`; docs/Testing.md gives the reasons): there they come
from the definition, written here with numpy in float64, and the oracle column says at how many
positions onnxruntime differs from it.

Comparison, per element: NaN where the expected value is NaN (any payload), infinities equal
with their sign, and finite values compared as the case says: BITS (bit for bit, so the sign of
zero and denormals count) for what IEEE arithmetic defines exactly (data movement, selection,
negation, absolute value, relu and clip, the four basic operations); EQUAL (as numbers) for
max-like operators, where the sign of a zero chosen between -0.0 and +0.0 is not defined; CLOSE
otherwise: |ours - expected| <= 1e-4 * max|finite expected| + 1e-4 * |expected|. A case's
`defined` mask leaves out what ONNX leaves undefined (NaN or infinity cast to an integer).

Prints a table, one row per case (the oracle, then per pipeline `ok`, `wrong` or `refused` — a
refusal saying what the compiler does not support is allowed), then each failure, and exits non-zero on any wrong value or internal error. Cases run
`--jobs` at a time.
"""

import argparse
import concurrent.futures
import importlib.util
import math
import os
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def script(file_name):
    """One of the sibling scripts, loaded as a module (their file names have dashes)."""
    name = file_name[:-3].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file_name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ORACLE = script("onnxruntime-oracle.py")
RANDOM = script("random-onnx.py")

PIPELINES = ["interpret", "layerwise", "graphturbo"]
OPSET = 20

NAN, INF = np.float32("nan"), np.float32("inf")
DENORMAL = np.float32(1e-40)
SPECIALS = np.array([NAN, INF, -INF, -0.0, 0.0, DENORMAL, -DENORMAL, np.finfo(np.float32).tiny,
                     1.5, -2.0, 0.5, 3.0], np.float32)


def ordinary(shape, seed):
    """Seeded normal values."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def sprinkled(shape, seed, every=5):
    """Ordinary values with SPECIALS in turn at every `every`-th element."""
    values = ordinary(shape, seed).reshape(-1)
    positions = np.arange(0, values.size, every)
    values[positions] = SPECIALS[np.arange(positions.size) % SPECIALS.size]
    return values.reshape(shape)


def pairs():
    """Every pair of SPECIALS: operands of shapes [n, 1] and [1, n]."""
    return [("a", SPECIALS.reshape(-1, 1)), ("b", SPECIALS.reshape(1, -1))]


def column():
    return [("x", SPECIALS.reshape(1, -1))]


# How finite values compare: bit for bit; equal as numbers (the sign of a zero left open: the
# maximum of -0.0 and +0.0 is either in onnxruntime, depending on how the operands broadcast); or
# within the tolerance.
BITS, EQUAL, CLOSE = "bits", "equal", "close"


class Case:
    """One model: `build(b)` adds nodes to a Builder and returns the output names; `inputs` are
    (name, value) pairs; `definition(*inputs)` gives the expected outputs where onnxruntime departs
    from ONNX; `exact` is how finite values compare; `defined(*inputs)` masks the elements ONNX
    defines."""

    def __init__(self, name, inputs, build, exact=CLOSE, definition=None, defined=None):
        self.name, self.inputs, self.build = name, inputs, build
        self.exact, self.definition, self.defined = exact, definition, defined

    def model(self):
        builder = ORACLE.Builder(0)
        outputs = self.build(builder, *[name for name, _ in self.inputs])
        inputs = [(name, list(value.shape)) for name, value in self.inputs]
        return builder.model(self.name, inputs, outputs, opset=OPSET)


def op(op_type, **attributes):
    """A build function applying one operator to all the inputs."""
    return lambda b, *inputs: [b.op(op_type, list(inputs), **attributes)]


def with_constants(op_type, constants, **attributes):
    """A build function applying one operator to the inputs followed by constant inputs."""
    return lambda b, *inputs: [b.op(op_type, list(inputs) + [b.constant(c) for c in constants], **attributes)]


def in_float64(function):
    """`function` evaluated in float64 and rounded to float32, with numpy's warnings off."""
    def evaluate(*inputs):
        with np.errstate(all="ignore"):
            return [np.asarray(function(*[x.astype(np.float64) for x in inputs])).astype(np.float32)]
    return evaluate


def max_pool_definition(kernel, pads, strides=(1, 1)):
    """MaxPool by its definition: the maximum of each window, NaN when the window holds one
    (numpy's max), padding never winning."""
    def evaluate(x):
        top, left, bottom, right = pads
        padded = np.pad(x, [(0, 0), (0, 0), (top, bottom), (left, right)], constant_values=-np.inf)
        windows = np.lib.stride_tricks.sliding_window_view(padded, kernel, axis=(2, 3))
        return np.max(windows[:, :, ::strides[0], ::strides[1]], axis=(-2, -1))
    return in_float64(evaluate)


def lrn_definition(size, alpha, beta, bias):
    """LRN by its formula: the sum of squares over channels [c - floor((size-1)/2),
    c + ceil((size-1)/2)], each window summed on its own."""
    def evaluate(x):
        channels, below = x.shape[1], (size - 1) // 2
        squares = np.zeros_like(x)
        for c in range(channels):
            window = slice(max(0, c - below), min(channels, c + size - below))
            squares[:, c] = np.sum(x[:, window] ** 2, axis=1)
        return x / (bias + alpha / size * squares) ** beta
    return in_float64(evaluate)


def gelu_erf_export(b, x):
    """GELU as torch.onnx writes it, which graph-substitute turns into graph.gelu."""
    erf = b.op("Erf", [b.op("Div", [x, b.constant(np.float32(math.sqrt(2.0)))])])
    scaled = b.op("Mul", [x, b.op("Add", [erf, b.constant(np.float32(1.0))])])
    return [b.op("Mul", [scaled, b.constant(np.float32(0.5))])]


def silu_export(b, x):
    """x * sigmoid(x), which graph-substitute turns into graph.silu."""
    return [b.op("Mul", [x, b.op("Sigmoid", [x])])]


def folded(op_type):
    """`op_type` of constant SPECIALS (all pairs for a binary operator), which the importer folds,
    added to the input, -0.0 everywhere: x + -0.0 is x for every x, -0.0 included."""
    def build(b, x):
        if op_type == "Relu":
            operands = [b.constant(SPECIALS.reshape(1, -1))]
        else:
            operands = [b.constant(SPECIALS.reshape(-1, 1)), b.constant(SPECIALS.reshape(1, -1))]
        return [b.op("Add", [x, b.op(op_type, operands)])]
    return build


def split(b, x):
    """Split into two outputs (Builder.op makes nodes of one output)."""
    outputs = [b.name("split"), b.name("split")]
    b.nodes.append(helper.make_node("Split", [x, b.constant(np.int64([1, 3]))], outputs, axis=2))
    return outputs


def conv_weights(shape):
    """Ordinary weights with +inf, -inf and NaN at fixed taps: next to the padding they meet its
    zeros (inf * 0 is NaN)."""
    weights = ordinary(shape, 1)
    weights.reshape(-1)[[0, 4, 7]] = [INF, -INF, NAN]
    return weights


X4 = [("x", sprinkled([1, 2, 5, 5], 1))]
ROWS = [("x", sprinkled([6, 5], 2, every=4))]
# Rows of one kind each: all -inf, all -0.0, ordinary, both infinities, +inf among ordinary values,
# NaN second (onnxruntime's ReduceMax misses it there).
EDGE_ROWS = [("x", np.float32([[-INF] * 5, [-0.0] * 5, [1, 2, 3, 4, 5], [INF, 1, -INF, 2, 3],
                               [1, 2, INF, 3, DENORMAL], [1, NAN, 2, 3, 4]]))]
MIXED = sprinkled([2, 3, 4], 3, every=3)


def elementwise_cases():
    yield from (Case(name, column(), op(name), exact=BITS) for name in ["Relu", "Neg", "Abs"])
    yield from (Case(name, column(), op(name)) for name in ["Sigmoid", "Tanh", "Exp", "Reciprocal"])
    yield Case("Sqrt", column(), op("Sqrt"), definition=in_float64(np.sqrt))
    yield Case("Log", column(), op("Log"), definition=in_float64(np.log))
    yield Case("Erf", column(), op("Erf"), definition=in_float64(np.vectorize(math.erf, otypes=[np.float64])))
    yield Case("Gelu", column(), op("Gelu"))
    yield Case("Gelu(tanh)", column(), op("Gelu", approximate="tanh"))
    yield Case("Gelu(exported)", column(), gelu_erf_export)
    yield Case("Silu(exported)", column(), silu_export)
    for name, bounds in [("Clip", [-1.0, 1.0]), ("Clip(0,6)", [0.0, 6.0]), ("Clip(min)", [0.0]), ("Clip()", []),
                         ("Clip(NaN,6)", [NAN, 6.0])]:
        yield Case(name, column(), with_constants("Clip", [np.float32(b) for b in bounds]), exact=BITS)
    for name in ["Add", "Sub", "Mul", "Div"]:
        yield Case(name, pairs(), op(name), exact=BITS)
    yield Case("Add(+0.0)", column(), with_constants("Add", [np.float32(0.0)]), exact=BITS)
    yield Case("Add(-0.0 of shape)", column(), lambda b, x: [b.op("Add", [x, b.op(
        "ConstantOfShape", [b.constant(np.int64([1, SPECIALS.size]))],
        value=helper.make_tensor("value", TensorProto.FLOAT, [1], [-0.0]))])], exact=BITS)
    yield Case("Mul(1)", column(), with_constants("Mul", [np.float32(1.0)]), exact=BITS)
    for name in ["Max", "Min"]:
        yield Case(name, pairs(), op(name), exact=EQUAL)
    yield Case("Pow", pairs(), op("Pow"))
    yield Case("Mod(fmod)", pairs(), op("Mod", fmod=1), exact=BITS)
    three = pairs() + [("c", np.float32([[1.0], [NAN], [-INF], [0.0]]).repeat(3, 0))]
    for name in ["Sum", "Max", "Min"]:
        yield Case(f"{name}(3)", three, op(name), exact=CLOSE if name == "Sum" else EQUAL)
    for name in ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]:
        yield Case(name, pairs(), op(name), exact=BITS)
    condition = np.arange(SPECIALS.size).reshape(-1, 1) % 3 == 0
    yield Case("Where", pairs(), lambda b, x, y: [b.op("Where", [b.constant(condition), x, y])], exact=BITS,
               definition=lambda x, y: [np.where(condition, x, y)])
    yield Case("Cast(bool)", column(), op("Cast", to=TensorProto.BOOL), exact=BITS)
    yield Case("Cast(int64)", column(), op("Cast", to=TensorProto.INT64), exact=BITS, defined=np.isfinite)
    for name in ["Max", "Min", "Div"]:
        yield Case(f"{name}(folded)", [("x", np.full([SPECIALS.size] * 2, -0.0, np.float32))], folded(name),
                   exact=EQUAL if name != "Div" else BITS)
    yield Case("Relu(folded)", [("x", np.full([1, SPECIALS.size], -0.0, np.float32))], folded("Relu"), exact=BITS)


def window_cases():
    axis = with_constants("ReduceMax", [np.int64([2])], keepdims=0)
    yield Case("ReduceMax", [("x", MIXED)], axis, exact=EQUAL, definition=in_float64(lambda x: np.max(x, axis=2)))
    yield Case("ReduceMax(all)", [("x", MIXED)], op("ReduceMax", keepdims=0), exact=EQUAL,
               definition=in_float64(np.max))
    yield Case("ReduceMax(rows)", EDGE_ROWS, with_constants("ReduceMax", [np.int64([1])]), exact=EQUAL,
               definition=in_float64(lambda x: np.max(x, axis=1, keepdims=True)))
    yield Case("ReduceSum", [("x", MIXED)], with_constants("ReduceSum", [np.int64([1])]))
    yield Case("ReduceSum(rows)", EDGE_ROWS, with_constants("ReduceSum", [np.int64([1])]))
    yield Case("ReduceMean", [("x", MIXED)], with_constants("ReduceMean", [np.int64([0, 2])]))
    yield Case("MaxPool", X4, op("MaxPool", kernel_shape=[2, 2], pads=[1, 0, 0, 1]), exact=EQUAL,
               definition=max_pool_definition([2, 2], [1, 0, 0, 1]))
    yield Case("MaxPool(stride 2)", X4, op("MaxPool", kernel_shape=[3, 3], strides=[2, 2]), exact=EQUAL,
               definition=max_pool_definition([3, 3], [0, 0, 0, 0], [2, 2]))
    yield Case("GlobalMaxPool", X4, op("GlobalMaxPool"), exact=EQUAL,
               definition=in_float64(lambda x: np.max(x, axis=(2, 3), keepdims=True)))
    yield Case("AveragePool", X4, op("AveragePool", kernel_shape=[2, 2], pads=[1, 1, 1, 1]))
    yield Case("AveragePool(pads)", X4, op("AveragePool", kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1))
    yield Case("GlobalAveragePool", X4, op("GlobalAveragePool"))
    yield Case("Softmax", ROWS, op("Softmax"))
    yield Case("Softmax(rows)", EDGE_ROWS, op("Softmax"))
    yield Case("Softmax(axis 0)", ROWS, op("Softmax", axis=0))
    ones, zeros = np.ones(5, np.float32), np.zeros(5, np.float32)
    yield Case("LayerNormalization", ROWS, with_constants("LayerNormalization", [ones, zeros]))
    yield Case("LayerNormalization(rows)", EDGE_ROWS, with_constants("LayerNormalization", [ones, zeros]))
    yield Case("LayerNormalization(no bias)", ROWS, with_constants("LayerNormalization", [ones]))
    yield Case("LRN", [("x", sprinkled([1, 6, 2, 2], 8, every=7))], op("LRN", size=3),
               definition=lrn_definition(3, 1e-4, 0.75, 1.0))


def product_cases():
    scale, shift = np.float32([0.5, 2.0]), np.float32([1.0, -1.0])
    statistics = [scale, shift, np.float32([0.0, INF]), np.float32([1.0, 0.0])]
    conv = conv_weights([3, 2, 3, 3])
    yield Case("Conv", X4, with_constants("Conv", [conv], pads=[1, 1, 1, 1]))
    yield Case("Conv(bias)", X4, with_constants("Conv", [conv_weights([2, 1, 2, 2]), np.float32([NAN, 0.5])],
                                                  group=2, strides=[2, 2]))
    yield Case("Conv+Relu", X4, lambda b, x: [b.op("Relu", [b.op("Conv", [x, b.constant(conv)], pads=[1, 1, 1, 1])])])
    yield Case("Conv+Clip(0,6)", X4, lambda b, x: [b.op("Clip", [b.op("Conv", [x, b.constant(conv)]),
                                                                b.constant(np.float32(0)), b.constant(np.float32(6))])])
    yield Case("Conv+BatchNormalization", X4, lambda b, x: [b.op("BatchNormalization", [
        b.op("Conv", [x, b.constant(ordinary([2, 2, 1, 1], 7))])] + [b.constant(v) for v in statistics])])
    yield Case("MatMul", ROWS, with_constants("MatMul", [sprinkled([5, 3], 4, every=4)]))
    yield Case("MatMul+Add", ROWS, lambda b, x: [b.op("Add", [b.op("MatMul", [x, b.constant(ordinary([5, 3], 4))]),
                                                             b.constant(np.float32([NAN, -INF, 1.0]))])])
    yield Case("Gemm", ROWS, with_constants("Gemm", [sprinkled([3, 5], 5, every=4), np.float32([NAN, 0.0, INF])],
                                            alpha=0.5, beta=2.0, transB=1))
    yield Case("Gemm(beta 0)", ROWS, with_constants("Gemm", [ordinary([5, 3], 6), np.float32([NAN, -0.0, INF])],
                                                    beta=0.0))
    yield Case("Gemm(alpha 0)", ROWS, with_constants("Gemm", [ordinary([5, 3], 6), np.float32([1.0, 2.0, 3.0])],
                                                     alpha=0.0))
    yield Case("BatchNormalization", X4, with_constants("BatchNormalization", statistics))


def movement_cases():
    yield Case("Reshape", [("x", MIXED)], with_constants("Reshape", [np.int64([4, 6])]), exact=BITS)
    yield Case("Flatten", [("x", MIXED)], op("Flatten", axis=2), exact=BITS)
    yield Case("Squeeze", [("x", MIXED[:1])], with_constants("Squeeze", [np.int64([0])]), exact=BITS)
    yield Case("Unsqueeze", [("x", MIXED)], with_constants("Unsqueeze", [np.int64([1])]), exact=BITS)
    yield Case("Transpose", [("x", MIXED)], op("Transpose", perm=[2, 0, 1]), exact=BITS)
    yield Case("Concat", pairs(), lambda b, x, y: [b.op("Concat", [b.op("Transpose", [x], perm=[1, 0]), y], axis=0)],
               exact=BITS)
    yield Case("Split", [("x", MIXED)], split, exact=BITS)
    bounds = [np.int64(v) for v in ([0, 1], [2, 4], [1, 2], [1, 1])]
    yield Case("Slice", [("x", MIXED)], with_constants("Slice", bounds), exact=BITS)
    pads = np.int64([0, 1, 1, 0, 1, 1])
    for name, extra, attributes in [("Pad(-0.0)", [np.float32(-0.0)], {}), ("Pad(NaN)", [np.float32(NAN)], {}),
                                    ("Pad(edge)", [], {"mode": "edge"}), ("Pad(reflect)", [], {"mode": "reflect"})]:
        yield Case(name, [("x", MIXED)], with_constants("Pad", [pads] + extra, **attributes), exact=BITS)
    yield Case("Resize(nearest)", X4, with_constants("Resize", [np.float32([]), np.float32([1, 1, 2, 1.5])]),
               exact=BITS)
    yield Case("Resize(linear)", X4, with_constants("Resize", [np.float32([]), np.float32([1, 1, 2, 2])],
                                                     mode="linear"))
    yield Case("Gather", [("x", MIXED)], with_constants("Gather", [np.int64([3, 0, -1, 1])], axis=2), exact=BITS)
    yield Case("Expand", [("x", SPECIALS.reshape(-1, 1))], with_constants("Expand", [np.int64([2, 12, 3])]),
               exact=BITS)


def cases():
    return [*elementwise_cases(), *window_cases(), *product_cases(), *movement_cases()]


def compare(actual, expected, exact, defined):
    """How many elements of `actual` differ, and a description (None when none does)."""
    if actual.shape != expected.shape:
        return expected.size, f"shape {list(actual.shape)}, expected {list(expected.shape)}"
    if expected.dtype == np.bool_ or np.issubdtype(expected.dtype, np.integer):
        bad = actual.astype(expected.dtype) != expected
    else:
        actual, expected = actual.astype(np.float32), expected.astype(np.float32)
        nan = np.isnan(expected)
        usual = np.isfinite(expected)
        scale = float(np.max(np.abs(expected[usual]), initial=0.0))
        with np.errstate(all="ignore"):
            if exact == BITS:
                close = actual.view(np.uint32) == expected.view(np.uint32)
            elif exact == EQUAL:
                close = actual == expected
            else:
                close = np.abs(actual.astype(np.float64) - expected) <= 1e-4 * scale + 1e-4 * np.abs(expected)
        close |= np.isinf(expected) & (actual == expected)
        bad = np.where(nan, ~np.isnan(actual), ~close | np.isnan(actual))
    if defined is not None:
        bad &= defined
    if not bad.any():
        return 0, None
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    count = int(bad.sum())
    return count, f"{count} of {bad.size} differ, first at {list(first)}: {actual[first]!r} vs {expected[first]!r}"


def check(case, bin_dir, pipelines):
    """The case's oracle note and, per pipeline, (outcome, detail)."""
    model = case.model()
    inputs = [value for _, value in case.inputs]
    reference = RANDOM.oracle(model, inputs)
    if reference is None:
        return "onnxruntime refused the model", {}
    expected, oracle = reference, "onnxruntime"
    if case.definition:
        expected = case.definition(*inputs)
        differing = sum(compare(ort, want, case.exact, None)[0] for ort, want in zip(reference, expected))
        oracle = f"definition (onnxruntime: {differing} differ)"
    defined = case.defined(*inputs) if case.defined else None
    results = {}
    with tempfile.TemporaryDirectory() as work:
        model_path = os.path.join(work, "model.onnx")
        with open(model_path, "wb") as handle:
            handle.write(model.SerializeToString())
        input_paths = []
        for index, value in enumerate(inputs):
            input_paths.append(os.path.join(work, f"input{index}.npy"))
            np.save(input_paths[-1], value)
        for pipeline in pipelines:
            outcome, detail = RANDOM.run_turbine(bin_dir, work, model_path, input_paths, len(expected), pipeline)
            if outcome == "ran":
                problems = [compare(got, want, case.exact, defined)[1] for got, want in zip(detail, expected)]
                problems = [f"output {i}: {p}" for i, p in enumerate(problems) if p]
                outcome, detail = ("wrong", "; ".join(problems)) if problems else ("ok", "")
            results[pipeline] = (outcome, detail)
    return oracle, results


def verdict(outcome, detail):
    """(cell, failure) for one pipeline's outcome."""
    return outcome, f"{outcome}: {detail}" if outcome in ("wrong", "internal") else None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True, help="folder holding turbine-run")
    parser.add_argument("--only", help="run only cases whose name contains this text")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="cases run at once (default: one per CPU)")
    parser.add_argument("--verbose", action="store_true", help="also print the reason of every refusal")
    arguments = parser.parse_args()
    selected = [case for case in cases() if not arguments.only or arguments.only in case.name]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, arguments.jobs)) as pool:
        futures = [pool.submit(check, case, arguments.bin_dir, PIPELINES) for case in selected]
        outcomes = [future.result() for future in futures]
    rows, failures, notes = [], [], []
    for case, (oracle, results) in zip(selected, outcomes):
        cells = []
        for pipeline in PIPELINES:
            outcome, detail = results.get(pipeline, ("internal", oracle))
            cell, failure = verdict(outcome, detail)
            cells.append(cell)
            if failure:
                failures.append(f"{case.name}, {pipeline}: {failure}")
            elif arguments.verbose and cell == "refused":
                notes.append(f"{case.name}, {pipeline}: refused: {detail}")
        rows.append([case.name, oracle] + cells)
    header = ["operator", "oracle"] + PIPELINES
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths]] + rows:
        print("| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |")
    for line in notes + failures:
        print(line)
    print(f"special values: {len(selected)} cases, {len(failures)} wrong or failed pipeline runs")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
