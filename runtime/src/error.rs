//! The runtime's error type. Every misuse of the Rust API or the C ABI ends here, with a
//! message that names the thing at fault (buffer, core, token, launch, operand), and a
//! coarse [`ErrorCode`] for C callers that want to branch on the category.

use crate::ids::{BufferId, CoreId, Token};
use std::fmt;
use turbine_targets::{MemLevel, TargetError};

/// Everything that can go wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeError {
    /// The target description could not be loaded.
    Target(TargetError),
    /// A C caller passed a device handle that does not exist (or was destroyed).
    UnknownDevice(u64),
    /// A C caller passed a model handle that does not exist (or was destroyed).
    UnknownModel(u64),
    /// No live buffer has this handle (never allocated, or freed).
    UnknownBuffer(BufferId),
    /// A wait names a token that no instruction of the current launch returned.
    UnknownToken {
        /// The core whose instruction waits.
        core: CoreId,
        /// The token.
        token: Token,
    },
    /// A wait names a token of another core; tokens are core-local (use a barrier).
    ForeignToken {
        /// The core whose instruction waits.
        core: CoreId,
        /// The token.
        token: Token,
        /// The core that produced it.
        producer: CoreId,
    },
    /// The core does not exist on the target.
    NoSuchCore {
        /// The core asked for.
        core: CoreId,
        /// Target name.
        target: String,
        /// Clusters of the target.
        clusters: u32,
        /// Cores per cluster of the target.
        cores: u32,
    },
    /// An instruction was recorded for a core that is not part of the open launch.
    CoreNotInLaunch {
        /// The core.
        core: CoreId,
        /// The launch (kernel) name.
        launch: String,
    },
    /// An allocation does not fit in the remaining capacity of its memory.
    OutOfMemory {
        /// Which memory, e.g. `lb of core (0,1)`.
        memory: String,
        /// Bytes asked for.
        requested: u64,
        /// Bytes already allocated there.
        in_use: u64,
        /// Capacity of that memory.
        capacity: u64,
    },
    /// An access reaches past the end of its buffer.
    OutOfBounds {
        /// What accessed it, e.g. `dma on core (0,0), operand src`.
        context: String,
        /// The buffer.
        buffer: BufferId,
        /// One past the last element index reached.
        end: u64,
        /// Number of elements in the buffer.
        len: u64,
    },
    /// An integer division by zero while the launch ran.
    DivisionByZero {
        /// The instruction, its core, launch and layer.
        context: String,
    },
    /// A gather or scatter met an index outside the tensor it indexes while the launch ran.
    IndexOutOfRange {
        /// The instruction, its core, launch and layer.
        context: String,
        /// The index.
        index: i64,
        /// The extent of the indexed tensor along the axis.
        extent: u64,
    },
    /// An operand is malformed or not allowed where it is (shape, rank, level, owner).
    BadOperand {
        /// The instruction, core and operand.
        context: String,
        /// What is wrong.
        message: String,
    },
    /// A scalar argument is out of range (size, dtype, thread count, null pointer, ...).
    BadArgument(String),
    /// The host tried to read or write a buffer that is not in DDR.
    HostAccess {
        /// The buffer.
        buffer: BufferId,
        /// Its level.
        level: MemLevel,
    },
    /// A call that needs an open launch was made with none open.
    NoOpenLaunch(&'static str),
    /// `launch_begin` while another launch is being recorded.
    LaunchAlreadyOpen(String),
    /// A call that needs no launch being recorded was made while one is.
    LaunchBeingRecorded {
        /// The call.
        call: &'static str,
        /// The launch being recorded.
        launch: String,
    },
    /// `persistent_end` with no persistent region open.
    NoPersistentRegion,
    /// A call would nest deeper than the device allows (`frame_push`).
    CallDepth {
        /// The limit.
        limit: u32,
        /// The call: "call 'name'" for the model op it computes, or "a call".
        calling: String,
    },
    /// `frame_pop` with no call running.
    NoCallRunning,
    /// A loop reached the device's limit on iterations (`loop_check`).
    LoopLimit {
        /// The limit.
        limit: u64,
        /// The loop: "loop 'name'" for the model op it computes, or "a loop".
        looping: String,
    },
    /// A buffer cannot be freed because the open launch uses it.
    BufferInUse {
        /// The buffer.
        buffer: BufferId,
        /// The launch.
        launch: String,
    },
    /// The cores of a launch recorded different numbers of barriers.
    BarrierMismatch {
        /// The launch.
        launch: String,
        /// The first core of the launch and its barrier count.
        first: (CoreId, usize),
        /// A core whose count differs, and that count.
        other: (CoreId, usize),
    },
    /// Two instructions access the same elements, at least one writes, and nothing orders
    /// them (no token chain, same in-order queue, wait, or barrier): their result would depend
    /// on timing.
    Race {
        /// The launch.
        launch: String,
        /// The buffer.
        buffer: BufferId,
        /// One element index both touch.
        element: u64,
        /// The earlier instruction (core, index, name, access).
        first: String,
        /// The later instruction.
        second: String,
    },
    /// An earlier recording call of the launch failed, so the launch was discarded.
    LaunchAborted {
        /// The launch.
        launch: String,
        /// The first recording error.
        cause: Box<RuntimeError>,
    },
    /// The simulated time of a launch would pass 2^62 cycles: the target's figures or the
    /// program make a cycle count the report cannot hold.
    TimeOverflow {
        /// The launch.
        launch: String,
    },
    /// A file could not be written.
    Io {
        /// The file.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// A model's weights file could not be read, or is not a safetensors file.
    WeightsFile {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// A tensor of a model's weights file is missing or differs from what the model expects.
    Weight {
        /// The weights file.
        path: String,
        /// The tensor's name.
        name: String,
        /// What differs.
        message: String,
    },
    /// A compiled model's entry function failed: its status and the failing call's message.
    EntryFailed {
        /// The entry function.
        entry: String,
        /// The failing call's category.
        code: ErrorCode,
        /// The failing call's message.
        message: String,
    },
    /// A bug in the runtime was caught at the C ABI boundary (a panic). Nothing was changed
    /// by the failed call beyond what the message says.
    Internal(String),
}

/// Coarse error category returned by C ABI functions (`TD_ERR_*` in `turbine_dsa.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ErrorCode {
    /// Malformed argument or operand.
    InvalidArgument = 1,
    /// Unknown device, buffer, token or model handle, or a core that does not exist.
    UnknownHandle = 2,
    /// Capacity exceeded.
    OutOfMemory = 3,
    /// Access past the end of a buffer.
    OutOfBounds = 4,
    /// Call not allowed now (no launch open, launch already open, buffer in use, aborted,
    /// persistent regions misnested), or a loop past the device's limit.
    InvalidState = 5,
    /// Unordered conflicting accesses.
    Race = 6,
    /// Target description error.
    Target = 7,
    /// File system error.
    Io = 8,
    /// Runtime bug caught at the boundary.
    Internal = 9,
}

impl ErrorCode {
    /// The category of a non-zero C ABI status (an unknown status counts as a runtime bug).
    pub fn from_status(status: i32) -> ErrorCode {
        use ErrorCode::*;
        [
            InvalidArgument,
            UnknownHandle,
            OutOfMemory,
            OutOfBounds,
            InvalidState,
            Race,
            Target,
            Io,
        ]
        .into_iter()
        .find(|code| *code as i32 == status)
        .unwrap_or(Internal)
    }
}

impl RuntimeError {
    /// The C category of this error.
    pub fn code(&self) -> ErrorCode {
        use RuntimeError::*;
        match self {
            Target(_) => ErrorCode::Target,
            UnknownDevice(_)
            | UnknownModel(_)
            | UnknownBuffer(_)
            | UnknownToken { .. }
            | NoSuchCore { .. } => ErrorCode::UnknownHandle,
            ForeignToken { .. }
            | CoreNotInLaunch { .. }
            | BadOperand { .. }
            | BadArgument(_)
            | HostAccess { .. } => ErrorCode::InvalidArgument,
            OutOfMemory { .. } => ErrorCode::OutOfMemory,
            OutOfBounds { .. } | IndexOutOfRange { .. } => ErrorCode::OutOfBounds,
            DivisionByZero { .. } => ErrorCode::InvalidArgument,
            NoOpenLaunch(_)
            | LaunchAlreadyOpen(_)
            | LaunchBeingRecorded { .. }
            | NoPersistentRegion
            | LoopLimit { .. }
            | CallDepth { .. }
            | NoCallRunning
            | BufferInUse { .. }
            | BarrierMismatch { .. }
            | LaunchAborted { .. }
            | TimeOverflow { .. } => ErrorCode::InvalidState,
            Race { .. } => ErrorCode::Race,
            Io { .. } | WeightsFile { .. } => ErrorCode::Io,
            Weight { .. } => ErrorCode::InvalidArgument,
            EntryFailed { code, .. } => *code,
            Internal(_) => ErrorCode::Internal,
        }
    }

    /// Shorthand for [`RuntimeError::BadOperand`].
    pub(crate) fn operand(context: impl Into<String>, message: impl Into<String>) -> Self {
        RuntimeError::BadOperand {
            context: context.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RuntimeError::*;
        match self {
            Target(e) => write!(f, "{e}"),
            UnknownDevice(d) => write!(f, "unknown device handle {d}"),
            UnknownModel(m) => write!(f, "unknown model handle {m}"),
            UnknownBuffer(b) => write!(f, "unknown {b} (never allocated, or freed)"),
            UnknownToken { core, token } => write!(
                f,
                "{core} waits on unknown {token}: no instruction of the current launch returned it"
            ),
            ForeignToken {
                core,
                token,
                producer,
            } => write!(
                f,
                "{core} waits on {token}, which {producer} produced; \
                 tokens are core-local, order cores with a barrier"
            ),
            NoSuchCore {
                core,
                target,
                clusters,
                cores,
            } => write!(
                f,
                "{core} does not exist on target '{target}' ({clusters} clusters x {cores} cores)"
            ),
            CoreNotInLaunch { core, launch } => {
                write!(f, "{core} is not one of the cores of launch '{launch}'")
            }
            OutOfMemory {
                memory,
                requested,
                in_use,
                capacity,
            } => write!(
                f,
                "out of memory in {memory}: {requested} bytes requested, \
                 {in_use} of {capacity} bytes in use"
            ),
            OutOfBounds {
                context,
                buffer,
                end,
                len,
            } => write!(
                f,
                "{context}: access to {buffer} reaches element {} \
                 but the buffer has {len} elements",
                end - 1
            ),
            DivisionByZero { context } => write!(f, "{context}: integer division by zero"),
            IndexOutOfRange {
                context,
                index,
                extent,
            } => write!(
                f,
                "{context}: index {index} is outside the {extent} positions along the axis \
                 (valid: -{extent} to {})",
                extent.saturating_sub(1)
            ),
            BadOperand { context, message } => write!(f, "{context}: {message}"),
            BadArgument(m) => write!(f, "{m}"),
            HostAccess { buffer, level } => write!(
                f,
                "the host can read and write only ddr buffers; {buffer} is in {level}"
            ),
            NoOpenLaunch(call) => write!(f, "{call}: no launch is open (call launch_begin first)"),
            LaunchAlreadyOpen(l) => {
                write!(
                    f,
                    "launch '{l}' is still being recorded; end it before beginning another"
                )
            }
            LaunchBeingRecorded { call, launch } => write!(
                f,
                "{call}: launch '{launch}' is still being recorded; end it first"
            ),
            NoPersistentRegion => write!(
                f,
                "persistent_end: no persistent region is open (call persistent_begin first)"
            ),
            CallDepth { limit, calling } => write!(
                f,
                "{calling} would nest deeper than {limit} calls (the target's core.call_depth: a \
                 recursion that does not end, or ends too deep)"
            ),
            NoCallRunning => write!(f, "frame_pop: no call is running"),
            LoopLimit { limit, looping } => write!(
                f,
                "{looping} ran {limit} iterations without its condition turning false (the \
                 device's limit; td_device_set_loop_limit raises it)"
            ),
            BufferInUse { buffer, launch } => {
                write!(
                    f,
                    "cannot free {buffer}: the open launch '{launch}' uses it"
                )
            }
            BarrierMismatch {
                launch,
                first,
                other,
            } => write!(
                f,
                "launch '{launch}': {} recorded {} barrier(s) but {} recorded {}; \
                 every core must reach every barrier",
                first.0, first.1, other.0, other.1
            ),
            Race {
                launch,
                buffer,
                element,
                first,
                second,
            } => write!(
                f,
                "launch '{launch}': race on {buffer} element {element}: \
                 {first} and {second} are not ordered by a token, wait or barrier"
            ),
            LaunchAborted { launch, cause } => write!(
                f,
                "launch '{launch}' was discarded because recording failed: {cause}"
            ),
            Io { path, message } => write!(f, "cannot write '{path}': {message}"),
            WeightsFile { path, message } => write!(f, "weights file '{path}': {message}"),
            Weight {
                path,
                name,
                message,
            } => write!(f, "weights file '{path}': tensor '{name}' {message}"),
            EntryFailed {
                entry,
                code: _,
                message,
            } => write!(f, "{entry}: {message}"),
            Internal(m) => write!(f, "internal error in the runtime: {m}"),
            TimeOverflow { launch } => write!(
                f,
                "launch '{launch}' would end past cycle {} (2^62): the target's latencies, \
                 bandwidths or rates make a cycle count the model cannot hold",
                crate::timing::CYCLE_LIMIT
            ),
        }
    }
}

impl std::error::Error for RuntimeError {}

impl From<TargetError> for RuntimeError {
    fn from(e: TargetError) -> Self {
        RuntimeError::Target(e)
    }
}

/// Result alias of the crate.
pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;
