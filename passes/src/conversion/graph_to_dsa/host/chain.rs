//! A chain of two products, or of a convolution and a 1×1 convolution, lowered as one kernel
//! ([`crate::kernels::chain`], BOLT §3.1), where `fuse-chains` and the cost model choose it, and
//! the choice explained.

use super::super::chain_fusion::ChainFusion;
use super::{value_view, HostLowering};
use crate::graph_view::{Node, ValueId};
use crate::kernels::{
    chain::{self, Layers, Linked},
    conv, dispatch,
    emit::{Space, Tensor, View},
    error::LoweringError,
    fusion::{self, Fused},
    kernel::Kernel,
    layers::{Layer, Scope, Step},
};
use crate::tuning::{self, Decision, Tuning, FUSION_KEY};
use std::collections::BTreeMap;

/// The fused kernel's tiling, as the remark describes it: the row block kept in the LB (rows and
/// columns) and the second op's column block; or nothing when no tiling fits the LB.
struct Fusible {
    /// The tiling's estimated cycles.
    cycles: f64,
    /// What the remark says of the tiling.
    tiling: String,
    /// A product chain's plan (a convolution chain's the emitter makes again).
    plan: Option<chain::Plan>,
    /// The tiling's tuning key, which names the chain for the fusion decision too.
    key: String,
}

/// The two ways of lowering a chain, as the tuner names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fusion {
    Fused,
    Apart,
}

impl HostLowering<'_, '_> {
    /// Lowers the product or convolution at op `index` (its epilogue `steps`, writing `written`)
    /// together with the op reading `written`, when they form a chain and the fusion is chosen;
    /// returns whether it did (else the caller lowers the first op as a layer of its own).
    pub(super) fn fuse_chain(
        &mut self,
        index: usize,
        steps: &[Step],
        written: ValueId,
    ) -> Result<bool, LoweringError> {
        let program = self.program;
        // A convolution absorbing another, or absorbed into a later layer, keeps that pairing.
        if self.fuse_chains == ChainFusion::Never || self.absorbs.contains_key(&index) {
            return Ok(false);
        }
        let available = |value: ValueId| self.tensors.contains_key(&value);
        let Some((second, linked)) = chain::second_op(program, index, written, available) else {
            return Ok(false);
        };
        if self.absorbed_into.contains_key(&second) {
            return Ok(false);
        }
        let (node, next) = (&program.ops[index], &program.ops[second]);
        let Fused {
            steps: second_steps,
            fused,
            last,
            ..
        } = fusion::layer_epilogue(
            program,
            second,
            &mut self.tensors,
            &mut self.host,
            &mut self.synthetic,
            None,
        );
        let layers = Layers {
            first: (node, steps),
            second: (next, &second_steps),
        };
        let (fusible, apart) = self.chain_estimates(&layers, linked, written, second);
        let (chosen, decision) = self.fusion_choice(fusible.as_ref(), apart);
        if self.explain {
            node.op
                .emit_remark(&chain_remark(&layers, fusible.as_ref(), chosen, apart));
        }
        let Some(chosen) = fusible.filter(|_| chosen) else {
            // Both layers record the decision: the tuner times them together.
            for op in [index, second] {
                self.pending.entry(op).or_default().extend(decision.clone());
            }
            return Ok(false);
        };
        self.fused.insert(second);
        self.fused.extend(fused);
        let final_values = fusion::written(next, last);
        let results = self.result_buffers(second, &final_values)?;
        let name = format!("{}_chain", self.kernel_name(node));
        let kernel = Kernel::new(name, &self.host);
        let mut kernel = match chosen.plan {
            Some(plan) => {
                let scope = Scope {
                    machine: self.machine,
                    tensors: &self.tensors,
                };
                chain::lower(
                    &scope,
                    &mut self.host,
                    (&layers, &plan),
                    &results[0],
                    index,
                    kernel,
                )?
            }
            None => self.lower_convolutions(index, &layers, &results, kernel)?,
        };
        if let Some(decision) = decision {
            kernel.record(decision);
        }
        self.launch_layer(&[index, second], kernel, &final_values, results);
        Ok(true)
    }

    /// Lowers the convolution chain `layers` headed by op `index` into `kernel`: the first
    /// convolution's layer, its tiles feeding the second, which writes `results`.
    fn lower_convolutions(
        &mut self,
        index: usize,
        layers: &Layers,
        results: &[Tensor],
        kernel: Kernel,
    ) -> Result<Kernel, LoweringError> {
        let (node, steps) = layers.first;
        let (next, second_steps) = layers.second;
        let layer = Layer {
            index,
            node,
            steps: steps.to_vec(),
            output: results[0].clone(),
            mirror: None,
            stepped: None,
            absorbed: None,
            chained: Some((next, second_steps.to_vec())),
        };
        let scope = Scope {
            machine: self.machine,
            tensors: &self.tensors,
        };
        dispatch::emit_layer(&scope, &mut self.host, &layer, results, false, kernel)
    }

    /// Whether to fuse the chain whose fused kernel is `fusible` (None when none fits the LB),
    /// estimated against `apart` as two layers, and the decision its kernels record: as
    /// `fuse-chains` says, and under `auto` as the tuning says (fusion on or off is one of the
    /// profiler's parameters, BOLT §3.2): the lower estimate, the choice of a rank, or the
    /// cache's.
    fn fusion_choice(&self, fusible: Option<&Fusible>, apart: f64) -> (bool, Option<Decision>) {
        let Some(fusible) = fusible else {
            return (false, None);
        };
        let tuning = &self.machine.tuning;
        match (self.fuse_chains, tuning) {
            (ChainFusion::Auto, Tuning::Estimate) => (fusible.cycles < apart, None),
            (ChainFusion::Auto, _) => {
                let mut ranking = vec![(fusible.cycles, Fusion::Fused), (apart, Fusion::Apart)];
                if apart <= fusible.cycles {
                    ranking.swap(0, 1);
                }
                let key = format!("{FUSION_KEY}{}", fusible.key);
                let both = (|cycles: &f64| *cycles, f64::INFINITY);
                match tuning::pick(ranking, both, tuning.fusion(), key) {
                    Some((_, choice, decision)) => (choice == Fusion::Fused, Some(decision)),
                    None => (false, None),
                }
            }
            (ChainFusion::Always | ChainFusion::Never, _) => (true, None),
        }
    }

    /// The fused kernel's tiling (None when none fits the LB) and the estimate of the two ops as
    /// layers of their own, the first result through DDR, a launch apart.
    fn chain_estimates(
        &self,
        layers: &Layers,
        linked: Linked,
        written: ValueId,
        second: usize,
    ) -> (Option<Fusible>, f64) {
        let program = self.program;
        let mut views: BTreeMap<ValueId, View> = self
            .tensors
            .iter()
            .map(|(&value, tensor)| (value, tensor.view.clone()))
            .collect();
        let scope = Scope {
            machine: self.machine,
            tensors: &views,
        };
        let first_shape = value_view(program, written).shape;
        let fusible = match linked {
            Linked::Products => chain::plan(&scope, layers, Space::Ddr).map(|plan| {
                let [mt, _, nt] = plan.tile;
                Fusible {
                    cycles: plan.cost.cycles,
                    key: plan.decision.key.clone(),
                    tiling: format!(
                        "row blocks of {mt}x{} kept in the LB, second product in column \
                         blocks of {nt}",
                        plan.dims.n0
                    ),
                    plan: Some(plan),
                }
            }),
            Linked::Convolutions => conv::estimate_chained(
                &scope,
                layers.first,
                &first_shape,
                layers.second,
                Space::Ddr,
            )
            .map(|(cost, decision)| Fusible {
                cycles: cost.cycles,
                tiling: "tiles of all its channels kept in the LB".into(),
                plan: None,
                key: decision.key,
            }),
        };
        views.insert(written, value_view(program, written));
        let scope = Scope {
            machine: self.machine,
            tensors: &views,
        };
        let output = value_view(program, program.ops[second].results[0].0).shape;
        let layer_cycles = |(node, steps): (&Node, &[Step]), out: &[usize]| {
            dispatch::estimate(&scope, node, steps, out, Some(Space::Ddr), false)
                .unwrap_or(f64::INFINITY)
        };
        let first = layer_cycles(layers.first, &first_shape);
        let apart = first + layer_cycles(layers.second, &output) + self.machine.kernel_launch;
        (fusible, apart)
    }
}

/// The remark explaining the decision on the chain `layers`: its tiling (None when none fits the
/// LB), whether it was `fused`, and the estimate of the two layers apart.
fn chain_remark(layers: &Layers, fusible: Option<&Fusible>, fused: bool, apart: f64) -> String {
    let (first, second) = (&layers.first.0.name, &layers.second.0.name);
    let Some(fusible) = fusible else {
        return format!(
            "chain of '{first}' and '{second}' not fused: no block of the first result fits \
             the LB with the tiles that feed it and read it (BOLT §3.1)"
        );
    };
    let verdict = if fused { "fused" } else { "not fused" };
    format!(
        "chain of '{first}' and '{second}' {verdict}: {}; estimated {} cycles fused against {} \
         as two layers",
        fusible.tiling,
        fusible.cycles.round(),
        apart.round()
    )
}
