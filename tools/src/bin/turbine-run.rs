//! `turbine-run`: runs a model. With `--interpret`, the graph dialect's reference interpreter
//! evaluates it; this is the ground truth that compiled pipelines are compared with.

use clap::Parser;
use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};
use turbine_interpreter::{interpret, npy, Data, ElementType, Program, Tensor, Weights};

#[derive(Parser, Debug)]
#[command(name = "turbine-run", about = "Run a model in the graph dialect")]
struct Arguments {
    /// The model (.mlir in the graph dialect).
    model: PathBuf,
    /// Evaluate with the graph-level reference interpreter.
    #[arg(long)]
    interpret: bool,
    /// Input .npy files, one per argument of the function, in order.
    #[arg(long = "input", value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// Where to write the outputs (.npy), one per result, in order.
    #[arg(long = "output", value_name = "FILE")]
    outputs: Vec<PathBuf>,
    /// The weights file (safetensors); by default the module's `graph.weights`, relative to the
    /// model's folder.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// The function to run; by default `main`, or the module's only function.
    #[arg(long)]
    function: Option<String>,
    /// Seed of the random inputs used when no --input is given (f32 uniform in [-1, 1)).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// A deterministic generator (SplitMix64) for seeded inputs: the same seed gives the same inputs on
/// every host.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

fn random_input(shape: &[usize], element_type: ElementType, random: &mut SplitMix) -> Tensor {
    let count = shape.iter().product();
    let data = match element_type {
        ElementType::F32 => Data::F32((0..count).map(|_| random.unit()).collect()),
        ElementType::I64 | ElementType::I32 => Data::I64((0..count).map(|_| (random.next() % 2) as i64).collect()),
        ElementType::Bool => Data::Bool((0..count).map(|_| random.next() % 2 == 1).collect()),
    };
    Tensor { shape: shape.to_vec(), element_type, data }
}

fn summary(tensor: &Tensor) -> String {
    let values: Vec<f64> = match &tensor.data {
        Data::F32(values) => values.iter().map(|&v| v as f64).collect(),
        Data::I64(values) => values.iter().map(|&v| v as f64).collect(),
        Data::Bool(values) => values.iter().map(|&v| v as u8 as f64).collect(),
    };
    let head: Vec<String> = values.iter().take(6).map(|v| format!("{v:.6}")).collect();
    let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    format!(
        "{:?} {:?}: min {min:.6}, max {max:.6}, mean {mean:.6}, first [{}{}]",
        tensor.element_type,
        tensor.shape,
        head.join(", "),
        if values.len() > head.len() { ", ..." } else { "" }
    )
}

fn run(arguments: &Arguments) -> Result<(), String> {
    if !arguments.interpret {
        return Err("only --interpret is available: compilation for the software DSA comes with the \
                    end-to-end pipeline"
            .into());
    }
    let context = turbine_dialects::create_context();
    let module = turbine_dialects::parse_file(&context, &arguments.model)
        .ok_or_else(|| format!("{}: cannot parse or verify the model", arguments.model.display()))?;
    // SAFETY: the module was just parsed and verified, and outlives the program read from it.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), arguments.function.as_deref()) }
        .map_err(|error| error.to_string())?;
    let weights_path = arguments.weights.clone().or_else(|| {
        program.weights_file.as_ref().map(|file| arguments.model.parent().unwrap_or(Path::new(".")).join(file))
    });
    let weights = match weights_path {
        Some(path) => Weights::load(&path).map_err(|error| error.to_string())?,
        None => Weights::empty(),
    };
    let inputs: Vec<Tensor> = if arguments.inputs.is_empty() {
        let mut random = SplitMix(arguments.seed);
        program.body.arguments.iter().map(|(_, r#type)| random_input(&r#type.shape, r#type.element_type, &mut random)).collect()
    } else {
        arguments
            .inputs
            .iter()
            .map(|path| {
                let bytes = std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
                npy::parse(&bytes).map_err(|error| format!("{}: {error}", path.display()))
            })
            .collect::<Result<_, _>>()?
    };
    let results = interpret(&program, inputs, &weights).map_err(|error| error.to_string())?;
    if !arguments.outputs.is_empty() && arguments.outputs.len() != results.len() {
        return Err(format!("@{} has {} results but {} --output files were given", program.name, results.len(), arguments.outputs.len()));
    }
    for (index, result) in results.iter().enumerate() {
        println!("result #{index}: {}", summary(result));
        if let Some(path) = arguments.outputs.get(index) {
            std::fs::write(path, npy::serialize(result)).map_err(|error| format!("{}: {error}", path.display()))?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    match run(&arguments) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("turbine-run: error: {message}");
            ExitCode::FAILURE
        }
    }
}
