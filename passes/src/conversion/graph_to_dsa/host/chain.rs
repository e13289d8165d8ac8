//! A chain of two products lowered as one kernel ([`crate::kernels::chain`], BOLT §3.1), where
//! `fuse-chains` and the cost model choose it, and the choice explained.

use super::super::chain_fusion::ChainFusion;
use super::{value_view, HostLowering};
use crate::graph_view::ValueId;
use crate::kernels::{
    chain::{self, Layers, Plan},
    dispatch,
    emit::{Space, View},
    error::LoweringError,
    fusion::{self, Fused},
    host_function::launch,
    kernel::Kernel,
    layers::{Scope, Step},
};
use std::collections::BTreeMap;

impl HostLowering<'_, '_> {
    /// Lowers the product at op `index` (its epilogue `steps`, writing `written`) together with
    /// the product reading `written`, when they form a chain and the fusion is chosen; returns
    /// whether it did (else the caller lowers the first product as a layer of its own).
    pub(super) fn fuse_chain(
        &mut self,
        index: usize,
        steps: &[Step],
        written: ValueId,
    ) -> Result<bool, LoweringError> {
        let program = self.program;
        if self.fuse_chains == ChainFusion::Never {
            return Ok(false);
        }
        let available = |value: ValueId| self.tensors.contains_key(&value);
        let Some(second) = chain::second_product(program, index, written, available) else {
            return Ok(false);
        };
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
        let (plan, apart) = self.chain_estimates(&layers, written, second);
        let chosen = plan.as_ref().filter(|plan| match self.fuse_chains {
            ChainFusion::Auto => plan.cost.cycles < apart,
            ChainFusion::Always | ChainFusion::Never => true,
        });
        if self.explain {
            node.op.emit_remark(&chain_remark(
                &layers,
                plan.as_ref(),
                chosen.is_some(),
                apart,
            ));
        }
        let Some(plan) = chosen else {
            return Ok(false);
        };
        self.fused.insert(second);
        self.fused.extend(fused);
        let final_values = fusion::written(next, last);
        let results = self.result_buffers(second, &final_values)?;
        let name = format!("{}_chain", self.kernel_name(node));
        let scope = Scope {
            machine: self.machine,
            tensors: &self.tensors,
        };
        let kernel = Kernel::new(name, &self.host);
        let kernel = chain::lower(
            &scope,
            &mut self.host,
            (&layers, plan),
            &results[0],
            index,
            kernel,
        )?;
        self.built
            .push(launch(&mut self.host, kernel, self.signature.op));
        for ((value, _), tensor) in final_values.iter().zip(results) {
            self.tensors.insert(*value, tensor);
        }
        self.free_read(index);
        Ok(true)
    }

    /// The fused kernel's tiling (None when no row block fits the LB) and the estimate of the
    /// two products as layers of their own, the first result through DDR, a launch apart.
    fn chain_estimates(
        &self,
        layers: &Layers,
        written: ValueId,
        second: usize,
    ) -> (Option<Plan>, f64) {
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
        let plan = chain::plan(&scope, layers, Space::Ddr);
        views.insert(written, value_view(program, written));
        let scope = Scope {
            machine: self.machine,
            tensors: &views,
        };
        let output = value_view(program, program.ops[second].results[0].0).shape;
        let layer_cycles = |(node, steps): (&crate::graph_view::Node, &[Step]), out: &[usize]| {
            dispatch::estimate(&scope, node, steps, out, Some(Space::Ddr), false)
                .unwrap_or(f64::INFINITY)
        };
        let first = layer_cycles(layers.first, &views[&written].shape);
        let apart = first + layer_cycles(layers.second, &output) + self.machine.kernel_launch;
        (plan, apart)
    }
}

/// The remark explaining the decision on the chain `layers`: its tiling `plan` (None when none
/// fits the LB), whether it was `fused`, and the estimate of the two layers apart.
fn chain_remark(layers: &Layers, plan: Option<&Plan>, fused: bool, apart: f64) -> String {
    let (first, second) = (&layers.first.0.name, &layers.second.0.name);
    let Some(plan) = plan else {
        return format!(
            "chain of '{first}' and '{second}' not fused: no row block of the first result \
             fits the LB with the tiles that feed it and read it (BOLT §3.1)"
        );
    };
    let [mt, _, nt] = plan.tile;
    let verdict = if fused { "fused" } else { "not fused" };
    format!(
        "chain of '{first}' and '{second}' {verdict}: row blocks of {mt}x{} kept in the LB, \
         second product in column blocks of {nt}; estimated {} cycles fused against {} as two \
         layers",
        plan.dims.n0,
        plan.cost.cycles.round(),
        apart.round()
    )
}
