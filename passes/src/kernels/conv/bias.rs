//! The biases a conv layer's epilogue adds, each joining it under a value id of its own: the
//! layer's, then that of the convolution it absorbs; and the bias of the 1×1 convolution a
//! layer's tiles feed (a chain), which joins that convolution's epilogue.

use crate::graph_view::{Node, ValueId};
use crate::kernels::layers::{self, Elementwise, Operand, Step};
use std::collections::BTreeMap;
use turbine_dialects::attributes::dsa::BinaryKind;

/// The value id under which a conv's bias, viewed as `[1, C, 1, 1]`, joins its epilogue: far
/// above the program's ids and the lowering's other synthetic ones.
const BIAS_VIEW: usize = usize::MAX - 1;

/// The same for the bias of the convolution a layer absorbs.
const ABSORBED_BIAS_VIEW: usize = usize::MAX - 2;

/// The same for the bias of the 1×1 convolution a layer's tiles feed.
const CHAINED_BIAS_VIEW: usize = usize::MAX - 3;

/// Whether `value` is one of the ids [`biases`] and [`chained_bias`] give: a view the lowering
/// makes, read from where the input is.
pub(super) fn is_bias_view(value: ValueId) -> bool {
    [BIAS_VIEW, ABSORBED_BIAS_VIEW, CHAINED_BIAS_VIEW].contains(&value)
}

/// The steps a conv epilogue starts with: the addition of each of `biases` (its view id and the
/// op it comes from), the view's shape `[1, channels, 1, 1]` recorded in `shapes`, then the fused
/// activation of `node`.
pub(super) fn leading_steps<'n>(
    node: &Node,
    biases: impl Iterator<Item = (ValueId, &'n Node)>,
    channels: usize,
    shapes: &mut BTreeMap<ValueId, Vec<usize>>,
) -> Vec<Step> {
    let mut steps = Vec::new();
    for (view, anchor) in biases {
        shapes.insert(view, vec![1, channels, 1, 1]);
        steps.push(Step::chained(
            Elementwise::Binary {
                kind: BinaryKind::Add,
            },
            vec![Operand::Chain, Operand::External(view)],
            anchor.op.location(),
        ));
    }
    if let Some(activation) = node.activation() {
        steps.push(Step::chained(
            layers::activation_step(activation),
            vec![Operand::Chain],
            node.op.location(),
        ));
    }
    steps
}

/// The bias of the 1×1 convolution `chained` a layer's tiles feed, with the view id it joins that
/// convolution's epilogue under, if it has one.
pub(super) fn chained_bias(chained: &Node) -> Option<(ValueId, ValueId)> {
    Some((CHAINED_BIAS_VIEW, *chained.operands.get(2)?))
}

/// The biases the epilogue of the conv `node` adds, with the view id each joins it under and the
/// op it comes from: its own, then that of the convolution it absorbs.
pub(super) fn biases<'n>(
    node: &'n Node,
    absorbed: Option<&'n Node>,
) -> impl Iterator<Item = (ValueId, &'n Node, ValueId)> {
    [(BIAS_VIEW, Some(node)), (ABSORBED_BIAS_VIEW, absorbed)]
        .into_iter()
        .filter_map(|(view, anchor)| Some((view, anchor?, *anchor?.operands.get(2)?)))
}
