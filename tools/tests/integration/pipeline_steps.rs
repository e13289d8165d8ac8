//! The kernel schedules' pipelines step by step, as the numeric bisection runs them with passes
//! turned off: all their steps in order do what the registered pipeline does, and an option the
//! pipeline does not declare is refused by name.

use melior::ir::Module;
use turbine_tools::driver::{
    graph_to_dsa_pipeline, graph_to_dsa_steps, pipeline_of_steps, run_pipeline, CompileOptions,
};

const CHAIN: &str = include_str!("../../../test/Integration/Inputs/bisect-chain.mlir");

/// The chain after `pipeline`, printed.
fn lowered(pipeline: &str) -> String {
    let context = turbine_dialects::create_context();
    let mut module = Module::parse(&context, CHAIN).expect("the chain parses");
    run_pipeline(&context, &mut module, pipeline).unwrap_or_else(|error| panic!("{error}"));
    module.as_operation().to_string()
}

#[test]
fn steps_in_order_run_as_the_registered_pipeline() {
    for schedule in [
        "layerwise",
        "graphturbo",
        "graphturbo{scope=lb join-segments=false}",
    ] {
        let options = CompileOptions {
            schedule: schedule.into(),
            ..CompileOptions::default()
        };
        let steps = graph_to_dsa_steps(&options).unwrap();
        assert!(steps.iter().any(|(pass, _)| *pass == "graph-substitute"));
        let registered = lowered(&graph_to_dsa_pipeline(&options).unwrap());
        assert_eq!(
            lowered(&pipeline_of_steps(&steps)),
            registered,
            "{schedule}"
        );
    }
}

#[test]
fn an_undeclared_option_is_refused() {
    let options = CompileOptions {
        schedule: "graphturbo{scope=lb no-such-option=1}".into(),
        ..CompileOptions::default()
    };
    let error = graph_to_dsa_steps(&options).unwrap_err();
    assert!(
        error.contains("pipeline 'turbine-graphturbo' has no option 'no-such-option'"),
        "{error}"
    );
}
