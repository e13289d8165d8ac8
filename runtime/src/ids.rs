//! Identifiers handed to users: cores, buffers and tokens. Buffers and tokens are opaque
//! numbers (never pointers), allocated from counters that never reuse a value, so a stale
//! handle is always detected instead of silently naming a newer object.

use serde::Serialize;
use std::fmt;

/// A core of the device: `cluster` index and `core` index within the cluster. Displayed as
/// `core (cluster,core)`, e.g. `core (0,3)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct CoreId {
    /// Cluster index, from 0.
    pub cluster: u32,
    /// Core index within the cluster, from 0.
    pub core: u32,
}

impl CoreId {
    /// The core `core` of cluster `cluster`.
    pub const fn new(cluster: u32, core: u32) -> CoreId {
        CoreId { cluster, core }
    }
}

impl fmt::Display for CoreId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "core ({},{})", self.cluster, self.core)
    }
}

/// A buffer handle. Value 0 is never allocated, so C code can use it as "none".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BufferId(pub u64);

impl fmt::Display for BufferId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "buffer {}", self.0)
    }
}

/// A completion token: returned by every recorded instruction, ready when it completes, and
/// valid only on the core that recorded it, within the launch that recorded it. Value 0 is
/// never issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Token(pub u64);

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "token {}", self.0)
    }
}
