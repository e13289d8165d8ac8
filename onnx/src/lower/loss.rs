//! The classification losses, composed from graph operations: `NegativeLogLikelihoodLoss` picks
//! each target's value along the class axis (`graph.gather_elements`) and negates it;
//! `SoftmaxCrossEntropyLoss` does the same to `LogSoftmax` of its scores (composed as in
//! `normalization.rs`), whose result is its optional second output.
//!
//! Class weights are gathered per target (`graph.gather`); a target equal to `ignore_index` weighs
//! 0 and reads class 0 instead, so that no index is out of range. `mean` divides by the sum of the
//! weights when there are weights (ONNX's rule), by the element count otherwise.

use super::compose::Compose;
use super::{float_input, Builder};
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// How the per-element losses combine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reduction {
    /// One loss per target (`none`).
    Keep,
    Sum,
    Mean,
}

/// `NegativeLogLikelihoodLoss` and `SoftmaxCrossEntropyLoss`.
pub fn loss(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let scores = float_input(node, inputs, 0, "input")?;
    let target = inputs.required(1, "target")?;
    let (ty, target_ty) = (scores.ty(), target.ty());
    let expected: Vec<usize> = (ty.shape.iter().enumerate())
        .filter_map(|(d, &size)| (d != 1).then_some(size))
        .collect();
    if ty.rank() < 2 || target_ty.shape != expected {
        return Err(node.invalid(format!(
            "target shape {:?} does not fit scores of shape {:?} (N, C, d1, ...)",
            target_ty.shape, ty.shape
        )));
    }
    if !matches!(target_ty.element, ElementType::I32 | ElementType::I64) {
        return Err(node.invalid(format!("target is {}, not integers", target_ty.element)));
    }
    let reduction = match node.string("reduction", "mean")?.as_str() {
        "none" => Reduction::Keep,
        "sum" => Reduction::Sum,
        "mean" => Reduction::Mean,
        other => return Err(node.invalid(format!("unknown reduction '{other}'"))),
    };
    let weight = match inputs.get(2) {
        None => None,
        Some(_) => {
            let weight = float_input(node, inputs, 2, "weight")?;
            if weight.ty().shape != [ty.shape[1]] {
                return Err(node.invalid(format!(
                    "weight shape {:?} is not [{}]",
                    weight.ty().shape,
                    ty.shape[1]
                )));
            }
            Some(builder.operand(weight))
        }
    };
    let ignored = if node.has("ignore_index") {
        Some(node.int("ignore_index", 0)?)
    } else {
        None
    };
    let scores = builder.operand(scores);
    let target = builder.operand(target);
    let mut compose = Compose::new(builder, node);
    let log_prob = match node.op_type() {
        "SoftmaxCrossEntropyLoss" => Some(compose.log_softmax(&scores, 1)?),
        _ => None,
    };
    let values = log_prob.as_ref().unwrap_or(&scores);
    let weighted = Weighted {
        target,
        weight,
        ignored,
    };
    let loss = weighted.loss(&mut compose, values, reduction)?;
    let mut outputs = vec![Value::Dynamic(loss)];
    outputs.extend(log_prob.map(Value::Dynamic));
    Ok(outputs)
}

/// The targets with their optional class weights and ignored class.
struct Weighted {
    target: Operand,
    weight: Option<Operand>,
    ignored: Option<i64>,
}

impl Weighted {
    /// The loss of `values` (`[N, C, d...]`, log-probabilities) at the targets.
    fn loss(
        &self,
        compose: &mut Compose,
        values: &Operand,
        reduction: Reduction,
    ) -> Result<Operand, ImportError> {
        let (target, kept) = self.safe_target(compose)?;
        let mut shape = values.ty.shape.clone();
        shape[1] = 1;
        let indices = compose.reshape(&target, shape);
        let attributes = [("axis", Attribute::Int(1))];
        let picked_ty = TensorType::new(indices.ty.shape.clone(), values.ty.element);
        let picked = compose.op(
            "graph.gather_elements",
            &[values, &indices],
            &attributes,
            picked_ty,
        );
        let picked = compose.reshape(&picked, target.ty.shape.clone());
        let negated = compose.unary("graph.neg", &picked);
        let weights = self.weights(compose, &target, kept.as_ref(), values.ty.element)?;
        let loss = match &weights {
            Some(weights) => compose.binary("graph.mul", &negated, weights)?,
            None => negated,
        };
        let all: Vec<usize> = (0..loss.ty.rank()).collect();
        Ok(match (reduction, &weights) {
            (Reduction::Keep, _) => loss,
            (Reduction::Sum, _) => compose.reduce("graph.reduce_sum", &loss, &all, false),
            (Reduction::Mean, None) => compose.reduce("graph.reduce_mean", &loss, &all, false),
            (Reduction::Mean, Some(weights)) => {
                let total = compose.reduce("graph.reduce_sum", &loss, &all, false);
                let weight = compose.reduce("graph.reduce_sum", weights, &all, false);
                compose.binary("graph.div", &total, &weight)?
            }
        })
    }

    /// The targets with `ignore_index` replaced by class 0, and where they were kept.
    fn safe_target(
        &self,
        compose: &mut Compose,
    ) -> Result<(Operand, Option<Operand>), ImportError> {
        let Some(ignored) = self.ignored else {
            return Ok((self.target.clone(), None));
        };
        let element = self.target.ty.element;
        let ignore = compose.integer(element, ignored);
        let kept = compose.compare("ne", &self.target, &ignore)?;
        let zero = compose.integer(element, 0);
        let target = compose.select(&kept, &self.target, &zero)?;
        Ok((target, Some(kept)))
    }

    /// Each target's weight: its class weight, 0 where it is ignored; None when every weight is 1.
    fn weights(
        &self,
        compose: &mut Compose,
        target: &Operand,
        kept: Option<&Operand>,
        element: ElementType,
    ) -> Result<Option<Operand>, ImportError> {
        let kept = kept.map(|kept| {
            let ty = kept.ty.with_element(element);
            compose.op("graph.cast", &[kept], &[], ty)
        });
        let Some(weight) = &self.weight else {
            return Ok(kept);
        };
        let attributes = [("axis", Attribute::Int(0))];
        let ty = TensorType::new(target.ty.shape.clone(), element);
        let gathered = compose.op("graph.gather", &[weight, target], &attributes, ty);
        Ok(Some(match kept {
            Some(kept) => compose.binary("graph.mul", &gathered, &kept)?,
            None => gathered,
        }))
    }
}
