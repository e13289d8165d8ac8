//! What each instance of a group computes: the sink's slice, the slices of the group's other
//! outputs, and, walking the body backwards, the box of every value the instance needs and what
//! each op reads to compute its box (GraphTurbo §3.3).

use crate::graph_view::{FunctionView, ValueId};
use crate::slicing::regions::{recomputation, share, sweep, Demand, Region};

/// The instances of one group.
#[derive(Debug)]
pub(super) struct Plan {
    /// How many instances.
    pub count: usize,
    /// Per output (the terminator's operands), the dimension it is sliced along.
    pub axes: Vec<usize>,
    /// Per instance, what it computes.
    pub instances: Vec<InstancePlan>,
}

/// What one instance computes.
#[derive(Debug)]
pub(super) struct InstancePlan {
    /// Per value: the box an op computes, or the box of a block argument the instance reads;
    /// None where the instance does not need the value.
    pub computed: Vec<Option<Region>>,
    /// Per op (by position): what computing its box takes; None for ops it does not compute.
    pub demands: Vec<Option<Demand>>,
    /// Per output, the slice the instance yields.
    pub owned: Vec<Region>,
}

/// Splits the group whose body is `body` into `count` instances along dimension `dim` of its
/// first output; an error says why it cannot be split that way.
pub(super) fn plan(body: &FunctionView, dim: usize, count: usize) -> Result<Plan, String> {
    if let Some(node) = body.ops.iter().find(|node| node.has_regions) {
        return Err(format!(
            "it holds '{}', whose regions a slice cannot take apart",
            node.name
        ));
    }
    let outputs = &body.ops.last().ok_or("the group has no body")?.operands;
    let sink = *outputs.first().ok_or("the group has no output")?;
    let sink_shape = &body.type_of(sink).shape;
    let size = *sink_shape
        .get(dim)
        .ok_or("the split dimension is out of range")?;
    if count == 0 || size % count != 0 {
        return Err(format!(
            "{count} slices do not divide dimension {dim} of size {size}"
        ));
    }
    // Where the sink's slices alone take each other output.
    let first: Vec<Vec<Option<Region>>> = (0..count)
        .map(|index| sweep(body, &[(sink, share(sink_shape, dim, index, count))]).0)
        .collect();
    let mut axes = Vec::with_capacity(outputs.len());
    for (position, &output) in outputs.iter().enumerate() {
        if output == sink {
            axes.push(dim);
            continue;
        }
        axes.push(output_axis(body, &first, position, output, count)?);
    }
    let instances = (0..count)
        .map(|index| {
            let owned: Vec<Region> = outputs
                .iter()
                .zip(&axes)
                .map(|(&output, &axis)| share(&body.type_of(output).shape, axis, index, count))
                .collect();
            let seeds: Vec<(ValueId, Region)> =
                outputs.iter().copied().zip(owned.iter().cloned()).collect();
            let (computed, demands) = sweep(body, &seeds);
            InstancePlan {
                computed,
                demands,
                owned,
            }
        })
        .collect();
    Ok(Plan {
        count,
        axes,
        instances,
    })
}

/// The dimension along which output `position` (value `output`) is sliced over `count`
/// instances, given the boxes `first` of every value for the sink's slices alone: the one
/// dimension those boxes cut, else the first the slices divide. An error when they cut several,
/// the slices do not divide it, or an instance would not compute its own slice.
fn output_axis(
    body: &FunctionView,
    first: &[Vec<Option<Region>>],
    position: usize,
    output: ValueId,
    count: usize,
) -> Result<usize, String> {
    let shape = &body.type_of(output).shape;
    let boxes: Vec<Option<&Region>> = first
        .iter()
        .map(|computed| computed[output].as_ref())
        .collect();
    let split: Vec<usize> = (0..shape.len())
        .filter(|&d| {
            boxes
                .iter()
                .any(|b| b.is_some_and(|b| b[d] != (0..shape[d])))
        })
        .collect();
    let axis = match split.as_slice() {
        [axis] => *axis,
        [] => (0..shape.len())
            .find(|&d| shape[d].is_multiple_of(count) && shape[d] >= count)
            .ok_or_else(|| {
                format!(
                    "output {position} of shape {shape:?} has no dimension the {count} slices \
                     divide"
                )
            })?,
        _ => {
            return Err(format!(
                "output {position} is cut along several dimensions {split:?}"
            ))
        }
    };
    if !shape[axis].is_multiple_of(count) {
        return Err(format!(
            "output {position}: {count} slices do not divide dimension {axis} of size {}",
            shape[axis]
        ));
    }
    let covered = boxes.iter().enumerate().all(|(index, b)| {
        b.is_none_or(|b| {
            let slice = &share(shape, axis, index, count)[axis];
            b[axis].start <= slice.start && slice.end <= b[axis].end
        })
    });
    if !covered {
        return Err(format!(
            "output {position}: an instance would not compute its own slice along dimension \
             {axis}"
        ));
    }
    Ok(axis)
}

impl Plan {
    /// Elements the instances compute beyond the group's own, as a fraction of those: halos
    /// and ops computed whole by every instance.
    pub(super) fn recomputed(&self, body: &FunctionView) -> f64 {
        recomputation(
            body,
            self.instances
                .iter()
                .map(|instance| instance.computed.as_slice()),
        )
    }
}
