//! A 1×1 convolution absorbed into a later convolution's layer (`fusion::absorbing_conv`): each
//! output tile's accumulator first takes the absorbed convolution's product, chunk by chunk of its
//! input channels, then accumulates the layer's own chunks, and the epilogue adds both biases.
//! The absorbed result never exists in memory: a bottleneck block's last convolution and its
//! projection do not write one half of their sum to DDR and read it back as the residual.

use crate::kernels::{
    emit::{divisors_descending, Body, Space, Tensor, View},
    kernel::Kernel,
    layers::{Elementwise, Operand, Scope, Step, Viewed},
    ports::PortCycles,
};
use crate::target::Machine;
use crate::{
    graph_view::{Node, ValueId},
    ir::Val,
};
use std::collections::BTreeMap;
use turbine_dialects::attributes::dsa::BinaryKind;

/// What the tiling search needs of the absorbed convolution.
#[derive(Clone)]
pub(super) struct Absorbed {
    /// Its input channels (the reduction it adds to each output element).
    pub channels: usize,
    /// Where its input and its filter live.
    pub spaces: [Space; 2],
}

impl Absorbed {
    pub fn of<T: Viewed>(scope: &Scope<T>, node: &Node) -> Self {
        let input = scope.view(node.operands[0]);
        let filter = scope.view(node.operands[1]);
        Absorbed {
            channels: input.shape[1],
            spaces: [input.space, filter.space],
        }
    }

    /// LB elements of a chunk's buffers for an output tile `[images, channels, rows, width]`: the
    /// chunk's input rows (the tile's own, the convolution being 1×1 with stride 1) and its filter
    /// slice, twice when they are double buffers.
    pub fn lb_elements(&self, tile: [usize; 4], chunk: usize, doubled: bool) -> usize {
        let [images, out_channels, rows, width] = tile;
        (1 + usize::from(doubled)) * (images * chunk * rows * width + out_channels * chunk)
    }

    /// The chunk of its input channels for a tile with `room` LB elements left, and whether its
    /// buffers are doubled: the largest chunk that is all the channels or whose double buffers
    /// fit (the next chunk loads while this one computes), else the largest that fits once.
    pub fn chunk(&self, tile: [usize; 4], room: usize) -> Option<(usize, bool)> {
        let chunks = divisors_descending(self.channels);
        let pipelined = |chunk: usize| chunk < self.channels;
        chunks
            .iter()
            .find(|&&chunk| self.lb_elements(tile, chunk, pipelined(chunk)) <= room)
            .map(|&chunk| (chunk, pipelined(chunk)))
            .or_else(|| {
                chunks
                    .iter()
                    .find(|&&chunk| self.lb_elements(tile, chunk, false) <= room)
                    .map(|&chunk| (chunk, false))
            })
    }

    /// The bytes of one tile's absorbed chunk: its input rows and its filter slice.
    fn chunk_bytes(
        &self,
        [images, out_channels, rows, width]: [usize; 4],
        chunk: usize,
    ) -> [f64; 2] {
        [
            (images * chunk * rows * width * 4) as f64,
            (out_channels * chunk * 4) as f64,
        ]
    }

    /// The latency of one tile's absorbed chunks: a chunk's two loads (each with the `wait` its
    /// port may keep it) and its product, overlapped with the next chunk's loads when the buffers
    /// are doubled.
    pub fn latency(
        &self,
        tile: [usize; 4],
        (chunk, doubled): (usize, bool),
        machine: &Machine,
        wait: &dyn Fn(Space) -> f64,
    ) -> f64 {
        let chunks = (self.channels / chunk) as f64;
        let [input, filter] = self.chunk_bytes(tile, chunk);
        let [input_rate, filter_rate] = self.spaces.map(|space| space.link_bandwidth(machine));
        let macs = (tile.iter().product::<usize>() * chunk) as f64;
        let load = machine.dma_setup
            + (input / input_rate + wait(self.spaces[0]))
                .max(filter / filter_rate + wait(self.spaces[1]));
        let compute = machine.compute_setup + machine.matrix_cycles(2.0 * macs);
        if doubled {
            load + (chunks - 1.0) * load.max(compute) + compute
        } else {
            chunks * (load + compute)
        }
    }

    /// Adds one tile's absorbed chunks to `ports`; returns their instructions.
    pub fn count(
        &self,
        tile: [usize; 4],
        (chunk, _): (usize, bool),
        machine: &Machine,
        ports: &mut PortCycles,
    ) -> f64 {
        let chunks = (self.channels / chunk) as f64;
        let [input, filter] = self.chunk_bytes(tile, chunk);
        ports.add(self.spaces[0], chunks * input, machine);
        ports.add(self.spaces[1], chunks * filter, machine);
        chunks * 3.0
    }
}

/// `steps` without the addition of the absorbed convolution's `result`: the accumulator holds it.
pub(super) fn without_sum(steps: &[Step], result: ValueId) -> Vec<Step> {
    let sum = |step: &Step| {
        matches!(
            step.op,
            Elementwise::Binary {
                kind: BinaryKind::Add
            }
        ) && step.target == Operand::Chain
            && matches!(
                step.operands.as_slice(),
                [Operand::Chain, Operand::External(v)] | [Operand::External(v), Operand::Chain]
                    if *v == result
            )
    };
    steps.iter().filter(|step| !sum(step)).cloned().collect()
}

/// The absorbed convolution's operands and LB buffers in one kernel.
pub(super) struct AbsorbedTiles {
    input: (Val, View),
    filter: (Val, View),
    /// Input and filter buffers, and their second halves when doubled.
    buffers: [Val; 2],
    second: Option<[Val; 2]>,
    chunk: usize,
    chunks: usize,
}

impl AbsorbedTiles {
    /// The kernel arguments of `node`'s input and filter (from `tensors`) and the LB buffers of
    /// its chunks for output tiles of `tile`, with the tiling's `(chunk, doubled)`: buffers of
    /// their own, or the corners of the layer's own chunk buffers (`shared`: the input and filter
    /// buffers of each half, and the input buffers' view), which the absorbed product has done
    /// with before the layer's own chunks load.
    pub fn new(
        kernel: &mut Kernel,
        tensors: &BTreeMap<ValueId, Tensor>,
        node: &Node,
        tile: [usize; 4],
        (chunk, doubled): (usize, bool),
        shared: Option<(Vec<[Val; 2]>, &View)>,
    ) -> Self {
        let [images, out_channels, rows, width] = tile;
        let [input, filter] = [0, 1].map(|operand| tensors[&node.operands[operand]].clone());
        let (first, second) = match shared {
            Some((halves, input_view)) => {
                let zero = kernel.body.index(0);
                let mut corner = |[input, filter]: [Val; 2]| {
                    [
                        kernel
                            .body
                            .subview(
                                input,
                                input_view,
                                &[zero; 4],
                                &[images, chunk, rows, width],
                                None,
                            )
                            .0,
                        filter,
                    ]
                };
                (
                    corner(halves[0]),
                    halves.get(1).map(|&half| corner(half)).filter(|_| doubled),
                )
            }
            None => {
                let mut buffers = || {
                    [
                        kernel.alloc_lb(&[images, chunk, rows, width]).0,
                        kernel.alloc_lb(&[out_channels, chunk, 1, 1]).0,
                    ]
                };
                (buffers(), doubled.then(&mut buffers))
            }
        };
        AbsorbedTiles {
            input: (kernel.argument(input.host, &input.view), input.view.clone()),
            filter: (
                kernel.argument(filter.host, &filter.view),
                filter.view.clone(),
            ),
            buffers: first,
            second,
            chunk,
            chunks: input.view.shape[1] / chunk,
        }
    }

    /// Emits the tile's absorbed chunks into `accumulator` (the first overwriting it), the tile
    /// being `[images, out_channels, rows, width]` at image `n`, output channel `out_channel` and
    /// output row `out_row`; each chunk is waited for, so the layer's own loads may reuse nothing
    /// of it and its first product accumulates.
    pub fn emit(
        &self,
        body: &mut Body,
        tile: [usize; 4],
        [n, out_channel, out_row]: [Val; 3],
        accumulator: Val,
    ) {
        let [images, out_channels, rows, width] = tile;
        let (chunk, zero) = (self.chunk, body.index(0));
        let mut load =
            |body: &mut Body, index: Val, [input_buffer, filter_buffer]: [Val; 2]| -> Vec<Val> {
                let channel = body.scaled(index, chunk);
                let (rows_in, _) = body.subview(
                    self.input.0,
                    &self.input.1,
                    &[n, channel, out_row, zero],
                    &[images, chunk, rows, width],
                    None,
                );
                let (weights, _) = body.subview(
                    self.filter.0,
                    &self.filter.1,
                    &[out_channel, channel, zero, zero],
                    &[out_channels, chunk, 1, 1],
                    None,
                );
                vec![
                    body.dma(rows_in, input_buffer, &[]),
                    body.dma(weights, filter_buffer, &[]),
                ]
            };
        let mut product = |body: &mut Body,
                           [input_buffer, filter_buffer]: [Val; 2],
                           accumulate: bool,
                           waits: &[Val]| {
            body.conv2d(
                input_buffer,
                filter_buffer,
                accumulator,
                [1, 1],
                [0; 4],
                [1, 1],
                1,
                accumulate,
                waits,
            )
        };
        match self.second {
            Some(second) => {
                body.pipelined_chunks(self.chunks, [self.buffers, second], &mut load, &mut product)
            }
            None => body.chunks(self.chunks, &mut |body, index, accumulate| {
                let loaded = load(body, index, self.buffers);
                let token = product(body, self.buffers, accumulate, &loaded);
                body.wait(&[token]);
            }),
        }
    }
}
