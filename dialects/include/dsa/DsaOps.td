//===- DsaOps.td - Turbine dsa dialect ---------------------*- tablegen -*-===//
//
// The machine: buffers in the memory levels of the accelerator, asynchronous
// DMA, compute-unit instructions, and kernels launched on sets of cores.
//
//===----------------------------------------------------------------------===//

#ifndef TURBINE_DSA_OPS
#define TURBINE_DSA_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"

def Dsa_Dialect : Dialect {
  let name = "dsa";
  let cppNamespace = "::turbine::dsa";
  let summary = "The accelerator: memory levels, DMA, compute units, kernels.";
  let description = [{
    The `dsa` dialect describes programs for the domain-specific accelerator of
    GraphTurbo's Fig. 1: clusters of cores, each core with a matrix engine, a
    vector engine and a vector core and a small local buffer (LB), a global
    buffer (GB) per cluster, and DDR. The module's `dsa.target` attribute
    (`#dsa.target<...>`) gives the sizes and speeds of one such machine.

    Buffers are builtin memrefs whose memory space is `#dsa.memory_space<lb>`,
    `<gb>` or `<ddr>`. Every instruction (DMA, matrix and vector compute) is
    asynchronous: it may wait on tokens and returns a `!dsa.token` that later
    instructions or `dsa.wait` use, which is how DMA for the next tile overlaps
    compute on the current one. A `dsa.kernel` is the code one core runs; a
    `dsa.launch` runs it on a set of cores, each of which finds its own slice
    with `dsa.core_id`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
}

class Dsa_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dsa_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

def Dsa_TokenType : TypeDef<Dsa_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "Completion of an asynchronous instruction.";
}

def Dsa_Token : Type<CPred<"::llvm::isa<::turbine::dsa::TokenType>($_self)">,
                     "dsa token", "::turbine::dsa::TokenType">,
    BuildableType<"::turbine::dsa::TokenType::get($_builder.getContext())">;

def Dsa_MemorySpace : I32EnumAttr<"MemorySpace", "a level of the memory hierarchy", [
      I32EnumAttrCase<"lb", 0>,
      I32EnumAttrCase<"gb", 1>,
      I32EnumAttrCase<"ddr", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::dsa";
}

def Dsa_MemorySpaceAttr : EnumAttr<Dsa_Dialect, Dsa_MemorySpace, "memory_space"> {
  let summary = "Memory space of a buffer: a core's LB, its cluster's GB, or DDR.";
  let assemblyFormat = "`<` $value `>`";
}

def Dsa_BinaryKind : I32EnumAttr<"BinaryKind", "elementwise binary vector operation", [
      I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
      I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"div", 3>,
      I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>,
      I32EnumAttrCase<"pow", 6>, I32EnumAttrCase<"fmod", 7>,
      I32EnumAttrCase<"mod", 8>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::dsa";
}
def Dsa_BinaryKindAttr : EnumAttr<Dsa_Dialect, Dsa_BinaryKind, "binary">;

def Dsa_UnaryKind : I32EnumAttr<"UnaryKind", "elementwise unary vector operation", [
      I32EnumAttrCase<"relu", 0>, I32EnumAttrCase<"sigmoid", 1>,
      I32EnumAttrCase<"tanh", 2>, I32EnumAttrCase<"exp", 3>,
      I32EnumAttrCase<"log", 4>, I32EnumAttrCase<"sqrt", 5>,
      I32EnumAttrCase<"rsqrt", 6>, I32EnumAttrCase<"erf", 7>,
      I32EnumAttrCase<"gelu", 8>, I32EnumAttrCase<"silu", 9>,
      I32EnumAttrCase<"neg", 10>, I32EnumAttrCase<"reciprocal", 11>,
      I32EnumAttrCase<"clip", 12>, I32EnumAttrCase<"copy", 13>,
      I32EnumAttrCase<"affine", 14>, I32EnumAttrCase<"abs", 15>,
      I32EnumAttrCase<"gelu_tanh", 16>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::dsa";
}
def Dsa_UnaryKindAttr : EnumAttr<Dsa_Dialect, Dsa_UnaryKind, "unary">;

def Dsa_PoolKind : I32EnumAttr<"PoolKind", "2-D pooling window", [
      I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"avg", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::dsa";
}
def Dsa_PoolKindAttr : EnumAttr<Dsa_Dialect, Dsa_PoolKind, "pool">;

def Dsa_ReduceKind : I32EnumAttr<"ReduceKind", "reduction along one axis", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>, I32EnumAttrCase<"max", 2>,
      I32EnumAttrCase<"prod", 3>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::dsa";
}
def Dsa_ReduceKindAttr : EnumAttr<Dsa_Dialect, Dsa_ReduceKind, "reduce">;

def Dsa_ComparePredicate : I32EnumAttr<"ComparePredicate", "elementwise comparison", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>, I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>, I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::dsa";
}
def Dsa_ComparePredicateAttr : EnumAttr<Dsa_Dialect, Dsa_ComparePredicate, "compare">;

// A double in attribute syntax, written as an integer or a decimal: target
// files give clocks and bandwidths as decimals, which MLIR's built-in parameter
// parsers do not cover.
class Dsa_DoubleParameter<string desc> : AttrOrTypeParameter<"::llvm::APFloat", desc> {
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    int64_t integer;
    ::mlir::OptionalParseResult asInteger = $_parser.parseOptionalInteger(integer);
    if (asInteger.has_value()) {
      if (::mlir::failed(*asInteger))
        return ::mlir::failure();
      return ::llvm::APFloat(static_cast<double>(integer));
    }
    double value;
    if ($_parser.parseFloat(value))
      return ::mlir::failure();
    return ::llvm::APFloat(value);
  }() }];
  let printer = [{ $_printer << $_self.convertToDouble() }];
}

def Dsa_TargetAttr : AttrDef<Dsa_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The accelerator a module is compiled for.";
  let description = [{
    Made from a target description file (see docs/Targets.md) by the
    `dsa-set-target` pass; passes read capacities, counts and the cost figures
    of their estimates from it (the same figures the runtime's timing model
    uses). Sizes are in bytes, bandwidths in bytes per cycle, the clock in MHz,
    latencies in cycles. `*_per_core` counts the compute units of each kind in
    one core; `matrix_flops` is one matrix engine's f32 flops per cycle;
    `dma_setup`, `compute_setup`, `barrier` and `kernel_launch` are the fixed
    costs of a DMA, of a compute instruction, of a barrier and of a kernel
    launch (0 when not given).

    ```mlir
    module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8,
        matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1,
        lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000,
        ddr_gb_bandwidth = 32, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512,
        dma_setup = 100, compute_setup = 16, barrier = 50, kernel_launch = 2000>} {}
    ```
  }];
  let parameters = (ins StringRefParameter<"target name">:$name,
      "int64_t":$clusters, "int64_t":$cores_per_cluster,
      "int64_t":$matrix_engines_per_core, "int64_t":$vector_engines_per_core,
      "int64_t":$vector_cores_per_core,
      "int64_t":$lb_bytes, "int64_t":$gb_bytes, "int64_t":$ddr_bytes,
      Dsa_DoubleParameter<"clock in MHz">:$clock_mhz,
      Dsa_DoubleParameter<"DDR-GB bytes per cycle">:$ddr_gb_bandwidth,
      Dsa_DoubleParameter<"GB-LB bytes per cycle">:$gb_lb_bandwidth,
      Dsa_DoubleParameter<"LB-LB bytes per cycle">:$lb_lb_bandwidth,
      Dsa_DoubleParameter<"f32 flops per cycle of a matrix engine">:$matrix_flops,
      "int64_t":$dma_setup, "int64_t":$compute_setup, "int64_t":$barrier,
      DefaultValuedParameter<"int64_t", "0">:$kernel_launch);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Total number of cores: launches may name cores 0 .. getCoreCount() - 1.
    int64_t getCoreCount() const { return getClusters() * getCoresPerCluster(); }
  }];
}

def Dsa_Buffer : MemRefOf<[AnyType]>;

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def Dsa_AllocOp : Dsa_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "Allocate a buffer in LB, GB or DDR.";
  let description = [{
    The memory space of the result type says where. Inside a kernel an LB
    buffer belongs to the core running it; GB to its cluster. On the host, an
    LB or GB buffer is placed with `cluster` (and, for LB, `core`, the core's
    index within its cluster; both 0 when absent): it lives until its
    `dsa.dealloc`, across launches, so that a schedule can keep data on chip
    from one kernel to the next.

    ```mlir
    %tile = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
    %stage = dsa.alloc {cluster = 2 : i64} : memref<2x256x56x56xf32, #dsa.memory_space<gb>>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$cluster, OptionalAttr<I64Attr>:$core);
  let results = (outs Res<Dsa_Buffer, "", [MemAlloc]>:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Dsa_DeallocOp : Dsa_Op<"dealloc", [MemoryEffects<[MemFree]>]> {
  let summary = "Free a buffer made by dsa.alloc.";
  let arguments = (ins Arg<Dsa_Buffer, "", [MemFree]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
}

//===----------------------------------------------------------------------===//
// Asynchronous instructions
//===----------------------------------------------------------------------===//

def Dsa_DmaOp : Dsa_Op<"dma"> {
  let summary = "Asynchronous copy between buffers, possibly strided.";
  let description = [{
    Copies `source` into `target` (same shape; same element type, or float
    types of different widths, converted on the way with rounding to nearest
    even; either may be a strided view from `memref.subview`) once the tokens
    in `after` are done; the result token completes when the copy has.

    ```mlir
    %t = dsa.dma %act to %tile after %t0 : memref<64x64xf32, strided<[224, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$source,
      Arg<Dsa_Buffer, "", [MemWrite]>:$target, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $source `to` $target (`after` $after^)? attr-dict `:` type($source) `,` type($target)
  }];
  let hasVerifier = 1;
}

def Dsa_GatherOp : Dsa_Op<"gather"> {
  let summary = "Asynchronous DMA gather of table slices selected by run-time indices.";
  let description = [{
    Slice `k` of `target` along `axis` becomes slice `indices[k]` of `table`
    (the indices in row-major order, i64 or i32; a negative index counts from
    the end of the axis), once the tokens in `after` are done: an embedding
    lookup, ONNX `Gather`. `target` has the table's shape with the extent at
    `axis` replaced by the number of indices, and the table's element type. A
    DMA channel reads the indices and moves the slices, so the table may stay
    in DDR. An index outside the table fails the launch with an error naming
    the instruction.

    ```mlir
    %t = dsa.gather %table[%ids] to %rows {axis = 0 : i64} : memref<30522x768xf32, #dsa.memory_space<ddr>>, memref<128xi64, #dsa.memory_space<lb>>, memref<128x768xf32, #dsa.memory_space<ddr>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$table,
      Arg<Dsa_Buffer, "", [MemRead]>:$indices, Arg<Dsa_Buffer, "", [MemWrite]>:$target,
      I64Attr:$axis, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $table `[` $indices `]` `to` $target (`after` $after^)? attr-dict `:` type($table) `,`
    type($indices) `,` type($target)
  }];
  let hasVerifier = 1;
}

def Dsa_GatherElementsOp : Dsa_Op<"gather_elements"> {
  let summary = "Asynchronous DMA gather of single elements selected by run-time indices.";
  let description = [{
    `indices` and `target` have one shape, `data` has it too but along `axis`;
    `target[c]` is `data[c]` with coordinate `axis` replaced by `indices[c]`
    (i64 or i32; a negative index counts from the end), once the tokens in
    `after` are done: ONNX `GatherElements`, a loss picking each sample's
    label score. `target` has the data's element type. An index outside the
    data fails the launch with an error naming the instruction.

    ```mlir
    %t = dsa.gather_elements %scores[%labels] to %picked {axis = 1 : i64} : memref<32x1000xf32, #dsa.memory_space<ddr>>, memref<32x1xi64, #dsa.memory_space<ddr>>, memref<32x1xf32, #dsa.memory_space<ddr>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$data,
      Arg<Dsa_Buffer, "", [MemRead]>:$indices, Arg<Dsa_Buffer, "", [MemWrite]>:$target,
      I64Attr:$axis, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $data `[` $indices `]` `to` $target (`after` $after^)? attr-dict `:` type($data) `,`
    type($indices) `,` type($target)
  }];
  let hasVerifier = 1;
}

def Dsa_ScatterElementsOp : Dsa_Op<"scatter_elements"> {
  let summary = "Asynchronous DMA scatter of single elements to run-time indices.";
  let description = [{
    `indices` and `updates` have one shape, `target` has it too but along
    `axis`; once the tokens in `after` are done, `updates[c]` lands on
    `target[c]` with coordinate `axis` replaced by `indices[c]` (i64 or i32; a
    negative index counts from the end), in row-major order of `c`: ONNX
    `ScatterElements` into a target that already holds the data. Without
    `reduction` an update replaces the element (the last of duplicates wins);
    with `add`, `mul`, `max` or `min` (floats, i64 or i32) the DMA engine combines
    the two on write. An index outside the target fails the launch with an
    error naming the instruction.

    ```mlir
    %t = dsa.scatter_elements %updates[%indices] into %data {axis = 1 : i64, reduction = #dsa<binary add>} : memref<2x2xf32, #dsa.memory_space<ddr>>, memref<2x2xi64, #dsa.memory_space<ddr>>, memref<2x5xf32, #dsa.memory_space<ddr>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$updates,
      Arg<Dsa_Buffer, "", [MemRead]>:$indices,
      Arg<Dsa_Buffer, "", [MemRead, MemWrite]>:$target, I64Attr:$axis,
      OptionalAttr<Dsa_BinaryKindAttr>:$reduction, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $updates `[` $indices `]` `into` $target (`after` $after^)? attr-dict `:` type($updates) `,`
    type($indices) `,` type($target)
  }];
  let hasVerifier = 1;
}

def Dsa_WaitOp : Dsa_Op<"wait"> {
  let summary = "Block the core until the given tokens are done.";
  let arguments = (ins Variadic<Dsa_Token>:$tokens);
  let assemblyFormat = "$tokens attr-dict";
}

def Dsa_MatmulOp : Dsa_Op<"matmul"> {
  let summary = "Matrix-engine tile product: acc (+)= lhs x rhs, all in LB.";
  let description = [{
    `[M, K] x [K, N]` into `[M, N]`; with `accumulate` the product is added to
    the accumulator's contents, otherwise it overwrites them. Like every
    compute instruction it takes floats of any widths (or one element type
    throughout): products accumulate in f32 and round once to the
    accumulator's type when stored, so f16 tiles into an f32 accumulator
    compute at the f16 rate without rounding partial sums.

    ```mlir
    %t = dsa.matmul %a, %b into %c accumulate after %t0
        : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$lhs,
      Arg<Dsa_Buffer, "", [MemRead]>:$rhs,
      Arg<Dsa_Buffer, "", [MemRead, MemWrite]>:$acc,
      UnitAttr:$accumulate, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $lhs `,` $rhs `into` $acc (`accumulate` $accumulate^)? (`after` $after^)? attr-dict
    `:` type($lhs) `,` type($rhs) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Dsa_Conv2dOp : Dsa_Op<"conv2d"> {
  let summary = "Matrix-engine convolution tile (NCHW input, OIHW filter), all in LB.";
  let description = [{
    The output tile's shape must follow from the input tile, the filter and
    the window attributes, exactly as for `graph.conv2d`; a tile that starts
    inside the image is given with its padding already resolved. With
    `accumulate` the result is added to the output's contents (input channels
    split into chunks), otherwise it overwrites them.

    ```mlir
    %t = dsa.conv2d %in, %w into %out {pads = array<i64: 1, 1, 1, 1>}
        : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$input,
      Arg<Dsa_Buffer, "", [MemRead]>:$filter,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      DefaultValuedAttr<I64Attr, "1">:$groups, UnitAttr:$accumulate,
      Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $input `,` $filter `into` $output (`accumulate` $accumulate^)? (`after` $after^)? attr-dict
    `:` type($input) `,` type($filter) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Dsa_BinaryOp : Dsa_Op<"binary"> {
  let summary = "Vector-engine elementwise binary operation with broadcasting, in LB.";
  let description = [{
    ```mlir
    %t = dsa.binary add %x, %bias into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Dsa_BinaryKindAttr:$kind,
      Arg<Dsa_Buffer, "", [MemRead]>:$lhs, Arg<Dsa_Buffer, "", [MemRead]>:$rhs,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs `into` $output (`after` $after^)? attr-dict
    `:` type($lhs) `,` type($rhs) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Dsa_UnaryOp : Dsa_Op<"unary"> {
  let summary = "Vector-unit elementwise unary operation, in LB.";
  let description = [{
    `clip` needs `min` and `max`, `affine` (`scale * x + shift`, how an
    epsilon or a scale is applied without a constant buffer) needs `scale` and
    `shift`; other kinds take no attribute.

    ```mlir
    %t = dsa.unary relu %x into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Dsa_UnaryKindAttr:$kind, Arg<Dsa_Buffer, "", [MemRead]>:$input,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output, OptionalAttr<F32Attr>:$min,
      OptionalAttr<F32Attr>:$max, OptionalAttr<F32Attr>:$scale,
      OptionalAttr<F32Attr>:$shift, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $kind $input `into` $output (`after` $after^)? attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Dsa_ConvertOp : Dsa_Op<"convert"> {
  let summary = "Vector-unit conversion between element types, in LB.";
  let description = [{
    Each element of `input` converted to the element type of `output` (same
    shape), as ONNX `Cast` does: floats to integers truncate toward zero
    (saturating; NaN becomes 0), integers wrap to narrower integers, any
    non-zero value becomes `true` (`i1`), and booleans become 0 or 1.

    ```mlir
    %t = dsa.convert %mask into %bias : memref<1x128xi64, #dsa.memory_space<lb>>, memref<1x128xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$input,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $input `into` $output (`after` $after^)? attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Dsa_CompareOp : Dsa_Op<"compare"> {
  let summary = "Vector-unit elementwise comparison into booleans, in LB.";
  let description = [{
    `output` (`i1`) holds `lhs predicate rhs` element by element; `lhs` and
    `rhs` have one element type, any; all three the same shape. Floats compare
    as IEEE does: every comparison with NaN is false but `ne`.

    ```mlir
    %t = dsa.compare lt %x, %y into %m : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>>, memref<64xi1, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Dsa_ComparePredicateAttr:$predicate, Arg<Dsa_Buffer, "", [MemRead]>:$lhs,
      Arg<Dsa_Buffer, "", [MemRead]>:$rhs, Arg<Dsa_Buffer, "", [MemWrite]>:$output,
      Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs `into` $output (`after` $after^)? attr-dict `:` type($lhs) `,`
    type($rhs) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Dsa_SelectOp : Dsa_Op<"select"> {
  let summary = "Vector-unit elementwise selection by a boolean condition, in LB.";
  let description = [{
    `output` holds `lhs` where `condition` (`i1`) holds, else `rhs`; `lhs`,
    `rhs` and `output` have one element type, any; all four the same shape.

    ```mlir
    %t = dsa.select %m, %x, %y into %z : memref<64xi1, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$condition,
      Arg<Dsa_Buffer, "", [MemRead]>:$lhs, Arg<Dsa_Buffer, "", [MemRead]>:$rhs,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs `into` $output (`after` $after^)? attr-dict `:`
    type($condition) `,` type($lhs) `,` type($rhs) `,` type($output)
  }];
  let hasVerifier = 1;
}

class Dsa_ArgReduceOp<string mnemonic, string extreme> : Dsa_Op<mnemonic> {
  let summary = "Vector-core index of each line's " # extreme # " element, in LB.";
  let description = [{
    `output` (i64) holds, for each line of `input` (floats) along `axis`, the
    index of its extreme element: the first, or the last with `select_last`;
    a NaN is the extreme and the first NaN wins. `output` has the input's
    shape with extent 1 at `axis`.

    ```mlir
    %t = dsa.argmax %scores into %classes {axis = 1 : i64} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<8x1xi64, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$input,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output, I64Attr:$axis, UnitAttr:$select_last,
      Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $input `into` $output (`after` $after^)? attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Dsa_ArgMaxOp : Dsa_ArgReduceOp<"argmax", "largest">;
def Dsa_ArgMinOp : Dsa_ArgReduceOp<"argmin", "smallest">;

def Dsa_TopKOp : Dsa_Op<"top_k"> {
  let summary = "Vector-core k largest or smallest elements of each line, in LB.";
  let description = [{
    For each line of `input` (floats) along `axis`, `values` (floats) receives its
    `k` largest elements (its smallest without `largest`) in order, the
    extreme first, and `indices` (i64) their indices along the axis; `k` is
    the results' extent at `axis`, at most the input's, and they have the
    input's shape elsewhere. Equal elements keep the lower index first; NaNs
    come before every number in either order.

    ```mlir
    %t = dsa.top_k %scores into %best, %classes {axis = 1 : i64, largest} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<8x5xf32, #dsa.memory_space<lb>>, memref<8x5xi64, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Arg<Dsa_Buffer, "", [MemRead]>:$input,
      Arg<Dsa_Buffer, "", [MemWrite]>:$values, Arg<Dsa_Buffer, "", [MemWrite]>:$indices,
      I64Attr:$axis, UnitAttr:$largest, Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $input `into` $values `,` $indices (`after` $after^)? attr-dict `:` type($input) `,`
    type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Dsa_PoolOp : Dsa_Op<"pool"> {
  let summary = "Vector-core 2-D pooling over an NCHW tile, in LB.";
  let description = [{
    ```mlir
    %t = dsa.pool max %x into %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x4x4xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Dsa_PoolKindAttr:$kind, Arg<Dsa_Buffer, "", [MemRead]>:$input,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
      Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $kind $input `into` $output (`after` $after^)? attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Dsa_ReduceOp : Dsa_Op<"reduce"> {
  let summary = "Vector-core reduction along one axis (kept as size 1), in LB.";
  let description = [{
    ```mlir
    %t = dsa.reduce max %x into %m {axis = 1 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x1xf32, #dsa.memory_space<lb>>
    ```
  }];
  let arguments = (ins Dsa_ReduceKindAttr:$kind, Arg<Dsa_Buffer, "", [MemRead]>:$input,
      Arg<Dsa_Buffer, "", [MemWrite]>:$output, I64Attr:$axis,
      Variadic<Dsa_Token>:$after);
  let results = (outs Dsa_Token:$token);
  let assemblyFormat = [{
    $kind $input `into` $output (`after` $after^)? attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Dsa_KernelOp : Dsa_Op<"kernel", [FunctionOpInterface, IsolatedFromAbove,
    AutomaticAllocationScope]> {
  let summary = "The code one core runs when the kernel is launched.";
  let description = [{
    A kernel takes buffers (and indices) and returns nothing: it writes its
    results into buffers. Every core of a launch runs the same body and finds
    its share with `dsa.core_id`.

    ```mlir
    dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
      dsa.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
      TypeAttrOf<FunctionType>:$function_type,
      OptionalAttr<DictArrayAttr>:$arg_attrs,
      OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
  }];
}

def Dsa_ReturnOp : Dsa_Op<"return", [Pure, Terminator, ReturnLike, HasParent<"KernelOp">]> {
  let summary = "End of a kernel.";
  let assemblyFormat = "attr-dict";
}

def Dsa_LaunchOp : Dsa_Op<"launch", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Run a kernel on a set of cores and wait for all of them.";
  let description = [{
    Cores are numbered `cluster * cores_per_cluster + core`; each must exist on
    the module's target when one is set. The launch returns once every core has
    finished.

    ```mlir
    dsa.launch @relu(%x) on [0, 1, 2, 3] : memref<8x64xf32, #dsa.memory_space<ddr>>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Variadic<AnyType>:$args,
      DenseI64ArrayAttr:$cores);
  let assemblyFormat = [{
    $kernel `(` $args `)` `on` $cores attr-dict (`:` type($args)^)?
  }];
  let hasVerifier = 1;
}

def Dsa_BarrierOp : Dsa_Op<"barrier"> {
  let summary = "Wait until every core of the launch reaches this point.";
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Dsa_CoreIdOp : Dsa_Op<"core_id", [Pure]> {
  let summary = "Position of the running core within its launch's core set.";
  let results = (outs Index:$id);
  let assemblyFormat = "attr-dict `:` type($id)";
  let hasVerifier = 1;
}

def Dsa_ClusterIdOp : Dsa_Op<"cluster_id", [Pure]> {
  let summary = "Cluster of the running core.";
  let results = (outs Index:$id);
  let assemblyFormat = "attr-dict `:` type($id)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control flow between launches (Cocktailer)
//===----------------------------------------------------------------------===//

def Dsa_ScalarBuffer : Type<And<[MemRefOf<[I1, I8, UI8, I32, I64]>.predicate,
    CPred<"::llvm::cast<::mlir::MemRefType>($_self).hasStaticShape()">,
    CPred<"::llvm::cast<::mlir::MemRefType>($_self).getNumElements() == 1">]>,
    "a one-element memref of integers or booleans">;

def Dsa_ReadScalarOp : Dsa_Op<"read_scalar"> {
  let summary = "Read a condition or count from a one-element buffer.";
  let description = [{
    Waits until the launches before it have finished and returns the buffer's
    element widened to i64 (a boolean is 0 or 1). Outside `dsa.persistent` it
    is a host synchronisation: the host reads the value back over its link
    (the target's `readback` latency). Inside, the cores read it themselves
    and branch (the target's `branch` latency): control flow on the device.

    ```mlir
    %c = dsa.read_scalar %cond : memref<1xi1, #dsa.memory_space<ddr>>
    ```
  }];
  let arguments = (ins Arg<Dsa_ScalarBuffer, "", [MemRead]>:$buffer);
  let results = (outs I64:$value);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Dsa_WriteScalarOp : Dsa_Op<"write_scalar"> {
  let summary = "Write a loop counter into a one-element buffer.";
  let description = [{
    Stores `value` into the buffer (of any integer or boolean element type
    that holds it; a value it cannot hold fails the run) once the launches
    before it have finished, for the kernels after it to read: a loop's
    iteration number. Outside `dsa.persistent` the host's write
    travels with the next launch; inside, the vector core stores its own
    counter. Neither costs simulated time.

    ```mlir
    dsa.write_scalar %i, %counter : memref<1xi64, #dsa.memory_space<ddr>>
    ```
  }];
  let arguments = (ins I64:$value, Arg<Dsa_ScalarBuffer, "", [MemWrite]>:$buffer);
  let assemblyFormat = "$value `,` $buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Dsa_LoopCheckOp : Dsa_Op<"loop_check"> {
  let summary = "The device's watchdog on a loop about to run iteration `iteration`.";
  let description = [{
    Returns whether the loop may run iteration `iteration`: false, and the run
    fails with an error, when it reaches the device's loop limit, so that a
    loop whose condition never turns false stops with a clear error instead of
    running for ever.

    ```mlir
    %allowed = dsa.loop_check %i
    ```
  }];
  let arguments = (ins I64:$iteration);
  let results = (outs I1:$allowed);
  let assemblyFormat = "$iteration attr-dict";
  let hasVerifier = 1;
}

def Dsa_FramePushOp : Dsa_Op<"frame_push"> {
  let summary = "Enter a call that may recurse, within the device's depth of nested calls.";
  let description = [{
    Returns whether the call may go on: false, and the run fails with an
    error naming the call, when as many calls are already running as the
    device allows, so that a recursion that does not end stops with a clear
    error instead of overflowing a stack. A call it allows ends with
    `dsa.frame_pop`.

    ```mlir
    %allowed = dsa.frame_push
    scf.if %allowed {
      func.call @walk(%node) : (memref<4xf32, #dsa.memory_space<ddr>>) -> ()
      dsa.frame_pop
    }
    ```
  }];
  let results = (outs I1:$allowed);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Dsa_FramePopOp : Dsa_Op<"frame_pop"> {
  let summary = "Leave a call dsa.frame_push entered.";
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Dsa_PersistentOp : Dsa_Op<"persistent", [SingleBlockImplicitTerminator<"YieldOp">,
    RecursiveMemoryEffects]> {
  let summary = "Launches and control flow the device sequences itself.";
  let description = [{
    The launches in the region are the steps of one persistent kernel
    (Cocktailer's uProgram): the first pays the launch latency, each later one
    starts when the cores meet at a barrier, and `dsa.read_scalar` inside is
    read by the cores rather than the host. Host control flow in the region
    (`scf.if`, `scf.while` on such values) is therefore control flow on the
    device. The region yields the buffers it chose (a loop's final carried
    values).

    ```mlir
    %r = dsa.persistent -> memref<4xf32, #dsa.memory_space<ddr>> {
      %c = dsa.read_scalar %cond : memref<1xi1, #dsa.memory_space<ddr>>
      ...
      dsa.yield %b : memref<4xf32, #dsa.memory_space<ddr>>
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` type($results)^)? $body attr-dict";
  let hasVerifier = 1;
}

def Dsa_YieldOp : Dsa_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"PersistentOp">]> {
  let summary = "End of a dsa.persistent region, passing its results on.";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // TURBINE_DSA_OPS
