//! Output-row tiles of a window (a conv or a pooling along H) and their classes: a tile whose
//! input window starts above the image or ends below it loads only the rows inside and gives
//! its instruction the padding it needs, so tiles fall into a few classes (first, middle, last)
//! with static shapes, selected by `scf.if` on the tile's row index.

use super::emit::{Body, Compare};
use crate::ir::Val;
use crate::kernels::emit::Logic;

/// The window geometry of a conv or pooling along H.
#[derive(Debug, Clone, Copy)]
pub struct Rows {
    /// Input height.
    pub height: usize,
    /// Output height.
    pub output: usize,
    /// Stride along H.
    pub stride: usize,
    /// Padding above.
    pub top: usize,
    /// Window extent along H with dilation: (KH - 1) * dilation + 1.
    pub extent: usize,
}

/// A class of output-row tiles sharing one static shape: the input rows they load and the
/// padding they give the instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct RowClass {
    /// Rows clipped above the image (padding above).
    pub pad_top: usize,
    /// Rows clipped below the image (padding below).
    pub pad_bottom: usize,
    /// Tile row indices `[start, end)` of this class.
    pub ranges: Vec<(usize, usize)>,
}

impl Rows {
    /// Input rows one tile of `tile` output rows reads.
    pub fn window(&self, tile: usize) -> usize {
        (tile - 1) * self.stride + self.extent
    }

    /// The classes of the `output / tile` row tiles.
    pub fn classes(&self, tile: usize) -> Vec<RowClass> {
        let mut classes: Vec<RowClass> = Vec::new();
        for r in 0..self.output / tile {
            let start = (r * tile * self.stride) as i64 - self.top as i64;
            let end = start + self.window(tile) as i64;
            let pad_top = (-start).max(0) as usize;
            let pad_bottom = (end - self.height as i64).max(0) as usize;
            match classes
                .iter_mut()
                .find(|class| class.pad_top == pad_top && class.pad_bottom == pad_bottom)
            {
                Some(class) => match class.ranges.last_mut() {
                    Some(range) if range.1 == r => range.1 = r + 1,
                    _ => class.ranges.push((r, r + 1)),
                },
                None => classes.push(RowClass {
                    pad_top,
                    pad_bottom,
                    ranges: vec![(r, r + 1)],
                }),
            }
        }
        classes
    }
}

/// Emits `scf.if` dispatch on the row tile index `row` over `classes`, calling `emit` for the
/// body of each class.
pub fn dispatch_classes(
    body: &mut Body,
    row: Val,
    classes: &[RowClass],
    emit: &mut dyn FnMut(&mut Body, &RowClass),
) {
    let Some((last, rest)) = classes.split_last() else {
        return;
    };
    let mut opened = 0;
    for class in rest {
        let mut condition: Option<Val> = None;
        for &(start, end) in &class.ranges {
            let low = body.index(start);
            let high = body.index(end);
            let above = body.compare(Compare::Uge, row, low);
            let below = body.compare(Compare::Ult, row, high);
            let inside = body.logic(Logic::And, above, below);
            condition = Some(match condition {
                None => inside,
                Some(previous) => body.logic(Logic::Or, previous, inside),
            });
        }
        body.open_if(condition.expect("a class has a range"));
        emit(body, class);
        body.reopen();
        opened += 1;
    }
    emit(body, last);
    for _ in 0..opened {
        body.close();
    }
}
