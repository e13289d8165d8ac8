//! Matrix products: `MatMul` → `graph.matmul` (2-D × 2-D) or `graph.batch_matmul`, `Gemm` →
//! `graph.gemm`.
//!
//! ONNX `MatMul` follows numpy: a 1-D operand is a row (left) or a column (right) whose promoted
//! dimension disappears from the result. The dialect's products take matrices only, so a vector
//! is reshaped to a matrix before the product and the result reshaped back after it.

use super::{float_input, Builder};
use crate::emit::Attribute;
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::types::TensorType;
use crate::value::{Inputs, Value};

/// `MatMul`.
pub fn matmul(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let a = float_input(node, inputs, 0, "A")?;
    let b = float_input(node, inputs, 1, "B")?;
    let (lhs, rhs) = (a.ty(), b.ty());
    let result = shape::matmul(&lhs.shape, &rhs.shape).map_err(|message| node.invalid(message))?;
    let element = lhs.element;
    let mut promote = |value: &Value, shape: Vec<usize>| {
        let operand = builder.operand(value);
        if operand.ty.shape == shape {
            operand
        } else {
            builder.body.op1(
                "graph.reshape",
                &[&operand],
                &[],
                TensorType::new(shape, element),
                &node.name,
            )
        }
    };
    let lhs_matrix = promote(
        a,
        if lhs.rank() == 1 {
            vec![1, lhs.shape[0]]
        } else {
            lhs.shape.clone()
        },
    );
    let rhs_matrix = promote(
        b,
        if rhs.rank() == 1 {
            vec![rhs.shape[0], 1]
        } else {
            rhs.shape.clone()
        },
    );
    let op = if lhs_matrix.ty.rank() == 2 && rhs_matrix.ty.rank() == 2 {
        "graph.matmul"
    } else {
        "graph.batch_matmul"
    };
    let mut product = shape::broadcast(
        &lhs_matrix.ty.shape[..lhs_matrix.ty.rank() - 2],
        &rhs_matrix.ty.shape[..rhs_matrix.ty.rank() - 2],
    )
    .map_err(|message| node.invalid(message))?;
    product.extend([
        lhs_matrix.ty.shape[lhs_matrix.ty.rank() - 2],
        rhs_matrix.ty.shape[rhs_matrix.ty.rank() - 1],
    ]);
    let product = builder.body.op1(
        op,
        &[&lhs_matrix, &rhs_matrix],
        &[],
        TensorType::new(product, element),
        &node.name,
    );
    if product.ty.shape == result {
        return Ok(vec![Value::Dynamic(product)]);
    }
    Ok(vec![builder.emit(
        node,
        "graph.reshape",
        &[&product],
        &[],
        TensorType::new(result, element),
    )])
}

/// `Gemm`: `alpha * op(A) * op(B) + beta * C`; with `beta` 0, `C` is checked but not an operand
/// (BLAS does not read it then, nor do ONNX's reference and onnxruntime: an infinite or NaN `C`
/// does not make NaN).
pub fn gemm(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let a = float_input(node, inputs, 0, "A")?;
    let b = float_input(node, inputs, 1, "B")?;
    let (lhs, rhs) = (a.ty().shape, b.ty().shape);
    if lhs.len() != 2 || rhs.len() != 2 {
        return Err(node.invalid(format!(
            "expects 2-D A and B, got shapes {lhs:?} and {rhs:?}"
        )));
    }
    let trans_a = node.int("transA", 0)? != 0;
    let trans_b = node.int("transB", 0)? != 0;
    let (m, k_a) = if trans_a {
        (lhs[1], lhs[0])
    } else {
        (lhs[0], lhs[1])
    };
    let (k_b, n) = if trans_b {
        (rhs[1], rhs[0])
    } else {
        (rhs[0], rhs[1])
    };
    if k_a != k_b {
        return Err(node.invalid(format!(
            "inner dimensions differ: op(A) is [{m}, {k_a}] and op(B) is [{k_b}, {n}]"
        )));
    }
    let c = match inputs.get(2) {
        None => None,
        Some(_) => {
            let c = float_input(node, inputs, 2, "C")?;
            let shape = c.ty().shape;
            if shape.len() > 2
                || shape::broadcast(&shape, &[m, n]).ok().as_deref() != Some(&[m, n][..])
            {
                return Err(node.invalid(format!(
                    "C of shape {shape:?} does not broadcast to [{m}, {n}]"
                )));
            }
            Some(c)
        }
    };
    let beta = node.float("beta", 1.0)?;
    let result = TensorType::new(vec![m, n], a.ty().element);
    let mut operands = vec![builder.operand(a), builder.operand(b)];
    operands.extend(c.filter(|_| beta != 0.0).map(|c| builder.operand(c)));
    let attributes = [
        ("alpha", Attribute::Float(node.float("alpha", 1.0)?)),
        ("beta", Attribute::Float(beta)),
        ("trans_a", Attribute::Bool(trans_a)),
        ("trans_b", Attribute::Bool(trans_b)),
    ];
    let operands: Vec<_> = operands.iter().collect();
    Ok(vec![builder.emit(
        node,
        "graph.gemm",
        &operands,
        &attributes,
        result,
    )])
}
