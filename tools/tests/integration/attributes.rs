//! The typed C API of the Turbine dialects (`turbine_dialects::attributes`): every Rust mirror of
//! an enumeration names the cases the dialect declares, and attributes survive a round trip
//! through MLIR unchanged.

use melior::ir::{Location, Type};
use turbine_dialects::attributes::{
    dsa::{self, BinaryKind, MemorySpace, PoolKind, ReduceKind, Target, UnaryKind},
    graph::{
        Activation, ComparePredicate, NearestRounding, PadMode, ResizeCoordinates, ResizeMode,
        ScatterReduction,
    },
    instance::{Scope, Split},
    EnumAttribute,
};

fn check_mirror<E: EnumAttribute + std::fmt::Debug + PartialEq>(context: &melior::Context) {
    for (position, &case) in E::ALL.iter().enumerate() {
        assert_eq!(
            case.value() as usize,
            position,
            "{case:?}: cases are listed in value order"
        );
        assert_eq!(
            case.case_name(),
            case.keyword(),
            "{case:?}: Rust's keyword differs from the dialect's"
        );
        let attribute = case.attribute(context);
        assert_eq!(
            E::from_attribute(attribute),
            Some(case),
            "{case:?} does not round-trip"
        );
    }
}

#[test]
fn enumeration_mirrors_match_the_dialects() {
    let context = turbine_dialects::create_context();
    check_mirror::<MemorySpace>(&context);
    check_mirror::<BinaryKind>(&context);
    check_mirror::<UnaryKind>(&context);
    check_mirror::<PoolKind>(&context);
    check_mirror::<ReduceKind>(&context);
    check_mirror::<dsa::ComparePredicate>(&context);
    check_mirror::<Scope>(&context);
    check_mirror::<Activation>(&context);
    check_mirror::<PadMode>(&context);
    check_mirror::<ResizeMode>(&context);
    check_mirror::<ResizeCoordinates>(&context);
    check_mirror::<NearestRounding>(&context);
    check_mirror::<ComparePredicate>(&context);
    check_mirror::<ScatterReduction>(&context);
    // An attribute of another enumeration is not mistaken for this one.
    assert_eq!(
        UnaryKind::from_attribute(BinaryKind::Max.attribute(&context)),
        None
    );
    assert_eq!(
        PoolKind::from_attribute(ReduceKind::Max.attribute(&context)),
        None
    );
}

fn stcp920() -> Target {
    Target {
        name: "stcp920".into(),
        clusters: 4,
        cores_per_cluster: 8,
        matrix_engines_per_core: 1,
        vector_engines_per_core: 1,
        vector_cores_per_core: 1,
        lb_bytes: 65536,
        gb_bytes: 8 << 20,
        ddr_bytes: 16 << 30,
        clock_mhz: 1000.0,
        ddr_gb_bandwidth: 64.0,
        gb_lb_bandwidth: 128.5,
        lb_lb_bandwidth: 64.0,
        matrix_flops: 512.0,
        dma_setup: 100,
        compute_setup: 16,
        barrier: 50,
        kernel_launch: 2000,
    }
}

#[test]
fn target_attribute_round_trips_every_field() {
    let context = turbine_dialects::create_context();
    let target = stcp920();
    let attribute = target
        .attribute(Location::unknown(&context))
        .expect("a valid target");
    assert_eq!(Target::from_attribute(attribute), Some(target));
    assert_eq!(stcp920().core_count(), 32);
    // Not a target: None, never a misreading.
    assert_eq!(
        Target::from_attribute(MemorySpace::Lb.attribute(&context)),
        None
    );
}

#[test]
fn target_attribute_rejects_out_of_range_figures() {
    let context = turbine_dialects::create_context();
    context.attach_diagnostic_handler(|_| true);
    let mut target = stcp920();
    target.gb_lb_bandwidth = 0.0;
    assert!(target.attribute(Location::unknown(&context)).is_none());
    let mut target = stcp920();
    target.cores_per_cluster = 0;
    assert!(target.attribute(Location::unknown(&context)).is_none());
}

#[test]
fn split_attribute_round_trips_and_is_verified() {
    let context = turbine_dialects::create_context();
    context.attach_diagnostic_handler(|_| true);
    let split = Split {
        dim: 2,
        factor: 4,
        ops: 3,
    };
    let attribute = split
        .attribute(Location::unknown(&context))
        .expect("a valid split");
    assert_eq!(Split::from_attribute(attribute), Some(split));
    assert!(Split {
        dim: 0,
        factor: 0,
        ops: 1
    }
    .attribute(Location::unknown(&context))
    .is_none());
}

#[test]
fn token_and_memory_space_of_types() {
    let context = turbine_dialects::create_context();
    let token = dsa::token_type(&context);
    assert!(dsa::is_token(token));
    assert!(!dsa::is_token(Type::index(&context)));
    let buffer =
        Type::parse(&context, "memref<4x4xf32, #dsa.memory_space<gb>>").expect("test input parses");
    assert_eq!(MemorySpace::of_type(buffer), Some(MemorySpace::Gb));
    assert_eq!(
        MemorySpace::of_type(Type::parse(&context, "memref<4xf32>").expect("parses")),
        None
    );
}
