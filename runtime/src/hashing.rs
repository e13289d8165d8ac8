//! Hash maps for the runtime's integer keys (buffer ids, element buckets), looked up several
//! times for every instruction recorded, checked and executed.
//!
//! The hash is multiplicative (as rustc's FxHash): SipHash, the standard one, would be a visible
//! part of the host time, and these keys need no protection against chosen collisions: they
//! are handed out by the runtime or derived from a program's own views.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher of integers.
#[derive(Default)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.write_u64(u64::from(b)));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A hash map keyed by integers (or newtypes of one).
pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
