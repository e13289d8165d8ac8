//! The caller's side of a loop body that keeps its loop-invariant inputs in the clusters' GBs
//! ([`super::super::residency`]): the inputs copied there once before the loop, one copy per
//! cluster by that cluster's cores, freed after the loop, and the decision explained.

use super::super::region_call::{Passed, RegionCall};
use super::{value_view, HostLowering};
use crate::ir::Val;
use crate::kernels::emit::{Replicas, Space, Tensor, View};
use crate::kernels::estimate::UNSUPPORTED_LAYER;
use crate::kernels::{host_function::launch, kernel::Kernel, movement};
use std::collections::BTreeMap;

impl HostLowering<'_, '_> {
    /// For the loop at op `index` calling `call` with `inputs`: when its body keeps the
    /// loop-invariant inputs on chip, copies each into a GB buffer of every cluster; returns
    /// them by input position (the body takes them in place of the DDR input), for the caller
    /// to pass and to free after the loop. Explains the decision either way.
    pub(super) fn keep_on_chip(
        &mut self,
        index: usize,
        call: &RegionCall,
        inputs: &[Val],
    ) -> BTreeMap<usize, Vec<Val>> {
        let Some(residency) = self.residency.get(&call.callee).cloned() else {
            return BTreeMap::new();
        };
        if self.explain {
            // The estimates price the layers they cannot price alike on both sides; what is left
            // after those is what differs.
            let shown = |cycles: f64| cycles.rem_euclid(UNSUPPORTED_LAYER).round();
            let verdict = if residency.chosen {
                "keeps them in every cluster's GB"
            } else {
                "reads them from DDR"
            };
            self.program.ops[index].op.emit_remark(&format!(
                "@{} {verdict}: {} loop-invariant input(s) of {} bytes; estimated {} cycles per \
                 iteration from the GB (the copy included) against {} from DDR",
                call.callee,
                residency.positions.len(),
                residency.bytes,
                shown(residency.on_chip),
                shown(residency.from_ddr)
            ));
        }
        if !residency.chosen {
            return BTreeMap::new();
        }
        let clusters = self.machine.clusters;
        let mut pairs = Vec::new();
        let mut replicated = BTreeMap::new();
        let replicas = Replicas::default();
        for &position in &residency.positions {
            let Some(Passed::Outer(value)) = call.passed.get(position).copied() else {
                continue;
            };
            let source = Tensor {
                host: inputs[position],
                view: value_view(self.program, value),
            };
            let view = View::contiguous_of(&source.view.shape, Space::Gb, source.view.element);
            let buffers: Vec<Val> = (0..clusters)
                .map(|cluster| self.host.alloc_on(&view, cluster))
                .collect();
            replicas
                .borrow_mut()
                .insert(buffers[0].raw().ptr as usize, buffers[1..].to_vec());
            pairs.push((
                source,
                Tensor {
                    host: buffers[0],
                    view,
                },
            ));
            replicated.insert(position, buffers);
        }
        // Each cluster's cores copy every input into their own GB.
        self.kernel_count += 1;
        let name = format!("{}_{}_resident", self.program.name, self.kernel_count - 1);
        let kernel = Kernel::per_cluster(
            name,
            &self.host,
            self.one_cluster,
            (clusters, replicas),
            None,
        );
        let kernel = movement::copy_pairs(self.one_cluster, &pairs, kernel);
        self.built
            .push(launch(&mut self.host, kernel, self.signature.op));
        replicated
    }
}
