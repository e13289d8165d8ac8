//! ONNX's quantization operators imported and interpreted: QuantizeLinear and DequantizeLinear
//! (ties to even, saturation, negative zero points, per-axis scales), DynamicQuantizeLinear,
//! MatMulInteger and ConvInteger (exact integer products, zero points per row, column or output
//! channel), QLinearMatMul and QLinearConv (requantized in f64, per-channel weight scales, i32
//! bias).

use melior::ir::Module;
use turbine_interpreter::{interpret, Data, Program, Tensor, Weights};
use turbine_onnx::model_builder::{encode, node, GraphBuilder, NodeBuilder};
use turbine_onnx::{import, ElementType, ImportOptions};

/// A graph input: its name, ONNX element type, and the interpreter's tensor of its values.
struct Input {
    name: &'static str,
    element: ElementType,
    tensor: Tensor,
}

/// An f32 input of `shape`.
fn floats(name: &'static str, shape: &[usize], values: &[f32]) -> Input {
    Input {
        name,
        element: ElementType::F32,
        tensor: Tensor::f32(shape.to_vec(), values.to_vec()),
    }
}

/// An integer input of `element` (i8, ui8 or i32) and `shape`.
fn ints(name: &'static str, element: ElementType, shape: &[usize], values: &[i64]) -> Input {
    use turbine_interpreter::ElementType as Interpreted;
    let element_type = match element {
        ElementType::I8 => Interpreted::I8,
        ElementType::U8 => Interpreted::U8,
        _ => Interpreted::I32,
    };
    Input {
        name,
        element,
        tensor: Tensor {
            shape: shape.to_vec(),
            element_type,
            data: Data::I64(values.to_vec()),
        },
    }
}

/// Imports the one-node model of `op` over `inputs` (graph inputs, in order) with `outputs`,
/// builds and verifies it, and interprets it.
fn run(op: NodeBuilder, inputs: Vec<Input>, outputs: &[&str]) -> Vec<Tensor> {
    let mut graph = GraphBuilder::new("quantization");
    for input in &inputs {
        let dims: Vec<i64> = input.tensor.shape.iter().map(|&d| d as i64).collect();
        graph = graph.input(input.name, input.element, &dims);
    }
    graph = graph.node(op);
    for output in outputs {
        graph = graph.output(output);
    }
    let imported =
        import(&encode(&graph.model(21)), &ImportOptions::default()).expect("the model imports");
    let context = turbine_dialects::create_context();
    let module: Module = turbine_tools::graph_module::build(&context, &imported.module)
        .expect("the imported module verifies");
    // SAFETY: the module is verified and alive for the call.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), None) }
        .expect("the interpreter reads the module");
    let tensors = inputs.into_iter().map(|input| input.tensor).collect();
    interpret(&program, tensors, &Weights::empty()).expect("interpretation succeeds")
}

/// The integer values of a result.
fn values(tensor: &Tensor) -> Vec<i64> {
    match &tensor.data {
        Data::I64(values) => values.clone(),
        other => panic!("integer result expected, got {other:?}"),
    }
}

/// The float values of a result.
fn reals(tensor: &Tensor) -> Vec<f32> {
    tensor.as_f32().expect("a float result").to_vec()
}

#[test]
fn quantize_rounds_ties_to_even_and_saturates() {
    let x = [2.5, 3.5, -2.5, 300.0, -300.0, 0.49, 1.25];
    let quantize = |zero: Option<Input>, scale: f32| {
        let mut inputs = vec![floats("x", &[7], &x), floats("s", &[], &[scale])];
        let names: &[&str] = if zero.is_some() {
            &["x", "s", "z"]
        } else {
            &["x", "s"]
        };
        inputs.extend(zero);
        values(&run(node("QuantizeLinear", names, &["y"]), inputs, &["y"])[0])
    };
    // No zero point: ui8 with zero point 0. 2.5 -> 2, 3.5 -> 4, -2.5 -> -2 -> 0, 300 -> 255.
    assert_eq!(quantize(None, 1.0), [2, 4, 0, 255, 0, 0, 1]);
    // An i8 zero point of -3: each rounded quotient less 3, saturated to [-128, 127].
    let zero = ints("z", ElementType::I8, &[], &[-3]);
    assert_eq!(quantize(Some(zero), 1.0), [-1, 1, -5, 127, -128, -3, -2]);
    // Scale 0.5: 1.25 / 0.5 = 2.5 -> 2; -2.5 / 0.5 = -5 -> -5 + 7.
    let zero = ints("z", ElementType::U8, &[], &[7]);
    assert_eq!(quantize(Some(zero), 0.5), [12, 14, 2, 255, 0, 8, 9]);
}

#[test]
fn quantize_per_axis() {
    let x = [1.5, 2.5, -0.5, 3.0, 5.0, 700.0];
    let per_row = |axis: i64, zero: Input| {
        let inputs = vec![
            floats("x", &[2, 3], &x),
            floats("s", &[2], &[1.0, 2.0]),
            zero,
        ];
        let op = node("QuantizeLinear", &["x", "s", "z"], &["y"]).int("axis", axis);
        values(&run(op, inputs, &["y"])[0])
    };
    // Row 0 at scale 1: [2, 2, -0]; row 1 at scale 2: [1.5, 2.5, 350] -> [2, 2, 350].
    let zero = ints("z", ElementType::I8, &[2], &[0, -1]);
    assert_eq!(per_row(0, zero), [2, 2, 0, 1, 1, 127]);
    let zero = ints("z", ElementType::U8, &[2], &[10, 250]);
    assert_eq!(per_row(-2, zero), [12, 12, 10, 252, 252, 255]);
}

#[test]
fn dequantize_per_tensor_and_per_axis() {
    let op = || node("DequantizeLinear", &["x", "s", "z"], &["y"]);
    let inputs = vec![
        ints("x", ElementType::I8, &[4], &[-128, 127, 0, 5]),
        floats("s", &[], &[0.5]),
        ints("z", ElementType::I8, &[], &[-3]),
    ];
    assert_eq!(
        reals(&run(op(), inputs, &["y"])[0]),
        [-62.5, 65.0, 1.5, 4.0]
    );
    let inputs = vec![
        ints("x", ElementType::U8, &[2, 2], &[0, 255, 10, 20]),
        floats("s", &[2], &[1.0, 0.25]),
        ints("z", ElementType::U8, &[2], &[128, 0]),
    ];
    assert_eq!(
        reals(&run(op(), inputs, &["y"])[0]),
        [-128.0, 63.75, -118.0, 5.0]
    );
    // i32 (a bias' type) without a zero point.
    let inputs = vec![
        ints("x", ElementType::I32, &[2], &[100_000, -7]),
        floats("s", &[], &[2.0]),
    ];
    let op = node("DequantizeLinear", &["x", "s"], &["y"]);
    assert_eq!(reals(&run(op, inputs, &["y"])[0]), [200_000.0, -14.0]);
}

#[test]
fn dynamic_quantize_from_the_range() {
    // Expected values from onnx.reference's DynamicQuantizeLinear (onnx 1.17, in the venv).
    let cases: [(&[f32], &[i64], f32, i64); 4] = [
        (
            &[0.0, 2.0, -1.0, 1.5, 3.0, -0.5],
            &[64, 191, 0, 160, 255, 32],
            0.015_686_275,
            64,
        ),
        (
            &[1.0, 2.0, 3.0, 4.0],
            &[64, 127, 191, 255],
            0.015_686_275,
            0,
        ),
        (&[0.0, 0.0], &[0, 0], 0.003_921_569, 0),
        (&[-3.0, -1.0], &[0, 170], 0.011_764_706, 255),
    ];
    for (x, y, scale, zero) in cases {
        let op = node("DynamicQuantizeLinear", &["x"], &["y", "s", "z"]);
        let results = run(op, vec![floats("x", &[x.len()], x)], &["y", "s", "z"]);
        assert_eq!(values(&results[0]), y, "{x:?}");
        assert_eq!(reals(&results[1]), [scale], "{x:?}");
        assert_eq!(values(&results[2]), [zero], "{x:?}");
    }
}

#[test]
fn matmul_integer_with_zero_points() {
    let a = [11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0];
    let b = [1, 4, 2, 5, 3, 6];
    let product = |a_zero: Input, b_zero: Input| {
        let inputs = vec![
            ints("a", ElementType::U8, &[4, 3], &a),
            ints("b", ElementType::U8, &[3, 2], &b),
            a_zero,
            b_zero,
        ];
        let op = node("MatMulInteger", &["a", "b", "az", "bz"], &["y"]);
        values(&run(op, inputs, &["y"])[0])
    };
    // ONNX's example: A less 12 times B.
    let zeros = (
        ints("az", ElementType::U8, &[], &[12]),
        ints("bz", ElementType::U8, &[], &[0]),
    );
    assert_eq!(
        product(zeros.0, zeros.1),
        [-38, -83, -44, -98, -50, -113, -56, -128]
    );
    // A zero point per row of A, one per column of B: row r less az[r], column c less bz[c].
    let a_zero = ints("az", ElementType::U8, &[4], &[0, 1, 2, 255]);
    let b_zero = ints("bz", ElementType::U8, &[2], &[1, 4]);
    // Row 0: [11,7,3] x [[0,0],[1,1],[2,2]] = [13, 13]; row 3: [-247,-251,-255] -> [-761, -761].
    assert_eq!(product(a_zero, b_zero), [13, 13, 7, 7, 1, 1, -761, -761]);
}

#[test]
fn conv_integer_with_padding_and_channel_zero_points() {
    let x: Vec<i64> = (2..=10).collect();
    let conv = |w: Input, w_zero: Input, pads: &[i64]| {
        let inputs = vec![
            ints("x", ElementType::U8, &[1, 1, 3, 3], &x),
            w,
            ints("xz", ElementType::U8, &[], &[1]),
            w_zero,
        ];
        let op = node("ConvInteger", &["x", "w", "xz", "wz"], &["y"]).ints("pads", pads);
        values(&run(op, inputs, &["y"])[0])
    };
    // ONNX's examples: x less 1 under a 2x2 window of ones, without and with padding.
    let ones = || ints("w", ElementType::U8, &[1, 1, 2, 2], &[1; 4]);
    let zero = || ints("wz", ElementType::U8, &[], &[0]);
    assert_eq!(conv(ones(), zero(), &[0, 0, 0, 0]), [12, 16, 24, 28]);
    assert_eq!(
        conv(ones(), zero(), &[1, 1, 1, 1]),
        [1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9]
    );
    // Two i8 filters with zero points 1 and -2: ones less 1 (all 0), and -1 plus 2 (all 1).
    let w = ints(
        "w",
        ElementType::I8,
        &[2, 1, 2, 2],
        &[1, 1, 1, 1, -1, -1, -1, -1],
    );
    let w_zero = ints("wz", ElementType::I8, &[2], &[1, -2]);
    let x_u8 = conv(w, w_zero, &[0, 0, 0, 0]);
    assert_eq!(x_u8, [0, 0, 0, 0, 12, 16, 24, 28]);
}

/// The eight inputs of QLinearMatMul or QLinearConv: `x` and `w` with their scales and zero
/// points, then the output's scale and zero point.
type Quantized = (Input, f32, Input, Input, Vec<f32>, Input, f32, Input);

/// The eight inputs as graph inputs, in ONNX's order, and their names.
fn linear_inputs(quantized: Quantized) -> (Vec<Input>, [&'static str; 8]) {
    let (x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero) = quantized;
    let scales = w_scale.len();
    let w_shape: &[usize] = if scales == 1 { &[] } else { &[scales] };
    let inputs = vec![
        x,
        floats("xs", &[], &[x_scale]),
        x_zero,
        w,
        floats("ws", w_shape, &w_scale),
        w_zero,
        floats("ys", &[], &[y_scale]),
        y_zero,
    ];
    (inputs, ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"])
}

#[test]
fn qlinear_matmul_rounds_saturates_and_matches_onnx_reference() {
    let matmul = |quantized: Quantized| {
        let (inputs, names) = linear_inputs(quantized);
        values(&run(node("QLinearMatMul", &names, &["y"]), inputs, &["y"])[0])
    };
    let u8 = |name, shape: &[usize], values: &[i64]| ints(name, ElementType::U8, shape, values);
    // Multipliers 1 * 1 / 2 and 1 * 0.5 / 2 per column, zero point 200: 5 * 0.5 = 2.5 -> 2,
    // 7 * 0.5 = 3.5 -> 4, 255 * 0.5 = 127.5 -> 128 + 200 -> 255; 1.25 -> 1, 1.75 -> 2,
    // 63.75 -> 64 + 200 -> 255.
    let ties = matmul((
        u8("x", &[3, 1], &[5, 7, 255]),
        1.0,
        u8("xz", &[], &[0]),
        u8("w", &[1, 2], &[1, 1]),
        vec![1.0, 0.5],
        u8("wz", &[], &[0]),
        2.0,
        u8("yz", &[], &[200]),
    ));
    assert_eq!(ties, [202, 201, 204, 202, 255, 255]);
    // Expected values from onnx.reference's QLinearMatMul (onnx 1.17, in the venv; no result
    // saturates, where that implementation would wrap instead) for [2, 3, 4] x [4, 3] in int8.
    let i8 = |name, shape: &[usize], values: &[i64]| ints(name, ElementType::I8, shape, values);
    let a = [
        113, 32, 47, 101, 20, 70, 85, -71, -114, -52, -56, 95, 105, -127, -1, 82, -95, 76, -98, -9,
        81, -51, -41, -57,
    ];
    let b = [56, -63, 125, -15, -6, 1, 21, 13, 2, 126, 78, 74];
    let reference = matmul((
        i8("x", &[2, 3, 4], &a),
        0.02,
        i8("xz", &[], &[-3]),
        i8("w", &[4, 3], &b),
        vec![0.015],
        i8("wz", &[], &[5]),
        0.5,
        i8("yz", &[], &[-10]),
    ));
    let expected = [
        1, -10, 2, -14, -14, -11, -6, -1, -14, 1, -10, 2, -15, -7, -17, -11, -16, -6,
    ];
    assert_eq!(reference, expected);
}

#[test]
fn qlinear_conv_with_bias_and_channel_scales() {
    let x = [
        179, 159, 87, 253, 119, 55, 216, 41, 219, 156, 29, 11, 113, 9, 36, 131, 248, 119, 206, 234,
        210, 161, 112, 131, 68, 127, 97, 63, 254, 3, 24, 49, 248, 177, 225, 51, 184, 94, 125, 0,
        158, 212, 169, 39, 136, 68, 247, 225, 47, 130,
    ];
    let w = [
        240, 216, 181, 163, 10, 189, 121, 23, 62, 138, 186, 129, 156, 223, 175, 92, 164, 153, 27,
        15, 169, 99, 153, 82, 57, 38, 97, 208, 102, 97, 147, 250, 100, 151, 112, 154, 114, 163,
        140, 173, 244, 38, 143, 112, 91, 61, 13, 103, 211, 24, 103, 247, 243, 55,
    ];
    let u8 = |name, shape: &[usize], values: &[i64]| ints(name, ElementType::U8, shape, values);
    let conv = |w_scale: Vec<f32>, w_zero: Input| {
        let (mut inputs, names) = linear_inputs((
            u8("x", &[1, 2, 5, 5], &x),
            0.01,
            u8("xz", &[], &[120]),
            u8("w", &[3, 2, 3, 3], &w),
            w_scale,
            w_zero,
            0.75,
            u8("yz", &[], &[100]),
        ));
        inputs.push(ints("b", ElementType::I32, &[3], &[1000, -2000, 300]));
        let mut names = names.to_vec();
        names.push("b");
        let op = node("QLinearConv", &names, &["y"])
            .ints("pads", &[1, 1, 1, 1])
            .ints("strides", &[2, 2]);
        values(&run(op, inputs, &["y"])[0])
    };
    // Expected values from onnx.reference's QLinearConv (onnx 1.17, in the venv).
    let per_tensor = [
        98, 106, 99, 97, 99, 102, 101, 110, 107, 100, 93, 92, 101, 96, 88, 97, 103, 91, 99, 97,
        113, 103, 105, 93, 101, 97, 98,
    ];
    assert_eq!(conv(vec![0.02], u8("wz", &[], &[130])), per_tensor);
    // Per output channel (which onnx.reference broadcasts along the wrong axis): computed with
    // numpy from the definition (exact i64 sums plus the bias, times the f32 multiplier
    // x_scale * w_scale[o] / y_scale in f64, np.rint, clipped); channel 0 is the case above.
    let per_channel = [
        98, 106, 99, 97, 99, 102, 101, 110, 107, 99, 104, 104, 99, 103, 96, 107, 110, 96, 101, 65,
        96, 110, 89, 78, 70, 63, 95,
    ];
    let w_zero = u8("wz", &[3], &[130, 0, 255]);
    assert_eq!(conv(vec![0.02, 0.01, 0.04], w_zero), per_channel);
}
