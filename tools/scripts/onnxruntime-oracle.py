#!/usr/bin/env python3
"""onnxruntime as the oracle: models built here with onnx.helper (seeded weights, nothing
downloaded) are imported with `turbine-translate --import-onnx`, evaluated with
`turbine-run --interpret`, and compared with onnxruntime on the same inputs; then compiled for the
stcp920 target and run on the software DSA (`turbine-run`) with each kernel schedule (layer-wise and
GraphTurbo's) and compared with
onnxruntime again. A model the compiler does not support yet is reported as skipped for that step,
with the compiler's reason.

Models: ResNet-18 and MobileNet-V2 (the torchvision architectures, 1x3x224x224; ResNet-50 is
covered by the ONNX conformance suite's light_resnet50 and by the benchmark), a BERT-base encoder layer
(1x128x768, erf GELU, LayerNormalization), a MobileNet-V2 inverted-residual block (depthwise conv,
Clip 0..6), a DenseNet dense block (concat growth), an Inception-v1 stem (LRN, max pooling), a
SqueezeNet fire module, and a transformer encoder layer written as torch.onnx exports it (q, k, v
picked out of one projection by Gather of constant indices, reshape targets computed through
Shape/Gather/Concat), which compiles only because graph-substitute turns those gathers into slices,
a 1-D CNN over audio frames (Conv1d, LeakyReLU, LogSoftmax: composed by the importer), a small
U-Net (ConvTranspose, nearest Resize, skip connections), a segmentation head (bilinear and bicubic
Resize, compiled as sums of shifted copies), a ViT block (patch embedding, class
token expanded and concatenated, picked back with Gather(axis=1) of a constant index, which
graph-substitute's rule over any axis turns into a slice) and a two-layer BERT-base encoder from
i64 `input_ids` and `attention_mask` as Hugging Face's export starts (embedding lookups by DMA
gathers, the mask cast on the device) and a GPT-2 decoder block with its causal mask (a constant
boolean selecting the scores by Where).

Tolerance: |ours - ort| <= 1e-4 * max|ort| + 1e-4 * |ort|, elementwise. onnxruntime convolves and
multiplies with blocked kernels that sum in another order than the interpreter's straight loops, so
the bound is relative to the output's scale as well as to each element.

Prints one line per model and `N passed, N failed`; exits non-zero on any failure.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Builder:
    """Accumulates nodes and initializers with fresh names and seeded random weights."""

    def __init__(self, seed):
        self.nodes, self.initializers, self.count = [], [], 0
        self.random = np.random.default_rng(seed)

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def draw(self, shape, scale=None):
        """The values `weight` would hold, without the initializer: for a hand-built twin that
        stores the same weights rearranged."""
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        scale = scale if scale is not None else np.sqrt(2.0 / fan_in)
        return (self.random.standard_normal(shape) * scale).astype(np.float32)

    def weight(self, shape, scale=None):
        name = self.name("w")
        self.initializers.append(numpy_helper.from_array(self.draw(shape, scale), name))
        return name

    def constant(self, value):
        name = self.name("c")
        self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type, inputs, **attributes):
        output = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=output, **attributes))
        return output

    def conv_bn(self, x, cin, cout, kernel, stride=1, pad=0, groups=1, relu=True, gamma=(0.5, 1.5)):
        w = self.weight([cout, cin // groups, kernel, kernel])
        y = self.op("Conv", [x, w], strides=[stride, stride], pads=[pad] * 4, group=groups,
                    kernel_shape=[kernel, kernel])
        y = self.batch_norm(y, cout, gamma)
        return self.op("Relu", [y]) if relu else y

    def batch_norm(self, y, channels, gamma=(0.5, 1.5)):
        """Inference BatchNormalization of `y` with seeded statistics, its scales drawn from the
        range `gamma`."""
        gamma = self.constant(self.random.uniform(*gamma, channels).astype(np.float32))
        beta = self.constant(self.random.uniform(-0.2, 0.2, channels).astype(np.float32))
        mean = self.constant(self.random.uniform(-0.2, 0.2, channels).astype(np.float32))
        var = self.constant(self.random.uniform(0.5, 1.5, channels).astype(np.float32))
        return self.op("BatchNormalization", [y, gamma, beta, mean, var], epsilon=1e-5)

    def model(self, name, inputs, outputs, opset=OPSET):
        """The model at `opset`, with output shapes filled in by ONNX shape inference, checked.
        `inputs` are (name, shape) of f32, or (name, shape, element type); an output given as
        (name, shape) is declared f32 of that shape (inference leaves a loop's stacked outputs
        without one)."""
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(i[0], i[2] if len(i) > 2 else TensorProto.FLOAT, i[1]) for i in inputs],
            [], self.initializers,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
        model.graph.output.extend(
            helper.make_tensor_value_info(n[0], TensorProto.FLOAT, n[1]) if isinstance(n, tuple) else inferred[n]
            for n in outputs)
        onnx.checker.check_model(model, full_check=True)
        return model


def resnet18():
    b = Builder(18)
    x = b.conv_bn("input", 3, 64, 7, stride=2, pad=3)
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, cout in enumerate([64, 128, 256, 512]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            y = b.conv_bn(x, cin, cout, 3, stride=stride, pad=1)
            y = b.conv_bn(y, cout, cout, 3, pad=1, relu=False)
            shortcut = b.conv_bn(x, cin, cout, 1, stride=stride, relu=False) if stride != 1 or cin != cout else x
            x = b.op("Relu", [b.op("Add", [y, shortcut])])
            cin = cout
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    logits = b.op("Gemm", [x, b.weight([1000, 512]), b.constant(np.zeros(1000, np.float32))], transB=1)
    return b.model("resnet18", [("input", [1, 3, 224, 224])], [logits])


def bert_layer(batch=1, layers=1, activation="gelu"):
    """BERT-base encoder layers (batch-first [B, 128, 768], 12 heads, erf GELU or ReLU in the
    feed-forward), as the benchmarks build them; `layers` of them stacked."""
    b = Builder(7)
    hidden, heads, sequence = 768, 12, 128
    x = "hidden_states"
    for _ in range(layers):
        x = bert_block(b, x, batch, hidden, heads, sequence, activation)
    return b.model("bert_layer", [("hidden_states", [batch, sequence, hidden])], [x])


def bert_block(b, x, batch, hidden, heads, sequence, activation, mask=None):
    """One layer of bert_layer, from `x` (with `mask` added to the attention scores when given);
    returns its output."""

    def dense(v, cin, cout):
        return b.op("Add", [b.op("MatMul", [v, b.weight([cin, cout], 0.02)]), b.constant(np.zeros(cout, np.float32))])

    def split_heads(v):
        v = b.op("Reshape", [v, b.constant(np.array([batch, sequence, heads, hidden // heads], np.int64))])
        return b.op("Transpose", [v], perm=[0, 2, 1, 3])

    q, k, v = (split_heads(dense(x, hidden, hidden)) for _ in range(3))
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.op("Div", [scores, b.constant(np.array(8.0, np.float32))])
    if mask is not None:
        scores = b.op("Add", [scores, mask])
    probabilities = b.op("Softmax", [scores], axis=-1)
    context = b.op("Transpose", [b.op("MatMul", [probabilities, v])], perm=[0, 2, 1, 3])
    context = b.op("Reshape", [context, b.constant(np.array([batch, sequence, hidden], np.int64))])
    ones, zeros = np.ones(hidden, np.float32), np.zeros(hidden, np.float32)
    x1 = b.op("LayerNormalization", [b.op("Add", [dense(context, hidden, hidden), x]), b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-12)
    h = dense(x1, hidden, 3072)
    if activation == "relu":
        act = b.op("Relu", [h])
    else:
        erf = b.op("Erf", [b.op("Div", [h, b.constant(np.array(np.sqrt(2.0), np.float32))])])
        act = b.op("Mul", [b.op("Mul", [h, b.op("Add", [erf, b.constant(np.array(1.0, np.float32))])]), b.constant(np.array(0.5, np.float32))])
    return b.op("LayerNormalization", [b.op("Add", [dense(act, 3072, hidden), x1]), b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-12)


VOCABULARY = 1000

# The values fed to integer inputs, by name: token ids below the vocabulary, a 0/1 mask.
INTEGER_INPUTS = {"input_ids": (0, VOCABULARY), "attention_mask": (0, 2), "token_ids": (0, 50)}


def bert_ids(batch=2, layers=2, hand=False):
    """A BERT-base encoder (hidden 768, 12 heads, sequence 128, 2 layers; a vocabulary of 1000 to
    keep the file small) as torch.onnx exports Hugging Face's BertModel from `input_ids` and
    `attention_mask` (i64): word embeddings gathered by the ids, position and token-type
    embeddings gathered by the constant ids the export folds (arange and zeros), summed and
    layer-normalised; the mask unsqueezed to [B, 1, 1, S], cast to float, (1 - mask) times the
    float minimum added to every head's scores. `hand`: the same network as written by hand, the
    position and token-type embeddings one constant added to the words."""
    b = Builder(9)
    hidden, heads, sequence = 768, 12, 128
    words = b.op("Gather", [b.weight([VOCABULARY, hidden], 0.02), "input_ids"], axis=0)
    if hand:
        kinds, positions = b.draw([2, hidden], 0.02), b.draw([512, hidden], 0.02)
        x = b.op("Add", [words, b.constant(kinds[0] + positions[:sequence])])
    else:
        positions = b.constant(np.arange(sequence, dtype=np.int64).reshape(1, sequence))
        kinds = b.constant(np.zeros((batch, sequence), np.int64))
        x = b.op("Add", [b.op("Add", [words, b.op("Gather", [b.weight([2, hidden], 0.02), kinds], axis=0)]),
                         b.op("Gather", [b.weight([512, hidden], 0.02), positions], axis=0)])
    ones, zeros = np.ones(hidden, np.float32), np.zeros(hidden, np.float32)
    x = b.op("LayerNormalization", [x, b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-12)
    mask = b.op("Cast", [b.op("Unsqueeze", ["attention_mask", b.constant(np.array([1, 2], np.int64))])],
                to=TensorProto.FLOAT)
    mask = b.op("Mul", [b.op("Sub", [b.constant(np.array(1.0, np.float32)), mask]),
                        b.constant(np.array(np.finfo(np.float32).min, np.float32))])
    for _ in range(layers):
        x = bert_block(b, x, batch, hidden, heads, sequence, "gelu", mask)
    return b.model("bert_ids", [("input_ids", [batch, sequence], TensorProto.INT64),
                                ("attention_mask", [batch, sequence], TensorProto.INT64)], [x])


def gpt2_block(batch=2, sequence=32, hidden=64, heads=4, hand=False):
    """A GPT-2 decoder block as torch.onnx exports Hugging Face's GPT2Model (one layer, small
    sizes, from i64 `input_ids` and `attention_mask`): token and position embeddings gathered,
    pre-norm attention whose fused QKV projection is split three ways, the causal mask a constant
    lower-triangular boolean picking the scores by Where (else the float minimum), the padding
    mask added as (1 - mask) times the minimum, and the tanh GELU ("gelu_new") MLP. `hand`: the
    same network as written by hand, the position embeddings a constant and the cube a product."""
    b = Builder(12)
    lowest = np.array(np.finfo(np.float32).min, np.float32)
    ones, zeros = np.ones(hidden, np.float32), np.zeros(hidden, np.float32)
    words = b.op("Gather", [b.weight([VOCABULARY, hidden], 0.02), "input_ids"], axis=0)
    if hand:
        x = b.op("Add", [words, b.constant(b.draw([1024, hidden], 0.01)[:sequence])])
    else:
        positions = b.constant(np.arange(sequence, dtype=np.int64).reshape(1, sequence))
        x = b.op("Add", [words, b.op("Gather", [b.weight([1024, hidden], 0.01), positions], axis=0)])

    def dense(v, cin, cout):
        return b.op("Add", [b.op("MatMul", [v, b.weight([cin, cout], 0.02)]), b.constant(np.zeros(cout, np.float32))])

    def split_heads(v):
        v = b.op("Reshape", [v, b.constant(np.array([batch, sequence, heads, hidden // heads], np.int64))])
        return b.op("Transpose", [v], perm=[0, 2, 1, 3])

    h = b.op("LayerNormalization", [x, b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-5)
    qkv = dense(h, hidden, 3 * hidden)
    q, k, v = (b.name("split") for _ in range(3))
    b.nodes.append(helper.make_node("Split", [qkv, b.constant(np.array([hidden] * 3, np.int64))], [q, k, v], axis=-1))
    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    scores = b.op("Div", [b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                          b.constant(np.array(np.sqrt(hidden // heads), np.float32))])
    causal = b.constant(np.tril(np.ones((sequence, sequence), bool)).reshape(1, 1, sequence, sequence))
    scores = b.op("Where", [causal, scores, b.constant(lowest)])
    padding = b.op("Cast", [b.op("Unsqueeze", ["attention_mask", b.constant(np.array([1, 2], np.int64))])],
                   to=TensorProto.FLOAT)
    padding = b.op("Mul", [b.op("Sub", [b.constant(np.array(1.0, np.float32)), padding]), b.constant(lowest)])
    probabilities = b.op("Softmax", [b.op("Add", [scores, padding])], axis=-1)
    context = b.op("Transpose", [b.op("MatMul", [probabilities, v])], perm=[0, 2, 1, 3])
    context = b.op("Reshape", [context, b.constant(np.array([batch, sequence, hidden], np.int64))])
    x = b.op("Add", [dense(context, hidden, hidden), x])
    h = dense(b.op("LayerNormalization", [x, b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-5),
              hidden, 4 * hidden)
    power = b.op("Mul", [b.op("Mul", [h, h]), h]) if hand else b.op("Pow", [h, b.constant(np.array(3.0, np.float32))])
    cube = b.op("Mul", [power, b.constant(np.array(0.044715, np.float32))])
    inner = b.op("Mul", [b.op("Add", [h, cube]), b.constant(np.array(np.sqrt(2 / np.pi), np.float32))])
    gelu = b.op("Mul", [b.op("Mul", [h, b.constant(np.array(0.5, np.float32))]),
                        b.op("Add", [b.op("Tanh", [inner]), b.constant(np.array(1.0, np.float32))])])
    x = b.op("Add", [dense(gelu, 4 * hidden, hidden), x])
    return b.model("gpt2_block", [("input_ids", [batch, sequence], TensorProto.INT64),
                                  ("attention_mask", [batch, sequence], TensorProto.INT64)], [x])


def mobilenet_v2_block():
    b = Builder(2)
    x = "input"
    y = b.op("Clip", [b.conv_bn(x, 24, 144, 1, relu=False), b.constant(np.array(0.0, np.float32)), b.constant(np.array(6.0, np.float32))])
    y = b.op("Clip", [b.conv_bn(y, 144, 144, 3, pad=1, groups=144, relu=False), b.constant(np.array(0.0, np.float32)), b.constant(np.array(6.0, np.float32))])
    y = b.conv_bn(y, 144, 24, 1, relu=False)
    return b.model("mobilenet_v2_block", [("input", [1, 24, 56, 56])], [b.op("Add", [y, x])])


def mobilenet_v2(batch=1):
    """torchvision's MobileNet-V2 (width 1.0, 224x224, `batch` images): inverted residual blocks
    of expand 1x1, depthwise 3x3 and project 1x1, ReLU6 as Clip, residual adds where shapes
    allow."""
    b = Builder(20)

    def relu6(x):
        return b.op("Clip", [x, b.constant(np.array(0.0, np.float32)), b.constant(np.array(6.0, np.float32))])

    x = relu6(b.conv_bn("input", 3, 32, 3, stride=2, pad=1, relu=False))
    cin = 32
    for expand, cout, repeats, stride in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                                          (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for index in range(repeats):
            hidden = cin * expand
            y = x if expand == 1 else relu6(b.conv_bn(x, cin, hidden, 1, relu=False))
            y = relu6(b.conv_bn(y, hidden, hidden, 3, stride=stride if index == 0 else 1, pad=1, groups=hidden, relu=False))
            y = b.conv_bn(y, hidden, cout, 1, relu=False)
            x = b.op("Add", [y, x]) if index > 0 else y
            cin = cout
    x = relu6(b.conv_bn(x, cin, 1280, 1, relu=False))
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    logits = b.op("Gemm", [x, b.weight([1000, 1280]), b.constant(np.zeros(1000, np.float32))], transB=1)
    return b.model("mobilenet_v2", [("input", [batch, 3, 224, 224])], [logits])


def densenet_block():
    b = Builder(121)
    x, channels = "input", 64
    for _ in range(3):
        y = b.conv_bn(b.op("Relu", [x]), channels, 128, 1)
        y = b.conv_bn(y, 128, 32, 3, pad=1, relu=False)
        x = b.op("Concat", [x, y], axis=1)
        channels += 32
    x = b.op("AveragePool", [b.conv_bn(x, channels, channels // 2, 1)], kernel_shape=[2, 2], strides=[2, 2])
    return b.model("densenet_block", [("input", [1, 64, 28, 28])], [x])


def inception_stem():
    b = Builder(1)
    x = b.conv_bn("input", 3, 64, 7, stride=2, pad=3)
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1])
    x = b.op("LRN", [x], size=5, alpha=1e-4, beta=0.75, bias=1.0)
    x = b.conv_bn(x, 64, 192, 3, pad=1)
    x = b.op("LRN", [x], size=5, alpha=1e-4, beta=0.75, bias=1.0)
    return b.model("inception_stem", [("input", [1, 3, 112, 112])], [x])


def squeezenet_fire():
    b = Builder(11)
    s = b.op("Relu", [b.op("Conv", ["input", b.weight([16, 64, 1, 1]), b.weight([16], 0.1)], kernel_shape=[1, 1])])
    e1 = b.op("Relu", [b.op("Conv", [s, b.weight([64, 16, 1, 1]), b.weight([64], 0.1)], kernel_shape=[1, 1])])
    e3 = b.op("Relu", [b.op("Conv", [s, b.weight([64, 16, 3, 3]), b.weight([64], 0.1)], kernel_shape=[3, 3], pads=[1, 1, 1, 1])])
    return b.model("squeezenet_fire", [("input", [1, 64, 55, 55])], [b.op("Concat", [e1, e3], axis=1)])

def torch_encoder_layer(sequence=16, batch=2, hidden=32, heads=4, ffn=64, layers=1):
    """A transformer encoder as torch.onnx exports nn.TransformerEncoder (opset 17,
    sequence-first): one in-projection for q, k and v, its result unflattened to [S, B, 3, E]
    with a shape computed through Shape/Gather/Unsqueeze/Concat, moved to [3, S, B, E] and q, k, v
    picked with Gather of a constant scalar index; heads split with computed reshape targets. The
    defaults make the small layer of the oracle; the benchmark builds BERT-base sizes."""
    b = Builder(11)
    x = "src"
    for _ in range(layers):
        x = torch_encoder_block(b, x, sequence, batch, hidden, heads, ffn)
    return b.model("torch_encoder_layer", [("src", [sequence, batch, hidden])], [x])


def torch_encoder_block(b, x, sequence, batch, hidden, heads, ffn):
    """One layer of torch_encoder_layer, from `x` ([S, B, E]); returns its output."""
    head = hidden // heads

    def dims_of(v, *indices):
        shape = b.op("Shape", [v])
        return [b.op("Unsqueeze", [b.op("Gather", [shape, b.constant(np.array(i, np.int64))], axis=0), b.constant(np.array([0], np.int64))]) for i in indices]

    proj = b.op("Add", [b.op("MatMul", [x, b.weight([hidden, 3 * hidden], 0.1)]), b.constant(np.zeros(3 * hidden, np.float32))])
    s, n = dims_of(proj, 0, 1)
    target = b.op("Concat", [s, n, b.constant(np.array([3], np.int64)), b.constant(np.array([hidden], np.int64))], axis=0)
    stacked = b.op("Reshape", [proj, target])
    stacked = b.op("Unsqueeze", [stacked, b.constant(np.array([0], np.int64))])
    stacked = b.op("Transpose", [stacked], perm=[3, 1, 2, 0, 4])
    stacked = b.op("Squeeze", [stacked, b.constant(np.array([3], np.int64))])

    def heads_of(v):
        s, = dims_of(v, 0)
        target = b.op("Concat", [s, b.constant(np.array([batch * heads], np.int64)), b.constant(np.array([head], np.int64))], axis=0)
        return b.op("Transpose", [b.op("Reshape", [v, target])], perm=[1, 0, 2])

    q, k, v = (heads_of(b.op("Gather", [stacked, b.constant(np.array(i, np.int64))], axis=0)) for i in range(3))
    q = b.op("Mul", [q, b.constant(np.array(1.0 / np.sqrt(head), np.float32))])
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 2, 1])])
    context = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
    context = b.op("Reshape", [b.op("Transpose", [context], perm=[1, 0, 2]), b.constant(np.array([sequence * batch, hidden], np.int64))])
    attended = b.op("Gemm", [context, b.weight([hidden, hidden], 0.1), b.constant(np.zeros(hidden, np.float32))], transB=1)
    attended = b.op("Reshape", [attended, b.constant(np.array([sequence, batch, hidden], np.int64))])
    ones, zeros = np.ones(hidden, np.float32), np.zeros(hidden, np.float32)
    x1 = b.op("LayerNormalization", [b.op("Add", [x, attended]), b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-5)
    h = b.op("Relu", [b.op("Add", [b.op("MatMul", [x1, b.weight([hidden, ffn], 0.1)]), b.constant(np.zeros(ffn, np.float32))])])
    h = b.op("Add", [b.op("MatMul", [h, b.weight([ffn, hidden], 0.1)]), b.constant(np.zeros(hidden, np.float32))])
    return b.op("LayerNormalization", [b.op("Add", [x1, h]), b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-5)


def audio_cnn(hand=False):
    """A 1-D CNN over 40 log-mel bands of 200 frames, as torch.onnx exports nn.Conv1d stacks for
    keyword spotting: convolutions with batch norm and LeakyReLU, a dilated and a depthwise
    convolution, max pooling, global average pooling over time, and LogSoftmax over 12 classes.
    `hand`: the same network as written by hand in NCHW, the frames a row of height 1 and every
    window 2-D."""
    b = Builder(40)

    def conv1d(x, cin, cout, kernel, stride=1, pad=0, dilation=1, groups=1):
        if hand:
            w = b.constant(b.draw([cout, cin // groups, kernel]).reshape(cout, cin // groups, 1, kernel))
            y = b.op("Conv", [x, w], strides=[1, stride], pads=[0, pad, 0, pad], dilations=[1, dilation],
                     group=groups, kernel_shape=[1, kernel])
        else:
            y = b.op("Conv", [x, b.weight([cout, cin // groups, kernel])], strides=[stride], pads=[pad, pad],
                     dilations=[dilation], group=groups, kernel_shape=[kernel])
        return b.op("LeakyRelu", [b.batch_norm(y, cout)], alpha=0.1)

    x = b.op("Reshape", ["frames", b.constant(np.array([1, 40, 1, 200], np.int64))]) if hand else "frames"
    x = conv1d(x, 40, 64, 5, pad=2)
    window = [1, 2] if hand else [2]
    x = b.op("MaxPool", [x], kernel_shape=window, strides=window)
    x = conv1d(x, 64, 64, 3, pad=2, dilation=2)
    x = conv1d(x, 64, 64, 3, stride=2, pad=1, groups=64)
    x = conv1d(x, 64, 128, 1)
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    logits = b.op("Gemm", [x, b.weight([12, 128]), b.constant(np.zeros(12, np.float32))], transB=1)
    return b.model("audio_cnn", [("frames", [1, 40, 200])], [b.op("LogSoftmax", [logits], axis=-1)])


def unet_small(hand=False):
    """A two-level U-Net (1x3x64x64): convolution blocks, max pooling down, ConvTranspose (stride 2)
    and Resize (nearest, scale 2) up, skip connections joined by Concat, as torch.onnx exports
    nn.ConvTranspose2d and nn.Upsample. `hand`: the same network as written by hand, the
    transposed convolution (stride = kernel) a 1x1 convolution to 2x2x32 channels and a pixel
    shuffle (reshape, transpose, reshape)."""
    b = Builder(64)
    e1 = b.conv_bn("image", 3, 16, 3, pad=1)
    e2 = b.conv_bn(b.op("MaxPool", [e1], kernel_shape=[2, 2], strides=[2, 2]), 16, 32, 3, pad=1)
    bottom = b.conv_bn(b.op("MaxPool", [e2], kernel_shape=[2, 2], strides=[2, 2]), 32, 64, 3, pad=1)
    if hand:
        w = b.constant(b.draw([64, 32, 2, 2]).transpose(1, 2, 3, 0).reshape(128, 64, 1, 1))
        up2 = b.op("Conv", [bottom, w, b.constant(np.zeros(128, np.float32))], kernel_shape=[1, 1])
        up2 = b.op("Reshape", [up2, b.constant(np.array([1, 32, 2, 2, 16, 16], np.int64))])
        up2 = b.op("Reshape", [b.op("Transpose", [up2], perm=[0, 1, 4, 2, 5, 3]),
                               b.constant(np.array([1, 32, 32, 32], np.int64))])
    else:
        up2 = b.op("ConvTranspose", [bottom, b.weight([64, 32, 2, 2]), b.constant(np.zeros(32, np.float32))],
                   strides=[2, 2], kernel_shape=[2, 2])
    d2 = b.conv_bn(b.op("Concat", [up2, e2], axis=1), 64, 32, 3, pad=1)
    up1 = b.op("Resize", [d2, "", b.constant(np.array([1, 1, 2, 2], np.float32))], mode="nearest")
    d1 = b.conv_bn(b.op("Concat", [up1, e1], axis=1), 48, 16, 3, pad=1)
    mask = b.op("Conv", [d1, b.weight([2, 16, 1, 1])], kernel_shape=[1, 1])
    return b.model("unet_small", [("image", [1, 3, 64, 64])], [mask])


def vit_block(hand=False):
    """A ViT block as torch.onnx exports torchvision's VisionTransformer (1x3x32x32, 8x8 patches,
    hidden 64, 4 heads): patch embedding by a strided Conv, flattened and transposed to tokens,
    the class token expanded to the batch (its shape computed through Shape/Gather/Concat) and
    concatenated in front, position embeddings added, an encoder layer, then the class token
    picked with Gather(axis=1) of a constant index (`x[:, 0]`) for LayerNorm and the head.
    `hand`: the same network as written by hand, the class token concatenated as it is and picked
    back by a Slice."""
    b = Builder(16)
    hidden, patch, tokens = 64, 8, 16
    x = b.op("Conv", ["image", b.weight([hidden, 3, patch, patch]), b.constant(np.zeros(hidden, np.float32))],
             kernel_shape=[patch, patch], strides=[patch, patch])
    x = b.op("Transpose", [b.op("Reshape", [x, b.constant(np.array([1, hidden, tokens], np.int64))])], perm=[0, 2, 1])
    if hand:
        token = b.weight([1, 1, hidden], 0.02)
    else:
        batch = b.op("Unsqueeze", [b.op("Gather", [b.op("Shape", [x]), b.constant(np.array(0, np.int64))], axis=0),
                                   b.constant(np.array([0], np.int64))])
        shape = b.op("Concat", [batch, b.constant(np.array([1, 1], np.int64))], axis=0)
        token = b.op("Expand", [b.weight([1, 1, hidden], 0.02), shape])
    x = b.op("Add", [b.op("Concat", [token, x], axis=1), b.weight([1, tokens + 1, hidden], 0.02)])
    x = bert_block(b, x, 1, hidden, 4, tokens + 1, "gelu")
    if hand:
        first = b.op("Slice", [x, b.constant(np.array([0], np.int64)), b.constant(np.array([1], np.int64)),
                               b.constant(np.array([1], np.int64))])
        first = b.op("Reshape", [first, b.constant(np.array([1, hidden], np.int64))])
    else:
        first = b.op("Gather", [x, b.constant(np.array(0, np.int64))], axis=1)
    ones, zeros = np.ones(hidden, np.float32), np.zeros(hidden, np.float32)
    first = b.op("LayerNormalization", [first, b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-6)
    logits = b.op("Gemm", [first, b.weight([10, hidden]), b.constant(np.zeros(10, np.float32))], transB=1)
    return b.model("vit_block", [("image", [1, 3, 32, 32])], [logits])


def vit_b16_block(batch=1):
    """The first block of torchvision's ViT-B/16 (224x224 images, 16x16 patches, hidden 768, 12
    heads, MLP 3072, erf GELU), written by hand: patch embedding by a strided Conv, the class
    token (one learned row, stored repeated for each image) concatenated in front of the 196 patch
    tokens, position
    embeddings added, one encoder layer, the class token sliced out, layer-normalised and
    classified into 1000 classes."""
    b = Builder(17)
    hidden, patch, tokens = 768, 16, 196
    x = b.op("Conv", ["image", b.weight([hidden, 3, patch, patch], 0.02), b.constant(np.zeros(hidden, np.float32))],
             kernel_shape=[patch, patch], strides=[patch, patch])
    x = b.op("Transpose", [b.op("Reshape", [x, b.constant(np.array([batch, hidden, tokens], np.int64))])], perm=[0, 2, 1])
    token = b.constant(np.repeat(b.draw([1, 1, hidden], 0.02), batch, axis=0))
    x = b.op("Add", [b.op("Concat", [token, x], axis=1), b.weight([1, tokens + 1, hidden], 0.02)])
    x = bert_block(b, x, batch, hidden, 12, tokens + 1, "gelu")
    first = b.op("Slice", [x, b.constant(np.array([0], np.int64)), b.constant(np.array([1], np.int64)),
                           b.constant(np.array([1], np.int64))])
    first = b.op("Reshape", [first, b.constant(np.array([batch, hidden], np.int64))])
    ones, zeros = np.ones(hidden, np.float32), np.zeros(hidden, np.float32)
    first = b.op("LayerNormalization", [first, b.constant(ones), b.constant(zeros)], axis=-1, epsilon=1e-6)
    logits = b.op("Gemm", [first, b.weight([1000, hidden], 0.02), b.constant(np.zeros(1000, np.float32))], transB=1)
    return b.model("vit_b16_block", [("image", [batch, 3, 224, 224])], [logits])


def segmentation_head():
    """A DeepLab-style segmentation head (1x3x64x64): strided convolutions down to 1/8, then
    logits upsampled back to the input by F.interpolate(mode="bilinear", align_corners=False) as
    torch.onnx exports it (Resize linear, pytorch_half_pixel, sizes) and a bicubic refinement
    (cubic, asymmetric by scales)."""
    b = Builder(8)
    x = b.conv_bn("image", 3, 16, 3, stride=2, pad=1)
    x = b.conv_bn(x, 16, 32, 3, stride=2, pad=1)
    x = b.conv_bn(x, 32, 32, 3, stride=2, pad=1)
    logits = b.op("Conv", [x, b.weight([4, 32, 1, 1]), b.constant(np.zeros(4, np.float32))], kernel_shape=[1, 1])
    up = b.op("Resize", [logits, "", "", b.constant(np.array([1, 4, 64, 64], np.int64))], mode="linear",
              coordinate_transformation_mode="pytorch_half_pixel")
    half = b.op("Resize", [logits, "", b.constant(np.array([1, 1, 4, 4], np.float32))], mode="cubic",
                coordinate_transformation_mode="asymmetric")
    return b.model("segmentation_head", [("image", [1, 3, 64, 64])], [up, half])


def control_flow():
    """Control flow as exporters write it: an If on a sign computed from the input (an early
    exit's shape), a Loop with a constant trip count whose body is an RNN cell (the hidden state
    carried, every state stacked as a scan output), a Loop that stops on a data-dependent
    condition, and a Scan summing a sequence forwards and one summing it backwards."""
    b = Builder(47)
    f32 = TensorProto.FLOAT
    w, u, v = b.weight([16, 16], 0.3), b.weight([16, 16], 0.3), b.weight([16, 16], 0.3)

    def info(name, element, shape):
        return helper.make_tensor_value_info(name, element, shape)

    def body(name, nodes, inputs, outputs):
        return helper.make_graph(nodes, name, inputs, outputs)

    positive = b.op("Greater", [b.op("ReduceSum", ["x"], keepdims=0), b.constant(np.float32(0))])
    then_branch = body("then", [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("MatMul", ["r", v], ["t"])],
                       [], [info("t", f32, [2, 16])])
    else_branch = body("else", [helper.make_node("Neg", ["x"], ["n"]), helper.make_node("MatMul", ["n", v], ["e"])],
                       [], [info("e", f32, [2, 16])])
    chosen = b.op("If", [positive], then_branch=then_branch, else_branch=else_branch)
    cell = body("rnn", [
        helper.make_node("MatMul", ["h", w], ["hw"]), helper.make_node("MatMul", ["x", u], ["xu"]),
        helper.make_node("Add", ["hw", "xu"], ["s"]), helper.make_node("Tanh", ["s"], ["h_next"]),
        helper.make_node("Identity", ["cond"], ["cond_out"]), helper.make_node("Identity", ["h_next"], ["h_scan"])],
        [info("i", TensorProto.INT64, []), info("cond", TensorProto.BOOL, []), info("h", f32, [2, 16])],
        [info("cond_out", TensorProto.BOOL, []), info("h_next", f32, [2, 16]), info("h_scan", f32, [2, 16])])
    b.count += 1
    rnn = [f"rnn_final_{b.count}", f"rnn_states_{b.count}"]
    b.nodes.append(helper.make_node("Loop", [b.constant(np.int64(5)), "", chosen], rnn, name="rnn", body=cell))
    shrink = body("shrink", [
        helper.make_node("MatMul", ["g", w], ["gw"]), helper.make_node("Tanh", ["gw"], ["gt"]),
        helper.make_node("Mul", ["g", b.constant(np.float32(0.7))], ["gs"]), helper.make_node("Add", ["gs", "gt"], ["g_next"]),
        helper.make_node("Mul", ["g_next", "g_next"], ["sq"]), helper.make_node("ReduceSum", ["sq"], ["norm"], keepdims=0),
        helper.make_node("Greater", ["norm", b.constant(np.float32(4.0))], ["again"])],
        [info("j", TensorProto.INT64, []), info("go", TensorProto.BOOL, []), info("g", f32, [2, 16])],
        [info("again", TensorProto.BOOL, []), info("g_next", f32, [2, 16])])
    b.count += 1
    stopped = f"stopped_{b.count}"
    b.nodes.append(helper.make_node("Loop", [b.constant(np.int64(40)), b.constant(np.bool_(True)), rnn[0]], [stopped],
                                    name="until_small", body=shrink))
    outputs = [(chosen, [2, 16]), (rnn[0], [2, 16]), (rnn[1], [5, 2, 16]), (stopped, [2, 16])]
    for direction in (0, 1):
        summing = body("sum", [helper.make_node("Add", ["s", "x_t"], ["s_next"]),
                               helper.make_node("Mul", ["s_next", b.constant(np.float32(2))], ["y"])],
                       [info("s", f32, [16]), info("x_t", f32, [16])],
                       [info("s_next", f32, [16]), info("y", f32, [16])])
        b.count += 1
        names = [f"scan_state_{b.count}", f"scan_out_{b.count}"]
        b.nodes.append(helper.make_node("Scan", [b.constant(np.zeros(16, np.float32)), "sequence"], names,
                                        name=f"scan_{direction}", body=summing, num_scan_inputs=1,
                                        scan_input_directions=[direction], scan_output_directions=[direction]))
        outputs += [(names[0], [16]), (names[1], [6, 16])]
    return b.model("control_flow", [("x", [2, 16]), ("sequence", [6, 16])], outputs)


def recurrent_lm():
    """A recurrent language model as torch.onnx exports one (sequence first): token ids embedded by
    Gather, a bidirectional LSTM with biases, initial states and peepholes, a GRU with
    linear_before_reset over the LSTM's outputs, a reversed RNN with Relu, and the last layer's
    state projected onto the vocabulary. (onnxruntime runs no batch-first layout; the ONNX suite's
    batchwise cases check it.)"""
    b = Builder(48)
    steps, batch, width, hidden, vocabulary = 7, 2, 24, 16, 50
    table = b.weight([vocabulary, width], 0.5)
    x = b.op("Gather", [table, "token_ids"])  # [steps, batch, width]

    def weights(directions, gates, inputs):
        return (b.weight([directions, gates * hidden, inputs], 0.3), b.weight([directions, gates * hidden, hidden], 0.3),
                b.weight([directions, 2 * gates * hidden], 0.1))

    w, r, bias = weights(2, 4, width)
    h0, c0 = b.weight([2, batch, hidden], 0.2), b.weight([2, batch, hidden], 0.2)
    peep = b.weight([2, 3 * hidden], 0.1)
    b.count += 1
    y = f"lstm_y_{b.count}"
    b.nodes.append(helper.make_node("LSTM", [x, w, r, bias, "", h0, c0, peep], [y, f"lstm_h_{b.count}"], name="lstm",
                                    hidden_size=hidden, direction="bidirectional"))
    both = b.op("Reshape", [b.op("Transpose", [y], perm=[0, 2, 1, 3]), b.constant(np.array([steps, batch, 2 * hidden]))])
    w, r, bias = weights(1, 3, 2 * hidden)
    b.count += 1
    gru = f"gru_y_{b.count}"
    b.nodes.append(helper.make_node("GRU", [both, w, r, bias], [gru], name="gru", hidden_size=hidden,
                                    linear_before_reset=1))
    sequence = b.op("Reshape", [gru, b.constant(np.array([steps, batch, hidden]))])
    w, r, bias = weights(1, 1, hidden)
    b.count += 1
    rnn = [f"rnn_y_{b.count}", f"rnn_h_{b.count}"]
    b.nodes.append(helper.make_node("RNN", [sequence, w, r, bias], rnn, name="rnn", hidden_size=hidden,
                                    direction="reverse", activations=["Relu"]))
    last = b.op("Reshape", [rnn[1], b.constant(np.array([batch, hidden]))])
    logits = b.op("MatMul", [last, b.weight([hidden, vocabulary], 0.3)])
    return b.model("recurrent_lm", [("token_ids", [steps, batch], TensorProto.INT64)], [logits, rnn[0]])


MODELS = [resnet18, mobilenet_v2, bert_layer, mobilenet_v2_block, densenet_block, inception_stem, squeezenet_fire, torch_encoder_layer,
          audio_cnn, unet_small, vit_block, segmentation_head, bert_ids, gpt2_block, control_flow, recurrent_lm]


def check(model, bin_dir, work):
    path = os.path.join(work, f"{model.graph.name}.onnx")
    onnx.save(model, path)
    feeds = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        if value.name in INTEGER_INPUTS:
            feeds[value.name] = np.random.default_rng(0).integers(*INTEGER_INPUTS[value.name], shape)
        else:
            feeds[value.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)
    mlir = os.path.join(work, "model.mlir")
    imported = subprocess.run([os.path.join(bin_dir, "turbine-translate"), "--import-onnx", path, "-o", mlir], capture_output=True, text=True)
    if imported.returncode != 0:
        return f"import failed: {imported.stderr.strip()}", None
    command = [os.path.join(bin_dir, "turbine-run"), "--interpret", mlir]
    for index, value in enumerate(feeds.values()):
        np.save(os.path.join(work, f"in{index}.npy"), value)
        command += ["--input", os.path.join(work, f"in{index}.npy")]
    for index in range(len(expected)):
        command += ["--output", os.path.join(work, f"out{index}.npy")]
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        return f"interpreter failed: {ran.stderr.strip()}", None
    problem = compare(expected, work)
    if problem:
        return f"interpreter: {problem}", None
    for index in range(len(expected)):
        os.remove(os.path.join(work, f"out{index}.npy"))
    notes = []
    for schedule in SCHEDULES:
        compiled = [c for c in command if c != "--interpret"]
        compiled[2:2] = ["--target", "stcp920", "--schedule", schedule, "--race-check"]
        ran = subprocess.run(compiled, capture_output=True, text=True)
        if ran.returncode != 0:
            reason = ran.stderr.strip()
            if "not supported" in reason:
                notes.append(f"{schedule}: skipped ({reason})")
                continue
            return f"compiled run ({schedule}) failed: {reason}", None
        problem = compare(expected, work)
        if problem:
            return f"compiled ({schedule}): {problem}", None
        notes.append(f"{schedule}: ok")
    return None, "compiled " + ", ".join(notes)


# Every kernel schedule is compiled and compared: the layer-wise baseline and GraphTurbo's.
SCHEDULES = ["layerwise", "graphturbo"]


def compare(expected, work):
    for index, want in enumerate(expected):
        got = np.load(os.path.join(work, f"out{index}.npy"))
        if got.shape != want.shape:
            return f"output {index}: shape {got.shape}, onnxruntime {want.shape}"
        bound = 1e-4 * np.abs(want).max() + 1e-4 * np.abs(want)
        excess = np.abs(got - want) - bound
        if (excess > 0).any():
            worst = np.unravel_index(np.argmax(excess), excess.shape)
            return f"output {index}: at {worst} ours {got[worst]}, onnxruntime {want[worst]}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--only")
    arguments = parser.parse_args()
    passed = failed = 0
    for make in MODELS:
        if arguments.only and arguments.only not in make.__name__:
            continue
        with tempfile.TemporaryDirectory() as work:
            problem, note = check(make(), arguments.bin_dir, work)
        print(f"{'FAIL' if problem else 'PASS'} {make.__name__}: {problem or note}", flush=True)
        passed, failed = passed + (problem is None), failed + (problem is not None)
    print(f"onnxruntime: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
