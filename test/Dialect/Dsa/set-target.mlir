// RUN: turbine-opt %s --split-input-file --dsa-set-target | FileCheck %s
// RUN: turbine-opt %s --split-input-file --dsa-set-target="target=mini" | FileCheck %s --check-prefix=MINI
// RUN: turbine-opt %s --split-input-file --dsa-set-target="target=%turbine_root/targets/descriptions/solo.toml" | FileCheck %s --check-prefix=FILE
// RUN: not turbine-opt %s --dsa-set-target="target=no-such-target" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not turbine-opt %s --dsa-set-target="target=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: echo 'name = "broken"' > %t.toml
// RUN: not turbine-opt %s --dsa-set-target="target=%t.toml" 2>&1 | FileCheck %s --check-prefix=BROKEN

// Tests that the default target is the paper's platform, 4 clusters of 8 cores with 64 KiB LB and
// 8 MiB GB, made from the same description the runtime executes with.
// CHECK: module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608,
// CHECK-LABEL: func.func @model
// MINI: #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2,
// FILE: #dsa.target<name = "solo", clusters = 1, cores_per_cluster = 1,
// UNKNOWN: error: cannot use target 'no-such-target': unknown target 'no-such-target': no built-in target has this name (built-ins: stcp920, mini, solo)
// EMPTY: option 'target' needs a built-in target name or a file path
// BROKEN: error: cannot use target '{{.*}}.toml'
func.func @model(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
