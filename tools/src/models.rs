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
pub const MODELS: &[&str] = &["resnet50", "resnet18"];

/// Builds the model called `name` with batch size `batch`.
pub fn builtin(name: &str, batch: usize) -> Option<BuiltinModel> {
    match name {
        "resnet50" => Some(resnet(name, batch, &[3, 4, 6, 3], true)),
        "resnet18" => Some(resnet(name, batch, &[2, 2, 2, 2], false)),
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
        self.weights.insert(name, Tensor::f32(shape.to_vec(), values));
        self.body.weight(name, f32_type(shape), name)
    }

    /// conv (+ bias) (+ relu) on `input` of shape [N, C, H, W].
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
        let [n, c, h, w] = input.ty.shape[..] else { unreachable!("convolutions take NCHW") };
        let fan_in = c * kernel * kernel;
        let filter = self.weight(&format!("{name}.weight"), &[channels, c, kernel, kernel], variance_scale / fan_in as f32);
        let bias = self.weight(&format!("{name}.bias"), &[channels], 0.01);
        let pad = kernel / 2;
        let out = [n, channels, (h + 2 * pad - kernel) / stride + 1, (w + 2 * pad - kernel) / stride + 1];
        let stride = stride as i64;
        let pad = pad as i64;
        let mut attributes = vec![("strides", Attribute::Ints(vec![stride; 2])), ("pads", Attribute::Ints(vec![pad; 4]))];
        if relu {
            attributes.push(("activation", Attribute::Enum("activation", "relu")));
        }
        self.body.op1("graph.conv2d", &[input, &filter, &bias], &attributes, f32_type(&out), name)
    }
}

/// ResNet with `blocks` per stage: bottlenecks (ResNet-50) or basic blocks (ResNet-18).
fn resnet(name: &str, batch: usize, blocks: &[usize], bottleneck: bool) -> BuiltinModel {
    let mut b = Builder { body: FunctionBody::default(), weights: Weights::empty(), random: SplitMix(50) };
    let input = GraphModule::argument(0, f32_type(&[batch, 3, 224, 224]));
    let x = b.conv("conv1", &input, 64, 7, 2, true, 2.0);
    let pooled_shape = [batch, 64, x.ty.shape[2] / 2, x.ty.shape[3] / 2];
    let pool_attributes = [
        ("kernel", Attribute::Ints(vec![3, 3])),
        ("strides", Attribute::Ints(vec![2, 2])),
        ("pads", Attribute::Ints(vec![1; 4])),
    ];
    let mut x = b.body.op1("graph.max_pool2d", &[&x], &pool_attributes, f32_type(&pooled_shape), "maxpool");
    let expansion = if bottleneck { 4 } else { 1 };
    for (stage, &count) in blocks.iter().enumerate() {
        let width = 64 << stage;
        for block in 0..count {
            let stride = if block == 0 && stage > 0 { 2 } else { 1 };
            let prefix = format!("layer{}.{block}", stage + 1);
            let branch = if bottleneck {
                let a = b.conv(&format!("{prefix}.conv1"), &x, width, 1, 1, true, 2.0);
                let c = b.conv(&format!("{prefix}.conv2"), &a, width, 3, stride, true, 2.0);
                b.conv(&format!("{prefix}.conv3"), &c, width * expansion, 1, 1, false, 0.5)
            } else {
                let a = b.conv(&format!("{prefix}.conv1"), &x, width, 3, stride, true, 2.0);
                b.conv(&format!("{prefix}.conv2"), &a, width, 3, 1, false, 0.5)
            };
            let shortcut = if stride != 1 || x.ty.shape[1] != width * expansion {
                b.conv(&format!("{prefix}.downsample"), &x, width * expansion, 1, stride, false, 1.0)
            } else {
                x.clone()
            };
            let ty = branch.ty.clone();
            let sum = b.body.op1("graph.add", &[&branch, &shortcut], &[], ty.clone(), &format!("{prefix}.add"));
            x = b.body.op1("graph.relu", &[&sum], &[], ty, &format!("{prefix}.relu"));
        }
    }
    let channels = x.ty.shape[1];
    let pooled = b.body.op1("graph.global_avg_pool", &[&x], &[], f32_type(&[batch, channels, 1, 1]), "avgpool");
    let flat = b.body.op1("graph.flatten", &[&pooled], &[("axis", Attribute::Int(1))], f32_type(&[batch, channels]), "flatten");
    let fc = b.weight("fc.weight", &[1000, channels], 1.0 / channels as f32);
    let fc_bias = b.weight("fc.bias", &[1000], 0.01);
    let logits = b.body.op1("graph.gemm", &[&flat, &fc, &fc_bias], &[("trans_b", Attribute::Bool(true))], f32_type(&[batch, 1000]), "fc");
    b.body.ret(&[&logits], "output");
    let module = GraphModule {
        weights_file: None,
        location: name.to_owned(),
        inputs: vec![Signature { name: "input".into(), ty: input.ty }],
        outputs: vec![Signature { name: "output".into(), ty: logits.ty }],
        body: b.body,
    };
    BuiltinModel { module, weights: b.weights }
}
