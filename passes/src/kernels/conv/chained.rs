//! A 1×1 convolution fed by a conv layer's tiles (chain fusion, BOLT §3.1, for convolutions: the
//! second convolution of a chain must be 1×1 with stride 1 and no padding). Each output tile of
//! the layer covers all its channels, so after its epilogue it is a whole block of the chained
//! convolution's input, kept in the LB: per block of the chained convolution's output channels,
//! the tile loads that block's filter slice (once per core when the whole filter fits), convolves
//! the block into an accumulator of its own, runs the chained convolution's epilogue and stores
//! the result. The layer's own result is never stored.

use super::bias::{chained_bias, leading_steps};
use crate::graph_view::{Node, ValueId};
use crate::ir::Val;
use crate::kernels::{
    emit::{divisors_descending, Body, Space, Tensor, View},
    epilogue::Epilogue,
    kernel::{store_box, Kernel, Store},
    layers::{Scope, Step, Viewed},
    ports::{load_cycles, PortCycles, SpaceElements},
};
use crate::target::Machine;
use std::collections::BTreeMap;

/// The chained convolution as the tiling search prices it.
#[derive(Clone)]
pub(super) struct Chained {
    /// Its output channels.
    pub channels: usize,
    /// Where its filter and its output live.
    spaces: [Space; 2],
    /// Its epilogue: its bias (a `[1, C, 1, 1]` view), its activation, then the fused ops.
    pub steps: Vec<Step>,
    /// The shapes of the epilogue's external operands, and where each lives.
    shapes: BTreeMap<ValueId, Vec<usize>>,
    places: BTreeMap<ValueId, Space>,
}

impl Chained {
    /// The convolution `node` with the fused `fused` after it, writing to `out_space`; a bias
    /// view is read from where the layer's input lives (`input_space`).
    pub fn of<T: Viewed>(
        scope: &Scope<T>,
        (node, fused): (&Node, &[Step]),
        input_space: Space,
        out_space: Space,
    ) -> Self {
        let filter = scope.view(node.operands[1]);
        let channels = filter.shape[0];
        let mut shapes = scope.external_shapes(fused);
        let mut places: BTreeMap<ValueId, Space> = shapes
            .keys()
            .map(|&value| (value, scope.view(value).space))
            .collect();
        let bias = chained_bias(node).map(|(view, _)| (view, node));
        places.extend(bias.map(|(view, _)| (view, input_space)));
        let mut steps = leading_steps(node, bias.into_iter(), channels, &mut shapes);
        steps.extend(fused.iter().cloned());
        Chained {
            channels,
            spaces: [filter.space, out_space],
            steps,
            shapes,
            places,
        }
    }

    /// The output tile of a block of `channels` of the tile `tile` of the layer.
    fn tile([images, _, rows, width]: [usize; 4], channels: usize) -> [usize; 4] {
        [images, channels, rows, width]
    }

    /// LB elements for blocks of `channels` output channels fed by tiles of `tile`: the filter
    /// slice, the accumulator and the epilogue's operand tiles.
    pub fn lb_elements(&self, tile: [usize; 4], channels: usize) -> usize {
        let block = Self::tile(tile, channels);
        channels * tile[1]
            + block.iter().product::<usize>()
            + Epilogue::lb_elements(&self.steps, &self.shapes, &block)
    }

    /// The block sizes whose buffers fit `room` LB elements beside tiles of `tile`, largest first.
    pub fn options(&self, tile: [usize; 4], room: usize) -> Vec<usize> {
        divisors_descending(self.channels)
            .into_iter()
            .filter(|&channels| self.lb_elements(tile, channels) <= room)
            .collect()
    }

    /// The elements the epilogue of a block loads, by space.
    fn epilogue_loads(&self, block: [usize; 4]) -> SpaceElements {
        Epilogue::elements_by_space(&self.steps, &self.shapes, &block, |value| {
            self.places[&value]
        })
    }

    /// How often a block loads its filter slice: once per core when the whole filter fits.
    fn filter_loads(&self, channels: usize, per_core_tiles: f64) -> f64 {
        if channels == self.channels {
            1.0 / per_core_tiles
        } else {
            1.0
        }
    }

    /// The latency of the blocks of `channels` that one tile of `tile` feeds: per block, the
    /// load of its filter slice, its product, its epilogue and its store, one after the other.
    pub fn latency(
        &self,
        tile: [usize; 4],
        channels: usize,
        machine: &Machine,
        per_core_tiles: f64,
    ) -> f64 {
        let block = Self::tile(tile, channels);
        let [filter_rate, out_rate] = self.spaces.map(|space| space.link_bandwidth(machine));
        let filter_loads = self.filter_loads(channels, per_core_tiles);
        let elements: usize = block.iter().product();
        let compute =
            machine.compute_setup + machine.matrix_cycles((2 * elements * tile[1]) as f64);
        let per_block = (1.0 + self.shapes.len() as f64 + filter_loads) * machine.dma_setup
            + filter_loads * (channels * tile[1] * 4) as f64 / filter_rate
            + compute
            + (elements * 4) as f64 / out_rate
            + load_cycles(&self.epilogue_loads(block), machine);
        (self.channels / channels) as f64 * per_block
    }

    /// Adds the bytes of the blocks one tile feeds to `ports`; returns their instructions.
    pub fn count(
        &self,
        tile: [usize; 4],
        channels: usize,
        machine: &Machine,
        (ports, per_core_tiles): (&mut PortCycles, f64),
    ) -> f64 {
        let block = Self::tile(tile, channels);
        let blocks = (self.channels / channels) as f64;
        let filter_loads = self.filter_loads(channels, per_core_tiles);
        let [filter_space, out_space] = self.spaces;
        ports.add(
            filter_space,
            blocks * filter_loads * (channels * tile[1] * 4) as f64,
            machine,
        );
        ports.add(
            out_space,
            blocks * (block.iter().product::<usize>() * 4) as f64,
            machine,
        );
        for (&space, &count) in &self.epilogue_loads(block) {
            ports.add(space, blocks * (count * 4) as f64, machine);
        }
        let externals = self.shapes.len() as f64;
        blocks * (3.0 + filter_loads + externals + self.steps.len() as f64)
    }
}

/// The chained convolution's kernel arguments and LB buffers.
pub(super) struct ChainedTiles {
    filter: (Val, View),
    output: (Val, View),
    filter_buffer: Val,
    accumulator: (Val, View),
    epilogue: Epilogue,
    /// Output channels per block, and in all.
    channels: usize,
    total: usize,
    /// The tile of the layer that feeds it.
    tile: [usize; 4],
}

impl ChainedTiles {
    /// The arguments and buffers of `chained` (its filter from `tensors`, its bias view there
    /// too) for blocks of `channels` fed by tiles of `tile`, storing into `output`.
    pub fn new(
        kernel: &mut Kernel,
        (chained, node): (&Chained, &Node),
        tensors: &BTreeMap<ValueId, Tensor>,
        (tile, channels): ([usize; 4], usize),
        output: &Tensor,
    ) -> Self {
        let filter = &tensors[&node.operands[1]];
        let block = Chained::tile(tile, channels);
        let keep = [0, 1, 2, 3];
        let epilogue = kernel.epilogue(&chained.steps, tensors, &block, &keep);
        ChainedTiles {
            filter: (
                kernel.argument(filter.host, &filter.view),
                filter.view.clone(),
            ),
            output: (
                kernel.argument(output.host, &output.view),
                output.view.clone(),
            ),
            filter_buffer: kernel.alloc_lb(&[channels, tile[1], 1, 1]).0,
            accumulator: kernel.alloc_lb(&block),
            epilogue,
            channels,
            total: chained.channels,
            tile,
        }
    }

    /// Whether the whole filter stays in the LB over the core's tiles.
    pub fn resident(&self) -> bool {
        self.channels == self.total
    }

    /// Loads the whole filter (for [`ChainedTiles::resident`]); returns the DMA's token.
    pub fn load_filter(&self, body: &mut Body) -> Val {
        body.dma(self.filter.0, self.filter_buffer, &[])
    }

    /// Emits the blocks fed by the tile in `block` (after its epilogue), the tile being at image
    /// `n` and output row `out_row`.
    pub fn emit(&self, body: &mut Body, block: Val, [n, out_row]: [Val; 2]) {
        let sizes = Chained::tile(self.tile, self.channels);
        let keep = [0, 1, 2, 3];
        let (accumulator, accumulator_view) = &self.accumulator;
        body.chunks(self.total / self.channels, &mut |body, index, _| {
            let zero = body.index(0);
            let channel = body.scaled(index, self.channels);
            let mut waits = Vec::new();
            if !self.resident() {
                let (slice, _) = body.subview(
                    self.filter.0,
                    &self.filter.1,
                    &[channel, zero, zero, zero],
                    &[self.channels, self.tile[1], 1, 1],
                    None,
                );
                waits.push(body.dma(slice, self.filter_buffer, &[]));
            }
            let product = body.conv2d(
                block,
                self.filter_buffer,
                *accumulator,
                [1, 1],
                [0; 4],
                [1, 1],
                1,
                false,
                &waits,
            );
            let offsets = [n, channel, out_row, zero];
            let done = self.epilogue.emit(
                body,
                (*accumulator, accumulator_view),
                &offsets,
                &sizes,
                &keep,
                vec![product],
            );
            let stored = store_box(
                body,
                (*accumulator, accumulator_view),
                &[Store::whole(self.output.0, &self.output.1)],
                &offsets,
                &sizes,
                &keep,
                &done,
            );
            body.wait(&stored);
        });
    }
}
