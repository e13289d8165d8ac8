//===- InstanceOps.td - Turbine instance dialect -----------*- tablegen -*-===//
//
// GraphTurbo's scheduling vocabulary (GraphTurbo §3): groups of fused
// operators with their SplitInfo, the instances a group is split into, and the
// data movement that binding and scope inference insert between them.
//
//===----------------------------------------------------------------------===//

#ifndef TURBINE_INSTANCE_OPS
#define TURBINE_INSTANCE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Instance_Dialect : Dialect {
  let name = "instance";
  let cppNamespace = "::turbine::instance";
  let summary = "GraphTurbo's groups, instances, and their data movement.";
  let description = [{
    The `instance` dialect is the middle level. `instance-cluster-split`
    spreads a function over the target's clusters (`instance.clusters`, the
    data parallelism of GraphTurbo §2). Hardware-aware grouping
    (GraphTurbo §3.1–3.2, the `hw-group` pass) turns chains of `graph`
    operators into `instance.group` regions annotated with their SplitInfo, the
    set of `(split_d, n_d, f_d, d)` tuples of Algorithm 1, and the best split
    chosen by Eq. 1. 

    `instance-split` (§3.3) turns each group into `instance.instance` slices of
    its output along the best split's dimension, each reading exactly the input
    slices it needs (`instance.slice`, `instance.concat` of the producer
    instances it overlaps). `instance-order` (Algorithm 3) sets their
    execution order, `instance-bind` (§3.4, Algorithm 4) a binding to cores and
    a memory scope for each, and `instance-stitch` (§3.5) moves data between
    scopes and bindings with `instance.copy` and `instance.redistribute`.

    Groups and instances are isolated from above: every tensor they read is an
    operand, so a group can be moved, split and costed on its own.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Instance_Op<string mnemonic, list<Trait> traits = []>
    : Op<Instance_Dialect, mnemonic, traits>;

def Instance_Tensor : StaticShapeTensorOf<[AnyType]>;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Instance_Scope : I32EnumAttr<"Scope", "memory level that holds a tensor", [
      I32EnumAttrCase<"lb", 0>,
      I32EnumAttrCase<"gb", 1>,
      I32EnumAttrCase<"ddr", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::instance";
}

def Instance_ScopeAttr : EnumAttr<Instance_Dialect, Instance_Scope, "scope"> {
  let summary = "Memory scope of an instance's output: LB, GB or DDR (Algorithm 4).";
}

def Instance_SplitAttr : AttrDef<Instance_Dialect, "Split"> {
  let mnemonic = "split";
  let summary = "One SplitInfo tuple: a dimension that splits a group (Algorithm 1).";
  let description = [{
    The tuple `(split_d, n_d, f_d, d)` of GraphTurbo Algorithm 1 for one
    splittable loop dimension of a group's output: `dim` is `d` (the loop depth,
    0 outermost), `factor` is `f_d` (how many instances the output is cut into
    so that one instance's peak footprint fits the local buffer) and `ops` is
    `n_d` (how many operators of the group the split reaches). `split_d` is
    implied: only splittable dimensions are recorded.

    ```mlir
    #instance.split<dim = 2, factor = 4, ops = 3>
    ```
  }];
  let parameters = (ins "int64_t":$dim, "int64_t":$factor, "int64_t":$ops);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Instance_SplitArrayAttr : TypedArrayAttrBase<Instance_SplitAttr,
    "array of SplitInfo tuples">;

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

def Instance_YieldOp : Instance_Op<"yield",
    [Pure, Terminator, ReturnLike, ParentOneOf<["ClustersOp", "GroupOp", "InstanceOp"]>]> {
  let summary = "Ends a group or instance body, naming its outputs.";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Instance_ClustersOp : Instance_Op<"clusters",
    [IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "The program one cluster runs on its share of the data (GraphTurbo §2, §5.1).";
  let description = [{
    Data parallelism across the `count` clusters of the target: each cluster
    runs the body on its share of the operands, and the results are the
    clusters' results put together. `input_dims` gives, per operand, the
    dimension cut into `count` equal shares (cluster `k` gets share `k`), or -1
    for an operand every cluster reads whole (weights); `result_dims` gives, per
    result, the dimension along which the clusters' results are concatenated,
    or -1 for a result every cluster computes whole and alike. The body is one
    cluster's program: the block arguments have the shares' types, the yield
    the shares of the results, so the scheduling passes (`hw-group`,
    `instance-split`, `instance-order`, `instance-bind`, `instance-stitch`) see
    one cluster's tensors and plan against one cluster's global buffer and
    cores. A count of 1 states that the function runs on one cluster.

    ```mlir
    %y = instance.clusters 4 (%x, %w) split [0, -1] -> [0]
        : (tensor<32x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32> {
    ^bb0(%a: tensor<8x64x56x56xf32>, %b: tensor<64x64x3x3xf32>):
      %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>
      instance.yield %c : tensor<8x64x56x56xf32>
    }
    ```
  }];
  let arguments = (ins I64Attr:$count, Variadic<Instance_Tensor>:$inputs,
      DenseI64ArrayAttr:$input_dims, DenseI64ArrayAttr:$result_dims);
  let results = (outs Variadic<Instance_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $count `(` $inputs `)` `split` $input_dims `->` $result_dims attr-dict
    `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Instance_GroupOp : Instance_Op<"group",
    [IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "A fused subgraph with its SplitInfo and best split (GraphTurbo §3.1–3.2).";
  let description = [{
    The body computes the group's outputs from its operands (the block
    arguments). `split_info` lists every splittable dimension found by
    Algorithm 1; `best_split` is the one chosen by Eq. 1, lexmax(n_d, -f_d, -d),
    and must be one of them. A group nobody could split has neither.

    ```mlir
    %y = instance.group "stage1" (%x, %w) {best_split = #instance.split<dim = 2, factor = 4, ops = 3>,
        split_info = [#instance.split<dim = 2, factor = 4, ops = 3>]}
        : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
    ^bb0(%a: tensor<1x64x56x56xf32>, %b: tensor<64x64x3x3xf32>):
      %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
      instance.yield %c : tensor<1x64x56x56xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyType>:$inputs,
      OptionalAttr<Instance_SplitArrayAttr>:$split_info,
      OptionalAttr<Instance_SplitAttr>:$best_split);
  let results = (outs Variadic<Instance_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Instance_InstanceOp : Instance_Op<"instance",
    [IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "One slice of a group's output (GraphTurbo §3.3).";
  let description = [{
    Instance `index` of `count` computes the `index`-th of `count` equal slices
    of its group's output along dimension `dim` (its first result; further
    results are slices of the group's other outputs). Its body reads only the
    input slices it needs. The instances of one group are siblings of one
    block, and the verifier checks that they cover the output exactly once:
    `count` instances with the indices 0 to `count - 1`, each once, with the
    same `dim` and results of the same types. `order` is its position in the execution order chosen by
    Algorithm 3; `bind` (cores per output dimension) and `scope` (where its
    output lives) come from Algorithm 4.

    ```mlir
    %s0 = instance.instance "stage1" [0 of 4 along 2] (%x0, %w)
        {order = 0 : i64, bind = array<i64: 1, 8, 1, 1>, scope = #instance<scope lb>}
        : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
    ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
      %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
      instance.yield %c : tensor<1x64x14x56xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$group, I64Attr:$index, I64Attr:$count,
      I64Attr:$dim, Variadic<AnyType>:$inputs,
      OptionalAttr<I64Attr>:$order,
      OptionalAttr<DenseI64ArrayAttr>:$bind,
      OptionalAttr<Instance_ScopeAttr>:$scope);
  let results = (outs Variadic<Instance_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $group `[` $index `of` $count `along` $dim `]` `(` $inputs `)` attr-dict
    `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Instance_ConcatOp : Instance_Op<"concat", [Pure]> {
  let summary = "Join instance outputs back into the group's output (GraphTurbo §3.5).";
  let description = [{
    Same rule as `graph.concat`: operands agree off `axis` and add up along it.

    ```mlir
    %y = instance.concat %s0, %s1 along 2 : (tensor<1x64x28x56xf32>, tensor<1x64x28x56xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Variadic<Instance_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Instance_Tensor:$result);
  let assemblyFormat = "$inputs `along` $axis attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
}

def Instance_SliceOp : Instance_Op<"slice", [Pure]> {
  let summary = "The part of a tensor one instance reads (GraphTurbo §3.3, §3.6).";
  let description = [{
    The box of `source` that starts at `offsets` and has the result's shape:
    what a consumer instance reads of a producer's output when its input
    slice is not exactly one producer instance's (a halo, a row range of a
    larger tensor, a channel range of a weight). The inverse of
    `instance.concat`, it is the split op of §3.6.

    ```mlir
    %s = instance.slice %x [0, 0, 13, 0] : tensor<1x64x56x56xf32> -> tensor<1x64x16x56xf32>
    ```
  }];
  let arguments = (ins Instance_Tensor:$source, DenseI64ArrayAttr:$offsets);
  let results = (outs Instance_Tensor:$result);
  let assemblyFormat = "$source $offsets attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Instance_CopyOp : Instance_Op<"copy", [Pure, SameOperandsAndResultType]> {
  let summary = "Move a tensor to another memory scope (GraphTurbo §3.5).";
  let description = [{
    For a consumer that needs the tensor in a different scope than its
    producer left it, for example when a binding mismatch forced it to GB.

    ```mlir
    %g = instance.copy %s0 to gb : tensor<1x64x14x56xf32>
    ```
  }];
  let arguments = (ins Instance_Tensor:$source, Instance_ScopeAttr:$scope);
  let results = (outs Instance_Tensor:$result);
  let assemblyFormat = "$source `to` $scope attr-dict `:` type($result)";
}

def Instance_RedistributeOp : Instance_Op<"redistribute",
    [Pure, SameOperandsAndResultType]> {
  let summary = "Change the binding of a tensor to cores (GraphTurbo §3.5).";
  let description = [{
    Both bindings give the number of cores each dimension of the tensor is
    spread over; the total number of cores must not exceed what the target has,
    which the op cannot check (it does not know the target) and `instance-bind`
    ensures (its bindings use at most one cluster's cores).

    ```mlir
    %r = instance.redistribute %x from [1, 8, 1, 1] to [1, 1, 8, 1] : tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Instance_Tensor:$source, DenseI64ArrayAttr:$from,
      DenseI64ArrayAttr:$to);
  let results = (outs Instance_Tensor:$result);
  let assemblyFormat = "$source `from` $from `to` $to attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // TURBINE_INSTANCE_OPS
