//! The software DSA as one object: memory, the launch being recorded, simulated time, report
//! counters and the optional trace. This is the Rust API; the C ABI (`ffi`) is a thin layer
//! over it.
//!
//! Life of a launch: [`Device::launch_begin`] names the kernel and its cores; each
//! [`Device::enqueue`] appends one instruction to one core's stream after checking everything
//! that can be checked alone (core, tokens, buffers, levels, bounds, shapes); and
//! [`Device::launch_end`] checks barriers and races, simulates the timing, updates the report
//! and hands the launch to the execution thread (`background`), so that the host records the
//! next launch while this one computes. A launch refused anywhere before it executes changes
//! nothing. What the device tells about its runs (report, trace, timeline) is in `observe`;
//! control flow between launches (persistent regions, the scalars that decide loops and
//! branches, the loop watchdog) is in `control`.

use crate::element::ElementType;
use crate::error::{Result, RuntimeError};
use crate::exec::{Buffers, Fault};
use crate::hazard;
use crate::ids::{BufferId, CoreId, Token};
use crate::instr::{Access, Engine, Instr};
use crate::launch::{Cost, Launch};
use crate::memory::{Memory, Placement};
use crate::report::{LaunchSummary, Stats};
use crate::timing;
use crate::trace::Trace;
use crate::typing;
use crate::view::ViewFault;
use background::{Background, Failed};
use control::Region;
use std::collections::BTreeMap;
use turbine_targets::Target;

mod background;
mod control;
mod observe;

pub use control::DEFAULT_LOOP_LIMIT;

/// A simulated DSA device.
#[derive(Debug)]
pub struct Device {
    target: Target,
    memory: Memory,
    launch: Option<Launch>,
    /// Buffers released while the open launch used them: freed when it ends or is discarded.
    released: Vec<BufferId>,
    /// Simulated device time: the end of the last launch, or of the scalar reads since.
    now: u64,
    next_token: u64,
    threads: usize,
    /// Whether each launch is checked for races before it runs ([`Device::set_race_check`]).
    race_check: bool,
    stats: Stats,
    trace: Option<Trace>,
    /// The names of the layers instructions are attributed to (`td_layer_name`), by id.
    layer_names: BTreeMap<u32, String>,
    /// Launches checked and timed whose execution may still be under way.
    background: Background,
    /// The open persistent region ([`Device::persistent_begin`]), if any.
    region: Option<Region>,
    /// The iteration at which [`Device::loop_check`] stops a loop.
    loop_limit: u64,
    /// Calls running that [`Device::frame_push`] entered.
    frames: u32,
}

impl Device {
    /// A device of `target` with empty memories at cycle 0, using as many host threads as
    /// the host offers.
    pub fn new(target: Target) -> Device {
        Device {
            memory: Memory::new(&target),
            stats: Stats::new(&target, 0),
            target,
            launch: None,
            released: Vec::new(),
            now: 0,
            next_token: 1,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            race_check: true,
            trace: None,
            layer_names: BTreeMap::new(),
            background: Background::default(),
            region: None,
            loop_limit: DEFAULT_LOOP_LIMIT,
            frames: 0,
        }
    }

    /// A device of a built-in target or a target file (see [`Target::load`]).
    pub fn open(name_or_path: &str) -> Result<Device> {
        Ok(Device::new(Target::load(name_or_path)?))
    }

    /// The target description.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Simulated cycles since the device was created.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Sets the number of host threads used to execute cores concurrently (at least 1).
    /// Results and cycle counts do not depend on it; only wall time does.
    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        if threads == 0 {
            return Err(RuntimeError::BadArgument(
                "the thread count must be at least 1".into(),
            ));
        }
        self.threads = threads;
        Ok(())
    }

    /// Turns the race check on (the default) or off. With it on, a launch whose instructions
    /// may touch the same elements at overlapping times, a write involved, is refused before
    /// it runs. Off, such a launch runs: memory stays safe (buffers are locked), but its
    /// results may depend on the host's thread interleaving; a compiler's output is checked
    /// with it on, and runs faster without.
    pub fn set_race_check(&mut self, on: bool) {
        self.race_check = on;
    }

    /// Whether the race check is on.
    pub fn race_check(&self) -> bool {
        self.race_check
    }

    fn check_core(&self, core: CoreId) -> Result<()> {
        if core.cluster < self.target.device.clusters && core.core < self.target.cluster.cores {
            Ok(())
        } else {
            Err(RuntimeError::NoSuchCore {
                core,
                target: self.target.name.clone(),
                clusters: self.target.device.clusters,
                cores: self.target.cluster.cores,
            })
        }
    }

    /// Allocates a zero-filled f32 buffer of `bytes` bytes (a multiple of 4; an empty buffer
    /// stands for a tensor with a zero-size dimension).
    pub fn alloc(&mut self, placement: Placement, bytes: u64) -> Result<BufferId> {
        self.alloc_typed(placement, bytes, ElementType::F32)
    }

    /// Allocates a zero-filled buffer of `bytes` bytes of `dtype` elements (a multiple of the
    /// element size).
    pub fn alloc_typed(
        &mut self,
        placement: Placement,
        bytes: u64,
        dtype: ElementType,
    ) -> Result<BufferId> {
        match placement {
            Placement::Lb(core) => self.check_core(core)?,
            Placement::Gb(cluster) if cluster >= self.target.device.clusters => {
                return Err(RuntimeError::BadArgument(format!(
                    "cluster {cluster} does not exist on target '{}' ({} clusters)",
                    self.target.name, self.target.device.clusters
                )))
            }
            Placement::Gb(_) | Placement::Ddr => {}
        }
        if !bytes.is_multiple_of(dtype.bytes()) {
            return Err(RuntimeError::BadArgument(format!(
                "buffer size must be a multiple of {} bytes (whole {dtype} elements), got {bytes}",
                dtype.bytes()
            )));
        }
        self.memory.alloc(
            placement,
            bytes,
            dtype,
            self.target.capacity(placement.level()),
        )
    }

    /// Frees a buffer. Refused while the open launch uses it.
    pub fn free(&mut self, buffer: BufferId) -> Result<()> {
        if let Some(launch) = &self.launch {
            if launch.buffers.contains(&buffer) {
                return Err(RuntimeError::BufferInUse {
                    buffer,
                    launch: launch.name.clone(),
                });
            }
        }
        self.memory.free(buffer)
    }

    /// Frees a buffer now, or, when the open launch uses it, as soon as that launch ends
    /// (whether it runs or is discarded). Generated host code records a kernel's body while
    /// the launch is open, so the kernel's own `dealloc` of a tile must not free the tile
    /// before the recorded instructions have run. A deferred buffer stays allocated (and
    /// counts against its memory's capacity) until then; releasing it twice is an error.
    pub fn release(&mut self, buffer: BufferId) -> Result<()> {
        self.memory.get(buffer)?;
        if self.released.contains(&buffer) {
            return Err(RuntimeError::BadArgument(format!(
                "{buffer} was already released (it is freed when launch '{}' ends)",
                self.launch
                    .as_ref()
                    .map_or("", |launch| launch.name.as_str())
            )));
        }
        match &self.launch {
            Some(launch) if launch.buffers.contains(&buffer) => {
                self.released.push(buffer);
                Ok(())
            }
            _ => self.memory.free(buffer),
        }
    }

    /// Where a buffer lives.
    pub fn placement(&self, buffer: BufferId) -> Result<Placement> {
        Ok(self.memory.get(buffer)?.placement)
    }

    fn host_buffer(
        &self,
        buffer: BufferId,
        dtype: ElementType,
        offset: u64,
        len: u64,
    ) -> Result<&crate::memory::Buffer> {
        let b = self.memory.get(buffer)?;
        if b.dtype != dtype {
            return Err(RuntimeError::BadArgument(format!(
                "host access to {buffer} as {dtype}: the buffer holds {} elements",
                b.dtype
            )));
        }
        if b.placement != Placement::Ddr {
            return Err(RuntimeError::HostAccess {
                buffer,
                level: b.placement.level(),
            });
        }
        let end = offset.saturating_add(len);
        if end > b.len {
            return Err(RuntimeError::OutOfBounds {
                context: "host access".into(),
                buffer,
                end,
                len: b.len,
            });
        }
        Ok(b)
    }

    /// Host write of `values` into an f32 DDR buffer from element `offset` on (not timed).
    pub fn write(&mut self, buffer: BufferId, offset: u64, values: &[f32]) -> Result<()> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        self.write_elements(buffer, ElementType::F32, offset, &bytes)
    }

    /// Host read of `len` elements of an f32 DDR buffer from element `offset` on (not timed).
    pub fn read(&mut self, buffer: BufferId, offset: u64, len: u64) -> Result<Vec<f32>> {
        let bytes = self.read_elements(buffer, ElementType::F32, offset, len)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// The element type of a buffer.
    pub fn dtype(&self, buffer: BufferId) -> Result<ElementType> {
        Ok(self.memory.get(buffer)?.dtype)
    }

    /// Host write of whole `dtype` elements (native byte order) into a DDR buffer of that type
    /// from element `offset` on (not timed).
    pub fn write_elements(
        &mut self,
        buffer: BufferId,
        dtype: ElementType,
        offset: u64,
        bytes: &[u8],
    ) -> Result<()> {
        self.synchronize()?;
        let len = bytes.len() as u64 / dtype.bytes();
        let b = self.host_buffer(buffer, dtype, offset, len)?;
        b.write().write_bytes(dtype, offset as usize, bytes);
        self.stats.host_write(bytes.len() as u64);
        Ok(())
    }

    /// Host read of `len` elements of a DDR buffer of `dtype` from element `offset` on, as
    /// their native-order bytes (not timed).
    pub fn read_elements(
        &mut self,
        buffer: BufferId,
        dtype: ElementType,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>> {
        self.synchronize()?;
        let b = self.host_buffer(buffer, dtype, offset, len)?;
        let mut bytes = Vec::with_capacity((len * dtype.bytes()) as usize);
        b.read()
            .read_bytes(dtype, offset as usize, len as usize, &mut bytes);
        self.stats.host_read(bytes.len() as u64);
        Ok(bytes)
    }

    /// Opens a launch of kernel `name` on `cores` (duplicates are ignored).
    pub fn launch_begin(&mut self, name: &str, cores: &[CoreId]) -> Result<()> {
        if let Some(open) = &self.launch {
            return Err(RuntimeError::LaunchAlreadyOpen(open.name.clone()));
        }
        if cores.is_empty() {
            return Err(RuntimeError::BadArgument(format!(
                "launch '{name}' has no cores"
            )));
        }
        for &core in cores {
            self.check_core(core)?;
        }
        let first_token = Token(self.next_token);
        let launch = self
            .background
            .with_spare_streams(|spare| Launch::new(name, cores.to_vec(), first_token, spare));
        self.launch = Some(launch);
        Ok(())
    }

    /// Records `instr` on `core` of the open launch, to start after the instructions that
    /// returned `waits` complete; returns the instruction's token. An error discards the
    /// launch (later calls and `launch_end` report it) so that a partial kernel never runs.
    pub fn enqueue(&mut self, core: CoreId, instr: Instr, waits: &[Token]) -> Result<Token> {
        let launch = self
            .launch
            .as_ref()
            .ok_or(RuntimeError::NoOpenLaunch("enqueue"))?;
        if let Some(cause) = &launch.failure {
            return Err(RuntimeError::LaunchAborted {
                launch: launch.name.clone(),
                cause: Box::new(cause.clone()),
            });
        }
        match self.check(launch, core, &instr, waits) {
            Ok((slot, waits)) => {
                let token = Token(self.next_token);
                self.next_token += 1;
                let cost = Cost {
                    bytes: typing::moved_bytes(&self.memory, &instr),
                    path: typing::moved_between(&self.memory, &instr),
                    element: typing::computed_element(&self.memory, &instr),
                };
                self.launch
                    .as_mut()
                    .expect("checked above")
                    .push(slot, instr, waits, token, cost);
                Ok(token)
            }
            Err(e) => {
                self.launch.as_mut().expect("checked above").failure = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Everything about one instruction that does not need the rest of the launch. Messages
    /// are only formatted on failure: this runs for every recorded instruction.
    fn check(
        &self,
        launch: &Launch,
        core: CoreId,
        instr: &Instr,
        waits: &[Token],
    ) -> Result<(usize, Vec<usize>)> {
        self.check_core(core)?;
        let slot = launch.slot(core)?;
        let waits = launch.resolve_waits(slot, waits)?;
        let context = || format!("{} on {core}", instr.name());
        match instr.engine() {
            Engine::Sync if *instr == Instr::Barrier && !waits.is_empty() => {
                return Err(RuntimeError::operand(
                    context(),
                    "a barrier takes no tokens: it already waits for every earlier instruction",
                ));
            }
            Engine::Unit(kind) if self.target.units_of(kind) == 0 => {
                return Err(RuntimeError::operand(
                    context(),
                    format!("target '{}' has no {kind} unit", self.target.name),
                ));
            }
            _ => {}
        }
        let operands = instr.operands();
        for &(name, view, access) in operands.iter() {
            let ctx = || format!("{}, operand {name}", context());
            let buffer = self.memory.get(view.buffer)?;
            let capacity = self.target.capacity(buffer.placement.level()) / buffer.dtype.bytes();
            view.check(buffer.len, capacity)
                .map_err(|fault| match fault {
                    ViewFault::Malformed(m) => RuntimeError::operand(ctx(), m),
                    ViewFault::OutOfBounds { end } => RuntimeError::OutOfBounds {
                        context: ctx(),
                        buffer: view.buffer,
                        end,
                        len: buffer.len,
                    },
                })?;
            let placement = buffer.placement;
            let reachable = match (instr.engine(), placement) {
                (Engine::Dma, Placement::Lb(owner)) => owner.cluster == core.cluster,
                (Engine::Dma, Placement::Gb(cluster)) => cluster == core.cluster,
                (Engine::Dma, Placement::Ddr) => true,
                (_, p) => p == Placement::Lb(core),
            };
            if !reachable {
                let rule = if instr.engine() == Engine::Dma {
                    "a core's DMA reaches the lbs and the gb of its own cluster, and ddr"
                } else {
                    "compute units read and write only their own core's lb"
                };
                return Err(RuntimeError::operand(
                    ctx(),
                    format!("{} is in {placement}; {rule}", view.buffer),
                ));
            }
            if access == Access::Write && !view.is_injective() {
                return Err(RuntimeError::operand(
                    ctx(),
                    "the view writes some elements more than once (overlapping strides)",
                ));
            }
        }
        instr
            .check_shapes()
            .map_err(|m| RuntimeError::operand(context(), m))?;
        typing::check(&self.memory, instr).map_err(|m| RuntimeError::operand(context(), m))?;
        if let (
            Instr::Matmul { .. }
            | Instr::Conv2d { .. }
            | Instr::Gather { .. }
            | Instr::GatherElements { .. }
            | Instr::ScatterElements { .. },
            Some((&(out_name, out, _), inputs)),
        ) = (instr, operands.split_last())
        {
            for &(name, input, _) in inputs {
                if input.buffer == out.buffer
                    && out.footprint().first_common(&input.footprint()).is_some()
                {
                    return Err(RuntimeError::operand(
                        context(),
                        format!(
                            "output {out_name} overlaps input {name} in {}; \
                             the instruction streams its inputs while writing",
                            out.buffer
                        ),
                    ));
                }
            }
        }
        Ok((slot, waits))
    }

    /// Waits until every launch has executed. Returns the first fault an execution met since
    /// the last wait (an index out of range, an integer division by zero), naming the launch,
    /// core, instruction and layer; later launches were skipped. Host reads and writes of
    /// buffers wait so themselves.
    pub fn synchronize(&self) -> Result<()> {
        self.background
            .wait()
            .map_err(|failed| self.fault_error(failed))
    }

    /// Checks and times the open launch, records it in the report and queues it for execution
    /// (a fault of the execution is returned by the next [`Device::synchronize`]). On error
    /// nothing has changed (memory, time, report) and the launch is closed. Either way,
    /// buffers [`Device::release`]d during the launch are freed.
    pub fn launch_end(&mut self) -> Result<LaunchSummary> {
        let outcome = self.run_open_launch();
        for buffer in std::mem::take(&mut self.released) {
            self.memory
                .free(buffer)
                .expect("a released buffer stays allocated until its launch ends");
        }
        outcome
    }

    /// The error of a fault that an instruction met while its launch executed.
    fn fault_error(&self, failed: Failed) -> RuntimeError {
        let mut context = format!(
            "{} on {} in launch '{}'",
            failed.instruction, failed.core, failed.launch
        );
        if let Some(layer) = self.layer_names.get(&failed.layer) {
            context += &format!(", layer '{layer}'");
        }
        match failed.fault {
            Fault::IndexOutOfRange { index, extent } => RuntimeError::IndexOutOfRange {
                context,
                index,
                extent,
            },
            Fault::DivisionByZero => RuntimeError::DivisionByZero { context },
        }
    }

    fn run_open_launch(&mut self) -> Result<LaunchSummary> {
        let launch = self
            .launch
            .take()
            .ok_or(RuntimeError::NoOpenLaunch("launch_end"))?;
        if let Some(cause) = launch.failure {
            return Err(RuntimeError::LaunchAborted {
                launch: launch.name,
                cause: Box::new(cause),
            });
        }
        launch.check_barriers()?;
        let (start, step) = self.next_launch_start();
        let schedule = timing::simulate(&self.target, &launch, start);
        if schedule.end >= timing::CYCLE_LIMIT {
            return Err(RuntimeError::TimeOverflow {
                launch: launch.name,
            });
        }
        let resources = self.target.core.units.len() + self.target.core.dma_channels as usize;
        if self.race_check {
            hazard::check(&launch, &schedule, resources, self.threads)?;
        }
        let buffers: Buffers = launch
            .buffers
            .iter()
            .map(|&id| {
                (
                    id,
                    self.memory
                        .get(id)
                        .expect("launch buffers cannot be freed")
                        .clone(),
                )
            })
            .collect();
        let summary = LaunchSummary {
            name: launch.name.clone(),
            cores: launch.cores.len(),
            instructions: launch.instruction_count(),
            start,
            end: schedule.end,
            step,
        };
        self.stats
            .record(&self.target, &launch, &schedule, summary.clone());
        if let Some(trace) = &mut self.trace {
            trace.record(&self.target, &launch, &schedule, start);
        }
        self.now = schedule.end;
        self.launched_in_region();
        self.background.submit(launch, buffers, self.threads);
        Ok(summary)
    }

    /// True while a launch is being recorded.
    pub fn launch_open(&self) -> bool {
        self.launch.is_some()
    }
}
