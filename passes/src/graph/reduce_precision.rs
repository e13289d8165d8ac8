//! `graph-reduce-precision`: computes an f32 function in f16 or bf16, keeping the numerically
//! sensitive ops in f32, as the mixed-precision modes users know do (PyTorch's autocast lists,
//! ONNX Runtime's float16 converter, TensorRT's layer precisions).
//!
//! The policy: every graph op that computes on or produces f32 tensors computes in the reduced
//! type, except softmax, layer normalisation, local response normalisation, the reductions that
//! accumulate (`reduce_sum`, `reduce_mean`, `reduce_prod`) and `exp`, `log` and `pow`, whose
//! results overflow or lose their small differences in 16 bits; they stay in f32 between casts,
//! as do the quantization ops (their scales) and `top_k` (f32 only).
//! Control flow (`graph.if`, `graph.loop`, `graph.yield`) keeps its types, so the bodies cast
//! at their edges. The function's inputs and results keep their types (ONNX Runtime's
//! `keep_io_types`): a cast after each input and before each result; with `keep-io-types=false`
//! its f32 inputs and results take the reduced type, and whoever calls it converts its data
//! (ONNX Runtime's converter's default, TensorRT's reduced-precision bindings). A weight or
//! constant whose
//! readers all compute in the reduced type is stored in it (the weights file keeps f32, which
//! the loaders round); one that an f32 op reads too stays f32 and is cast where needed. A cast
//! is made once per value, right after its definition, and carries its location.

use crate::ir::{create, function_type, InsertionPoint, Op, Val};
use crate::registry::{OptionInfo, Pass, PassFailure, PassOptions};
use melior::ir::{attribute::AttributeLike, OperationRef};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct ReducePrecision {
    precision: Precision,
    keep_io_types: bool,
    explain: bool,
}

/// The reduced float type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Precision {
    F16,
    Bf16,
}

impl Precision {
    fn name(self) -> &'static str {
        match self {
            Precision::F16 => "f16",
            Precision::Bf16 => "bf16",
        }
    }

    fn r#type(self, context: MlirContext) -> MlirType {
        // SAFETY: the context is alive.
        unsafe {
            match self {
                Precision::F16 => mlirF16TypeGet(context),
                Precision::Bf16 => mlirBF16TypeGet(context),
            }
        }
    }
}

impl Pass for ReducePrecision {
    const ARGUMENT: &'static str = "graph-reduce-precision";
    const SUMMARY: &'static str =
        "Compute an f32 function in f16 or bf16, keeping numerically sensitive ops in f32";
    const DESCRIPTION: &'static str = "\
Every graph op that computes on or produces f32 tensors computes in the reduced type \
(`precision`), except the numerically sensitive ones, which stay in f32 between casts: softmax, \
layer and local response normalisation, the accumulating reductions (`reduce_sum`, \
`reduce_mean`, `reduce_prod`) and `exp`, `log`, `pow` — the policy of PyTorch's autocast and of \
ONNX Runtime's float16 converter — and the quantization ops (their scales) and `top_k` (f32 \
only). The units of the software DSA compute in f32 and round what \
they store, so a product of f16 tiles accumulates in f32 as on half-precision hardware. The \
function keeps its input and result types (a cast after each input and before each result), \
or with `keep-io-types=false` its f32 inputs and results take the reduced type (the caller \
converts its data, as with ONNX Runtime's float16 converter by default); control flow keeps its \
types. A weight or constant read only by reduced ops is stored in the \
reduced type (the weights file stays f32; loaders round it), otherwise it is cast where needed. \
Each cast is made once per value, right after its definition, with its location. With \
`explain`, a remark per function (ops reduced, ops kept and why, casts, weights) and one on each \
op kept in f32.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "precision",
            description: "The reduced float type: 'f16' or 'bf16'",
            kind: OptionKind::String,
            default: "f16",
        },
        OptionInfo {
            name: "keep-io-types",
            description: "Keep the function's f32 inputs and results in f32 (cast at the edges)",
            kind: OptionKind::Bool,
            default: "true",
        },
        OptionInfo {
            name: "explain",
            description: "Emit a remark per function and on each op kept in f32",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let precision = match options.string("precision").as_str() {
            "f16" => Precision::F16,
            "bf16" => Precision::Bf16,
            other => return Err(format!("precision '{other}': expected 'f16' or 'bf16'")),
        };
        Ok(Self {
            precision,
            keep_io_types: options.bool("keep-io-types")?,
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands a live func.func.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        let mut rewrite = Rewrite::new(function, self.precision);
        if !self.keep_io_types {
            rewrite.reduce_interface(function);
        }
        rewrite.apply();
        if self.explain {
            rewrite.explain(function);
        }
        Ok(())
    }
}

/// Why an op that computes on f32 keeps it, or None when it computes in the reduced type.
fn kept_in_f32(kind: graph::Kind) -> Option<&'static str> {
    use graph::Kind as K;
    Some(match kind {
        K::Softmax => "a softmax sums exponentials that overflow 16 bits",
        K::LayerNorm | K::Lrn => "a normalisation divides by a variance of small differences",
        K::ReduceSum | K::ReduceMean | K::ReduceProd => "an accumulating reduction",
        K::Exp | K::Log | K::Pow => "its results overflow or lose their differences in 16 bits",
        K::Quantize | K::Dequantize | K::Requantize => "a quantization's scales keep f32",
        K::TopK => "graph.top_k takes f32 only",
        _ => return None,
    })
}

/// The state of one function's rewrite.
struct Rewrite {
    ops: Vec<Op>,
    reduced: MlirType,
    precision: Precision,
    /// Ops that compute in the reduced type (by handle).
    converting: HashSet<usize>,
    /// Values whose type the rewrite changed from f32 tensors to reduced ones.
    retyped: HashSet<usize>,
    /// Casts made: (value, to reduced) -> the cast's result.
    casts: HashMap<(usize, bool), Val>,
    kept: Vec<(Op, &'static str)>,
    weights: usize,
    /// Returns that compute in the reduced type (`keep-io-types=false`), not counted as ops.
    returns: usize,
}

impl Rewrite {
    fn new(function: Op, precision: Precision) -> Self {
        let ops = function.collect_pre_order();
        let mut kept = Vec::new();
        let converting = ops
            .iter()
            .filter(|&&op| {
                let Some(kind) = op.kind().and_then(|kind| kind.graph()) else {
                    return false;
                };
                use graph::Kind as K;
                // A cast computes in the reduced type only when it produces a float: rounding
                // its input first would change the integers it truncates to.
                let cast_to_other = kind == K::Cast && !is_f32_tensor(op.result(0).r#type());
                if matches!(kind, K::Constant | K::Weight | K::If | K::Loop | K::Yield)
                    || cast_to_other
                    || !touches_f32(op)
                {
                    return false;
                }
                match kept_in_f32(kind) {
                    Some(reason) => {
                        kept.push((op, reason));
                        false
                    }
                    None => true,
                }
            })
            .map(|op| op.raw().ptr as usize)
            .collect();
        Self {
            ops,
            reduced: precision.r#type(function.context()),
            precision,
            converting,
            retyped: HashSet::new(),
            casts: HashMap::new(),
            kept,
            weights: 0,
            returns: 0,
        }
    }

    fn apply(&mut self) {
        for op in self.ops.clone() {
            if self.converting.contains(&(op.raw().ptr as usize)) {
                self.reduce(op);
            } else if self.stores_reduced(op) {
                self.retype_results(op);
                self.weights += 1;
            } else {
                self.restore_operands(op);
            }
        }
    }

    /// Gives the function's f32 arguments the reduced type and makes its return compute in it:
    /// the interface takes and gives reduced tensors.
    fn reduce_interface(&mut self, function: Op) {
        let block = function.entry_block().expect("a function with a body");
        // SAFETY: the block is alive with its function.
        let count = unsafe { mlirBlockGetNumArguments(block) } as usize;
        let arguments: Vec<Val> = (0..count).map(|i| function.entry_argument(i)).collect();
        for argument in &arguments {
            if is_f32_tensor(argument.r#type()) {
                argument.set_type(with_element(argument.r#type(), self.reduced));
                self.retyped.insert(argument.raw().ptr as usize);
            }
        }
        let terminators = self.ops.iter().filter(|op| {
            op.is(upstream::Kind::FuncReturn)
                && op
                    .parent()
                    .is_some_and(|parent| parent.raw().ptr == function.raw().ptr)
        });
        let mut results = Vec::new();
        for &terminator in terminators {
            self.converting.insert(terminator.raw().ptr as usize);
            self.returns += 1;
            results = terminator
                .operands()
                .iter()
                .map(|value| reduced_if_f32(value.r#type(), self.reduced))
                .collect();
        }
        let inputs: Vec<MlirType> = arguments.iter().map(|value| value.r#type()).collect();
        let r#type = function_type(function.context(), &inputs, &results);
        // SAFETY: a type attribute of the function's own context.
        function.set_attribute("function_type", unsafe { mlirTypeAttrGet(r#type) });
    }

    /// Whether `op` is a weight or constant of f32 that only reduced ops read.
    fn stores_reduced(&self, op: Op) -> bool {
        let is_data = op.is(graph::Kind::Weight) || op.is(graph::Kind::Constant);
        let result = op.results().first().copied();
        is_data
            && result.is_some_and(|value| {
                is_f32_tensor(value.r#type())
                    && !value.is_unused()
                    && value
                        .uses()
                        .iter()
                        .all(|(user, _)| self.converting.contains(&(user.raw().ptr as usize)))
            })
    }

    /// Makes `op` read its f32 operands in the reduced type and produce it.
    fn reduce(&mut self, op: Op) {
        for (position, operand) in op.operands().into_iter().enumerate() {
            if is_f32_tensor(operand.r#type()) {
                let cast = self.cast(operand, true);
                op.set_operand(position, cast);
            }
        }
        self.retype_results(op);
    }

    /// Makes an op that keeps f32 read the f32 values whose type the rewrite reduced.
    fn restore_operands(&mut self, op: Op) {
        for (position, operand) in op.operands().into_iter().enumerate() {
            if self.retyped.contains(&(operand.raw().ptr as usize)) {
                let cast = self.cast(operand, false);
                op.set_operand(position, cast);
            }
        }
    }

    fn retype_results(&mut self, op: Op) {
        for result in op.results() {
            if is_f32_tensor(result.r#type()) {
                result.set_type(with_element(result.r#type(), self.reduced));
                self.retyped.insert(result.raw().ptr as usize);
            }
        }
        if op.is(graph::Kind::Constant) {
            self.reduce_constant(op);
        }
    }

    /// Rewrites a constant's payload in the reduced type (its result already is).
    fn reduce_constant(&self, op: Op) {
        let value = op.attribute("value").expect("graph.constant has a value");
        let result_type = op.result(0).r#type();
        // SAFETY: a live dense elements attribute of f32 (the op's verifier ties it to the
        // result, which was f32); the new attribute has the result's type.
        let reduced = unsafe {
            let raw = value.to_raw();
            let context = op.context();
            let element = |index: isize| {
                let x = mlirDenseElementsAttrGetFloatValue(raw, index) as f64;
                mlirFloatAttrDoubleGet(context, self.reduced, x)
            };
            if mlirDenseElementsAttrIsSplat(raw) {
                let x = mlirDenseElementsAttrGetSplatValue(raw);
                let x = mlirFloatAttrGetValueDouble(x);
                mlirDenseElementsAttrSplatGet(
                    result_type,
                    mlirFloatAttrDoubleGet(context, self.reduced, x),
                )
            } else {
                let count = mlirElementsAttrGetNumElements(raw) as isize;
                let elements: Vec<MlirAttribute> = (0..count).map(element).collect();
                mlirDenseElementsAttrGet(result_type, count, elements.as_ptr())
            }
        };
        op.set_attribute("value", reduced);
    }

    /// `value` cast to the reduced type (`down`) or back to f32, made once right after the
    /// definition of `value`.
    fn cast(&mut self, value: Val, down: bool) -> Val {
        let key = (value.raw().ptr as usize, down);
        if let Some(&cast) = self.casts.get(&key) {
            return cast;
        }
        let element = if down {
            self.reduced
        } else {
            // SAFETY: the value's context is alive.
            unsafe { mlirF32TypeGet(mlirTypeGetContext(value.r#type())) }
        };
        let point = after_definition(value);
        let cast = create(
            point,
            value.location(),
            graph::Kind::Cast,
            &[value],
            &[with_element(value.r#type(), element)],
            &[],
            Vec::new(),
        )
        .result(0);
        self.casts.insert(key, cast);
        cast
    }

    fn explain(&self, function: Op) {
        for (op, reason) in &self.kept {
            op.emit_remark(&format!("kept in f32: {reason}"));
        }
        function.emit_remark(&format!(
            "{} ops compute in {}, {} kept in f32; {} casts; {} weights and constants stored in {}",
            self.converting.len() - self.returns,
            self.precision.name(),
            self.kept.len(),
            self.casts.len(),
            self.weights,
            self.precision.name(),
        ));
    }
}

/// Whether `op` reads or produces an f32 tensor.
fn touches_f32(op: Op) -> bool {
    op.operands()
        .into_iter()
        .chain(op.results())
        .any(|value| is_f32_tensor(value.r#type()))
}

/// `r#type` with the reduced element type when it is an f32 tensor.
fn reduced_if_f32(r#type: MlirType, reduced: MlirType) -> MlirType {
    if is_f32_tensor(r#type) {
        with_element(r#type, reduced)
    } else {
        r#type
    }
}

fn is_f32_tensor(r#type: MlirType) -> bool {
    // SAFETY: the type is alive.
    unsafe {
        mlirTypeIsARankedTensor(r#type) && mlirTypeIsAF32(mlirShapedTypeGetElementType(r#type))
    }
}

/// The ranked tensor type `r#type` with element type `element`.
fn with_element(r#type: MlirType, element: MlirType) -> MlirType {
    // SAFETY: a live ranked tensor type; MLIR copies the shape.
    unsafe {
        let rank = mlirShapedTypeGetRank(r#type);
        let shape: Vec<i64> = (0..rank)
            .map(|d| mlirShapedTypeGetDimSize(r#type, d as isize))
            .collect();
        mlirRankedTensorTypeGet(
            rank as isize,
            shape.as_ptr(),
            element,
            mlirAttributeGetNull(),
        )
    }
}

/// Right after the op defining `value`, or at the start of the block it is an argument of.
fn after_definition(value: Val) -> InsertionPoint {
    // SAFETY: the value and its block are alive; a value with uses is never a terminator's
    // result, so an op follows its definition in the block.
    unsafe {
        let next = match value.defining_op() {
            Some(op) => mlirOperationGetNextInBlock(op.raw()),
            None => mlirBlockGetFirstOperation(value.owner_block().expect("a block argument")),
        };
        InsertionPoint::Before(Op::from_raw(next))
    }
}
