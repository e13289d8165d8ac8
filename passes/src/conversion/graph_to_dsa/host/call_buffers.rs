//! The buffers a call of a body needs: its inputs as the callee takes them, fresh buffers for
//! its results, a loop's second set of carried buffers and its condition and counter, and the
//! copies between them.

use super::{key, value_view, HostLowering};
use crate::graph_view::{ElementType, Node, ValueId};
use crate::ir::Val;
use crate::kernels::{
    emit::{Space, Tensor, View},
    error::LoweringError,
    host_function::launch,
    kernel::Kernel,
    movement,
    view::buffer_shape,
};
use crate::target::Machine;
use mlir_sys::*;

impl HostLowering<'_, '_> {
    /// The buffers of `values` as a callee's parameters take them (contiguous DDR buffers of
    /// their types): the value's own buffer, or a copy of a view of another layout.
    pub(super) fn contiguous_inputs(
        &mut self,
        index: usize,
        values: &[ValueId],
    ) -> Result<Vec<Val>, LoweringError> {
        let context = self.host.context();
        let mut buffers = Vec::new();
        for &value in values {
            let tensor = self.tensors[&value].clone();
            let view = value_view(self.program, value);
            // SAFETY: both types are alive; types are uniqued.
            if unsafe { mlirTypeEqual(tensor.host.r#type(), view.memref_type(context)) } {
                buffers.push(tensor.host);
                continue;
            }
            let copy = self.scratch(index, &view)?;
            self.launch_copies(&[(tensor, copy.clone())], "input");
            buffers.push(copy.host);
        }
        Ok(buffers)
    }

    /// Buffers for the results of `node` (op `index`): the output buffer of a result the
    /// function returns (once, as it is) when `to_outputs`, else a new DDR buffer freed after
    /// its last use.
    pub(super) fn fresh_results(
        &mut self,
        index: usize,
        node: &Node,
        to_outputs: bool,
    ) -> Result<Vec<Tensor>, LoweringError> {
        let context = self.host.context();
        let mut results = Vec::new();
        for (value, r#type) in &node.results {
            let view = value_view(self.program, *value);
            let output = self.outputs.get(value).filter(|output| {
                // SAFETY: both types are alive; types are uniqued.
                to_outputs
                    && unsafe { mlirTypeEqual(output.host.r#type(), view.memref_type(context)) }
            });
            let tensor = match output {
                Some(_) => self.outputs.remove(value).expect("just found"),
                None => self.allocate(index, *value, &buffer_shape(&r#type.shape))?,
            };
            results.push(tensor);
        }
        Ok(results)
    }

    /// A loop's second set of carried buffers: it may hold the results when the loop ends, so it
    /// lives to the end of the function.
    pub(super) fn spare_buffers(
        &mut self,
        index: usize,
        node: &Node,
    ) -> Result<Vec<Tensor>, LoweringError> {
        let end = self.program.ops.len();
        let mut spares = Vec::new();
        for (value, _) in &node.results {
            let view = value_view(self.program, *value);
            let tensor = self.scratch(index, &view)?;
            self.root_last_use.insert(key(tensor.host), end);
            spares.push(tensor);
        }
        Ok(spares)
    }

    /// A DDR buffer of `view` for op `index`, freed after that op unless its last use is moved.
    pub(super) fn scratch(&mut self, index: usize, view: &View) -> Result<Tensor, LoweringError> {
        let bytes = view.elements() * view.element.bytes();
        self.live_bytes += bytes;
        if self.live_bytes > self.machine.ddr_bytes {
            return Err(LoweringError::at(
                index,
                format!(
                    "'{}' needs a DDR buffer of {bytes} bytes, beyond the {} bytes of target '{}'",
                    self.program.ops[index].name, self.machine.ddr_bytes, self.machine.name
                ),
            ));
        }
        let host = self.host.alloc(view);
        self.allocated.push((host, view.clone()));
        self.root_last_use.insert(key(host), index);
        Ok(Tensor {
            host,
            view: view.clone(),
        })
    }

    /// A one-element buffer of `element`s for a loop's condition or counter, freed after the
    /// loop.
    pub(super) fn scalar_buffer(&mut self, element: ElementType) -> Tensor {
        let view = View::contiguous_of(&[1], Space::Ddr, element);
        self.live_bytes += view.elements() * view.element.bytes();
        let host = self.host.alloc(&view);
        Tensor { host, view }
    }

    /// Launches one kernel copying each pair's source into its target.
    pub(super) fn launch_copies(&mut self, pairs: &[(Tensor, Tensor)], what: &str) {
        self.launch_copies_on(self.machine, pairs, what);
    }

    /// [`Self::launch_copies`] on the cores of `machine`.
    pub(super) fn launch_copies_on(
        &mut self,
        machine: &Machine,
        pairs: &[(Tensor, Tensor)],
        what: &str,
    ) {
        self.kernel_count += 1;
        let name = format!("{}_{}_{what}", self.program.name, self.kernel_count - 1);
        let kernel = movement::copy_pairs(machine, pairs, Kernel::new(name, &self.host));
        self.built
            .push(launch(&mut self.host, kernel, self.signature.op));
    }
}
