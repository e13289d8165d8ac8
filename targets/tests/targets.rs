//! Loading, validating and querying target descriptions.

use turbine_targets::{builtin_names, DType, MemLevel, Target, TargetError, UnitKind};

/// The mini target's text with one line replaced, for error tests.
fn mini_with(from: &str, to: &str) -> String {
    let text = include_str!("../descriptions/mini.toml");
    assert!(text.contains(from), "test bug: '{from}' not in mini.toml");
    text.replacen(from, to, 1)
}

fn invalid_field(text: &str) -> String {
    match Target::from_toml_str(text, "test") {
        Err(TargetError::Invalid { field, .. }) => field,
        other => panic!("expected an Invalid error, got {other:?}"),
    }
}

#[test]
fn every_builtin_loads_and_validates() {
    let names = builtin_names();
    assert_eq!(names, ["stcp920", "mini", "solo"]);
    for name in names {
        let t = Target::builtin(name).unwrap();
        assert_eq!(t.name, name);
        t.validate().unwrap();
    }
}

#[test]
fn stcp920_has_the_papers_numbers() {
    let t = Target::builtin("stcp920").unwrap();
    assert_eq!(t.device.clusters, 4);
    assert_eq!(t.cluster.cores, 8);
    assert_eq!(
        t.core.units,
        [
            UnitKind::VectorCore,
            UnitKind::VectorEngine,
            UnitKind::MatrixEngine
        ]
    );
    assert_eq!(t.core.lb_bytes, 64 * 1024);
    assert_eq!(t.cluster.gb_bytes, 8 * 1024 * 1024);
    assert_eq!(t.total_cores(), 32);
    assert_eq!(t.clock_hz(), 1e9);
    assert_eq!(t.capacity(MemLevel::Gb), 8 * 1024 * 1024);
    assert_eq!(t.units_of(UnitKind::MatrixEngine), 1);
    assert_eq!(
        t.throughput(UnitKind::VectorEngine, DType::F16),
        Some(128.0)
    );
}

#[test]
fn bandwidth_paths_are_symmetric() {
    let t = Target::builtin("mini").unwrap();
    for a in MemLevel::ALL {
        for b in MemLevel::ALL {
            assert_eq!(t.bandwidth.between(a, b), t.bandwidth.between(b, a));
        }
    }
    assert_eq!(t.bandwidth.between(MemLevel::Ddr, MemLevel::Gb), 8.0);
    assert_eq!(
        turbine_targets::Bandwidth::field_name(MemLevel::Lb, MemLevel::Gb),
        "gb_lb"
    );
}

#[test]
fn unknown_builtin_lists_the_known_ones() {
    let err = Target::builtin("stcp921").unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("stcp921") && msg.contains("stcp920, mini, solo"),
        "{msg}"
    );
    assert!(matches!(
        Target::load("nosuch"),
        Err(TargetError::UnknownBuiltin { .. })
    ));
}

#[test]
fn load_reads_files_and_prefers_builtins() {
    let dir = std::env::temp_dir().join(format!("turbine-targets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("custom.toml");
    std::fs::write(&path, mini_with("name = \"mini\"", "name = \"custom\"")).unwrap();
    let t = Target::load(path.to_str().unwrap()).unwrap();
    assert_eq!(t.name, "custom");
    assert_eq!(Target::load("mini").unwrap().name, "mini");
    let missing = dir.join("missing.toml");
    let err = Target::load(missing.to_str().unwrap()).unwrap_err();
    assert!(matches!(err, TargetError::Io { .. }), "{err}");
    assert!(err.to_string().contains("missing.toml"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unknown_and_missing_fields_are_parse_errors_naming_the_key() {
    let typo = mini_with("lb_bytes = 16_384", "lb_byte = 16_384");
    let msg = Target::from_toml_str(&typo, "typo.toml")
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("typo.toml") && msg.contains("lb_byte"),
        "{msg}"
    );

    let bad_kind = mini_with("[throughput.vector_core]", "[throughput.vector_cor]");
    let msg = Target::from_toml_str(&bad_kind, "t")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("vector_cor"), "{msg}");

    let wrong_type = mini_with("clusters = 2", "clusters = \"two\"");
    let msg = Target::from_toml_str(&wrong_type, "t")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("clusters"), "{msg}");
}

#[test]
fn out_of_range_values_name_the_field() {
    let cases = [
        ("gb_lb = 16.0", "gb_lb = 0.0", "bandwidth.gb_lb"),
        ("ddr_gb = 8.0", "ddr_gb = nan", "bandwidth.ddr_gb"),
        ("clusters = 2", "clusters = 0", "device.clusters"),
        ("cores = 2 ", "cores = 0 ", "cluster.cores"),
        ("cores = 2 ", "cores = 70000 ", "cluster.cores"),
        ("dma_channels = 2", "dma_channels = 0", "core.dma_channels"),
        ("call_depth = 1_024", "call_depth = 0", "core.call_depth"),
        ("lb_bytes = 16_384", "lb_bytes = 16_385", "core.lb_bytes"),
        ("clock_mhz = 1000.0", "clock_mhz = -1.0", "clock_mhz"),
        (
            "special_function = 4.0",
            "special_function = 0.5",
            "cost.special_function",
        ),
        (
            "[throughput.vector_core]\nf32 = 4.0",
            "",
            "throughput.vector_core",
        ),
        (
            "[throughput.vector_core]\nf32 = 4.0",
            "[throughput.vector_core]\nf16 = 4.0",
            "throughput.vector_core.f32",
        ),
        (
            "[throughput.vector_core]\nf32 = 4.0",
            "[throughput.vector_core]\nf32 = 4.0\ni8 = -2.0",
            "throughput.vector_core.i8",
        ),
        (
            "units = [\"vector_core\", \"vector_engine\", \"matrix_engine\"]",
            "units = [\"vector_engine\", \"matrix_engine\"]",
            "throughput.vector_core",
        ),
        (
            "units = [\"vector_core\", \"vector_engine\", \"matrix_engine\"]",
            "units = []",
            "core.units",
        ),
        ("name = \"mini\"", "name = \"\"", "name"),
        // Figures the cycle counter or the compiler's target attribute cannot hold.
        ("gb_lb = 16.0", "gb_lb = 1e-30", "bandwidth.gb_lb"),
        ("gb_lb = 16.0", "gb_lb = 1e300", "bandwidth.gb_lb"),
        ("clock_mhz = 1000.0", "clock_mhz = 1e-9", "clock_mhz"),
        (
            "kernel_launch = 100",
            "kernel_launch = 4611686018427387904",
            "latency.kernel_launch",
        ),
        (
            "readback = 250",
            "readback = 4611686018427387904",
            "latency.readback",
        ),
        ("branch = 10", "branch = 1099511627777", "latency.branch"),
    ];
    for (from, to, field) in cases {
        assert_eq!(
            invalid_field(&mini_with(from, to)),
            field,
            "replacing {from:?}"
        );
    }
    let msg = Target::from_toml_str(&mini_with("gb_lb = 16.0", "gb_lb = 0.0"), "t")
        .unwrap_err()
        .to_string();
    assert_eq!(
        msg,
        "target 'mini': field `bandwidth.gb_lb` must be a number from 1e-3 to 1e12, got 0.0"
    );
}

#[test]
fn descriptions_round_trip_through_toml() {
    for name in builtin_names() {
        let t = Target::builtin(name).unwrap();
        let again = Target::from_toml_str(&t.to_toml_string(), "round-trip").unwrap();
        assert_eq!(t, again);
    }
}

#[test]
fn duplicate_unit_kinds_are_allowed() {
    let text = mini_with(
        "units = [\"vector_core\", \"vector_engine\", \"matrix_engine\"]",
        "units = [\"vector_core\", \"vector_engine\", \"vector_engine\", \"matrix_engine\"]",
    );
    let t = Target::from_toml_str(&text, "t").unwrap();
    assert_eq!(t.units_of(UnitKind::VectorEngine), 2);
}
