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
use turbine_dialects::ops::{instance, upstream, OpKind};
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
norm's axis, reduced dimensions); an instance whose binding a consumer inferred keeps it unless \
the plain binding uses more cores. Each instance passes its binding to the producers of its \
operands by matching dimensions (a bound output dimension whose share reads one share of the \
operand along one dimension): a producer without a binding takes it, one bound otherwise gets \
scope GB, one bound alike keeps LB. An output whose share per core exceeds a core's local buffer \
gets scope GB. Sets `bind` (cores per output dimension) and `scope` on every instance. With \
`explain`, a remark on each instance gives its binding, where it came from, and why its scope is \
GB.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
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
        if let Some(group) = ops.iter().find(|op| op.is(instance::Kind::Group)) {
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
            .map(|(i, instance)| (instance.op.raw().ptr as usize, i))
            .collect();
        let mut decisions = Decisions::new(instances.len());
        // GraphTurbo Algorithm 4: the order in reverse.
        for i in (0..instances.len()).rev() {
            let instance = &instances[i];
            let chosen = decisions.choose(i, instance.plain(machine.cores_per_cluster));
            decisions.pass_on(&instances, &position, i, &chosen);
        }
        decisions.fit_local_buffers(&instances, machine.lb_bytes);
        // SAFETY: the function is alive.
        let context = unsafe { mlirOperationGetContext(function.raw()) };
        decisions.write(&instances, context, self.explain);
        Ok(())
    }
}

/// The bindings and scopes decided so far, per instance in order, with the reasons for the
/// remarks.
struct Decisions {
    /// The binding of every instance, None until it is chosen or inferred.
    bind: Vec<Option<Binding>>,
    /// The scope of every instance.
    scope: Vec<Scope>,
    /// Per instance, the reasons of its binding and scope.
    why: Vec<Vec<String>>,
}

impl Decisions {
    /// No instance bound, every one in LB.
    fn new(count: usize) -> Self {
        Self {
            bind: vec![None; count],
            scope: vec![Scope::Lb; count],
            why: vec![Vec::new(); count],
        }
    }

    /// Chooses the binding of instance `i` between the `plain` one and the one a consumer
    /// inferred (lines 4-5 and 15-16), records it and returns it.
    fn choose(&mut self, i: usize, plain: Binding) -> Binding {
        let why = &mut self.why[i];
        let chosen = match &self.bind[i] {
            // Lines 4-5.
            None => {
                why.push(format!("plain {}", spelled(&plain)));
                plain.clone()
            }
            Some(_) if self.scope[i] != Scope::Lb => {
                why.push(format!(
                    "plain {} (in GB, the inferred binding does not hold)",
                    spelled(&plain)
                ));
                plain.clone()
            }
            // Lines 15-16: keep the inferred binding unless the plain one uses more cores.
            Some(inferred) if cores(&plain) > cores(inferred) => {
                why.push(format!(
                    "plain {} uses more cores than the inferred {}",
                    spelled(&plain),
                    spelled(inferred)
                ));
                plain.clone()
            }
            Some(inferred) => inferred.clone(),
        };
        self.bind[i] = Some(chosen.clone());
        chosen
    }

    /// Lines 6-14: passes the binding `chosen` of instance `i` on to the producers of its
    /// operands (`position` maps an instance op to its index): an unbound producer takes what
    /// the operand needs, one bound otherwise in LB moves to GB.
    fn pass_on(
        &mut self,
        instances: &[Instance],
        position: &HashMap<usize, usize>,
        i: usize,
        chosen: &Binding,
    ) {
        let instance = &instances[i];
        for (operand, need) in instance.needs(chosen).into_iter().enumerate() {
            if cores(&need) < 2 {
                continue;
            }
            for (producer, result) in producers(instance.op.operand(operand)) {
                let Some(&j) = position.get(&(producer.raw().ptr as usize)) else {
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
                match &self.bind[j] {
                    None => {
                        self.bind[j] = Some(need.clone());
                        self.why[j].push(format!(
                            "inferred {} from {}",
                            spelled(&need),
                            instance.name
                        ));
                    }
                    Some(existing) if *existing != need && self.scope[j] == Scope::Lb => {
                        self.scope[j] = Scope::Gb;
                        self.why[j].push(format!(
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

    /// Beyond the paper: moves to GB every instance in LB whose share of its outputs per core
    /// exceeds a core's local buffer of `lb_bytes`.
    fn fit_local_buffers(&mut self, instances: &[Instance], lb_bytes: usize) {
        for (i, instance) in instances.iter().enumerate() {
            let binding = self.bind[i].as_ref().expect("every instance is bound");
            let bytes: usize = (0..instance.body.returned().len())
                .map(|r| instance.body.type_of(instance.body.returned()[r]).bytes())
                .sum();
            let share = bytes.div_ceil(cores(binding));
            if self.scope[i] == Scope::Lb && share > lb_bytes {
                self.scope[i] = Scope::Gb;
                self.why[i].push(format!(
                    "scope gb: its share of {share} bytes per core exceeds the {} bytes \
                     of a local buffer",
                    lb_bytes
                ));
            }
        }
    }

    /// Sets `bind` and `scope` on every instance, with the `explain` remark when asked.
    fn write(&self, instances: &[Instance], context: MlirContext, explain: bool) {
        for (i, instance) in instances.iter().enumerate() {
            let binding = self.bind[i].as_ref().expect("every instance is bound");
            let factors: Vec<i64> = binding.iter().map(|&factor| factor as i64).collect();
            instance
                .op
                .set_attribute("bind", i64_array(context, &factors));
            instance
                .op
                .set_attribute("scope", self.scope[i].raw_attribute(context));
            if explain {
                instance.op.emit_remark(&format!(
                    "{} bound {} ({} cores), scope {}: {}",
                    instance.name,
                    spelled(binding),
                    cores(binding),
                    self.scope[i].keyword(),
                    self.why[i].join("; ")
                ));
            }
        }
    }
}
