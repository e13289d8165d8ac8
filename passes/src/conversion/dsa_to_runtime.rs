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
//!   keeps working on it and `memref.extract_strided_metadata` yields a `td_view`;
//! - a `!dsa.token` is the `i64` the runtime returned through `token_out`;
//! - every function gets a leading `%dev: i64` (kernels also `%cluster: i32, %core: i32,
//!   %index: index`); an entry function's C ABI is `i32 f(i64 device, ptr buffers)` and it
//!   returns `td_device_take_error(device)`: calls are not checked one by one because a
//!   structured loop cannot exit early, and the runtime keeps the first failure;
//! - all stack scratch (views, parameters, wait lists, `token_out`) is one `llvm.alloca` in the
//!   entry block of each function, reused by every call: an alloca inside a loop over
//!   thousands of tiles would grow the stack at every iteration.

use crate::registry::{Pass, PassFailure, PassOptions};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::collections::HashSet;
use std::ffi::c_void;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct ConvertDsaToRuntime;

impl Pass for ConvertDsaToRuntime {
    const ARGUMENT: &'static str = "convert-dsa-to-runtime";
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
`pool`, `reduce`, `wait`, `barrier`) becomes one `td_*` call on core (`%cluster`, `%core`).\n\n\
A buffer becomes a memref in the default memory space whose pointers are the runtime's buffer \
handle: `dsa.alloc` calls `td_buffer_alloc` (a kernel's LB/GB on its own core/cluster, host \
buffers on core (0, 0)) and builds the descriptor; `dsa.dealloc` calls `td_buffer_release`, \
which defers the free to the end of the launch being recorded. Each memref operand becomes a \
`td_view` (handle, offset, rank, sizes, strides; ranks 1 to 4) filled from \
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

// ---- The C ABI as the lowering sees it ---------------------------------------------------------

/// Words (u64) of one `td_view`: buffer, offset, rank, shape[4], strides[4].
const VIEW_WORDS: usize = 11;
/// Scratch layout, in words: three views, then one parameter struct (conv2d and pool2d
/// parameters are 9 words each), then `token_out`, then the wait list.
const PARAMS_WORD: usize = 3 * VIEW_WORDS;
const TOKEN_WORD: usize = PARAMS_WORD + 9;
const WAITS_WORD: usize = TOKEN_WORD + 1;

/// Every runtime function the lowering calls, with its signature in MLIR types.
const RUNTIME_FUNCTIONS: &[(&str, &str)] = &[
    ("td_buffer_alloc", "(i64, i32, i32, i32, i64, i32, !llvm.ptr) -> i32"),
    ("td_buffer_release", "(i64, i64) -> i32"),
    ("td_launch_begin", "(i64, !llvm.ptr, !llvm.ptr, i64) -> i32"),
    ("td_launch_end", "(i64, !llvm.ptr) -> i32"),
    ("td_dma", "(i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_matmul", "(i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_conv2d", "(i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_binary", "(i64, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_unary", "(i64, i32, i32, i32, f32, f32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_pool2d", "(i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_reduce", "(i64, i32, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_wait", "(i64, i32, i32, !llvm.ptr, i64, !llvm.ptr) -> i32"),
    ("td_barrier", "(i64, i32, i32, !llvm.ptr) -> i32"),
    ("td_device_take_error", "(i64) -> i32"),
];

/// `TD_LEVEL_*` of a `#dsa.memory_space<...>` keyword.
fn level_code(space: &str) -> Option<i64> {
    ["lb", "gb", "ddr"]
        .iter()
        .position(|&name| name == space)
        .map(|code| code as i64)
}

/// `TD_BINARY_*` of a dsa binary kind (dsa's numbering is the runtime's).
const BINARY_KINDS: &[&str] = &["add", "sub", "mul", "div", "max", "min", "pow"];
/// `TD_UNARY_*` of dsa unary kinds 0..=12 (dsa's numbering is the runtime's); dsa's `affine`
/// is `TD_UNARY_AFFINE` with its scale and shift, `copy` is `TD_UNARY_AFFINE` with scale 1
/// and shift 0, and `abs` is `TD_UNARY_ABS`.
const UNARY_KINDS: &[&str] = &[
    "relu",
    "sigmoid",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "erf",
    "gelu",
    "silu",
    "neg",
    "reciprocal",
    "clip",
];
const TD_UNARY_AFFINE: i64 = 13;
const TD_UNARY_ABS: i64 = 14;
/// `TD_POOL_*` and `TD_REDUCE_*` of dsa's kinds.
const POOL_KINDS: &[&str] = &["max", "avg"];
const REDUCE_KINDS: &[&str] = &["sum", "mean", "max"];

/// The dsa instructions, which record on a core and so live in kernels.
const INSTRUCTIONS: &[&str] = &[
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

// ---- Small C-API helpers ------------------------------------------------------------------------

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// Runs `parse` on `text` with a NUL after its last byte: MLIR's lexer finds the end of a
/// buffer by its terminating NUL even when handed a length, so a Rust `&str` would be read past.
fn with_source<T>(text: &str, parse: impl FnOnce(MlirStringRef) -> T) -> T {
    let source = std::ffi::CString::new(text).expect("IR text has no NUL");
    parse(MlirStringRef {
        data: source.as_ptr(),
        length: text.len(),
    })
}

unsafe extern "C" fn append_to_string(part: MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the String handed to the printer below; `part` is valid for the call.
    unsafe {
        let bytes = std::slice::from_raw_parts(part.data.cast::<u8>(), part.length);
        (*data.cast::<String>()).push_str(&String::from_utf8_lossy(bytes));
    }
}

unsafe fn type_text(r#type: MlirType) -> String {
    let mut text = String::new();
    unsafe {
        mlirTypePrint(
            r#type,
            Some(append_to_string),
            (&mut text as *mut String).cast(),
        )
    };
    text
}

unsafe fn attribute_text(attribute: MlirAttribute) -> String {
    let mut text = String::new();
    unsafe {
        mlirAttributePrint(
            attribute,
            Some(append_to_string),
            (&mut text as *mut String).cast(),
        )
    };
    text
}

unsafe fn op_name(op: MlirOperation) -> String {
    unsafe {
        let name = mlirIdentifierStr(mlirOperationGetName(op));
        String::from_utf8_lossy(std::slice::from_raw_parts(
            name.data.cast::<u8>(),
            name.length,
        ))
        .into_owned()
    }
}

unsafe fn attribute(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    let attribute = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    (!attribute.ptr.is_null()).then_some(attribute)
}

unsafe fn emit_error(op: MlirOperation, message: &str) -> PassFailure {
    unsafe {
        crate::ir::emit_error(
            melior::ir::Location::from_raw(mlirOperationGetLocation(op)),
            message,
        )
    };
    PassFailure
}

/// The last word of an enum attribute's text (`#dsa<unary relu>` is `relu`).
unsafe fn enum_keyword(op: MlirOperation, name: &str) -> Option<String> {
    let text = unsafe { attribute_text(attribute(op, name)?) };
    text.trim_end_matches('>')
        .rsplit([' ', '<'])
        .next()
        .map(str::to_owned)
}

/// The values of a dense i64 array attribute, or `default` when the op does not set it.
unsafe fn i64_array(op: MlirOperation, name: &str, default: &[i64]) -> Vec<i64> {
    match unsafe { attribute(op, name) } {
        Some(array) => unsafe {
            (0..mlirDenseArrayGetNumElements(array))
                .map(|index| mlirDenseI64ArrayGetElement(array, index))
                .collect()
        },
        None => default.to_vec(),
    }
}

unsafe fn operands(op: MlirOperation) -> Vec<MlirValue> {
    unsafe {
        (0..mlirOperationGetNumOperands(op))
            .map(|index| mlirOperationGetOperand(op, index))
            .collect()
    }
}

fn walk(root: MlirOperation) -> Vec<MlirOperation> {
    crate::ir::Op(root)
        .collect_pre_order()
        .into_iter()
        .map(|op| op.0)
        .collect()
}

/// The memory space keyword (`lb`, `gb`, `ddr`) of a memref type in a dsa memory space.
unsafe fn dsa_space(r#type: MlirType) -> Option<String> {
    unsafe {
        if !mlirTypeIsAMemRef(r#type) {
            return None;
        }
        let space = mlirMemRefTypeGetMemorySpace(r#type);
        if space.ptr.is_null() {
            return None;
        }
        let text = attribute_text(space);
        text.strip_prefix("#dsa.memory_space<")
            .and_then(|rest| rest.strip_suffix('>'))
            .map(str::to_owned)
    }
}

unsafe fn is_token(r#type: MlirType) -> bool {
    unsafe { type_text(r#type) == "!dsa.token" }
}

/// The op's enclosing `func.func`.
unsafe fn enclosing_function(op: MlirOperation) -> Option<MlirOperation> {
    let mut parent = unsafe { mlirOperationGetParentOperation(op) };
    while !parent.ptr.is_null() {
        if unsafe { op_name(parent) } == "func.func" {
            return Some(parent);
        }
        parent = unsafe { mlirOperationGetParentOperation(parent) };
    }
    None
}

unsafe fn entry_block(function: MlirOperation) -> MlirBlock {
    unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0)) }
}

unsafe fn symbol_name(op: MlirOperation) -> String {
    unsafe {
        attribute(op, "sym_name")
            .map(|name| attribute_text(name).trim_matches('"').to_owned())
            .unwrap_or_default()
    }
}

/// Where new ops go: before `anchor` in its block (or at the end of `block` when None).
#[derive(Clone, Copy)]
struct Builder {
    context: MlirContext,
    block: MlirBlock,
    anchor: Option<MlirOperation>,
    location: MlirLocation,
}

impl Builder {
    unsafe fn before(op: MlirOperation) -> Builder {
        unsafe {
            Builder {
                context: mlirOperationGetContext(op),
                block: mlirOperationGetBlock(op),
                anchor: Some(op),
                location: mlirOperationGetLocation(op),
            }
        }
    }

    unsafe fn at_end(block: MlirBlock, context: MlirContext, location: MlirLocation) -> Builder {
        Builder {
            context,
            block,
            anchor: None,
            location,
        }
    }

    unsafe fn r#type(&self, text: &str) -> MlirType {
        let parsed = with_source(text, |source| unsafe {
            mlirTypeParseGet(self.context, source)
        });
        assert!(
            !parsed.ptr.is_null(),
            "the lowering's own type '{text}' parses"
        );
        parsed
    }

    unsafe fn attr(&self, text: &str) -> MlirAttribute {
        let parsed = with_source(text, |source| unsafe {
            mlirAttributeParseGet(self.context, source)
        });
        assert!(
            !parsed.ptr.is_null(),
            "the lowering's own attribute '{text}' parses"
        );
        parsed
    }

    unsafe fn insert(&self, op: MlirOperation) -> MlirOperation {
        unsafe {
            match self.anchor {
                Some(anchor) => mlirBlockInsertOwnedOperationBefore(self.block, anchor, op),
                None => mlirBlockAppendOwnedOperation(self.block, op),
            }
        }
        op
    }

    /// Creates `name` with operands, result types (None: inferred), attributes and regions.
    unsafe fn create(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: Option<&[MlirType]>,
        attributes: &[(&str, MlirAttribute)],
        regions: &[MlirRegion],
    ) -> MlirOperation {
        unsafe {
            let mut state = mlirOperationStateGet(string_ref(name), self.location);
            mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
            match results {
                Some(results) => mlirOperationStateAddResults(
                    &mut state,
                    results.len() as isize,
                    results.as_ptr(),
                ),
                None => mlirOperationStateEnableResultTypeInference(&mut state),
            }
            let named: Vec<MlirNamedAttribute> = attributes
                .iter()
                .map(|(name, value)| {
                    mlirNamedAttributeGet(mlirIdentifierGet(self.context, string_ref(name)), *value)
                })
                .collect();
            mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
            mlirOperationStateAddOwnedRegions(&mut state, regions.len() as isize, regions.as_ptr());
            let op = mlirOperationCreate(&mut state);
            assert!(
                !op.ptr.is_null(),
                "'{name}' is created with its required operands and types"
            );
            self.insert(op)
        }
    }

    /// Creates a one-result op and returns the result.
    unsafe fn value(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: MlirType,
        attributes: &[(&str, MlirAttribute)],
    ) -> MlirValue {
        unsafe {
            mlirOperationGetResult(
                self.create(name, operands, Some(&[result]), attributes, &[]),
                0,
            )
        }
    }

    unsafe fn constant(&self, value: i64, r#type: &str) -> MlirValue {
        unsafe {
            self.value(
                "arith.constant",
                &[],
                self.r#type(r#type),
                &[("value", self.attr(&format!("{value} : {type}")))],
            )
        }
    }

    unsafe fn constant_f32(&self, value: f64) -> MlirValue {
        unsafe {
            let attribute =
                mlirFloatAttrDoubleGet(self.context, mlirF32TypeGet(self.context), value);
            self.value(
                "arith.constant",
                &[],
                mlirF32TypeGet(self.context),
                &[("value", attribute)],
            )
        }
    }

    unsafe fn cast(&self, name: &str, value: MlirValue, to: &str) -> MlirValue {
        unsafe { self.value(name, &[value], self.r#type(to), &[]) }
    }

    unsafe fn call(
        &self,
        callee: &str,
        arguments: &[MlirValue],
        results: &[MlirType],
    ) -> MlirOperation {
        unsafe {
            self.create(
                "func.call",
                arguments,
                Some(results),
                &[("callee", self.attr(&format!("@\"{callee}\"")))],
                &[],
            )
        }
    }

    /// Calls a runtime function (its i32 status is left unused; see the module doc).
    unsafe fn call_runtime(&self, callee: &str, arguments: &[MlirValue]) {
        unsafe { self.call(callee, arguments, &[self.r#type("i32")]) };
    }

    /// Address of word `word` of an i64 array at `base`.
    unsafe fn word(&self, base: MlirValue, word: usize) -> MlirValue {
        unsafe {
            self.value(
                "llvm.getelementptr",
                &[base],
                self.r#type("!llvm.ptr"),
                &[
                    (
                        "rawConstantIndices",
                        self.attr(&format!("array<i32: {word}>")),
                    ),
                    ("elem_type", self.attr("i64")),
                ],
            )
        }
    }

    /// Address of word `index` (an i64 value) of an i64 array at `base`.
    unsafe fn dynamic_word(&self, base: MlirValue, index: MlirValue) -> MlirValue {
        unsafe {
            self.value(
                "llvm.getelementptr",
                &[base, index],
                self.r#type("!llvm.ptr"),
                &[
                    (
                        "rawConstantIndices",
                        self.attr(&format!("array<i32: {}>", i32::MIN)),
                    ),
                    ("elem_type", self.attr("i64")),
                ],
            )
        }
    }

    unsafe fn store(&self, value: MlirValue, address: MlirValue) {
        unsafe { self.create("llvm.store", &[value, address], Some(&[]), &[], &[]) };
    }

    unsafe fn load_i64(&self, address: MlirValue) -> MlirValue {
        unsafe { self.value("llvm.load", &[address], self.r#type("i64"), &[]) }
    }

    unsafe fn null(&self) -> MlirValue {
        unsafe { self.value("llvm.mlir.zero", &[], self.r#type("!llvm.ptr"), &[]) }
    }

    unsafe fn address_of(&self, global: &str) -> MlirValue {
        unsafe {
            self.value(
                "llvm.mlir.addressof",
                &[],
                self.r#type("!llvm.ptr"),
                &[("global_name", self.attr(&format!("@\"{global}\"")))],
            )
        }
    }

    /// A memref of `memref_type` (identity or strided layout, static) whose pointers are the
    /// runtime handle `handle` (i64).
    unsafe fn buffer(&self, handle: MlirValue, memref_type: MlirType) -> MlirValue {
        unsafe {
            let rank = mlirShapedTypeGetRank(memref_type) as usize;
            let mut strides = vec![0i64; rank];
            let mut offset = 0i64;
            let strided =
                mlirMemRefTypeGetStridesAndOffset(memref_type, strides.as_mut_ptr(), &mut offset);
            assert!(strided.value != 0, "buffers have strided layouts");
            let descriptor_type = if rank == 0 {
                self.r#type("!llvm.struct<(ptr, ptr, i64)>")
            } else {
                self.r#type(&format!(
                    "!llvm.struct<(ptr, ptr, i64, array<{rank} x i64>, array<{rank} x i64>)>"
                ))
            };
            let pointer = self.cast("llvm.inttoptr", handle, "!llvm.ptr");
            let mut descriptor = self.value("llvm.mlir.undef", &[], descriptor_type, &[]);
            let mut insert = |value: MlirValue, position: &str| {
                descriptor = self.value(
                    "llvm.insertvalue",
                    &[descriptor, value],
                    descriptor_type,
                    &[("position", self.attr(&format!("array<i64: {position}>")))],
                );
            };
            insert(pointer, "0");
            insert(pointer, "1");
            insert(self.constant(offset, "i64"), "2");
            for dimension in 0..rank {
                insert(
                    self.constant(
                        mlirShapedTypeGetDimSize(memref_type, dimension as isize),
                        "i64",
                    ),
                    &format!("3, {dimension}"),
                );
                insert(
                    self.constant(strides[dimension], "i64"),
                    &format!("4, {dimension}"),
                );
            }
            self.value(
                "builtin.unrealized_conversion_cast",
                &[descriptor],
                memref_type,
                &[],
            )
        }
    }
}

// ---- The lowering ------------------------------------------------------------------------------

/// The per-function values every lowered op needs.
#[derive(Clone, Copy)]
struct FunctionState {
    device: MlirValue,
    /// The core a kernel records on; None in host functions.
    core: Option<(MlirValue, MlirValue)>,
    /// The scratch words (see `PARAMS_WORD` and the other offsets), if the function needs any.
    scratch: Option<MlirValue>,
}

struct Lowering {
    module: MlirOperation,
    context: MlirContext,
    cores_per_cluster: i64,
}

impl Lowering {
    unsafe fn new(module: MlirOperation) -> Result<Lowering, PassFailure> {
        unsafe {
            if op_name(module) != "builtin.module" {
                return Err(emit_error(
                    module,
                    &format!(
                        "{} runs on a builtin.module, not on '{}'",
                        ConvertDsaToRuntime::ARGUMENT,
                        op_name(module)
                    ),
                ));
            }
            let target = attribute(module, "dsa.target")
                .map(|target| attribute_text(target))
                .filter(|text| text.starts_with("#dsa.target<"))
                .ok_or_else(|| emit_error(module, "convert-dsa-to-runtime needs the module's dsa.target; run dsa-set-target first"))?;
            let cores_per_cluster = target
                .split("cores_per_cluster = ")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|digits| digits.parse().ok())
                .expect("#dsa.target prints its cores_per_cluster");
            Ok(Lowering {
                module,
                context: mlirOperationGetContext(module),
                cores_per_cluster,
            })
        }
    }

    unsafe fn module_builder(&self) -> Builder {
        unsafe {
            let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.module, 0));
            Builder::at_end(body, self.context, mlirOperationGetLocation(self.module))
        }
    }

    unsafe fn run(&self) -> Result<(), PassFailure> {
        unsafe {
            self.check()?;
            let functions: Vec<MlirOperation> = walk(self.module)
                .into_iter()
                .filter(|&op| op_name(op) == "func.func" && !entry_block(op).ptr.is_null())
                .collect();
            let entries: Vec<(MlirOperation, String)> = functions
                .iter()
                .filter_map(|&function| {
                    self.entry_arguments(function)
                        .map(|record| (function, record))
                })
                .collect();
            let host_names: HashSet<String> = functions
                .iter()
                .map(|&function| symbol_name(function))
                .collect();
            self.declare_runtime();
            for &function in &functions {
                self.prepend_arguments(function, &["i64"]);
            }
            let kernels: Vec<MlirOperation> = walk(self.module)
                .into_iter()
                .filter(|&op| op_name(op) == "dsa.kernel")
                .collect();
            let kernel_functions: Vec<MlirOperation> = kernels
                .iter()
                .map(|&kernel| self.kernel_function(kernel))
                .collect();
            for op in walk(self.module) {
                if op_name(op) == "func.call" {
                    self.pass_device_along(op, &host_names);
                }
            }
            let mut launches = 0;
            for (&function, is_kernel) in functions
                .iter()
                .map(|f| (f, false))
                .chain(kernel_functions.iter().map(|f| (f, true)))
            {
                self.lower_function(function, is_kernel, &mut launches)?;
            }
            self.convert_types();
            for (function, record) in entries {
                self.make_entry(function, &record);
            }
            Ok(())
        }
    }

    /// Everything that can make the lowering fail, checked before the IR changes.
    unsafe fn check(&self) -> Result<(), PassFailure> {
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
                    self.check_buffer(op, buffer, name != "dsa.alloc")?;
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
                    && enum_keyword(op, "kind").as_deref() == Some("clip")
                    && (attribute(op, "min").is_none() || attribute(op, "max").is_none())
                {
                    return Err(emit_error(op, "clip needs min and max"));
                }
            }
            Ok(())
        }
    }

    unsafe fn check_buffer(
        &self,
        op: MlirOperation,
        buffer: MlirType,
        is_view: bool,
    ) -> Result<(), PassFailure> {
        unsafe {
            let element = mlirShapedTypeGetElementType(buffer);
            if !mlirTypeIsAF32(element) {
                return Err(emit_error(
                    op,
                    &format!(
                        "the runtime's buffers hold f32 elements only, got {}",
                        type_text(buffer)
                    ),
                ));
            }
            let rank = mlirShapedTypeGetRank(buffer);
            if is_view && !(1..=4).contains(&rank) {
                return Err(emit_error(
                    op,
                    &format!("a runtime view has rank 1 to 4, got {}", type_text(buffer)),
                ));
            }
            if dsa_space(buffer).is_none() {
                return Err(emit_error(
                    op,
                    &format!(
                        "expects a buffer in a dsa memory space, got {}",
                        type_text(buffer)
                    ),
                ));
            }
            Ok(())
        }
    }

    /// If `function` is an entry point (public, only DDR f32 buffer arguments of static shape,
    /// no results), the text of its `dsa.arguments` record.
    unsafe fn entry_arguments(&self, function: MlirOperation) -> Option<String> {
        unsafe {
            if attribute(function, "sym_visibility")
                .is_some_and(|v| attribute_text(v) != "\"public\"")
            {
                return None;
            }
            let function_type = mlirTypeAttrGetValue(attribute(function, "function_type")?);
            if mlirFunctionTypeGetNumResults(function_type) != 0 {
                return None;
            }
            let arg_attrs = attribute(function, "arg_attrs");
            let mut records = Vec::new();
            for index in 0..mlirFunctionTypeGetNumInputs(function_type) {
                let input = mlirFunctionTypeGetInput(function_type, index);
                let is_buffer = dsa_space(input).as_deref() == Some("ddr")
                    && mlirShapedTypeHasStaticShape(input)
                    && mlirTypeIsAF32(mlirShapedTypeGetElementType(input));
                if !is_buffer {
                    return None;
                }
                let attrs = arg_attrs.map_or("{}".to_owned(), |attrs| {
                    attribute_text(mlirArrayAttrGetElement(attrs, index))
                });
                // The lowered type: the record must survive into LLVM-dialect text that tools without
                // the dsa dialect read (every entry argument is in DDR anyway).
                let lowered = convert_type(input).expect("entry arguments are dsa buffers");
                records.push(format!(
                    "{{type = {}, attributes = {attrs}}}",
                    type_text(lowered)
                ));
            }
            Some(format!("[{}]", records.join(", ")))
        }
    }

    unsafe fn declare_runtime(&self) {
        unsafe {
            let builder = self.module_builder();
            for (name, signature) in RUNTIME_FUNCTIONS {
                if defines_symbol(self.module, name) {
                    continue;
                }
                self.parse_into_module(&builder, &format!("func.func private @{name}{signature}"));
            }
        }
    }

    unsafe fn parse_into_module(&self, builder: &Builder, text: &str) {
        unsafe {
            let op = with_source(text, |source| {
                mlirOperationCreateParse(self.context, source, string_ref("convert-dsa-to-runtime"))
            });
            assert!(!op.ptr.is_null(), "the lowering's own op '{text}' parses");
            builder.insert(op);
        }
    }

    /// Inserts arguments of `types` before the existing ones of `function`'s entry block,
    /// keeping `arg_attrs` aligned (the function type is recomputed by `convert_types`).
    unsafe fn prepend_arguments(&self, function: MlirOperation, types: &[&str]) {
        unsafe {
            let builder = Builder::before(function);
            let block = entry_block(function);
            for (position, r#type) in types.iter().enumerate() {
                mlirBlockInsertArgument(
                    block,
                    position as isize,
                    builder.r#type(r#type),
                    builder.location,
                );
            }
            if let Some(arg_attrs) = attribute(function, "arg_attrs") {
                let mut attrs: Vec<String> = vec!["{}".into(); types.len()];
                attrs.extend(
                    (0..mlirArrayAttrGetNumElements(arg_attrs))
                        .map(|i| attribute_text(mlirArrayAttrGetElement(arg_attrs, i))),
                );
                mlirOperationSetAttributeByName(
                    function,
                    string_ref("arg_attrs"),
                    builder.attr(&format!("[{}]", attrs.join(", "))),
                );
            }
        }
    }

    /// Replaces `kernel` by a private `func.func` with its body and the leading
    /// `%dev, %cluster, %core, %index` arguments.
    unsafe fn kernel_function(&self, kernel: MlirOperation) -> MlirOperation {
        unsafe {
            let builder = Builder::before(kernel);
            let mut attributes = vec![
                (
                    "sym_name",
                    attribute(kernel, "sym_name").expect("kernels have a name"),
                ),
                (
                    "function_type",
                    attribute(kernel, "function_type").expect("kernels have a type"),
                ),
                ("sym_visibility", builder.attr("\"private\"")),
            ];
            if let Some(arg_attrs) = attribute(kernel, "arg_attrs") {
                attributes.push(("arg_attrs", arg_attrs));
            }
            let function = builder.create(
                "func.func",
                &[],
                Some(&[]),
                &attributes,
                &[mlirRegionCreate()],
            );
            mlirRegionTakeBody(
                mlirOperationGetRegion(function, 0),
                mlirOperationGetRegion(kernel, 0),
            );
            mlirOperationDestroy(kernel);
            self.prepend_arguments(function, &["i64", "i32", "i32", "index"]);
            function
        }
    }

    /// Adds the caller's `%dev` to a call of a module function that takes one.
    unsafe fn pass_device_along(&self, call: MlirOperation, host_names: &HashSet<String>) {
        unsafe {
            let callee =
                attribute_text(attribute(call, "callee").expect("calls name their callee"));
            let callee = callee.trim_start_matches('@').trim_matches('"');
            if !host_names.contains(callee) {
                return;
            }
            let caller =
                enclosing_function(call).expect("calls of module functions sit in functions");
            let mut arguments = vec![mlirBlockGetArgument(entry_block(caller), 0)];
            arguments.extend(operands(call));
            mlirOperationSetOperands(call, arguments.len() as isize, arguments.as_ptr());
        }
    }

    /// Lowers every dsa op of `function` (a host function, or a kernel when `is_kernel`).
    unsafe fn lower_function(
        &self,
        function: MlirOperation,
        is_kernel: bool,
        launches: &mut usize,
    ) -> Result<(), PassFailure> {
        unsafe {
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
                .map(|&op| self.tokens_waited_on(op).len())
                .max()
                .unwrap_or(0);
            let scratch = needs_scratch.then(|| {
                let first = mlirBlockGetFirstOperation(block);
                let builder = if first.ptr.is_null() {
                    Builder::at_end(block, self.context, mlirOperationGetLocation(function))
                } else {
                    Builder::before(first)
                };
                let words = builder.constant((WAITS_WORD + max_waits.max(1)) as i64, "i64");
                builder.value(
                    "llvm.alloca",
                    &[words],
                    builder.r#type("!llvm.ptr"),
                    &[
                        ("elem_type", builder.attr("i64")),
                        ("alignment", builder.attr("8 : i64")),
                    ],
                )
            });
            let argument = |index| mlirBlockGetArgument(block, index);
            let state = FunctionState {
                device: argument(0),
                core: is_kernel.then(|| (argument(1), argument(2))),
                scratch,
            };
            for op in ops {
                self.lower_op(op, state, is_kernel.then(|| argument(3)), launches)?;
            }
            Ok(())
        }
    }

    /// The `after` tokens of an instruction: every operand after its buffers. (By position, not
    /// by type: a token produced by an already lowered instruction is an `i64` by now.)
    unsafe fn tokens_waited_on(&self, op: MlirOperation) -> Vec<MlirValue> {
        unsafe {
            operands(op)
                .into_iter()
                .skip_while(|&value| mlirTypeIsAMemRef(mlirValueGetType(value)))
                .collect()
        }
    }

    unsafe fn lower_op(
        &self,
        op: MlirOperation,
        state: FunctionState,
        core_index: Option<MlirValue>,
        launches: &mut usize,
    ) -> Result<(), PassFailure> {
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
                    let index = builder.cast("arith.index_cast", cluster, "index");
                    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), index);
                }
                "dsa.alloc" => self.lower_alloc(op, &builder, state),
                "dsa.dealloc" => {
                    let handle = builder.cast(
                        "memref.extract_aligned_pointer_as_index",
                        mlirOperationGetOperand(op, 0),
                        "index",
                    );
                    let handle = builder.cast("arith.index_cast", handle, "i64");
                    builder.call_runtime("td_buffer_release", &[state.device, handle]);
                }
                "dsa.launch" => self.lower_launch(op, &builder, state.device, launches),
                _ => self.lower_instruction(op, &name, &builder, state),
            }
            mlirOperationDestroy(op);
            Ok(())
        }
    }

    unsafe fn lower_alloc(&self, op: MlirOperation, builder: &Builder, state: FunctionState) {
        unsafe {
            let result = mlirOperationGetResult(op, 0);
            let r#type = mlirValueGetType(result);
            let level = level_code(&dsa_space(r#type).expect("checked"))
                .expect("dsa memory spaces are lb, gb, ddr");
            let (cluster, core) = state
                .core
                .unwrap_or_else(|| (builder.constant(0, "i32"), builder.constant(0, "i32")));
            let bytes = 4
                * (0..mlirShapedTypeGetRank(r#type))
                    .map(|dimension| mlirShapedTypeGetDimSize(r#type, dimension as isize))
                    .product::<i64>();
            let handle_slot = builder.word(
                state.scratch.expect("allocating functions have scratch"),
                TOKEN_WORD,
            );
            builder.call_runtime(
                "td_buffer_alloc",
                &[
                    state.device,
                    builder.constant(level, "i32"),
                    cluster,
                    core,
                    builder.constant(bytes, "i64"),
                    builder.constant(0, "i32"),
                    handle_slot,
                ],
            );
            let handle = builder.load_i64(handle_slot);
            let buffer = builder.buffer(handle, convert_type(r#type).unwrap_or(r#type));
            mlirValueReplaceAllUsesOfWith(result, buffer);
        }
    }

    unsafe fn lower_launch(
        &self,
        op: MlirOperation,
        builder: &Builder,
        device: MlirValue,
        launches: &mut usize,
    ) {
        unsafe {
            let kernel = attribute_text(attribute(op, "kernel").expect("launches name a kernel"));
            let kernel = kernel.trim_start_matches('@').trim_matches('"').to_owned();
            let cores = i64_array(op, "cores", &[]);
            let module = self.module_builder();
            let name_global = format!("{kernel}.name");
            if !defines_symbol(self.module, &name_global) {
                let escaped: String = kernel.bytes().map(|byte| format!("\\{byte:02X}")).collect();
                self.parse_into_module(
                    &module,
                    &format!("llvm.mlir.global internal constant @\"{name_global}\"(\"{escaped}\\00\") {{addr_space = 0 : i32}} : !llvm.array<{} x i8>", kernel.len() + 1),
                );
            }
            let cores_global = format!("{kernel}.cores.{launches}");
            *launches += 1;
            // td_core {u32 cluster; u32 core} as one little-endian u64 word per core.
            let words: Vec<String> = cores
                .iter()
                .map(|&core| {
                    ((core / self.cores_per_cluster) | ((core % self.cores_per_cluster) << 32))
                        .to_string()
                })
                .collect();
            self.parse_into_module(
                &module,
                &format!(
                    "llvm.mlir.global internal constant @\"{cores_global}\"(dense<[{}]> : tensor<{}xi64>) {{addr_space = 0 : i32}} : !llvm.array<{} x i64>",
                    words.join(", "),
                    cores.len(),
                    cores.len()
                ),
            );
            let name = builder.address_of(&name_global);
            let table = builder.address_of(&cores_global);
            builder.call_runtime(
                "td_launch_begin",
                &[
                    device,
                    name,
                    table,
                    builder.constant(cores.len() as i64, "i64"),
                ],
            );

            let index = builder.r#type("index");
            let body = mlirBlockCreate(1, &index, &builder.location);
            let region = mlirRegionCreate();
            mlirRegionAppendOwnedBlock(region, body);
            let (lower, upper, step) = (
                builder.constant(0, "index"),
                builder.constant(cores.len() as i64, "index"),
                builder.constant(1, "index"),
            );
            builder.create("scf.for", &[lower, upper, step], Some(&[]), &[], &[region]);
            let inner = Builder::at_end(body, self.context, builder.location);
            let position = mlirBlockGetArgument(body, 0);
            let word = inner.load_i64(
                inner.dynamic_word(table, inner.cast("arith.index_cast", position, "i64")),
            );
            let cluster = inner.cast("arith.trunci", word, "i32");
            let high = inner.value(
                "arith.shrui",
                &[word, inner.constant(32, "i64")],
                inner.r#type("i64"),
                &[],
            );
            let core = inner.cast("arith.trunci", high, "i32");
            let mut arguments = vec![device, cluster, core, position];
            arguments.extend(operands(op));
            inner.call(&kernel, &arguments, &[]);
            inner.create("scf.yield", &[], Some(&[]), &[], &[]);

            builder.call_runtime("td_launch_end", &[device, builder.null()]);
        }
    }

    /// Stores a `td_view` of `buffer` at view slot `slot` of the scratch and returns its address.
    unsafe fn view(
        &self,
        builder: &Builder,
        scratch: MlirValue,
        slot: usize,
        buffer: MlirValue,
    ) -> MlirValue {
        unsafe {
            let first = slot * VIEW_WORDS;
            let rank = mlirShapedTypeGetRank(mlirValueGetType(buffer)) as usize;
            let metadata =
                builder.create("memref.extract_strided_metadata", &[buffer], None, &[], &[]);
            let handle = builder.cast("memref.extract_aligned_pointer_as_index", buffer, "index");
            let store_index = |value: MlirValue, word: usize| {
                builder.store(
                    builder.cast("arith.index_cast", value, "i64"),
                    builder.word(scratch, first + word),
                )
            };
            store_index(handle, 0);
            store_index(mlirOperationGetResult(metadata, 1), 1);
            builder.store(
                builder.constant(rank as i64, "i64"),
                builder.word(scratch, first + 2),
            );
            for dimension in 0..rank {
                store_index(
                    mlirOperationGetResult(metadata, (2 + dimension) as isize),
                    3 + dimension,
                );
                store_index(
                    mlirOperationGetResult(metadata, (2 + rank + dimension) as isize),
                    7 + dimension,
                );
            }
            builder.word(scratch, first)
        }
    }

    /// Stores `words` as the parameter struct and returns its address.
    unsafe fn params(&self, builder: &Builder, scratch: MlirValue, words: &[i64]) -> MlirValue {
        unsafe {
            for (offset, &word) in words.iter().enumerate() {
                builder.store(
                    builder.constant(word, "i64"),
                    builder.word(scratch, PARAMS_WORD + offset),
                );
            }
            builder.word(scratch, PARAMS_WORD)
        }
    }

    unsafe fn lower_instruction(
        &self,
        op: MlirOperation,
        name: &str,
        builder: &Builder,
        state: FunctionState,
    ) {
        unsafe {
            let scratch = state.scratch.expect("instructions' functions have scratch");
            let (cluster, core) = state.core.expect("checked: instructions are in kernels");
            let waits = self.tokens_waited_on(op);
            for (index, &token) in waits.iter().enumerate() {
                builder.store(token, builder.word(scratch, WAITS_WORD + index));
            }
            let waits_list = [
                builder.word(scratch, WAITS_WORD),
                builder.constant(waits.len() as i64, "i64"),
            ];
            let token_slot = builder.word(scratch, TOKEN_WORD);
            let buffers: Vec<MlirValue> = operands(op)
                .into_iter()
                .filter(|&value| mlirTypeIsAMemRef(mlirValueGetType(value)))
                .collect();
            let views: Vec<MlirValue> = buffers
                .iter()
                .enumerate()
                .map(|(slot, &buffer)| self.view(builder, scratch, slot, buffer))
                .collect();
            let code = |kinds: &[&str]| {
                let keyword = enum_keyword(op, "kind").expect("dsa kinds are enum attributes");
                kinds
                    .iter()
                    .position(|&kind| kind == keyword)
                    .map(|code| code as i64)
            };
            let i32_constant = |value: i64| builder.constant(value, "i32");
            let mut arguments = vec![state.device, cluster, core];
            let callee = match name {
                "dsa.dma" => {
                    arguments.extend(&views);
                    "td_dma"
                }
                "dsa.matmul" => {
                    arguments.extend(&views);
                    arguments.push(i32_constant(attribute(op, "accumulate").is_some() as i64));
                    "td_matmul"
                }
                "dsa.conv2d" => {
                    let mut words = i64_array(op, "strides", &[1, 1]);
                    words.extend(i64_array(op, "pads", &[0, 0, 0, 0]));
                    words.extend(i64_array(op, "dilations", &[1, 1]));
                    words.push(
                        attribute(op, "groups")
                            .map_or(1, |groups| mlirIntegerAttrGetValueInt(groups)),
                    );
                    arguments.extend(&views);
                    arguments.push(self.params(builder, scratch, &words));
                    arguments.push(i32_constant(attribute(op, "accumulate").is_some() as i64));
                    "td_conv2d"
                }
                "dsa.binary" => {
                    arguments.push(i32_constant(
                        code(BINARY_KINDS).expect("dsa binary kinds are the runtime's"),
                    ));
                    arguments.extend(&views);
                    "td_binary"
                }
                "dsa.unary" => {
                    let float = |name| {
                        attribute(op, name).map_or(0.0, |value| mlirFloatAttrGetValueDouble(value))
                    };
                    let (kind, p0, p1) =
                        match (code(UNARY_KINDS), enum_keyword(op, "kind").as_deref()) {
                            (Some(kind), _) => (kind, float("min"), float("max")),
                            (None, Some("affine")) => {
                                (TD_UNARY_AFFINE, float("scale"), float("shift"))
                            }
                            (None, Some("abs")) => (TD_UNARY_ABS, 0.0, 0.0),
                            (None, _) => (TD_UNARY_AFFINE, 1.0, 0.0),
                        };
                    arguments.extend([
                        i32_constant(kind),
                        builder.constant_f32(p0),
                        builder.constant_f32(p1),
                    ]);
                    arguments.extend(&views);
                    "td_unary"
                }
                "dsa.pool" => {
                    let count_include_pad = attribute(op, "count_include_pad")
                        .is_some_and(|flag| mlirBoolAttrGetValue(flag));
                    let kind = code(POOL_KINDS).expect("dsa pool kinds are the runtime's");
                    let mut words = vec![kind | ((count_include_pad as i64) << 32)];
                    words.extend(i64_array(op, "kernel", &[1, 1]));
                    words.extend(i64_array(op, "strides", &[1, 1]));
                    words.extend(i64_array(op, "pads", &[0, 0, 0, 0]));
                    arguments.push(self.params(builder, scratch, &words));
                    arguments.extend(&views);
                    "td_pool2d"
                }
                "dsa.reduce" => {
                    let rank = mlirShapedTypeGetRank(mlirValueGetType(buffers[0])) as i64;
                    let axis = mlirIntegerAttrGetValueInt(attribute(op, "axis").expect("checked"));
                    arguments.push(i32_constant(
                        code(REDUCE_KINDS).expect("dsa reduce kinds are the runtime's"),
                    ));
                    arguments.push(i32_constant(axis.rem_euclid(rank)));
                    arguments.extend(&views);
                    "td_reduce"
                }
                "dsa.wait" => "td_wait",
                "dsa.barrier" => {
                    arguments.push(token_slot);
                    builder.call_runtime("td_barrier", &arguments);
                    return;
                }
                other => unreachable!("checked: '{other}' is an instruction"),
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

    /// Gives every value, block argument and function type its lowered type.
    unsafe fn convert_types(&self) {
        unsafe {
            for op in walk(self.module) {
                for index in 0..mlirOperationGetNumResults(op) {
                    let result = mlirOperationGetResult(op, index);
                    if let Some(converted) = convert_type(mlirValueGetType(result)) {
                        mlirValueSetType(result, converted);
                    }
                }
                for region in 0..mlirOperationGetNumRegions(op) {
                    let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, region));
                    while !block.ptr.is_null() {
                        for index in 0..mlirBlockGetNumArguments(block) {
                            let argument = mlirBlockGetArgument(block, index);
                            if let Some(converted) = convert_type(mlirValueGetType(argument)) {
                                mlirValueSetType(argument, converted);
                            }
                        }
                        block = mlirBlockGetNextInRegion(block);
                    }
                }
                if op_name(op) == "func.func" {
                    self.convert_function_type(op);
                }
            }
        }
    }

    unsafe fn convert_function_type(&self, function: MlirOperation) {
        unsafe {
            let old = mlirTypeAttrGetValue(
                attribute(function, "function_type").expect("functions have a type"),
            );
            let block = entry_block(function);
            let inputs: Vec<MlirType> = if block.ptr.is_null() {
                (0..mlirFunctionTypeGetNumInputs(old))
                    .map(|i| mlirFunctionTypeGetInput(old, i))
                    .collect()
            } else {
                (0..mlirBlockGetNumArguments(block))
                    .map(|i| mlirValueGetType(mlirBlockGetArgument(block, i)))
                    .collect()
            };
            let convert = |r#type: MlirType| convert_type(r#type).unwrap_or(r#type);
            let inputs: Vec<MlirType> = inputs.into_iter().map(convert).collect();
            let results: Vec<MlirType> = (0..mlirFunctionTypeGetNumResults(old))
                .map(|i| convert(mlirFunctionTypeGetResult(old, i)))
                .collect();
            let new = mlirFunctionTypeGet(
                self.context,
                inputs.len() as isize,
                inputs.as_ptr(),
                results.len() as isize,
                results.as_ptr(),
            );
            mlirOperationSetAttributeByName(
                function,
                string_ref("function_type"),
                mlirTypeAttrGet(new),
            );
        }
    }

    /// Renames entry `function` to `<name>.impl` (private) and adds the C-ABI function
    /// `i32 <name>(i64 device, ptr buffers)` that calls it and returns the device's first error.
    unsafe fn make_entry(&self, function: MlirOperation, record: &str) {
        unsafe {
            let name = symbol_name(function);
            let implementation = format!("{name}.impl");
            let builder = Builder::before(function);
            let renamed = mlirSymbolTableReplaceAllSymbolUses(
                string_ref(&name),
                string_ref(&implementation),
                self.module,
            );
            assert!(
                renamed.value != 0,
                "symbol uses in the module can be renamed"
            );
            mlirOperationSetAttributeByName(
                function,
                string_ref("sym_name"),
                builder.attr(&format!("\"{implementation}\"")),
            );
            mlirOperationSetAttributeByName(
                function,
                string_ref("sym_visibility"),
                builder.attr("\"private\""),
            );

            let abi = builder.r#type("(i64, !llvm.ptr) -> i32");
            let attributes = [
                ("sym_name", builder.attr(&format!("\"{name}\""))),
                ("function_type", mlirTypeAttrGet(abi)),
                ("dsa.arguments", builder.attr(record)),
            ];
            let types = [builder.r#type("i64"), builder.r#type("!llvm.ptr")];
            let locations = [builder.location; 2];
            let body = mlirBlockCreate(2, types.as_ptr(), locations.as_ptr());
            let region = mlirRegionCreate();
            mlirRegionAppendOwnedBlock(region, body);
            builder.create("func.func", &[], Some(&[]), &attributes, &[region]);

            let inner = Builder::at_end(body, self.context, builder.location);
            let (device, handles) = (mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1));
            let implementation_block = entry_block(function);
            let mut arguments = vec![device];
            for index in 1..mlirBlockGetNumArguments(implementation_block) {
                let r#type = mlirValueGetType(mlirBlockGetArgument(implementation_block, index));
                let handle = inner.load_i64(inner.word(handles, index as usize - 1));
                arguments.push(inner.buffer(handle, r#type));
            }
            inner.call(&implementation, &arguments, &[]);
            let status = mlirOperationGetResult(
                inner.call("td_device_take_error", &[device], &[inner.r#type("i32")]),
                0,
            );
            inner.create("func.return", &[status], Some(&[]), &[], &[]);
        }
    }
}

/// Whether the module already defines symbol `name`.
unsafe fn defines_symbol(module: MlirOperation, name: &str) -> bool {
    unsafe {
        let table = mlirSymbolTableCreate(module);
        let found = !mlirSymbolTableLookup(table, string_ref(name)).ptr.is_null();
        mlirSymbolTableDestroy(table);
        found
    }
}

/// The lowered type of `r#type`, or None if it stays: a token is an `i64`, a buffer loses its
/// dsa memory space.
unsafe fn convert_type(r#type: MlirType) -> Option<MlirType> {
    unsafe {
        if is_token(r#type) {
            return Some(mlirIntegerTypeGet(mlirTypeGetContext(r#type), 64));
        }
        dsa_space(r#type)?;
        let rank = mlirShapedTypeGetRank(r#type);
        let shape: Vec<i64> = (0..rank)
            .map(|dimension| mlirShapedTypeGetDimSize(r#type, dimension as isize))
            .collect();
        Some(mlirMemRefTypeGet(
            mlirShapedTypeGetElementType(r#type),
            rank as isize,
            shape.as_ptr(),
            mlirMemRefTypeGetLayout(r#type),
            mlirAttributeGetNull(),
        ))
    }
}
