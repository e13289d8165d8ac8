//! The ONNX importer against the graph dialect's verifiers: one small model per lowering variant
//! (attribute forms, broadcasting, 1-D and empty tensors, the inputs that become attributes), each
//! imported and then parsed and verified by MLIR. An importer that writes a wrong result type or
//! attribute fails here with the verifier's message; the lit tests under test/Translate check the
//! text of the main cases.

use turbine_onnx::model_builder::{
    encode, f32_tensor, i64_tensor, node, GraphBuilder, NodeBuilder,
};
use turbine_onnx::proto::{ModelProto, TensorProto};
use turbine_onnx::{import, ElementType, ImportOptions};

const F32: ElementType = ElementType::F32;
const I64: ElementType = ElementType::I64;

/// A model of one node `op(x, *constants)` on input `x` of `shape`, whose output `y` is returned.
fn unary(shape: &[i64], node: NodeBuilder, constants: Vec<TensorProto>) -> ModelProto {
    let mut graph = GraphBuilder::new("case").input("x", F32, shape);
    for constant in constants {
        graph = graph.initializer(constant);
    }
    graph.node(node).output("y").model(18)
}

/// A model of one node on several inputs (name, element type, shape), at `opset`.
fn multi(
    inputs: &[(&str, ElementType, &[i64])],
    node: NodeBuilder,
    outputs: &[&str],
    opset: i64,
) -> ModelProto {
    multi_with(inputs, vec![], node, outputs, opset)
}

/// [`multi`] with initializers.
fn multi_with(
    inputs: &[(&str, ElementType, &[i64])],
    constants: Vec<TensorProto>,
    node: NodeBuilder,
    outputs: &[&str],
    opset: i64,
) -> ModelProto {
    let mut graph = GraphBuilder::new("case");
    for (name, element, shape) in inputs {
        graph = graph.input(name, *element, shape);
    }
    for constant in constants {
        graph = graph.initializer(constant);
    }
    graph = graph.node(node);
    for output in outputs {
        graph = graph.output(output);
    }
    graph.model(opset)
}

fn ramp(name: &str, dims: &[i64]) -> TensorProto {
    let count = dims.iter().product::<i64>() as usize;
    f32_tensor(
        name,
        dims,
        &(0..count)
            .map(|index| index as f32 * 0.25 - 1.0)
            .collect::<Vec<_>>(),
    )
}

fn ints(name: &str, values: &[i64]) -> TensorProto {
    i64_tensor(name, &[values.len() as i64], values)
}

fn cases() -> Vec<(&'static str, &'static str, ModelProto)> {
    vec![
        (
            "conv: dilated, strided, SAME_LOWER, grouped, with bias",
            "graph.conv2d",
            unary(
                &[1, 4, 9, 9],
                node("Conv", &["x", "w", "b"], &["y"])
                    .ints("dilations", &[2, 2])
                    .ints("strides", &[2, 2])
                    .string("auto_pad", "SAME_LOWER")
                    .int("group", 2),
                vec![ramp("w", &[6, 2, 3, 3]), ramp("b", &[6])],
            ),
        ),
        (
            "conv: VALID with a rectangular kernel",
            "graph.conv2d",
            unary(
                &[2, 3, 7, 5],
                node("Conv", &["x", "w"], &["y"]).string("auto_pad", "VALID"),
                vec![ramp("w", &[4, 3, 3, 1])],
            ),
        ),
        (
            "max pool: dilations, ceil mode, SAME_UPPER",
            "graph.max_pool2d",
            unary(
                &[1, 2, 10, 10],
                node("MaxPool", &["x"], &["y"])
                    .ints("kernel_shape", &[3, 3])
                    .ints("dilations", &[2, 1])
                    .ints("strides", &[3, 3])
                    .string("auto_pad", "SAME_UPPER")
                    .int("ceil_mode", 1),
                vec![],
            ),
        ),
        (
            "average pool: VALID, ceil mode",
            "graph.avg_pool2d",
            unary(
                &[1, 2, 7, 7],
                node("AveragePool", &["x"], &["y"])
                    .ints("kernel_shape", &[2, 2])
                    .ints("strides", &[2, 2])
                    .int("ceil_mode", 1),
                vec![],
            ),
        ),
        (
            "global average pool on a 1-D signal",
            "graph.global_avg_pool",
            unary(
                &[2, 4, 7],
                node("GlobalAveragePool", &["x"], &["y"]),
                vec![],
            ),
        ),
        (
            "gemm: transposed A, scalar C, alpha and beta",
            "graph.gemm",
            unary(
                &[5, 3],
                node("Gemm", &["x", "w", "c"], &["y"])
                    .int("transA", 1)
                    .float("alpha", 0.5)
                    .float("beta", 2.0),
                vec![ramp("w", &[5, 4]), f32_tensor("c", &[], &[1.0])],
            ),
        ),
        (
            "gemm: C of shape [M, 1], no transposes",
            "graph.gemm",
            unary(
                &[2, 3],
                node("Gemm", &["x", "w", "c"], &["y"]),
                vec![ramp("w", &[3, 4]), ramp("c", &[2, 1])],
            ),
        ),
        (
            "gemm without C",
            "graph.gemm",
            unary(
                &[2, 3],
                node("Gemm", &["x", "w"], &["y"]).int("transB", 1),
                vec![ramp("w", &[4, 3])],
            ),
        ),
        (
            "matmul: broadcast batches [3, 1, 4, 5] x [2, 5, 6]",
            "graph.batch_matmul",
            multi(
                &[("a", F32, &[3, 1, 4, 5]), ("b", F32, &[2, 5, 6])],
                node("MatMul", &["a", "b"], &["y"]),
                &["y"],
                13,
            ),
        ),
        (
            "matmul: a vector times a batch of matrices",
            "graph.batch_matmul",
            multi(
                &[("a", F32, &[5]), ("b", F32, &[2, 5, 6])],
                node("MatMul", &["a", "b"], &["y"]),
                &["y"],
                13,
            ),
        ),
        (
            "layer norm: axis 1, scale broadcast from [4] to [3, 4], no bias",
            "graph.layer_norm",
            unary(
                &[2, 3, 4],
                node("LayerNormalization", &["x", "scale"], &["y"]).int("axis", 1),
                vec![ramp("scale", &[4])],
            ),
        ),
        (
            "layer norm: axis 1 of [2, 1, 4], scale [4] reshaped to [1, 4], bias [1, 1] broadcast",
            "graph.layer_norm",
            unary(
                &[2, 1, 4],
                node("LayerNormalization", &["x", "scale", "bias"], &["y"]).int("axis", 1),
                vec![ramp("scale", &[4]), ramp("bias", &[1, 1])],
            ),
        ),
        (
            "softmax on axis 0",
            "graph.softmax",
            unary(
                &[3, 4],
                node("Softmax", &["x"], &["y"]).int("axis", 0),
                vec![],
            ),
        ),
        (
            "lrn",
            "graph.lrn",
            unary(
                &[1, 6, 3, 3],
                node("LRN", &["x"], &["y"])
                    .int("size", 3)
                    .float("bias", 2.0),
                vec![],
            ),
        ),
        (
            "batch norm on a matrix",
            "graph.batch_norm",
            unary(
                &[4, 3],
                node("BatchNormalization", &["x", "s", "b", "m", "v"], &["y"]),
                vec![
                    ramp("s", &[3]),
                    ramp("b", &[3]),
                    ramp("m", &[3]),
                    f32_tensor("v", &[3], &[1.0, 2.0, 3.0]),
                ],
            ),
        ),
        (
            "split by sizes",
            "graph.split",
            multi_with(
                &[("x", F32, &[2, 3])],
                vec![ints("sizes", &[1, 2])],
                node("Split", &["x", "sizes"], &["a", "b"]).int("axis", -1),
                &["a", "b"],
                13,
            ),
        ),
        (
            "split by num_outputs, the last piece smaller",
            "graph.split",
            multi(
                &[("x", F32, &[5, 2])],
                node("Split", &["x"], &["a", "b"]).int("num_outputs", 2),
                &["a", "b"],
                18,
            ),
        ),
        (
            "slice to an empty window",
            "graph.slice",
            unary(
                &[4, 3],
                node("Slice", &["x", "starts", "ends"], &["y"]),
                vec![ints("starts", &[3, 0]), ints("ends", &[1, 3])],
            ),
        ),
        (
            "pad: edge mode with negative (cropping) pads",
            "graph.pad",
            unary(
                &[3, 4],
                node("Pad", &["x", "pads"], &["y"]).string("mode", "edge"),
                vec![ints("pads", &[1, -1, 0, 2])],
            ),
        ),
        (
            "gather: a run-time scalar index",
            "graph.gather",
            multi(
                &[("x", F32, &[3, 4]), ("i", ElementType::I32, &[])],
                node("Gather", &["x", "i"], &["y"]).int("axis", 1),
                &["y"],
                13,
            ),
        ),
        (
            "expand: bidirectional broadcast of a run-time value",
            "graph.broadcast",
            unary(
                &[3, 1],
                node("Expand", &["x", "shape"], &["y"]),
                vec![ints("shape", &[2, 1, 4])],
            ),
        ),
        (
            "where with broadcasting",
            "graph.where",
            multi(
                &[
                    ("c", ElementType::Bool, &[2, 1]),
                    ("a", F32, &[3]),
                    ("b", F32, &[]),
                ],
                node("Where", &["c", "a", "b"], &["y"]),
                &["y"],
                13,
            ),
        ),
        (
            "cast to bool",
            "graph.cast",
            unary(&[3], node("Cast", &["x"], &["y"]).int("to", 9), vec![]),
        ),
        (
            "comparisons of integers",
            "graph.compare",
            multi(
                &[("a", I64, &[2, 3]), ("b", I64, &[3])],
                node("GreaterOrEqual", &["a", "b"], &["y"]),
                &["y"],
                13,
            ),
        ),
        (
            "clip with both bounds",
            "graph.clip",
            unary(
                &[4],
                node("Clip", &["x", "lo", "hi"], &["y"]),
                vec![
                    f32_tensor("lo", &[], &[-1.0]),
                    f32_tensor("hi", &[], &[1.0]),
                ],
            ),
        ),
        (
            "gelu, tanh approximation",
            "graph.gelu",
            unary(
                &[4],
                node("Gelu", &["x"], &["y"]).string("approximate", "tanh"),
                vec![],
            ),
        ),
        (
            "reduce sum over everything, keeping dimensions",
            "graph.reduce_sum",
            unary(&[2, 3], node("ReduceSum", &["x"], &["y"]), vec![]),
        ),
        (
            "reduce max with the opset-13 axes attribute",
            "graph.reduce_max",
            multi(
                &[("x", F32, &[2, 3, 4])],
                node("ReduceMax", &["x"], &["y"])
                    .ints("axes", &[0, -1])
                    .int("keepdims", 0),
                &["y"],
                13,
            ),
        ),
        (
            "integer mod with the divisor's sign",
            "graph.mod",
            multi(
                &[("a", I64, &[4]), ("b", I64, &[4])],
                node("Mod", &["a", "b"], &["y"]),
                &["y"],
                13,
            ),
        ),
        (
            "pow with a run-time integer exponent",
            "graph.cast",
            multi(
                &[("a", F32, &[4]), ("b", I64, &[])],
                node("Pow", &["a", "b"], &["y"]),
                &["y"],
                13,
            ),
        ),
        (
            "max of three",
            "graph.max",
            multi(
                &[("a", F32, &[4]), ("b", F32, &[1]), ("c", F32, &[])],
                node("Max", &["a", "b", "c"], &["y"]),
                &["y"],
                13,
            ),
        ),
        (
            "squeeze without axes",
            "graph.reshape",
            unary(&[1, 3, 1], node("Squeeze", &["x"], &["y"]), vec![]),
        ),
        (
            "flatten at axis 0",
            "graph.flatten",
            unary(
                &[2, 3],
                node("Flatten", &["x"], &["y"]).int("axis", 0),
                vec![],
            ),
        ),
        (
            "flatten at axis -1",
            "graph.flatten",
            unary(
                &[2, 3, 4],
                node("Flatten", &["x"], &["y"]).int("axis", -1),
                vec![],
            ),
        ),
        (
            "transpose, default permutation",
            "graph.transpose",
            unary(&[2, 3, 4], node("Transpose", &["x"], &["y"]), vec![]),
        ),
        (
            "concat with a constant operand",
            "graph.concat",
            unary(
                &[2, 3],
                node("Concat", &["x", "c"], &["y"]).int("axis", 0),
                vec![ramp("c", &[1, 3])],
            ),
        ),
        (
            "reshape with allowzero to an empty tensor",
            "graph.reshape",
            unary(
                &[0, 3],
                node("Reshape", &["x", "shape"], &["y"]).int("allowzero", 1),
                vec![ints("shape", &[3, 0])],
            ),
        ),
        (
            "a Constant node of value_floats",
            "graph.add",
            GraphBuilder::new("case")
                .input("x", F32, &[3])
                .node(node("Constant", &[], &["c"]).floats("value_floats", &[1.0, 2.0, 3.0]))
                .node(node("Add", &["x", "c"], &["y"]))
                .output("y")
                .model(13),
        ),
        (
            "relu on a scalar",
            "graph.relu",
            unary(&[], node("Relu", &["x"], &["y"]), vec![]),
        ),
        (
            "a large weight in the side file",
            "graph.weight",
            unary(
                &[1, 64],
                node("Mul", &["x", "w"], &["y"]),
                vec![ramp("w", &[64])],
            ),
        ),
    ]
}

#[test]
fn every_lowering_verifies() {
    let context = turbine_dialects::create_context();
    let options = ImportOptions {
        weights_file: "case.safetensors".into(),
        ..Default::default()
    };
    let mut failures = Vec::new();
    for (what, op, model) in cases() {
        let imported = match import(&encode(&model), &options) {
            Ok(imported) => imported,
            Err(error) => {
                failures.push(format!("{what}: import failed: {error}"));
                continue;
            }
        };
        // A verifier error is also printed to stderr by MLIR's default handler.
        match turbine_tools::graph_module::build(&context, &imported.module) {
            Err(error) => failures.push(format!("{what}: {error}:\n{:#?}", imported.module)),
            Ok(module) if !module.as_operation().to_string().contains(op) => {
                failures.push(format!("{what}: no {op} in\n{}", module.as_operation()))
            }
            Ok(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases().len(),
        failures.join("\n\n")
    );
}

/// docs/Onnx.md lists the operators from the importer's table, between two markers; the rest of
/// the page is written by hand.
#[test]
fn onnx_operator_docs_are_up_to_date() {
    use turbine_onnx::operators::{markdown, DOCS_BEGIN, DOCS_END};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/Onnx.md");
    let committed = std::fs::read_to_string(&path).unwrap();
    let begin = committed
        .find(DOCS_BEGIN)
        .expect("docs/Onnx.md has the begin marker");
    let end = committed[begin..]
        .find(DOCS_END)
        .expect("docs/Onnx.md has the end marker")
        + begin
        + DOCS_END.len();
    let generated = format!("{}{}{}", &committed[..begin], markdown(), &committed[end..]);
    if std::env::var_os("TURBINE_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    assert!(
        committed == generated,
        "docs/Onnx.md is stale; regenerate with TURBINE_BLESS=1 cargo test -p turbine-tools \
         --test integration onnx_operator_docs"
    );
}
