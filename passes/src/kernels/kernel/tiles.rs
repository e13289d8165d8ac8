//! A kernel's tile loops: the split of a layer's tiles over the cores, the tile index decoded
//! into coordinates, what a tile reloads when they change, and the end of a tile (its epilogue,
//! stores and the wait that orders the next tile's loads after it).

use super::store::{guarded_load, store_box, Store};
use super::Kernel;
use crate::ir::Val;
use crate::kernels::emit::IndexOp;
use crate::kernels::emit::Logic;
use crate::kernels::{
    emit::{Body, Compare, View},
    epilogue::Epilogue,
};
use crate::target::Machine;
use mlir_sys::MlirType;
use turbine_dialects::ops::upstream;

impl Kernel {
    /// Opens the loop over this core's share of `tiles` tiles (on at most `machine.cores`
    /// cores) and returns the tile index; close it with [`Kernel::end_tiles`].
    pub fn begin_tiles(&mut self, tiles: usize, machine: &Machine) -> Val {
        let cores = tiles.clamp(1, machine.cores);
        if self.per_cluster.is_none() {
            self.cores = cores;
        }
        self.begin_tiles_over(tiles, cores)
    }

    /// Opens a loop over this core's share of `tiles` tiles split over `cores` cores (a kernel
    /// with several tile loops launches on the largest count; cores past a loop's tiles skip it).
    pub fn begin_tiles_over(&mut self, tiles: usize, cores: usize) -> Val {
        let body = &mut self.body;
        let (core, cores) = match &self.per_cluster {
            // In a private part every core takes every tile, as core 0 of 1.
            Some(spmd) if spmd.private.is_some() => (body.index(0), 1),
            // Cores of the cluster past this loop's count take no tile.
            Some(spmd) if cores < spmd.cores_per_cluster => {
                let count = body.index(cores);
                (
                    body.op(
                        upstream::Kind::ArithMinui,
                        &[spmd.core, count],
                        &[core_type(spmd.core)],
                        &[],
                    )
                    .result(0),
                    cores,
                )
            }
            Some(spmd) => (spmd.core, cores),
            None => (body.core_id(), cores),
        };
        let total = body.index(tiles);
        let cores = body.index(cores);
        let one = body.index(1);
        let first = body.arith(IndexOp::Mul, core, total);
        let low = body.arith(IndexOp::DivU, first, cores);
        let next = body.arith(IndexOp::Add, core, one);
        let last = body.arith(IndexOp::Mul, next, total);
        let high = body.arith(IndexOp::DivU, last, cores);
        let high = match &self.per_cluster {
            Some(_) => {
                let r#type = core_type(high);
                body.op(upstream::Kind::ArithMinui, &[high, total], &[r#type], &[])
                    .result(0)
            }
            None => high,
        };
        let tile = body.open_for(low, high, one);
        self.first_tile = Some(low);
        self.end_tile = Some(high);
        tile
    }

    /// Whether `tile` is the first of the running core's share.
    pub fn is_first(&mut self, tile: impl Into<Val>) -> Val {
        let first_tile = self.first_tile.expect("is_first runs inside a tile loop");
        self.body.compare(Compare::Eq, tile.into(), first_tile)
    }

    /// The tile after `tile`, and whether the running core's share has it: what a software
    /// pipeline loads while `tile` computes.
    pub fn next_tile(&mut self, tile: impl Into<Val>) -> (Val, Val) {
        let end_tile = self.end_tile.expect("next_tile runs inside a tile loop");
        let one = self.body.index(1);
        let next = self.body.arith(IndexOp::Add, tile.into(), one);
        let has_next = self.body.compare(Compare::Ult, next, end_tile);
        (next, has_next)
    }

    /// Of a double buffer `pair`, the half `tile` computes from and the half the next tile is
    /// loaded into, alternating with the tile's parity.
    pub fn alternate(&mut self, tile: impl Into<Val>, pair: [Val; 2]) -> [Val; 2] {
        let body = &mut self.body;
        let two = body.index(2);
        let parity = body.arith(IndexOp::RemU, tile.into(), two);
        let zero = body.index(0);
        let even = body.compare(Compare::Eq, parity, zero);
        [
            body.select(even, pair[0], pair[1]),
            body.select(even, pair[1], pair[0]),
        ]
    }

    /// Closes a tile loop whose body ordered its tiles itself (a software pipeline waits inside
    /// the branches where its tokens are defined).
    pub fn close_tiles(&mut self) {
        self.body.close();
    }

    /// An `i1` that is true when this tile is the core's first or its `coordinates` (of the tile
    /// numbering `counts`) differ from the previous tile's at one of `watched` positions: the
    /// condition under which a tile must reload what the previous tile left in LB.
    pub fn changed(
        &mut self,
        tile: impl Into<Val>,
        counts: &[usize],
        coordinates: &[Val],
        watched: &[usize],
    ) -> Val {
        let tile = tile.into();
        let first_tile = self.first_tile.expect("changed runs inside a tile loop");
        let one = self.body.index(1);
        let previous_tile = self.body.arith(IndexOp::Sub, tile, one);
        let previous = self.decode(previous_tile, counts);
        let body = &mut self.body;
        let mut condition = body.compare(Compare::Eq, tile, first_tile);
        for &position in watched {
            let differs = body.compare(Compare::Ne, coordinates[position], previous[position]);
            condition = body.logic(Logic::Or, condition, differs);
        }
        condition
    }

    /// Emits `load` only when [`Kernel::changed`] holds, and fences it: a tile keeps what the
    /// previous tile loaded (the weights of the same output-channel block, say) instead of
    /// streaming it from DDR again.
    pub fn load_when_changed(
        &mut self,
        tile: impl Into<Val>,
        counts: &[usize],
        coordinates: &[Val],
        watched: &[usize],
        load: &mut dyn FnMut(&mut Body) -> Val,
    ) {
        let condition = self.changed(tile, counts, coordinates, watched);
        guarded_load(&mut self.body, condition, load);
    }

    /// Closes the tile loop: waits for `tokens` so that the next tile's loads come after this
    /// tile's last reads.
    pub fn end_tiles(&mut self, tokens: &[Val]) {
        self.body.wait(tokens);
        self.body.close();
    }

    /// Runs `epilogue` on the tile `accumulator` (the output's `keep` dimensions of a tile of
    /// `sizes` at `offsets`), stores it into each of `stores` (the layer's output, and where the
    /// layer writes it too), and closes the tile loop.
    pub fn store_tile(
        &mut self,
        epilogue: &Epilogue,
        accumulator: (Val, &View),
        stores: &[Store],
        offsets: &[Val],
        sizes: &[usize],
        keep: &[usize],
    ) {
        let body = &mut self.body;
        let done = epilogue.emit(body, accumulator, offsets, sizes, keep, Vec::new());
        let stored = store_box(body, accumulator, stores, offsets, sizes, keep, &done);
        self.end_tiles(&stored);
    }

    /// The element offsets of the tile numbered `tile` of sizes `sizes`, `counts` tiles along each
    /// dimension (row-major): its coordinates ([`Kernel::decode`]) scaled by the sizes.
    pub fn tile_offsets(
        &mut self,
        tile: impl Into<Val>,
        counts: &[usize],
        sizes: &[usize],
    ) -> Vec<Val> {
        let coordinates = self.decode(tile, counts);
        coordinates
            .iter()
            .zip(sizes)
            .map(|(&c, &size)| self.body.scaled(c, size))
            .collect()
    }

    /// Splits a tile index into coordinates over `counts` (row-major, first count outermost).
    pub fn decode(&mut self, tile: impl Into<Val>, counts: &[usize]) -> Vec<Val> {
        let tile = tile.into();
        let mut coordinates = vec![tile; counts.len()];
        let mut rest = tile;
        for (d, &count) in counts.iter().enumerate().rev() {
            if d == 0 {
                coordinates[0] = rest;
                break;
            }
            if count == 1 {
                coordinates[d] = self.body.index(0);
                continue;
            }
            let size = self.body.index(count);
            coordinates[d] = self.body.arith(IndexOp::RemU, rest, size);
            rest = self.body.arith(IndexOp::DivU, rest, size);
        }
        coordinates
    }
}

fn core_type(value: Val) -> MlirType {
    value.r#type()
}
