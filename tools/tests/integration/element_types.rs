//! The element types beyond f32, i32, i64 and bool — f16, bf16, i8 and ui8 — from an ONNX model
//! to the interpreter's results: initializers (raw, `int32_data`, external data), inputs and
//! `Cast` imported and verified by MLIR; the interpreter rounding each op's result once to its
//! declared type; `Cast` folded at import and `graph.cast` interpreted agreeing for every pair of
//! types; `.npy` files of the new types.

use half::{bf16, f16};
use melior::ir::Module;
use turbine_interpreter::{interpret, npy, Data, Program, Tensor, Weights};
use turbine_onnx::model_builder::{encode, node, GraphBuilder};
use turbine_onnx::proto::{ModelProto, StringStringEntryProto, TensorProto};
use turbine_onnx::{import, ElementType, ImportOptions};

/// Every element type the importer and the interpreter handle.
const TYPES: [ElementType; 8] = [
    ElementType::F32,
    ElementType::F16,
    ElementType::Bf16,
    ElementType::I8,
    ElementType::U8,
    ElementType::I32,
    ElementType::I64,
    ElementType::Bool,
];

/// The interpreter's name for an importer element type.
fn interpreted(element: ElementType) -> turbine_interpreter::ElementType {
    use turbine_interpreter::ElementType as Interpreted;
    match element {
        ElementType::F32 => Interpreted::F32,
        ElementType::F16 => Interpreted::F16,
        ElementType::Bf16 => Interpreted::Bf16,
        ElementType::I8 => Interpreted::I8,
        ElementType::U8 => Interpreted::U8,
        ElementType::I32 => Interpreted::I32,
        ElementType::I64 => Interpreted::I64,
        ElementType::Bool => Interpreted::Bool,
    }
}

/// The little-endian bytes of `values` as `element`s (floats rounded to nearest even, integers
/// wrapped, non-zero true), as an exporter writes `raw_data`.
fn raw_bytes(element: ElementType, values: &[f32]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|&value| match element {
            ElementType::F32 => value.to_le_bytes().to_vec(),
            ElementType::F16 => f16::from_f32(value).to_le_bytes().to_vec(),
            ElementType::Bf16 => bf16::from_f32(value).to_le_bytes().to_vec(),
            ElementType::I8 => vec![value as i64 as u8],
            ElementType::U8 => vec![value as i64 as u8],
            ElementType::I32 => (value as i64 as i32).to_le_bytes().to_vec(),
            ElementType::I64 => (value as i64).to_le_bytes().to_vec(),
            ElementType::Bool => vec![u8::from(value != 0.0)],
        })
        .collect()
}

/// A 1-D initializer `name` of `element`s stored as raw data.
fn raw_tensor(name: &str, element: ElementType, values: &[f32]) -> TensorProto {
    shaped_raw_tensor(name, element, &[values.len() as i64], values)
}

/// An initializer `name` of `element`s and shape `dims` stored as raw data.
fn shaped_raw_tensor(
    name: &str,
    element: ElementType,
    dims: &[i64],
    values: &[f32],
) -> TensorProto {
    TensorProto {
        name: name.to_owned(),
        dims: dims.to_vec(),
        data_type: element.onnx_code(),
        raw_data: raw_bytes(element, values),
        ..Default::default()
    }
}

/// An initializer `name` of `element`s stored in `int32_data`.
fn int32_tensor(name: &str, element: ElementType, values: &[i32]) -> TensorProto {
    TensorProto {
        name: name.to_owned(),
        dims: vec![values.len() as i64],
        data_type: element.onnx_code(),
        int32_data: values.to_vec(),
        ..Default::default()
    }
}

/// The same values as an interpreter tensor of `element` (its file's values, as `raw_bytes`
/// writes them).
fn tensor(element: ElementType, values: &[f32]) -> Tensor {
    let declared = interpreted(element);
    let data = match element {
        ElementType::Bool => Data::Bool(values.iter().map(|&value| value != 0.0).collect()),
        float if float.is_float() => Data::F32(values.to_vec()),
        _ => Data::I64(values.iter().map(|&value| value as i64).collect()),
    };
    Tensor {
        shape: vec![values.len()],
        element_type: declared,
        data,
    }
    .conform(declared)
}

/// The f32 values of an interpreter tensor of any float type.
fn floats(tensor: &Tensor) -> Vec<f32> {
    tensor.as_f32().expect("float elements").to_vec()
}

/// Imports `model`, builds and verifies it, and interprets it on `inputs`: the module's text and
/// the results.
fn import_and_run(model: &ModelProto, inputs: Vec<Tensor>) -> (String, Vec<Tensor>) {
    import_and_run_with(model, inputs, &ImportOptions::default())
}

fn import_and_run_with(
    model: &ModelProto,
    inputs: Vec<Tensor>,
    options: &ImportOptions,
) -> (String, Vec<Tensor>) {
    let imported = import(&encode(model), options).expect("the model imports");
    let context = turbine_dialects::create_context();
    let module: Module = turbine_tools::graph_module::build(&context, &imported.module)
        .expect("the imported module verifies");
    let bytes = imported.weights.serialize().expect("the weights serialize");
    let weights = Weights::parse(&bytes, "weights").expect("the weights read back");
    // SAFETY: the module is verified and alive for the call.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), None) }
        .expect("the interpreter reads the module");
    let results = interpret(&program, inputs, &weights).expect("interpretation succeeds");
    (module.as_operation().to_string(), results)
}

#[test]
fn initializers_read_from_raw_data_and_int32_data() {
    // Each type: raw values, int32_data values (f16 and bf16 as their bit patterns), and the sum.
    type Case = (ElementType, [f32; 2], [i32; 2], [f32; 2]);
    let cases: [Case; 4] = [
        (
            ElementType::F16,
            [1.5, -2.0],
            [0x3400, 0x6400], // 0.25, 1024
            [1.75, 1022.0],
        ),
        (
            ElementType::Bf16,
            [1.5, -2.0],
            [0x3E80, 0x4380], // 0.25, 256
            [1.75, 254.0],
        ),
        (ElementType::I8, [100.0, -100.0], [27, -28], [127.0, -128.0]),
        (ElementType::U8, [200.0, 5.0], [55, 250], [255.0, 255.0]),
    ];
    for (element, raw, int32, sum) in cases {
        let model = GraphBuilder::new("g")
            .input("x", element, &[2])
            .initializer(raw_tensor("c", element, &raw))
            .initializer(int32_tensor("d", element, &int32))
            .node(node("Add", &["x", "c"], &["y"]))
            .node(node("Add", &["y", "d"], &["z"]))
            .typed_output("z", element, &[2])
            .model(14);
        let (text, results) = import_and_run(&model, vec![tensor(element, &[0.0, 0.0])]);
        assert!(text.contains(&format!("tensor<2x{element}>")), "{text}");
        assert_eq!(results[0], tensor(element, &sum), "{element}");
    }
}

#[test]
fn external_data_of_a_new_type_reads_as_raw_data() {
    let folder = tempfile::tempdir().unwrap();
    let values: Vec<f32> = (0..20).map(|index| index as f32 * 0.1).collect();
    std::fs::write(
        folder.path().join("w.bin"),
        raw_bytes(ElementType::F16, &values),
    )
    .unwrap();
    let entry = |key: &str, value: &str| StringStringEntryProto {
        key: key.to_owned(),
        value: value.to_owned(),
    };
    let weight = TensorProto {
        name: "w".into(),
        dims: vec![20],
        data_type: ElementType::F16.onnx_code(),
        data_location: 1,
        external_data: vec![entry("location", "w.bin")],
        ..Default::default()
    };
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F16, &[20])
        .initializer(weight)
        .node(node("Mul", &["x", "w"], &["y"]))
        .output("y")
        .model(17);
    let options = ImportOptions {
        external_data_folder: Some(folder.path().to_path_buf()),
        ..Default::default()
    };
    let ones = tensor(ElementType::F16, &[1.0; 20]);
    let (text, results) = import_and_run_with(&model, vec![ones], &options);
    // Twenty distinct f16 values: a weight of the side file, not an inline constant.
    assert!(text.contains("graph.weight \"w\""), "{text}");
    assert_eq!(results[0], tensor(ElementType::F16, &values));
}

/// Cast of each source type's values to every type, once folded at import (the initializer is
/// a constant) and once interpreted (`graph.cast` of an input): the two must agree exactly.
#[test]
fn casts_between_every_pair_of_types_fold_and_interpret_alike() {
    let values = [300.0, -1.5, 2049.0, 0.1, -0.0, 1e10, 65520.0, -129.0];
    for from in TYPES {
        let source = tensor(from, &values);
        for to in TYPES {
            let folded = GraphBuilder::new("folded")
                .initializer(raw_tensor("x", from, &values))
                .node(node("Cast", &["x"], &["y"]).int("to", i64::from(to.onnx_code())))
                .output("y")
                .model(19);
            let (text, constant) = import_and_run(&folded, vec![]);
            assert!(
                !text.contains("graph.cast"),
                "{from} to {to}: folded\n{text}"
            );
            let computed = GraphBuilder::new("computed")
                .input("x", from, &[values.len() as i64])
                .node(node("Cast", &["x"], &["y"]).int("to", i64::from(to.onnx_code())))
                .typed_output("y", to, &[values.len() as i64])
                .model(19);
            let (_, result) = import_and_run(&computed, vec![source.clone()]);
            assert_eq!(constant[0], result[0], "{from} to {to}");
        }
    }
}

/// onnxruntime's results (1.20, which wraps through 32 bits as numpy's `astype` does on x86).
#[test]
fn float_to_byte_casts_truncate_then_wrap_as_onnxruntime_does() {
    let values = [
        300.0,
        -300.0,
        127.7,
        -128.9,
        255.9,
        256.0,
        -1.5,
        1e10,
        f32::NAN,
    ];
    let model = GraphBuilder::new("g")
        .input("x", ElementType::F32, &[9])
        .node(node("Cast", &["x"], &["i"]).int("to", 3))
        .node(node("Cast", &["x"], &["u"]).int("to", 2))
        .output("i")
        .output("u")
        .model(19);
    let (text, results) = import_and_run(&model, vec![Tensor::f32(vec![9], values.to_vec())]);
    assert!(
        text.contains("tensor<9xi8>") && text.contains("tensor<9xui8>"),
        "{text}"
    );
    assert_eq!(
        results[0].data,
        Data::I64(vec![44, -44, 127, -128, -1, 0, -1, 0, 0])
    );
    assert_eq!(
        results[1].data,
        Data::I64(vec![44, 212, 127, 128, 255, 0, 255, 0, 0])
    );
}

fn run_ir(source: &str, inputs: Vec<Tensor>) -> Vec<Tensor> {
    let context = turbine_dialects::create_context();
    let module = Module::parse(&context, source).expect("test IR parses and verifies");
    // SAFETY: the module is verified and alive for the call.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
    interpret(&program, inputs, &Weights::empty()).expect("interpretation succeeds")
}

#[test]
fn each_op_rounds_its_result_to_nearest_even() {
    // f16 holds the even integers from 2048 to 4096: 2049 is halfway between 2048 and 2050 and
    // rounds to 2048 (even significand), 2051 to 2052; adding 1 twice stays at 2048, where f32
    // arithmetic rounded once at the end would give 2050.
    let results = run_ir(
        r#"func.func @main(%a: tensor<2xf16>, %b: tensor<2xf16>) ->
            (tensor<2xf16>, tensor<2xf16>) {
          %sum = graph.add %a, %b : tensor<2xf16>, tensor<2xf16> -> tensor<2xf16>
          %one = graph.constant dense<1.0> : tensor<f16>
          %once = graph.add %a, %one : tensor<2xf16>, tensor<f16> -> tensor<2xf16>
          %twice = graph.add %once, %one : tensor<2xf16>, tensor<f16> -> tensor<2xf16>
          return %sum, %twice : tensor<2xf16>, tensor<2xf16>
        }"#,
        vec![
            tensor(ElementType::F16, &[2048.0, 2048.0]),
            tensor(ElementType::F16, &[1.0, 3.0]),
        ],
    );
    assert_eq!(floats(&results[0]), [2048.0, 2052.0]);
    assert_eq!(floats(&results[1]), [2048.0, 2048.0]);
    // bf16 has 8 significant bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 and rounds to 1;
    // 1 + 3 * 2^-8 to 1 + 2^-6; the product 63 * 5 = 315 is halfway between 314 and 316 and
    // rounds to 316 (even significand).
    let results = run_ir(
        r#"func.func @main(%a: tensor<3xbf16>, %b: tensor<3xbf16>) ->
            (tensor<3xbf16>, tensor<3xbf16>) {
          %sum = graph.add %a, %b : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xbf16>
          %product = graph.mul %a, %b : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xbf16>
          return %sum, %product : tensor<3xbf16>, tensor<3xbf16>
        }"#,
        vec![
            tensor(ElementType::Bf16, &[1.0, 1.0, 63.0]),
            tensor(ElementType::Bf16, &[0.003_906_25, 0.011_718_75, 5.0]),
        ],
    );
    assert_eq!(floats(&results[0]), [1.0, 1.015_625, 68.0]);
    assert_eq!(floats(&results[1]), [0.003_906_25, 0.011_718_75, 316.0]);
}

#[test]
fn narrow_integers_wrap() {
    let results = run_ir(
        r#"func.func @main(%u: tensor<2xui8>, %i: tensor<2xi8>) ->
            (tensor<2xui8>, tensor<2xi8>, tensor<2xi8>) {
          %ten = graph.constant dense<10> : tensor<ui8>
          %sum = graph.add %u, %ten : tensor<2xui8>, tensor<ui8> -> tensor<2xui8>
          %two = graph.constant dense<2> : tensor<i8>
          %product = graph.mul %i, %two : tensor<2xi8>, tensor<i8> -> tensor<2xi8>
          %one = graph.constant dense<1> : tensor<i8>
          %difference = graph.sub %i, %one : tensor<2xi8>, tensor<i8> -> tensor<2xi8>
          return %sum, %product, %difference : tensor<2xui8>, tensor<2xi8>, tensor<2xi8>
        }"#,
        vec![
            tensor(ElementType::U8, &[250.0, 3.0]),
            tensor(ElementType::I8, &[100.0, -128.0]),
        ],
    );
    assert_eq!(results[0].data, Data::I64(vec![4, 13]));
    assert_eq!(results[1].data, Data::I64(vec![-56, 0]));
    assert_eq!(results[2].data, Data::I64(vec![99, 127]));
}

/// Arithmetic on f16 and bf16 imports as it does on f32: the same graph ops on tensors of the
/// narrow type, with the composed operators' constants of that type too.
#[test]
fn float_operators_import_on_narrow_floats() {
    for element in [ElementType::F16, ElementType::Bf16] {
        let count = 2 * 3 * 4 * 4;
        let ramp: Vec<f32> = (0..count).map(|index| index as f32 / 8.0 - 4.0).collect();
        let model = GraphBuilder::new("g")
            .input("x", element, &[2, 3, 4, 4])
            .initializer(shaped_raw_tensor("w", element, &[3, 3, 2, 2], &ramp[..36]))
            .node(node("Conv", &["x", "w"], &["c"]).ints("kernel_shape", &[2, 2]))
            .node(node("LeakyRelu", &["c"], &["l"]).float("alpha", 0.1))
            .node(node("Softmax", &["l"], &["s"]))
            .node(node("HardSigmoid", &["s"], &["h"]))
            .node(node("Clip", &["h"], &["y"]))
            .node(node("Mean", &["y", "s"], &["m"]))
            .output("m")
            .model(17);
        let input = Tensor {
            shape: vec![2, 3, 4, 4],
            ..tensor(element, &ramp)
        };
        let (text, results) = import_and_run(&model, vec![input]);
        assert!(
            !text.contains("xf32") && !text.contains("<f32>"),
            "{element}:\n{text}"
        );
        let representable = |value: f32| match element {
            ElementType::F16 => f16::from_f32(value).to_f32() == value,
            _ => bf16::from_f32(value).to_f32() == value,
        };
        assert!(
            floats(&results[0]).into_iter().all(representable),
            "{element}"
        );
    }
}

#[test]
fn npy_files_of_the_new_types() {
    // As numpy writes them: np.save of float16 [1.5, 2048], int8 [-1, 127] and uint8 [255, 0].
    let file = |descr: &str, data: &[u8]| {
        let header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        let padded = format!("{header:<117}\n");
        bytes.extend((padded.len() as u16).to_le_bytes());
        bytes.extend(padded.as_bytes());
        bytes.extend(data);
        bytes
    };
    let halves = npy::parse(&file("<f2", &[0x00, 0x3E, 0x00, 0x68])).unwrap();
    assert_eq!(halves, tensor(ElementType::F16, &[1.5, 2048.0]));
    let signed = npy::parse(&file("|i1", &[0xFF, 0x7F])).unwrap();
    assert_eq!(signed, tensor(ElementType::I8, &[-1.0, 127.0]));
    let unsigned = npy::parse(&file("|u1", &[0xFF, 0x00])).unwrap();
    assert_eq!(unsigned, tensor(ElementType::U8, &[255.0, 0.0]));
    for tensor in [halves, signed, unsigned] {
        assert_eq!(npy::parse(&npy::serialize(&tensor)).unwrap(), tensor);
    }
    // bf16 travels as f32: written as <f4, and an f32 file for a bf16 argument is rounded.
    let brain = tensor(ElementType::Bf16, &[1.0, -0.5]);
    let written = npy::serialize(&brain);
    assert!(String::from_utf8_lossy(&written).contains("'<f4'"));
    let read = npy::parse(&written).unwrap();
    assert_eq!(read.element_type, turbine_interpreter::ElementType::F32);
    let exact = Tensor::f32(vec![2], vec![1.003_906_3, 3.0]);
    let rounded = npy::for_argument(exact, interpreted(ElementType::Bf16));
    assert_eq!(rounded, tensor(ElementType::Bf16, &[1.0, 3.0]));
    // An f32 file for an f16 argument (a model of reduced precision) is rounded to f16: 2049 lies
    // halfway between f16's 2048 and 2050, and goes to the even 2048.
    let wide = Tensor::f32(vec![2], vec![2049.0, 0.1]);
    let rounded = npy::for_argument(wide, interpreted(ElementType::F16));
    assert_eq!(rounded, tensor(ElementType::F16, &[2048.0, 0.099_975_586]));
}
