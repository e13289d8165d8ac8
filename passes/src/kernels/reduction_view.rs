//! How the row emitters view a reduction: one strided view `[outer, runs..., inner]` of at most
//! [`MAX_VIEW_RANK`] dimensions. `graph-split-reductions` splits the reductions that do not fit.

/// How the lowering views a reduction of `shape` over the sorted, distinct `axes`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReductionView {
    /// The view's dimensions: `[outer, runs..., inner]`, `outer` dropped (`lead` 0) when it is 1
    /// and the view would otherwise exceed four dimensions, `inner` dropped when it is 1 (unless
    /// there is a single run).
    pub dims: Vec<usize>,
    /// The runs between the first and the last reduced axis: (merged size, reduced).
    pub runs: Vec<(usize, bool)>,
    /// 1 when `dims[0]` is `outer`, 0 when it was dropped.
    pub lead: usize,
    /// The product of the dimensions before the first reduced axis.
    pub outer: usize,
}

/// The most dimensions a DMA view has (the runtime's limit).
pub(crate) const MAX_VIEW_RANK: usize = 4;

/// The view of a reduction of `shape` over the sorted, distinct `axes`.
pub(crate) fn reduction_view(shape: &[usize], axes: &[usize]) -> ReductionView {
    let (first, last) = (axes[0], axes[axes.len() - 1]);
    let outer: usize = shape[..first].iter().product();
    let inner: usize = shape[last + 1..].iter().product();
    let mut runs: Vec<(usize, bool)> = Vec::new();
    for (d, &size) in shape.iter().enumerate().take(last + 1).skip(first) {
        let reduced = axes.contains(&d);
        match runs.last_mut() {
            Some((merged, kind)) if *kind == reduced => *merged *= size,
            _ => runs.push((size, reduced)),
        }
    }
    let mut dims = vec![outer];
    dims.extend(runs.iter().map(|&(size, _)| size));
    if inner != 1 || runs.len() == 1 {
        dims.push(inner);
    }
    let lead = usize::from(dims.len() <= MAX_VIEW_RANK || outer != 1);
    if lead == 0 {
        dims.remove(0);
    }
    ReductionView {
        dims,
        runs,
        lead,
        outer,
    }
}
