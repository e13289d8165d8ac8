// Tests what instance-cluster-split rejects.
// RUN: turbine-opt %s --split-input-file --verify-diagnostics --instance-cluster-split
// RUN: not turbine-opt %s --split-input-file --instance-cluster-split="target=nowhere" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: cannot use target 'nowhere'
// RUN: not turbine-opt %s --split-input-file --instance-cluster-split="target=stcp920 channel-cut-gain=-1" 2>&1 | FileCheck %s --check-prefix=GAIN
// GAIN: option 'channel-cut-gain': expected a fraction of at least 0, got -1

// Tests that the number of clusters comes from a target: neither the module's dsa.target nor the
// 'target' option gives one.
module {
  // expected-error@+1 {{instance-cluster-split needs a target: set the module's dsa.target (dsa-set-target) or the 'target' option}}
  func.func @no_target(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %y = graph.relu %x : tensor<8x4xf32>
    return %y : tensor<8x4xf32>
  }
}

// -----

// Tests that a function is spread over the clusters once.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 1073741824, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 64, lb_lb_bandwidth = 32, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @twice(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error@+1 {{@twice is already spread over clusters}}
    %y = instance.clusters 2(%x) split [0] -> [0] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%a: tensor<4x4xf32>):
      instance.yield %a : tensor<4x4xf32>
    }
    return %y : tensor<8x4xf32>
  }
}

// -----

// Tests that the split comes before grouping: groups are planned against one cluster's buffer.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 1073741824, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 64, lb_lb_bandwidth = 32, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @grouped(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error@+1 {{@grouped is already grouped: run instance-cluster-split before hw-group}}
    %y = instance.group "g0"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%a: tensor<8x4xf32>):
      %r = graph.relu %a : tensor<8x4xf32>
      instance.yield %r : tensor<8x4xf32>
    }
    return %y : tensor<8x4xf32>
  }
}
