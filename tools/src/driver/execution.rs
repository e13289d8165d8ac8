//! Running a compiled model: its buffers filled with the inputs, weights and constants, the
//! entry called, the outputs read back; and the figures of the runtime's report that compare
//! schedules.

use super::elements::{decode, dtype_code, element_bytes, encode};
use super::preparation::prepare;
use super::{Buffer, Compiled, Device, Role};
use std::collections::HashMap;
use turbine_interpreter::{ElementType, Tensor, Weights};

/// Runs `compiled` on `device` with `inputs` and `weights`; returns the outputs.
pub fn run(
    compiled: &Compiled,
    device: &Device,
    inputs: &[Tensor],
    weights: &Weights,
) -> Result<Vec<Tensor>, String> {
    load(compiled, device, weights)?.run(inputs)
}

/// A compiled model whose buffers are allocated on a device, its weights and constants written:
/// what stays from one run to the next, as a loaded model stays in an inference runtime. Its
/// buffers are freed when it is dropped.
pub struct Loaded<'a> {
    compiled: &'a Compiled,
    device: &'a Device,
    handles: Vec<u64>,
}

/// Allocates the buffers of `compiled` on `device` and writes the weights and constants, those
/// the model computes from its weights computed first (on the device, once).
pub fn load<'a>(
    compiled: &'a Compiled,
    device: &'a Device,
    weights: &Weights,
) -> Result<Loaded<'a>, String> {
    let prepared = prepare(compiled, device, weights)?;
    let handles = allocate(&compiled.buffers, device, weights, &prepared)?;
    Ok(Loaded {
        compiled,
        device,
        handles,
    })
}

/// Allocates `buffers` on `device` and writes the weights (from `prepared`, else `weights`) and
/// constants; frees what it allocated on an error.
pub(super) fn allocate(
    buffers: &[Buffer],
    device: &Device,
    weights: &Weights,
    prepared: &HashMap<String, Tensor>,
) -> Result<Vec<u64>, String> {
    let mut handles = Vec::new();
    let outcome = buffers.iter().try_for_each(|buffer| {
        let elements: usize = buffer.shape.iter().product();
        let size = element_bytes(buffer.element);
        let handle = device.alloc(elements * size, size, dtype_code(buffer.element))?;
        handles.push(handle);
        let what = |role: String| format!("{role} ({:?} in the model)", buffer.element);
        match &buffer.role {
            Role::Weight(name) => {
                let missing = || format!("weight '{name}' is not in the weights file");
                let bytes = match prepared.get(name) {
                    Some(tensor) => tensor_bytes(tensor, name, buffer.element, &buffer.shape)?,
                    None => weight_bytes(weights, name, buffer.element, &buffer.shape, missing)?,
                };
                device.write(handle, &bytes)
            }
            Role::Constant(values) => device.write(
                handle,
                &encode(values, buffer.element, &what("a constant".into()))?,
            ),
            Role::Input(_) | Role::Output(_) => Ok(()),
        }
    });
    if let Err(error) = outcome {
        for &handle in &handles {
            device.free(handle);
        }
        return Err(error);
    }
    Ok(handles)
}

impl Loaded<'_> {
    /// Writes `inputs`, runs the entry and reads the outputs.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
        let compiled = self.compiled;
        let input_count = compiled
            .buffers
            .iter()
            .filter(|buffer| matches!(buffer.role, Role::Input(_)))
            .count();
        if inputs.len() != input_count {
            return Err(format!(
                "@{} takes {input_count} inputs but {} were given",
                compiled.entry,
                inputs.len()
            ));
        }
        for (buffer, &handle) in compiled.buffers.iter().zip(&self.handles) {
            if let Role::Input(index) = buffer.role {
                write_input(compiled, buffer, index, &inputs[index], handle, self.device)?;
            }
        }
        compiled
            .jit
            .run(&compiled.entry, self.device.handle(), &self.handles)?;
        read_outputs(
            &compiled.buffers,
            &compiled.output_shapes,
            self.device,
            &self.handles,
        )
    }
}

impl Drop for Loaded<'_> {
    fn drop(&mut self) {
        for &handle in &self.handles {
            self.device.free(handle);
        }
    }
}

/// The bytes of weight `name` of `weights` as a buffer of `element`s of `shape` holds it; an
/// error when it has another element count, or `missing()` when it is not there.
pub(super) fn weight_bytes(
    weights: &Weights,
    name: &str,
    element: ElementType,
    shape: &[usize],
    missing: impl FnOnce() -> String,
) -> Result<Vec<u8>, String> {
    tensor_bytes(weights.get(name).ok_or_else(missing)?, name, element, shape)
}

/// The bytes of `weight` (named `name`) as a buffer of `element`s of `shape` holds it; an error
/// when it has another element count.
fn tensor_bytes(
    weight: &Tensor,
    name: &str,
    element: ElementType,
    shape: &[usize],
) -> Result<Vec<u8>, String> {
    if weight.shape.iter().product::<usize>() != shape.iter().product::<usize>() {
        return Err(format!(
            "weight '{name}' has shape {:?}, the model expects {shape:?}",
            weight.shape
        ));
    }
    encode(
        &weight.data,
        element,
        &format!("weight '{name}' ({element:?} in the model)"),
    )
}

/// Writes `input`, input #`index` of `compiled`, into its buffer `handle`.
fn write_input(
    compiled: &Compiled,
    buffer: &Buffer,
    index: usize,
    input: &Tensor,
    handle: u64,
    device: &Device,
) -> Result<(), String> {
    // A rank-0 input is stored as one element.
    if input.shape != buffer.shape && !(input.shape.is_empty() && buffer.shape == [1]) {
        return Err(format!(
            "input #{index} has shape {:?}, @{} expects {:?}",
            input.shape, compiled.entry, buffer.shape
        ));
    }
    let what = format!("input #{index} ({:?} in the model)", buffer.element);
    device.write(handle, &encode(&input.data, buffer.element, &what)?)
}

/// Reads the output buffers of `buffers` back, in result order, with `output_shapes` where
/// given (the shapes the graph function declares) and else their buffers' shapes.
pub(super) fn read_outputs(
    buffers: &[Buffer],
    output_shapes: &[Vec<usize>],
    device: &Device,
    handles: &[u64],
) -> Result<Vec<Tensor>, String> {
    let mut outputs = Vec::new();
    for (buffer, &handle) in buffers.iter().zip(handles) {
        if let Role::Output(index) = buffer.role {
            let elements: usize = buffer.shape.iter().product();
            let bytes = device.read(handle, elements * element_bytes(buffer.element))?;
            let shape = output_shapes
                .get(index)
                .cloned()
                .unwrap_or_else(|| buffer.shape.clone());
            outputs.push((
                index,
                Tensor {
                    shape,
                    element_type: buffer.element,
                    data: decode(&bytes, buffer.element),
                },
            ));
        }
    }
    outputs.sort_by_key(|(index, _)| *index);
    Ok(outputs.into_iter().map(|(_, tensor)| tensor).collect())
}

/// The figures of a runtime report that compare schedules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Simulated cycles.
    pub cycles: u64,
    /// Kernel launches.
    pub launches: u64,
    /// Bytes DMAs moved to or from DDR (host transfers excluded).
    pub ddr_bytes: u64,
    /// Bytes DMAs moved between GB and LB, or within GB.
    pub gb_bytes: u64,
    /// Mean utilisation of the matrix engines.
    pub matrix_utilisation: f64,
}

/// Reads the [`Figures`] of a JSON report ([`Device::report`]).
pub fn figures(report: &str) -> Result<Figures, String> {
    let report: serde_json::Value =
        serde_json::from_str(report).map_err(|error| format!("the runtime's report: {error}"))?;
    let number = |value: &serde_json::Value| value.as_u64().unwrap_or(0);
    let transfers = report["transfers"].as_array().cloned().unwrap_or_default();
    let bytes = |keep: &dyn Fn(&str, &str) -> bool| -> u64 {
        transfers
            .iter()
            .filter(|t| {
                keep(
                    t["src"].as_str().unwrap_or(""),
                    t["dst"].as_str().unwrap_or(""),
                )
            })
            .map(|t| number(&t["bytes"]))
            .sum()
    };
    let matrix: Vec<f64> = report["units"]
        .as_array()
        .map(|units| {
            units
                .iter()
                .filter(|u| u["kind"] == "matrix_engine")
                .map(|u| u["utilisation"].as_f64().unwrap_or(0.0))
                .collect()
        })
        .unwrap_or_default();
    Ok(Figures {
        cycles: number(&report["cycles"]),
        launches: number(&report["kernel_launches"]),
        ddr_bytes: bytes(&|src, dst| src == "ddr" || dst == "ddr"),
        gb_bytes: bytes(&|src, dst| src == "gb" || dst == "gb")
            - bytes(&|src, dst| (src == "gb" && dst == "ddr") || (src == "ddr" && dst == "gb")),
        matrix_utilisation: if matrix.is_empty() {
            0.0
        } else {
            matrix.iter().sum::<f64>() / matrix.len() as f64
        },
    })
}
