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
//!   entry block of each function, reused by every call: an alloca inside a loop over
//!   thousands of tiles would grow the stack at every iteration.
//!
//! Each of these concerns is one module, so that a change to the runtime's ABI, to the
//! representation of buffers or to one kind of op is made in one place: [`abi`], [`buffers`],
//! [`instructions`], [`launches`] and [`entry`], over [`ir`] (reading the IR), [`types`] and
//! [`builder`] (building it). This file checks the module up front, so that a failure leaves the
//! IR unchanged, and drives the lowerings in the order the representation needs.

mod abi;
mod buffers;
mod builder;
mod entry;
mod instructions;
mod ir;
mod launches;
mod layers;
mod outline;
mod types;
mod views;

use crate::registry::{Pass, PassFailure, PassOptions};
use abi::{FunctionState, WAITS_WORD};
use builder::Builder;
use instructions::{tokens_waited_on, INSTRUCTIONS};
use ir::{
    attribute, emit_error, entry_block, enum_attribute, op_name, operands, shown, symbol_name, walk,
};
use melior::ir::{Attribute, OperationRef};
use mlir_sys::*;
use std::cell::RefCell;
use std::collections::HashSet;
use turbine_dialects::attributes::dsa::{Target, UnaryKind};
use turbine_dialects::ops::{upstream, OpKind};
use types::{i64_type, integer_attribute, memory_space, pointer_type, type_attribute};

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
scratch is allocated once in each function's entry block.\n\n\
Every function gets a leading `%dev: i64`, passed along by calls. A public function whose \
arguments are all DDR buffers and which returns nothing is an entry point: it keeps its name \
with the C ABI `i32 f(i64 device, ptr buffers)`, where `buffers` holds one `u64` buffer handle \
per original argument, calls the original body (renamed `f.impl`), and returns \
`td_device_take_error(device)` (the first failing call's status, or 0); its original arguments' \
(DDR) types and attributes stay readable in its `dsa.arguments` attribute. An unknown `dsa` op, a \
buffer that is not f32, a view of rank 0 or above 4, or an instruction outside a kernel is an \
error at the op.";

    fn from_options(_options: &PassOptions) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op; the lowering only touches IR below it.
        unsafe { Lowering::new(operation.to_raw())?.run() }
    }
}

/// The dsa ops that are not instructions; with [`INSTRUCTIONS`], every op the pass lowers.
const STRUCTURE: &[&str] = &[
    "dsa.kernel",
    "dsa.return",
    "dsa.launch",
    "dsa.alloc",
    "dsa.dealloc",
    "dsa.core_id",
    "dsa.cluster_id",
];

/// One run of the lowering on a module.
struct Lowering {
    module: MlirOperation,
    /// The target's cores per cluster: launches name cores by their number on the device, the
    /// runtime by (cluster, core).
    cores_per_cluster: i64,
    /// The model layers the kernels' instructions are attributed to.
    layers: RefCell<layers::Layers>,
}

impl Lowering {
    /// The lowering of `module`, or an error at it when it has no target.
    ///
    /// # Safety
    /// `module` is alive for the lowering's life.
    unsafe fn new(module: MlirOperation) -> Result<Lowering, PassFailure> {
        // SAFETY: the caller's guarantee; the target attribute is owned by the context.
        unsafe {
            let target = attribute(module, "dsa.target")
                .and_then(|target| Target::from_attribute(Attribute::from_raw(target)))
                .ok_or_else(|| {
                    emit_error(
                        module,
                        "convert-dsa-to-runtime needs the module's dsa.target; run \
                         dsa-set-target first",
                    )
                })?;
            Ok(Lowering {
                module,
                cores_per_cluster: target.cores_per_cluster,
                layers: RefCell::default(),
            })
        }
    }

    /// Checks the module, then lowers it. The order matters: entry points are recognised by their
    /// DDR arguments, so their records are taken before any type changes; host functions get
    /// `%dev` before kernels become functions (which get their own leading arguments), so that
    /// calls can pass it along; and types are converted last, because lowering an allocation
    /// reads its buffer's dsa memory space.
    ///
    /// # Safety
    /// As for [`Lowering::new`].
    unsafe fn run(&self) -> Result<(), PassFailure> {
        // SAFETY: the module is alive; ops are erased only after the walks that listed them
        // have visited them.
        unsafe {
            self.check()?;
            let context = mlirOperationGetContext(self.module);
            let functions: Vec<MlirOperation> = walk(self.module)
                .into_iter()
                .filter(|&op| op_name(op) == "func.func" && !entry_block(op).ptr.is_null())
                .collect();
            let entries: Vec<(MlirOperation, MlirAttribute)> = functions
                .iter()
                .filter_map(|&function| {
                    entry::entry_record(function).map(|record| (function, record))
                })
                .collect();
            let host_names: HashSet<String> = functions
                .iter()
                .map(|&function| symbol_name(function))
                .collect();
            abi::declare_runtime(self.module);
            for &function in &functions {
                abi::prepend_arguments(function, &abi::host_arguments(context));
            }
            let kernels: Vec<MlirOperation> = walk(self.module)
                .into_iter()
                .filter(|&op| op_name(op) == "dsa.kernel")
                .collect();
            let mut kernel_functions: Vec<MlirOperation> = kernels
                .iter()
                .map(|&kernel| launches::kernel_function(kernel))
                .collect();
            for op in walk(self.module) {
                if op_name(op) == "func.call" {
                    abi::pass_device_along(op, &host_names);
                }
            }
            let parts: Vec<MlirOperation> = kernel_functions
                .iter()
                .flat_map(|&function| outline::outline_parts(function))
                .collect();
            kernel_functions.extend(parts);
            let mut launches = 0;
            for (&function, is_kernel) in functions
                .iter()
                .map(|f| (f, false))
                .chain(kernel_functions.iter().map(|f| (f, true)))
            {
                self.lower_function(function, is_kernel, &mut launches);
            }
            for &(function, _) in &entries {
                self.layers.borrow().register(
                    self.module,
                    function,
                    mlirBlockGetArgument(entry_block(function), 0),
                );
            }
            views::erase_dead_views(self.module);
            types::convert_types(self.module);
            for (function, record) in entries {
                entry::make_entry(self.module, function, record);
            }
            Ok(())
        }
    }

    /// Everything that can make the lowering fail, checked before the IR changes.
    ///
    /// # Safety
    /// As for [`Lowering::new`].
    unsafe fn check(&self) -> Result<(), PassFailure> {
        // SAFETY: the module is alive and unchanged; ops are verified, so their attributes have
        // their declared kinds.
        unsafe {
            for op in walk(self.module) {
                let name = op_name(op);
                if !name.starts_with("dsa.") {
                    continue;
                }
                if !STRUCTURE.contains(&name.as_str()) && !INSTRUCTIONS.contains(&name.as_str()) {
                    return Err(emit_error(
                        op,
                        &format!("convert-dsa-to-runtime cannot lower '{name}'"),
                    ));
                }
                let in_kernel = {
                    let mut parent = mlirOperationGetParentOperation(op);
                    while !parent.ptr.is_null() && op_name(parent) != "dsa.kernel" {
                        parent = mlirOperationGetParentOperation(parent);
                    }
                    !parent.ptr.is_null()
                };
                if INSTRUCTIONS.contains(&name.as_str()) && !in_kernel {
                    return Err(emit_error(
                        op,
                        &format!("'{name}' outside a dsa.kernel has no core to record it on"),
                    ));
                }
                let buffers: Vec<MlirType> = if name == "dsa.alloc" {
                    vec![mlirValueGetType(mlirOperationGetResult(op, 0))]
                } else if name == "dsa.dealloc" || name == "dsa.launch" {
                    Vec::new()
                } else {
                    operands(op)
                        .into_iter()
                        .map(|value| mlirValueGetType(value))
                        .filter(|&t| mlirTypeIsAMemRef(t))
                        .collect()
                };
                for buffer in buffers {
                    check_buffer(op, buffer, name != "dsa.alloc")?;
                }
                if name == "dsa.reduce" {
                    let rank =
                        mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(op, 0)));
                    let axis = mlirIntegerAttrGetValueInt(
                        attribute(op, "axis").expect("dsa.reduce has an axis"),
                    );
                    if axis < -rank || axis >= rank {
                        return Err(emit_error(
                            op,
                            &format!("reduction axis {axis} is out of range for rank {rank}"),
                        ));
                    }
                }
                if name == "dsa.unary"
                    && enum_attribute::<UnaryKind>(op, "kind") == Some(UnaryKind::Clip)
                    && (attribute(op, "min").is_none() || attribute(op, "max").is_none())
                {
                    return Err(emit_error(op, "clip needs min and max"));
                }
            }
            Ok(())
        }
    }

    /// Lowers every dsa op of `function` (a host function, or a kernel's when `is_kernel`),
    /// after allocating its scratch in its entry block: an alloca inside a loop over tiles would
    /// grow the stack at every iteration.
    ///
    /// # Safety
    /// `function` is an alive function of the module whose leading arguments were prepended.
    unsafe fn lower_function(
        &self,
        function: MlirOperation,
        is_kernel: bool,
        launches: &mut usize,
    ) {
        // SAFETY: the caller's guarantee; each op is lowered and erased once, after the walk.
        unsafe {
            let context = mlirOperationGetContext(function);
            let block = entry_block(function);
            let ops: Vec<MlirOperation> = walk(function)
                .into_iter()
                .filter(|&op| op_name(op).starts_with("dsa."))
                .collect();
            let needs_scratch = ops
                .iter()
                .any(|&op| op_name(op) != "dsa.launch" && op_name(op) != "dsa.return");
            let max_waits = ops
                .iter()
                .filter(|&&op| INSTRUCTIONS.contains(&op_name(op).as_str()))
                .map(|&op| tokens_waited_on(op).len())
                .max()
                .unwrap_or(0);
            let scratch = needs_scratch.then(|| {
                let first = mlirBlockGetFirstOperation(block);
                let builder = if first.ptr.is_null() {
                    Builder::at_end(block, context, mlirOperationGetLocation(function))
                } else {
                    Builder::before(first)
                };
                let words = builder.constant_i64((WAITS_WORD + max_waits.max(1)) as i64);
                builder.value(
                    "llvm.alloca",
                    &[words],
                    pointer_type(context),
                    &[
                        ("elem_type", type_attribute(i64_type(context))),
                        ("alignment", integer_attribute(i64_type(context), 8)),
                    ],
                )
            });
            let argument = |index| mlirBlockGetArgument(block, index);
            let state = FunctionState {
                device: argument(0),
                core: is_kernel.then(|| (argument(1), argument(2))),
                scratch,
            };
            if is_kernel {
                self.layers.borrow_mut().mark(function, state);
            }
            for op in ops {
                self.lower_op(op, state, is_kernel.then(|| argument(3)), launches);
            }
        }
    }

    /// Lowers one dsa op and erases it.
    ///
    /// # Safety
    /// `op` is an alive, checked dsa op of a function whose state is `state`; `core_index` is
    /// the kernel's `%index` in a kernel's function.
    unsafe fn lower_op(
        &self,
        op: MlirOperation,
        state: FunctionState,
        core_index: Option<MlirValue>,
        launches: &mut usize,
    ) {
        // SAFETY: the caller's guarantee; the op's results have no uses left when it is erased.
        unsafe {
            let builder = Builder::before(op);
            let name = op_name(op);
            match name.as_str() {
                "dsa.return" => {
                    builder.create("func.return", &[], Some(&[]), &[], &[]);
                }
                "dsa.core_id" => {
                    mlirValueReplaceAllUsesOfWith(
                        mlirOperationGetResult(op, 0),
                        core_index.expect("checked: in a kernel"),
                    );
                }
                "dsa.cluster_id" => {
                    let cluster = state.core.expect("checked: in a kernel").0;
                    let index = builder.cast(
                        "arith.index_cast",
                        cluster,
                        types::index_type(builder.context),
                    );
                    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), index);
                }
                "dsa.alloc" => buffers::lower_alloc(op, &builder, state),
                "dsa.dealloc" => buffers::lower_dealloc(op, &builder, state),
                "dsa.launch" => {
                    launches::lower_launch(
                        op,
                        &builder,
                        state.device,
                        self.module,
                        self.cores_per_cluster,
                        *launches,
                    );
                    *launches += 1;
                }
                _ => instructions::lower_instruction(op, &name, &builder, state),
            }
            mlirOperationDestroy(op);
        }
    }
}

/// Checks that a buffer type of `op` is one the runtime holds: f32, in a dsa memory space, and
/// (for a view) of rank 1 to 4.
///
/// # Safety
/// `op` and `buffer` (a memref type) are alive.
unsafe fn check_buffer(
    op: MlirOperation,
    buffer: MlirType,
    is_view: bool,
) -> Result<(), PassFailure> {
    // SAFETY: the caller's guarantee.
    unsafe {
        let element = mlirShapedTypeGetElementType(buffer);
        if !mlirTypeIsAF32(element) {
            return Err(emit_error(
                op,
                &format!(
                    "the runtime's buffers hold f32 elements only, got {}",
                    shown(buffer)
                ),
            ));
        }
        let rank = mlirShapedTypeGetRank(buffer);
        if is_view && !(1..=4).contains(&rank) {
            return Err(emit_error(
                op,
                &format!("a runtime view has rank 1 to 4, got {}", shown(buffer)),
            ));
        }
        if memory_space(buffer).is_none() {
            return Err(emit_error(
                op,
                &format!(
                    "expects a buffer in a dsa memory space, got {}",
                    shown(buffer)
                ),
            ));
        }
        Ok(())
    }
}
