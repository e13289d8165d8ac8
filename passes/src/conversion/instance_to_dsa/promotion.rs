//! The weights a layer of a GB instance copies to the kernel's GB arena before it reads them
//! (GraphTurbo §4.2), and the arena blocks given back once the layers holding them are done.

use super::aliases::Aliases;
use super::emission::{Emission, Previous};
use crate::graph_view::{FunctionView, ValueId};
use crate::ir::Op;
use crate::kernels::{
    emit::{Body, Space, Tensor, View},
    fusion,
};
use std::collections::BTreeMap;

/// The tensors promoted weights had before their GB copies replaced them, and the arena blocks
/// the copies took.
pub(super) type Promoted = (Vec<(ValueId, Tensor)>, Vec<(usize, usize)>);

impl Emission<'_, '_> {
    /// Copies the weights a layer reads from DDR into the kernel's GB arena, once per cluster,
    /// as a layer of its own (its cores sharing the copy), so that the layer's tiles load them
    /// over the GB bus instead of each core from DDR (GraphTurbo §4.2: weights promoted DDR → GB
    /// → LB). Puts the promoted weights' GB copies in the layer's `tensors` and returns what they
    /// replaced, and the arena blocks to give back after the layer; a weight the arena has no
    /// room for stays in DDR.
    /// The copies are taken from the arena's top
    /// ([`FirstFit::take_high`](super::plan::FirstFit::take_high)): placed by first fit, a copy
    /// prefetched at an instance's boundary would shift the next instance's activations until
    /// one no longer fits and spills to DDR.
    pub(super) fn promote<'v>(
        &mut self,
        host: &mut Body,
        tensors: &mut BTreeMap<ValueId, Tensor>,
        weights: impl Iterator<Item = &'v ValueId>,
        ahead: Option<Op>,
    ) -> Result<Promoted, String> {
        let mut pairs = Vec::new();
        let mut blocks = Vec::new();
        let Some((arena, free)) = &mut self.arena else {
            return Ok((Vec::new(), blocks));
        };
        for &weight in weights {
            if pairs.iter().any(|(value, _, _)| *value == weight) {
                continue;
            }
            let source = tensors[&weight].clone();
            // The arena holds one float type: an operand of another is read where it is.
            if source.view.element != arena.view.element {
                continue;
            }
            let elements = source.view.elements();
            let Some(offset) = free.take_high(elements) else {
                continue;
            };
            blocks.push((offset, elements));
            let at = host.index(offset);
            let (value, view) = host.reinterpret_at(
                arena.host,
                at,
                &View::contiguous_of(&source.view.shape, Space::Gb, source.view.element),
            );
            let copy = Tensor { host: value, view };
            tensors.insert(weight, copy.clone());
            pairs.push((weight, source, copy));
        }
        let replaced = pairs
            .iter()
            .map(|(weight, source, _)| (*weight, source.clone()))
            .collect();
        if !pairs.is_empty() {
            let pairs: Vec<(Tensor, Tensor)> = pairs
                .into_iter()
                .map(|(_, source, copy)| (source, copy))
                .collect();
            match ahead {
                Some(start) => self.copy_ahead(host, &pairs, start)?,
                None => self.copy(host, &pairs)?,
            }
        }
        Ok((replaced, blocks))
    }

    /// Gives back what the layer before (`previous`) held: its promoted weights' blocks and the
    /// intermediates no later op reads; and removes the mark at its start.
    pub(super) fn retire(
        &mut self,
        body: &FunctionView,
        aliases: &Aliases,
        previous: Option<Previous>,
    ) {
        let Some(previous) = previous else { return };
        if let Some((_, free)) = &mut self.arena {
            for (offset, elements) in previous.blocks {
                free.give(offset, elements);
            }
        }
        if let Some(done) = previous.done {
            self.release(body, aliases, done);
        }
        if let Some(start) = previous.start {
            // SAFETY: the mark is an unused constant, and `previous`, which held the only copy
            // kept, was taken by value and ends here.
            unsafe { start.erase() };
        }
    }

    /// Returns to the arena the intermediates no op after `done` reads (layers are separated by
    /// barriers, so the next layer may overwrite them).
    pub(super) fn release(&mut self, body: &FunctionView, aliases: &Aliases, done: usize) {
        let Some((_, free)) = &mut self.arena else {
            return;
        };
        self.placed.retain(|&(value, offset, elements)| {
            // A reshape's result is a view of its source's buffer: its readers count too.
            let views = aliases.views_of(value).iter().copied();
            let read_later = std::iter::once(value).chain(views).any(|v| {
                body.readers(v)
                    .iter()
                    .any(|&reader| fusion::read_at(&self.absorbed_into, reader) > done)
            });
            if !read_later {
                free.give(offset, elements);
            }
            read_later
        });
    }
}
