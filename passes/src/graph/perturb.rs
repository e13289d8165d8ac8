//! A planted fault for testing the numeric bisection (`turbine-run --bisect`):
//! `graph-substitute{test-perturb-op=NAME}` negates the result of the op at the name location
//! `NAME` (an ONNX node's name), as a wrong rewrite would, so that a test can check that the
//! bisection names that op and that pass. The option is empty, and this never runs, in every
//! real compile.

use crate::ir::{create, InsertionPoint, Op};
use melior::ir::Location;
use turbine_dialects::ops::graph;

/// Whether `op` is at the name location `name`.
fn is_named(op: Op, name: &str) -> bool {
    // SAFETY: the op is alive, so is its location.
    let location = unsafe { Location::from_raw(op.location()) };
    location.is_name() && location.name_value().as_string_ref().as_str() == Ok(name)
}

/// Negates the first result of the op of `function`'s body at the name location `name`, if it
/// has one: a `graph.neg` after it takes every use of that result. (A function without the op,
/// such as a prefix of the model the bisection compiles, is left as it is.)
pub(crate) fn negate_named_op(function: Op, name: &str) {
    let ops = function.body_ops();
    let Some(position) = ops
        .iter()
        .position(|&op| is_named(op, name) && !op.results().is_empty())
    else {
        return;
    };
    let (op, next) = (ops[position], ops[position + 1]);
    let result = op.result(0);
    let negated = create(
        InsertionPoint::Before(next),
        op.location(),
        graph::Kind::Neg,
        &[result],
        &[result.r#type()],
        &[],
        Vec::new(),
    );
    result.replace_all_uses_with(negated.result(0));
    negated.set_operand(0, result);
}
