//! The compiled-model loader of the C ABI (`td_model_*`): a descriptor with an input, a weight,
//! a constant and an output, an entry written in Rust that adds them through the host's buffer
//! calls, and every failure of loading and running returning a status and a message that names
//! the culprit.

use std::ffi::{c_void, CStr, CString};
use std::ptr::{null, null_mut};
use turbine_runtime::ffi::*;
use turbine_runtime::weights::{serialize, NamedTensor};
use turbine_runtime::ElementType;

fn last_error() -> String {
    unsafe { CStr::from_ptr(td_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Asserts that a call failed with `code` and a message containing `needle`.
fn fails(status: i32, code: i32, needle: &str) {
    let message = last_error();
    assert_eq!(
        status, code,
        "expected status {code}, got {status}: {message}"
    );
    assert!(
        message.contains(needle),
        "message {message:?} lacks {needle:?}"
    );
}

fn read(dev: u64, buffer: u64) -> [f32; 4] {
    let mut values = [0f32; 4];
    let status = unsafe { td_buffer_read(dev, buffer, 0, values.as_mut_ptr().cast(), 16) };
    assert_eq!(status, TD_OK);
    values
}

/// output = input + weight + constant, elementwise over four f32.
unsafe extern "C" fn add_three(dev: u64, buffers: *const u64) -> i32 {
    let buffers = std::slice::from_raw_parts(buffers, 4);
    let [input, weight, constant] = [0, 1, 2].map(|index| read(dev, buffers[index]));
    let sum: Vec<f32> = (0..4).map(|i| input[i] + weight[i] + constant[i]).collect();
    td_buffer_write(dev, buffers[3], 0, sum.as_ptr().cast(), 16)
}

/// Fails as a generated entry does: with the status and message of a failing runtime call.
unsafe extern "C" fn failing(dev: u64, _buffers: *const u64) -> i32 {
    td_buffer_free(dev, 999);
    td_device_take_error(dev)
}

const SHAPE: [u64; 2] = [2, 2];
const CONSTANT: [f32; 4] = [100.0, 200.0, 300.0, 400.0];

fn buffer(role: u32, index: u32, name: *const i8, data: *const c_void) -> TdModelBuffer {
    TdModelBuffer {
        role,
        dtype: 0,
        index,
        rank: 2,
        shape: SHAPE.as_ptr(),
        name,
        data,
    }
}

/// Writes a weights file holding `name` of `shape` (f32 values 1, 2, 3, ...); returns its path.
fn weights(folder: &std::path::Path, name: &str, shape: &[usize]) -> CString {
    let count: usize = shape.iter().product();
    let data = (1..=count).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let tensor = NamedTensor {
        name: name.into(),
        dtype: ElementType::F32,
        shape: shape.to_vec(),
        data,
    };
    let path = folder.join(format!("{name}-rank{}.safetensors", shape.len()));
    std::fs::write(&path, serialize(&[tensor]).unwrap()).unwrap();
    CString::new(path.to_str().unwrap()).unwrap()
}

#[test]
fn a_model_loads_its_weights_and_constants_and_runs() {
    let folder = std::env::temp_dir().join(format!("td-model-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let name = CString::new("w").unwrap();
    let buffers = [
        buffer(TD_ROLE_INPUT, 0, null(), null()),
        buffer(TD_ROLE_WEIGHT, 0, name.as_ptr(), null()),
        buffer(TD_ROLE_CONSTANT, 0, null(), CONSTANT.as_ptr().cast()),
        buffer(TD_ROLE_OUTPUT, 0, null(), null()),
    ];
    let entry = CString::new("add_three").unwrap();
    let mut desc = TdModelDesc {
        name: entry.as_ptr(),
        entry: Some(add_three),
        n_buffers: 4,
        buffers: buffers.as_ptr(),
    };
    let target = CString::new("mini").unwrap();
    let good = weights(&folder, "w", &[2, 2]);
    let mut model = 0;
    assert_eq!(
        unsafe { td_model_create(&desc, good.as_ptr(), target.as_ptr(), &mut model) },
        TD_OK,
        "{}",
        last_error()
    );
    let input = [0.5f32, 0.25, 0.125, 0.0];
    let mut output = [0f32; 4];
    let inputs = [input.as_ptr().cast::<c_void>()];
    let outputs = [output.as_mut_ptr().cast::<c_void>()];
    let status = unsafe { td_model_run(model, inputs.as_ptr(), outputs.as_ptr()) };
    assert_eq!(status, TD_OK, "{}", last_error());
    assert_eq!(output, [101.5, 202.25, 303.125, 404.0]);
    let mut device = 0;
    assert_eq!(unsafe { td_model_device(model, &mut device) }, TD_OK);
    assert_eq!(td_model_destroy(model), TD_OK);
    fails(td_device_destroy(device), 2, "unknown device");
    fails(td_model_destroy(model), 2, "unknown model handle");

    let create = |desc: &TdModelDesc, path: *const i8| {
        let mut model = 0;
        unsafe { td_model_create(desc, path, target.as_ptr(), &mut model) }
    };
    fails(
        create(&desc, null()),
        1,
        "has weights but weights_path is NULL",
    );
    let missing = CString::new(folder.join("none.safetensors").to_str().unwrap()).unwrap();
    fails(create(&desc, missing.as_ptr()), 8, "none.safetensors");
    let other = weights(&folder, "v", &[2, 2]);
    fails(create(&desc, other.as_ptr()), 1, "tensor 'w' is missing");
    let wide = weights(&folder, "w", &[4]);
    fails(
        create(&desc, wide.as_ptr()),
        1,
        "tensor 'w' has shape [4], the model expects [2, 2]",
    );

    desc.entry = Some(failing);
    let status = unsafe { td_model_create(&desc, good.as_ptr(), target.as_ptr(), &mut model) };
    assert_eq!(status, TD_OK);
    let status = unsafe { td_model_run(model, inputs.as_ptr(), outputs.as_ptr()) };
    fails(status, 2, "add_three: td_buffer_free: unknown buffer");
    let status = unsafe { td_model_run(model, [null()].as_ptr(), outputs.as_ptr()) };
    fails(status, 1, "input 0 is NULL");
    assert_eq!(td_model_destroy(model), TD_OK);
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn a_malformed_descriptor_is_refused() {
    let entry = CString::new("m").unwrap();
    let target = CString::new("mini").unwrap();
    let mut model = 0;
    let mut create = |buffers: &[TdModelBuffer]| {
        let desc = TdModelDesc {
            name: entry.as_ptr(),
            entry: Some(failing),
            n_buffers: buffers.len() as u64,
            buffers: buffers.as_ptr(),
        };
        unsafe { td_model_create(&desc, null(), target.as_ptr(), &mut model) }
    };
    let twice = [buffer(TD_ROLE_INPUT, 0, null(), null()); 2];
    fails(create(&twice), 1, "buffer 1: index 0 where 1 is expected");
    let skipping = [buffer(TD_ROLE_OUTPUT, 1, null(), null())];
    fails(
        create(&skipping),
        1,
        "buffer 0: index 1 where 0 is expected",
    );
    fails(
        create(&[buffer(9, 0, null(), null())]),
        1,
        "buffer 0: unknown role 9",
    );
    let mut typed = buffer(TD_ROLE_INPUT, 0, null(), null());
    typed.dtype = 42;
    fails(create(&[typed]), 1, "buffer 0: unknown dtype code 42");
    fails(
        create(&[buffer(TD_ROLE_CONSTANT, 0, null(), null())]),
        1,
        "buffer 0: data is NULL",
    );
    let status = unsafe { td_model_create(null(), null(), target.as_ptr(), null_mut()) };
    fails(status, 1, "desc is NULL");
}
