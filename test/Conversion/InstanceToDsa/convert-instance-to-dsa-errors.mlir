// Tests what convert-instance-to-dsa rejects.
// RUN: turbine-opt %s --split-input-file --convert-instance-to-dsa --verify-diagnostics
// RUN: not turbine-opt %s --split-input-file --convert-instance-to-dsa=spill=smallest 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: option 'spill': unknown policy 'smallest' (available: longest, largest)

// Tests that the module needs a target.
// expected-error@+1 {{convert-instance-to-dsa needs the module's dsa.target; run dsa-set-target first}}
module {
  func.func @no_target(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
    return %x : tensor<2x8xf32>
  }
}

// -----

// Tests that a function the instance passes did not schedule is refused.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  // expected-error@+1 {{convert-instance-to-dsa needs a function scheduled by the instance passes (instance.clusters ops, their weights and the return): run instance-cluster-split, hw-group, instance-split, instance-order, instance-bind and instance-stitch first}}
  func.func @unscheduled(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %y = graph.relu %x : tensor<2x8xf32>
    return %y : tensor<2x8xf32>
  }
}

// -----

// Tests that an op left outside the instances is refused.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @ungrouped(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
    %r = instance.clusters 2(%x) split [0] -> [0] : (tensor<2x8xf32>) -> tensor<2x8xf32> {
    ^bb0(%a: tensor<1x8xf32>):
      // expected-error@+1 {{'graph.relu' outside an instance: the GraphTurbo kernels need every op grouped (run hw-group and instance-split)}}
      %y = graph.relu %a : tensor<1x8xf32>
      instance.yield %y : tensor<1x8xf32>
    }
    return %r : tensor<2x8xf32>
  }
}

// -----

// Tests that a program spread over more clusters than the target has is refused.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @too_many_clusters(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    // expected-error@+1 {{the program is spread over 4 clusters but target 'mini' has 2}}
    %r = instance.clusters 4(%x) split [0] -> [0] : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<1x8xf32>):
      instance.yield %a : tensor<1x8xf32>
    }
    return %r : tensor<4x8xf32>
  }
}

// -----

// Tests that a result no cluster program computes (a weight returned as it is) is refused: each
// result is written by the segment computing it.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  // expected-error@+1 {{result 1 of @returns_a_weight must be a result of instance.clusters, returned once}}
  func.func @returns_a_weight(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<8xf32>) {
    %w = graph.weight "w" : tensor<8xf32>
    %r = instance.clusters 2(%x) split [0] -> [0] : (tensor<2x8xf32>) -> tensor<2x8xf32> {
    ^bb0(%a: tensor<1x8xf32>):
      instance.yield %a : tensor<1x8xf32>
    }
    return %r, %w : tensor<2x8xf32>, tensor<8xf32>
  }
}
