//! `graph-substitute` against the reference interpreter: every built-in rule checked at random
//! shapes (rule, matcher and rewrite together), wrong rules caught, and random networks rewritten
//! by either search engine computing what they computed before.

use crate::layerwise::{assert_close, random_cnn, random_inputs};
use melior::ir::Module;
use std::path::Path;
use turbine_interpreter::{interpret, Program};
use turbine_tools::{driver, rule_check::list_rules};

#[test]
fn every_builtin_rule_is_sound_at_random_shapes() {
    let listing = list_rules(true, &[], Some(40)).unwrap_or_else(|listing| panic!("{listing}"));
    assert!(listing.contains("verified at 41 shape sets"), "{listing}");
}

/// A rule over dimension groups is checked at several ranks and axes, negative axes included.
#[test]
fn rules_over_any_axis_are_checked_at_random_ranks_and_axes() {
    use turbine_passes::substitute::rule::RuleSet;
    let context = turbine_dialects::create_context();
    let rules = RuleSet::builtin(context.to_raw()).expect("the built-in rules load");
    let rule = rules
        .rules
        .iter()
        .find(|rule| rule.name == "gather_constant_index")
        .expect("a built-in rule");
    let check = turbine_tools::rule_check::check_rule(&context, rule, 40, 0).unwrap();
    let ranks: std::collections::BTreeSet<usize> =
        check.shapes.iter().map(|shapes| shapes[0].len()).collect();
    let axes: std::collections::BTreeSet<i64> = check
        .integers
        .iter()
        .filter_map(|integers| integers.get("k").copied())
        .collect();
    assert!(ranks.len() >= 4, "ranks {ranks:?}");
    assert!(axes.iter().any(|&axis| axis < 0), "axes {axes:?}");
    assert!(
        axes.iter().filter(|&&axis| axis >= 0).count() >= 3,
        "axes {axes:?}"
    );
}

#[test]
fn wrong_rules_are_caught_with_the_shapes_that_show_it() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test/Dialect/Graph/Inputs/unsound-rules.mlir");
    let listing = list_rules(false, &[&file], Some(10)).expect_err("the rules are wrong");
    assert!(
        listing.contains("rule 'sigmoid_is_tanh' at its example shapes [[2, 3]]: result 0 differs"),
        "{listing}"
    );
    // A transpose is the identity on its 1x1 example: only random shapes show the rule is wrong.
    assert!(
        listing.contains("rule 'transpose_is_identity' at shapes"),
        "{listing}"
    );
    // A gather over any axis taken for axis 0 holds at its example, a vector; only random ranks
    // and axes show it wrong.
    assert!(
        listing.contains("rule 'gather_any_axis_as_axis_0' at shapes"),
        "{listing}"
    );
    assert!(listing.contains("3 unsound rules"), "{listing}");
}

#[test]
fn random_networks_compute_the_same_after_substitution() {
    let pipelines = [
        "builtin.module(func.func(graph-substitute{search=all}))",
        "builtin.module(func.func(graph-substitute{target=stcp920 budget=30}))",
        // Parts of four ops, each searched as a function of its own and spliced back.
        "builtin.module(func.func(graph-substitute{target=stcp920 budget=30 \
         split-threshold=4}))",
        "builtin.module(func.func(graph-substitute{target=stcp920 alpha=1.2 budget=30 \
         cost=flops}))",
        "builtin.module(func.func(graph-substitute{target=stcp920 search=egraph}))",
        "builtin.module(func.func(graph-substitute{search=egraph cost=flops}))",
    ];
    let mut rewritten = 0;
    for seed in 0..24 {
        let (source, weights) = random_cnn(seed);
        let context = turbine_dialects::create_context();
        let before = Module::parse(&context, &source).expect("random networks parse");
        // SAFETY: the module is verified and outlives the program.
        let program =
            unsafe { Program::from_module(before.as_operation().to_raw(), None) }.unwrap();
        let inputs = random_inputs(&program, seed);
        let expected = interpret(&program, inputs.clone(), &weights).unwrap();
        for pipeline in pipelines {
            let mut module = Module::parse(&context, &source).unwrap();
            driver::run_pipeline(&context, &mut module, pipeline)
                .unwrap_or_else(|error| panic!("{pipeline}: {error}\n{source}"));
            let text = module.as_operation().to_string();
            if text != before.as_operation().to_string() {
                rewritten += 1;
            }
            // SAFETY: as above.
            let program =
                unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
            let actual = interpret(&program, inputs.clone(), &weights).unwrap();
            assert_close(
                &actual,
                &expected,
                &format!("seed {seed}, {pipeline}\n{text}"),
            );
        }
    }
    assert!(
        rewritten > 10,
        "the rules rewrote only {rewritten} of the networks"
    );
}
