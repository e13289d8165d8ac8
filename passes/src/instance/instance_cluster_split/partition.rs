//! Whether a function separates into equal, independent shares, one per cluster, when its first
//! result is cut along one dimension: region inference from each cluster's share of the results
//! back to the arguments ([`crate::slicing::regions::sweep`]) must give every value either one
//! share along one dimension or the whole tensor, each op the same program on every cluster (the
//! same attributes, the same relative boxes), and no op that reads the data computed whole by
//! every cluster. A halo (a window across the cut) or a reduction across it fails: the clusters
//! would need each other's data or each its own program.

use crate::graph_view::{FunctionView, ValueId};
use crate::slicing::regions::{
    boxed, full, recomputation, share, share_axis, share_axis_of_part, sizes, sweep, Demand, Region,
};

/// The shares of a function over `count` clusters.
#[derive(Debug)]
pub(super) struct Partition {
    pub count: usize,
    /// Per function argument, the dimension cut into shares, None when read whole.
    pub input_dims: Vec<Option<usize>>,
    /// Per returned value, the dimension cut into shares, None when computed whole alike.
    pub result_dims: Vec<Option<usize>>,
    /// Cluster 0's box of every value (None: not needed).
    pub computed: Vec<Option<Region>>,
    /// Cluster 0's demand of every op (None: not computed).
    pub demands: Vec<Option<Demand>>,
}

/// Why a cut does not separate the function, for the `explain` remark and the choice.
#[derive(Debug)]
pub(super) struct Refusal {
    pub reason: String,
    /// Elements the clusters would compute beyond the function's own, as a fraction of those.
    pub recomputed: f64,
}

/// One cluster's region inference: the box of every value (None: not needed) and the demand
/// of every op (None: not computed).
type Sweep = (Vec<Option<Region>>, Vec<Option<Demand>>);

/// Cuts the function's results into `count` shares, the first along `dim`.
pub(super) fn partition(
    view: &FunctionView,
    dim: usize,
    count: usize,
) -> Result<Partition, Refusal> {
    let refuse = |reason: String, recomputed: f64| Err(Refusal { reason, recomputed });
    if let Some(node) = view.ops.iter().find(|node| node.has_regions) {
        return refuse(
            format!("'{}' has regions a share cannot take apart", node.name),
            0.0,
        );
    }
    let returned = view.returned();
    let result_axes = result_axes(view, dim, count);
    let mut sweeps = cluster_sweeps(view, &result_axes, count);
    widen_partial_arguments(view, &mut sweeps, count);
    let recomputed = recomputation(view, sweeps.iter().map(|(computed, _)| computed.as_slice()));
    let axis_of = share_axes(view, &sweeps, count, recomputed)?;
    if let Err(reason) = whole_data(view, &sweeps, &axis_of) {
        return refuse(reason, recomputed);
    }
    if let Err(reason) = one_program(view, &sweeps) {
        return refuse(reason, recomputed);
    }
    let input_dims = view
        .arguments
        .iter()
        .map(|(value, _)| axis_of[*value].flatten())
        .collect();
    let result_dims = returned
        .iter()
        .map(|&value| axis_of[value].flatten())
        .collect();
    let (computed, demands) = sweeps.into_iter().next().expect("at least one cluster");
    Ok(Partition {
        count,
        input_dims,
        result_dims,
        computed,
        demands,
    })
}

/// Per returned value, the dimension its shares cut: `dim` for the first result; for the
/// others, where the first result's shares take them, else the first dimension the shares
/// divide (None when none does).
fn result_axes(view: &FunctionView, dim: usize, count: usize) -> Vec<Option<usize>> {
    let returned = view.returned();
    let first = returned[0];
    let reached = sweep(
        view,
        &[(first, share(&view.type_of(first).shape, dim, 0, count))],
    )
    .0;
    let mut result_axes = Vec::with_capacity(returned.len());
    for &value in returned {
        let shape = &view.type_of(value).shape;
        let axis = if value == first {
            Some(dim)
        } else {
            match reached[value]
                .as_ref()
                .and_then(|region| share_axis(region, shape, 0, count))
            {
                Some(Some(axis)) => Some(axis),
                _ => (0..shape.len()).find(|&d| shape[d].is_multiple_of(count)),
            }
        };
        result_axes.push(axis);
    }
    result_axes
}

/// Region inference for every cluster, in cluster order, from its share of each result along
/// `result_axes` (the whole result where None).
fn cluster_sweeps(view: &FunctionView, result_axes: &[Option<usize>], count: usize) -> Vec<Sweep> {
    let returned = view.returned();
    (0..count)
        .map(|index| {
            let seeds: Vec<(ValueId, Region)> = returned
                .iter()
                .zip(result_axes)
                .map(|(&value, axis)| {
                    let shape = &view.type_of(value).shape;
                    (
                        value,
                        axis.map_or_else(|| full(shape), |axis| share(shape, axis, index, count)),
                    )
                })
                .collect();
            sweep(view, &seeds)
        })
        .collect()
}

/// Widens, in every cluster's sweep, the box of each argument that is not one share: an
/// argument read in part (the rows a strided window never reaches) is read whole along the
/// dimensions the cut leaves alone, as the first share holding the part, else whole; what the
/// ops then slice away costs nothing to pass.
fn widen_partial_arguments(view: &FunctionView, sweeps: &mut [Sweep], count: usize) {
    for (value, r#type) in &view.arguments {
        let shape = &r#type.shape;
        for (index, (computed, _)) in sweeps.iter_mut().enumerate() {
            let Some(region) = &computed[*value] else {
                continue;
            };
            if share_axis(region, shape, index, count).is_some() {
                continue;
            }
            let holds = |outer: &Region| {
                outer
                    .iter()
                    .zip(region)
                    .all(|(o, r)| o.start <= r.start && r.end <= o.end)
            };
            let widened = (0..shape.len())
                .filter(|&axis| shape[axis] % count == 0)
                .map(|axis| share(shape, axis, index, count))
                .find(|candidate| holds(candidate))
                .unwrap_or_else(|| full(shape));
            computed[*value] = Some(widened);
        }
    }
}

/// Checks that every value is one share along one dimension on every cluster, or whole on
/// every cluster. A value the function computes in part (the rows of a class token that a later
/// slice alone reads) may hold the same part of the other dimensions on every cluster: each
/// cluster computes that part of its share, and no cluster needs another's. Returns per value
/// `Some(Some(axis))` (shared along `axis`), `Some(None)` (whole) or None (not needed), or the
/// refusal naming the first value that is neither.
fn share_axes(
    view: &FunctionView,
    sweeps: &[Sweep],
    count: usize,
    recomputed: f64,
) -> Result<Vec<Option<Option<usize>>>, Refusal> {
    let mut axis_of: Vec<Option<Option<usize>>> = vec![None; view.value_count];
    let mut described = |value: ValueId, in_part: bool| -> Result<(), String> {
        let shape = &view.type_of(value).shape;
        let regions: Option<Vec<&Region>> = sweeps
            .iter()
            .map(|(computed, _)| computed[value].as_ref())
            .collect();
        let Some(regions) = regions else {
            return Ok(());
        };
        let axis = shared_axis(&regions, shape, count)
            .or_else(|| in_part.then(|| part_axis(&regions, shape, count)).flatten())
            .ok_or_else(|| {
                let region = regions
                    .iter()
                    .enumerate()
                    .find(|(index, region)| share_axis(region, shape, *index, count).is_none())
                    .map_or(regions[0], |(_, region)| region);
                format!(
                    "a cluster would need the box {} of a tensor of shape {shape:?}",
                    boxed(region)
                )
            })?;
        axis_of[value] = Some(axis);
        Ok(())
    };
    for (value, _) in &view.arguments {
        described(*value, false).map_err(|reason| Refusal {
            reason: format!("argument: {reason}"),
            recomputed,
        })?;
    }
    let returned = view.returned();
    for node in &view.ops {
        for (value, _) in &node.results {
            described(*value, !returned.contains(value)).map_err(|reason| Refusal {
                reason: format!("'{}': {reason}", node.name),
                recomputed,
            })?;
        }
    }
    Ok(axis_of)
}

/// The dimension every cluster's box of a value is its share of (`Some(None)`: every box is
/// the whole value), or None.
fn shared_axis(regions: &[&Region], shape: &[usize], count: usize) -> Option<Option<usize>> {
    let mut axis = None;
    for (index, region) in regions.iter().enumerate() {
        match share_axis(region, shape, index, count) {
            Some(found) if axis.is_none_or(|axis| axis == found) => axis = Some(found),
            _ => return None,
        }
    }
    axis
}

/// The dimension every cluster's box of a value computed in part is its share of, the boxes
/// holding the same ranges of the other dimensions, or None.
fn part_axis(regions: &[&Region], shape: &[usize], count: usize) -> Option<Option<usize>> {
    let axis = share_axis_of_part(regions[0], shape, 0, count)?;
    let same_part =
        |region: &Region| (0..shape.len()).all(|d| d == axis || region[d] == regions[0][d]);
    regions
        .iter()
        .enumerate()
        .all(|(index, region)| {
            share_axis_of_part(region, shape, index, count) == Some(axis) && same_part(region)
        })
        .then_some(Some(axis))
}

/// Checks that no cluster computes whole a value that depends on the arguments (every cluster
/// would compute it). Returns the reason naming the first such op.
fn whole_data(
    view: &FunctionView,
    sweeps: &[Sweep],
    axis_of: &[Option<Option<usize>>],
) -> Result<(), String> {
    let mut data = vec![false; view.value_count];
    for (value, _) in &view.arguments {
        data[*value] = true;
    }
    for (position, node) in view.ops.iter().enumerate() {
        let reads_data = node.operands.iter().any(|&operand| data[operand]);
        for (value, _) in &node.results {
            data[*value] = reads_data;
            if reads_data && axis_of[*value] == Some(None) && sweeps[0].1[position].is_some() {
                return Err(format!("every cluster would compute '{}' whole", node.name));
            }
        }
    }
    Ok(())
}

/// Checks that every op is one program for every cluster: the same attributes and the same
/// operand boxes relative to the values' boxes. Returns the reason naming the first op that
/// differs.
fn one_program(view: &FunctionView, sweeps: &[Sweep]) -> Result<(), String> {
    for (position, node) in view.ops.iter().enumerate() {
        let program = |computed: &[Option<Region>], demand: &Option<Demand>| {
            demand.as_ref().map(|demand| {
                let reads: Vec<(Vec<usize>, Vec<usize>)> = node
                    .operands
                    .iter()
                    .zip(&demand.operands)
                    .map(|(operand, want)| {
                        let have = computed[*operand].as_ref().expect("a read value has a box");
                        (
                            sizes(want),
                            want.iter()
                                .zip(have)
                                .map(|(w, h)| w.start - h.start)
                                .collect(),
                        )
                    })
                    .collect();
                (reads, demand.attributes.clone())
            })
        };
        let first = program(&sweeps[0].0, &sweeps[0].1[position]);
        if sweeps[1..]
            .iter()
            .any(|(computed, demands)| program(computed, &demands[position]) != first)
        {
            return Err(format!(
                "'{}' would differ from cluster to cluster",
                node.name
            ));
        }
    }
    Ok(())
}
