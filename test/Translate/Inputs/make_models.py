#!/usr/bin/env python3
"""Writes the small ONNX models that the test/Translate lit tests import.

    make_models.py model NAME OUT.onnx [--truncate BYTES]   write model NAME (cut to BYTES bytes)
    make_models.py weights FILE.safetensors                 list a safetensors file's tensors
    make_models.py list                                      list the model names

Each model is a miniature of what torch.onnx exports for one of the networks Turbine imports
(ResNet, MobileNet-V2, Inception, BERT, ViT), or a model that is wrong in exactly one way, for
the error tests. Weights are seeded random numbers, so the files are the same on every run.
Models are built with onnx.helper and never checked with onnx.checker: some are invalid on purpose.
"""

import argparse
import json
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
FLOAT16, BFLOAT16, INT8, UINT8 = TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.INT8, TensorProto.UINT8
MODELS = {}


def model(name):
    """Registers a model-building function under `name`."""

    def register(function):
        MODELS[name] = function
        return function

    return register


class Graph:
    """Collects nodes, initializers, inputs and outputs; `op` returns the output name(s)."""

    def __init__(self, seed=0):
        self.nodes, self.initializers, self.inputs, self.outputs = [], [], [], []
        self.random = np.random.default_rng(seed)
        self.count = 0

    def input(self, name, elem_type, shape):
        self.inputs.append(helper.make_tensor_value_info(name, elem_type, shape))
        return name

    def output(self, name, elem_type=FLOAT, shape=None):
        self.outputs.append(helper.make_tensor_value_info(name, elem_type, shape))

    def weight(self, name, shape, scale=0.5, dtype=np.float32):
        values = (self.random.standard_normal(shape) * scale).astype(dtype)
        self.initializers.append(numpy_helper.from_array(values, name))
        return name

    def const(self, name, values, dtype=np.int64):
        self.initializers.append(numpy_helper.from_array(np.array(values, dtype=dtype), name))
        return name

    def op(self, op_type, inputs, outputs=1, name=None, **attributes):
        self.count += 1
        name = name or f"/{op_type.lower()}_{self.count}"
        names = [f"{name}_out{i}" for i in range(outputs)] if isinstance(outputs, int) else outputs
        self.nodes.append(helper.make_node(op_type, inputs, names, name=name, **attributes))
        return names[0] if len(names) == 1 else names

    def model(self, name, opset):
        graph = helper.make_graph(self.nodes, name, self.inputs, self.outputs, self.initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


@model("resnet-block")
def resnet_block():
    """A ResNet basic block with stem and head: Conv, BatchNormalization, Relu, MaxPool, Add,
    GlobalAveragePool, Flatten, Gemm."""
    g = Graph()
    x = g.input("input", FLOAT, [1, 3, 16, 16])
    c = g.op("Conv", [x, g.weight("conv1.weight", [8, 3, 3, 3]), g.weight("conv1.bias", [8])],
             name="/conv1/Conv", pads=[1, 1, 1, 1], strides=[1, 1], kernel_shape=[3, 3])
    bn = g.op("BatchNormalization", [c, g.weight("bn1.scale", [8]), g.weight("bn1.bias", [8]),
                                     g.weight("bn1.mean", [8]), g.const("bn1.var", np.linspace(0.5, 2, 8), np.float32)],
              name="/bn1/BatchNormalization", epsilon=1e-5)
    r = g.op("Relu", [bn], name="/relu/Relu")
    p = g.op("MaxPool", [r], name="/maxpool/MaxPool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c2 = g.op("Conv", [p, g.weight("conv2.weight", [8, 8, 1, 1])], name="/conv2/Conv")
    s = g.op("Add", [p, c2], name="/add/Add")
    r2 = g.op("Relu", [s], name="/relu_1/Relu")
    gap = g.op("GlobalAveragePool", [r2], name="/avgpool/GlobalAveragePool")
    f = g.op("Flatten", [gap], name="/Flatten", axis=1)
    g.op("Gemm", [f, g.weight("fc.weight", [10, 8]), g.weight("fc.bias", [10])], ["logits"],
         name="/fc/Gemm", transB=1)
    g.output("logits", FLOAT, [1, 10])
    return g.model("resnet_block", 13)


@model("mobilenet-block")
def mobilenet_block():
    """MobileNet-V2 pieces: SAME_UPPER/SAME_LOWER padding, Clip as ReLU6 with constant bounds, a
    depthwise convolution, AveragePool with ceil_mode and count_include_pad, ReduceMean."""
    g = Graph(1)
    x = g.input("image", FLOAT, [1, 4, 15, 15])
    c = g.op("Conv", [x, g.weight("expand.weight", [8, 4, 3, 3])], name="/expand/Conv",
             auto_pad="SAME_UPPER", strides=[2, 2])
    r6 = g.op("Clip", [c, g.const("zero", 0.0, np.float32), g.const("six", 6.0, np.float32)], name="/relu6/Clip")
    d = g.op("Conv", [r6, g.weight("dw.weight", [8, 1, 3, 3])], name="/dw/Conv", group=8, pads=[1, 1, 1, 1])
    s = g.op("Conv", [d, g.weight("project.weight", [8, 8, 2, 2])], name="/project/Conv", auto_pad="SAME_LOWER")
    top = g.op("Clip", [s, "", g.const("cap", 4.0, np.float32)], name="/cap/Clip")
    a = g.op("AveragePool", [top], name="/pool/AveragePool", kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1], count_include_pad=1, ceil_mode=1)
    g.op("ReduceMean", [a], ["features"], name="/mean/ReduceMean", axes=[2, 3], keepdims=0)
    g.output("features", FLOAT, [1, 8])
    return g.model("mobilenet_block", 13)


@model("inception-block")
def inception_block():
    """GoogLeNet (Inception v1) pieces: LRN, parallel branches joined by Concat, pooling with
    ceil_mode, Dropout, Softmax."""
    g = Graph(2)
    x = g.input("data_0", FLOAT, [1, 8, 12, 12])
    n = g.op("LRN", [x], name="norm1", size=5, alpha=1e-4, beta=0.75, bias=1.0)
    a = g.op("Relu", [g.op("Conv", [n, g.weight("a.w", [4, 8, 1, 1]), g.weight("a.b", [4])], name="branch_a")],
             name="branch_a_relu")
    b = g.op("Conv", [g.op("MaxPool", [n], name="branch_b_pool", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      g.weight("b.w", [4, 8, 1, 1])], name="branch_b")
    c = g.op("Conv", [g.op("AveragePool", [n], name="branch_c_pool", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                      g.weight("c.w", [4, 8, 1, 1])], name="branch_c")
    cat = g.op("Concat", [a, b, c], name="inception_output", axis=1)
    p = g.op("MaxPool", [cat], name="pool2", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    drop = g.op("Dropout", [p], name="drop")
    gap = g.op("GlobalAveragePool", [drop], name="pool5")
    flat = g.op("Reshape", [gap, g.const("flat_shape", [1, -1])], name="flatten")
    logits = g.op("Gemm", [flat, g.weight("fc.w", [12, 5]), g.weight("fc.b", [5])], name="loss3_classifier")
    g.op("Softmax", [logits], ["prob_1"], name="prob", axis=1)
    g.output("prob_1", FLOAT, [1, 5])
    return g.model("inception_block", 13)


def shape_reshape(g, x, tail, prefix):
    """torch's view(x.size(0), x.size(1), *tail): Shape, Gather, Unsqueeze, Concat, Reshape."""
    s = g.op("Shape", [x], name=f"{prefix}/Shape")
    dims = [g.op("Unsqueeze", [g.op("Gather", [s, g.const(f"{prefix}.i{i}", i)], name=f"{prefix}/Gather_{i}", axis=0),
                               g.const(f"{prefix}.axes{i}", [0])], name=f"{prefix}/Unsqueeze_{i}") for i in (0, 1)]
    shape = g.op("Concat", dims + [g.const(f"{prefix}.tail", tail)], name=f"{prefix}/Concat", axis=0)
    return g.op("Reshape", [x, shape], name=f"{prefix}/Reshape")


@model("bert-layer")
def bert_layer():
    """A BERT encoder layer as torch.onnx (opset 14) writes it: symbolic batch and sequence,
    embeddings by Gather, position ids sliced to the sequence length, LayerNorm decomposed into
    ReduceMean/Sub/Pow/Sqrt/Div, head reshapes through shape subgraphs, the attention mask, and
    GELU through Erf."""
    g = Graph(3)
    ids = g.input("input_ids", INT64, ["batch", "sequence"])
    mask = g.input("attention_mask", INT64, ["batch", "sequence"])
    word = g.op("Gather", [g.weight("word_embeddings", [30, 16]), ids], name="/embeddings/word/Gather")
    seq = g.op("Unsqueeze", [g.op("Gather", [g.op("Shape", [ids], name="/embeddings/Shape"), g.const("one", 1)],
                                  name="/embeddings/Gather"), g.const("axes0", [0])], name="/embeddings/Unsqueeze")
    pos_ids = g.op("Slice", [g.const("position_ids", [list(range(16))]), g.const("zero1", [0]), seq, g.const("axis1", [1])],
                   name="/embeddings/Slice")
    pos = g.op("Gather", [g.weight("position_embeddings", [16, 16]), pos_ids], name="/embeddings/position/Gather")
    emb = g.op("Add", [word, pos], name="/embeddings/Add")
    mean = g.op("ReduceMean", [emb], name="/ln/ReduceMean", axes=[-1])
    diff = g.op("Sub", [emb, mean], name="/ln/Sub")
    var = g.op("ReduceMean", [g.op("Pow", [diff, g.const("two", 2.0, np.float32)], name="/ln/Pow")],
               name="/ln/ReduceMean_1", axes=[-1])
    std = g.op("Sqrt", [g.op("Add", [var, g.const("eps", 1e-12, np.float32)], name="/ln/Add")], name="/ln/Sqrt")
    norm = g.op("Div", [diff, std], name="/ln/Div")
    ln = g.op("Add", [g.op("Mul", [norm, g.weight("ln.gamma", [16])], name="/ln/Mul"), g.weight("ln.beta", [16])],
              name="/ln/Add_1")

    def project(name, x):
        y = g.op("MatMul", [x, g.weight(f"{name}.weight", [16, 16])], name=f"/{name}/MatMul")
        return g.op("Add", [y, g.weight(f"{name}.bias", [16])], name=f"/{name}/Add")

    q = g.op("Transpose", [shape_reshape(g, project("query", ln), [2, 8], "/q")], name="/q/Transpose", perm=[0, 2, 1, 3])
    k = g.op("Transpose", [shape_reshape(g, project("key", ln), [2, 8], "/k")], name="/k/Transpose", perm=[0, 2, 3, 1])
    v = g.op("Transpose", [shape_reshape(g, project("value", ln), [2, 8], "/v")], name="/v/Transpose", perm=[0, 2, 1, 3])
    scores = g.op("MatMul", [q, k], name="/attention/MatMul")
    head = g.op("Cast", [g.op("Gather", [g.op("Shape", [q], name="/attention/Shape"), g.const("three", 3)],
                              name="/attention/Gather")], name="/attention/Cast", to=FLOAT)
    scores = g.op("Div", [scores, g.op("Sqrt", [head], name="/attention/Sqrt")], name="/attention/Div")
    ext = g.op("Cast", [g.op("Unsqueeze", [mask, g.const("axes12", [1, 2])], name="/mask/Unsqueeze")],
               name="/mask/Cast", to=FLOAT)
    bias = g.op("Mul", [g.op("Sub", [g.const("onef", 1.0, np.float32), ext], name="/mask/Sub"),
                        g.const("neg", -10000.0, np.float32)], name="/mask/Mul")
    probs = g.op("Softmax", [g.op("Add", [scores, bias], name="/attention/Add")], name="/attention/Softmax", axis=-1)
    context = g.op("Transpose", [g.op("MatMul", [probs, v], name="/attention/MatMul_1")],
                   name="/attention/Transpose", perm=[0, 2, 1, 3])
    s = g.op("Shape", [context], name="/context/Shape")
    dims = [g.op("Unsqueeze", [g.op("Gather", [s, g.const(f"c{i}", i)], name=f"/context/Gather_{i}"),
                               g.const(f"caxes{i}", [0])], name=f"/context/Unsqueeze_{i}") for i in (0, 1)]
    merged = g.op("Reshape", [context, g.op("Concat", dims + [g.const("hidden", [16])], name="/context/Concat", axis=0)],
                  name="/context/Reshape")
    out = project("output", merged)
    erf = g.op("Erf", [g.op("Div", [out, g.const("sqrt2", 1.4142135, np.float32)], name="/gelu/Div")], name="/gelu/Erf")
    gelu = g.op("Mul", [g.op("Mul", [out, g.op("Add", [erf, g.const("onef2", 1.0, np.float32)], name="/gelu/Add")],
                             name="/gelu/Mul"), g.const("half", 0.5, np.float32)], name="/gelu/Mul_1")
    g.op("Identity", [gelu], ["last_hidden_state"], name="/Identity")
    g.output("last_hidden_state", FLOAT, ["batch", "sequence", 16])
    return g.model("bert_layer", 14)


@model("vit-block")
def vit_block():
    """A ViT encoder block at opset 20: patch Conv, the class token expanded through
    Equal/Where/ConstantOfShape/Expand, LayerNormalization, Gelu, and the class token's Gather."""
    g = Graph(4)
    pixels = g.input("pixel_values", FLOAT, [1, 3, 8, 8])
    patches = g.op("Conv", [pixels, g.weight("patch.weight", [16, 3, 4, 4]), g.weight("patch.bias", [16])],
                   name="/patch/Conv", strides=[4, 4])
    tokens = g.op("Transpose", [g.op("Reshape", [patches, g.const("patch_shape", [1, 16, 4])], name="/patch/Reshape")],
                  name="/patch/Transpose", perm=[0, 2, 1])
    batch = g.op("Unsqueeze", [g.op("Gather", [g.op("Shape", [pixels], name="/cls/Shape"), g.const("b0", 0)],
                                    name="/cls/Gather"), g.const("ax0", [0])], name="/cls/Unsqueeze")
    target = g.op("Concat", [batch, g.const("minus", [-1, -1])], name="/cls/Concat", axis=0)
    ones = g.op("ConstantOfShape", [g.op("Shape", [target], name="/cls/Shape_1")], name="/cls/ConstantOfShape",
                value=helper.make_tensor("one", INT64, [1], [1]))
    fixed = g.op("Where", [g.op("Equal", [target, g.const("m1", -1)], name="/cls/Equal"), ones, target], name="/cls/Where")
    cls = g.op("Expand", [g.weight("cls_token", [1, 1, 16]), fixed], name="/cls/Expand")
    x = g.op("Add", [g.op("Concat", [cls, tokens], name="/Concat", axis=1), g.weight("position_embeddings", [1, 5, 16])],
             name="/embeddings/Add")
    ln = g.op("LayerNormalization", [x, g.weight("ln.weight", [16]), g.weight("ln.bias", [16])],
              name="/ln/LayerNormalization", axis=-1, epsilon=1e-6)
    h = g.op("Add", [g.op("MatMul", [ln, g.weight("fc1.weight", [16, 32])], name="/fc1/MatMul"),
                     g.weight("fc1.bias", [32])], name="/fc1/Add")
    h = g.op("Gelu", [h], name="/act/Gelu")
    h = g.op("Add", [g.op("MatMul", [h, g.weight("fc2.weight", [32, 16])], name="/fc2/MatMul"),
                     g.weight("fc2.bias", [16])], name="/fc2/Add")
    y = g.op("Add", [x, h], name="/residual/Add")
    first = g.op("Gather", [y, g.const("zero", 0)], name="/pool/Gather", axis=1)
    g.op("Gemm", [first, g.weight("head.weight", [3, 16]), g.weight("head.bias", [3])], ["logits"],
         name="/head/Gemm", transB=1)
    g.output("logits", FLOAT, [1, 3])
    return g.model("vit_block", 20)


@model("shape-folding")
def shape_folding():
    """Shape arithmetic that must vanish at import: Shape (with start), Gather, Mul, Unsqueeze,
    Concat, Range, Mod, Equal, Cast, ConstantOfShape, Expand; and Slice with a negative start, a
    clamped end and a step."""
    g = Graph(5)
    x = g.input("x", FLOAT, [2, 3, 4])
    s = g.op("Shape", [x], name="shape")
    last = g.op("Shape", [x], name="shape_tail", start=-2)
    inner = g.op("Mul", [g.op("Gather", [last, g.const("i0", 0)], name="rows"),
                         g.op("Gather", [last, g.const("i1", 1)], name="cols")], name="inner")
    batch = g.op("Unsqueeze", [g.op("Gather", [s, g.const("j0", 0)], name="batch"), g.const("a0", [0])], name="batch_1d")
    flat_shape = g.op("Concat", [batch, g.op("Unsqueeze", [inner, g.const("a1", [0])], name="inner_1d")],
                      name="flat_shape", axis=0)
    flat = g.op("Reshape", [x, flat_shape], name="flat")
    keep = g.op("Cast", [g.op("Equal", [g.op("Mod", [g.op("Range", [g.const("start", 0), inner, g.const("step", 1)],
                                                              name="range"), g.const("three", 3)], name="mod"),
                                        g.const("zero", 0)], name="every_third")], name="mask", to=FLOAT)
    masked = g.op("Mul", [flat, keep], name="masked")
    ones = g.op("ConstantOfShape", [flat_shape], name="ones", value=helper.make_tensor("v", FLOAT, [1], [1.0]))
    shifted = g.op("Add", [masked, g.op("Expand", [g.const("half", [0.5], np.float32), flat_shape], name="halves")],
                   name="shifted")
    scaled = g.op("Mul", [shifted, ones], name="scaled")
    g.op("Slice", [scaled, g.const("starts", [-5]), g.const("ends", [1000]), g.const("axes", [1]), g.const("steps", [2])],
         ["tail"], name="tail")
    g.output("tail", FLOAT, [2, 3])
    return g.model("shape_folding", 17)


@model("repeated-constant")
def repeated_constant():
    """Folded constants that repeat along a dimension, as exports expand token-type embeddings
    over the batch: Gather of a table by constant all-zero ids [2, 3], and Expand of a [3, 4]
    initializer to [2, 3, 4]."""
    g = Graph(6)
    x = g.input("x", FLOAT, [2, 3, 4])
    kinds = g.op("Gather", [g.weight("kinds", [5, 4]), g.const("ids", np.zeros((2, 3)))], name="kinds", axis=0)
    spread = g.op("Expand", [g.weight("positions", [3, 4]), g.const("shape", [2, 3, 4])], name="spread")
    g.op("Add", [g.op("Add", [x, kinds], name="plus_kinds"), spread], ["y"], name="y")
    g.output("y", FLOAT, [2, 3, 4])
    return g.model("repeated_constant", 17)


@model("matmul-vectors")
def matmul_vectors():
    """MatMul with 1-D operands (promoted by reshapes) and with batches."""
    g = Graph(6)
    v = g.input("v", FLOAT, [4])
    m = g.input("m", FLOAT, [4, 3])
    b = g.input("b", FLOAT, [2, 5, 4])
    c = g.input("c", FLOAT, [2, 4, 3])
    g.op("MatMul", [v, m], ["vm"], name="vector_matrix")
    g.op("MatMul", [b, v], ["bv"], name="batch_vector")
    g.op("MatMul", [v, v], ["dot"], name="dot")
    g.op("MatMul", [b, c], ["bc"], name="batched")
    g.op("MatMul", [b, m], ["bm"], name="broadcast_rhs")
    for name, shape in [("vm", [3]), ("bv", [2, 5]), ("dot", []), ("bc", [2, 5, 3]), ("bm", [2, 5, 3])]:
        g.output(name, FLOAT, shape)
    return g.model("matmul_vectors", 13)


@model("movement")
def movement():
    """Data movement at opset 18: Slice, Pad (constant with axes, reflect), Split with
    num_outputs, Transpose, Squeeze/Unsqueeze, Gather with run-time indices, Expand, Concat,
    reductions with axes inputs, and variadic Sum/Max/Min."""
    g = Graph(7)
    x = g.input("x", FLOAT, [2, 6, 5])
    idx = g.input("idx", INT64, [3])
    g.op("Slice", [x, g.const("starts", [-4, 1]), g.const("ends", [2**63 - 1, 100]), g.const("axes", [1, 2]),
                   g.const("steps", [2, 3])], ["sliced"], name="slice")
    g.op("Pad", [x, g.const("pads", [1, 2, 0, 1]), g.const("pad_value", 0.5, np.float32), g.const("pad_axes", [2, 1])],
         ["padded"], name="pad", mode="constant")
    g.op("Pad", [x, g.const("rpads", [0, 0, 1, 0, 0, 2])], ["reflected"], name="reflect", mode="reflect")
    a, b, c = g.op("Split", [x], ["a", "b", "c"], name="split", axis=1, num_outputs=3)
    g.op("Transpose", [a], ["transposed"], name="transpose", perm=[2, 0, 1])
    u = g.op("Unsqueeze", [b, g.const("uaxes", [0, -1])], name="unsqueeze")
    sq = g.op("Squeeze", [u], name="squeeze")
    g.op("Concat", [c, sq], ["joined"], name="concat", axis=0)
    g.op("Gather", [x, idx], ["gathered"], name="gather", axis=1)
    g.op("Expand", [g.weight("row", [5]), g.const("eshape", [2, 1, 5])], ["expanded"], name="expand")
    rs = g.op("ReduceSum", [x, g.const("raxes", [1])], name="reduce_sum", keepdims=0)
    g.op("ReduceMax", [x, g.const("maxes", [-1])], ["rmax"], name="reduce_max")
    low = g.op("Min", [rs, g.const("cap", 2.0, np.float32)], name="min")
    g.op("Max", [low, g.op("Sum", [rs, rs, rs], name="sum"), rs], ["extremes"], name="max")
    for name, shape in [("sliced", [2, 2, 2]), ("padded", [2, 9, 6]), ("reflected", [2, 6, 8]),
                        ("transposed", [5, 2, 2]), ("joined", [4, 2, 5]), ("gathered", [2, 3, 5]),
                        ("expanded", [2, 1, 5]), ("rmax", [2, 6, 1]), ("extremes", [2, 5])]:
        g.output(name, FLOAT, shape)
    return g.model("movement", 18)


@model("elementwise")
def elementwise():
    """Elementwise operators: activations and functions, Pow with an integer exponent, Mod with
    fmod, comparisons, Where, Cast, Clip with one bound, GlobalMaxPool."""
    g = Graph(8)
    x = g.input("x", FLOAT, [1, 2, 3, 3])
    y = x
    for op in ["Exp", "Log", "Neg", "Abs", "Reciprocal", "Sigmoid", "Tanh", "Sqrt", "Erf"]:
        y = g.op(op, [y], name=op.lower())
    y = g.op("Pow", [y, g.const("cube", 3)], name="pow")
    y = g.op("Mod", [y, g.const("modulus", 0.75, np.float32)], name="mod", fmod=1)
    y = g.op("Clip", [y, g.const("floor", -1.0, np.float32)], name="clip")
    cond = g.op("Less", [x, y], name="less")
    g.op("Where", [cond, x, y], ["selected"], name="where")
    g.op("Cast", [g.op("Greater", [x, g.const("limit", 0.5, np.float32)], name="greater")], ["as_int"],
         name="cast", to=INT64)
    g.op("GlobalMaxPool", [x], ["gmax"], name="global_max")
    g.output("selected", FLOAT, [1, 2, 3, 3])
    g.output("as_int", INT64, [1, 2, 3, 3])
    g.output("gmax", FLOAT, [1, 2, 1, 1])
    return g.model("elementwise", 13)


@model("activations")
def activations():
    """The parametric activations and Mean, which the importer composes from elementwise ops, on
    values of both signs (the input shifted down by 1)."""
    g = Graph(9)
    x = g.op("Sub", [g.input("x", FLOAT, [2, 3, 4]), g.const("one", 1.0, np.float32)], name="shift")
    ops = [("LeakyRelu", {"alpha": 0.1}), ("Elu", {"alpha": 0.5}), ("Selu", {}), ("Celu", {"alpha": 2.0}),
           ("Softplus", {}), ("Mish", {}), ("Softsign", {}), ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}),
           ("HardSwish", {}), ("ThresholdedRelu", {"alpha": 0.2}), ("Shrink", {"bias": 0.1, "lambd": 0.3}),
           ("Sign", {})]
    for op, attributes in ops:
        g.op(op, [x], [op.lower()], name=op.lower(), **attributes)
        g.output(op.lower(), FLOAT, [2, 3, 4])
    g.op("PRelu", [x, g.weight("slope", [3, 1])], ["prelu"], name="prelu")
    g.op("Mean", [x, g.weight("other", [4]), "x"], ["mean"], name="mean")
    g.output("prelu", FLOAT, [2, 3, 4])
    g.output("mean", FLOAT, [2, 3, 4])
    return g.model("activations", 18)


@model("composed")
def composed():
    """Normalisations, reductions and movement that the importer composes: LogSoftmax, the derived
    reductions, InstanceNormalization, LayerNormalization's statistics outputs, Tile, Trilu,
    CastLike."""
    g = Graph(10)
    x = g.input("x", FLOAT, [2, 3, 4])
    centered = g.op("Sub", [x, g.const("one", 1.0, np.float32)], name="shift")
    g.op("LogSoftmax", [centered], ["log_softmax"], name="log_softmax", axis=1)
    for op, keepdims, axes in [("ReduceMin", 1, [1]), ("ReduceSumSquare", 0, [0, 2]), ("ReduceL1", 1, [-1]),
                               ("ReduceL2", 0, [1]), ("ReduceLogSum", 1, [2]), ("ReduceLogSumExp", 0, [1, 2])]:
        g.op(op, [centered if op != "ReduceLogSum" else x, g.const(f"{op}_axes", axes)], [op.lower()],
             name=op.lower(), keepdims=keepdims)
    g.op("InstanceNormalization", [centered, g.weight("in_scale", [3]), g.weight("in_bias", [3])],
         ["instance_norm"], name="instance_norm", epsilon=1e-3)
    g.op("LayerNormalization", [centered, g.weight("ln_scale", [4])], ["layer_norm", "ln_mean", "ln_inv"],
         name="layer_norm", axis=-1)
    g.op("Tile", [centered, g.const("repeats", [1, 2, 3])], ["tiled"], name="tile")
    g.op("Trilu", [centered, g.const("k", 1)], ["upper"], name="triu")
    g.op("Trilu", [centered], ["lower"], name="tril", upper=0)
    g.op("CastLike", [g.op("Greater", [x, g.const("half", 1.0, np.float32)], name="greater"),
                      g.const("like", [0.0], np.float32)], ["cast_like"], name="cast_like")
    for name, shape in [("log_softmax", [2, 3, 4]), ("reducemin", [2, 1, 4]), ("reducesumsquare", [3]),
                        ("reducel1", [2, 3, 1]), ("reducel2", [2, 4]), ("reducelogsum", [2, 3, 1]),
                        ("reducelogsumexp", [2]), ("instance_norm", [2, 3, 4]), ("layer_norm", [2, 3, 4]),
                        ("ln_mean", [2, 3, 1]), ("ln_inv", [2, 3, 1]), ("tiled", [2, 6, 12]), ("upper", [2, 3, 4]),
                        ("lower", [2, 3, 4]), ("cast_like", [2, 3, 4])]:
        g.output(name, FLOAT, shape)
    return g.model("composed", 18)


@model("audio-cnn")
def audio_cnn():
    """A 1-D CNN over audio frames (NCL): strided and dilated convolutions, SAME padding, a grouped
    convolution, max and average pooling, as torch.onnx exports nn.Conv1d and its pools."""
    g = Graph(11)
    x = g.input("frames", FLOAT, [2, 4, 32])
    y = g.op("Conv", [x, g.weight("w1", [8, 4, 5]), g.weight("b1", [8])], name="/conv1/Conv",
             strides=[2], pads=[3, 2], dilations=[2])
    y = g.op("Relu", [y], name="/relu1/Relu")
    y = g.op("MaxPool", [y], name="/pool1/MaxPool", kernel_shape=[3], strides=[2], pads=[1, 1])
    y = g.op("Conv", [y, g.weight("w2", [8, 2, 3])], name="/conv2/Conv", group=4, auto_pad="SAME_UPPER")
    g.op("AveragePool", [y], ["features"], name="/pool2/AveragePool", kernel_shape=[2], strides=[2],
         ceil_mode=1)
    g.output("features", FLOAT, [2, 8, 4])
    return g.model("audio-cnn", 17)


@model("indexing")
def indexing():
    """Index results and run-time indices: ArgMax and ArgMin (i64 results), GatherElements with
    indices computed at run time, the logical operators on comparisons, OneHot and Hardmax."""
    g = Graph(13)
    x = g.input("x", FLOAT, [3, 5])
    picks = g.input("picks", INT64, [3, 2])
    g.op("ArgMax", [x], ["argmax"], name="argmax", axis=1, keepdims=0)
    g.op("ArgMin", [x], ["argmin"], name="argmin", axis=0, select_last_index=1)
    g.op("GatherElements", [x, picks], ["picked"], name="gather_elements", axis=1)
    big = g.op("Greater", [x, g.const("one", 1.0, np.float32)], name="greater")
    small = g.op("Less", [x, g.const("half", 0.5, np.float32)], name="less")
    both = g.op("And", [big, g.op("Not", [small], name="not")], name="and")
    either = g.op("Or", [both, small], name="or")
    g.op("Cast", [g.op("Xor", [either, big], name="xor")], ["logic"], name="cast", to=FLOAT)
    g.op("OneHot", [picks, g.const("depth", 4), g.const("on_off", [-1.0, 5.0], np.float32)], ["one_hot"],
         name="one_hot", axis=1)
    g.op("Hardmax", [x], ["hardmax"], name="hardmax", axis=0)
    g.output("argmax", INT64, [3])
    g.output("argmin", INT64, [1, 5])
    g.output("picked", FLOAT, [3, 2])
    g.output("logic", FLOAT, [3, 5])
    g.output("one_hot", FLOAT, [3, 4, 2])
    g.output("hardmax", FLOAT, [3, 5])
    return g.model("indexing", 18)


@model("element-types")
def element_types():
    """f16, bf16, int8 and uint8 (opset 17): an f16 convolution with an f16 weight and bias, Relu,
    LeakyRelu (its alpha an f16 constant) and Softmax; casts of f16 to f32 and through bf16 (to
    nearest even); a uint8 input cast to f16 and times 1.5 (exact in f16, so onnxruntime, which
    computes f16 ops in f32 and may skip the rounding before a cast, agrees), cast to int8 and
    uint8 (x.5 truncates, values past 127 or 255 wrap), transposed, concatenated and selected by
    Where on an f16 comparison; an int8 table (stored in int32_data) gathered at run-time
    positions."""
    g = Graph(14)
    x = g.input("x", FLOAT16, [1, 2, 4, 4])
    pixels = g.input("pixels", UINT8, [1, 2, 4, 4])
    positions = g.input("positions", INT64, [3])
    conv = g.op("Conv", [x, g.weight("w", [3, 2, 3, 3], dtype=np.float16), g.weight("b", [3], dtype=np.float16)],
                name="conv", pads=[1, 1, 1, 1])
    relu = g.op("Relu", [conv], name="relu")
    g.op("Softmax", [relu], ["probs"], name="softmax", axis=1)
    g.op("LeakyRelu", [conv], ["leaky"], name="leaky", alpha=0.1)
    g.op("Cast", [x], ["as_float"], name="to_float", to=FLOAT)
    g.op("Cast", [g.op("Cast", [x], name="to_bf16", to=BFLOAT16)], ["via_bf16"], name="from_bf16", to=FLOAT)
    half = g.op("Cast", [pixels], name="to_half", to=FLOAT16)
    scaled = g.op("Mul", [half, g.const("one_and_a_half", 1.5, np.float16)], name="scale")
    g.op("Cast", [scaled], ["as_int8"], name="to_int8", to=INT8)
    g.op("Cast", [scaled], ["as_uint8"], name="to_uint8", to=UINT8)
    g.op("Mul", [half, x], ["weighted"], name="weight")
    flipped = g.op("Transpose", [pixels], name="transpose", perm=[0, 1, 3, 2])
    g.op("Concat", [pixels, flipped], ["stacked"], name="concat", axis=1)
    bright = g.op("Greater", [x, g.const("one", 1.0, np.float16)], name="greater")
    g.op("Where", [bright, flipped, g.const("seven", 7, np.uint8)], ["picked"], name="where")
    g.initializers.append(helper.make_tensor("table", INT8, [4], [-3, 5, 127, -128]))
    g.op("Gather", ["table", positions], ["gathered"], name="gather")
    for name, elem_type, shape in [("probs", FLOAT16, [1, 3, 4, 4]), ("leaky", FLOAT16, [1, 3, 4, 4]),
                                   ("as_float", FLOAT, [1, 2, 4, 4]), ("via_bf16", FLOAT, [1, 2, 4, 4]),
                                   ("as_int8", INT8, [1, 2, 4, 4]), ("as_uint8", UINT8, [1, 2, 4, 4]),
                                   ("stacked", UINT8, [1, 4, 4, 4]), ("picked", UINT8, [1, 2, 4, 4]),
                                   ("weighted", FLOAT16, [1, 2, 4, 4]), ("gathered", INT8, [3])]:
        g.output(name, elem_type, shape)
    return g.model("element_types", 17)


@model("qdq")
def qdq():
    """A quantized model in the QDQ form onnxruntime's quantizer writes (opset 13): the input
    quantized to uint8 and dequantized; a Conv whose int8 filter is dequantized per output channel
    (axis 0, zero points 0) with an f32 bias; Relu, quantized and dequantized again; a MatMul with
    an int8 weight dequantized per tensor; the result quantized and dequantized."""
    g = Graph(21)
    x = g.input("x", FLOAT, [1, 2, 4, 4])

    def qdq_pair(value, scale, zero, name):
        scale = g.const(f"{name}_scale", scale, np.float32)
        zero = g.const(f"{name}_zero", zero, np.uint8)
        quantized = g.op("QuantizeLinear", [value, scale, zero], name=f"{name}_q")
        return g.op("DequantizeLinear", [quantized, scale, zero], name=f"{name}_dq")

    filter_values = g.random.integers(-127, 128, [3, 2, 3, 3]).astype(np.int8)
    g.initializers.append(numpy_helper.from_array(filter_values, "w_int8"))
    w = g.op("DequantizeLinear", ["w_int8", g.const("w_scale", [0.01, 0.02, 0.03], np.float32),
                                  g.const("w_zero", [0, 0, 0], np.int8)], name="w_dq", axis=0)
    conv = g.op("Conv", [qdq_pair(x, 0.0078125, 128, "x"), w, g.weight("b", [3])], name="conv",
                pads=[1, 1, 1, 1])
    relu = g.op("Relu", [conv], name="relu")
    flat = g.op("Reshape", [qdq_pair(relu, 0.05, 0, "relu"), g.const("flat", [1, 48])], name="flatten")
    table = g.random.integers(-127, 128, [48, 5]).astype(np.int8)
    g.initializers.append(numpy_helper.from_array(table, "m_int8"))
    m = g.op("DequantizeLinear", ["m_int8", g.const("m_scale", 0.004, np.float32),
                                  g.const("m_zero", 0, np.int8)], name="m_dq")
    product = g.op("MatMul", [flat, m], name="matmul")
    g.op("Identity", [qdq_pair(product, 0.1, 100, "y")], ["y"], name="out")
    g.output("y", FLOAT, [1, 5])
    return g.model("qdq", 13)


@model("qdq-bad-scale")
def qdq_bad_scale():
    """QuantizeLinear with a per-axis scale of 2 values over an axis of 3."""
    g = Graph()
    g.input("x", FLOAT, [1, 3, 4])
    g.op("QuantizeLinear", ["x", g.const("s", [0.5, 0.25], np.float32), g.const("z", [0, 0], np.uint8)],
         ["y"], name="/quant/QuantizeLinear")
    g.output("y", UINT8, [1, 3, 4])
    return g.model("qdq_bad_scale", 13)


@model("double-input")
def double_input():
    """An input of float64, an element type Turbine does not handle."""
    g = Graph()
    g.input("x", TensorProto.DOUBLE, [2])
    g.op("Relu", ["x"], ["y"], name="relu")
    g.output("y", TensorProto.DOUBLE, [2])
    return g.model("double_input", 13)


@model("cast-to-double")
def cast_to_double():
    g = single("Cast", [], name="/to/Cast", to=TensorProto.DOUBLE)
    return g.model("cast_to_double", 13)


@model("top-k-f16")
def top_k_f16():
    """TopK on f16 data: graph.top_k takes f32 only."""
    g = Graph()
    g.input("x", FLOAT16, [2, 5])
    g.op("TopK", ["x", g.const("k", [2])], ["values", "indices"], name="/topk/TopK")
    g.output("values")
    g.output("indices")
    return g.model("top_k_f16", 13)


@model("max-pool-uint8")
def max_pool_uint8():
    """MaxPool on uint8 images: the graph dialect pools floats only."""
    g = Graph()
    g.input("x", UINT8, [1, 1, 4, 4])
    g.op("MaxPool", ["x"], ["y"], name="/pool/MaxPool", kernel_shape=[2, 2])
    g.output("y")
    return g.model("max_pool_uint8", 13)


@model("scatter")
def scatter():
    """ScatterElements with run-time indices and updates: replacing along the last axis (duplicate
    indices: the last wins), adding along the first axis with indices that span the data along
    neither, the maximum over a 3-D tensor split over the cores, multiplying by i32 indices, and
    constant negative indices."""
    g = Graph(14)
    x = g.input("x", FLOAT, [4, 6])
    rows = g.input("rows", INT64, [4, 3])
    updates = g.input("updates", FLOAT, [4, 3])
    g.op("ScatterElements", [x, rows, updates], ["replaced"], name="replaced", axis=1)
    g.op("ScatterElements", [x, rows, updates], ["added"], name="added", axis=0, reduction="add")
    volume = g.input("volume", FLOAT, [8, 16, 32])
    picks = g.input("picks", INT64, [8, 5, 32])
    g.op("ScatterElements", [volume, picks, g.input("peaks", FLOAT, [8, 5, 32])], ["maxed"],
         name="maxed", axis=1, reduction="max")
    narrow = g.op("Cast", [rows], name="narrow", to=TensorProto.INT32)
    g.op("ScatterElements", [x, narrow, updates], ["scaled"], name="scaled", axis=1, reduction="mul")
    g.op("ScatterElements", [x, g.const("back", [[-1, -6, 2]] * 4), updates], ["negative"], name="negative",
         axis=1)
    for name, shape in [("replaced", [4, 6]), ("added", [4, 6]), ("maxed", [8, 16, 32]), ("scaled", [4, 6]),
                        ("negative", [4, 6])]:
        g.output(name, FLOAT, shape)
    return g.model("scatter", 18)


def subgraph(name, nodes, inputs, outputs):
    """A body graph: `inputs` and `outputs` are (name, element type, shape)."""
    info = helper.make_tensor_value_info
    return helper.make_graph(nodes, name, [info(*i) for i in inputs], [info(*o) for o in outputs])


@model("control-flow")
def control_flow():
    """An If on a run-time sign whose branches read the outer graph's input and weight; an If on a
    constant (imported as its taken branch); a Loop of 3 iterations carrying a state and stacking
    each as a scan output, its body reading an outer weight; and a reversed Scan over a sequence."""
    g = Graph(47)
    x = g.input("x", FLOAT, [2, 4])
    w = g.weight("w", [4, 4])
    total = g.op("ReduceSum", [x], name="total", keepdims=0)
    positive = g.op("Greater", [total, g.const("zero", 0.0, np.float32)], name="positive")
    then_branch = subgraph("then", [helper.make_node("MatMul", [x, w], ["t"], name="then_mm")], [],
                           [("t", FLOAT, [2, 4])])
    else_branch = subgraph("else", [helper.make_node("Neg", [x], ["e"], name="else_neg")], [],
                           [("e", FLOAT, [2, 4])])
    g.op("If", [positive], ["chosen"], name="choose", then_branch=then_branch, else_branch=else_branch)
    g.op("If", [g.const("yes", True, np.bool_)], ["folded"], name="fold",
         then_branch=subgraph("yes", [helper.make_node("Relu", [x], ["r"], name="yes_relu")], [], [("r", FLOAT, [2, 4])]),
         else_branch=subgraph("no", [helper.make_node("Neg", [x], ["n"], name="no_neg")], [], [("n", FLOAT, [2, 4])]))
    cell = subgraph("cell", [helper.make_node("MatMul", ["h", w], ["hw"], name="cell_mm"),
                             helper.make_node("Tanh", ["hw"], ["h_next"], name="cell_tanh"),
                             helper.make_node("Identity", ["cond"], ["cond_out"], name="cell_cond"),
                             helper.make_node("Identity", ["h_next"], ["h_scan"], name="cell_scan")],
                    [("i", INT64, []), ("cond", BOOL, []), ("h", FLOAT, [2, 4])],
                    [("cond_out", BOOL, []), ("h_next", FLOAT, [2, 4]), ("h_scan", FLOAT, [2, 4])])
    g.op("Loop", [g.const("trips", 3), "", "chosen"], ["final", "states"], name="rnn", body=cell)
    sequence = g.input("sequence", FLOAT, [5, 4])
    summing = subgraph("sum", [helper.make_node("Add", ["s", "x_t"], ["s_next"], name="sum_add"),
                               helper.make_node("Identity", ["s_next"], ["y"], name="sum_y")],
                       [("s", FLOAT, [4]), ("x_t", FLOAT, [4])], [("s_next", FLOAT, [4]), ("y", FLOAT, [4])])
    g.op("Scan", [g.const("start", [0.0] * 4, np.float32), sequence], ["sum", "sums"], name="suffix", body=summing,
         num_scan_inputs=1, scan_input_directions=[1], scan_output_directions=[1])
    for name, shape in [("chosen", [2, 4]), ("folded", [2, 4]), ("final", [2, 4]), ("states", [3, 2, 4]),
                        ("sum", [4]), ("sums", [5, 4])]:
        g.output(name, FLOAT, shape)
    return g.model("control-flow", 17)


@model("if-mismatch")
def if_mismatch():
    """An If whose branches yield different shapes."""
    g = Graph()
    x = g.input("x", FLOAT, [2, 4])
    positive = g.op("Greater", [g.op("ReduceSum", [x], keepdims=0), g.const("zero", 0.0, np.float32)])
    g.op("If", [positive], ["y"], name="uneven",
         then_branch=subgraph("then", [helper.make_node("Relu", [x], ["t"])], [], [("t", FLOAT, [2, 4])]),
         else_branch=subgraph("else", [helper.make_node("ReduceSum", [x], ["e"], keepdims=0)], [], [("e", FLOAT, [])]))
    g.output("y", FLOAT, None)
    return g.model("if-mismatch", 17)


@model("loop-dynamic-scan")
def loop_dynamic_scan():
    """A Loop whose body's condition depends on the data and that stacks a scan output: how many
    slices it stacks is only known at run time."""
    g = Graph()
    x = g.input("x", FLOAT, [4])
    body = subgraph("body", [helper.make_node("Neg", ["v"], ["v_next"]),
                             helper.make_node("ReduceSum", ["v_next"], ["s"], keepdims=0),
                             helper.make_node("Greater", ["s", "zero"], ["again"]),
                             helper.make_node("Identity", ["v_next"], ["out"])],
                    [("i", INT64, []), ("cond", BOOL, []), ("v", FLOAT, [4])],
                    [("again", BOOL, []), ("v_next", FLOAT, [4]), ("out", FLOAT, [4])])
    g.const("zero", 0.0, np.float32)
    g.op("Loop", [g.const("trips", 5), "", x], ["final", "stacked"], name="flip", body=body)
    g.output("final", FLOAT, [4])
    g.output("stacked", FLOAT, None)
    return g.model("loop-dynamic-scan", 17)


@model("top-k")
def top_k():
    """TopK on run-time data: the 3 largest along the last axis (K an initializer, as opset 10 on
    has it) and the 2 smallest along the first, each with its f32 values and i64 indices."""
    g = Graph(11)
    x = g.input("x", FLOAT, [4, 6])
    g.op("TopK", [x, g.const("three", [3])], ["largest", "largest_at"], name="largest")
    g.op("TopK", [x, g.const("two", [2])], ["smallest", "smallest_at"], name="smallest", axis=0,
         largest=0)
    g.output("largest", FLOAT, [4, 3])
    g.output("largest_at", INT64, [4, 3])
    g.output("smallest", FLOAT, [2, 6])
    g.output("smallest_at", INT64, [2, 6])
    return g.model("top_k", 13)


@model("conv-transpose")
def conv_transpose():
    """ConvTranspose as decoders export it (a constant filter: strided, padded, grouped, with
    output_padding), with a filter computed at run time (1-D, dilated, output_shape), and with
    windows that tile the output (a pixel shuffle)."""
    g = Graph(12)
    x = g.input("x", FLOAT, [1, 4, 5, 6])
    g.op("ConvTranspose", [x, g.weight("w", [4, 3, 3, 3]), g.weight("b", [6])], ["up"], name="/up/ConvTranspose",
         strides=[2, 3], pads=[1, 0, 1, 2], output_padding=[1, 2], group=2)
    signal = g.input("signal", FLOAT, [2, 3, 7])
    g.op("ConvTranspose", [signal, g.input("filter", FLOAT, [3, 2, 3])], ["decoded"], name="/decode/ConvTranspose",
         strides=[2], dilations=[2], output_shape=[16])
    g.output("up", FLOAT, [1, 6, 10, 18])
    g.output("decoded", FLOAT, [2, 2, 16])
    # Windows that tile the output (stride = kernel): a U-Net's 2x2 upsampling with a bias at
    # batch 2, and a 1-D one of 3 without.
    g.op("ConvTranspose", [g.input("features", FLOAT, [2, 8, 3, 4]), g.weight("w_up", [8, 5, 2, 2]),
                           g.weight("b_up", [5])], ["doubled"], name="/doubled/ConvTranspose", strides=[2, 2],
         kernel_shape=[2, 2])
    g.op("ConvTranspose", [signal, g.weight("w_wide", [3, 4, 3])], ["tripled"], name="/tripled/ConvTranspose",
         strides=[3])
    g.output("doubled", FLOAT, [2, 5, 6, 8])
    g.output("tripled", FLOAT, [2, 4, 21])
    return g.model("conv-transpose", 17)


def single(op_type, inputs, shape=(1, 4), opset=13, name="node", **attributes):
    """A model of one node `y = op_type(x, *inputs)` on a float input `x` of `shape`; the caller
    adds the initializers that `inputs` name."""
    g = Graph()
    g.input("x", FLOAT, list(shape))
    g.op(op_type, ["x"] + inputs, ["y"], name=name, **attributes)
    g.output("y")
    return g


@model("unsupported-op")
def unsupported_op():
    return single("Det", [], shape=(2, 2), name="/det/Det").model("unsupported", 13)


@model("custom-domain")
def custom_domain():
    g = single("Relu", [], name="fused")
    g.nodes[0].domain = "com.microsoft"
    g.nodes[0].op_type = "FusedGemm"
    return g.model("custom", 13)


@model("symbolic-dim")
def symbolic_dim():
    g = Graph()
    g.input("tokens", FLOAT, ["batch", 128])
    g.op("Relu", ["tokens"], ["y"], name="relu")
    g.output("y")
    return g.model("symbolic", 13)


@model("unknown-dim")
def unknown_dim():
    g = Graph()
    g.inputs.append(helper.make_tensor_value_info("tokens", FLOAT, [1, None]))
    g.op("Relu", ["tokens"], ["y"], name="relu")
    g.output("y")
    return g.model("unknown", 13)


@model("oversized")
def oversized():
    """An initializer whose dimensions multiply to 2^40 elements (and that holds no data)."""
    g = single("Add", ["huge"])
    huge = TensorProto(name="huge", data_type=FLOAT, dims=[1 << 20, 1 << 20])
    g.initializers.append(huge)
    return g.model("oversized", 13)


@model("short-data")
def short_data():
    """An initializer whose raw data is shorter than its shape needs."""
    g = single("Add", ["w"], shape=(4, 4))
    g.initializers.append(TensorProto(name="w", data_type=FLOAT, dims=[4, 4], raw_data=bytes(60)))
    return g.model("short", 13)


@model("external-data")
def external_data():
    g = single("Add", ["w"])
    w = TensorProto(name="w", data_type=FLOAT, dims=[1, 4], data_location=TensorProto.EXTERNAL)
    w.external_data.add(key="location", value="../weights.bin")
    g.initializers.append(w)
    return g.model("external", 13)


@model("no-opset")
def no_opset():
    """What a file cut right after its graph decodes to: a model without opset_import."""
    m = single("Relu", []).model("cut", 13)
    del m.opset_import[:]
    return m


@model("ml-only")
def ml_only():
    """A classic-ML model: it imports the ai.onnx.ml operator set and not the standard one."""
    g = single("Binarizer", [])
    g.nodes[0].domain = "ai.onnx.ml"
    m = g.model("ml", 13)
    del m.opset_import[:]
    m.opset_import.add(domain="ai.onnx.ml", version=3)
    return m


@model("dropout-training")
def dropout_training():
    """Dropout in training mode drops random elements: not the identity it is at inference."""
    g = single("Dropout", ["ratio", "training"], name="/drop/Dropout")
    g.const("ratio", 0.5, np.float32)
    g.const("training", True, np.bool_)
    return g.model("dropout", 13)


@model("extra-input")
def extra_input():
    """Add with a third input: onnxruntime refuses the model."""
    g = single("Add", ["x", "x"], name="/add/Add")
    return g.model("extra", 13)


@model("reflect-too-far")
def reflect_too_far():
    """Pad in reflect mode by as much as the dimension: no reflection reaches that far."""
    g = single("Pad", ["pads"], shape=(2, 3), name="/pad/Pad", mode="reflect")
    g.const("pads", [0, 3, 0, 0])
    return g.model("reflect", 13)


@model("repeated-axes")
def repeated_axes():
    """ReduceMean naming one axis twice (3 and -1): onnxruntime reduces it once."""
    g = single("ReduceMean", [], shape=(2, 3, 4, 5), name="/mean/ReduceMean", axes=[1, 3, -1], keepdims=1)
    return g.model("repeated", 13)


@model("unknown-attribute")
def unknown_attribute():
    """Relu with an attribute it does not define (a typo of another operator's)."""
    return single("Relu", [], name="/act/Relu", alpha=0.1).model("unknown", 13)


@model("attribute-type")
def attribute_type():
    """Softmax with its axis given as a float."""
    return single("Softmax", [], name="/softmax/Softmax", axis=1.0).model("typed", 13)


@model("top-k-too-many")
def top_k_too_many():
    """TopK asking for more elements than its axis has."""
    g = Graph(11)
    g.input("x", FLOAT, [2, 3])
    g.op("TopK", ["x", g.const("k", [4])], ["values", "indices"], name="/top/TopK")
    g.output("values")
    g.output("indices", INT64)
    return g.model("too_many", 13)


@model("top-k-run-time")
def top_k_run_time():
    """TopK whose K is a graph input: computed at run time."""
    g = Graph(11)
    g.input("x", FLOAT, [2, 3])
    g.input("k", INT64, [1])
    g.op("TopK", ["x", "k"], ["values", "indices"], name="/top/TopK")
    g.output("values")
    g.output("indices", INT64)
    return g.model("run_time", 13)


@model("opset-12")
def opset_12():
    return single("Relu", []).model("old", 12)


@model("opset-23")
def opset_23():
    return single("Relu", []).model("new", 23)


@model("conv3d")
def conv3d():
    g = single("Conv", ["w"], shape=(1, 3, 4, 4, 4), name="/conv/Conv")
    g.weight("w", [4, 3, 3, 3, 3])
    return g.model("conv3d", 13)


@model("negative-step")
def negative_step():
    g = single("Slice", ["starts", "ends", "axes", "steps"], name="/flip/Slice")
    for name, value in [("starts", -1), ("ends", -5), ("axes", 1), ("steps", -1)]:
        g.const(name, [value])
    return g.model("negative_step", 13)


@model("dynamic-reshape")
def dynamic_reshape():
    g = Graph()
    g.input("x", FLOAT, [2, 6])
    g.input("shape", INT64, [2])
    g.op("Reshape", ["x", "shape"], ["y"], name="/view/Reshape")
    g.output("y")
    return g.model("dynamic_reshape", 13)


@model("pool-indices")
def pool_indices():
    g = Graph()
    g.input("x", FLOAT, [1, 1, 4, 4])
    g.op("MaxPool", ["x"], ["y", "indices"], name="/pool/MaxPool", kernel_shape=[2, 2])
    g.output("y")
    g.output("indices", INT64)
    return g.model("pool_indices", 13)


def list_weights(path):
    """Prints `name dtype shape` for each tensor of a safetensors file (read with the standard
    library: an 8-byte little-endian header length, then a JSON header)."""
    with open(path, "rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(length))
    for name in sorted(key for key in header if key != "__metadata__"):
        entry = header[name]
        print(name, entry["dtype"], "x".join(map(str, entry["shape"])))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("model", help="write a model")
    write.add_argument("name", choices=sorted(MODELS))
    write.add_argument("output")
    write.add_argument("--truncate", type=int, help="keep only the first BYTES bytes")
    write.add_argument("--external-data", metavar="FILE",
                       help="store every initializer in FILE beside the model, as onnx.save_model does")
    weights = commands.add_parser("weights", help="list a safetensors file")
    weights.add_argument("file")
    commands.add_parser("list", help="list the models")
    arguments = parser.parse_args()
    if arguments.command == "weights":
        list_weights(arguments.file)
    elif arguments.command == "list":
        print("\n".join(sorted(MODELS)))
    elif arguments.external_data:
        onnx.save_model(MODELS[arguments.name](), arguments.output, save_as_external_data=True,
                        all_tensors_to_one_file=True, location=arguments.external_data, size_threshold=0)
    else:
        data = MODELS[arguments.name]().SerializeToString()
        with open(arguments.output, "wb") as file:
            file.write(data[: arguments.truncate] if arguments.truncate is not None else data)


if __name__ == "__main__":
    sys.exit(main())
