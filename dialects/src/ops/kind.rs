//! [`OpKind`]: the kind of any op Turbine's passes recognise, whatever its dialect.

use super::{dsa, graph, instance, upstream};
use std::fmt;

/// Which op an op is, across the Turbine dialects and the upstream ops Turbine uses; read once
/// from the op's name ([`OpKind::from_name`]), then compared and matched as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// A `graph` op.
    Graph(graph::Kind),
    /// An `instance` op.
    Instance(instance::Kind),
    /// A `dsa` op.
    Dsa(dsa::Kind),
    /// An op of one of MLIR's dialects.
    Upstream(upstream::Kind),
}

impl OpKind {
    /// The kind named `name`; `None` for an op Turbine does not know.
    pub fn from_name(name: &str) -> Option<Self> {
        let (dialect, _) = name.split_once('.')?;
        match dialect {
            "graph" => graph::Kind::from_name(name).map(Self::Graph),
            "instance" => instance::Kind::from_name(name).map(Self::Instance),
            "dsa" => dsa::Kind::from_name(name).map(Self::Dsa),
            _ => upstream::Kind::from_name(name).map(Self::Upstream),
        }
    }

    /// The op's full name, such as `graph.conv2d`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Graph(kind) => kind.name(),
            Self::Instance(kind) => kind.name(),
            Self::Dsa(kind) => kind.name(),
            Self::Upstream(kind) => kind.name(),
        }
    }

    /// The graph op kind, if this is one.
    pub const fn graph(self) -> Option<graph::Kind> {
        match self {
            Self::Graph(kind) => Some(kind),
            _ => None,
        }
    }

    /// The instance op kind, if this is one.
    pub const fn instance(self) -> Option<instance::Kind> {
        match self {
            Self::Instance(kind) => Some(kind),
            _ => None,
        }
    }

    /// The dsa op kind, if this is one.
    pub const fn dsa(self) -> Option<dsa::Kind> {
        match self {
            Self::Dsa(kind) => Some(kind),
            _ => None,
        }
    }

    /// The upstream op kind, if this is one.
    pub const fn upstream(self) -> Option<upstream::Kind> {
        match self {
            Self::Upstream(kind) => Some(kind),
            _ => None,
        }
    }
}

impl From<graph::Kind> for OpKind {
    fn from(kind: graph::Kind) -> Self {
        Self::Graph(kind)
    }
}

impl From<instance::Kind> for OpKind {
    fn from(kind: instance::Kind) -> Self {
        Self::Instance(kind)
    }
}

impl From<dsa::Kind> for OpKind {
    fn from(kind: dsa::Kind) -> Self {
        Self::Dsa(kind)
    }
}

impl From<upstream::Kind> for OpKind {
    fn from(kind: upstream::Kind) -> Self {
        Self::Upstream(kind)
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.name())
    }
}
