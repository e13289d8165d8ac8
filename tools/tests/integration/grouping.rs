//! `hw-group` never changes the numbers: random networks, random DAGs and the built-in ResNet-18,
//! interpreted before and after grouping, give bit-identical results (the groups compute the same
//! ops on the same values, only nested in `instance.group` regions), and the grouped IR verifies.

use crate::layerwise::{tensor_type, Random};
use melior::ir::{operation::OperationLike, Module};
use std::fmt::Write;
use turbine_interpreter::{interpret, Program, Tensor, Weights};
use turbine_tools::driver;

/// Interprets `source` before and after `pipeline`; returns the transformed module's text.
fn grouped_equals_ungrouped(source: &str, weights: &Weights, pipeline: &str) -> String {
    transformed_equal_original(source, weights, &[pipeline.to_owned()]).remove(0)
}

/// Interprets `source`, then each module `pipelines` make of it (the original interpreted once);
/// returns the transformed modules' texts.
fn transformed_equal_original(
    source: &str,
    weights: &Weights,
    pipelines: &[String],
) -> Vec<String> {
    let context = turbine_dialects::create_context();
    let module =
        Module::parse(&context, source).unwrap_or_else(|| panic!("does not parse:\n{source}"));
    // SAFETY: the module is verified and outlives the programs read from it.
    let before = unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
    let inputs: Vec<Tensor> = before
        .body
        .arguments
        .iter()
        .enumerate()
        .map(|(index, (_, r#type))| {
            let count: usize = r#type.shape.iter().product();
            Tensor::f32(
                r#type.shape.clone(),
                (0..count)
                    .map(|i| ((i * 7919 + index * 104729) % 2001) as f32 / 1000.0 - 1.0)
                    .collect(),
            )
        })
        .collect();
    let expected = interpret(&before, inputs.clone(), weights).unwrap();
    pipelines
        .iter()
        .map(|pipeline| {
            let mut module = Module::parse(&context, source).unwrap();
            driver::run_pipeline(&context, &mut module, pipeline)
                .unwrap_or_else(|error| panic!("{error}\n{source}"));
            assert!(
                module.as_operation().verify(),
                "the module after {pipeline} does not verify"
            );
            let text = module.as_operation().to_string();
            // SAFETY: as above.
            let after =
                unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
            let actual = interpret(&after, inputs.clone(), weights).unwrap();
            assert_eq!(
                actual, expected,
                "{pipeline} changed the results of\n{source}\ntransformed:\n{text}"
            );
            text
        })
        .collect()
}

/// How many `instance.group` regions a module's text holds.
fn group_count(text: &str) -> usize {
    text.matches("instance.group").count()
}

#[test]
fn grouping_random_networks_changes_no_number() {
    let mut merged_somewhere = false;
    for seed in 0..40 {
        let (source, weights) = crate::layerwise::random_cnn(seed);
        let ops = source.matches(" = graph.").count() - source.matches("graph.weight").count();
        for target in ["mini", "stcp920"] {
            let groups = group_count(&grouped_equals_ungrouped(
                &source,
                &weights,
                &format!("builtin.module(func.func(hw-group{{target={target}}}))"),
            ));
            assert!(
                groups >= 1 && groups <= ops,
                "{groups} groups for {ops} ops"
            );
            merged_somewhere |= groups < ops;
        }
    }
    assert!(
        merged_somewhere,
        "no random network had two ops grouped together"
    );
}

#[test]
fn grouping_resnet18_changes_no_number() {
    let model = turbine_tools::models::builtin("resnet18", 1).unwrap();
    let context = turbine_dialects::create_context();
    let source = turbine_tools::graph_module::build(&context, &model.module)
        .unwrap()
        .as_operation()
        .to_string();
    let groups = group_count(&grouped_equals_ungrouped(
        &source,
        &model.weights,
        "builtin.module(func.func(hw-group{target=stcp920}))",
    ));
    assert!(groups < 10, "ResNet-18 made {groups} groups");
}

/// Declares a weight with `values` in `body` and `weights`; returns its SSA name.
fn add_weight(
    body: &mut String,
    weights: &mut Weights,
    shape: &[usize],
    values: Vec<f32>,
) -> String {
    let name = format!("w{}", body.matches("graph.weight").count());
    weights.insert(&name, Tensor::f32(shape.to_vec(), values));
    writeln!(
        body,
        "  %{name} = graph.weight \"{name}\" : {}",
        tensor_type(shape)
    )
    .unwrap();
    format!("%{name}")
}

/// A random DAG of graph ops: every op reads one or two earlier values, mostly recent ones but
/// any of them at times, so chains, branches, diamonds, joins of far-apart values, multi-result
/// ops and results that escape the middle of the graph all occur. Convs, pools, padding and 2x
/// upsampling change the spatial size (both ways), convs the channel count; concat, split,
/// slice, pad and transpose move data. The function returns every value nobody reads, and
/// sometimes one that is also read.
fn random_dag(seed: u64) -> (String, Weights) {
    let mut random = Random::new(seed);
    let mut weights = Weights::empty();
    let mut body = String::new();
    let input = [
        random.pick(&[1, 2, 3]),
        random.pick(&[2, 4, 8]),
        random.pick(&[8, 12, 16]),
        random.pick(&[8, 10, 16]),
    ];
    let mut values: Vec<(String, [usize; 4])> = vec![("%x".into(), input)];
    let mut read = vec![false];
    for step in 0..5 + random.below(10) {
        // Mostly one of the last three values, sometimes any.
        let pick = |random: &mut Random, count: usize| {
            if random.below(4) == 0 {
                random.below(count)
            } else {
                count - 1 - random.below(count.min(3))
            }
        };
        let a = pick(&mut random, values.len());
        let (x, s) = values[a].clone();
        let name = format!("%v{step}");
        let mut results = vec![];
        let mut operands = vec![a];
        match random.below(10) {
            0 | 1 => {
                let kernel = random.pick(&[1, 3]).min(s[2]).min(s[3]);
                let stride = random.pick(&[1, 1, 2]);
                let pad = random.below(kernel / 2 + 1);
                let channels = random.pick(&[4, 8]);
                let filter_shape = [channels, s[1], kernel, kernel];
                let scale = 1.0 / ((s[1] * kernel * kernel) as f32).sqrt();
                let filter = add_weight(
                    &mut body,
                    &mut weights,
                    &filter_shape,
                    random.values(filter_shape.iter().product(), scale),
                );
                let out = [
                    s[0],
                    channels,
                    (s[2] + 2 * pad - kernel) / stride + 1,
                    (s[3] + 2 * pad - kernel) / stride + 1,
                ];
                let activation = random.pick(&["", ", activation = #graph<activation relu>"]);
                writeln!(
                    body,
                    "  {name} = graph.conv2d {x}, {filter} \
                     {{strides = array<i64: {stride}, {stride}>, \
                     pads = array<i64: {pad}, {pad}, {pad}, {pad}>{activation}}} : ({}, {}) -> {}",
                    tensor_type(&s),
                    tensor_type(&filter_shape),
                    tensor_type(&out)
                )
                .unwrap();
                results.push((name, out));
            }
            2 if s[2].min(s[3]) >= 2 => {
                let kernel = random.pick(&[2, 3]).min(s[2]).min(s[3]);
                let stride = random.pick(&[1, 2]);
                let pad = random.below(kernel / 2 + 1);
                let out = [
                    s[0],
                    s[1],
                    (s[2] + 2 * pad - kernel) / stride + 1,
                    (s[3] + 2 * pad - kernel) / stride + 1,
                ];
                let op = random.pick(&["max_pool2d", "avg_pool2d"]);
                writeln!(
                    body,
                    "  {name} = graph.{op} {x} \
                     {{kernel = array<i64: {kernel}, {kernel}>, \
                     strides = array<i64: {stride}, {stride}>, \
                     pads = array<i64: {pad}, {pad}, {pad}, {pad}>}} : {} -> {}",
                    tensor_type(&s),
                    tensor_type(&out)
                )
                .unwrap();
                results.push((name, out));
            }
            3 => {
                let op = random.pick(&["relu", "sigmoid", "tanh", "neg", "abs"]);
                writeln!(body, "  {name} = graph.{op} {x} : {}", tensor_type(&s)).unwrap();
                results.push((name, s));
            }
            4 | 5 => {
                // A binary op with another value of the same shape (or a per-channel weight).
                let partners: Vec<usize> =
                    (0..values.len()).filter(|&i| values[i].1 == s).collect();
                let op = random.pick(&["add", "mul", "sub", "max"]);
                if partners.len() > 1 && random.below(3) != 0 {
                    let b = random.pick(&partners);
                    operands.push(b);
                    writeln!(
                        body,
                        "  {name} = graph.{op} {x}, {} : {1}, {1} -> {1}",
                        values[b].0,
                        tensor_type(&s)
                    )
                    .unwrap();
                } else {
                    let scale = add_weight(
                        &mut body,
                        &mut weights,
                        &[s[1], 1, 1],
                        random.values(s[1], 1.0),
                    );
                    writeln!(
                        body,
                        "  {name} = graph.{op} {x}, {scale} : {}, {} -> {0}",
                        tensor_type(&s),
                        tensor_type(&[s[1], 1, 1])
                    )
                    .unwrap();
                }
                results.push((name, s));
            }
            6 => {
                let partners: Vec<usize> = (0..values.len())
                    .filter(|&i| values[i].1[0] == s[0] && values[i].1[2..] == s[2..])
                    .collect();
                let b = random.pick(&partners);
                operands.push(b);
                let t = values[b].1;
                let out = [s[0], s[1] + t[1], s[2], s[3]];
                writeln!(
                    body,
                    "  {name} = graph.concat {x}, {} {{axis = 1 : i64}} : ({}, {}) -> {}",
                    values[b].0,
                    tensor_type(&s),
                    tensor_type(&t),
                    tensor_type(&out)
                )
                .unwrap();
                results.push((name, out));
            }
            7 if s[1] % 2 == 0 => {
                let half = [s[0], s[1] / 2, s[2], s[3]];
                writeln!(
                    body,
                    "  {name}a, {name}b = graph.split {x} {{axis = 1 : i64}} : {} -> {1}, {1}",
                    tensor_type(&s),
                    tensor_type(&half)
                )
                .unwrap();
                results.push((format!("{name}a"), half));
                results.push((format!("{name}b"), half));
            }
            8 => {
                let parameters: Vec<String> = (0..4)
                    .map(|i| {
                        let values = random.values(s[1], 0.3).into_iter().map(|v| {
                            if i == 0 || i == 3 {
                                1.0 + v
                            } else {
                                v
                            }
                        });
                        add_weight(&mut body, &mut weights, &[s[1]], values.collect())
                    })
                    .collect();
                let p = tensor_type(&[s[1]]);
                writeln!(
                    body,
                    "  {name} = graph.batch_norm {x}, {} {{epsilon = 1.0e-03 : f32}} \
                     : ({}, {p}, {p}, {p}, {p}) -> {1}",
                    parameters.join(", "),
                    tensor_type(&s)
                )
                .unwrap();
                results.push((name, s));
            }
            _ => match random.below(4) {
                3 if s[2] <= 16 => {
                    let out = [s[0], s[1], 2 * s[2], 2 * s[3]];
                    let mode = random.pick(&["nearest", "linear"]);
                    let coordinates = random.pick(&["half_pixel", "align_corners", "asymmetric"]);
                    writeln!(
                        body,
                        "  {name} = graph.resize {x} \
                         {{scales = array<f32: 1.0, 1.0, 2.0, 2.0>, \
                         mode = #graph<resize_mode {mode}>, \
                         coordinates = #graph<resize_coordinates {coordinates}>}} : {} -> {}",
                        tensor_type(&s),
                        tensor_type(&out)
                    )
                    .unwrap();
                    results.push((name, out));
                }
                0 => {
                    let out = [s[0], s[1], s[3], s[2]];
                    writeln!(
                        body,
                        "  {name} = graph.transpose {x} \
                         {{permutation = array<i64: 0, 1, 3, 2>}} : {} -> {}",
                        tensor_type(&s),
                        tensor_type(&out)
                    )
                    .unwrap();
                    results.push((name, out));
                }
                1 if s[2] >= 2 => {
                    let out = [s[0], s[1], s[2].div_ceil(2), s[3]];
                    writeln!(
                        body,
                        "  {name} = graph.slice {x} \
                         {{starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 1>}} \
                         : {} -> {}",
                        tensor_type(&s),
                        tensor_type(&out)
                    )
                    .unwrap();
                    results.push((name, out));
                }
                _ => {
                    let out = [s[0], s[1], s[2] + 2, s[3] + 2];
                    writeln!(
                        body,
                        "  {name} = graph.pad {x} \
                         {{pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>}} : {} -> {}",
                        tensor_type(&s),
                        tensor_type(&out)
                    )
                    .unwrap();
                    results.push((name, out));
                }
            },
        }
        if results.is_empty() {
            continue;
        }
        for operand in operands {
            read[operand] = true;
        }
        for result in results {
            values.push(result);
            read.push(false);
        }
    }
    let mut returned: Vec<usize> = (1..values.len()).filter(|&i| !read[i]).collect();
    if values.len() > 2 && random.below(2) == 0 {
        let extra = 1 + random.below(values.len() - 1);
        if !returned.contains(&extra) {
            returned.push(extra);
        }
    }
    let names: Vec<&str> = returned.iter().map(|&i| values[i].0.as_str()).collect();
    let types: Vec<String> = returned
        .iter()
        .map(|&i| tensor_type(&values[i].1))
        .collect();
    let source = format!(
        "func.func @main(%x: {}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        tensor_type(&input),
        types.join(", "),
        names.join(", "),
        types.join(", ")
    );
    (source, weights)
}

#[test]
fn grouping_random_dags_changes_no_number() {
    let (mut merged_somewhere, mut split_somewhere) = (false, false);
    for seed in 0..60 {
        let (source, weights) = random_dag(seed);
        let ops = source.matches(" = graph.").count() - source.matches("graph.weight").count();
        for options in [
            "target=mini",
            "target=mini scope=lb",
            "target=stcp920 scope=lb",
        ] {
            let groups = group_count(&grouped_equals_ungrouped(
                &source,
                &weights,
                &format!("builtin.module(func.func(hw-group{{{options}}}))"),
            ));
            assert!(
                groups >= 1 && groups <= ops,
                "{groups} groups for {ops} ops with {options}:\n{source}"
            );
            merged_somewhere |= groups < ops;
            split_somewhere |= groups > 1;
        }
    }
    assert!(
        merged_somewhere && split_somewhere,
        "the random DAGs never exercised both merging and splitting"
    );
}

/// GraphTurbo's graph scheduling (§2 cluster split, §3.2 grouping, §3.3 instances and their
/// order, §3.4 binding and scopes, §3.5 stitching) as one pipeline, for `target` with instances
/// sized for `scope` and ordered by `orderer`.
fn schedule(target: &str, scope: &str, orderer: &str) -> String {
    format!(
        "builtin.module(func.func(\
         instance-cluster-split{{target={target}}},\
         hw-group{{target={target} scope={scope}}},\
         instance-split,\
         instance-order{{order={orderer}}},\
         instance-bind{{target={target}}},\
         instance-stitch))"
    )
}

/// The graph scheduling changes no number on random DAGs: every op kind, multi-result ops,
/// joins of far-apart values, upsampling and results escaping the middle of the graph.
#[test]
fn schedule_random_dags_changes_no_number() {
    let mut clusters_somewhere = false;
    for seed in 0..60 {
        let (source, weights) = random_dag(seed);
        for (target, scope) in [("mini", "gb"), ("stcp920", "lb")] {
            let orderer = ["dfs", "bfs", "min-peak"][seed as usize % 3];
            let text =
                grouped_equals_ungrouped(&source, &weights, &schedule(target, scope, orderer));
            assert!(
                !text.contains("instance.group"),
                "every group became instances:\n{text}"
            );
            assert_eq!(
                text.matches("instance.instance").count(),
                text.matches("bind = array").count(),
                "every instance is bound:\n{text}"
            );
            clusters_somewhere |= !text.contains("instance.clusters 1(");
        }
    }
    assert!(
        clusters_somewhere,
        "no random DAG was spread over several clusters"
    );
}

/// GraphTurbo §3.3: splitting the groups into instances and ordering them changes no number
/// either, whether the instances cut the batch (the global-buffer scope) or the rows with halos
/// (the local-buffer scope, where slices are small).
#[test]
fn instance_split_random_networks_changes_no_number() {
    let mut split_somewhere = false;
    let mut split_rows = false;
    for seed in 0..40 {
        let (source, weights) = crate::layerwise::random_cnn(seed);
        for (target, scope) in [("mini", "gb"), ("stcp920", "lb"), ("mini", "lb")] {
            let orderer = ["dfs", "bfs", "min-peak"][seed as usize % 3];
            let text =
                grouped_equals_ungrouped(&source, &weights, &schedule(target, scope, orderer));
            assert!(
                !text.contains("instance.group"),
                "every group became instances:\n{text}"
            );
            split_somewhere |= text.contains("of 2 along") || text.contains("of 4 along");
            split_rows |= text.contains("along 2]") || text.contains("along 3]");
        }
    }
    assert!(
        split_somewhere,
        "no random network was split into several instances"
    );
    assert!(
        split_rows,
        "no random network was split along rows or columns (halos untested)"
    );
}

/// Builds the built-in model `name` at `batch`; returns its text and weights.
fn builtin(name: &str, batch: usize) -> (String, Weights) {
    let model = turbine_tools::models::builtin(name, batch).unwrap();
    let context = turbine_dialects::create_context();
    let source = turbine_tools::graph_module::build(&context, &model.module)
        .unwrap()
        .as_operation()
        .to_string();
    (source, model.weights)
}

#[test]
fn instance_split_resnet18_changes_no_number() {
    let (source, weights) = builtin("resnet18", 4);
    let pipelines = ["gb", "lb"].map(|scope| schedule("stcp920", scope, "auto"));
    for text in transformed_equal_original(&source, &weights, &pipelines) {
        assert!(
            text.contains("instance.clusters 4("),
            "the batch of 4 is spread over stcp920's 4 clusters"
        );
    }
}

/// The paper's models whole, through the whole graph scheduling in both scopes: ResNet-50 at
/// batch 4 (one image per cluster; batch 4 rather than 8 because interpreting it three times is
/// most of this test's time) and DenseNet-121 at batch 1 (one cluster; a concatenation per
/// layer, many consumers per value).
#[test]
fn schedule_resnet50_and_densenet121_changes_no_number() {
    for (name, batch, clusters) in [("resnet50", 4, 4), ("densenet121", 1, 1)] {
        let (source, weights) = builtin(name, batch);
        let pipelines = ["gb", "lb"].map(|scope| schedule("stcp920", scope, "auto"));
        for text in transformed_equal_original(&source, &weights, &pipelines) {
            assert!(
                text.contains(&format!("instance.clusters {clusters}(")),
                "{name} b{batch} is spread over {clusters} clusters"
            );
            assert!(
                !text.contains("instance.group"),
                "every group of {name} became instances"
            );
            assert_eq!(
                text.matches("instance.instance").count(),
                text.matches("bind = array").count(),
                "every instance of {name} is bound"
            );
        }
    }
}
