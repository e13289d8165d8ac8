// Tests of instance-order (GraphTurbo §3.3, Algorithm 3) on a small instance graph: g0 split in
// 4 row slices of 256 bytes, g1 in 2 slices of 512 bytes, each reading two of g0's.
// RUN: turbine-opt %s --split-input-file --instance-split --instance-order=order=dfs | FileCheck %s --check-prefix=DFS
// RUN: turbine-opt %s --split-input-file --instance-split --instance-order=order=bfs | FileCheck %s --check-prefix=BFS
// RUN: turbine-opt %s --split-input-file --instance-split --instance-order="order=auto explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --split-input-file --instance-order=order=sideways 2>&1 | FileCheck %s --check-prefix=OPTION

// Tests that DFS runs a consumer as soon as its producers are done (g1's first instance after
// g0's first two, Fig. 3b) and BFS runs each group's instances together (Fig. 7a); the ops of
// the block follow the order, the concatenation g1's instance reads just before it. Peaks: DFS
// holds g0's first two slices and g1's first (1024 bytes), BFS all of g0 and one of g1 (1536);
// auto keeps DFS. g1's slices go to the function's result, not to another instance, and do not
// stay live on chip.
// DFS-LABEL: func.func @two_stages
// DFS: instance.instance "g0"[0 of 4 along 0] {{.*}} {order = 0 : i64}
// DFS: instance.instance "g0"[1 of 4 along 0] {{.*}} {order = 1 : i64}
// DFS: instance.concat
// DFS: instance.instance "g1"[0 of 2 along 0] {{.*}} {order = 2 : i64}
// DFS: instance.instance "g0"[2 of 4 along 0] {{.*}} {order = 3 : i64}
// DFS: instance.instance "g0"[3 of 4 along 0] {{.*}} {order = 4 : i64}
// DFS: instance.instance "g1"[1 of 2 along 0] {{.*}} {order = 5 : i64}
// BFS-LABEL: func.func @two_stages
// BFS: instance.instance "g0"[0 of 4 along 0] {{.*}} {order = 0 : i64}
// BFS: instance.instance "g0"[1 of 4 along 0] {{.*}} {order = 1 : i64}
// BFS: instance.instance "g0"[2 of 4 along 0] {{.*}} {order = 2 : i64}
// BFS: instance.instance "g0"[3 of 4 along 0] {{.*}} {order = 3 : i64}
// BFS: instance.instance "g1"[0 of 2 along 0] {{.*}} {order = 4 : i64}
// BFS: instance.instance "g1"[1 of 2 along 0] {{.*}} {order = 5 : i64}
// OPTION: option 'order': unknown orderer 'sideways' (available: dfs, bfs, auto, min-peak)
// expected-remark@+1 {{6 instances; peak live memory: dfs 1024 bytes, bfs 1536 bytes, min-peak 1024 bytes; chosen: dfs (1024 bytes)}}
func.func @two_stages(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %y = instance.group "g0"(%x) {best_split = #instance.split<dim = 0, factor = 4, ops = 1>, split_info = [#instance.split<dim = 0, factor = 4, ops = 1>]} : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %r = graph.relu %a : tensor<8x32xf32>
    instance.yield %r : tensor<8x32xf32>
  }
  %z = instance.group "g1"(%y) {best_split = #instance.split<dim = 0, factor = 2, ops = 1>, split_info = [#instance.split<dim = 0, factor = 2, ops = 1>]} : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %t = graph.tanh %a : tensor<8x32xf32>
    instance.yield %t : tensor<8x32xf32>
  }
  return %z : tensor<8x32xf32>
}
