//! Buffers of the host function: held once per cluster (one host value stands for every
//! cluster's copy, [`Replicas`], and the kernel picks its cluster's), and windows of them.

use crate::graph_view::ElementType;
use crate::ir::Val;
use crate::kernels::emit::{Body, Replicas, Space, Tensor, View};

/// Each cluster's share of `tensor` along `dim` (-1: every cluster reads it whole), as one host
/// value standing for the shares ([`Replicas`]).
pub(super) fn shares(
    host: &mut Body,
    replicas: &Replicas,
    tensor: &Tensor,
    dim: i64,
    count: usize,
) -> Tensor {
    if dim < 0 || count == 1 {
        return tensor.clone();
    }
    let dim = dim as usize;
    let mut sizes = tensor.view.shape.clone();
    sizes[dim] /= count;
    let views: Vec<(Val, View)> = (0..count)
        .map(|cluster| {
            let offsets: Vec<Val> = (0..sizes.len())
                .map(|d| host.index(if d == dim { cluster * sizes[dim] } else { 0 }))
                .collect();
            host.subview(tensor.host, &tensor.view, &offsets, &sizes, None)
        })
        .collect();
    let view = views[0].1.clone();
    replicas.borrow_mut().insert(
        views[0].0.raw().ptr as usize,
        views[1..].iter().map(|(value, _)| *value).collect(),
    );
    Tensor {
        host: views[0].0,
        view,
    }
}

/// One buffer of `shape` and `element`s per cluster, in its GB or in DDR.
pub(super) fn allocate(
    host: &mut Body,
    replicas: &Replicas,
    (shape, element): (&[usize], ElementType),
    space: Space,
    count: usize,
) -> Tensor {
    let view = View::contiguous_of(shape, space, element);
    let buffers: Vec<Val> = (0..count)
        .map(|cluster| {
            if space == Space::Gb {
                host.alloc_on(&view, cluster)
            } else {
                host.alloc(&view)
            }
        })
        .collect();
    if count > 1 {
        replicas
            .borrow_mut()
            .insert(buffers[0].raw().ptr as usize, buffers[1..].to_vec());
    }
    Tensor {
        host: buffers[0],
        view,
    }
}

/// Frees every cluster's buffer of `tensor`.
pub(super) fn free(host: &mut Body, replicas: &Replicas, tensor: &Tensor) {
    let others = replicas
        .borrow()
        .get(&(tensor.host.raw().ptr as usize))
        .cloned()
        .unwrap_or_default();
    host.dealloc(tensor.host);
    for other in others {
        host.dealloc(other);
    }
}

/// The window of `tensor` of `size` along `dim` from `offset`.
pub(super) fn window(
    host: &mut Body,
    tensor: &Tensor,
    dim: usize,
    offset: usize,
    size: usize,
) -> Tensor {
    let mut sizes = tensor.view.shape.clone();
    sizes[dim] = size;
    let offsets: Vec<Val> = (0..sizes.len())
        .map(|d| host.index(if d == dim { offset } else { 0 }))
        .collect();
    let (value, view) = host.subview(tensor.host, &tensor.view, &offsets, &sizes, None);
    Tensor { host: value, view }
}
