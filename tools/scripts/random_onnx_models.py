"""Random ONNX models for differential testing: seeded graphs of every operator the
importer supports, with random attributes (strides, dilations, asymmetric pads, groups, ranks up to
6, broadcasting of every rank pair, reshapes to any rank, softmax and reductions on any axes,
zero-size dimensions), each a valid model that onnxruntime runs.

`generate(seed)` returns (model, inputs) or raises `Invalid` when the draw is not a model
onnxruntime accepts (the caller draws again from the next sub-seed). Shapes of new values come
from ONNX's own shape inference, so the generator never computes an output shape itself.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

# Opsets drawn per model: 13 (attributes as attributes), 17 (LayerNormalization), 18 (reduction
# axes as inputs, Split's num_outputs), 20 (Gelu); onnxruntime 1.20 runs all of them.
OPSETS = [13, 17, 18, 20]


# Values are kept small: a test model runs in milliseconds.
MAX_ELEMENTS = 1 << 16


class Invalid(Exception):
    """The draw is not a model to test (an op that does not apply, a shape that becomes empty)."""


class Graph:
    """A model under construction: values with their shapes, nodes, initializers."""

    def __init__(self, rng, opset):
        self.rng, self.opset = rng, opset
        self.nodes, self.initializers, self.inputs = [], [], []
        self.shapes = {}
        self.count = 0

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def input(self, shape):
        name = self.fresh("x")
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)))
        self.shapes[name] = tuple(shape)
        return name

    def constant(self, array, prefix="c"):
        name = self.fresh(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        if np.asarray(array).dtype == np.float32:
            self.shapes[name] = tuple(np.asarray(array).shape)
        return name

    def weight(self, shape, scale=None):
        fan_in = max(1, int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0]) if shape else 1)
        scale = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        return self.constant((self.rng.standard_normal(shape) * scale).astype(np.float32), "w")

    def ints(self, values):
        return self.constant(np.asarray(values, dtype=np.int64), "i")

    def node(self, op, inputs, outputs=1, **attributes):
        """Adds `op` and returns its result names, their shapes found by ONNX shape inference."""
        names = [self.fresh("v") for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, names, **attributes))
        try:
            inferred = shape_inference.infer_shapes(self.model(names, typed=False), strict_mode=True)
            known = {v.name: v for v in inferred.graph.output}
            for name in names:
                dims = known[name].type.tensor_type.shape.dim
                if not known[name].type.tensor_type.HasField("shape") or any(not d.HasField("dim_value") for d in dims):
                    raise Invalid(f"{op}: shape inference left {name} unknown")
                shape = tuple(d.dim_value for d in dims)
                if any(d < 0 for d in shape):
                    raise Invalid(f"{op}: negative dimension")
                if int(np.prod(shape)) > MAX_ELEMENTS:
                    raise Invalid(f"{op}: {shape} is larger than a test needs")
                self.shapes[name] = shape
        except Exception as error:  # onnx raises several kinds
            self.nodes.pop()
            raise error if isinstance(error, Invalid) else Invalid(f"{op}: {str(error).splitlines()[0][:160]}")
        return names if outputs > 1 else names[0]

    def model(self, outputs, typed=True):
        """The model computing `outputs` (typed: as float tensors of their known shapes)."""
        results = [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, list(self.shapes[name]))
            if typed
            else helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None)
            for name in outputs
        ]
        graph = helper.make_graph(self.nodes, "random", self.inputs, results, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        return model

    # Draws.
    def pick(self, values):
        return values[int(self.rng.integers(len(values)))]

    def chance(self, p):
        return bool(self.rng.random() < p)

    def between(self, low, high):
        return int(self.rng.integers(low, high + 1))


def broadcastable(g, shape):
    """A shape that broadcasts with `shape`: any rank up to 6, each dimension the same or 1, extra
    leading dimensions of any size."""
    rank = g.between(0, min(6, len(shape) + 1))
    result = []
    for position in range(rank):
        aligned = len(shape) - rank + position
        if aligned < 0:
            result.append(g.between(1, 3))
        else:
            result.append(shape[aligned] if g.chance(0.6) else 1)
    return tuple(result)


def away_from_zero(g, shape):
    magnitude = g.rng.uniform(0.5, 2.0, size=shape)
    sign = np.where(g.rng.random(size=shape) < 0.5, -1.0, 1.0)
    return (magnitude * sign).astype(np.float32)


# Operators: each takes the graph and a value and returns a new value, or raises Invalid.

def conv(g, x):
    if len(g.shapes[x]) != 4:
        raise Invalid("conv needs rank 4")
    n, c, h, w = g.shapes[x]
    if c == 0:
        raise Invalid("onnxruntime 1.20 never returns from a convolution of zero channels")
    groups = g.pick([d for d in range(1, c + 1) if c % d == 0]) if c > 0 else 1
    out = groups * g.between(1, max(1, 8 // groups))
    kernel = [g.between(1, 3), g.between(1, 3)]
    attributes = {"kernel_shape": kernel, "group": groups} if groups > 1 or g.chance(0.5) else {"kernel_shape": kernel}
    if g.chance(0.15):
        attributes["auto_pad"] = g.pick(["SAME_UPPER", "SAME_LOWER", "VALID"])
        attributes["strides"] = [g.between(1, 2), g.between(1, 2)]
    else:
        attributes["strides"] = [g.between(1, 3), g.between(1, 3)]
        attributes["dilations"] = [g.between(1, 2), g.between(1, 2)]
        attributes["pads"] = [g.between(0, 2) for _ in range(4)]
    inputs = [x, g.weight((out, c // groups, *kernel))]
    if g.chance(0.6):
        inputs.append(g.weight((out,), 0.5))
    return g.node("Conv", inputs, **attributes)


def pool(g, x):
    if len(g.shapes[x]) != 4:
        raise Invalid("pool needs rank 4")
    op = g.pick(["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"])
    if op.startswith("Global"):
        if g.shapes[x][2] * g.shapes[x][3] == 0:
            raise Invalid("a global pooling over an empty plane (see reduce)")
        return g.node(op, [x])
    kernel = [g.between(1, 3), g.between(1, 3)]
    attributes = {
        "kernel_shape": kernel,
        "strides": [g.between(1, 3), g.between(1, 3)],
        "pads": [g.between(0, kernel[0] - 1), g.between(0, kernel[1] - 1), g.between(0, kernel[0] - 1), g.between(0, kernel[1] - 1)],
        "ceil_mode": int(g.chance(0.3)),
    }
    if op == "MaxPool" and g.chance(0.3):
        attributes["dilations"] = [g.between(1, 2), g.between(1, 2)]
    if op == "AveragePool":
        attributes["count_include_pad"] = int(g.chance(0.5))
    if attributes["ceil_mode"]:
        # The ONNX specification drops a last window that would start past the input (in the end
        # padding); onnxruntime 1.20 keeps it. Such draws have no oracle.
        dilations = attributes.get("dilations", [1, 1])
        for axis in range(2):
            size, stride = g.shapes[x][2 + axis], attributes["strides"][axis]
            begin, end = attributes["pads"][axis], attributes["pads"][axis + 2]
            span = size + begin + end - dilations[axis] * (kernel[axis] - 1) - 1
            if span >= 0 and (-(-span // stride)) * stride >= size + begin:
                raise Invalid("a ceil-mode window starting in the end padding")
    return g.node(op, [x], **attributes)


def gemm(g, x):
    shape = g.shapes[x]
    if len(shape) != 2:
        raise Invalid("gemm needs rank 2")
    trans_a, trans_b = int(g.chance(0.3)), int(g.chance(0.5))
    m, k = (shape[1], shape[0]) if trans_a else shape
    if k == 0:
        # onnxruntime 1.20's Gemm over K = 0 drops beta * C: no oracle.
        raise Invalid("a product over an empty reduction")
    n = g.between(1, 12)
    inputs = [x, g.weight((n, k) if trans_b else (k, n))]
    if g.chance(0.7):
        inputs.append(g.weight(g.pick([(n,), (1, n), (m, n), (m, 1), ()]), 0.5))
    return g.node("Gemm", inputs, transA=trans_a, transB=trans_b, alpha=float(g.pick([1.0, 0.5, 2.0])), beta=float(g.pick([1.0, 0.25])))


def matmul(g, x):
    shape = g.shapes[x]
    if not shape:
        raise Invalid("matmul needs rank 1 or more")
    k, n = shape[-1], g.between(1, 10)
    if k == 0:
        # onnxruntime 1.20's batched MatMul over K = 0 returns uninitialised memory: no oracle.
        raise Invalid("a product over an empty reduction")
    rank = g.between(1, 4)
    if rank == 1:
        other = (k,)
    else:
        batch = broadcastable(g, shape[:-2])[-(rank - 2):] if rank > 2 else ()
        other = (*batch, k, n)
    return g.node("MatMul", [x, g.weight(other)])


def binary(g, x):
    op = g.pick(["Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Pow", "Mod"])
    other_shape = broadcastable(g, g.shapes[x])
    if op == "Div":
        other = g.constant(away_from_zero(g, other_shape))
    elif op == "Pow":
        return g.node("Pow", [x, g.constant(np.full(other_shape, g.pick([2.0, 3.0]), dtype=np.float32))])
    elif op == "Mod":
        return g.node("Mod", [x, g.constant(away_from_zero(g, other_shape))], fmod=1)
    else:
        other = g.weight(other_shape, 1.0)
    inputs = [other, x] if g.chance(0.3) else [x, other]
    if op in ("Sum", "Max", "Min") and g.chance(0.3):
        inputs.append(g.weight(broadcastable(g, g.shapes[x]), 1.0))
    return g.node(op, inputs)


def select(g, x):
    other = g.weight(broadcastable(g, g.shapes[x]), 1.0)
    compare = g.pick(["Greater", "Less", "Equal", "LessOrEqual", "GreaterOrEqual"])
    if compare in ("LessOrEqual", "GreaterOrEqual") and g.opset < 12:
        raise Invalid("comparison needs opset 12")
    condition = g.node(compare, [x, other])
    return g.node("Where", [condition, x, g.weight(broadcastable(g, g.shapes[x]), 1.0)])


def unary(g, x):
    op = g.pick(["Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Erf", "Sqrt", "Log", "Reciprocal", "Clip", "Gelu", "Cast", "Identity"])
    if op in ("Sqrt", "Log", "Reciprocal"):
        positive = g.node("Add", [g.node("Abs", [x]), g.constant(np.float32(1.0))])
        return g.node(op, [positive])
    if op == "Exp":
        return g.node("Exp", [g.node("Tanh", [x])])
    if op == "Clip":
        low, high = g.pick([(-0.5, 0.5), (0.0, 6.0), (None, 0.3), (-0.2, None)])
        inputs = [x, g.constant(np.float32(low)) if low is not None else "", g.constant(np.float32(high)) if high is not None else ""]
        while inputs[-1] == "":
            inputs.pop()
        return g.node("Clip", inputs)
    if op == "Gelu":
        if g.opset < 20:
            raise Invalid("Gelu needs opset 20")
        return g.node("Gelu", [x], approximate=g.pick(["none", "tanh"]))
    if op == "Cast":
        return g.node("Cast", [x], to=TensorProto.FLOAT)
    return g.node(op, [x])


def softmax(g, x):
    rank = len(g.shapes[x])
    if rank == 0:
        raise Invalid("softmax needs rank 1 or more")
    return g.node("Softmax", [x], axis=g.between(-rank, rank - 1))


def normalization(g, x):
    shape = g.shapes[x]
    rank = len(shape)
    if g.chance(0.5) and rank >= 2:
        c = shape[1]
        variance = g.rng.uniform(0.5, 2.0, size=(c,)).astype(np.float32)
        inputs = [x, g.weight((c,), 1.0), g.weight((c,), 1.0), g.weight((c,), 1.0), g.constant(variance)]
        return g.node("BatchNormalization", inputs, epsilon=float(g.pick([1e-5, 1e-3])))
    if g.chance(0.5) and rank == 4:
        return g.node("LRN", [x], size=g.pick([1, 3, 5]), alpha=float(g.pick([1e-4, 1e-2])), beta=float(g.pick([0.75, 0.5])), bias=float(g.pick([1.0, 2.0])))
    if g.opset < 17 or rank == 0:
        raise Invalid("LayerNormalization needs opset 17")
    axis = g.between(-rank, rank - 1)
    normalized = shape[axis:]
    inputs = [x, g.weight(normalized, 1.0)] + ([g.weight(normalized, 1.0)] if g.chance(0.6) else [])
    return g.node("LayerNormalization", inputs, axis=axis, epsilon=float(g.pick([1e-5, 1e-3])))


def transpose(g, x):
    rank = len(g.shapes[x])
    # A scalar's only permutation is empty, which onnx.helper cannot type: leave `perm` out.
    if rank == 0 or g.chance(0.15):
        return g.node("Transpose", [x])
    return g.node("Transpose", [x], perm=[int(p) for p in g.rng.permutation(rank)])


def reshape(g, x):
    shape = g.shapes[x]
    elements = int(np.prod(shape))
    op = g.pick(["Reshape", "Reshape", "Flatten", "Squeeze", "Unsqueeze"])
    if op == "Flatten":
        return g.node("Flatten", [x], axis=g.between(0, len(shape)))
    if op == "Squeeze":
        ones = [i for i, d in enumerate(shape) if d == 1]
        if not ones:
            raise Invalid("nothing to squeeze")
        axes = sorted(set(g.pick(ones) for _ in range(g.between(1, len(ones)))))
        return g.node("Squeeze", [x, g.ints(axes)])
    if op == "Unsqueeze":
        if len(shape) >= 6:
            raise Invalid("rank 6 already")
        axis = g.between(0, len(shape))
        return g.node("Unsqueeze", [x, g.ints([axis])])
    if elements == 0:
        raise Invalid("reshaping an empty tensor")
    target = []
    rest = elements
    for _ in range(g.between(1, 6) - 1):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        target.append(g.pick(divisors))
        rest //= target[-1]
    target.append(rest)
    target = [int(d) for d in g.rng.permutation(target)]
    if g.chance(0.5):
        target[g.between(0, len(target) - 1)] = -1
    elif g.chance(0.3):
        same = [i for i in range(min(len(target), len(shape))) if target[i] == shape[i]]
        if same:
            target[g.pick(same)] = 0
    return g.node("Reshape", [x, g.ints(target)])


def join(g, x):
    shape = g.shapes[x]
    rank = len(shape)
    if rank == 0:
        raise Invalid("concat needs rank 1 or more")
    axis = g.between(-rank, rank - 1)
    if g.chance(0.5):
        other = list(shape)
        other[axis] = g.between(0, 3)
        return g.node("Concat", [x, g.weight(tuple(other), 1.0), x], axis=axis)
    size = shape[axis]
    if size < 2:
        raise Invalid("nothing to split")
    first = g.between(1, size - 1)
    parts = g.node("Split", [x, g.ints([first, size - first])], outputs=2, axis=axis)
    return g.node("Concat", [parts[1], parts[0]], axis=axis) if g.chance(0.5) else g.pick(parts)


def slice_(g, x):
    shape = g.shapes[x]
    if not shape:
        raise Invalid("slice needs rank 1 or more")
    axes = sorted(set(g.between(0, len(shape) - 1) for _ in range(g.between(1, len(shape)))))
    starts, ends, steps = [], [], []
    for axis in axes:
        size = shape[axis]
        step = g.pick([1, 1, 2, -1])
        # Slice clamps its bounds: any integers are valid, an empty range included.
        start, end = sorted([g.between(-size - 1, size + 1), g.between(-size - 1, size + 1)])
        if step < 0:
            start, end = end, start
        starts.append(start)
        ends.append(end)
        steps.append(step)
    return g.node("Slice", [x, g.ints(starts), g.ints(ends), g.ints([a - len(shape) if g.chance(0.3) else a for a in axes]), g.ints(steps)])


def pad(g, x):
    rank = len(g.shapes[x])
    if rank == 0:
        raise Invalid("pad needs rank 1 or more")
    mode = g.pick(["constant", "constant", "edge", "reflect"])
    pads = [g.between(0, 2) if g.chance(0.5) else 0 for _ in range(2 * rank)]
    if mode == "reflect" and g.chance(0.8):
        # Mostly within what reflection defines (pads smaller than the dimension); the rest tests
        # the refusal.
        pads = [min(p, max(0, g.shapes[x][i % rank] - 1)) for i, p in enumerate(pads)]
    inputs = [x, g.ints(pads)]
    if mode == "constant" and g.chance(0.5):
        inputs.append(g.constant(np.float32(g.pick([0.5, -1.0]))))
    return g.node("Pad", inputs, mode=mode)


def reduce(g, x):
    shape = g.shapes[x]
    if not shape:
        raise Invalid("reduce needs rank 1 or more")
    op = g.pick(["ReduceMean", "ReduceSum", "ReduceMax"])
    axes = sorted(set(g.between(-len(shape), len(shape) - 1) for _ in range(g.between(1, len(shape)))), key=lambda a: a % len(shape))
    keep = int(g.chance(0.5))
    if 0 in shape:
        # onnxruntime 1.20 returns an empty tensor for a reduction over an empty set, where the
        # specification defines its identity value (0, -inf, NaN), and keeps the input's shape when
        # a kept axis is empty: no oracle.
        raise Invalid("a reduction of an empty tensor")
    if g.opset >= 18 or op == "ReduceSum":
        return g.node(op, [x, g.ints(axes)], keepdims=keep)
    return g.node(op, [x], axes=axes, keepdims=keep)


def expand(g, x):
    shape = g.shapes[x]
    if len(shape) >= 6:
        raise Invalid("rank 6 already")
    target = [g.between(1, 3)] * g.between(0, 1) + [d if d != 1 else g.between(1, 3) for d in shape]
    return g.node("Expand", [x, g.ints(target)])


def resize(g, x):
    if len(g.shapes[x]) != 4:
        raise Invalid("resize needs rank 4")
    scales = g.constant(np.asarray([1, 1, g.pick([1, 2]), g.pick([1, 2, 3])], dtype=np.float32))
    return g.node("Resize", [x, "", scales], mode="nearest")


def gather(g, x):
    shape = g.shapes[x]
    if not shape or shape[0] == 0:
        raise Invalid("gather needs a non-empty dimension")
    axis = g.between(0, len(shape) - 1)
    if shape[axis] == 0:
        raise Invalid("gather from an empty axis")
    indices = g.rng.integers(-shape[axis], shape[axis], size=g.pick([(), (2,), (1, 3)]))
    return g.node("Gather", [x, g.ints(indices)], axis=axis)


OPERATORS = [conv, conv, pool, gemm, matmul, binary, binary, select, unary, unary, softmax, normalization, transpose, reshape, reshape, join, slice_, pad, reduce, expand, resize, gather]


def input_shape(g):
    rank = g.pick([1, 2, 2, 3, 4, 4, 4, 4, 5, 6])
    shape = [g.between(1, 4) for _ in range(rank)]
    if rank >= 4:
        shape[-1] = g.between(3, 12)
        shape[-2] = g.between(3, 12)
    if g.chance(0.04):
        shape[g.between(0, rank - 1)] = 0
    return shape


def generate(seed):
    """A random model and its inputs for `seed`; raises Invalid when the draw is not usable."""
    rng = np.random.default_rng(seed)
    g = Graph(rng, OPSETS[int(rng.integers(len(OPSETS)))])
    x = g.input(input_shape(g))
    values = [x]
    if g.chance(0.2):
        values.append(g.input(list(g.shapes[x])))
    for _ in range(g.between(1, 5)):
        # An operator that does not apply to the value drawn is drawn again.
        for attempt in range(20):
            source = g.pick(values)
            try:
                result = g.pick(OPERATORS)(g, source)
                break
            except Invalid:
                if attempt == 19:
                    raise
        if len(values) > 1 and g.chance(0.3):
            other = g.pick(values)
            if _broadcasts(g.shapes[result], g.shapes[other]):
                result = g.node("Add", [result, other])
        values.append(result)
    outputs = [values[-1]] + ([values[-2]] if len(values) > 2 and g.chance(0.2) else [])
    model = g.model(outputs)
    onnx.checker.check_model(model, full_check=True)
    inputs = [rng.uniform(-1, 1, size=g.shapes[i.name]).astype(np.float32) for i in g.inputs]
    return model, inputs


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False
