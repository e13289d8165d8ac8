//! What a conv tiling costs: the estimate its tiling is chosen by (and that a caller asks for to
//! decide whether a copy of its filter closer to the cores pays for itself).

use super::chained::Chained;
use super::geometry::{Geometry, Tiling};
use crate::kernels::emit::Space;
use crate::kernels::ports::{load_cycles, runs_per_core, Estimate, PortCycles, SpaceElements};
use crate::target::Machine;

/// What one tile of a tiling moves, and how often.
#[derive(Clone, Copy)]
struct Traffic {
    /// Input-channel chunks per tile.
    chunks: usize,
    /// Tiles of the busiest core.
    per_core_tiles: f64,
    /// Elements of a chunk's input rows, of its filter slice, and of the output tile.
    input: usize,
    filter: usize,
    output: usize,
    /// How often a chunk loads its input and its filter ([`Geometry::loads`]).
    input_loads: f64,
    filter_loads: f64,
}

impl Geometry {
    /// How often a tile loads its input and its filter per chunk: with one chunk, what the tile
    /// order keeps (the filter over the row tiles of its block, or the input rows over the
    /// output-channel blocks) is loaded once per run of tiles that a core's share touches (a
    /// share that starts inside a run loads it too).
    fn loads(&self, tiling: &Tiling, machine: &Machine) -> (f64, f64) {
        let tiles = self.tiles(tiling);
        let per_core_tiles = tiles.div_ceil(machine.cores) as f64;
        let row_tiles = self.rows.output / tiling.out_rows;
        let channel_tiles = self.out_channels / tiling.out_channels;
        let per_tile =
            |run: usize| runs_per_core(tiles, machine.cores, run) as f64 / per_core_tiles;
        match (self.chunks(tiling), tiling.input_stationary) {
            (1, true) => (per_tile(channel_tiles), 1.0),
            // The filter tile stays over the images too when there is one channel block.
            (1, false) if channel_tiles == 1 => (1.0, per_tile(tiles)),
            (1, false) => (1.0, per_tile(row_tiles)),
            _ => (1.0, 1.0),
        }
    }

    /// Estimated cycles of the busiest core's tiles, from the target's figures: each tile's
    /// latency (DMA setups, transfers at the rate of a port the transfer has to itself,
    /// instruction setup, MACs at the matrix engine's f32 rate, overlapped as
    /// the pipelined schedules overlap them) bounded by the bytes it moves over the cluster's
    /// shared ports ([`PortCycles`]). A tiling that re-reads more is cheaper only while the ports
    /// have room for it: pricing every transfer at the core's share inside the latency would make
    /// pipelines that re-read look cheap on a saturated DDR port, and serial tilings look cheap
    /// where the GB bus is idle.
    pub(super) fn cost(
        &self,
        tiling: &Tiling,
        machine: &Machine,
        epilogue_dmas: usize,
        epilogue_elements: &SpaceElements,
    ) -> Estimate {
        let traffic = self.traffic(tiling, machine);
        let Traffic {
            chunks,
            per_core_tiles,
            input,
            filter,
            output,
            input_loads,
            filter_loads,
        } = traffic;
        let [input_space, filter_space, output_space] = self.spaces;
        let latency = self.latency(tiling, machine, &traffic, epilogue_dmas, epilogue_elements);
        // A layer feeding a chained convolution stores that convolution's result, not its own.
        let stored = self.stored_bytes(tiling, output);
        let mut ports = PortCycles::default();
        ports.add(
            input_space,
            chunks as f64 * input_loads * (input * 4) as f64,
            machine,
        );
        ports.add_by_space(epilogue_elements, machine);
        ports.add(output_space, stored, machine);
        ports.add(
            filter_space,
            chunks as f64 * filter_loads * (filter * 4) as f64,
            machine,
        );
        // A chunk's conv and loads, the store and the epilogue's operand loads.
        let instructions =
            chunks as f64 * (1.0 + input_loads + filter_loads) + 1.0 + epilogue_dmas as f64;
        let chained_instructions = match self.chained_at(tiling) {
            Some(chained) => chained.count(
                self.tile(tiling),
                tiling.chained_channels,
                machine,
                (&mut ports, per_core_tiles),
            ),
            None => 0.0,
        };
        let absorbed_instructions = match &self.absorbed {
            Some(absorbed) => absorbed.count(
                self.tile(tiling),
                tiling.absorbed_chunk,
                machine,
                &mut ports,
            ),
            None => 0.0,
        };
        ports.bound(
            per_core_tiles,
            latency,
            instructions + absorbed_instructions + chained_instructions,
        )
    }

    /// The chained convolution the tiles of `tiling` feed, once its blocks are chosen.
    fn chained_at(&self, tiling: &Tiling) -> Option<&Chained> {
        self.chained
            .as_ref()
            .filter(|_| tiling.chained_channels > 0)
    }

    /// The bytes a tile of `output` elements stores: none when it feeds a chained convolution.
    fn stored_bytes(&self, tiling: &Tiling, output: usize) -> f64 {
        if self.chained_at(tiling).is_some() {
            0.0
        } else {
            (output * 4) as f64
        }
    }

    /// What the tiles of `tiling` move and how often.
    fn traffic(&self, tiling: &Tiling, machine: &Machine) -> Traffic {
        let (input_loads, filter_loads) = self.loads(tiling, machine);
        Traffic {
            chunks: self.chunks(tiling),
            per_core_tiles: self.tiles(tiling).div_ceil(machine.cores) as f64,
            input: tiling.images
                * self.input_channels(tiling)
                * self.rows.window(tiling.out_rows)
                * self.width,
            filter: self.filter_tile(tiling).iter().product(),
            output: tiling.images * tiling.out_channels * tiling.out_rows * self.out_width,
            input_loads,
            filter_loads,
        }
    }

    /// One tile's latency under `tiling` (moving `traffic`), its store and the epilogue's
    /// `epilogue_dmas` loads of `epilogue_elements` included, with the waits for the port it
    /// stores to that other cores' tiles keep busy.
    fn latency(
        &self,
        tiling: &Tiling,
        machine: &Machine,
        traffic: &Traffic,
        epilogue_dmas: usize,
        epilogue_elements: &SpaceElements,
    ) -> f64 {
        let &Traffic {
            chunks,
            per_core_tiles,
            input,
            filter,
            output,
            input_loads,
            filter_loads,
        } = traffic;
        let [input_space, filter_space, output_space] = self.spaces;
        let [input_rate, filter_rate, output_rate] =
            self.spaces.map(|space| space.link_bandwidth(machine));
        let macs = output * filter / tiling.out_channels;
        let compute = machine.compute_setup + machine.matrix_cycles((2 * macs) as f64);
        // The epilogue's operands are loaded from where each lives and the output is written
        // where it lives, each sharing that port with the other transfers there (a block's
        // output handed over in DDR, or a residual read from there, with the filter streamed
        // from DDR). Priced at the input's port, a residual in DDR read beside an input in the
        // GB would look free to the DDR port.
        let stored = self.stored_bytes(tiling, output);
        let chained = self.chained_at(tiling).map_or(0.0, |chained| {
            chained.latency(
                self.tile(tiling),
                tiling.chained_channels,
                machine,
                per_core_tiles,
            )
        });
        let store = (1 + epilogue_dmas) as f64 * machine.dma_setup
            + stored / output_rate
            + load_cycles(epilogue_elements, machine)
            + chained;
        // A chunk's load from the port the tiles store to may find another core's tile-sized
        // transfers holding it (the runtime serves a port one transfer at a time): its store and
        // the epilogue operands it loads from that port (a residual). Half of those, as often as
        // the cluster's keep the port busy over the tiles' time without such waits.
        let on_output_port =
            |space: Space| space.port().is_some() && space.port() == output_space.port();
        let residual: f64 = epilogue_elements
            .iter()
            .filter(|(&space, _)| on_output_port(space))
            .map(|(&space, &count)| (count * 4) as f64 / space.link_bandwidth(machine))
            .sum();
        let held = stored / output_rate + residual;
        let latency_with = |wait: &dyn Fn(Space) -> f64| {
            let input_load =
                machine.dma_setup + (input * 4) as f64 / input_rate + wait(input_space);
            let filter_load =
                machine.dma_setup + (filter * 4) as f64 / filter_rate + wait(filter_space);
            let absorbed = self.absorbed.as_ref().map_or(0.0, |absorbed| {
                absorbed.latency(self.tile(tiling), tiling.absorbed_chunk, machine, wait)
            });
            absorbed
                + self.tile_latency(
                    tiling,
                    chunks,
                    per_core_tiles,
                    [input_load, filter_load, compute, store],
                    input_loads,
                    filter_loads,
                )
        };
        let unhindered = latency_with(&|_| 0.0);
        let busy = (machine.cores_per_cluster as f64 * held / unhindered).min(1.0);
        latency_with(&|space| {
            if on_output_port(space) {
                busy * held / 2.0
            } else {
                0.0
            }
        })
    }

    /// One tile's latency from its chunks' `[input load, filter load, compute, store]` cycles.
    fn tile_latency(
        &self,
        tiling: &Tiling,
        chunks: usize,
        per_core_tiles: f64,
        [input_load, filter_load, compute, store]: [f64; 4],
        input_loads: f64,
        filter_loads: f64,
    ) -> f64 {
        match (tiling.pipelined, chunks) {
            (false, _) => {
                chunks as f64 * (input_loads * input_load + filter_loads * filter_load + compute)
                    + store
            }
            // The next tile's input streams in while this tile's conv, epilogue and store run;
            // the first load is exposed, and a filter reload (when the channel block changes) is
            // fenced.
            (true, 1) => {
                input_load / per_core_tiles
                    + filter_loads * filter_load
                    + input_load.max(compute + store)
            }
            // Chunk c + 1 loads while chunk c computes; the first chunk's load is exposed.
            (true, _) => {
                let load = input_load + filter_load;
                load + (chunks - 1) as f64 * load.max(compute) + compute + store
            }
        }
    }
}
