//! `instance-stitch`: the data movement between instances that their bindings and scopes need
//! (GraphTurbo §3.5, Fig. 8-9).
//!
//! `instance-split` already joins the producer instances a consumer reads with `instance.concat`
//! and cuts what it reads of a larger tensor with `instance.slice` (the split op of §3.6): it is
//! the pass that knows the slices, and it creates a join only where one is read. What is left for
//! stitching is where the producers' output lies against what the consumer needs. For each operand
//! of each instance made of other instances' outputs: when the consumer's binding asks the operand
//! to be spread other than the producers spread it, an `instance.redistribute` resets the binding
//! to the smaller factor of the two per dimension (Fig. 9 right: the cores exchange the data);
//! when the producers left it in another scope than the consumer's, an `instance.copy` moves it
//! there (Fig. 9 left). Both are inserted just before the consumer, on the slice it reads, so
//! that only what it reads moves. An operand that already arrives through a redistribution or a
//! copy has the binding and scope these give it, so that stitching again moves nothing.

use crate::slicing::binding::{binding_of, cores, producers, scope_of, spelled, Binding, Instance};
use crate::{
    ir::{create, i64_array, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use turbine_dialects::attributes::{instance::Scope, EnumAttribute};
use turbine_dialects::ops::{instance, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct InstanceStitch {
    explain: bool,
}

impl Pass for InstanceStitch {
    const ARGUMENT: &'static str = "instance-stitch";
    const SUMMARY: &'static str =
        "Insert the copies and redistributions between bound instances (GraphTurbo §3.5)";
    const DESCRIPTION: &'static str = "\
For each operand of each instance that is made of other instances' outputs (directly or through \
the instance.concat and instance.slice that instance-split inserted): when the binding the \
consumer needs of it (its bound output dimensions matched to the operand's) differs from the \
producers', inserts `instance.redistribute` to the smaller factor of the two per dimension; when \
the producers' scope differs from the consumer's, inserts `instance.copy` to the consumer's scope. \
Both go just before the consumer, on what it reads. Needs `bind` and `scope` on every instance \
(instance-bind). With `explain`, a remark on the function counts the concatenations, slices, \
copies and redistributions between instances, and one on each instance that needed movement says \
which.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "explain",
        description:
            "Emit remarks counting the stitching ops and naming each copy and redistribution",
        kind: OptionKind::Bool,
        default: "false",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        crate::instance::scopes::schedule_each(operation, |function, scope| {
            self.schedule(function, scope)
        })
    }
}

impl InstanceStitch {
    /// Schedules one cluster program (`scope`) of `function`.
    fn schedule(&self, function: Op, scope: Op) -> Result<(), PassFailure> {
        let ops = scope.body_ops();
        let mut instances = Vec::new();
        for instance in Instance::read_all(&ops)? {
            let (Some(binding), Some(scope)) = (binding_of(instance.op), scope_of(instance.op))
            else {
                instance.op.emit_error(&format!(
                    "instance {} has no bind and scope: run instance-bind first",
                    instance.name
                ));
                return Err(PassFailure);
            };
            instances.push((instance, binding, scope));
        }
        let mut counts = Counts::default();
        for (consumer, binding, scope) in &instances {
            let mut moved = Vec::new();
            let needs = consumer.needs(binding);
            for (position, need) in needs.into_iter().enumerate() {
                counts.stitch_operand(consumer, *scope, position, &need, &mut moved);
            }
            if self.explain && !moved.is_empty() {
                consumer.op.emit_remark(&format!(
                    "{} ({} cores, {}): {}",
                    consumer.name,
                    cores(binding),
                    scope.keyword(),
                    moved.join("; ")
                ));
            }
        }
        if self.explain && !instances.is_empty() {
            let count = |kind: instance::Kind| ops.iter().filter(|op| op.is(kind)).count();
            function.emit_remark(&format!(
                "{} instances stitched by {} concatenations and {} slices (from instance-split), \
                 {} copies and {} redistributions",
                instances.len(),
                count(instance::Kind::Concat),
                count(instance::Kind::Slice),
                counts.copies,
                counts.redistributions,
            ));
        }
        Ok(())
    }
}

/// The stitches the pass made.
#[derive(Default)]
struct Counts {
    /// `instance.copy` ops.
    copies: usize,
    /// `instance.redistribute` ops.
    redistributions: usize,
}

impl Counts {
    /// Stitches operand `position` of `consumer` (in `scope`, needing the operand bound `need`)
    /// to its producers, before the consumer: a redistribution when their binding differs from
    /// what it needs (Fig. 9 right), then a copy when their scope differs (Fig. 9 left). Counts
    /// them and describes them in `moved`.
    fn stitch_operand(
        &mut self,
        consumer: &Instance,
        scope: Scope,
        position: usize,
        need: &Binding,
        moved: &mut Vec<String>,
    ) {
        let operand = consumer.op.operand(position);
        let sources = producers(operand);
        if sources.is_empty() {
            return;
        }
        let mut value = operand;
        let (stitched_binding, stitched_scope) = stitched(operand);
        // Fig. 9 right: the producers' binding against what the consumer needs.
        let rank = consumer.body.arguments[position].1.shape.len();
        let complete = stitched_binding.is_some();
        let bindings: Vec<Binding> = match stitched_binding {
            Some(binding) => vec![binding],
            None => sources
                .iter()
                .filter(|(_, result)| *result == 0)
                .filter_map(|(op, _)| binding_of(*op))
                .filter(|b| b.len() == rank)
                .collect(),
        };
        if complete || bindings.len() == sources.len() {
            let from: Binding = (0..rank)
                .map(|d| bindings.iter().map(|b| b[d]).min().unwrap_or(1))
                .collect();
            let to: Binding = from.iter().zip(need).map(|(a, b)| *a.min(b)).collect();
            if to != from {
                value = redistribute(consumer.op, value, &from, &to);
                self.redistributions += 1;
                moved.push(format!(
                    "operand {position} redistributed {} -> {}",
                    spelled(&from),
                    spelled(&to)
                ));
            }
        }
        // Fig. 9 left: the producers' scope against the consumer's.
        let scopes: Vec<Scope> = match stitched_scope {
            Some(scope) => vec![scope],
            None => sources.iter().filter_map(|(op, _)| scope_of(*op)).collect(),
        };
        if let Some(from) = scopes.iter().copied().find(|from| *from != scope) {
            value = copy(consumer.op, value, scope);
            self.copies += 1;
            moved.push(format!(
                "operand {position} copied {} -> {}",
                from.keyword(),
                scope.keyword()
            ));
        }
        if value.raw().ptr != operand.raw().ptr {
            consumer.op.set_operand(position, value);
        }
    }
}

/// The binding and scope `value` arrives with when it comes through redistributions and copies
/// (the closest of each on the way back from the consumer).
fn stitched(mut value: Val) -> (Option<Binding>, Option<Scope>) {
    let (mut binding, mut scope) = (None, None);
    while let Some(op) = value.defining_op() {
        match op.kind().and_then(OpKind::instance) {
            Some(instance::Kind::Redistribute) => {
                binding = binding.or_else(|| {
                    let to = melior::ir::attribute::DenseI64ArrayAttribute::try_from(
                        op.attribute("to")?,
                    )
                    .ok()?;
                    Some(
                        (0..to.len())
                            .map(|index| to.element(index).map_or(1, |factor| factor as usize))
                            .collect(),
                    )
                })
            }
            Some(instance::Kind::Copy) => {
                scope = scope.or_else(|| Scope::from_attribute(op.attribute("scope")?))
            }
            Some(
                instance::Kind::Yield
                | instance::Kind::Clusters
                | instance::Kind::Group
                | instance::Kind::Instance
                | instance::Kind::Concat
                | instance::Kind::Slice,
            )
            | None => break,
        }
        value = op.operand(0);
    }
    (binding, scope)
}

/// An `instance.redistribute` of `value` from binding `from` to `to`, before `consumer`.
fn redistribute(consumer: Op, value: Val, from: &[usize], to: &[usize]) -> Val {
    // SAFETY: the consumer is alive.
    let context = unsafe { mlirOperationGetContext(consumer.raw()) };
    let factors = |binding: &[usize]| {
        binding
            .iter()
            .map(|&factor| factor as i64)
            .collect::<Vec<i64>>()
    };
    let attributes = [
        ("from", i64_array(context, &factors(from))),
        ("to", i64_array(context, &factors(to))),
    ];
    create(
        InsertionPoint::Before(consumer),
        consumer.location(),
        instance::Kind::Redistribute,
        &[value],
        &[value.r#type()],
        &attributes,
        Vec::new(),
    )
    .result(0)
}

/// An `instance.copy` of `value` into `scope`, before `consumer`.
fn copy(consumer: Op, value: Val, scope: Scope) -> Val {
    // SAFETY: the consumer is alive.
    let context = unsafe { mlirOperationGetContext(consumer.raw()) };
    let attributes = [("scope", scope.raw_attribute(context))];
    create(
        InsertionPoint::Before(consumer),
        consumer.location(),
        instance::Kind::Copy,
        &[value],
        &[value.r#type()],
        &attributes,
        Vec::new(),
    )
    .result(0)
}
