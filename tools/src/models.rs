//! Built-in models, made by the project with seeded weights so that the main job and the
//! benchmark need no download: the graph-dialect operations (as the ONNX importer records them,
//! built into MLIR by [`crate::graph_module`]) and the weights, in memory.
//!
//! ResNet-50 is torchvision's v1.5 architecture (stride on the 3x3 convolution of each
//! bottleneck) as torch.onnx exports it for inference: every batch norm folded into the
//! convolution before it, which then has a bias. Weights are uniform with variance 1/fan-in
//! (variance 1/(2 fan-in) on the last convolution of each residual branch), so activations keep
//! their scale through the 16 residual blocks and the logits are finite and distinct. Every op is
//! located at its torchvision module name (`layer2.0.conv1`), as an export would name it.
//!
//! DenseNet-121 is torchvision's (growth 32, blocks of 6/12/24/16 layers, bottleneck width 4 ×
//! growth, transitions halving the channels): pre-activation batch norm → ReLU → bias-free
//! convolution, which no export folds, and a concatenation per layer — the many-consumer graph
//! that grouping and stitching find hardest. Batch-norm statistics are the identity (mean 0,
//! variance 1) with scale near 1 and a small shift; convolution weights have variance 2/fan-in.

use crate::random::SplitMix;
use turbine_interpreter::{Tensor, Weights};
use turbine_onnx::emit::{Attribute, FunctionBody, GraphModule, Operand, Signature};
use turbine_onnx::types::{ElementType, TensorType};

/// A model: its graph-dialect module and its weights.
pub struct BuiltinModel {
    /// The module; its function is `@main`.
    pub module: GraphModule,
    /// The tensors its `graph.weight` ops name.
    pub weights: Weights,
}

/// The names of the built-in models, for `--help` and errors.
pub const MODELS: &[&str] = &["resnet50", "resnet18", "densenet121"];

/// Builds the model called `name` with batch size `batch`.
pub fn builtin(name: &str, batch: usize) -> Option<BuiltinModel> {
    match name {
        "resnet50" => Some(resnet(name, batch, &[3, 4, 6, 3], true)),
        "resnet18" => Some(resnet(name, batch, &[2, 2, 2, 2], false)),
        "densenet121" => Some(densenet(name, batch, &[6, 12, 24, 16])),
        _ => None,
    }
}

struct Builder {
    body: FunctionBody,
    weights: Weights,
    random: SplitMix,
}

fn f32_type(shape: &[usize]) -> TensorType {
    TensorType::new(shape.to_vec(), ElementType::F32)
}

impl Builder {
    /// A weight of `shape`, uniform with variance `variance`.
    fn weight(&mut self, name: &str, shape: &[usize], variance: f32) -> Operand {
        let count: usize = shape.iter().product();
        // Uniform on [-a, a) has variance a^2 / 3.
        let bound = (3.0 * variance).sqrt();
        let values: Vec<f32> = (0..count).map(|_| self.random.unit() * bound).collect();
        self.weights
            .insert(name, Tensor::f32(shape.to_vec(), values));
        self.body.weight(name, f32_type(shape), name)
    }

    /// conv + bias (+ relu) on `input` of shape [N, C, H, W].
    #[allow(clippy::too_many_arguments)]
    fn conv(
        &mut self,
        name: &str,
        input: &Operand,
        channels: usize,
        kernel: usize,
        stride: usize,
        relu: bool,
        variance_scale: f32,
    ) -> Operand {
        self.conv_with(
            name,
            input,
            channels,
            kernel,
            stride,
            relu,
            variance_scale,
            true,
        )
    }

    /// conv (+ bias when `bias`) (+ relu) on `input` of shape [N, C, H, W], padded to keep the
    /// size at stride 1.
    #[allow(clippy::too_many_arguments)]
    fn conv_with(
        &mut self,
        name: &str,
        input: &Operand,
        channels: usize,
        kernel: usize,
        stride: usize,
        relu: bool,
        variance_scale: f32,
        bias: bool,
    ) -> Operand {
        let [n, c, h, w] = input.ty.shape[..] else {
            unreachable!("convolutions take NCHW")
        };
        let fan_in = c * kernel * kernel;
        let filter = self.weight(
            &format!("{name}.weight"),
            &[channels, c, kernel, kernel],
            variance_scale / fan_in as f32,
        );
        let bias = bias.then(|| self.weight(&format!("{name}.bias"), &[channels], 0.01));
        let pad = kernel / 2;
        let out = [
            n,
            channels,
            (h + 2 * pad - kernel) / stride + 1,
            (w + 2 * pad - kernel) / stride + 1,
        ];
        let stride = stride as i64;
        let pad = pad as i64;
        let mut attributes = vec![
            ("strides", Attribute::Ints(vec![stride; 2])),
            ("pads", Attribute::Ints(vec![pad; 4])),
        ];
        if relu {
            attributes.push(("activation", Attribute::Enum("activation", "relu")));
        }
        let operands: Vec<&Operand> = [input, &filter].into_iter().chain(bias.as_ref()).collect();
        self.body
            .op1("graph.conv2d", &operands, &attributes, f32_type(&out), name)
    }

    /// Inference batch norm with identity statistics, then ReLU.
    fn norm_relu(&mut self, name: &str, input: &Operand) -> Operand {
        let channels = input.ty.shape[1];
        let scale: Vec<f32> = (0..channels)
            .map(|_| 1.0 + 0.1 * self.random.unit())
            .collect();
        let shift: Vec<f32> = (0..channels).map(|_| 0.1 * self.random.unit()).collect();
        let mut parameter = |what: &str, values: Vec<f32>| {
            let full = format!("{name}.{what}");
            self.weights
                .insert(&full, Tensor::f32(vec![channels], values));
            self.body.weight(&full, f32_type(&[channels]), &full)
        };
        let parameters = [
            parameter("weight", scale),
            parameter("bias", shift),
            parameter("running_mean", vec![0.0; channels]),
            parameter("running_var", vec![1.0; channels]),
        ];
        let ty = input.ty.clone();
        let operands: Vec<&Operand> = std::iter::once(input).chain(&parameters).collect();
        let normed = self.body.op1(
            "graph.batch_norm",
            &operands,
            &[("epsilon", Attribute::Float(1e-5))],
            ty.clone(),
            name,
        );
        self.body
            .op1("graph.relu", &[&normed], &[], ty, &format!("{name}.relu"))
    }

    /// A pooling window of `kernel` × `kernel` at stride `stride`, padded by `pad`.
    fn pool(
        &mut self,
        op: &str,
        name: &str,
        input: &Operand,
        kernel: usize,
        stride: usize,
        pad: usize,
    ) -> Operand {
        let [n, c, h, w] = input.ty.shape[..] else {
            unreachable!("pools take NCHW")
        };
        let out = [
            n,
            c,
            (h + 2 * pad - kernel) / stride + 1,
            (w + 2 * pad - kernel) / stride + 1,
        ];
        let attributes = [
            ("kernel", Attribute::Ints(vec![kernel as i64; 2])),
            ("strides", Attribute::Ints(vec![stride as i64; 2])),
            ("pads", Attribute::Ints(vec![pad as i64; 4])),
        ];
        self.body
            .op1(op, &[input], &attributes, f32_type(&out), name)
    }

    /// global average pool → flatten → the 1000-class fully connected layer; returns the module.
    fn classifier(mut self, name: &str, input: TensorType, x: &Operand) -> BuiltinModel {
        let [batch, channels, ..] = x.ty.shape[..] else {
            unreachable!("the classifier takes NCHW")
        };
        let pooled = self.body.op1(
            "graph.global_avg_pool",
            &[x],
            &[],
            f32_type(&[batch, channels, 1, 1]),
            "avgpool",
        );
        let flat = self.body.op1(
            "graph.flatten",
            &[&pooled],
            &[("axis", Attribute::Int(1))],
            f32_type(&[batch, channels]),
            "flatten",
        );
        let fc = self.weight("fc.weight", &[1000, channels], 1.0 / channels as f32);
        let fc_bias = self.weight("fc.bias", &[1000], 0.01);
        let logits = self.body.op1(
            "graph.gemm",
            &[&flat, &fc, &fc_bias],
            &[("trans_b", Attribute::Bool(true))],
            f32_type(&[batch, 1000]),
            "fc",
        );
        self.body.ret(&[&logits], "output");
        let module = GraphModule {
            weights_file: None,
            location: name.to_owned(),
            inputs: vec![Signature {
                name: "input".into(),
                ty: input,
            }],
            outputs: vec![Signature {
                name: "output".into(),
                ty: logits.ty,
            }],
            body: self.body,
        };
        BuiltinModel {
            module,
            weights: self.weights,
        }
    }
}

/// ResNet with `blocks` per stage: bottlenecks (ResNet-50) or basic blocks (ResNet-18).
fn resnet(name: &str, batch: usize, blocks: &[usize], bottleneck: bool) -> BuiltinModel {
    let mut b = Builder {
        body: FunctionBody::default(),
        weights: Weights::empty(),
        random: SplitMix(50),
    };
    let input = GraphModule::argument(0, f32_type(&[batch, 3, 224, 224]));
    let x = b.conv("conv1", &input, 64, 7, 2, true, 2.0);
    let mut x = b.pool("graph.max_pool2d", "maxpool", &x, 3, 2, 1);
    let expansion = if bottleneck { 4 } else { 1 };
    for (stage, &count) in blocks.iter().enumerate() {
        let width = 64 << stage;
        for block in 0..count {
            let stride = if block == 0 && stage > 0 { 2 } else { 1 };
            let prefix = format!("layer{}.{block}", stage + 1);
            let branch = if bottleneck {
                let a = b.conv(&format!("{prefix}.conv1"), &x, width, 1, 1, true, 2.0);
                let c = b.conv(&format!("{prefix}.conv2"), &a, width, 3, stride, true, 2.0);
                b.conv(
                    &format!("{prefix}.conv3"),
                    &c,
                    width * expansion,
                    1,
                    1,
                    false,
                    0.5,
                )
            } else {
                let a = b.conv(&format!("{prefix}.conv1"), &x, width, 3, stride, true, 2.0);
                b.conv(&format!("{prefix}.conv2"), &a, width, 3, 1, false, 0.5)
            };
            let shortcut = if stride != 1 || x.ty.shape[1] != width * expansion {
                b.conv(
                    &format!("{prefix}.downsample"),
                    &x,
                    width * expansion,
                    1,
                    stride,
                    false,
                    1.0,
                )
            } else {
                x.clone()
            };
            let ty = branch.ty.clone();
            let sum = b.body.op1(
                "graph.add",
                &[&branch, &shortcut],
                &[],
                ty.clone(),
                &format!("{prefix}.add"),
            );
            x = b
                .body
                .op1("graph.relu", &[&sum], &[], ty, &format!("{prefix}.relu"));
        }
    }
    b.classifier(name, input.ty, &x)
}

/// DenseNet-BC with `blocks` layers per dense block (torchvision's DenseNet-121 for
/// [6, 12, 24, 16]).
fn densenet(name: &str, batch: usize, blocks: &[usize]) -> BuiltinModel {
    const GROWTH: usize = 32;
    const BOTTLENECK: usize = 4 * GROWTH;
    let mut b = Builder {
        body: FunctionBody::default(),
        weights: Weights::empty(),
        random: SplitMix(121),
    };
    let input = GraphModule::argument(0, f32_type(&[batch, 3, 224, 224]));
    let x = b.conv_with(
        "features.conv0",
        &input,
        2 * GROWTH,
        7,
        2,
        false,
        2.0,
        false,
    );
    let x = b.norm_relu("features.norm0", &x);
    let mut x = b.pool("graph.max_pool2d", "features.pool0", &x, 3, 2, 1);
    for (index, &layers) in blocks.iter().enumerate() {
        let block = format!("features.denseblock{}", index + 1);
        for layer in 0..layers {
            let prefix = format!("{block}.denselayer{}", layer + 1);
            let a = b.norm_relu(&format!("{prefix}.norm1"), &x);
            let a = b.conv_with(
                &format!("{prefix}.conv1"),
                &a,
                BOTTLENECK,
                1,
                1,
                false,
                2.0,
                false,
            );
            let a = b.norm_relu(&format!("{prefix}.norm2"), &a);
            let new = b.conv_with(
                &format!("{prefix}.conv2"),
                &a,
                GROWTH,
                3,
                1,
                false,
                2.0,
                false,
            );
            let mut shape = x.ty.shape.clone();
            shape[1] += GROWTH;
            x = b.body.op1(
                "graph.concat",
                &[&x, &new],
                &[("axis", Attribute::Int(1))],
                f32_type(&shape),
                &format!("{prefix}.cat"),
            );
        }
        if index + 1 < blocks.len() {
            let prefix = format!("features.transition{}", index + 1);
            let a = b.norm_relu(&format!("{prefix}.norm"), &x);
            let a = b.conv_with(
                &format!("{prefix}.conv"),
                &a,
                x.ty.shape[1] / 2,
                1,
                1,
                false,
                2.0,
                false,
            );
            x = b.pool("graph.avg_pool2d", &format!("{prefix}.pool"), &a, 2, 2, 0);
        }
    }
    let x = b.norm_relu("features.norm5", &x);
    b.classifier(name, input.ty, &x)
}
