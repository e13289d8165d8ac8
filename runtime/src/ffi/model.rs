//! The C ABI's model loader (`td_model_*`): an ahead-of-time compiled model describes the
//! buffers of its entry function ([`TdModelDesc`], a constant of its object file), and the
//! loader opens a device of its own, allocates every buffer in DDR, fills the weights from a
//! safetensors file (each checked by name, element type and shape) and the inline constants
//! from the descriptor, then runs the entry on the caller's inputs and outputs. The caller
//! uploads nothing by hand.

use super::*;
use crate::weights::WeightsFile;

/// An entry function of a compiled model: `int32_t f(uint64_t device, const uint64_t *buffers)`.
pub type TdModelEntry = unsafe extern "C" fn(u64, *const u64) -> i32;

/// Role of a buffer that holds input `index` of the model.
pub const TD_ROLE_INPUT: u32 = 0;
/// Role of a buffer that receives output `index` of the model.
pub const TD_ROLE_OUTPUT: u32 = 1;
/// Role of a buffer filled with tensor `name` of the weights file.
pub const TD_ROLE_WEIGHT: u32 = 2;
/// Role of a buffer filled with the descriptor's `data`.
pub const TD_ROLE_CONSTANT: u32 = 3;
/// Role of a buffer the entry uses without the host filling or reading it.
pub const TD_ROLE_SCRATCH: u32 = 4;

/// One buffer argument of a model's entry, as `td_model_buffer` in C.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TdModelBuffer {
    /// `TD_ROLE_*`.
    pub role: u32,
    /// `TD_DTYPE_*` of its elements.
    pub dtype: u32,
    /// The input or output index (inputs and outputs); ignored otherwise.
    pub index: u32,
    /// Number of dimensions.
    pub rank: u32,
    /// `rank` extents.
    pub shape: *const u64,
    /// The weight's name (weights); NULL otherwise.
    pub name: *const c_char,
    /// The constant's bytes in native order, as many as the shape holds (constants); NULL
    /// otherwise.
    pub data: *const c_void,
}

/// A compiled model, as `td_model_desc` in C.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TdModelDesc {
    /// The entry function's name, for messages.
    pub name: *const c_char,
    /// The entry function.
    pub entry: Option<TdModelEntry>,
    /// Number of buffers.
    pub n_buffers: u64,
    /// The entry's buffers, in argument order.
    pub buffers: *const TdModelBuffer,
}

/// What one buffer of a model holds.
enum Role<'a> {
    Input(usize),
    Output(usize),
    Weight(&'a str),
    Constant(&'a [u8]),
    Scratch,
}

/// One buffer of a model, read from its descriptor.
struct Layout<'a> {
    role: Role<'a>,
    dtype: ElementType,
    shape: Vec<u64>,
    bytes: u64,
}

/// A loaded model: its device, the handle of each buffer and where inputs and outputs are.
struct Model {
    name: String,
    entry: TdModelEntry,
    device: u64,
    handles: Vec<u64>,
    /// Per input index: its buffer's handle and size in bytes.
    inputs: Vec<(u64, u64)>,
    /// Per output index: its buffer's handle and size in bytes.
    outputs: Vec<(u64, u64)>,
}

static MODELS: Mutex<BTreeMap<u64, Arc<Mutex<Model>>>> = Mutex::new(BTreeMap::new());
static NEXT_MODEL: AtomicU64 = AtomicU64::new(1);

/// Reads buffer `position` of a descriptor.
unsafe fn layout<'a>(buffer: &'a TdModelBuffer, position: usize) -> Result<Layout<'a>> {
    let what = |field: &str| format!("buffer {position}: {field}");
    let dtype = ElementType::from_code(buffer.dtype).ok_or_else(|| {
        RuntimeError::BadArgument(what(&format!("unknown dtype code {}", buffer.dtype)))
    })?;
    let shape = slice(buffer.shape, u64::from(buffer.rank), &what("shape"))?.to_vec();
    let bytes = shape
        .iter()
        .try_fold(dtype.bytes(), |size, &dim| size.checked_mul(dim))
        .ok_or_else(|| RuntimeError::BadArgument(what("its size overflows")))?;
    let role = match buffer.role {
        TD_ROLE_INPUT => Role::Input(buffer.index as usize),
        TD_ROLE_OUTPUT => Role::Output(buffer.index as usize),
        TD_ROLE_WEIGHT => Role::Weight(text(buffer.name, &what("name"))?),
        TD_ROLE_CONSTANT => Role::Constant(slice(buffer.data as *const u8, bytes, &what("data"))?),
        TD_ROLE_SCRATCH => Role::Scratch,
        other => {
            return Err(RuntimeError::BadArgument(what(&format!(
                "unknown role {other}"
            ))))
        }
    };
    Ok(Layout {
        role,
        dtype,
        shape,
        bytes,
    })
}

/// The buffer positions of the inputs (or outputs) in index order; their indices must be 0, 1,
/// ... once each.
fn by_index(layouts: &[Layout], index_of: impl Fn(&Role) -> Option<usize>) -> Result<Vec<usize>> {
    let mut found: Vec<(usize, usize)> = layouts
        .iter()
        .enumerate()
        .filter_map(|(position, layout)| index_of(&layout.role).map(|index| (index, position)))
        .collect();
    found.sort_unstable();
    for (expected, &(index, position)) in found.iter().enumerate() {
        if index != expected {
            return Err(RuntimeError::BadArgument(format!(
                "buffer {position}: index {index} where {expected} is expected \
                 (the indices run from 0, once each)"
            )));
        }
    }
    Ok(found.into_iter().map(|(_, position)| position).collect())
}

/// Allocates every buffer of `layouts` on device `dev` and fills the weights (from `weights`)
/// and the constants; returns the handles in order.
fn fill(dev: u64, layouts: &[Layout], weights: Option<&WeightsFile>) -> Result<Vec<u64>> {
    let tensors = weights.map(WeightsFile::tensors).transpose()?;
    with_device(dev, |device| {
        let mut handles = Vec::with_capacity(layouts.len());
        for layout in layouts {
            let id = device.alloc_typed(Placement::Ddr, layout.bytes, layout.dtype)?;
            handles.push(id.0);
            let data = match (&layout.role, weights, &tensors) {
                (Role::Weight(name), Some(file), Some(tensors)) => {
                    file.tensor(tensors, name, layout.dtype, &layout.shape)?
                }
                (Role::Constant(data), ..) => data,
                _ => continue,
            };
            device.write_elements(id, layout.dtype, 0, data)?;
        }
        Ok(handles)
    })
}

/// Loads the model `desc` describes on a new device of `target`, with its weights from the
/// file at `weights_path` (needed only by a model with weights).
unsafe fn load(desc: &TdModelDesc, weights_path: *const c_char, target: &str) -> Result<Model> {
    let name = text(desc.name, "the model's name")?.to_owned();
    let entry = desc
        .entry
        .ok_or_else(|| RuntimeError::BadArgument(format!("model '{name}' has no entry")))?;
    let layouts = slice(desc.buffers, desc.n_buffers, "buffers")?
        .iter()
        .enumerate()
        .map(|(position, buffer)| layout(buffer, position))
        .collect::<Result<Vec<Layout>>>()?;
    let inputs = by_index(&layouts, |role| match role {
        Role::Input(index) => Some(*index),
        _ => None,
    })?;
    let outputs = by_index(&layouts, |role| match role {
        Role::Output(index) => Some(*index),
        _ => None,
    })?;
    let needs_weights = layouts
        .iter()
        .any(|layout| matches!(layout.role, Role::Weight(_)));
    let weights = match (needs_weights, weights_path.is_null()) {
        (false, _) => None,
        (true, false) => Some(WeightsFile::read(text(weights_path, "weights_path")?)?),
        (true, true) => {
            return Err(RuntimeError::BadArgument(format!(
                "model '{name}' has weights but weights_path is NULL"
            )))
        }
    };
    let device = open_device(target)?;
    let handles = match fill(device, &layouts, weights.as_ref()) {
        Ok(handles) => handles,
        Err(error) => {
            close_device(device)?;
            return Err(error);
        }
    };
    let placed = |positions: Vec<usize>| {
        positions
            .into_iter()
            .map(|position| (handles[position], layouts[position].bytes))
            .collect()
    };
    Ok(Model {
        name,
        entry,
        device,
        inputs: placed(inputs),
        outputs: placed(outputs),
        handles,
    })
}

fn model(handle: u64) -> Result<Arc<Mutex<Model>>> {
    MODELS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&handle)
        .cloned()
        .ok_or(RuntimeError::UnknownModel(handle))
}

/// Loads the compiled model `desc` on a new device of `target` (a built-in name or a target
/// file), its weights read from the safetensors file `weights_path` (NULL for a model without
/// weights), and stores its handle in `model_out`. A missing or mismatched tensor is an error
/// naming it; nothing is left allocated after a failure.
#[no_mangle]
pub unsafe extern "C" fn td_model_create(
    desc: *const TdModelDesc,
    weights_path: *const c_char,
    target: *const c_char,
    model_out: *mut u64,
) -> i32 {
    guard(|| {
        let desc = reference(desc, "desc")?;
        let target = text(target, "target")?;
        if model_out.is_null() {
            return Err(RuntimeError::BadArgument("model_out is NULL".into()));
        }
        let loaded = load(desc, weights_path, target)?;
        let id = NEXT_MODEL.fetch_add(1, Ordering::Relaxed);
        MODELS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, Arc::new(Mutex::new(loaded)));
        out(model_out, id);
        Ok(())
    })
}

/// Runs `model`: writes `inputs[i]` (the bytes of input i, as its buffer holds them) into the
/// input buffers, runs the entry, and reads output i into `outputs[i]`. Calls on one model are
/// serialised.
#[no_mangle]
pub unsafe extern "C" fn td_model_run(
    model_handle: u64,
    inputs: *const *const c_void,
    outputs: *const *mut c_void,
) -> i32 {
    guard(|| {
        let shared = model(model_handle)?;
        let model = shared.lock().unwrap_or_else(|e| e.into_inner());
        let sources = slice(inputs, model.inputs.len() as u64, "inputs")?;
        let targets = slice(outputs, model.outputs.len() as u64, "outputs")?;
        for (index, (&(buffer, bytes), &source)) in model.inputs.iter().zip(sources).enumerate() {
            let data = slice(source as *const u8, bytes, &format!("input {index}"))?;
            with_device(model.device, |device| {
                let buffer = BufferId(buffer);
                device.write_elements(buffer, device.dtype(buffer)?, 0, data)
            })?;
        }
        let status = (model.entry)(model.device, model.handles.as_ptr());
        if status != TD_OK {
            return Err(RuntimeError::EntryFailed {
                entry: model.name.clone(),
                code: crate::ErrorCode::from_status(status),
                message: LAST_ERROR.with(|e| e.borrow().to_string_lossy().into_owned()),
            });
        }
        // A fault of the launches' execution belongs to the entry too.
        with_device(model.device, |device| device.synchronize()).map_err(|fault| {
            RuntimeError::EntryFailed {
                entry: model.name.clone(),
                code: fault.code(),
                message: fault.to_string(),
            }
        })?;
        for (index, (&(buffer, bytes), &target)) in model.outputs.iter().zip(targets).enumerate() {
            if target.is_null() {
                return Err(RuntimeError::BadArgument(format!("output {index} is NULL")));
            }
            let data = with_device(model.device, |device| {
                let buffer = BufferId(buffer);
                let dtype = device.dtype(buffer)?;
                device.read_elements(buffer, dtype, 0, bytes / dtype.bytes())
            })?;
            std::ptr::copy_nonoverlapping(data.as_ptr(), target as *mut u8, data.len());
        }
        Ok(())
    })
}

/// Stores the handle of `model`'s device in `device_out`, for its report and trace.
#[no_mangle]
pub unsafe extern "C" fn td_model_device(model_handle: u64, device_out: *mut u64) -> i32 {
    guard(|| {
        let device = model(model_handle)?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .device;
        out(device_out, device);
        Ok(())
    })
}

/// Destroys `model` and its device.
#[no_mangle]
pub extern "C" fn td_model_destroy(model_handle: u64) -> i32 {
    guard(|| {
        let removed = MODELS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&model_handle)
            .ok_or(RuntimeError::UnknownModel(model_handle))?;
        let device = removed.lock().unwrap_or_else(|e| e.into_inner()).device;
        close_device(device)
    })
}
