//! The host function's parameters: one DDR buffer per input, output, weight and constant, and
//! those the functions it calls take (see [`super::super::signatures`]).

use super::{value_view, HostLowering};
use crate::conversion::graph_to_dsa::signatures::ParameterKey;
use crate::graph_view::Node;
use crate::ir;
use crate::kernels::{
    emit::{Space, Tensor, View},
    error::LoweringError,
    host_function::{check_buffer_element, check_float},
    view::buffer_shape,
};
use turbine_dialects::ops::{graph, upstream};

impl HostLowering<'_, '_> {
    /// Adds a parameter per function argument.
    pub(super) fn inputs(&mut self) -> Result<(), LoweringError> {
        let context = self.host.context();
        for (position, (value, r#type)) in self.program.arguments.iter().enumerate() {
            check_buffer_element(r#type.element_type, None, "function argument")?;
            // A loop-invariant input of a body that keeps them on chip is one GB buffer per
            // cluster; the kernels pick their cluster's.
            let resident = self
                .resident
                .as_ref()
                .is_some_and(|positions| positions.contains(&position));
            let space = if resident { Space::Gb } else { Space::Ddr };
            let view =
                View::contiguous_of(&buffer_shape(&r#type.shape), space, r#type.element_type);
            let location = self.function.entry_argument(position).location();
            let mut parameter = || {
                self.signature.parameter(
                    &view,
                    "dsa.input",
                    ir::i64_attribute(context, position as i64),
                    location,
                )
            };
            let host = parameter();
            if resident {
                let others: Vec<_> = (1..self.machine.clusters).map(|_| parameter()).collect();
                let replicas = self
                    .host
                    .replicas()
                    .expect("a resident body's host has replicas");
                replicas
                    .borrow_mut()
                    .insert(host.raw().ptr as usize, others);
            }
            self.tensors.insert(*value, Tensor { host, view });
        }
        Ok(())
    }

    /// Adds a parameter per returned value.
    pub(super) fn outputs(&mut self) {
        let context = self.host.context();
        let returned_node = self
            .program
            .ops
            .last()
            .filter(|node| node.is(upstream::Kind::FuncReturn));
        self.return_types = match returned_node {
            Some(node) => node
                .operands
                .iter()
                .map(|value| value_view(self.program, *value))
                .collect(),
            None => Vec::new(),
        };
        for (position, view) in self.return_types.iter().enumerate() {
            let view = view.clone();
            let location =
                returned_node.map_or(self.function.location(), |node| node.op.location());
            let host = self.signature.parameter(
                &view,
                "dsa.output",
                ir::i64_attribute(context, position as i64),
                location,
            );
            self.output_buffers.push(host);
            self.outputs
                .entry(self.returned[position])
                .or_insert(Tensor { host, view });
        }
    }

    /// Adds a parameter per weight and constant: available to every layer, wherever they appear.
    pub(super) fn weights(&mut self) -> Result<(), LoweringError> {
        let context = self.host.context();
        for (index, node) in self.program.ops.iter().enumerate() {
            let result = node.results.first().map(|(value, r#type)| (*value, r#type));
            match node.graph_kind() {
                Some(graph::Kind::Weight) => {
                    let (value, r#type) = result.expect("weights have a result");
                    check_float(r#type.element_type, Some(index), "weight")?;
                    let Some(weight) = node.string("name") else {
                        return Err(LoweringError::at(index, "graph.weight without a name"));
                    };
                    let view = View::contiguous_of(
                        &buffer_shape(&r#type.shape),
                        Space::Ddr,
                        r#type.element_type,
                    );
                    let host = self.signature.parameter(
                        &view,
                        "dsa.weight",
                        ir::string_attribute(context, weight),
                        node.op.location(),
                    );
                    self.parameters
                        .insert(ParameterKey::Weight(weight.to_string()), host);
                    self.tensors.insert(value, Tensor { host, view });
                }
                Some(graph::Kind::Constant) => self.constant(index, node)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Adds the parameter of the constant `node` (op `index`).
    fn constant(&mut self, index: usize, node: &Node) -> Result<(), LoweringError> {
        let (value, r#type) = node
            .results
            .first()
            .map(|(value, r#type)| (*value, r#type))
            .expect("constants have a result");
        let Some(constant) = node.constant() else {
            return Err(LoweringError::at(
                index,
                "graph.constant without a dense value",
            ));
        };
        check_buffer_element(r#type.element_type, Some(index), "the constant")?;
        let shape = buffer_shape(&r#type.shape);
        let view = View::contiguous_of(&shape, Space::Ddr, r#type.element_type);
        // The values, flat in row-major order (the buffer's type carries the shape); a
        // splat stays one value, as importers make large splat constants.
        let payload = constant.flattened();
        let host = self
            .signature
            .parameter(&view, "dsa.constant", payload, node.op.location());
        self.parameters
            .insert(ParameterKey::Constant(payload.ptr as usize), host);
        self.tensors.insert(value, Tensor { host, view });
        Ok(())
    }

    /// Adds a parameter per weight and constant that only the functions this one calls use.
    pub(super) fn inherited_parameters(&mut self) {
        for parameter in self.signatures.inherited(&self.program.name) {
            let host = self.signature.parameter(
                &parameter.view,
                parameter.role,
                parameter.value,
                parameter.location,
            );
            self.parameters.insert(parameter.key.clone(), host);
        }
    }

    /// Counts the parameters' bytes as live in DDR; an error when the target's DDR cannot hold
    /// them.
    pub(super) fn check_parameters(&mut self) -> Result<(), LoweringError> {
        // Intermediate DDR buffers are freed after the last op that reads them (or a view of
        // them), so that DDR holds the live activations only; the target's DDR must hold the
        // peak.
        self.live_bytes = self.signature.parameter_bytes();
        if self.live_bytes > self.machine.ddr_bytes {
            return Err(LoweringError {
                op: None,
                message: format!(
                    "the model's inputs, outputs and weights need {} bytes of DDR but target \
                     '{}' has {}",
                    self.live_bytes, self.machine.name, self.machine.ddr_bytes
                ),
            });
        }
        Ok(())
    }
}
