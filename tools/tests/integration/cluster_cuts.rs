//! Layers cut along their output channels across the clusters (`instance-cluster-split`'s
//! channel cut) between segments cut along the batch, end to end against the interpreter: the
//! weights sliced per cluster, the input read whole from DDR, the output's channel shares written
//! into one tensor, a value kept in the GBs across a channel segment, and a result that a later
//! segment reads too.

use super::layerwise::{check, check_schedule, random_cnn, tensor_type, Random};
use turbine_interpreter::{Tensor, Weights};

fn weights(shapes: &[(&str, Vec<usize>)]) -> Weights {
    let mut random = Random::new(11);
    let mut weights = Weights::empty();
    for (name, shape) in shapes {
        let count = shape.iter().product();
        weights.insert(name, Tensor::f32(shape.clone(), random.values(count, 0.1)));
    }
    weights
}

#[test]
fn a_convolution_cut_along_its_channels_matches_the_interpreter() {
    // Batch 8 on stcp920: a 3x3 convolution of 512 filters on 4x4 images reads far more weight
    // (2.4 MB) than its two images per cluster compute, so it takes a segment cut along its
    // channels; the sigmoid of `z` crosses that segment in the clusters' GBs, and the
    // convolution's result is returned and read by the segment after it.
    let source = format!(
        r#"
func.func @main(%x: {x}, %z: tensor<8x512xf32>) -> (tensor<8x512xf32>, {c}) {{
  %u = graph.sigmoid %z : tensor<8x512xf32>
  %a = graph.relu %x : {x}
  %wc = graph.weight "conv.w" : tensor<512x128x3x3xf32>
  %bc = graph.weight "conv.b" : tensor<512xf32>
  %c = graph.conv2d %a, %wc, %bc {{pads = array<i64: 1, 1, 1, 1>}}
      : ({x}, tensor<512x128x3x3xf32>, tensor<512xf32>) -> {c}
  %p = graph.global_avg_pool %c : {c} -> tensor<8x512x1x1xf32>
  %f = graph.flatten %p : tensor<8x512x1x1xf32> -> tensor<8x512xf32>
  %t = graph.tanh %f : tensor<8x512xf32>
  %o = graph.add %t, %u : tensor<8x512xf32>, tensor<8x512xf32> -> tensor<8x512xf32>
  return %o, %c : tensor<8x512xf32>, {c}
}}
"#,
        x = tensor_type(&[8, 128, 4, 4]),
        c = tensor_type(&[8, 512, 4, 4]),
    );
    check(
        &source,
        weights(&[("conv.w", vec![512, 128, 3, 3]), ("conv.b", vec![512])]),
        "stcp920",
        5,
    );
}

#[test]
fn a_classifier_cut_along_its_channels_matches_the_interpreter() {
    // A 1024-wide classifier with a fused relu, then a softmax cut along the batch again, and a
    // value (the sigmoid of `z`) that crosses the classifier's segment in the clusters' GBs.
    let source = r#"
func.func @main(%x: tensor<8x256xf32>, %z: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %t = graph.tanh %x : tensor<8x256xf32>
  %u = graph.sigmoid %z : tensor<8x1024xf32>
  %w = graph.weight "fc.w" : tensor<1024x256xf32>
  %b = graph.weight "fc.b" : tensor<1024xf32>
  %y = graph.gemm %t, %w, %b {trans_b = true}
      : (tensor<8x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>) -> tensor<8x1024xf32>
  %r = graph.relu %y : tensor<8x1024xf32>
  %s = graph.softmax %r {axis = -1 : i64} : tensor<8x1024xf32>
  %o = graph.add %s, %u : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
  return %o : tensor<8x1024xf32>
}
"#;
    check(
        source,
        weights(&[("fc.w", vec![1024, 256]), ("fc.b", vec![1024])]),
        "stcp920",
        5,
    );
}

#[test]
fn a_classifier_at_batch_one_spreads_over_the_clusters_and_matches_the_interpreter() {
    // Batch 1 separates over no cluster: the function runs on one, but the classifier's 2 MB
    // weight is cut along its channels over all four (segments of count 1 around it, the
    // sigmoid kept in the first cluster's GB across the classifier's kernel).
    let source = r#"
func.func @main(%x: tensor<1x512xf32>, %z: tensor<1x1024xf32>) -> tensor<1x1024xf32> {
  %t = graph.tanh %x : tensor<1x512xf32>
  %u = graph.sigmoid %z : tensor<1x1024xf32>
  %w = graph.weight "fc.w" : tensor<1024x512xf32>
  %b = graph.weight "fc.b" : tensor<1024xf32>
  %y = graph.gemm %t, %w, %b {trans_b = true}
      : (tensor<1x512xf32>, tensor<1024x512xf32>, tensor<1024xf32>) -> tensor<1x1024xf32>
  %s = graph.softmax %y {axis = -1 : i64} : tensor<1x1024xf32>
  %o = graph.add %s, %u : tensor<1x1024xf32>, tensor<1x1024xf32> -> tensor<1x1024xf32>
  return %o : tensor<1x1024xf32>
}
"#;
    check(
        source,
        weights(&[("fc.w", vec![1024, 512]), ("fc.b", vec![1024])]),
        "stcp920",
        9,
    );
}

#[test]
fn random_networks_with_every_layer_they_can_cut_along_its_channels_match_the_interpreter() {
    // A gain far above 1 takes the channel cut for every layer it can divide, whatever the
    // estimate: segments, their order and hand-overs on shapes no hand-written case picks
    // (grouped and strided convolutions, residual adds, batch 1 on one cluster, batches 2-3).
    let mut segmented = 0;
    for seed in 0..30 {
        let (source, weights) = random_cnn(seed);
        let target = if seed % 3 == 2 { "stcp920" } else { "mini" };
        let cut = check_schedule(
            &source,
            &weights,
            target,
            seed,
            "graphturbo{channel-cut-gain=1e9}",
        );
        let whole = check_schedule(
            &source,
            &weights,
            target,
            seed,
            "graphturbo{channel-cut=false}",
        );
        // Segments that join the kernel before hide in its launch; each in its own shows.
        let apart = check_schedule(
            &source,
            &weights,
            target,
            seed,
            "graphturbo{channel-cut-gain=1e9 join-segments=false}",
        );
        assert!(cut <= apart, "seed {seed}: joining segments added kernels");
        segmented += usize::from(apart > whole);
    }
    // Most of the networks have a convolution or a classifier the cut divides.
    assert!(
        segmented >= 15,
        "only {segmented} of 30 networks were cut into segments"
    );
}
