//! Checking substitution rules through the reference interpreter (MetaFlow's rules are proved
//! sound by construction; ours are data that anyone may write, so each is tested instead): for
//! the rule file's own example shapes and for random shapes that satisfy the rule, the rule's
//! source is built as a function, rewritten by `graph-substitute`'s own matcher and rewrite, and
//! both run on the same random inputs. A rule passes when every output agrees to 1e-4 relative.

use crate::random::SplitMix;
use melior::Context;
use mlir_sys::*;
use std::collections::BTreeMap;
use std::ffi::c_void;
use turbine_interpreter::{interpret, Data, ElementType, Program, Tensor, Weights};
use turbine_passes::substitute::instance::{
    example_shapes, instantiate_rule, integer_names, InstanceError,
};
use turbine_passes::substitute::rule::Rule;
use turbine_passes::substitute::sizes::Env;
use turbine_passes::substitute::sizes::{expand, Item};

/// What checking a rule found.
#[derive(Debug, Clone)]
pub struct RuleCheck {
    /// The argument shapes the rule was checked at, the example's first.
    pub shapes: Vec<Vec<Vec<i64>>>,
    /// The bound integers (a constant index, an axis) it was checked with at each of `shapes`
    /// (none at the example: the file's own).
    pub integers: Vec<BTreeMap<String, i64>>,
}

/// Attempts at random shapes per checked shape set before giving up on finding one. An attempt
/// that breaks the rule's conditions is cheap (nothing is built), and a rule over any axis
/// holds at about one drawn axis in ten.
const ATTEMPTS: usize = 400;

/// Checks `rule` at its example shapes and at up to `random` random shape sets (seeded by
/// `seed`); an error names the rule, the shapes and what differed.
pub fn check_rule(
    context: &Context,
    rule: &Rule,
    random: usize,
    seed: u64,
) -> Result<RuleCheck, String> {
    check_rule_in(context.to_raw(), rule, random, seed)
}

fn check_rule_in(
    context: MlirContext,
    rule: &Rule,
    random: usize,
    seed: u64,
) -> Result<RuleCheck, String> {
    let mut generator = SplitMix(seed ^ hash(&rule.name));
    let mut shapes = vec![example_shapes(rule)];
    let mut integers = vec![BTreeMap::new()];
    check_at(context, rule, &shapes[0], &integers[0], &mut generator).map_err(
        |error| match error {
            InstanceError::Shapes(message) => format!(
                "rule '{}': its own example does not fit it: {message}",
                rule.name
            ),
            InstanceError::Unsound(message) => format!(
                "rule '{}' at its example shapes {:?}: {message}",
                rule.name, shapes[0]
            ),
        },
    )?;
    let names = integer_names(rule);
    // A rule without wildcards or bound integers (a fixed constant fold) has nothing to vary.
    let random = if rule.arguments.is_empty() && names.is_empty() {
        0
    } else {
        random
    };
    for _ in 0..random {
        for _ in 0..ATTEMPTS {
            let candidate = random_shapes(rule, &mut generator);
            let drawn: BTreeMap<String, i64> = names
                .iter()
                .map(|name| (name.clone(), generator.next_u64() as i64 % 7))
                .collect();
            match check_at(context, rule, &candidate, &drawn, &mut generator) {
                Ok(()) => {
                    shapes.push(candidate);
                    integers.push(drawn);
                    break;
                }
                Err(InstanceError::Shapes(_)) => continue,
                Err(InstanceError::Unsound(message)) => {
                    return Err(format!(
                        "rule '{}' at shapes {candidate:?}{}: {message}",
                        rule.name,
                        describe(&drawn)
                    ))
                }
            }
        }
    }
    Ok(RuleCheck { shapes, integers })
}

/// ` with i = 2, k = -1` for the integers drawn, nothing for none.
fn describe(integers: &BTreeMap<String, i64>) -> String {
    let pairs: Vec<String> = integers
        .iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    if pairs.is_empty() {
        String::new()
    } else {
        format!(" with {}", pairs.join(", "))
    }
}

fn check_at(
    context: MlirContext,
    rule: &Rule,
    shapes: &[Vec<i64>],
    integers: &BTreeMap<String, i64>,
    generator: &mut SplitMix,
) -> Result<(), InstanceError> {
    let mut diagnostics: Vec<String> = Vec::new();
    let name = format!("rule {}", rule.name);
    // SAFETY: the handler only writes into `diagnostics`, which outlives it (it is detached
    // before the vector is read); the context is alive.
    let module = unsafe {
        let handler = mlirContextAttachDiagnosticHandler(
            context,
            Some(collect),
            (&mut diagnostics as *mut Vec<String>).cast(),
            None,
        );
        let location = mlirLocationFileLineColGet(
            context,
            MlirStringRef {
                data: name.as_ptr().cast(),
                length: name.len(),
            },
            0,
            0,
        );
        let module = instantiate_rule(rule, shapes, integers, location);
        mlirContextDetachDiagnosticHandler(context, handler);
        module
    };
    let module = module.map_err(|error| match error {
        InstanceError::Unsound(message) if !diagnostics.is_empty() => {
            InstanceError::Unsound(format!("{message}: {}", diagnostics.join("; ")))
        }
        other => other,
    })?;
    let outcome = compare(module.raw(), shapes, generator);
    // SAFETY: instantiate_rule hands the module to the caller, and nothing refers to it any more.
    unsafe { mlirOperationDestroy(module.raw()) };
    outcome.map_err(InstanceError::Unsound)
}

/// Keeps a diagnostic's message (the instantiation's verifier errors) for the report.
unsafe extern "C" fn collect(diagnostic: MlirDiagnostic, sink: *mut c_void) -> MlirLogicalResult {
    unsafe extern "C" fn append(text: MlirStringRef, message: *mut c_void) {
        // SAFETY: MLIR passes `length` valid bytes; `message` is the String below.
        unsafe {
            let bytes = std::slice::from_raw_parts(text.data.cast::<u8>(), text.length);
            (*message.cast::<String>()).push_str(&String::from_utf8_lossy(bytes));
        }
    }
    let mut message = String::new();
    // SAFETY: the diagnostic is alive for this call; `sink` is check_at's vector.
    unsafe {
        mlirDiagnosticPrint(
            diagnostic,
            Some(append),
            (&mut message as *mut String).cast(),
        );
        (*sink.cast::<Vec<String>>()).push(message);
        MlirLogicalResult { value: 1 }
    }
}

/// Runs `@source` and `@rewritten` of `module` on the same random inputs and compares.
fn compare(
    module: MlirOperation,
    shapes: &[Vec<i64>],
    generator: &mut SplitMix,
) -> Result<(), String> {
    // SAFETY: the module was verified function by function and lives for this call.
    let (source, rewritten) = unsafe {
        (
            Program::from_module(module, Some("source")),
            Program::from_module(module, Some("rewritten")),
        )
    };
    let (source, rewritten) = (
        source.map_err(|error| error.to_string())?,
        rewritten.map_err(|error| error.to_string())?,
    );
    let inputs: Vec<Tensor> = source
        .body
        .arguments
        .iter()
        .zip(shapes)
        .map(|((_, r#type), shape)| random_tensor(r#type.element_type, shape, generator))
        .collect::<Result<_, _>>()?;
    let weights = Weights::empty();
    let expected = interpret(&source, inputs.clone(), &weights)
        .map_err(|error| format!("the source fails: {error}"))?;
    let actual = interpret(&rewritten, inputs, &weights)
        .map_err(|error| format!("the rewritten function fails: {error}"))?;
    for (index, (expected, actual)) in expected.iter().zip(&actual).enumerate() {
        if expected.shape != actual.shape {
            return Err(format!(
                "result {index} is {:?}, the source's {:?}",
                actual.shape, expected.shape
            ));
        }
        match (&expected.data, &actual.data) {
            (Data::F32(expected), Data::F32(actual)) => {
                let scale = expected
                    .iter()
                    .fold(0f32, |scale, value| scale.max(value.abs()));
                for (position, (e, a)) in expected.iter().zip(actual).enumerate() {
                    let agree = (e.is_nan() && a.is_nan())
                        || (e - a).abs() <= 1e-4 * e.abs().max(a.abs()) + 1e-5 * scale;
                    if !agree {
                        return Err(format!(
                            "result {index} differs at element {position}: \
                             {a} where the source gives {e}"
                        ));
                    }
                }
            }
            (expected, actual) if expected == actual => {}
            _ => return Err(format!("result {index} differs")),
        }
    }
    Ok(())
}

fn random_tensor(
    element: ElementType,
    shape: &[i64],
    generator: &mut SplitMix,
) -> Result<Tensor, String> {
    let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let count: usize = shape.iter().product();
    let data = match element {
        ElementType::Bool => Data::Bool(
            (0..count)
                .map(|_| generator.next_u64().is_multiple_of(2))
                .collect(),
        ),
        float if float.is_float() => {
            Data::F32((0..count).map(|_| 1.5 * generator.unit()).collect())
        }
        _ => Data::I64(
            (0..count)
                .map(|_| (generator.next_u64() % 5) as i64)
                .collect(),
        ),
    };
    // Floats are rounded to f16 and bf16.
    Ok(Tensor {
        shape,
        element_type: element,
        data,
    }
    .conform(element))
}

/// Sizes 1 to 6 for every name, 0 to 2 dimensions for every group (so a rule over groups is
/// checked at several ranks and axes); a shape of rank 1 to 4 (shared) for arguments of any
/// shape.
fn random_shapes(rule: &Rule, generator: &mut SplitMix) -> Vec<Vec<i64>> {
    let mut sizes = BTreeMap::<String, i64>::new();
    let mut groups = BTreeMap::<String, Vec<i64>>::new();
    let draw = |generator: &mut SplitMix| 1 + (generator.next_u64() % 6) as i64;
    let rank = 1 + (generator.next_u64() % 4) as usize;
    let any: Vec<i64> = (0..rank).map(|_| draw(generator)).collect();
    let mut env = Env::new();
    for argument in &rule.arguments {
        for item in argument.dims.iter().flatten() {
            let mut names = Vec::new();
            item.names(&mut names);
            for name in names {
                if let Item::Group(group) = item {
                    groups.entry(group.clone()).or_insert_with(|| {
                        let length = generator.next_u64() % 3;
                        (0..length).map(|_| draw(generator)).collect()
                    });
                } else {
                    sizes
                        .entry(name.to_owned())
                        .or_insert_with(|| draw(generator));
                }
            }
        }
    }
    for (name, size) in &sizes {
        env.set(name, *size);
    }
    for (name, group) in &groups {
        env.bind_group(name, group);
    }
    rule.arguments
        .iter()
        .map(|argument| match &argument.dims {
            None => any.clone(),
            Some(dims) => expand(dims, &env).unwrap_or_else(|| dims.iter().map(|_| 1).collect()),
        })
        .collect()
}

fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ byte as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Random shape sets `graph-substitute{verify}` checks each rule at, besides its example.
const PASS_RANDOM_SHAPES: usize = 8;

/// Lets `graph-substitute{verify}` check rules with [`check_rule`] (the passes crate does not
/// link the interpreter).
pub fn install_rule_checker() {
    turbine_passes::substitute::rule::set_rule_checker(|context, rule| {
        check_rule_in(context, rule, PASS_RANDOM_SHAPES, 0).map(drop)
    });
}

/// The listing of `turbine-translate --list-rules`: a line per rule (name, file and line,
/// summary), and with `verify` the shapes each was checked at through the interpreter. An error
/// when a file does not load or, with `verify`, when a rule is unsound (the listing says which).
pub fn list_rules(
    builtin: bool,
    files: &[&std::path::Path],
    verify: Option<usize>,
) -> Result<String, String> {
    use turbine_passes::substitute::rule::RuleSet;
    let context = turbine_dialects::create_context();
    let diagnostics = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = diagnostics.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(format!(
            "{}: {diagnostic}",
            crate::diagnostics::describe(diagnostic.location())
        ));
        true
    });
    let raw = context.to_raw();
    let mut set = RuleSet::default();
    // SAFETY: the context is alive.
    let nowhere = unsafe { mlirLocationUnknownGet(raw) };
    let mut loaded = if builtin {
        RuleSet::builtin(raw).map(|builtin| set = builtin)
    } else {
        Ok(())
    };
    for file in files {
        loaded = loaded.and_then(|()| set.add_file(raw, &file.to_string_lossy(), nowhere));
    }
    context.detach_diagnostic_handler(handler);
    if loaded.is_err() {
        return Err(diagnostics.borrow().join("\n"));
    }
    let width = set
        .rules
        .iter()
        .map(|rule| rule.name.len())
        .max()
        .unwrap_or(0);
    let mut listing = String::new();
    let mut unsound = 0;
    for rule in &set.rules {
        // SAFETY: the rule's location lives in the context.
        let location = crate::diagnostics::describe(unsafe {
            melior::ir::Location::from_raw(rule.location())
        });
        listing.push_str(&format!(
            "{:width$}  {location}  {}\n",
            rule.name, rule.summary
        ));
        if let Some(random) = verify {
            match check_rule(&context, rule, random, 0) {
                Ok(check) => listing.push_str(&format!(
                    "{:width$}  verified at {} shape sets\n",
                    "",
                    check.shapes.len()
                )),
                Err(message) => {
                    unsound += 1;
                    listing.push_str(&format!("{:width$}  UNSOUND: {message}\n", ""));
                }
            }
        }
    }
    listing.push_str(&format!("{} rules\n", set.rules.len()));
    if unsound > 0 {
        return Err(format!("{listing}{unsound} unsound rules"));
    }
    Ok(listing)
}
