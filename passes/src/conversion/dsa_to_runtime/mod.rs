//! `convert-dsa-to-runtime`: rewrites the `dsa` dialect into host code that drives the software
//! DSA through its C ABI (`runtime/include/turbine_dsa.h`), using only upstream dialects (func,
//! arith, scf, memref and llvm), so that upstream conversions take it the rest of the way to the
//! LLVM dialect.
//!
//! The runtime records a launch and then executes it, so a kernel is not device code here: a
//! `dsa.kernel` becomes a host function that is run once per core of the launch *while the
//! launch is recorded*, and each of its instructions becomes one `td_*` call naming that core.
//! Loops over tiles therefore stay `scf.for` loops of host code.
//!
//! Representation (the invariants later passes and the backend rely on):
//! - a buffer (memref in `#dsa.memory_space<lb|gb|ddr>`) is a memref in the default memory
//!   space whose allocated and aligned pointers are the runtime's buffer *handle* (never
//!   dereferenced) and whose offset, sizes and strides are in elements, so `memref.subview`
//!   keeps working on it and its offset, sizes and strides are a `td_view`'s ([`views`]);
//! - a `!dsa.token` is the `i64` the runtime returned through `token_out`;
//! - every function gets a leading `%dev: i64` (kernels also `%cluster: i32, %core: i32,
//!   %index: index`); an entry function's C ABI is `i32 f(i64 device, ptr buffers)` and it
//!   returns `td_device_take_error(device)`: calls are not checked one by one because a
//!   structured loop cannot exit early, and the runtime keeps the first failure;
//! - all stack scratch (views, parameters, wait lists, `token_out`) is one `llvm.alloca` in the
//!   entry block of each function, reused by every call (a chunk, [`chunks`], uses its
//!   caller's): an alloca inside a loop over thousands of tiles would grow the stack at every
//!   iteration;
//! - no block holds more than a bounded number of ops of its own ([`chunks`]), so that the
//!   passes and the code generation after this one cost linear time in the model's size.
//!
//! Each of these concerns is one module, so that a change to the runtime's ABI, to the
//! representation of buffers or to one kind of op is made in one place: [`abi`], [`buffers`],
//! [`instructions`], [`launches`], [`entry`], [`layers`], [`outline`] and [`chunks`], over
//! [`crate::ir`] (reading the IR), [`types`] and [`builder`] (building it). This file checks the
//! module up front, so that a failure leaves the IR unchanged, and drives the lowerings in the
//! order the representation needs.

mod abi;
mod buffers;
mod builder;
mod chunks;
mod control;
mod entry;
mod instructions;
mod launches;
mod layers;
mod outline;
mod symbols;
mod types;
mod views;

use crate::ir::{block_ops, Op, Val};
use crate::registry::{Pass, PassFailure, PassOptions};
use abi::{FunctionState, WAITS_WORD};
use builder::Builder;
use instructions::{enum_value, is_instruction, tokens_waited_on};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::cell::RefCell;
use std::collections::HashSet;
use turbine_dialects::attributes::dsa::{Target, UnaryKind};
use turbine_dialects::ops::{dsa, upstream, OpKind};
use types::{
    i64_type, integer_attribute, is_memref, memory_space, pointer_type, runtime_element, shown,
    type_attribute,
};

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct ConvertDsaToRuntime;

impl Pass for ConvertDsaToRuntime {
    const ARGUMENT: &'static str = "convert-dsa-to-runtime";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::BuiltinModule);
    const SUMMARY: &'static str =
        "Lower dsa kernels, launches, buffers and instructions to calls into the runtime's C ABI";
    const DESCRIPTION: &'static str = "\
Rewrites a module with a `dsa.target` (run `dsa-set-target` first) into func, arith, scf, memref \
and llvm-dialect ops that call the software DSA's C ABI (`td_*`, declared once as private \
functions with `!llvm.ptr` for pointers). The runtime records a launch, then executes it, so a \
`dsa.kernel @k` becomes a host function `@k(%dev: i64, %cluster: i32, %core: i32, %index: index, \
args...)` that `dsa.launch` calls once per core between `td_launch_begin` and `td_launch_end` \
(an `scf.for` over a constant core table); `dsa.core_id` is `%index`, the core's position in the \
launch's core list, and each instruction (`dsa.dma`, `matmul`, `conv2d`, `binary`, `unary`, \
`pool`, `reduce`, `wait`, `barrier`) becomes one `td_*` call on core (`%cluster`, `%core`). \
A kernel's function is cut into parts, functions `@k.partN` with the same leading arguments that \
it calls in order: runs of its layers (top-level ops ending with a `dsa.barrier`, about 150 ops \
each) that define nothing read after them; the views and constants a part reads are built again \
in it, the buffers they view passed. A GraphTurbo kernel holding a whole model is then many \
functions of ordinary size for the per-function pipelines and LLVM's code generation.\n\n\
Once lowered, no block of any function (a tile loop's body, a kernel's or a host function's \
body) holds more than about 2000 ops of its own: a longer run of ops is cut into chunks, \
private functions `@f.chunkN` that the block calls in their place, innermost blocks first and \
again while the block holds too many calls. A chunk takes the function's leading arguments, then \
the values it reads from outside (the caller's scratch among them), building constants, views, \
index arithmetic and scratch addresses again inside; it returns the values it defines that are \
read after it, and is cut where few are (a chain's token). The runtime calls keep their order and \
arguments; passes that split blocks and LLVM's per-block code generation then cost linear time \
in the model's size.\n\n\
A buffer becomes a memref in the default memory space whose pointers are the runtime's buffer \
handle: `dsa.alloc` calls `td_buffer_alloc` (a kernel's LB/GB on its own core/cluster, host \
buffers on core (0, 0)) and builds the descriptor; `dsa.dealloc` calls `td_buffer_release`, \
which defers the free to the end of the launch being recorded. Each memref operand becomes a \
`td_view` (handle, offset, rank, sizes, strides; ranks 1 to 4): a layout static in the \
memref type is stored as constants and the offset summed from the view's chain of \
`memref.subview`, `memref.reinterpret_cast` and `memref.cast` ops, which are erased when no other \
op uses them; a dynamic layout, or the dynamic offset of a chain's root, is read with \
`memref.extract_strided_metadata`. A `!dsa.token` becomes the `i64` of `token_out`, in block \
arguments and `scf.for` iteration arguments too; wait lists are arrays of them. All stack \
scratch is allocated once in each function's entry block (a chunk uses its caller's).\n\n\
Every function gets a leading `%dev: i64`, passed along by calls. A public function whose \
arguments are all DDR buffers and which returns nothing is an entry point: it keeps its name \
with the C ABI `i32 f(i64 device, ptr buffers)`, where `buffers` holds one `u64` buffer handle \
per original argument, calls the original body (renamed `f.impl`, which names the module's \
layers with one `td_layer_names` call on their names back to back in a constant global), and \
returns `td_device_take_error(device)` (the first failing call's status, or 0); its original \
arguments' (DDR) types and attributes stay readable in its `dsa.arguments` attribute. An unknown \
`dsa` op, a buffer of an element type the runtime does not hold (it holds f32, i64, i32, i8, \
ui8 and i1), a view of rank 0 or above 4, or an instruction outside a kernel is an error at the \
op.";

    fn from_options(_options: &PassOptions) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run; the lowering only
        // touches IR below it.
        let module = unsafe { Op::from_raw(operation.to_raw()) };
        Lowering::new(module)?.run()
    }
}

/// Emits `message` as an error at `op` and returns the pass's failure.
fn fail(op: Op, message: &str) -> PassFailure {
    op.emit_error(message);
    PassFailure
}

/// One run of the lowering on a module.
struct Lowering {
    module: Op,
    /// The target's cores per cluster: launches name cores by their number on the device, the
    /// runtime by (cluster, core).
    cores_per_cluster: i64,
    /// The model layers the kernels' instructions are attributed to.
    layers: RefCell<layers::Layers>,
    /// The symbols the module defines, those the lowering adds among them.
    symbols: RefCell<symbols::Symbols>,
}

impl Lowering {
    /// The lowering of `module`, or an error at it when it has no target.
    fn new(module: Op) -> Result<Lowering, PassFailure> {
        let target = module
            .attribute("dsa.target")
            .and_then(Target::from_attribute)
            .ok_or_else(|| {
                fail(
                    module,
                    "convert-dsa-to-runtime needs the module's dsa.target; run dsa-set-target \
                     first",
                )
            })?;
        Ok(Lowering {
            module,
            cores_per_cluster: target.cores_per_cluster,
            layers: RefCell::default(),
            symbols: RefCell::new(symbols::Symbols::of(module)),
        })
    }

    /// Checks the module, then lowers it. The order matters: entry points are recognised by their
    /// DDR arguments, so their records are taken before any type changes; host functions get
    /// `%dev` before kernels become functions (which get their own leading arguments), so that
    /// calls can pass it along; blocks are cut into chunks once their ops are lowered (and dead
    /// views erased), so that chunks move the runtime calls as they are; and types are converted
    /// last, because lowering an allocation reads its buffer's dsa memory space, and converting
    /// them also gives the chunks' tokens and buffers their lowered types. Ops are erased only
    /// after the walks that listed them have visited them.
    fn run(&self) -> Result<(), PassFailure> {
        self.check()?;
        let context = self.module.context();
        let functions: Vec<Op> = self
            .module
            .collect_pre_order()
            .into_iter()
            .filter(|op| op.is(upstream::Kind::FuncFunc) && op.entry_block().is_some())
            .collect();
        let entries: Vec<(Op, MlirAttribute)> = functions
            .iter()
            .filter_map(|&function| entry::entry_record(function).map(|record| (function, record)))
            .collect();
        let host_names: HashSet<String> = functions
            .iter()
            .map(|function| function.symbol_name())
            .collect();
        abi::declare_runtime(self.module, &mut self.symbols.borrow_mut());
        for &function in &functions {
            abi::prepend_arguments(function, &abi::host_arguments(context));
        }
        let kernels: Vec<Op> = self
            .module
            .collect_pre_order()
            .into_iter()
            .filter(|op| op.is(dsa::Kind::Kernel))
            .collect();
        let mut kernel_functions: Vec<Op> =
            kernels.into_iter().map(launches::kernel_function).collect();
        for op in self.module.collect_pre_order() {
            if op.is(upstream::Kind::FuncCall) {
                abi::pass_device_along(op, &host_names);
            }
        }
        let parts: Vec<Op> = kernel_functions
            .iter()
            .flat_map(|&function| outline::outline_parts(function))
            .collect();
        kernel_functions.extend(parts);
        let lowered: Vec<(Op, bool)> = functions
            .iter()
            .map(|&f| (f, false))
            .chain(kernel_functions.iter().map(|&f| (f, true)))
            .collect();
        let mut launches = 0;
        for &(function, is_kernel) in &lowered {
            self.lower_function(function, is_kernel, &mut launches);
        }
        for &(function, _) in &entries {
            self.layers.borrow().register(
                self.module,
                &mut self.symbols.borrow_mut(),
                function,
                function.entry_argument(0),
            );
        }
        views::erase_dead_views(self.module);
        for (function, is_kernel) in lowered {
            let leading = if is_kernel {
                abi::kernel_arguments(context).len()
            } else {
                abi::host_arguments(context).len()
            };
            chunks::outline_chunks(function, leading, &mut self.symbols.borrow_mut());
        }
        types::convert_types(self.module);
        for (function, record) in entries {
            entry::make_entry(self.module, function, record);
        }
        Ok(())
    }

    /// Everything that can make the lowering fail, checked before the IR changes (ops are
    /// verified, so their attributes have their declared kinds).
    fn check(&self) -> Result<(), PassFailure> {
        for op in self.module.collect_pre_order() {
            let kind = match op.kind() {
                Some(OpKind::Dsa(kind)) => kind,
                _ if op.dialect() == "dsa" => {
                    return Err(fail(
                        op,
                        &format!("convert-dsa-to-runtime cannot lower '{}'", op.name()),
                    ));
                }
                _ => continue,
            };
            if is_instruction(kind) && op.enclosing(dsa::Kind::Kernel).is_none() {
                return Err(fail(
                    op,
                    &format!("'{kind}' outside a dsa.kernel has no core to record it on"),
                ));
            }
            let buffers: Vec<MlirType> = match kind {
                dsa::Kind::Alloc => vec![op.result(0).r#type()],
                dsa::Kind::Dealloc | dsa::Kind::Launch => Vec::new(),
                _ => op
                    .operands()
                    .into_iter()
                    .map(|value| value.r#type())
                    .filter(|&r#type| is_memref(r#type))
                    .collect(),
            };
            for buffer in buffers {
                check_buffer(op, buffer, kind != dsa::Kind::Alloc)?;
            }
            if kind == dsa::Kind::Reduce {
                // SAFETY: a verified reduce's input is a ranked buffer.
                let rank = unsafe { mlirShapedTypeGetRank(op.operand(0).r#type()) };
                let axis = op.integer_value("axis").expect("dsa.reduce has an axis");
                if axis < -rank || axis >= rank {
                    return Err(fail(
                        op,
                        &format!("reduction axis {axis} is out of range for rank {rank}"),
                    ));
                }
            }
            if kind == dsa::Kind::Unary
                && enum_value::<UnaryKind>(op, "kind") == Some(UnaryKind::Clip)
                && (op.attribute("min").is_none() || op.attribute("max").is_none())
            {
                return Err(fail(op, "clip needs min and max"));
            }
        }
        Ok(())
    }

    /// Lowers every dsa op of `function` (a host function, or a kernel's when `is_kernel`, whose
    /// leading arguments were prepended), after allocating its scratch in its entry block: an
    /// alloca inside a loop over tiles would grow the stack at every iteration.
    fn lower_function(&self, function: Op, is_kernel: bool, launches: &mut usize) {
        let context = function.context();
        let block = function
            .entry_block()
            .expect("lowered functions have a body");
        control::inline_persistent_regions(function);
        let ops: Vec<(Op, dsa::Kind)> = function
            .collect_pre_order()
            .into_iter()
            .filter_map(|op| Some((op, op.kind()?.dsa()?)))
            .collect();
        let needs_scratch = ops
            .iter()
            .any(|&(_, kind)| kind != dsa::Kind::Launch && kind != dsa::Kind::Return);
        let max_waits = ops
            .iter()
            .filter(|&&(_, kind)| is_instruction(kind))
            .map(|&(op, _)| tokens_waited_on(op).len())
            .max()
            .unwrap_or(0);
        let scratch = needs_scratch.then(|| {
            let builder = match block_ops(block).first() {
                Some(&first) => Builder::before(first),
                None => Builder::at_end(block, context, function.location()),
            };
            let words = builder.constant_i64((WAITS_WORD + max_waits.max(1)) as i64);
            builder.value(
                upstream::Kind::LlvmAlloca,
                &[words],
                pointer_type(context),
                &[
                    ("elem_type", type_attribute(i64_type(context))),
                    ("alignment", integer_attribute(i64_type(context), 8)),
                ],
            )
        });
        let argument = |index| function.entry_argument(index);
        let state = FunctionState {
            device: argument(0),
            core: is_kernel.then(|| (argument(1), argument(2))),
            scratch,
        };
        if is_kernel {
            self.layers.borrow_mut().mark(function, state);
        }
        for (op, kind) in ops {
            self.lower_op(op, kind, state, is_kernel.then(|| argument(3)), launches);
        }
    }

    /// Lowers `op`, a checked dsa op of kind `kind` in a function whose state is `state`, and
    /// erases it; `core_index` is the kernel's `%index` in a kernel's function.
    fn lower_op(
        &self,
        op: Op,
        kind: dsa::Kind,
        state: FunctionState,
        core_index: Option<Val>,
        launches: &mut usize,
    ) {
        let builder = Builder::before(op);
        match kind {
            dsa::Kind::Return => {
                builder.create(
                    upstream::Kind::FuncReturn,
                    &op.operands(),
                    Some(&[]),
                    &[],
                    &[],
                );
            }
            dsa::Kind::CoreId => {
                op.result(0)
                    .replace_all_uses_with(core_index.expect("checked: in a kernel"));
            }
            dsa::Kind::ClusterId => {
                let cluster = state.core.expect("checked: in a kernel").0;
                let index = builder.cast(
                    upstream::Kind::ArithIndexCast,
                    cluster,
                    types::index_type(builder.context),
                );
                op.result(0).replace_all_uses_with(index);
            }
            dsa::Kind::Alloc => buffers::lower_alloc(op, &builder, state),
            dsa::Kind::Dealloc => buffers::lower_dealloc(op, &builder, state),
            dsa::Kind::Launch => {
                launches::lower_launch(
                    op,
                    &builder,
                    state.device,
                    self.module,
                    &mut self.symbols.borrow_mut(),
                    self.cores_per_cluster,
                    *launches,
                );
                *launches += 1;
            }
            dsa::Kind::ReadScalar => control::lower_read_scalar(op, &builder, state),
            dsa::Kind::WriteScalar => control::lower_write_scalar(op, &builder, state),
            dsa::Kind::LoopCheck => {
                let layer = self.layers.borrow_mut().id(op.location());
                control::lower_allowed(
                    op,
                    &builder,
                    "td_loop_check",
                    &[op.operand(0)],
                    state,
                    layer,
                )
            }
            dsa::Kind::FramePush => {
                let layer = self.layers.borrow_mut().id(op.location());
                control::lower_allowed(op, &builder, "td_frame_push", &[], state, layer)
            }
            dsa::Kind::FramePop => {
                builder.call_runtime("td_frame_pop", &[state.device]);
            }
            dsa::Kind::Kernel => unreachable!("kernels are functions by now"),
            dsa::Kind::Persistent | dsa::Kind::Yield => {
                unreachable!("persistent regions are inlined first")
            }
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
            | dsa::Kind::Barrier => instructions::lower_instruction(op, kind, &builder, state),
        }
        // SAFETY: each lowering above replaced the op's results (a token by the `token_out` read
        // back, a buffer by the runtime's); no op lowered here holds a region (kernels are
        // functions by now), so the later entries of the caller's list stay alive, and `op` and the
        // builder anchored at it end here.
        unsafe { op.erase() };
    }
}

/// Checks that a buffer type of `op` is one the runtime holds: of f32, i64, i32, i8, ui8 or i1
/// elements, in a dsa memory space, and (for a view) of rank 1 to 4.
fn check_buffer(op: Op, buffer: MlirType, is_view: bool) -> Result<(), PassFailure> {
    // SAFETY: the buffer's type is an alive memref type.
    let (element, rank) = unsafe {
        (
            mlirShapedTypeGetElementType(buffer),
            mlirShapedTypeGetRank(buffer),
        )
    };
    // SAFETY: the element type is alive.
    if runtime_element(element).is_none() {
        return Err(fail(
            op,
            &format!(
                "the runtime's buffers hold f32, f16, bf16, i64, i32, i8, ui8 or i1 elements, \
                 got {}",
                shown(buffer)
            ),
        ));
    }
    if is_view && !(1..=4).contains(&rank) {
        return Err(fail(
            op,
            &format!("a runtime view has rank 1 to 4, got {}", shown(buffer)),
        ));
    }
    if memory_space(buffer).is_none() {
        return Err(fail(
            op,
            &format!(
                "expects a buffer in a dsa memory space, got {}",
                shown(buffer)
            ),
        ));
    }
    Ok(())
}
