//! The dsa instructions (DMA, compute, wait and barrier), each one `td_*` call on the kernel's
//! core.
//!
//! An instruction records on a core, so it lowers only inside a kernel's function, which knows its
//! `%cluster` and `%core`. Its buffers are passed as `td_view`s, its parameters as a struct and
//! its wait list as an array, all in the function's scratch; the token it returns is read back
//! from `token_out`. The scratch is reused by every call because the runtime copies what it
//! needs while recording.

use super::abi::{
    binary_code, compare_code, pool_code, reduce_code, unary_code, FunctionState, UnaryParameters,
    PARAMS_WORD, TOKEN_WORD, WAITS_WORD,
};
use super::builder::Builder;
use super::types::is_memref;
use super::views::view;
use crate::ir::{Op, Val};
use mlir_sys::*;
use turbine_dialects::attributes::dsa::{
    BinaryKind, ComparePredicate, PoolKind, ReduceKind, UnaryKind,
};
use turbine_dialects::attributes::EnumAttribute;
use turbine_dialects::ops::dsa;

/// Whether ops of kind `kind` are instructions, which record on a core and so live in kernels.
pub(super) fn is_instruction(kind: dsa::Kind) -> bool {
    match kind {
        dsa::Kind::Dma
        | dsa::Kind::Matmul
        | dsa::Kind::Conv2d
        | dsa::Kind::Binary
        | dsa::Kind::Unary
        | dsa::Kind::Pool
        | dsa::Kind::Reduce
        | dsa::Kind::Convert
        | dsa::Kind::Compare
        | dsa::Kind::Select
        | dsa::Kind::Gather
        | dsa::Kind::GatherElements
        | dsa::Kind::ScatterElements
        | dsa::Kind::ArgMax
        | dsa::Kind::ArgMin
        | dsa::Kind::TopK
        | dsa::Kind::Wait
        | dsa::Kind::Barrier => true,
        dsa::Kind::Alloc
        | dsa::Kind::Dealloc
        | dsa::Kind::Kernel
        | dsa::Kind::Return
        | dsa::Kind::Launch
        | dsa::Kind::CoreId
        | dsa::Kind::ClusterId
        | dsa::Kind::ReadScalar
        | dsa::Kind::WriteScalar
        | dsa::Kind::LoopCheck
        | dsa::Kind::FramePush
        | dsa::Kind::FramePop
        | dsa::Kind::Persistent
        | dsa::Kind::Yield => false,
    }
}

/// The case of `op`'s dsa enum attribute `name`, None when unset or of another enumeration.
pub(super) fn enum_value<E: EnumAttribute>(op: Op, name: &str) -> Option<E> {
    op.attribute(name).and_then(E::from_attribute)
}

/// The `after` tokens of instruction `op`: every operand after its buffers. (By position, not by
/// type: a token produced by an already lowered instruction is an `i64` by now.)
pub(super) fn tokens_waited_on(op: Op) -> Vec<Val> {
    op.operands()
        .into_iter()
        .skip_while(|value| is_memref(value.r#type()))
        .collect()
}

/// Stores `words` as the parameter struct in `scratch` (the function's scratch pointer) and
/// returns its address.
fn params(builder: &Builder, scratch: Val, words: &[i64]) -> Val {
    for (offset, &word) in words.iter().enumerate() {
        builder.store(
            builder.constant_i64(word),
            builder.word(scratch, PARAMS_WORD + offset),
        );
    }
    builder.word(scratch, PARAMS_WORD)
}

/// Lowers `op`, a checked instruction of kind `kind` in a kernel's function whose state is
/// `state` (with scratch for as many waits as the op has), to its `td_*` call before it
/// (`builder`), and replaces its token, if any, by the `token_out` the call wrote.
pub(super) fn lower_instruction(op: Op, kind: dsa::Kind, builder: &Builder, state: FunctionState) {
    let scratch = state.scratch.expect("instructions' functions have scratch");
    let (cluster, core) = state.core.expect("checked: instructions are in kernels");
    let waits = tokens_waited_on(op);
    for (index, &token) in waits.iter().enumerate() {
        builder.store(token, builder.word(scratch, WAITS_WORD + index));
    }
    let waits_list = [
        builder.word(scratch, WAITS_WORD),
        builder.constant_i64(waits.len() as i64),
    ];
    let token_slot = builder.word(scratch, TOKEN_WORD);
    let call = Call::new(op, builder, scratch);
    let mut arguments = vec![state.device, cluster, core];
    let callee = match kind {
        dsa::Kind::Wait => "td_wait",
        dsa::Kind::Barrier => {
            arguments.push(token_slot);
            builder.call_runtime("td_barrier", &arguments);
            return;
        }
        other => call.arguments(other, &mut arguments),
    };
    arguments.extend(waits_list);
    arguments.push(token_slot);
    builder.call_runtime(callee, &arguments);
    if let [result] = op.results()[..] {
        let token = builder.load_i64(token_slot);
        result.replace_all_uses_with(token);
    }
}

/// An instruction being lowered, with the views of its buffers.
struct Call<'a> {
    op: Op,
    builder: &'a Builder,
    /// The function's scratch pointer.
    scratch: Val,
    /// The op's buffer operands, in order.
    buffers: Vec<Val>,
    /// The `td_view` of every buffer, in the scratch's view slots in order.
    views: Vec<Val>,
}

impl<'a> Call<'a> {
    /// Builds the views of the buffers of `op` with `builder`, in order, in `scratch` (the
    /// function's scratch pointer).
    fn new(op: Op, builder: &'a Builder, scratch: Val) -> Self {
        let buffers: Vec<Val> = op
            .operands()
            .into_iter()
            .filter(|value| is_memref(value.r#type()))
            .collect();
        let views: Vec<Val> = buffers
            .iter()
            .enumerate()
            .map(|(slot, &buffer)| view(builder, scratch, slot, buffer))
            .collect();
        Self {
            op,
            builder,
            scratch,
            buffers,
            views,
        }
    }

    /// Appends to `arguments` what the call of an instruction of kind `kind` (neither a wait nor
    /// a barrier) passes after the core and before the waits; returns the callee.
    fn arguments(&self, kind: dsa::Kind, arguments: &mut Vec<Val>) -> &'static str {
        match kind {
            dsa::Kind::Dma => {
                arguments.extend(&self.views);
                "td_dma"
            }
            dsa::Kind::Matmul => {
                arguments.extend(&self.views);
                arguments.push(self.accumulate());
                "td_matmul"
            }
            dsa::Kind::Conv2d => {
                self.conv2d(arguments);
                "td_conv2d"
            }
            dsa::Kind::Binary => {
                let kind: BinaryKind = enum_value(self.op, "kind").expect("dsa.binary has a kind");
                arguments.push(self.builder.constant_i32(binary_code(kind)));
                arguments.extend(&self.views);
                "td_binary"
            }
            dsa::Kind::Unary => {
                self.unary(arguments);
                "td_unary"
            }
            dsa::Kind::Pool => {
                self.pool(arguments);
                "td_pool2d"
            }
            dsa::Kind::Reduce => {
                self.reduce(arguments);
                "td_reduce"
            }
            dsa::Kind::Convert => {
                arguments.extend(&self.views);
                "td_convert"
            }
            dsa::Kind::Compare => {
                let predicate: ComparePredicate =
                    enum_value(self.op, "predicate").expect("dsa.compare has a predicate");
                arguments.push(self.builder.constant_i32(compare_code(predicate)));
                arguments.extend(&self.views);
                "td_compare"
            }
            dsa::Kind::Select => {
                arguments.extend(&self.views);
                "td_select"
            }
            dsa::Kind::Gather => {
                let axis = self
                    .op
                    .integer_value("axis")
                    .expect("dsa.gather has an axis");
                arguments.push(self.builder.constant_i32(axis));
                arguments.extend(&self.views);
                "td_gather"
            }
            dsa::Kind::ArgMax | dsa::Kind::ArgMin => {
                // SAFETY: the checks made every buffer a ranked memref.
                let rank = unsafe { mlirShapedTypeGetRank(self.buffers[0].r#type()) };
                let axis = self.op.integer_value("axis").expect("checked: an axis");
                let axis = axis.rem_euclid(rank);
                let last = self.op.attribute("select_last").is_some();
                arguments.extend([
                    self.builder
                        .constant_i32((kind == dsa::Kind::ArgMax) as i64),
                    self.builder.constant_i32(last as i64),
                    self.builder.constant_i32(axis),
                ]);
                arguments.extend(&self.views);
                "td_arg_reduce"
            }
            dsa::Kind::TopK => {
                // SAFETY: the checks made every buffer a ranked memref.
                let rank = unsafe { mlirShapedTypeGetRank(self.buffers[0].r#type()) };
                let axis = self.op.integer_value("axis").expect("checked: an axis");
                let largest = self.op.attribute("largest").is_some();
                arguments.extend([
                    self.builder.constant_i32(largest as i64),
                    self.builder.constant_i32(axis.rem_euclid(rank)),
                ]);
                arguments.extend(&self.views);
                "td_top_k"
            }
            dsa::Kind::GatherElements => {
                let axis = self.op.integer_value("axis").expect("checked: an axis");
                arguments.push(self.builder.constant_i32(axis));
                arguments.extend(&self.views);
                "td_gather_elements"
            }
            dsa::Kind::ScatterElements => {
                let axis = self.op.integer_value("axis").expect("checked: an axis");
                // 0 replaces; 1 + a binary code reduces by that operation.
                let reduction = enum_value::<BinaryKind>(self.op, "reduction")
                    .map_or(0, |kind| 1 + binary_code(kind));
                arguments.push(self.builder.constant_i32(axis));
                arguments.push(self.builder.constant_i32(reduction));
                // The op reads `updates[indices] into target`; the call takes the indices first.
                let [updates, indices, target] = self.views[..] else {
                    unreachable!("checked: dsa.scatter_elements has three buffers")
                };
                arguments.extend([indices, updates, target]);
                "td_scatter_elements"
            }
            dsa::Kind::Wait
            | dsa::Kind::Barrier
            | dsa::Kind::Alloc
            | dsa::Kind::Dealloc
            | dsa::Kind::Kernel
            | dsa::Kind::Return
            | dsa::Kind::Launch
            | dsa::Kind::CoreId
            | dsa::Kind::ClusterId
            | dsa::Kind::ReadScalar
            | dsa::Kind::WriteScalar
            | dsa::Kind::LoopCheck
            | dsa::Kind::FramePush
            | dsa::Kind::FramePop
            | dsa::Kind::Persistent
            | dsa::Kind::Yield => {
                unreachable!("checked: '{kind}' is an instruction")
            }
        }
    }

    /// The `accumulate` flag as an `i32` constant.
    fn accumulate(&self) -> Val {
        self.builder
            .constant_i32(self.op.attribute("accumulate").is_some() as i64)
    }

    /// The dense i64 array attribute `name` of the op, or `default` when it is unset.
    fn i64_array(&self, name: &str, default: &[i64]) -> Vec<i64> {
        self.op
            .i64_array_value(name)
            .unwrap_or_else(|| default.to_vec())
    }

    /// `td_conv2d`'s arguments: the views, the parameter struct (strides, pads, dilations,
    /// groups) and `accumulate`.
    fn conv2d(&self, arguments: &mut Vec<Val>) {
        let mut words = self.i64_array("strides", &[1, 1]);
        words.extend(self.i64_array("pads", &[0, 0, 0, 0]));
        words.extend(self.i64_array("dilations", &[1, 1]));
        words.push(self.op.integer_value("groups").unwrap_or(1));
        arguments.extend(&self.views);
        arguments.push(params(self.builder, self.scratch, &words));
        arguments.push(self.accumulate());
    }

    /// `td_unary`'s arguments: the function's code and its two parameters (the op's attributes
    /// or the kind's constants), then the views.
    fn unary(&self, arguments: &mut Vec<Val>) {
        let builder = self.builder;
        let kind: UnaryKind = enum_value(self.op, "kind").expect("dsa.unary has a kind");
        let float = |name| self.op.float_value(name).unwrap_or(0.0);
        let (code, parameters) = unary_code(kind);
        let (p0, p1) = match parameters {
            UnaryParameters::Attributes(p0, p1) => (float(p0), float(p1)),
            UnaryParameters::Constants(p0, p1) => (p0, p1),
        };
        arguments.extend([
            builder.constant_i32(code),
            builder.constant_f32(p0),
            builder.constant_f32(p1),
        ]);
        arguments.extend(&self.views);
    }

    /// `td_pool2d`'s arguments: the parameter struct (kind and `count_include_pad`, kernel,
    /// strides, pads), then the views.
    fn pool(&self, arguments: &mut Vec<Val>) {
        let count_include_pad = self.op.bool_value("count_include_pad").unwrap_or(false);
        let kind: PoolKind = enum_value(self.op, "kind").expect("dsa.pool has a kind");
        let mut words = vec![pool_code(kind) | ((count_include_pad as i64) << 32)];
        words.extend(self.i64_array("kernel", &[1, 1]));
        words.extend(self.i64_array("strides", &[1, 1]));
        words.extend(self.i64_array("pads", &[0, 0, 0, 0]));
        arguments.push(params(self.builder, self.scratch, &words));
        arguments.extend(&self.views);
    }

    /// `td_reduce`'s arguments: the kind's code and the axis (made non-negative), then the
    /// views.
    fn reduce(&self, arguments: &mut Vec<Val>) {
        // SAFETY: the checks made every buffer a ranked memref.
        let rank = unsafe { mlirShapedTypeGetRank(self.buffers[0].r#type()) };
        let axis = self.op.integer_value("axis").expect("checked");
        let kind: ReduceKind = enum_value(self.op, "kind").expect("dsa.reduce has a kind");
        arguments.push(self.builder.constant_i32(reduce_code(kind)));
        arguments.push(self.builder.constant_i32(axis.rem_euclid(rank)));
        arguments.extend(&self.views);
    }
}
