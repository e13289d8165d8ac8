//! `hw-group` never changes the numbers: random networks and the built-in ResNet-18, interpreted
//! before and after grouping, give bit-identical results (the groups compute the same ops on the
//! same values, only nested in `instance.group` regions), and the grouped IR verifies.

use melior::ir::{operation::OperationLike, Module};
use turbine_interpreter::{interpret, Program, Tensor, Weights};
use turbine_tools::driver;

/// Interprets `source` before and after `pipeline`; returns the number of groups made.
fn grouped_equals_ungrouped(source: &str, weights: &Weights, pipeline: &str) -> usize {
    let context = turbine_dialects::create_context();
    let mut module = Module::parse(&context, source).unwrap_or_else(|| panic!("does not parse:\n{source}"));
    // SAFETY: the module is verified and outlives the programs read from it.
    let before = unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
    let inputs: Vec<Tensor> = before
        .body
        .arguments
        .iter()
        .enumerate()
        .map(|(index, (_, r#type))| {
            let count: usize = r#type.shape.iter().product();
            Tensor::f32(r#type.shape.clone(), (0..count).map(|i| ((i * 7919 + index * 104729) % 2001) as f32 / 1000.0 - 1.0).collect())
        })
        .collect();
    let expected = interpret(&before, inputs.clone(), weights).unwrap();
    driver::run_pipeline(&context, &mut module, pipeline).unwrap_or_else(|error| panic!("{error}\n{source}"));
    assert!(module.as_operation().verify(), "the grouped module does not verify");
    let text = module.as_operation().to_string();
    let groups = text.matches("instance.group").count();
    // SAFETY: as above.
    let after = unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
    let actual = interpret(&after, inputs, weights).unwrap();
    assert_eq!(actual, expected, "grouping changed the results of\n{source}\ngrouped:\n{text}");
    groups
}

#[test]
fn grouping_random_networks_changes_no_number() {
    let mut merged_somewhere = false;
    for seed in 0..40 {
        let (source, weights) = crate::layerwise::random_cnn(seed);
        let ops = source.matches(" = graph.").count() - source.matches("graph.weight").count();
        for target in ["mini", "stcp920"] {
            let groups = grouped_equals_ungrouped(&source, &weights, &format!("builtin.module(hw-group{{target={target}}})"));
            assert!(groups >= 1 && groups <= ops, "{groups} groups for {ops} ops");
            merged_somewhere |= groups < ops;
        }
    }
    assert!(merged_somewhere, "no random network had two ops grouped together");
}

#[test]
fn grouping_resnet18_changes_no_number() {
    let model = turbine_tools::models::builtin("resnet18", 1).unwrap();
    let groups = grouped_equals_ungrouped(&model.mlir, &model.weights, "builtin.module(hw-group{target=stcp920})");
    assert!(groups < 10, "ResNet-18 made {groups} groups");
}
