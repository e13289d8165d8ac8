//! The values of a variadic operand ([`Operands`]) or result ([`Results`]), which the views'
//! accessors return.

use super::support;
use melior::ir::{operation::OperationResult, OperationRef, Value};
use std::ops::Range;

/// The values of a variadic operand.
#[derive(Clone)]
pub struct Operands<'c, 'a> {
    pub(super) op: OperationRef<'c, 'a>,
    pub(super) range: Range<usize>,
}

impl<'c, 'a> Iterator for Operands<'c, 'a> {
    type Item = Value<'c, 'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.range
            .next()
            .map(|index| support::operand(self.op, index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Operands<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range
            .next_back()
            .map(|index| support::operand(self.op, index))
    }
}

impl ExactSizeIterator for Operands<'_, '_> {}

/// The values of a variadic result.
#[derive(Clone)]
pub struct Results<'c, 'a> {
    pub(super) op: OperationRef<'c, 'a>,
    pub(super) range: Range<usize>,
}

impl<'c, 'a> Iterator for Results<'c, 'a> {
    type Item = OperationResult<'c, 'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.range
            .next()
            .map(|index| support::result(self.op, index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Results<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range
            .next_back()
            .map(|index| support::result(self.op, index))
    }
}

impl ExactSizeIterator for Results<'_, '_> {}
