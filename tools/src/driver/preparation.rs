//! Weights a model computes from its weights alone (`graph-prepare-weights`): the host function
//! that computes them, found from the names of the weights the entry reads, run once when the
//! model is loaded.

use super::entry::references;
use super::execution::{allocate, read_outputs};
use super::{Buffer, Compiled, Device, Role};
use melior::ir::{block::BlockLike, operation::OperationLike, Module};
use std::collections::HashMap;
use turbine_dialects::ops::{dsa, OpKind};
use turbine_interpreter::{Tensor, Weights};
use turbine_passes::graph::prepare_weights::PREPARED_SEPARATOR;

/// The host function computing the weights the entry reads under its name, and its buffers.
pub struct Preparation {
    /// The host function's name.
    pub function: String,
    /// Its buffers, in argument order.
    pub buffers: Vec<Buffer>,
}

/// The preparation of the entry whose buffers are `entry_buffers`, among the module's host
/// `functions`: the function a weight of the entry is named after (`main_weights:0`), None when
/// no weight is.
pub(super) fn find(
    functions: &[(String, Vec<Buffer>, usize)],
    entry_buffers: &[Buffer],
) -> Option<Preparation> {
    entry_buffers.iter().find_map(|buffer| {
        let Role::Weight(name) = &buffer.role else {
            return None;
        };
        let (function, _) = name.rsplit_once(PREPARED_SEPARATOR)?;
        let (_, buffers, _) = functions.iter().find(|(name, _, _)| name == function)?;
        Some(Preparation {
            function: function.to_owned(),
            buffers: buffers.clone(),
        })
    })
}

/// How many kernels the host function `function` of `module` launches.
pub(super) fn kernels_launched_by(module: &Module, function: &str) -> usize {
    let mut op = module.body().first_operation();
    while let Some(candidate) = op {
        if super::symbol_name(&candidate).as_deref() == Some(function) {
            let launch = OpKind::Dsa(dsa::Kind::Launch);
            return references(candidate.to_raw(), launch, c"kernel").len();
        }
        op = candidate.next_in_block();
    }
    0
}

/// Runs `compiled`'s preparation on `device` with `weights`: the prepared weights by name. The
/// device's report is reset after, so that it counts what loading the model and running it do.
pub(super) fn prepare(
    compiled: &Compiled,
    device: &Device,
    weights: &Weights,
) -> Result<HashMap<String, Tensor>, String> {
    let Some(preparation) = &compiled.preparation else {
        return Ok(HashMap::new());
    };
    let handles = allocate(&preparation.buffers, device, weights, &HashMap::new())?;
    let outcome = compiled
        .jit
        .run(&preparation.function, device.handle(), &handles)
        .and_then(|()| read_outputs(&preparation.buffers, &[], device, &handles));
    for &handle in &handles {
        device.free(handle);
    }
    let prepared = outcome.map_err(|error| {
        format!(
            "computing the weights of @{} at load time: {error}",
            preparation.function
        )
    })?;
    device.reset_report()?;
    Ok(prepared
        .into_iter()
        .enumerate()
        .map(|(index, tensor)| {
            (
                format!("{}{PREPARED_SEPARATOR}{index}", preparation.function),
                tensor,
            )
        })
        .collect())
}
