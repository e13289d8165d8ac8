//! A launch being recorded: the kernel name, its set of cores, each core's instruction stream
//! in program order, and the tokens handed out so far. Recording only appends; all effects
//! happen at `launch_end`, so a launch either runs whole or not at all.

use crate::element::ElementType;
use crate::error::{Result, RuntimeError};
use crate::ids::{BufferId, CoreId, Token};
use crate::instr::Instr;
use std::collections::BTreeSet;
use turbine_targets::MemLevel;

/// What times an instruction: the bytes it moves on a DMA channel and between which levels,
/// the element type it computes on on a compute unit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cost {
    pub bytes: u64,
    pub path: Option<(MemLevel, MemLevel)>,
    pub element: ElementType,
}

/// One recorded instruction.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub instr: Instr,
    /// Indices, in the same core's stream, of the instructions whose tokens it waits on.
    pub waits: Vec<usize>,
    /// The model layer it computes a part of ([`NO_LAYER`] when the program named none).
    pub layer: u32,
    /// Bytes it moves, for an instruction of a DMA channel (0 for the others).
    pub bytes: u64,
    /// The levels it moves data between, source first, for a copy, gather or scatter.
    pub path: Option<(MemLevel, MemLevel)>,
    /// The element type it computes on, for an instruction of a compute unit: its rate.
    pub element: ElementType,
}

impl Recorded {
    /// Work for the timing model: bytes for an instruction of a DMA channel, else
    /// [`Instr::work`].
    pub fn work(&self, special: f64) -> f64 {
        match self.instr.engine() {
            crate::instr::Engine::Dma => self.bytes as f64,
            _ => self.instr.work(special),
        }
    }
}

/// The layer of instructions recorded before their core names one (`td_layer`).
pub const NO_LAYER: u32 = u32::MAX;

#[derive(Debug)]
pub(crate) struct Launch {
    pub name: String,
    /// The launch's cores, sorted; a core's position here is its "slot".
    pub cores: Vec<CoreId>,
    /// Instruction streams, one per slot.
    pub streams: Vec<Vec<Recorded>>,
    /// The layer each slot's next instructions belong to.
    layers: Vec<u32>,
    /// The first token of the launch: tokens are handed out consecutively, so the launch's
    /// `n`-th instruction has token `first_token + n`, and its (slot, index) is `tokens[n]`.
    first_token: u64,
    tokens: Vec<(usize, usize)>,
    /// Buffers named by any recorded instruction (they cannot be freed until the end).
    pub buffers: BTreeSet<BufferId>,
    /// The buffers added to `buffers` last, most recent first: consecutive instructions
    /// mostly name the same few, which need no search of the set then.
    recent: [BufferId; 4],
    /// The first recording error; a failed launch is discarded at its end.
    pub failure: Option<RuntimeError>,
}

impl Launch {
    /// A launch of kernel `name` on `cores`, recording into `spare` streams (empty vectors
    /// whose capacity an earlier launch left: hundreds of thousands of instructions are
    /// recorded per model run, and growing fresh vectors would copy and page-fault them).
    pub fn new(
        name: &str,
        mut cores: Vec<CoreId>,
        first_token: Token,
        spare: &mut Vec<Vec<Recorded>>,
    ) -> Launch {
        cores.sort();
        cores.dedup();
        let streams = (0..cores.len())
            .map(|_| spare.pop().unwrap_or_default())
            .collect();
        Launch {
            name: name.to_string(),
            streams,
            layers: vec![NO_LAYER; cores.len()],
            cores,
            first_token: first_token.0,
            tokens: Vec::new(),
            buffers: BTreeSet::new(),
            recent: [BufferId(0); 4],
            failure: None,
        }
    }

    /// The slot of `core`, if it is part of the launch.
    pub fn slot(&self, core: CoreId) -> Result<usize> {
        self.cores
            .binary_search(&core)
            .map_err(|_| RuntimeError::CoreNotInLaunch {
                core,
                launch: self.name.clone(),
            })
    }

    /// Stream indices of the producers of `waits`, which must be tokens of `core` in this
    /// launch.
    pub fn resolve_waits(&self, slot: usize, waits: &[Token]) -> Result<Vec<usize>> {
        let core = self.cores[slot];
        waits
            .iter()
            .map(|&token| match self.token_position(token) {
                None => Err(RuntimeError::UnknownToken { core, token }),
                Some((s, _)) if s != slot => Err(RuntimeError::ForeignToken {
                    core,
                    token,
                    producer: self.cores[s],
                }),
                Some((_, index)) => Ok(index),
            })
            .collect()
    }

    /// The (slot, index) of the instruction that returned `token`, if it is one of the launch's.
    fn token_position(&self, token: Token) -> Option<(usize, usize)> {
        let n = token.0.checked_sub(self.first_token)?;
        self.tokens.get(usize::try_from(n).ok()?).copied()
    }

    /// Appends an instruction whose operands and waits have been checked and which moves
    /// `bytes` bytes or computes on `element`s; `token` is the next one after the launch's last.
    pub fn push(&mut self, slot: usize, instr: Instr, waits: Vec<usize>, token: Token, cost: Cost) {
        assert_eq!(
            token.0,
            self.first_token + self.tokens.len() as u64,
            "a launch's tokens are consecutive"
        );
        for (_, view, _) in instr.operands() {
            if !self.recent.contains(&view.buffer) {
                self.buffers.insert(view.buffer);
                self.recent.rotate_right(1);
                self.recent[0] = view.buffer;
            }
        }
        let index = self.streams[slot].len();
        self.tokens.push((slot, index));
        self.streams[slot].push(Recorded {
            instr,
            waits,
            layer: self.layers[slot],
            bytes: cost.bytes,
            path: cost.path,
            element: cost.element,
        });
    }

    /// Attributes the slot's next instructions to `layer`.
    pub fn set_layer(&mut self, slot: usize, layer: u32) {
        self.layers[slot] = layer;
    }

    /// Number of barriers each core recorded must agree.
    pub fn check_barriers(&self) -> Result<usize> {
        let count = |s: &Vec<Recorded>| s.iter().filter(|r| r.instr == Instr::Barrier).count();
        let first = count(&self.streams[0]);
        for (slot, stream) in self.streams.iter().enumerate().skip(1) {
            let n = count(stream);
            if n != first {
                return Err(RuntimeError::BarrierMismatch {
                    launch: self.name.clone(),
                    first: (self.cores[0], first),
                    other: (self.cores[slot], n),
                });
            }
        }
        Ok(first)
    }

    /// Total number of recorded instructions.
    pub fn instruction_count(&self) -> usize {
        self.streams.iter().map(Vec::len).sum()
    }
}
