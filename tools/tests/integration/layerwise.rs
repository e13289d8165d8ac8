//! Both kernel schedules end to end against the reference interpreter: graph-dialect models
//! compiled by the driver (graph passes, `convert-graph-to-dsa` for the layer-wise schedule, the
//! instance passes and `convert-instance-to-dsa` for GraphTurbo's, the LLVM backend, JIT), run on
//! the software DSA, and compared element by element with `turbine_interpreter::interpret` on the
//! same inputs and weights. Randomly generated networks (seeded, so a failure replays) cover
//! shapes no hand-written test would pick; the `mini` target's 16 KiB LB forces the tiling paths
//! (row classes with padding, channel chunks, K chunks) that large LBs never take.

use melior::ir::{operation::OperationLike, Module};
use std::fmt::Write;
use turbine_interpreter::{interpret, Program, Tensor, Weights};
use turbine_tools::{
    driver::{self, CompileOptions, Device},
    random::SplitMix,
};

/// Seeded shapes and values (SplitMix64, so a failing seed replays).
pub(crate) struct Random(SplitMix);

impl Random {
    pub(crate) fn new(seed: u64) -> Self {
        Self(SplitMix(seed))
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }

    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    pub(crate) fn values(&mut self, count: usize, scale: f32) -> Vec<f32> {
        (0..count).map(|_| self.0.unit() * scale).collect()
    }
}

pub(crate) fn tensor_type(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("tensor<{}xf32>", dims.join("x"))
}

/// Compiles `source` for `target` with each kernel schedule, runs it on the software DSA and on
/// the interpreter with the same seeded inputs, and asserts that every output agrees within 1e-4
/// (relative to each output's largest magnitude, plus 1e-4 per element).
pub(crate) fn check(source: &str, weights: Weights, target: &str, seed: u64) {
    // GraphTurbo with instances sized for the GB (few, large) and for the LB (many, with halos,
    // copies of non-contiguous slices and spills on small targets).
    for schedule in ["layerwise", "graphturbo", "graphturbo{scope=lb}"] {
        check_schedule(source, &weights, target, seed, schedule);
    }
}

/// Checks one schedule as [`check`] does; returns the kernels one run launched.
pub(crate) fn check_schedule(
    source: &str,
    weights: &Weights,
    target: &str,
    seed: u64,
    schedule: &str,
) -> usize {
    let context = turbine_dialects::create_context();
    let module =
        Module::parse(&context, source).unwrap_or_else(|| panic!("does not parse:\n{source}"));
    assert!(module.as_operation().verify(), "does not verify:\n{source}");
    // SAFETY: the module is verified and outlives the program.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
    let inputs = random_inputs(&program, seed);
    let expected = interpret(&program, inputs.clone(), weights).unwrap();
    let options = CompileOptions {
        target: target.into(),
        schedule: schedule.into(),
        ..CompileOptions::default()
    };
    let compiled = driver::compile(&context, module, None, &options)
        .unwrap_or_else(|error| panic!("{schedule}: {error}\n{source}"));
    let device = Device::new(target).unwrap();
    let actual = driver::run(&compiled, &device, &inputs, weights)
        .unwrap_or_else(|error| panic!("{schedule}: {error}\n{source}"));
    assert_close(
        &actual,
        &expected,
        &format!("seed {seed}, {target}, {schedule}\n{source}"),
    );
    compiled.kernel_count
}

/// Seeded inputs for `program`'s arguments (f32 uniform in [-1, 1)).
pub(crate) fn random_inputs(program: &Program, seed: u64) -> Vec<Tensor> {
    let mut random = Random::new(seed);
    program
        .body
        .arguments
        .iter()
        .map(|(_, r#type)| {
            Tensor::f32(
                r#type.shape.clone(),
                random.values(r#type.shape.iter().product(), 1.0),
            )
        })
        .collect()
}

/// Asserts that every output agrees with the interpreter's within 1e-4 (relative to each
/// output's largest magnitude, plus 1e-4 per element); `context` says what ran.
pub(crate) fn assert_close(actual: &[Tensor], expected: &[Tensor], context: &str) {
    assert_eq!(actual.len(), expected.len());
    for (index, (got, want)) in actual.iter().zip(expected).enumerate() {
        assert_eq!(got.shape, want.shape, "result #{index}");
        let (got, want) = (got.as_f32().unwrap(), want.as_f32().unwrap());
        let scale = want.iter().fold(0f32, |m, v| m.max(v.abs()));
        for (position, (a, b)) in got.iter().zip(want).enumerate() {
            let bound = 1e-4 * scale + 1e-4 * b.abs() + 1e-6;
            assert!(
                (a - b).abs() <= bound,
                "result #{index}[{position}]: {a} vs interpreter {b} ({context})"
            );
        }
    }
}

/// A random convolutional network: convs (strides, pads, groups, bias, activation), batch norm,
/// elementwise ops with broadcasting operands, residual adds and pooling, ending in a classifier.
pub(crate) fn random_cnn(seed: u64) -> (String, Weights) {
    let mut random = Random::new(seed);
    let mut weights = Weights::empty();
    let mut body = String::new();
    let batch = random.pick(&[1, 2, 3]);
    let mut shape = [
        batch,
        random.pick(&[1, 3, 4]),
        random.pick(&[9, 12, 16, 20]),
        random.pick(&[8, 11, 16]),
    ];
    let input = shape;
    let mut value = "%x".to_owned();
    let mut count = 0;
    let mut fresh = |prefix: &str| {
        count += 1;
        format!("%{prefix}{count}")
    };
    let weight = |body: &mut String,
                  weights: &mut Weights,
                  random: &mut Random,
                  name: String,
                  shape: &[usize],
                  scale: f32| {
        weights.insert(
            &name,
            Tensor::f32(shape.to_vec(), random.values(shape.iter().product(), scale)),
        );
        let value = format!("%{}", name.replace('.', "_"));
        writeln!(
            body,
            "  {value} = graph.weight \"{name}\" : {}",
            tensor_type(shape)
        )
        .unwrap();
        value
    };
    for layer in 0..random.pick(&[2, 3, 4]) {
        let channels = shape[1];
        let kind = random.below(6);
        let (next, next_shape) = match kind {
            0..=2 => {
                let smallest = shape[2].min(shape[3]);
                let kernel = random.pick(&[1, 3, 5].map(|k: usize| k.min(smallest)));
                let stride = random.pick(&[1, 1, 2]);
                let pad = random.below(kernel / 2 + 1);
                // Depthwise, two groups, or a plain conv.
                let groups = match random.below(4) {
                    0 if channels > 1 => channels,
                    1 if channels.is_multiple_of(2) => 2,
                    _ => 1,
                };
                let out_channels = match groups {
                    1 => random.pick(&[4, 8, 16, 24]),
                    2 => random.pick(&[4, 8, 16, 24, 48]),
                    _ => channels * random.pick(&[1, 2]),
                };
                let filter_shape = [out_channels, channels / groups, kernel, kernel];
                let fan_in = (channels / groups * kernel * kernel) as f32;
                let filter = weight(
                    &mut body,
                    &mut weights,
                    &mut random,
                    format!("conv{layer}.weight"),
                    &filter_shape,
                    1.5 / fan_in.sqrt(),
                );
                let out = [
                    shape[0],
                    out_channels,
                    (shape[2] + 2 * pad - kernel) / stride + 1,
                    (shape[3] + 2 * pad - kernel) / stride + 1,
                ];
                let bias = if random.below(2) == 0 {
                    let b = weight(
                        &mut body,
                        &mut weights,
                        &mut random,
                        format!("conv{layer}.bias"),
                        &[out_channels],
                        0.1,
                    );
                    format!(", {b}")
                } else {
                    String::new()
                };
                let bias_type = if bias.is_empty() {
                    String::new()
                } else {
                    format!(", {}", tensor_type(&[out_channels]))
                };
                let activation = random.pick(&[
                    "",
                    ", activation = #graph<activation relu>",
                    ", activation = #graph<activation relu6>",
                ]);
                let result = fresh("c");
                writeln!(
                    body,
                    "  {result} = graph.conv2d {value}, {filter}{bias} \
                     {{strides = array<i64: {stride}, {stride}>, \
                     pads = array<i64: {pad}, {pad}, {pad}, {pad}>, groups = {groups} \
                     : i64{activation}}} : ({}, {}{bias_type}) -> {}",
                    tensor_type(&shape),
                    tensor_type(&filter_shape),
                    tensor_type(&out)
                )
                .unwrap();
                (result, out)
            }
            3 => {
                let names = ["g", "b", "m", "v"];
                let mut parameters = Vec::new();
                for name in names {
                    let full = format!("bn{layer}.{name}");
                    let values: Vec<f32> = random
                        .values(channels, 0.4)
                        .iter()
                        .map(|v| {
                            if name == "v" || name == "g" {
                                1.0 + v
                            } else {
                                *v
                            }
                        })
                        .collect();
                    weights.insert(&full, Tensor::f32(vec![channels], values));
                    let handle = format!("%bn{layer}_{name}");
                    writeln!(
                        body,
                        "  {handle} = graph.weight \"{full}\" : {}",
                        tensor_type(&[channels])
                    )
                    .unwrap();
                    parameters.push(handle);
                }
                let result = fresh("n");
                let p = tensor_type(&[channels]);
                writeln!(
                    body,
                    "  {result} = graph.batch_norm {value}, {} {{epsilon = 1.0e-03 : f32}} \
                     : ({}, {p}, {p}, {p}, {p}) -> {}",
                    parameters.join(", "),
                    tensor_type(&shape),
                    tensor_type(&shape)
                )
                .unwrap();
                (result, shape)
            }
            4 if shape[2].min(shape[3]) >= 3 => {
                let kernel = random.pick(&[2, 3]);
                let stride = random.pick(&[1, 2]);
                let pad = random.below(kernel / 2 + 1);
                let out = [
                    shape[0],
                    channels,
                    (shape[2] + 2 * pad - kernel) / stride + 1,
                    (shape[3] + 2 * pad - kernel) / stride + 1,
                ];
                let op = random.pick(&["max_pool2d", "avg_pool2d"]);
                let result = fresh("p");
                writeln!(
                    body,
                    "  {result} = graph.{op} {value} \
                     {{kernel = array<i64: {kernel}, {kernel}>, \
                     strides = array<i64: {stride}, {stride}>, \
                     pads = array<i64: {pad}, {pad}, {pad}, {pad}>}} : {} -> {}",
                    tensor_type(&shape),
                    tensor_type(&out)
                )
                .unwrap();
                (result, out)
            }
            _ => {
                // A per-channel scale, an activation and a residual add of the layer's own input.
                let scale = weight(
                    &mut body,
                    &mut weights,
                    &mut random,
                    format!("scale{layer}"),
                    &[channels, 1, 1],
                    1.0,
                );
                let scaled = fresh("e");
                writeln!(
                    body,
                    "  {scaled} = graph.mul {value}, {scale} : {}, {} -> {}",
                    tensor_type(&shape),
                    tensor_type(&[channels, 1, 1]),
                    tensor_type(&shape)
                )
                .unwrap();
                let op = random.pick(&["sigmoid", "tanh", "relu", "silu", "neg", "abs"]);
                let activated = fresh("e");
                writeln!(
                    body,
                    "  {activated} = graph.{op} {scaled} : {}",
                    tensor_type(&shape)
                )
                .unwrap();
                let sum = fresh("e");
                writeln!(
                    body,
                    "  {sum} = graph.add {activated}, {value} : {0}, {0} -> {0}",
                    tensor_type(&shape)
                )
                .unwrap();
                (sum, shape)
            }
        };
        value = next;
        shape = next_shape;
    }
    let pooled = fresh("g");
    let flat_shape = [shape[0], shape[1]];
    writeln!(
        body,
        "  {pooled} = graph.global_avg_pool {value} : {} -> {}",
        tensor_type(&shape),
        tensor_type(&[shape[0], shape[1], 1, 1])
    )
    .unwrap();
    let flat = fresh("f");
    writeln!(
        body,
        "  {flat} = graph.flatten {pooled} {{axis = 1 : i64}} : {} -> {}",
        tensor_type(&[shape[0], shape[1], 1, 1]),
        tensor_type(&flat_shape)
    )
    .unwrap();
    let classes = random.pick(&[5, 10]);
    let fc = weight(
        &mut body,
        &mut weights,
        &mut random,
        "fc.weight".into(),
        &[classes, shape[1]],
        1.0,
    );
    let fc_bias = weight(
        &mut body,
        &mut weights,
        &mut random,
        "fc.bias".into(),
        &[classes],
        0.1,
    );
    let logits = fresh("l");
    writeln!(
        body,
        "  {logits} = graph.gemm {flat}, {fc}, {fc_bias} {{trans_b = true, alpha = 0.5 : f32}} \
         : ({}, {}, {}) -> {}",
        tensor_type(&flat_shape),
        tensor_type(&[classes, shape[1]]),
        tensor_type(&[classes]),
        tensor_type(&[shape[0], classes])
    )
    .unwrap();
    let probabilities = fresh("s");
    writeln!(
        body,
        "  {probabilities} = graph.softmax {logits} {{axis = -1 : i64}} : {}",
        tensor_type(&[shape[0], classes])
    )
    .unwrap();
    let source = format!(
        "func.func @main(%x: {}) -> ({}, {}) {{\n{body}  \
         return {value}, {probabilities} : {}, {}\n}}\n",
        tensor_type(&input),
        tensor_type(&shape),
        tensor_type(&[shape[0], classes]),
        tensor_type(&shape),
        tensor_type(&[shape[0], classes])
    );
    (source, weights)
}

#[test]
fn random_convolutional_networks_match_the_interpreter() {
    for seed in 0..40 {
        let (source, weights) = random_cnn(seed);
        let target = if seed % 3 == 2 { "stcp920" } else { "mini" };
        check(&source, weights, target, seed);
    }
}

#[test]
fn a_transformer_block_matches_the_interpreter() {
    // Attention scores, softmax over keys, weighted values, a projection with bias, a residual
    // add and layer norm, and a GELU feed-forward: the row-wise and batched-matmul paths.
    let weights = || {
        let mut random = Random::new(7);
        let mut weights = Weights::empty();
        for (name, shape, scale) in [
            ("wq", vec![32, 32], 0.2),
            ("wk", vec![32, 32], 0.2),
            ("wo", vec![32, 32], 0.2),
            ("bo", vec![32], 0.1),
            ("ln.g", vec![32], 1.0),
            ("ln.b", vec![32], 0.1),
            ("w1", vec![32, 64], 0.2),
        ] {
            let count = shape.iter().product();
            weights.insert(name, Tensor::f32(shape, random.values(count, scale)));
        }
        weights
    };
    let source = r#"
func.func @main(%x: tensor<2x12x32xf32>) -> tensor<2x12x64xf32> {
  %wq = graph.weight "wq" : tensor<32x32xf32>
  %wk = graph.weight "wk" : tensor<32x32xf32>
  %wo = graph.weight "wo" : tensor<32x32xf32>
  %bo = graph.weight "bo" : tensor<32xf32>
  %g = graph.weight "ln.g" : tensor<32xf32>
  %b = graph.weight "ln.b" : tensor<32xf32>
  %w1 = graph.weight "w1" : tensor<32x64xf32>
  %q = graph.batch_matmul %x, %wq : tensor<2x12x32xf32>, tensor<32x32xf32> -> tensor<2x12x32xf32>
  %k = graph.batch_matmul %x, %wk : tensor<2x12x32xf32>, tensor<32x32xf32> -> tensor<2x12x32xf32>
  %kt = graph.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<2x12x32xf32> ->
      tensor<2x32x12xf32>
  %s = graph.batch_matmul %q, %kt : tensor<2x12x32xf32>, tensor<2x32x12xf32> -> tensor<2x12x12xf32>
  %c = graph.constant dense<0.176776695> : tensor<f32>
  %ss = graph.mul %s, %c : tensor<2x12x12xf32>, tensor<f32> -> tensor<2x12x12xf32>
  %p = graph.softmax %ss {axis = -1 : i64} : tensor<2x12x12xf32>
  %a = graph.batch_matmul %p, %x : tensor<2x12x12xf32>, tensor<2x12x32xf32> -> tensor<2x12x32xf32>
  %o = graph.batch_matmul %a, %wo : tensor<2x12x32xf32>, tensor<32x32xf32> -> tensor<2x12x32xf32>
  %ob = graph.add %o, %bo : tensor<2x12x32xf32>, tensor<32xf32> -> tensor<2x12x32xf32>
  %r = graph.add %ob, %x : tensor<2x12x32xf32>, tensor<2x12x32xf32> -> tensor<2x12x32xf32>
  %n = graph.layer_norm %r, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<2x12x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x12x32xf32>
  %h = graph.batch_matmul %n, %w1 : tensor<2x12x32xf32>, tensor<32x64xf32> -> tensor<2x12x64xf32>
  %y = graph.gelu %h : tensor<2x12x64xf32>
  return %y : tensor<2x12x64xf32>
}
"#;
    for target in ["mini", "stcp920"] {
        check(source, weights(), target, 3);
    }
}

#[test]
fn data_movement_matches_the_interpreter() {
    let source = r#"
func.func @main(%x: tensor<2x6x4x5xf32>, %y: tensor<2x3x4x5xf32>) ->
    (tensor<2x9x4x5xf32>, tensor<2x6x2x5xf32>, tensor<2x5x4x6xf32>, tensor<2x6x6x7xf32>,
    tensor<2x3x4x5xf32>, tensor<2x6x4x5xf32>) {
  %c = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x6x4x5xf32>, tensor<2x3x4x5xf32>) ->
      tensor<2x9x4x5xf32>
  %s = graph.slice %x {starts = array<i64: 0, 0, 1, 0>, steps = array<i64: 1, 1, 2, 1>}
      : tensor<2x6x4x5xf32> -> tensor<2x6x2x5xf32>
  %t = graph.transpose %x {permutation = array<i64: 0, 3, 2, 1>} : tensor<2x6x4x5xf32> ->
      tensor<2x5x4x6xf32>
  %p = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<2x6x4x5xf32> ->
      tensor<2x6x6x7xf32>
  %a, %b = graph.split %x {axis = 1 : i64} : tensor<2x6x4x5xf32> -> tensor<2x3x4x5xf32>,
      tensor<2x3x4x5xf32>
  %m = graph.max %a, %y : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  %r = graph.reshape %x : tensor<2x6x4x5xf32> -> tensor<2x120xf32>
  %e = graph.exp %r : tensor<2x120xf32>
  %back = graph.reshape %e : tensor<2x120xf32> -> tensor<2x6x4x5xf32>
  return %c, %s, %t, %p, %m, %back : tensor<2x9x4x5xf32>, tensor<2x6x2x5xf32>, tensor<2x5x4x6xf32>,
      tensor<2x6x6x7xf32>, tensor<2x3x4x5xf32>, tensor<2x6x4x5xf32>
}
"#;
    check(source, Weights::empty(), "mini", 11);
}

#[test]
fn local_response_normalisation_matches_the_interpreter() {
    // Even and odd window sizes (an uneven channel window), on channels fewer than the window.
    for (size, channels) in [(5, 16), (4, 7), (3, 2)] {
        let source = format!(
            "func.func @main(%x: tensor<2x{channels}x5x6xf32>) -> \
             tensor<2x{channels}x5x6xf32> {{\n  \
             %y = graph.lrn %x \
             {{size = {size} : i64, alpha = 0.5 : f32, beta = 0.75 : f32, bias = 2.0 : f32}} \
             : tensor<2x{channels}x5x6xf32>\n  \
             return %y : tensor<2x{channels}x5x6xf32>\n}}\n"
        );
        check(&source, Weights::empty(), "mini", size as u64);
    }
}

#[test]
fn a_channel_shuffle_matches_the_interpreter() {
    // ShuffleNet's rank-5 transpose: the spatial dimensions move together, so it merges to rank 4.
    let source = r#"
func.func @main(%x: tensor<2x12x5x6xf32>) -> tensor<2x12x5x6xf32> {
  %g = graph.reshape %x : tensor<2x12x5x6xf32> -> tensor<2x3x4x5x6xf32>
  %t = graph.transpose %g {permutation = array<i64: 0, 2, 1, 3, 4>} : tensor<2x3x4x5x6xf32> ->
      tensor<2x4x3x5x6xf32>
  %y = graph.reshape %t : tensor<2x4x3x5x6xf32> -> tensor<2x12x5x6xf32>
  return %y : tensor<2x12x5x6xf32>
}
"#;
    check(source, Weights::empty(), "mini", 5);
}

#[test]
fn broadcasting_across_a_dimension_of_size_one_matches_the_interpreter() {
    // [3, 1, 5] + [5]: the operand broadcasts on dimension 0 and spans dimension 2; the size-1
    // dimension between them must not merge the two (the shape a cluster's share of [3, 4, 5]
    // split along dimension 1 has).
    let source = r#"
func.func @main(%x: tensor<3x1x5xf32>, %y: tensor<5xf32>, %z: tensor<3x1x1xf32>) ->
    tensor<3x1x5xf32> {
  %a = graph.add %x, %y : tensor<3x1x5xf32>, tensor<5xf32> -> tensor<3x1x5xf32>
  %b = graph.mul %a, %z : tensor<3x1x5xf32>, tensor<3x1x1xf32> -> tensor<3x1x5xf32>
  return %b : tensor<3x1x5xf32>
}
"#;
    check(source, Weights::empty(), "mini", 13);
}
