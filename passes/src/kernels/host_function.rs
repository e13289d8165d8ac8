//! The host function both lowerings build: a `func.func` taking one DDR buffer per input,
//! output, weight and constant, and launching kernels in program order.

use super::{
    emit::{Body, View},
    error::LoweringError,
    kernel::Kernel,
};
use crate::{
    graph_view::{ElementType, FunctionView},
    ir::{self, InsertionPoint, Op, Val},
};
use melior::ir::AttributeLike;
use mlir_sys::*;
use turbine_dialects::ops::dsa;
use turbine_dialects::ops::graph;
use turbine_dialects::ops::upstream;

/// The host function being built: a `func.func` whose entry block gains an argument per buffer
/// the driver passes in (inputs, outputs, weights, constants), each with its role attribute.
pub(crate) struct HostFunction {
    pub(crate) op: Op,
    pub(crate) block: MlirBlock,
    parameters: Vec<(View, MlirAttribute)>,
}

impl HostFunction {
    /// An empty function named like `graph_function`, inserted before it.
    pub(crate) fn new(graph_function: Op, name: &str) -> Self {
        let location = graph_function.location();
        let (region, block) = ir::region_with_block(&[], location);
        // SAFETY: the location is alive.
        let context = unsafe { mlirLocationGetContext(location) };
        let op = ir::create(
            InsertionPoint::Before(graph_function),
            location,
            upstream::Kind::FuncFunc,
            &[],
            &[],
            &[("sym_name", ir::string_attribute(context, name))],
            vec![region],
        );
        // A private graph function (a body of a branch or loop) is called by other host
        // functions only: its host function is no entry point either.
        if let Some(visibility) = graph_function.attribute("sym_visibility") {
            op.set_attribute("sym_visibility", visibility.to_raw());
        }
        Self {
            op,
            block,
            parameters: Vec::new(),
        }
    }

    /// Adds a buffer argument of type `view` with the argument attribute `role = value`, at the
    /// location of what it holds (the graph function's parameter, the weight or constant op, the
    /// return).
    pub(crate) fn parameter(
        &mut self,
        view: &View,
        role: &str,
        value: MlirAttribute,
        location: MlirLocation,
    ) -> Val {
        // SAFETY: the function and its block are alive; the attribute is of their context. The
        // new argument lives with the block.
        unsafe {
            let context = mlirLocationGetContext(location);
            let name = mlirIdentifierGet(
                context,
                MlirStringRef {
                    data: role.as_ptr().cast(),
                    length: role.len(),
                },
            );
            let named = mlirNamedAttributeGet(name, value);
            self.parameters
                .push((view.clone(), mlirDictionaryAttrGet(context, 1, &named)));
            Val::from_raw(mlirBlockAddArgument(
                self.block,
                view.memref_type(context),
                location,
            ))
        }
    }

    /// Bytes of the buffers passed in so far.
    pub(crate) fn parameter_bytes(&self) -> usize {
        self.parameters
            .iter()
            .map(|(view, _)| view.elements() * view.element.bytes())
            .sum()
    }

    /// Sets the function's type and argument attributes from its parameters.
    pub(crate) fn finish(&self) {
        // SAFETY: the function is alive; the attributes are of its context.
        unsafe {
            let context = mlirLocationGetContext(self.op.location());
            let inputs: Vec<MlirType> = self
                .parameters
                .iter()
                .map(|(view, _)| view.memref_type(context))
                .collect();
            let roles: Vec<MlirAttribute> = self.parameters.iter().map(|(_, role)| *role).collect();
            let function_type = mlirFunctionTypeGet(
                context,
                inputs.len() as isize,
                inputs.as_ptr(),
                0,
                std::ptr::null(),
            );
            self.op
                .set_attribute("function_type", mlirTypeAttrGet(function_type));
            self.op.set_attribute(
                "arg_attrs",
                mlirArrayAttrGet(context, roles.len() as isize, roles.as_ptr()),
            );
        }
    }
}

/// Inserts the kernel before the host function and launches it; returns the kernel op.
pub(crate) fn launch(host: &mut Body, kernel: Kernel, host_function: Op) -> Op {
    let (kernel_op, name, arguments, cores) = kernel.finish(host_function);
    let context = host.context();
    let values: Vec<Val> = arguments.iter().map(|(value, _)| *value).collect();
    let cores: Vec<i64> = (0..cores as i64).collect();
    // SAFETY: the context is alive; MLIR copies the name.
    let callee = unsafe {
        mlirFlatSymbolRefAttrGet(
            context,
            MlirStringRef {
                data: name.as_ptr().cast(),
                length: name.len(),
            },
        )
    };
    host.op(
        dsa::Kind::Launch,
        &values,
        &[],
        &[
            ("kernel", callee),
            ("cores", ir::i64_array(context, &cores)),
        ],
    );
    kernel_op
}

/// Checks that `element_type` (of `what`, at op `index` if any) is a float type, which every
/// compute unit takes.
pub(crate) fn check_float(
    element_type: ElementType,
    index: Option<usize>,
    what: &str,
) -> Result<(), LoweringError> {
    if element_type.is_float() {
        return Ok(());
    }
    Err(LoweringError {
        op: index,
        message: format!(
            "{what} has element type {element_type:?}, which is not supported here: the software \
             DSA computes this on floats only (f32, f16, bf16; integer and boolean tensors are \
             moved, gathered, cast, compared and selected, i64 and i32 also added, multiplied, \
             divided and taken modulo)"
        ),
    })
}

/// Checks that `element_type` (of the input, constant or value `what`, at op `index` if any)
/// is one the software DSA's buffers hold: f32, f16, bf16, i64, i32, i8, ui8 or i1.
pub(crate) fn check_buffer_element(
    element_type: ElementType,
    index: Option<usize>,
    what: &str,
) -> Result<(), LoweringError> {
    if element_type != ElementType::Other {
        return Ok(());
    }
    Err(LoweringError {
        op: index,
        message: format!(
            "{what} has an element type that is not supported: the software DSA holds f32, f16, \
             bf16, i64, i32, i8, ui8 and i1"
        ),
    })
}

/// Checks the element types of the layer anchored at op `index` against what its emitter
/// computes: a cast converts between any element types the buffers hold, a gather moves
/// elements of any such type (by i64 or i32 indices, as the dialect requires), comparisons and
/// selections take any type (booleans where the dialect requires them), binary arithmetic
/// computes on floats, i64 or i32, an arg reduction reads floats into i64 (the dialect's result
/// type), a top-k reads floats into float values and i64 indices, data movement copies any type,
/// and every other layer computes on floats. The quantization ops (quantize, dequantize,
/// requantize and the integer products) have no kernels: they are refused by name.
pub(crate) fn check_layer_elements(
    program: &FunctionView,
    index: usize,
) -> Result<(), LoweringError> {
    use graph::Kind as K;
    let node = &program.ops[index];
    if matches!(
        node.graph_kind(),
        Some(K::Quantize | K::Dequantize | K::Requantize | K::MatmulInteger | K::ConvInteger)
    ) {
        return Err(LoweringError::at(
            index,
            format!(
                "'{}' (quantization) is not supported by the software DSA lowering yet: \
                 quantized models run in the reference interpreter (turbine-run --interpret)",
                node.name
            ),
        ));
    }
    let any_type = matches!(
        node.graph_kind(),
        Some(
            K::Cast
                | K::Gather
                | K::GatherElements
                | K::ScatterElements
                | K::Compare
                | K::Where
                | K::Transpose
                | K::Concat
                | K::Slice
                | K::Split
                | K::Broadcast
        )
    );
    let operands = node.operands.iter().enumerate().map(|(position, &value)| {
        (
            format!("operand #{position}"),
            program.type_of(value).element_type,
        )
    });
    let results = node
        .results
        .iter()
        .enumerate()
        .map(|(position, (_, r#type))| (format!("result #{position}"), r#type.element_type));
    // An integer binary operation computes on i64 or i32 (all its operands of its result's
    // type, as the dialect requires).
    let integer = super::layers::integer_binary(node).is_some();
    // An arg reduction reads floats and writes i64 indices; a top-k writes float values too.
    if matches!(node.graph_kind(), Some(K::ArgMax | K::ArgMin | K::TopK)) {
        for (role, element) in operands {
            check_float(element, Some(index), &format!("{role} of '{}'", node.name))?;
        }
        return Ok(());
    }
    for (role, element) in operands.chain(results) {
        let what = format!("{role} of '{}'", node.name);
        if any_type || integer {
            check_buffer_element(element, Some(index), &what)?;
        } else {
            check_float(element, Some(index), &what)?;
        }
    }
    Ok(())
}
