//! `ConvTranspose` whose windows tile the output without overlap (stride equal to the kernel, no
//! dilation, padding or output padding, one group, a constant filter and bias): a 1×1
//! convolution to `M·kH·kW` channels and a pixel shuffle (`reshape`, `transpose`, `reshape`)
//! that moves each input pixel's `kH × kW` block into place. This is the upsampling layer of
//! U-Nets, FPNs and decoders (`nn.ConvTranspose2d(kernel_size=2, stride=2)`); as a convolution
//! over the input spread with zeros it would multiply every inserted zero too, `kH·kW` times the
//! products (docs/Onnx.md).

use super::compose::Compose;
use super::Builder;
use crate::emit::{Attribute, Operand};
use crate::node::Node;
use crate::tensor::{Data, Tensor};
use crate::types::TensorType;
use crate::value::Value;
use std::rc::Rc;

/// What the shuffle needs of the layer: its input and that input's shape lifted to NCHW, the
/// filter and its shape `[C, M, kH, kW]` (lifted), the optional bias `[M]`.
pub(super) struct Layer<'a> {
    pub x: &'a Operand,
    pub input: &'a [usize],
    pub filter: &'a Value,
    pub shape: &'a [usize],
    pub bias: Option<&'a Value>,
}

/// The layer as a 1×1 convolution and a pixel shuffle, or `None` when its filter or bias is
/// computed at run time (the caller spreads the input instead). The caller checked that the
/// windows tile the output: one group, strides equal to the kernel, no dilation, padding or
/// output padding.
pub(super) fn pixel_shuffle(builder: &mut Builder, node: &Node, layer: &Layer) -> Option<Operand> {
    let (Value::Const { name, tensor }, bias) = (layer.filter, layer.bias) else {
        return None;
    };
    let bias = match bias {
        None => None,
        Some(Value::Const { tensor, .. }) => Some(tensor),
        Some(Value::Dynamic(_)) => return None,
    };
    let (channels, outputs, height, width) = (
        layer.shape[0],
        layer.shape[1],
        layer.shape[2],
        layer.shape[3],
    );
    let block = height * width;
    let filter = Value::Const {
        name: format!("{name}.pixels"),
        tensor: Rc::new(per_pixel_filter(tensor, channels, outputs * block)),
    };
    let filter = builder.operand(&filter);
    let bias = bias.map(|bias| {
        let repeated = (0..outputs * block).map(|k| k / block).collect::<Vec<_>>();
        builder.operand(&Value::Const {
            name: format!("{name}.pixel_bias"),
            tensor: Rc::new(Tensor::new(
                vec![outputs * block],
                bias.data.take(&repeated),
            )),
        })
    });
    let mut compose = Compose::new(builder, node);
    let x = compose.reshape(layer.x, layer.input.to_vec());
    let [n, _, h, w] = [
        layer.input[0],
        layer.input[1],
        layer.input[2],
        layer.input[3],
    ];
    let mut operands = vec![&x, &filter];
    operands.extend(bias.as_ref());
    let pixels = TensorType::new(vec![n, outputs * block, h, w], x.ty.element);
    let pixels = compose.op("graph.conv2d", &operands, &[], pixels);
    // [N·M, kH, kW, H, W] → [N·M, H, kH, W, kW] → [N, M, H·kH, W·kW].
    let blocks = compose.reshape(&pixels, vec![n * outputs, height, width, h, w]);
    let permutation = vec![0, 3, 1, 4, 2];
    let placed = TensorType::new(vec![n * outputs, h, height, w, width], pixels.ty.element);
    let attributes = [("permutation", Attribute::Ints(permutation))];
    let placed = compose.op("graph.transpose", &[&blocks], &attributes, placed);
    Some(compose.reshape(&placed, vec![n, outputs, h * height, w * width]))
}

/// The filter `[C, M, kH, kW]` as a 1×1 convolution's `[M·kH·kW, C, 1, 1]`: output channel
/// `(m, i, j)` reads input channel `c` with weight `W[c, m, i, j]`.
fn per_pixel_filter(filter: &Tensor, channels: usize, rows: usize) -> Tensor {
    let indices: Vec<usize> = (0..rows)
        .flat_map(|row| (0..channels).map(move |c| c * rows + row))
        .collect();
    let data: Data = filter.data.take(&indices);
    Tensor::new(vec![rows, channels, 1, 1], data)
}
