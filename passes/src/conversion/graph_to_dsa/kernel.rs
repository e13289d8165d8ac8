//! One `dsa.kernel` being written: its arguments, the split of its tiles over the cores of a
//! launch, and the epilogue that refines an output tile in the local buffer.
//!
//! Every kernel of the layer-wise schedule has the same skeleton: each core takes a contiguous
//! block of the layer's output tiles (tiles are numbered batch-major, so with a batch at least as
//! large as the cluster count the clusters split the batch and the cores of a cluster split the
//! next dimension), and for each tile loads its inputs into LB, computes, runs the epilogue and
//! stores the tile. Instructions within a tile are chained by tokens; a `dsa.wait` at the end of
//! each tile orders the next tile's loads after this tile's reads of the same buffers.

use super::{
    layers::{Elementwise, Operand, Step},
    text::{Body, Space, View},
    Machine,
};
use std::collections::BTreeMap;
use crate::graph_view::ValueId;

/// A kernel under construction.
pub struct Kernel {
    /// Symbol name.
    pub name: String,
    /// Host-side SSA names passed as arguments, with the kernel-side types.
    pub arguments: Vec<(String, View)>,
    /// The body (after the core-id preamble).
    pub body: Body,
    /// Cores it is launched on.
    pub cores: usize,
    /// LB elements allocated by the kernel (checked against the target's LB).
    pub lb_elements: usize,
    deallocs: Vec<(String, View)>,
    /// The first tile index of the running core's share (set by the tile loop).
    first_tile: String,
}

impl Kernel {
    /// An empty kernel called `name`.
    pub fn new(name: String) -> Self {
        Self {
            name,
            arguments: Vec::new(),
            body: Body::new(1),
            cores: 1,
            lb_elements: 0,
            deallocs: Vec::new(),
            first_tile: String::new(),
        }
    }

    /// The kernel-side name of host value `host` (of type `view`), adding the argument once.
    pub fn argument(&mut self, host: &str, view: &View) -> String {
        if let Some(index) = self.arguments.iter().position(|(name, _)| name == host) {
            return format!("%arg{index}");
        }
        self.arguments.push((host.to_owned(), view.clone()));
        format!("%arg{}", self.arguments.len() - 1)
    }

    /// Allocates an LB buffer of `shape` for the whole kernel.
    pub fn alloc_lb(&mut self, shape: &[usize]) -> (String, View) {
        let view = View::contiguous(shape, Space::Lb);
        let name = self.body.fresh("lb");
        self.body
            .line(format!("{name} = dsa.alloc : {}", view.type_text()));
        self.lb_elements += view.elements();
        self.deallocs.push((name.clone(), view.clone()));
        (name, view)
    }

    /// Opens the loop over this core's share of `tiles` tiles (on at most `machine.cores`
    /// cores) and returns the tile index; close it with [`Kernel::end_tiles`].
    pub fn begin_tiles(&mut self, tiles: usize, machine: &Machine) -> String {
        self.cores = tiles.clamp(1, machine.cores);
        self.begin_tiles_over(tiles, self.cores)
    }

    /// Opens a loop over this core's share of `tiles` tiles split over `cores` cores (a kernel
    /// with several tile loops launches on the largest count; cores past a loop's tiles skip it).
    pub fn begin_tiles_over(&mut self, tiles: usize, cores: usize) -> String {
        let body = &mut self.body;
        let core = body.fresh("core");
        body.line(format!("{core} = dsa.core_id : index"));
        let total = body.index(tiles);
        let cores = body.index(cores);
        let one = body.index(1);
        let first = body.arith("muli", &core, &total);
        let low = body.arith("divui", &first, &cores);
        let next = body.arith("addi", &core, &one);
        let last = body.arith("muli", &next, &total);
        let high = body.arith("divui", &last, &cores);
        let tile = body.fresh("tile");
        body.open(format!("scf.for {tile} = {low} to {high} step {one} {{"));
        self.first_tile = low;
        tile
    }

    /// An `i1` that is true when this tile is the core's first or its `coordinates` (of the tile
    /// numbering `counts`) differ from the previous tile's at one of `watched` positions: the
    /// condition under which a tile must reload what the previous tile left in LB.
    pub fn changed(&mut self, tile: &str, counts: &[usize], coordinates: &[String], watched: &[usize]) -> String {
        let first_tile = self.first_tile.clone();
        let one = self.body.index(1);
        let previous_tile = self.body.arith("subi", tile, &one);
        let previous = self.decode(&previous_tile, counts);
        let body = &mut self.body;
        let mut condition = body.fresh("b");
        body.line(format!("{condition} = arith.cmpi eq, {tile}, {first_tile} : index"));
        for &position in watched {
            let differs = body.fresh("b");
            body.line(format!("{differs} = arith.cmpi ne, {}, {} : index", coordinates[position], previous[position]));
            let either = body.fresh("b");
            body.line(format!("{either} = arith.ori {condition}, {differs} : i1"));
            condition = either;
        }
        condition
    }

    /// Emits `load` only when [`Kernel::changed`] holds, and fences it: a tile keeps what the
    /// previous tile loaded (the weights of the same output-channel block, say) instead of
    /// streaming it from DDR again.
    pub fn load_when_changed(
        &mut self,
        tile: &str,
        counts: &[usize],
        coordinates: &[String],
        watched: &[usize],
        load: &mut dyn FnMut(&mut Body) -> String,
    ) {
        let condition = self.changed(tile, counts, coordinates, watched);
        guarded_load(&mut self.body, &condition, load);
    }

    /// Closes the tile loop: waits for `token` so that the next tile's loads come after this
    /// tile's last reads.
    pub fn end_tiles(&mut self, token: &str) {
        self.body.line(format!("dsa.wait {token}"));
        self.body.close("}");
    }

    /// Runs `epilogue` on the tile `accumulator` (the output's `keep` dimensions of a tile of
    /// `sizes` at `offsets`), stores it into `output`, and closes the tile loop.
    pub fn store_tile(
        &mut self,
        epilogue: &Epilogue,
        accumulator: (&str, &View),
        output: (&str, &View),
        offsets: &[String],
        sizes: &[usize],
        keep: &[usize],
    ) {
        let body = &mut self.body;
        let done = epilogue.emit(body, accumulator, offsets, sizes, keep, Vec::new());
        let (target, target_view) = body.subview(output.0, output.1, offsets, sizes, Some(keep));
        let stored = body.dma(accumulator, (&target, &target_view), &done);
        self.end_tiles(&stored);
    }

    /// Splits a tile index into coordinates over `counts` (row-major, first count outermost).
    pub fn decode(&mut self, tile: &str, counts: &[usize]) -> Vec<String> {
        let mut coordinates = vec![String::new(); counts.len()];
        let mut rest = tile.to_owned();
        for (d, &count) in counts.iter().enumerate().rev() {
            if d == 0 {
                coordinates[0] = rest.clone();
                break;
            }
            if count == 1 {
                coordinates[d] = self.body.index(0);
                continue;
            }
            let size = self.body.index(count);
            coordinates[d] = self.body.arith("remui", &rest, &size);
            rest = self.body.arith("divui", &rest, &size);
        }
        coordinates
    }

    /// The kernel's text, deallocating its LB buffers at the end.
    pub fn finish(mut self, location: &str) -> (String, String, Vec<(String, View)>, usize) {
        for (name, view) in std::mem::take(&mut self.deallocs) {
            self.body
                .line(format!("dsa.dealloc {name} : {}", view.type_text()));
        }
        let parameters: Vec<String> = self
            .arguments
            .iter()
            .enumerate()
            .map(|(index, (_, view))| format!("%arg{index}: {}", view.type_text()))
            .collect();
        let text = format!(
            "dsa.kernel @{}({}) {{\n{}  dsa.return\n}} loc({location})\n",
            self.name,
            parameters.join(", "),
            self.body.finish()
        );
        (self.name, text, self.arguments, self.cores)
    }
}

/// Emits `load` under `scf.if condition` and fences it there, so later instructions find its
/// data whichever way the condition went.
pub fn guarded_load(body: &mut Body, condition: &str, load: &mut dyn FnMut(&mut Body) -> String) {
    body.open(format!("scf.if {condition} {{"));
    let token = load(body);
    body.line(format!("dsa.wait {token}"));
    body.close("}");
}

/// A graph value as a kernel sees it: the host buffer (or view) and its type.
#[derive(Debug, Clone)]
pub struct Tensor {
    /// Host-side SSA name.
    pub host: String,
    /// Its type.
    pub view: View,
}

/// The LB buffers of an epilogue's external operands, allocated once per kernel.
pub struct Epilogue {
    steps: Vec<Step>,
    externals: BTreeMap<ValueId, (String, View, String, View)>,
}

/// Shape of an external operand's tile: dimensions that broadcast stay 1, the others take the
/// output tile's size; dimensions aligned with dropped output dimensions are dropped.
fn external_tile(
    shape: &[usize],
    output_tile: &[usize],
    keep: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let lead = output_tile.len() - shape.len();
    let sizes: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(i, &dim)| if dim == 1 { 1 } else { output_tile[i + lead] })
        .collect();
    let kept: Vec<usize> = (0..shape.len())
        .filter(|&i| keep.contains(&(i + lead)))
        .collect();
    (sizes, kept)
}

impl Epilogue {
    /// LB elements an epilogue needs for an output tile of `output_tile` (before allocation).
    pub fn lb_elements(
        steps: &[Step],
        shapes: &BTreeMap<ValueId, Vec<usize>>,
        output_tile: &[usize],
    ) -> usize {
        let mut seen = Vec::new();
        let mut total = 0;
        for step in steps {
            for operand in &step.operands {
                if let Operand::External(value) = operand {
                    if !seen.contains(value) {
                        seen.push(*value);
                        let (sizes, _) = external_tile(&shapes[value], output_tile, &[]);
                        total += sizes.iter().product::<usize>();
                    }
                }
            }
        }
        total
    }

    /// Allocates the LB tiles of the external operands of `steps` in `kernel`.
    pub fn new(
        kernel: &mut Kernel,
        steps: &[Step],
        tensors: &BTreeMap<ValueId, Tensor>,
        output_tile: &[usize],
        keep: &[usize],
    ) -> Self {
        let mut externals = BTreeMap::new();
        for step in steps {
            for operand in &step.operands {
                if let Operand::External(value) = operand {
                    if externals.contains_key(value) {
                        continue;
                    }
                    let tensor = &tensors[value];
                    let argument = kernel.argument(&tensor.host, &tensor.view);
                    let (sizes, kept) = external_tile(&tensor.view.shape, output_tile, keep);
                    let kept_sizes: Vec<usize> = kept.iter().map(|&d| sizes[d]).collect();
                    let (buffer, buffer_view) = kernel.alloc_lb(&kept_sizes);
                    externals.insert(*value, (argument, tensor.view.clone(), buffer, buffer_view));
                }
            }
        }
        Self {
            steps: steps.to_vec(),
            externals,
        }
    }

    /// Emits the loads and steps on the tile `accumulator` (whose dimensions are the output's
    /// `keep` dimensions) at output `offsets` / `sizes`, after `after`; returns the last token.
    pub fn emit(
        &self,
        body: &mut Body,
        accumulator: (&str, &View),
        offsets: &[String],
        sizes: &[usize],
        keep: &[usize],
        after: Vec<String>,
    ) -> Vec<String> {
        let mut loaded: BTreeMap<ValueId, String> = BTreeMap::new();
        for (value, (argument, view, buffer, buffer_view)) in &self.externals {
            let (tile_sizes, kept) = external_tile(&view.shape, sizes, keep);
            let lead = sizes.len() - view.shape.len();
            let zero = body.index(0);
            let tile_offsets: Vec<String> = view
                .shape
                .iter()
                .enumerate()
                .map(|(i, &dim)| {
                    if dim == 1 {
                        zero.clone()
                    } else {
                        offsets[i + lead].clone()
                    }
                })
                .collect();
            let (source, source_view) =
                body.subview(argument, view, &tile_offsets, &tile_sizes, Some(&kept));
            // The load overwrites the buffer that the previous tile's steps read: the tile loop's
            // closing wait orders it.
            let token = body.dma((&source, &source_view), (buffer, buffer_view), &[]);
            loaded.insert(*value, token);
        }
        let mut last = after;
        let accumulator_type = accumulator.1.type_text();
        for step in &self.steps {
            let mut waits = last.clone();
            let names: Vec<(String, String)> = step
                .operands
                .iter()
                .map(|operand| match operand {
                    Operand::Chain => (accumulator.0.to_owned(), accumulator_type.clone()),
                    Operand::External(value) => {
                        let (_, _, buffer, buffer_view) = &self.externals[value];
                        if !waits.contains(&loaded[value]) {
                            waits.push(loaded[value].clone());
                        }
                        (buffer.clone(), buffer_view.type_text())
                    }
                })
                .collect();
            let (target, target_type) = match step.target {
                Operand::Chain => (accumulator.0.to_owned(), accumulator_type.clone()),
                Operand::External(value) => {
                    let (_, _, buffer, buffer_view) = &self.externals[&value];
                    (buffer.clone(), buffer_view.type_text())
                }
            };
            let token = match &step.op {
                Elementwise::Unary {
                    kind,
                    bounds,
                    affine,
                } => {
                    let mut attributes = String::new();
                    if let Some((min, max)) = bounds {
                        attributes = format!(
                            " {{min = {} : f32, max = {} : f32}}",
                            float_text(*min),
                            float_text(*max)
                        );
                    }
                    if let Some((scale, shift)) = affine {
                        attributes = format!(
                            " {{scale = {} : f32, shift = {} : f32}}",
                            float_text(*scale),
                            float_text(*shift)
                        );
                    }
                    body.instruction(
                        &format!("dsa.unary {kind} {} into {target}", names[0].0),
                        &waits,
                        &format!("{attributes}: {}, {target_type}", names[0].1),
                    )
                }
                Elementwise::Binary { kind } => body.instruction(
                    &format!(
                        "dsa.binary {kind} {}, {} into {target}",
                        names[0].0, names[1].0
                    ),
                    &waits,
                    &format!(": {}, {}, {target_type}", names[0].1, names[1].1),
                ),
            };
            last = vec![token];
        }
        last
    }
}

/// An f32 as an MLIR float literal that parses back to the same bits.
pub fn float_text(value: f32) -> String {
    format!("0x{:08X}", value.to_bits())
}
