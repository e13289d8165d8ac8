//! The epilogue of a tiled layer: the elementwise steps fused after its anchor, run by the vector
//! units on each output tile in the LB before it is stored, with the LB buffers of their external
//! operands.

use super::{
    emit::{Body, Space, View},
    layers::{Elementwise, Operand, Step},
    ports::SpaceElements,
};
use crate::{graph_view::ValueId, ir::Val};
use std::collections::BTreeMap;
use turbine_dialects::attributes::dsa::BinaryKind;

/// The LB buffers of an epilogue's external operands, allocated once per kernel.
pub struct Epilogue {
    steps: Vec<Step>,
    externals: BTreeMap<ValueId, (Val, View, Val, View)>,
}

/// Shape of an external operand's tile: dimensions that broadcast stay 1, the others take the
/// output tile's size; dimensions aligned with dropped output dimensions are dropped.
pub(crate) fn external_tile(
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

/// `steps` as a tile runs them when the accumulator starts from a whole-output operand (a
/// residual: its shape in `shapes` is the output's, `output`) that one of them adds, and that
/// operand: only additions of other operands (a bias) come before that step, so the sum is the
/// same in another order, and no other step reads the operand. The tile then loads it into the
/// accumulator before the first product and needs no LB buffer of its own, which leaves room for
/// larger tiles (a residual block's last 1x1 convolution would otherwise keep a residual tile as
/// large as its output tile). `steps` unchanged and `None` when no step qualifies.
pub fn without_preloaded_addend(
    steps: &[Step],
    shapes: &BTreeMap<ValueId, Vec<usize>>,
    output: &[usize],
) -> (Vec<Step>, Option<ValueId>) {
    let mut tile_steps = steps.to_vec();
    match preloadable_addend(steps, shapes, output) {
        Some((position, value)) => {
            tile_steps.remove(position);
            (tile_steps, Some(value))
        }
        None => (tile_steps, None),
    }
}

/// The position of the step [`without_preloaded_addend`] leaves out, and its operand.
fn preloadable_addend(
    steps: &[Step],
    shapes: &BTreeMap<ValueId, Vec<usize>>,
    output: &[usize],
) -> Option<(usize, ValueId)> {
    let external_added = |step: &Step| match (&step.op, step.operands.as_slice(), step.target) {
        (
            Elementwise::Binary {
                kind: BinaryKind::Add,
            },
            [Operand::Chain, Operand::External(value)] | [Operand::External(value), Operand::Chain],
            Operand::Chain,
        ) => Some(*value),
        _ => None,
    };
    let position = steps
        .iter()
        .position(|step| external_added(step).is_none_or(|value| shapes[&value] == output))?;
    let value = external_added(&steps[position])?;
    let read_elsewhere = steps.iter().enumerate().any(|(index, step)| {
        index != position
            && step
                .operands
                .iter()
                .chain([&step.target])
                .any(|operand| *operand == Operand::External(value))
    });
    (!read_elsewhere).then_some((position, value))
}

impl Epilogue {
    /// What `steps` (their external operands of `shapes`, each living where `space_of` says)
    /// are, for a tuning key: the operations and the shape and space of each operand, without
    /// the values of one program.
    pub fn key(
        steps: &[Step],
        shapes: &BTreeMap<ValueId, Vec<usize>>,
        space_of: impl Fn(ValueId) -> Space,
    ) -> String {
        let operand = |operand: &Operand| match operand {
            Operand::Chain => "chain".to_owned(),
            Operand::External(value) => format!("{:?}@{:?}", shapes[value], space_of(*value)),
        };
        let parts: Vec<String> = steps
            .iter()
            .map(|step| {
                let operands: Vec<String> = step.operands.iter().map(operand).collect();
                format!(
                    "{:?}({})->{}",
                    step.op,
                    operands.join(","),
                    operand(&step.target)
                )
            })
            .collect();
        format!("[{}]", parts.join(" "))
    }

    /// LB elements an epilogue needs for an output tile of `output_tile` (before allocation).
    pub fn lb_elements(
        steps: &[Step],
        shapes: &BTreeMap<ValueId, Vec<usize>>,
        output_tile: &[usize],
    ) -> usize {
        Self::elements_by_space(steps, shapes, output_tile, |_| Space::Lb)
            .values()
            .sum()
    }

    /// The elements of the external operands of `steps` that one output tile loads, summed
    /// per memory space (`space_of` an operand): each is loaded over the port of its own space,
    /// which a residual handed over in DDR shares with a filter streamed from there.
    pub fn elements_by_space(
        steps: &[Step],
        shapes: &BTreeMap<ValueId, Vec<usize>>,
        output_tile: &[usize],
        space_of: impl Fn(ValueId) -> Space,
    ) -> SpaceElements {
        let mut seen = Vec::new();
        let mut totals = SpaceElements::new();
        for step in steps {
            for operand in &step.operands {
                if let Operand::External(value) = operand {
                    if !seen.contains(value) {
                        seen.push(*value);
                        let (sizes, _) = external_tile(&shapes[value], output_tile, &[]);
                        *totals.entry(space_of(*value)).or_default() +=
                            sizes.iter().product::<usize>();
                    }
                }
            }
        }
        totals
    }

    /// The epilogue running `steps` with the LB tiles of their external operands, by value:
    /// (host buffer, its view, LB tile, the tile's view).
    pub(crate) fn from_externals(
        steps: &[Step],
        externals: BTreeMap<ValueId, (Val, View, Val, View)>,
    ) -> Self {
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
        accumulator: (Val, &View),
        offsets: &[Val],
        sizes: &[usize],
        keep: &[usize],
        after: Vec<Val>,
    ) -> Vec<Val> {
        let mut loaded: BTreeMap<ValueId, Val> = BTreeMap::new();
        for (value, (argument, view, buffer, _)) in &self.externals {
            let (tile_sizes, kept) = external_tile(&view.shape, sizes, keep);
            let lead = sizes.len() - view.shape.len();
            let zero = body.index(0);
            let tile_offsets: Vec<Val> = view
                .shape
                .iter()
                .enumerate()
                .map(|(i, &dim)| if dim == 1 { zero } else { offsets[i + lead] })
                .collect();
            let (source, _) =
                body.subview(*argument, view, &tile_offsets, &tile_sizes, Some(&kept));
            // The load overwrites the buffer that the previous tile's steps read: the tile loop's
            // closing wait orders it.
            let token = body.dma(source, *buffer, &[]);
            loaded.insert(*value, token);
        }
        let mut last = after;
        let operand_value = |operand: &Operand| match operand {
            Operand::Chain => accumulator.0,
            Operand::External(value) => self.externals[value].2,
        };
        let layer_location = body.location();
        for step in &self.steps {
            body.set_location(step.location);
            let mut waits = last.clone();
            for operand in &step.operands {
                if let Operand::External(value) = operand {
                    if !waits
                        .iter()
                        .any(|token| token.raw().ptr == loaded[value].raw().ptr)
                    {
                        waits.push(loaded[value]);
                    }
                }
            }
            let inputs: Vec<Val> = step.operands.iter().map(operand_value).collect();
            let target = operand_value(&step.target);
            let token = match &step.op {
                Elementwise::Unary {
                    kind,
                    bounds,
                    affine,
                } => {
                    let mut parameters = Vec::new();
                    if let Some((min, max)) = bounds {
                        parameters = vec![("min", *min), ("max", *max)];
                    }
                    if let Some((scale, shift)) = affine {
                        parameters = vec![("scale", *scale), ("shift", *shift)];
                    }
                    body.unary(*kind, inputs[0], target, &parameters, &waits)
                }
                Elementwise::Binary { kind } => {
                    body.binary(*kind, inputs[0], inputs[1], target, &waits)
                }
            };
            last = vec![token];
        }
        body.set_location(layer_location);
        last
    }
}
