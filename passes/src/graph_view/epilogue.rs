//! The elementwise epilogue of an op: the one definition that hw-group (a layer's auxiliary ops,
//! GraphTurbo §3.1) and the layer-wise lowering (the ops fused after an anchor, as TVM's fusion
//! does) share.
//!
//! An op joins the epilogue of the value it refines when it is elementwise (the dialect's
//! `Elementwise` trait), is the value's only reader and reads it once (`x * x` is not a step on a
//! tile), keeps its shape, and the value is not also a result of the function (it must then reach
//! DDR whole). What the op's other operands may be is
//! the caller's policy: hw-group takes weights only, so that a residual add of two activations
//! stays a layer of its own; the lowering takes any value already computed.

use super::function::FunctionView;
use super::types::ValueId;

impl FunctionView {
    /// The op that extends an epilogue past `value`, if any: see the module documentation;
    /// `other_operand` accepts the op's operands other than `value`.
    pub fn epilogue_reader(
        &self,
        value: ValueId,
        other_operand: impl Fn(ValueId) -> bool,
    ) -> Option<usize> {
        if self.returned().contains(&value) {
            return None;
        }
        let &[reader] = self.readers(value) else {
            return None;
        };
        let node = &self.ops[reader];
        let [(_, r#type)] = node.results.as_slice() else {
            return None;
        };
        let keeps_shape = r#type.shape == self.type_of(value).shape;
        let reads_once = node
            .operands
            .iter()
            .filter(|&&operand| operand == value)
            .count()
            == 1;
        let others_accepted = node
            .operands
            .iter()
            .all(|&operand| operand == value || other_operand(operand));
        (node.elementwise && reads_once && keeps_shape && others_accepted).then_some(reader)
    }
}
