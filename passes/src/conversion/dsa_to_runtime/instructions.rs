//! The dsa instructions (DMA, compute, wait and barrier), each one `td_*` call on the kernel's
//! core.
//!
//! An instruction records on a core, so it lowers only inside a kernel's function, which knows its
//! `%cluster` and `%core`. Its buffers are passed as `td_view`s, its parameters as a struct and
//! its wait list as an array, all in the function's scratch; the token it returns is read back
//! from `token_out`. The scratch is reused by every call because the runtime copies what it
//! needs while recording.

use super::abi::{
    binary_code, pool_code, reduce_code, unary_code, FunctionState, UnaryParameters, PARAMS_WORD,
    TOKEN_WORD, WAITS_WORD,
};
use super::builder::Builder;
use super::ir::{attribute, enum_attribute, i64_array, operands};
use super::views::view;
use mlir_sys::*;
use turbine_dialects::attributes::dsa::{BinaryKind, PoolKind, ReduceKind, UnaryKind};

/// The dsa instructions, which record on a core and so live in kernels.
pub(super) const INSTRUCTIONS: &[&str] = &[
    "dsa.dma",
    "dsa.matmul",
    "dsa.conv2d",
    "dsa.binary",
    "dsa.unary",
    "dsa.pool",
    "dsa.reduce",
    "dsa.wait",
    "dsa.barrier",
];

/// The `after` tokens of an instruction: every operand after its buffers. (By position, not by
/// type: a token produced by an already lowered instruction is an `i64` by now.)
///
/// # Safety
/// `op` is an alive dsa instruction.
pub(super) unsafe fn tokens_waited_on(op: MlirOperation) -> Vec<MlirValue> {
    // SAFETY: the caller's guarantee; values are alive while their op is.
    unsafe {
        operands(op)
            .into_iter()
            .skip_while(|&value| mlirTypeIsAMemRef(mlirValueGetType(value)))
            .collect()
    }
}

/// Stores `words` as the parameter struct and returns its address.
///
/// # Safety
/// The [`Builder`] contract; `scratch` is the function's scratch pointer.
unsafe fn params(builder: &Builder, scratch: MlirValue, words: &[i64]) -> MlirValue {
    // SAFETY: the caller's guarantee; the parameter words are within the scratch.
    unsafe {
        for (offset, &word) in words.iter().enumerate() {
            builder.store(
                builder.constant_i64(word),
                builder.word(scratch, PARAMS_WORD + offset),
            );
        }
        builder.word(scratch, PARAMS_WORD)
    }
}

/// Lowers instruction `op` (named `name`) of a kernel's function to its `td_*` call, and
/// replaces its token, if any, by the `token_out` the call wrote.
///
/// # Safety
/// `op` is an alive, checked instruction in a kernel's function whose state is `state` (with
/// scratch for as many waits as the op has), and `builder` is before it.
pub(super) unsafe fn lower_instruction(
    op: MlirOperation,
    name: &str,
    builder: &Builder,
    state: FunctionState,
) {
    // SAFETY: the caller's guarantee; the checks made every buffer an f32 view of rank 1 to 4
    // and every enum attribute one of the dialect's cases.
    unsafe {
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
        let callee = match name {
            "dsa.wait" => "td_wait",
            "dsa.barrier" => {
                arguments.push(token_slot);
                builder.call_runtime("td_barrier", &arguments);
                return;
            }
            _ => call.arguments(name, &mut arguments),
        };
        arguments.extend(waits_list);
        arguments.push(token_slot);
        builder.call_runtime(callee, &arguments);
        if mlirOperationGetNumResults(op) == 1 {
            let token = builder.load_i64(token_slot);
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), token);
        }
    }
}

/// An instruction being lowered, with the views of its buffers.
struct Call<'a> {
    op: MlirOperation,
    builder: &'a Builder,
    /// The function's scratch pointer.
    scratch: MlirValue,
    /// The op's buffer operands, in order.
    buffers: Vec<MlirValue>,
    /// The `td_view` of every buffer, in the scratch's view slots in order.
    views: Vec<MlirValue>,
}

impl<'a> Call<'a> {
    /// Builds the views of the buffers of `op` with `builder`, in order.
    ///
    /// # Safety
    /// As for [`lower_instruction`]; `scratch` is the function's scratch pointer.
    unsafe fn new(op: MlirOperation, builder: &'a Builder, scratch: MlirValue) -> Self {
        // SAFETY: the caller's guarantee.
        unsafe {
            let buffers: Vec<MlirValue> = operands(op)
                .into_iter()
                .filter(|&value| mlirTypeIsAMemRef(mlirValueGetType(value)))
                .collect();
            let views: Vec<MlirValue> = buffers
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
    }

    /// Appends to `arguments` what the call of instruction `name` (neither a wait nor a
    /// barrier) passes after the core and before the waits; returns the callee.
    ///
    /// # Safety
    /// As for [`lower_instruction`].
    unsafe fn arguments(&self, name: &str, arguments: &mut Vec<MlirValue>) -> &'static str {
        // SAFETY: the caller's guarantee.
        unsafe {
            match name {
                "dsa.dma" => {
                    arguments.extend(&self.views);
                    "td_dma"
                }
                "dsa.matmul" => {
                    arguments.extend(&self.views);
                    arguments.push(self.accumulate());
                    "td_matmul"
                }
                "dsa.conv2d" => {
                    self.conv2d(arguments);
                    "td_conv2d"
                }
                "dsa.binary" => {
                    let kind: BinaryKind =
                        enum_attribute(self.op, "kind").expect("dsa.binary has a kind");
                    arguments.push(self.builder.constant_i32(binary_code(kind)));
                    arguments.extend(&self.views);
                    "td_binary"
                }
                "dsa.unary" => {
                    self.unary(arguments);
                    "td_unary"
                }
                "dsa.pool" => {
                    self.pool(arguments);
                    "td_pool2d"
                }
                "dsa.reduce" => {
                    self.reduce(arguments);
                    "td_reduce"
                }
                other => unreachable!("checked: '{other}' is an instruction"),
            }
        }
    }

    /// The `accumulate` flag as an `i32` constant.
    ///
    /// # Safety
    /// As for [`lower_instruction`].
    unsafe fn accumulate(&self) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.builder
                .constant_i32(attribute(self.op, "accumulate").is_some() as i64)
        }
    }

    /// `td_conv2d`'s arguments: the views, the parameter struct (strides, pads, dilations,
    /// groups) and `accumulate`.
    ///
    /// # Safety
    /// As for [`lower_instruction`].
    unsafe fn conv2d(&self, arguments: &mut Vec<MlirValue>) {
        // SAFETY: the caller's guarantee.
        unsafe {
            let op = self.op;
            let mut words = i64_array(op, "strides", &[1, 1]);
            words.extend(i64_array(op, "pads", &[0, 0, 0, 0]));
            words.extend(i64_array(op, "dilations", &[1, 1]));
            words.push(
                attribute(op, "groups").map_or(1, |groups| mlirIntegerAttrGetValueInt(groups)),
            );
            arguments.extend(&self.views);
            arguments.push(params(self.builder, self.scratch, &words));
            arguments.push(self.accumulate());
        }
    }

    /// `td_unary`'s arguments: the function's code and its two parameters (the op's attributes
    /// or the kind's constants), then the views.
    ///
    /// # Safety
    /// As for [`lower_instruction`].
    unsafe fn unary(&self, arguments: &mut Vec<MlirValue>) {
        // SAFETY: the caller's guarantee.
        unsafe {
            let op = self.op;
            let builder = self.builder;
            let kind: UnaryKind = enum_attribute(op, "kind").expect("dsa.unary has a kind");
            let float =
                |name| attribute(op, name).map_or(0.0, |value| mlirFloatAttrGetValueDouble(value));
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
    }

    /// `td_pool2d`'s arguments: the parameter struct (kind and `count_include_pad`, kernel,
    /// strides, pads), then the views.
    ///
    /// # Safety
    /// As for [`lower_instruction`].
    unsafe fn pool(&self, arguments: &mut Vec<MlirValue>) {
        // SAFETY: the caller's guarantee.
        unsafe {
            let op = self.op;
            let count_include_pad =
                attribute(op, "count_include_pad").is_some_and(|flag| mlirBoolAttrGetValue(flag));
            let kind: PoolKind = enum_attribute(op, "kind").expect("dsa.pool has a kind");
            let mut words = vec![pool_code(kind) | ((count_include_pad as i64) << 32)];
            words.extend(i64_array(op, "kernel", &[1, 1]));
            words.extend(i64_array(op, "strides", &[1, 1]));
            words.extend(i64_array(op, "pads", &[0, 0, 0, 0]));
            arguments.push(params(self.builder, self.scratch, &words));
            arguments.extend(&self.views);
        }
    }

    /// `td_reduce`'s arguments: the kind's code and the axis (made non-negative), then the
    /// views.
    ///
    /// # Safety
    /// As for [`lower_instruction`].
    unsafe fn reduce(&self, arguments: &mut Vec<MlirValue>) {
        // SAFETY: the caller's guarantee.
        unsafe {
            let op = self.op;
            let rank = mlirShapedTypeGetRank(mlirValueGetType(self.buffers[0]));
            let axis = mlirIntegerAttrGetValueInt(attribute(op, "axis").expect("checked"));
            let kind: ReduceKind = enum_attribute(op, "kind").expect("dsa.reduce has a kind");
            arguments.push(self.builder.constant_i32(reduce_code(kind)));
            arguments.push(self.builder.constant_i32(axis.rem_euclid(rank)));
            arguments.extend(&self.views);
        }
    }
}
