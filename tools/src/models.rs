//! Built-in models, made by the project with seeded weights so that the main job and the
//! benchmark need no download: the graph-dialect text and the weights, in memory.
//!
//! ResNet-50 is torchvision's v1.5 architecture (stride on the 3x3 convolution of each
//! bottleneck) as torch.onnx exports it for inference: every batch norm folded into the
//! convolution before it, which then has a bias. Weights are uniform with variance 1/fan-in
//! (variance 1/(2 fan-in) on the last convolution of each residual branch), so activations keep
//! their scale through the 16 residual blocks and the logits are finite and distinct.

use std::fmt::Write;
use crate::random::SplitMix;
use turbine_interpreter::{Tensor, Weights};

/// A model: its graph-dialect module text and its weights.
pub struct BuiltinModel {
    /// Module text; its function is `@main`.
    pub mlir: String,
    /// The tensors its `graph.weight` ops name.
    pub weights: Weights,
}

/// The names of the built-in models, for `--help` and errors.
pub const MODELS: &[&str] = &["resnet50", "resnet18"];

/// Builds the model called `name` with batch size `batch`.
pub fn builtin(name: &str, batch: usize) -> Option<BuiltinModel> {
    match name {
        "resnet50" => Some(resnet(batch, &[3, 4, 6, 3], true)),
        "resnet18" => Some(resnet(batch, &[2, 2, 2, 2], false)),
        _ => None,
    }
}

struct Builder {
    text: String,
    weights: Weights,
    random: SplitMix,
    next: usize,
}

fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("tensor<{}xf32>", dims.join("x"))
}

impl Builder {
    fn value(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    /// A weight of `shape`, uniform with variance `variance`.
    fn weight(&mut self, name: &str, shape: &[usize], variance: f32) -> String {
        let count: usize = shape.iter().product();
        // Uniform on [-a, a) has variance a^2 / 3.
        let bound = (3.0 * variance).sqrt();
        let values: Vec<f32> = (0..count).map(|_| self.random.unit() * bound).collect();
        self.weights.insert(name, Tensor::f32(shape.to_vec(), values));
        let value = self.value();
        writeln!(self.text, "  {value} = graph.weight \"{name}\" : {}", shape_text(shape)).unwrap();
        value
    }

    /// conv (+ bias) (+ relu) on `input` of shape [N, C, H, W]; returns the value and its shape.
    #[allow(clippy::too_many_arguments)]
    fn conv(
        &mut self,
        name: &str,
        input: &str,
        shape: [usize; 4],
        channels: usize,
        kernel: usize,
        stride: usize,
        relu: bool,
        variance_scale: f32,
    ) -> (String, [usize; 4]) {
        let [n, c, h, w] = shape;
        let fan_in = c * kernel * kernel;
        let filter = self.weight(&format!("{name}.weight"), &[channels, c, kernel, kernel], variance_scale / fan_in as f32);
        let bias = self.weight(&format!("{name}.bias"), &[channels], 0.01);
        let pad = kernel / 2;
        let out = [n, channels, (h + 2 * pad - kernel) / stride + 1, (w + 2 * pad - kernel) / stride + 1];
        let value = self.value();
        let activation = if relu { ", activation = #graph<activation relu>" } else { "" };
        writeln!(
            self.text,
            "  {value} = graph.conv2d {input}, {filter}, {bias} {{strides = array<i64: {stride}, {stride}>, pads = array<i64: {pad}, {pad}, {pad}, {pad}>{activation}}} : ({}, {}, {}) -> {}",
            shape_text(&shape),
            shape_text(&[channels, c, kernel, kernel]),
            shape_text(&[channels]),
            shape_text(&out)
        )
        .unwrap();
        (value, out)
    }
}

/// ResNet with `blocks` per stage: bottlenecks (ResNet-50) or basic blocks (ResNet-18).
fn resnet(batch: usize, blocks: &[usize], bottleneck: bool) -> BuiltinModel {
    let mut b = Builder { text: String::new(), weights: Weights::empty(), random: SplitMix(50), next: 0 };
    let input_shape = [batch, 3, 224, 224];
    let (mut x, mut shape) = b.conv("conv1", "%input", input_shape, 64, 7, 2, true, 2.0);
    let pooled = b.value();
    let pooled_shape = [batch, 64, shape[2] / 2, shape[3] / 2];
    writeln!(
        b.text,
        "  {pooled} = graph.max_pool2d {x} {{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}} : {} -> {}",
        shape_text(&shape),
        shape_text(&pooled_shape)
    )
    .unwrap();
    (x, shape) = (pooled, pooled_shape);
    let expansion = if bottleneck { 4 } else { 1 };
    for (stage, &count) in blocks.iter().enumerate() {
        let width = 64 << stage;
        for block in 0..count {
            let stride = if block == 0 && stage > 0 { 2 } else { 1 };
            let prefix = format!("layer{}.{block}", stage + 1);
            let (branch, branch_shape) = if bottleneck {
                let (a, a_shape) = b.conv(&format!("{prefix}.conv1"), &x, shape, width, 1, 1, true, 2.0);
                let (c, c_shape) = b.conv(&format!("{prefix}.conv2"), &a, a_shape, width, 3, stride, true, 2.0);
                b.conv(&format!("{prefix}.conv3"), &c, c_shape, width * expansion, 1, 1, false, 0.5)
            } else {
                let (a, a_shape) = b.conv(&format!("{prefix}.conv1"), &x, shape, width, 3, stride, true, 2.0);
                b.conv(&format!("{prefix}.conv2"), &a, a_shape, width, 3, 1, false, 0.5)
            };
            let shortcut = if stride != 1 || shape[1] != width * expansion {
                b.conv(&format!("{prefix}.downsample"), &x, shape, width * expansion, 1, stride, false, 1.0).0
            } else {
                x.clone()
            };
            let sum = b.value();
            writeln!(b.text, "  {sum} = graph.add {branch}, {shortcut} : {0}, {0} -> {0}", shape_text(&branch_shape)).unwrap();
            let relu = b.value();
            writeln!(b.text, "  {relu} = graph.relu {sum} : {}", shape_text(&branch_shape)).unwrap();
            (x, shape) = (relu, branch_shape);
        }
    }
    let channels = shape[1];
    let pooled = b.value();
    writeln!(b.text, "  {pooled} = graph.global_avg_pool {x} : {} -> {}", shape_text(&shape), shape_text(&[batch, channels, 1, 1])).unwrap();
    let flat = b.value();
    writeln!(
        b.text,
        "  {flat} = graph.flatten {pooled} {{axis = 1 : i64}} : {} -> {}",
        shape_text(&[batch, channels, 1, 1]),
        shape_text(&[batch, channels])
    )
    .unwrap();
    let fc = b.weight("fc.weight", &[1000, channels], 1.0 / channels as f32);
    let fc_bias = b.weight("fc.bias", &[1000], 0.01);
    let logits = b.value();
    writeln!(
        b.text,
        "  {logits} = graph.gemm {flat}, {fc}, {fc_bias} {{trans_b = true}} : ({}, {}, {}) -> {}",
        shape_text(&[batch, channels]),
        shape_text(&[1000, channels]),
        shape_text(&[1000]),
        shape_text(&[batch, 1000])
    )
    .unwrap();
    writeln!(b.text, "  return {logits} : {}", shape_text(&[batch, 1000])).unwrap();
    let mlir = format!(
        "func.func @main(%input: {}) -> {} {{\n{}}}\n",
        shape_text(&input_shape),
        shape_text(&[batch, 1000]),
        b.text
    );
    BuiltinModel { mlir, weights: b.weights }
}
