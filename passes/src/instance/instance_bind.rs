//! `instance-bind`: core bindings and buffer scopes of the instances (GraphTurbo §3.4,
//! Algorithm 4).
//!
//! The order of Algorithm 3 is walked in reverse, so that consumers decide before their
//! producers. An instance with no binding yet, or one whose scope is no longer LB, takes the plain
//! strategy ([`Instance::plain`]); one whose binding a consumer inferred keeps it unless the plain
//! strategy uses more cores (line 16). Its binding is then passed to the producers of its
//! operands by matching dimensions ([`Instance::need`]): a producer without a binding takes it,
//! one bound otherwise gets scope GB (the cores must exchange its output, line 11-12), one bound
//! alike stays in LB. The listing passes bindings on only from instances bound by the plain
//! strategy; here every instance passes its final binding on, so that a chain of instances that
//! agree is bound alike end to end instead of meeting the plain strategy at every second link.
//! Beyond the paper, an output whose share per core does not fit a core's local buffer is put in
//! the global buffer: hw-group sizes instances against the global buffer by default.

use crate::slicing::binding::{cores, producers, spelled, Binding, Instance};
use crate::{
    ir::{i64_array, Op},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    target::Machine,
};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::collections::HashMap;
use turbine_dialects::attributes::{instance::Scope, EnumAttribute};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct InstanceBind {
    target: String,
    explain: bool,
}

impl Pass for InstanceBind {
    const ARGUMENT: &'static str = "instance-bind";
    const SUMMARY: &'static str =
        "Bind instances to cores and infer their buffer scopes (GraphTurbo Algorithm 4)";
    const DESCRIPTION: &'static str = "\
Walks the instances in reverse order (`order`, from instance-order). An instance without a \
binding, or whose scope is not LB, gets the plain binding: output dimensions from outer to inner \
take the largest factor of the cluster's free cores (8, 4, 2, 1 on 8 cores) that divides their \
extent, skipping dimensions a core cannot compute a share of on its own (a softmax's or layer \
norm's axis, reduced dimensions); an instance whose binding a consumer inferred keeps it unless the \
plain binding uses more cores. Each instance passes its binding to the producers of its operands \
by matching dimensions (a bound output dimension whose share reads one share of the operand along \
one dimension): a producer without a binding takes it, one bound otherwise gets scope GB, one bound \
alike keeps LB. An output whose share per core exceeds a core's local buffer gets scope GB. Sets \
`bind` (cores per output dimension) and `scope` on every instance. With `explain`, a remark on \
each instance gives its binding, where it came from, and why its scope is GB.";
    const ANCHOR: &'static str = "func.func";
    const OPTIONS: &'static [OptionInfo] = &[
        crate::target::TARGET_OPTION,
        OptionInfo {
            name: "explain",
            description:
                "Emit a remark on each instance with its binding, its origin and its scope",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            target: options.string("target"),
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        crate::instance::scopes::schedule_each(operation, |function, scope| {
            self.schedule(function, scope)
        })
    }
}

impl InstanceBind {
    /// Schedules one cluster program (`scope`) of `function`.
    fn schedule(&self, function: Op, scope: Op) -> Result<(), PassFailure> {
        let ops = scope.body_ops();
        if let Some(group) = ops.iter().find(|op| op.name() == "instance.group") {
            group.emit_error(
                "instance-bind binds instances: run instance-split and instance-order first",
            );
            return Err(PassFailure);
        }
        let mut instances = Instance::read_all(&ops)?;
        if instances.is_empty() {
            return Ok(());
        }
        let machine = Machine::for_function(function, &self.target, Self::ARGUMENT)?;
        instances.sort_by_key(|instance| instance.order);
        let position: HashMap<usize, usize> = instances
            .iter()
            .enumerate()
            .map(|(i, instance)| (instance.op.0.ptr as usize, i))
            .collect();
        let count = instances.len();
        let mut bind: Vec<Option<Binding>> = vec![None; count];
        let mut scope = vec![Scope::Lb; count];
        let mut why: Vec<Vec<String>> = vec![Vec::new(); count];
        // GraphTurbo Algorithm 4: the order in reverse.
        for i in (0..count).rev() {
            let instance = &instances[i];
            let plain = instance.plain(machine.cores_per_cluster);
            let chosen = match &bind[i] {
                // Lines 4-5.
                None => {
                    why[i].push(format!("plain {}", spelled(&plain)));
                    plain.clone()
                }
                Some(_) if scope[i] != Scope::Lb => {
                    why[i].push(format!(
                        "plain {} (in GB, the inferred binding does not hold)",
                        spelled(&plain)
                    ));
                    plain.clone()
                }
                // Lines 15-16: keep the inferred binding unless the plain one uses more cores.
                Some(inferred) if cores(&plain) > cores(inferred) => {
                    why[i].push(format!(
                        "plain {} uses more cores than the inferred {}",
                        spelled(&plain),
                        spelled(inferred)
                    ));
                    plain.clone()
                }
                Some(inferred) => inferred.clone(),
            };
            bind[i] = Some(chosen.clone());
            // Lines 6-14: pass the binding on to the producers of the operands.
            for (operand, need) in instance.needs(&chosen).into_iter().enumerate() {
                if cores(&need) < 2 {
                    continue;
                }
                for (producer, result) in producers(instance.op.operand(operand)) {
                    let Some(&j) = position.get(&(producer.0.ptr as usize)) else {
                        continue;
                    };
                    if result != 0
                        || instances[j].shape.len() != need.len()
                        || instances[j]
                            .shape
                            .iter()
                            .zip(&need)
                            .any(|(e, f)| e % f != 0)
                    {
                        continue;
                    }
                    match &bind[j] {
                        None => {
                            bind[j] = Some(need.clone());
                            why[j].push(format!(
                                "inferred {} from {}",
                                spelled(&need),
                                instance.name
                            ));
                        }
                        Some(existing) if *existing != need && scope[j] == Scope::Lb => {
                            scope[j] = Scope::Gb;
                            why[j].push(format!(
                                "scope gb: {} needs it bound {} but it is bound {}",
                                instance.name,
                                spelled(&need),
                                spelled(existing)
                            ));
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        // Beyond the paper: a core's share of the output must fit its local buffer.
        for (i, instance) in instances.iter().enumerate() {
            let binding = bind[i].as_ref().expect("every instance is bound");
            let bytes: usize = (0..instance.body.returned().len())
                .map(|r| instance.body.type_of(instance.body.returned()[r]).bytes())
                .sum();
            let share = bytes.div_ceil(cores(binding));
            if scope[i] == Scope::Lb && share > machine.lb_bytes {
                scope[i] = Scope::Gb;
                why[i].push(format!("scope gb: its share of {share} bytes per core exceeds the {} bytes of a local buffer", machine.lb_bytes));
            }
        }
        // SAFETY: the function is alive.
        let context = unsafe { mlirOperationGetContext(function.0) };
        for (i, instance) in instances.iter().enumerate() {
            let binding = bind[i].as_ref().expect("every instance is bound");
            let factors: Vec<i64> = binding.iter().map(|&factor| factor as i64).collect();
            instance
                .op
                .set_attribute("bind", i64_array(context, &factors));
            instance
                .op
                .set_attribute("scope", scope[i].raw_attribute(context));
            if self.explain {
                instance.op.emit_remark(&format!(
                    "{} bound {} ({} cores), scope {}: {}",
                    instance.name,
                    spelled(binding),
                    cores(binding),
                    scope[i].keyword(),
                    why[i].join("; ")
                ));
            }
        }
        Ok(())
    }
}
