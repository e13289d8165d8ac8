//! The model and its inputs: a built-in model, an ONNX model or a graph-dialect text with its
//! weights (told apart by their content, whatever the file's extension); inputs from `.npy`
//! files or seeded random values, checked against the function's arguments before anything is
//! compiled.

use crate::Arguments;
use std::path::Path;
use turbine_dialects::ParseError;
use turbine_interpreter::{npy, Data, ElementType, Program, Tensor, Weights};
use turbine_tools::input::{read_model, ModelFormat};
use turbine_tools::random::SplitMix;

/// The model as a graph-dialect module and its weights.
pub(crate) fn load<'c>(
    context: &'c melior::Context,
    arguments: &Arguments,
) -> Result<(melior::ir::Module<'c>, Weights), String> {
    if let Some(name) = &arguments.builtin {
        let model =
            turbine_tools::models::builtin(name, arguments.batch as usize).ok_or_else(|| {
                format!(
                    "no built-in model '{name}' (available: {})",
                    turbine_tools::models::MODELS.join(", ")
                )
            })?;
        let module = turbine_tools::graph_module::build(context, &model.module)
            .map_err(|error| format!("the built-in model '{name}' is invalid (a bug): {error}"))?;
        return Ok((module, model.weights));
    }
    let path = arguments
        .model
        .as_ref()
        .expect("clap requires a model or --builtin");
    let (bytes, format) = read_model(path)?;
    match format {
        ModelFormat::Onnx => import_onnx(context, arguments, path, &bytes),
        ModelFormat::MlirText | ModelFormat::MlirBytecode => {
            load_mlir(context, arguments, path, &bytes)
        }
    }
}

/// The ONNX model `bytes` read from `path`, imported.
fn import_onnx<'c>(
    context: &'c melior::Context,
    arguments: &Arguments,
    path: &Path,
    bytes: &[u8],
) -> Result<(melior::ir::Module<'c>, Weights), String> {
    // The weights stay in memory: the module names a side file, as `turbine-translate` writes
    // one, but nothing reads it here (writing a large model's weights and reading them back
    // would take a sizeable share of the command's time).
    let options = turbine_onnx::ImportOptions {
        input_shapes: arguments.input_shapes.clone(),
        weights_file: "weights.safetensors".into(),
        external_data_folder: Some(turbine_tools::input::model_folder(path)),
    };
    let model = turbine_onnx::import(bytes, &options)
        .map_err(|error| format!("{} (read as an ONNX model): {error}", path.display()))?;
    let module = turbine_tools::graph_module::build(context, &model.module).map_err(|error| {
        format!(
            "{}: the imported IR is invalid (an importer bug): {error}",
            path.display()
        )
    })?;
    let weights = if model.weights.is_empty() {
        Weights::empty()
    } else {
        let serialized = model.weights.serialize().map_err(|error| {
            format!("{}: cannot serialize the weights: {error}", path.display())
        })?;
        Weights::parse(&serialized, &path.display().to_string())
            .map_err(|error| error.to_string())?
    };
    Ok((module, weights))
}

/// The graph-dialect text `bytes` read from `path`, parsed and verified, with its weights.
fn load_mlir<'c>(
    context: &'c melior::Context,
    arguments: &Arguments,
    path: &Path,
    bytes: &[u8],
) -> Result<(melior::ir::Module<'c>, Weights), String> {
    let name = path.display().to_string();
    let module =
        turbine_dialects::parse_source(context, bytes, &name).map_err(|error| match error {
            ParseError::Refused(error) => format!("{name}:{error}"),
            ParseError::Invalid => format!("{name}: cannot parse or verify the model (MLIR text)"),
        })?;
    // SAFETY: the module was just parsed and verified.
    let program = unsafe {
        Program::from_module(
            module.as_operation().to_raw(),
            arguments.function.as_deref(),
        )
    }
    .map_err(|error| error.to_string())?;
    let weights_path = arguments.weights.clone().or_else(|| {
        program
            .weights_file
            .as_ref()
            .map(|file| path.parent().unwrap_or(Path::new(".")).join(file))
    });
    let weights = match weights_path {
        Some(path) => turbine_tools::input::read_weights(&path)?,
        None => Weights::empty(),
    };
    Ok((module, weights))
}

/// The inputs of `program`: the `--input` files, or seeded random values of the argument types.
pub(crate) fn inputs(arguments: &Arguments, program: &Program) -> Result<Vec<Tensor>, String> {
    if arguments.inputs.is_empty() {
        let mut random = SplitMix(arguments.seed);
        return Ok(program
            .body
            .arguments
            .iter()
            .map(|(_, r#type)| random_input(&r#type.shape, r#type.element_type, &mut random))
            .collect());
    }
    let declared = program
        .body
        .arguments
        .iter()
        .map(|(_, r#type)| r#type.element_type);
    // An input beyond the arguments keeps its type; check_interface reports the count.
    let declared = declared.chain(std::iter::repeat(ElementType::F32));
    arguments
        .inputs
        .iter()
        .zip(declared)
        .map(|(path, element)| {
            let bytes = turbine_files::read(path, turbine_files::INPUT)
                .map_err(|error| error.to_string())?;
            let tensor =
                npy::parse(&bytes).map_err(|error| format!("{}: {error}", path.display()))?;
            Ok(npy::for_argument(tensor, element))
        })
        .collect()
}

/// Refuses, before anything is compiled, inputs that do not match the function's arguments in
/// count, shape or element type, and outputs that cannot be written.
pub(crate) fn check_interface(
    arguments: &Arguments,
    program: &Program,
    inputs: &[Tensor],
) -> Result<(), String> {
    let parameters = &program.body.arguments;
    if inputs.len() != parameters.len() {
        return Err(format!(
            "@{} takes {} inputs but {} were given",
            program.name,
            parameters.len(),
            inputs.len()
        ));
    }
    for (index, (input, (_, parameter))) in inputs.iter().zip(parameters).enumerate() {
        let what = arguments
            .inputs
            .get(index)
            .map(|path| path.display().to_string())
            .unwrap_or_else(|| format!("input #{index}"));
        if input.shape != parameter.shape || input.element_type != parameter.element_type {
            return Err(format!(
                "{what}: {:?} {:?}, but argument #{index} of @{} is {:?} {:?}",
                input.element_type,
                input.shape,
                program.name,
                parameter.element_type,
                parameter.shape
            ));
        }
    }
    let results = program
        .body
        .ops
        .last()
        .map_or(0, |terminator| terminator.operands.len());
    if !arguments.outputs.is_empty() && arguments.outputs.len() != results {
        return Err(format!(
            "@{} has {results} results but {} --output files were given",
            program.name,
            arguments.outputs.len()
        ));
    }
    for path in arguments
        .outputs
        .iter()
        .chain(&arguments.report_json)
        .chain(&arguments.trace)
        .chain(&arguments.timeline)
    {
        let folder = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !folder.is_dir() {
            return Err(format!(
                "{}: the folder {} does not exist",
                path.display(),
                folder.display()
            ));
        }
        if path.is_dir() {
            return Err(format!("{}: is a folder, not a file", path.display()));
        }
        if std::fs::metadata(path).is_ok_and(|metadata| metadata.permissions().readonly()) {
            return Err(format!("{}: the file is read-only", path.display()));
        }
    }
    Ok(())
}

/// A random tensor: floats uniform in [-1, 1) (rounded to f16 or bf16), integers and booleans 0
/// or 1.
fn random_input(shape: &[usize], element_type: ElementType, random: &mut SplitMix) -> Tensor {
    let count = shape.iter().product();
    let data = match element_type {
        ElementType::Bool => Data::Bool((0..count).map(|_| random.next_u64() % 2 == 1).collect()),
        float if float.is_float() => Data::F32((0..count).map(|_| random.unit()).collect()),
        _ => Data::I64((0..count).map(|_| (random.next_u64() % 2) as i64).collect()),
    };
    // Floats are rounded to f16 and bf16.
    Tensor {
        shape: shape.to_vec(),
        element_type,
        data,
    }
    .conform(element_type)
}
