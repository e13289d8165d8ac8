//! The importer seen from outside: models written with `model_builder`, imported, and the MLIR
//! text or the error checked. (Whether the text verifies is checked by the MLIR-linked integration
//! tests in `tools/` and by lit.)

use std::path::Path;
use turbine_onnx::emit::{Attribute, GraphModule, Op, ValueRef};
use turbine_onnx::model_builder::{encode, f32_tensor, i64_tensor, node, Dim, GraphBuilder};
use turbine_onnx::proto::{ModelProto, StringStringEntryProto};
use turbine_onnx::tensor::Data;
use turbine_onnx::types::TensorType;
use turbine_onnx::{import, ElementType, ImportError, ImportOptions, ImportedModel};

fn run(model: &ModelProto) -> Result<ImportedModel, ImportError> {
    import(
        &encode(model),
        &ImportOptions {
            weights_file: "w.safetensors".into(),
            ..Default::default()
        },
    )
}

/// The `value` of every `graph.constant` of `module`.
fn constants(module: &GraphModule) -> Vec<(TensorType, Data)> {
    module
        .ops_named("graph.constant")
        .map(|op| match op.attribute("value") {
            Some(Attribute::Dense { ty, data }) => (ty.clone(), data.clone()),
            other => panic!("graph.constant without dense value: {other:?}"),
        })
        .collect()
}

fn f32_type(shape: &[usize]) -> TensorType {
    TensorType::new(shape.to_vec(), ElementType::F32)
}

/// The one operation called `name`.
fn only<'a>(module: &'a GraphModule, name: &'a str) -> &'a Op {
    let ops: Vec<&Op> = module.ops_named(name).collect();
    assert_eq!(ops.len(), 1, "{name} in {:#?}", module.body.ops());
    ops[0]
}

fn error(model: &ModelProto) -> String {
    run(model).expect_err("the import should fail").to_string()
}

/// A small convolutional network with weights, shape arithmetic and a head: enough structure that
/// cutting it anywhere lands inside every kind of message.
fn network() -> ModelProto {
    let values: Vec<f32> = (0..8 * 3 * 3 * 3)
        .map(|index| index as f32 * 0.01)
        .collect();
    GraphBuilder::new("net")
        .input("x", ElementType::F32, &[1, 3, 8, 8])
        .initializer(f32_tensor("w", &[8, 3, 3, 3], &values))
        .initializer(f32_tensor("b", &[8], &[0.5; 8]))
        .initializer(i64_tensor("flat", &[2], &[1, -1]))
        .node(node("Conv", &["x", "w", "b"], &["c"]).ints("pads", &[1, 1, 1, 1]))
        .node(node("Relu", &["c"], &["r"]))
        .node(
            node("MaxPool", &["r"], &["p"])
                .ints("kernel_shape", &[2, 2])
                .ints("strides", &[2, 2]),
        )
        .node(node("Shape", &["p"], &["s"]))
        .node(node("Reshape", &["p", "flat"], &["f"]))
        .node(node("Softmax", &["f"], &["y"]).int("axis", -1))
        .typed_output("y", ElementType::F32, &[1, 128])
        .output("s")
        .model(17)
}

#[test]
fn a_network_imports_with_its_weights() {
    let imported = run(&network()).unwrap();
    assert_eq!(
        imported.weights.len(),
        1,
        "only the 216-element filter is a weight"
    );
    let module = &imported.module;
    assert_eq!(module.weights_file.as_deref(), Some("w.safetensors"));
    let weight = only(module, "graph.weight");
    assert_eq!(weight.attribute("name"), Some(&Attribute::Str("w".into())));
    assert_eq!(weight.results, vec![f32_type(&[8, 3, 3, 3])]);
    let constants = constants(module);
    assert!(
        constants.contains(&(f32_type(&[8]), Data::F32(vec![0.5]))),
        "the splat bias is inline: {constants:?}"
    );
    assert!(
        constants.contains(&(
            TensorType::new(vec![4], ElementType::I64),
            Data::I64(vec![1, 8, 4, 4])
        )),
        "Shape folds to a constant output: {constants:?}"
    );
    assert_eq!(
        module.outputs[0].ty,
        f32_type(&[1, 128]),
        "Reshape's -1 is inferred"
    );
    assert!(module.body.ops().iter().all(|op| !op.location.is_empty()));
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = encode(&network());
    for length in (0..bytes.len()).step_by(7) {
        let result = import(&bytes[..length], &ImportOptions::default());
        assert!(
            result.is_err(),
            "a file cut to {length} of {} bytes imported",
            bytes.len()
        );
    }
}

#[test]
fn corrupt_bytes_never_panic() {
    // Each byte in turn replaced by values that hit varint continuation bits, huge lengths and
    // wrong wire types; the importer must return, whatever it returns.
    let bytes = encode(&network());
    for position in 0..bytes.len() {
        for value in [0x00, 0x7f, 0xff] {
            let mut corrupt = bytes.clone();
            corrupt[position] = value;
            let _ = import(&corrupt, &ImportOptions::default());
        }
    }
}

#[test]
fn identity_and_dropout_disappear() {
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2])
        .node(node("Identity", &["x"], &["a"]))
        .node(node("Dropout", &["a"], &["b"]))
        .output("b")
        .model(13);
    let module = run(&model).unwrap().module;
    assert_eq!(module.body.ops().len(), 1, "{module:#?}");
    assert_eq!(
        only(&module, "func.return").operands,
        vec![ValueRef::Argument(0)]
    );
}

#[test]
fn shape_subgraphs_fold_to_the_reshape_target() {
    // torch's x.view(x.size(0), -1) written out: Shape, Gather, Unsqueeze, Concat, Reshape.
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2, 3, 4])
        .initializer(i64_tensor("zero", &[], &[0]))
        .initializer(i64_tensor("axes", &[1], &[0]))
        .initializer(i64_tensor("rest", &[1], &[-1]))
        .node(node("Shape", &["x"], &["s"]))
        .node(node("Gather", &["s", "zero"], &["n"]))
        .node(node("Unsqueeze", &["n", "axes"], &["n1"]))
        .node(node("Concat", &["n1", "rest"], &["target"]).int("axis", 0))
        .node(node("Reshape", &["x", "target"], &["y"]))
        .output("y")
        .model(13);
    let module = run(&model).unwrap().module;
    let reshape = only(&module, "graph.reshape");
    assert_eq!(reshape.operands, vec![ValueRef::Argument(0)]);
    assert_eq!(reshape.results, vec![f32_type(&[2, 12])]);
    assert!(
        constants(&module).is_empty(),
        "the shape constants are not written: {module:#?}"
    );
}

#[test]
fn folding_evaluates_integer_and_boolean_kernels() {
    // Range(0, 10, 3) = [0, 3, 6, 9]; Mod by -4 takes the divisor's sign: [0, -1, -2, -3];
    // Where(Less(-1, m), 7, m) = [7, -1, -2, -3]; Cast to float.
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[4])
        .initializer(i64_tensor("start", &[], &[0]))
        .initializer(i64_tensor("limit", &[], &[10]))
        .initializer(i64_tensor("delta", &[], &[3]))
        .initializer(i64_tensor("divisor", &[], &[-4]))
        .initializer(i64_tensor("bound", &[], &[-1]))
        .initializer(i64_tensor("seven", &[], &[7]))
        .node(node("Range", &["start", "limit", "delta"], &["r"]))
        .node(node("Mod", &["r", "divisor"], &["m"]))
        .node(node("Less", &["bound", "m"], &["keep"]))
        .node(node("Where", &["keep", "seven", "m"], &["w"]))
        .node(node("Cast", &["w"], &["f"]).int("to", 1))
        .node(node("Add", &["x", "f"], &["y"]))
        .output("y")
        .model(13);
    let module = run(&model).unwrap().module;
    assert_eq!(
        constants(&module),
        vec![(f32_type(&[4]), Data::F32(vec![7.0, -1.0, -2.0, -3.0]))]
    );
}

#[test]
fn folding_gathers_slices_and_transposes() {
    let table: Vec<f32> = (0..12).map(|value| value as f32).collect();
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2, 2])
        .initializer(f32_tensor("table", &[3, 4], &table))
        .initializer(i64_tensor("rows", &[2], &[-1, 0]))
        .initializer(i64_tensor("starts", &[1], &[1]))
        .initializer(i64_tensor("ends", &[1], &[i64::MAX]))
        .initializer(i64_tensor("axes", &[1], &[1]))
        .initializer(i64_tensor("steps", &[1], &[2]))
        .node(node("Gather", &["table", "rows"], &["picked"]))
        .node(node(
            "Slice",
            &["picked", "starts", "ends", "axes", "steps"],
            &["odd"],
        ))
        .node(node("Transpose", &["odd"], &["t"]).ints("perm", &[1, 0]))
        .node(node("Add", &["x", "t"], &["y"]))
        .output("y")
        .model(13);
    // rows [-1, 0] -> [[8, 9, 10, 11], [0, 1, 2, 3]]; odd columns -> [[9, 11], [1, 3]]; transposed.
    let module = run(&model).unwrap().module;
    assert_eq!(
        constants(&module),
        vec![(f32_type(&[2, 2]), Data::F32(vec![9.0, 1.0, 11.0, 3.0]))]
    );
}

#[test]
fn large_splats_are_inline_and_large_tensors_weights() {
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[1, 64])
        .initializer(i64_tensor("shape", &[2], &[1, 64]))
        .node(node("ConstantOfShape", &["shape"], &["zeros"]))
        .node(node("Add", &["x", "zeros"], &["y"]))
        .output("y")
        .model(13);
    let imported = run(&model).unwrap();
    assert!(imported.weights.is_empty());
    assert_eq!(
        constants(&imported.module),
        vec![(f32_type(&[1, 64]), Data::F32(vec![0.0]))]
    );
    assert_eq!(
        imported.module.weights_file, None,
        "no weights, no attribute"
    );
}

#[test]
fn constant_of_shape_beyond_the_fold_limit_is_a_splat() {
    // 4096 x 8192 elements: written as one literal, never expanded.
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[1, 4096])
        .initializer(i64_tensor("shape", &[2], &[4096, 8192]))
        .node(
            node("ConstantOfShape", &["shape"], &["w"])
                .tensor("value", f32_tensor("v", &[1], &[0.5])),
        )
        .node(node("MatMul", &["x", "w"], &["y"]))
        .output("y")
        .model(13);
    let module = run(&model).unwrap().module;
    assert_eq!(
        constants(&module),
        vec![(f32_type(&[4096, 8192]), Data::F32(vec![0.5]))]
    );
}

#[test]
fn unused_training_outputs_are_ignored_and_used_ones_rejected() {
    let batch_norm = |outputs: &[&str]| {
        let mut graph = GraphBuilder::new("g").input("x", ElementType::F32, &[1, 2, 2, 2]);
        for name in ["scale", "bias", "mean", "var"] {
            graph = graph.initializer(f32_tensor(name, &[2], &[1.0, 2.0]));
        }
        graph.node(
            node(
                "BatchNormalization",
                &["x", "scale", "bias", "mean", "var"],
                outputs,
            )
            .name("bn"),
        )
    };
    assert!(run(&batch_norm(&["y", "running_mean"]).output("y").model(13)).is_ok());
    let used = batch_norm(&["y", "running_mean"])
        .output("running_mean")
        .model(13);
    assert_eq!(
        error(&used),
        "node 'bn' (BatchNormalization): output 1 ('running_mean') is not supported"
    );
}

#[test]
fn structural_errors_name_the_tensor() {
    let undefined = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2])
        .node(node("Relu", &["nowhere"], &["y"]).name("relu"))
        .output("y")
        .model(13);
    assert_eq!(
        error(&undefined),
        "invalid model: node 'relu' uses tensor 'nowhere', which nothing defines before it"
    );

    let twice = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2])
        .node(node("Relu", &["x"], &["x"]))
        .output("x")
        .model(13);
    assert_eq!(error(&twice), "invalid model: tensor 'x' is defined twice");

    let no_output = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2])
        .output("y")
        .model(13);
    assert_eq!(
        error(&no_output),
        "invalid model: graph output 'y' is not computed by any node"
    );
}

#[test]
fn declared_output_types_are_checked() {
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2, 3])
        .node(node("Relu", &["x"], &["y"]))
        .typed_output("y", ElementType::F32, &[3, 2])
        .model(13);
    assert_eq!(
        error(&model),
        "invalid model: output 'y' is declared with shape [3, 2] \
         but the graph computes tensor<2x3xf32>"
    );
}

#[test]
fn input_shapes_resolve_symbolic_dimensions() {
    let model = GraphBuilder::new("g")
        .input_with_dims(
            "x",
            ElementType::F32,
            Some(vec![Dim::Symbolic("batch".into()), Dim::Static(3)]),
        )
        .node(node("Relu", &["x"], &["y"]))
        .output("y")
        .model(13);
    assert_eq!(
        error(&model),
        "input 'x' has a dynamic dimension 0 ('batch'): \
         give its static shape with --input-shape x=<d0>x<d1>x..."
    );
    let options = ImportOptions {
        input_shapes: vec![("x".into(), vec![5, 3])],
        ..Default::default()
    };
    let module = import(&encode(&model), &options).unwrap().module;
    assert_eq!(module.inputs[0].name, "x");
    assert_eq!(module.inputs[0].ty, f32_type(&[5, 3]));

    let no_shape = GraphBuilder::new("g")
        .input_with_dims("x", ElementType::F32, None)
        .node(node("Relu", &["x"], &["y"]))
        .output("y")
        .model(13);
    assert_eq!(
        error(&no_shape),
        "input 'x': the model declares no shape: give one with --input-shape"
    );
}

#[test]
fn node_errors_name_the_node() {
    let bad_axis = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[2, 3])
        .node(
            node("Softmax", &["x"], &["y"])
                .name("/attn/Softmax")
                .int("axis", 2),
        )
        .output("y")
        .model(13);
    assert_eq!(
        error(&bad_axis),
        "node '/attn/Softmax' (Softmax): axis 2 is out of range for rank 2"
    );

    let integer_relu = GraphBuilder::new("g")
        .input("x", ElementType::I64, &[2])
        .node(node("Relu", &["x"], &["y"]).name("act"))
        .output("y")
        .model(13);
    assert_eq!(
        error(&integer_relu),
        "node 'act' (Relu): input 0 (X) of type i64 is not supported, only floats (f32, f16, bf16)"
    );

    let range = GraphBuilder::new("g")
        .input("n", ElementType::I64, &[])
        .initializer(i64_tensor("zero", &[], &[0]))
        .initializer(i64_tensor("one", &[], &[1]))
        .node(node("Range", &["zero", "n", "one"], &["y"]).name("positions"))
        .output("y")
        .model(13);
    assert_eq!(
        error(&range),
        "node 'positions' (Range): inputs computed at run time are not supported: \
         it computes shapes or constants, which must fold at import"
    );

    let huge = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[1])
        .initializer(i64_tensor("shape", &[2], &[1 << 20, 1 << 20]))
        .node(node("ConstantOfShape", &["shape"], &["big"]).name("fill"))
        .node(node("Add", &["x", "big"], &["y"]))
        .output("y")
        .model(13);
    assert_eq!(
        error(&huge),
        "node 'fill' (ConstantOfShape): shape [1048576, 1048576] \
         is negative or too large to be real"
    );

    let divide_by_zero = GraphBuilder::new("g")
        .input("x", ElementType::I64, &[1])
        .initializer(i64_tensor("a", &[1], &[4]))
        .initializer(i64_tensor("b", &[1], &[0]))
        .node(node("Div", &["a", "b"], &["q"]).name("div"))
        .node(node("Add", &["x", "q"], &["y"]))
        .output("y")
        .model(13);
    assert!(error(&divide_by_zero)
        .starts_with("node 'div' (Div): Div is undefined on its integer operands"));
}

/// A model whose 216-element filter `w` is stored in `file` at `entries` (the external data
/// entries) and whose other tensors are inline.
fn external_network(entries: &[(&str, &str)]) -> ModelProto {
    let mut model = network();
    let graph = model.graph.as_mut().unwrap();
    let filter = graph
        .initializer
        .iter_mut()
        .find(|tensor| tensor.name == "w")
        .unwrap();
    filter.raw_data.clear();
    filter.data_location = 1;
    filter.external_data = entries
        .iter()
        .map(|&(key, value)| StringStringEntryProto {
            key: key.into(),
            value: value.into(),
        })
        .collect();
    model
}

/// Imports `model` as if its file were in `folder`.
fn import_beside(model: &ModelProto, folder: &Path) -> Result<ImportedModel, ImportError> {
    let options = ImportOptions {
        weights_file: "w.safetensors".into(),
        external_data_folder: Some(folder.to_path_buf()),
        ..Default::default()
    };
    import(&encode(model), &options)
}

#[test]
fn external_data_is_read_from_the_model_folder() {
    let folder = tempfile::tempdir().unwrap();
    let filter: Vec<u8> = (0..8 * 3 * 3 * 3)
        .flat_map(|index| (index as f32 * 0.01).to_le_bytes())
        .collect();
    // The filter after 16 bytes of another tensor, as onnx writes several tensors to one file.
    let mut data = vec![7u8; 16];
    data.extend(&filter);
    std::fs::write(folder.path().join("weights.bin"), &data).unwrap();
    let length = filter.len().to_string();
    let entries = [
        ("location", "weights.bin"),
        ("offset", "16"),
        ("length", length.as_str()),
    ];
    let external = import_beside(&external_network(&entries), folder.path()).unwrap();
    let inline = run(&network()).unwrap();
    assert_eq!(external.weights.len(), 1);
    assert_eq!(
        external.weights.serialize().unwrap(),
        inline.weights.serialize().unwrap(),
        "the same weights as the model that holds them inline"
    );
    // Without a length, the data runs to the end of the file.
    std::fs::write(folder.path().join("only.bin"), &filter).unwrap();
    let to_end = external_network(&[("location", "./only.bin")]);
    assert!(import_beside(&to_end, folder.path()).is_ok());
}

#[test]
fn external_data_outside_the_model_folder_or_the_file_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("model");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(root.path().join("secret.bin"), vec![0u8; 864]).unwrap();
    std::fs::write(folder.join("short.bin"), vec![0u8; 100]).unwrap();
    std::os::unix::fs::symlink(root.path().join("secret.bin"), folder.join("link.bin")).unwrap();
    let absolute = root.path().join("secret.bin");
    let cases: [(&[(&str, &str)], &str); 9] = [
        (
            &[("location", "../secret.bin")],
            "absolute paths and '..' are refused",
        ),
        (
            &[("location", absolute.to_str().unwrap())],
            "absolute paths",
        ),
        (
            &[("location", "link.bin")],
            "leads out of the model's folder",
        ),
        (
            &[("location", "missing.bin")],
            "file 'missing.bin': No such file",
        ),
        (&[("location", "short.bin")], "needs 864 bytes of raw data"),
        (
            &[
                ("location", "short.bin"),
                ("offset", "90"),
                ("length", "864"),
            ],
            "offset 90 and length 864 lie past the end of file 'short.bin' (100 bytes)",
        ),
        (
            &[("location", "short.bin"), ("offset", "-1")],
            "entry 'offset' is '-1', not a byte count",
        ),
        (
            &[("location", "short.bin"), ("base", "x")],
            "entry 'base' is not one ONNX",
        ),
        (&[("offset", "0")], "no 'location' entry"),
    ];
    for (entries, expected) in cases {
        let error = import_beside(&external_network(entries), &folder)
            .expect_err("the import should fail")
            .to_string();
        assert!(
            error.starts_with("tensor 'w': ") && error.contains(expected),
            "{entries:?}: {error}"
        );
    }
    let error = error(&external_network(&[("location", "short.bin")]));
    assert!(
        error.contains("read only when the model is imported from a file"),
        "{error}"
    );
}
