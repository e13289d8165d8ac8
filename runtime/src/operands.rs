//! The operand list of an instruction: each operand's name, view and access, held inline
//! because it is listed several times for every recorded instruction.

use crate::view::View;

/// How an instruction uses an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only reads it.
    Read,
    /// Writes it (and may read it, as an accumulating matmul does).
    Write,
}

/// The most operands an instruction has (a select's).
const MAX_OPERANDS: usize = 4;

/// An instruction's operands (at most [`MAX_OPERANDS`]) with their names and accesses, held
/// inline: they are listed several times for every recorded instruction. Reads as a slice.
#[derive(Clone, Copy)]
pub struct Operands<'a> {
    len: usize,
    items: [(&'static str, &'a View, Access); MAX_OPERANDS],
}

impl<'a> Operands<'a> {
    pub(crate) fn of(items: &[(&'static str, &'a View, Access)]) -> Operands<'a> {
        let filler = items
            .first()
            .copied()
            .unwrap_or(("", &NO_VIEW, Access::Read));
        let mut all = [filler; MAX_OPERANDS];
        all[..items.len()].copy_from_slice(items);
        Operands {
            len: items.len(),
            items: all,
        }
    }
}

/// What fills the unused entries of an instruction without operands (never read).
static NO_VIEW: View = View::EMPTY;

impl<'a> std::ops::Deref for Operands<'a> {
    type Target = [(&'static str, &'a View, Access)];
    fn deref(&self) -> &Self::Target {
        &self.items[..self.len]
    }
}

impl<'a> IntoIterator for Operands<'a> {
    type Item = (&'static str, &'a View, Access);
    type IntoIter = std::iter::Take<std::array::IntoIter<Self::Item, MAX_OPERANDS>>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().take(self.len)
    }
}
