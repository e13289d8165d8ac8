//! The ODS enumerations and attributes that have a Rust mirror in `src/attributes`, which the
//! generated accessors and builders read and make.

/// ODS enumerations with a Rust mirror in `src/attributes` (C++ namespace and class, Rust path).
/// An enumeration missing here reads and builds as a raw attribute, with a build warning.
pub(super) const MIRRORED_ENUMS: &[(&str, &str)] = &[
    (
        "::turbine::graph::Activation",
        "crate::attributes::graph::Activation",
    ),
    (
        "::turbine::graph::PadMode",
        "crate::attributes::graph::PadMode",
    ),
    (
        "::turbine::graph::ResizeMode",
        "crate::attributes::graph::ResizeMode",
    ),
    (
        "::turbine::graph::ResizeCoordinates",
        "crate::attributes::graph::ResizeCoordinates",
    ),
    (
        "::turbine::graph::NearestRounding",
        "crate::attributes::graph::NearestRounding",
    ),
    (
        "::turbine::graph::ComparePredicate",
        "crate::attributes::graph::ComparePredicate",
    ),
    (
        "::turbine::graph::ScatterReduction",
        "crate::attributes::graph::ScatterReduction",
    ),
    (
        "::turbine::instance::Scope",
        "crate::attributes::instance::Scope",
    ),
    (
        "::turbine::dsa::MemorySpace",
        "crate::attributes::dsa::MemorySpace",
    ),
    (
        "::turbine::dsa::BinaryKind",
        "crate::attributes::dsa::BinaryKind",
    ),
    (
        "::turbine::dsa::UnaryKind",
        "crate::attributes::dsa::UnaryKind",
    ),
    (
        "::turbine::dsa::PoolKind",
        "crate::attributes::dsa::PoolKind",
    ),
    (
        "::turbine::dsa::ComparePredicate",
        "crate::attributes::dsa::ComparePredicate",
    ),
    (
        "::turbine::dsa::ReduceKind",
        "crate::attributes::dsa::ReduceKind",
    ),
];

/// ODS attribute definitions with a Rust mirror (C++ class, Rust path). The mirror has
/// `from_attribute(Attribute) -> Option<Self>` and
/// `attribute(&self, Location) -> Option<Attribute>`.
pub(super) const MIRRORED_ATTRIBUTES: &[(&str, &str)] = &[
    (
        "::turbine::instance::SplitAttr",
        "crate::attributes::instance::Split",
    ),
    (
        "::turbine::dsa::TargetAttr",
        "crate::attributes::dsa::Target",
    ),
];
