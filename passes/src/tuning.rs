//! Tilings chosen by measurement (BOLT §3.2, its profiler): which of a layer's candidate tilings
//! a planner takes. By default the lowest estimate; a tuner on the software DSA compiles a model
//! once per rank (the candidates that fit, pruned to those within [`PRUNE`] of the lowest
//! estimate, ordered by it), measures each kernel, and keeps the fastest candidate per kernel in
//! a tuning cache ([`Cache`]), which later compiles read.
//!
//! A kernel is named by its key: the planner's own inputs (the anchor's kind, its dimensions,
//! where its operands live, what its epilogue loads, the target's figures through the cache's
//! header), never a value of one program, so one cache serves every model with that layer. A
//! candidate is named by its tiling as the planner writes it; a cached name that is no candidate
//! of the layer is ignored with a warning, never trusted.

use crate::ir::{self, Op};
use mlir_sys::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;
use std::rc::Rc;

/// Candidates above this multiple of the lowest estimate are not measured: the estimate is wrong
/// by less than that where it is wrong at all (BOLT prunes by what it knows of the hardware).
pub const PRUNE: f64 = 1.5;

/// How the planners pick among their candidates: a layer's tiling, and whether a chain is fused.
#[derive(Debug, Clone, Default)]
pub enum Tuning {
    /// The lowest estimate (ties to the fewest instructions).
    #[default]
    Estimate,
    /// The candidates of these ranks, for tilings and for chain fusion apart (the tuner
    /// measures the fusion decisions with the tilings at rank 0, so that a fused chain is not
    /// compared with other tilings than its two layers').
    Rank {
        /// The rank of every layer's tiling.
        tilings: usize,
        /// The rank of every chain's fusion decision.
        fusion: usize,
    },
    /// The choices of a tuning cache; the estimate's pick where it has none.
    Cache(Rc<Cache>),
}

/// How one decision is taken: by the estimate, by rank (0 is the estimate's pick, then the
/// others within [`PRUNE`] by increasing estimate; the estimate's pick where there are fewer),
/// or by a cache.
#[derive(Debug, Clone, Copy)]
pub enum Select<'a> {
    /// The estimate's pick.
    Estimate,
    /// The candidate of this rank.
    Rank(usize),
    /// The cache's choice.
    Cache(&'a Cache),
}

impl Tuning {
    /// How a layer's tiling is chosen.
    pub fn tilings(&self) -> Select<'_> {
        match self {
            Tuning::Estimate => Select::Estimate,
            Tuning::Rank { tilings, .. } => Select::Rank(*tilings),
            Tuning::Cache(cache) => Select::Cache(cache),
        }
    }

    /// How a chain's fusion is decided.
    pub fn fusion(&self) -> Select<'_> {
        match self {
            Tuning::Estimate => Select::Estimate,
            Tuning::Rank { fusion, .. } => Select::Rank(*fusion),
            Tuning::Cache(cache) => Select::Cache(cache),
        }
    }
}

/// The choices of a tuning cache: per kernel key, the candidate that measured fastest.
#[derive(Debug, Default)]
pub struct Cache {
    /// The candidate, by key.
    pub choices: BTreeMap<String, String>,
}

/// The attribute of a `dsa.kernel` listing the decisions of its layers ([`Decision`]), for the
/// tuner: an array of dictionaries with `key`, `choice`, `estimate` and `ranked`.
pub const KERNEL_ATTRIBUTE: &str = "dsa.tuning";

/// The attribute of a module whose kernels' tilings were chosen by rank or by a cache: the
/// [`Header`] they hold for, a dictionary of its fields.
pub const MODULE_ATTRIBUTE: &str = "dsa.tuning";

/// Records on `module` the header its tuned kernels hold for ([`MODULE_ATTRIBUTE`]).
pub(crate) fn stamp(module: Op, header: &Header) {
    // SAFETY: the module is alive; the attributes live in its context.
    let context = unsafe { mlirOperationGetContext(module.raw()) };
    let text = |value: &str| ir::string_attribute(context, value);
    // SAFETY: the context is alive.
    let pipeline = unsafe { mlirBoolAttrGet(context, i32::from(header.pipeline)) };
    let attribute = ir::dictionary(
        context,
        &[
            ("format", text(&header.format)),
            ("compiler", text(&header.compiler)),
            ("target", text(&header.target)),
            ("figures", text(&header.figures)),
            ("pipeline", pipeline),
        ],
    );
    module.set_attribute(MODULE_ATTRIBUTE, attribute);
}

/// What a planner decided for one layer: recorded on the kernel ([`KERNEL_ATTRIBUTE`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The layer's key.
    pub key: String,
    /// The candidate taken.
    pub choice: String,
    /// Its estimated cycles.
    pub estimate: f64,
    /// The candidates a tuner measures (those within [`PRUNE`]).
    pub ranked: usize,
    /// A cached choice that names no candidate, ignored.
    pub rejected: Option<String>,
}

/// What the key of a chain's fusion decision starts with (the rest is its tiling's key).
pub const FUSION_KEY: &str = "fusion ";

impl Decision {
    /// Whether it decides a chain's fusion (rather than a layer's tiling).
    pub fn is_fusion(&self) -> bool {
        self.key.starts_with(FUSION_KEY)
    }

    /// The estimate's pick `choice` of `estimate` cycles, taken without tuning (nothing ranked,
    /// no key).
    pub fn estimated(choice: String, estimate: f64) -> Self {
        Decision {
            key: String::new(),
            choice,
            estimate,
            ranked: 0,
            rejected: None,
        }
    }
}

/// The candidates `ranking` (estimates and tilings, the estimate's pick first, then the others
/// by increasing estimate) pruned, each tiling once (a search may meet one twice, as a pipelined
/// variant of a single chunk), those above `bound` times the lowest estimate left out ([`PRUNE`]
/// for tilings; a decision of two candidates measures both), and picked as `select` says for
/// the layer `key`: the tiling taken, with its estimate and the decision.
pub fn pick<E: Copy, T: Debug>(
    ranking: Vec<(E, T)>,
    (cycles, bound): (impl Fn(&E) -> f64, f64),
    select: Select,
    key: String,
) -> Option<(E, T, Decision)> {
    let lowest = ranking.first().map(|(estimate, _)| cycles(estimate))?;
    let mut names: Vec<String> = Vec::new();
    let mut ranking: Vec<(E, T)> = ranking
        .into_iter()
        .enumerate()
        .filter(|(rank, (estimate, tiling))| {
            let name = format!("{tiling:?}");
            let kept = (*rank == 0 || cycles(estimate) <= lowest * bound) && !names.contains(&name);
            if kept {
                names.push(name);
            }
            kept
        })
        .map(|(_, candidate)| candidate)
        .collect();
    let mut rejected = None;
    let position = match select {
        Select::Estimate => 0,
        Select::Rank(rank) if rank < ranking.len() => rank,
        Select::Rank(_) => 0,
        Select::Cache(cache) => match cache.choices.get(&key) {
            Some(choice) => names
                .iter()
                .position(|name| name == choice)
                .unwrap_or_else(|| {
                    rejected = Some(choice.clone());
                    0
                }),
            None => 0,
        },
    };
    let ranked = ranking.len();
    let (estimate, tiling) = ranking.swap_remove(position);
    let decision = Decision {
        key,
        choice: names[position].clone(),
        estimate: cycles(&estimate),
        ranked,
        rejected,
    };
    Some((estimate, tiling, decision))
}

/// The compiler that makes and reads tuning caches: its version and the commit it was built
/// from (a cache of another build may name tilings its planners no longer make).
pub const COMPILER: &str = concat!(
    "turbine ",
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("TURBINE_COMMIT"),
    ")"
);

/// What a tuning cache's choices hold for: the compiler, the target (its name and a fingerprint
/// of its figures) and whether the tiles may be software-pipelined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// The [`COMPILER`] that measured the choices.
    pub compiler: String,
    /// The target's name.
    pub target: String,
    /// A hash of every figure of the target the planners read.
    pub figures: String,
    /// The lowering's `pipeline` option.
    pub pipeline: bool,
}

/// The `format` of a tuning cache file.
pub const FORMAT: &str = "turbine-tuning-cache-1";

/// One decision's entry in a tuning cache file: its key, the candidate taken, and what the tuner
/// measured of every candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The decision's key ([`Decision::key`]).
    pub key: String,
    /// The candidate that measured fastest.
    pub choice: String,
    /// Its measured cycles: those of the model's kernels that record it, on the software DSA.
    pub measured: u64,
    /// The same of the estimate's own pick, when the tuner measured it.
    pub untuned: Option<u64>,
    /// Every candidate measured, in the order the tuner took them.
    pub candidates: Vec<Measurement>,
}

/// What the tuner measured of one candidate: the estimate of one of its layers (or of the two
/// layers of a chain apart) and the cycles of the kernels that recorded it, with their count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// The candidate.
    pub choice: String,
    /// Its estimated cycles.
    pub estimate: f64,
    /// The cycles of the kernels that recorded it, summed.
    pub measured: u64,
    /// Those kernels.
    pub kernels: usize,
}

/// A tuning cache file: its header, then its entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct File {
    /// What the choices hold for.
    pub header: Header,
    /// One entry per kernel tuned.
    pub kernels: Vec<Entry>,
}

impl File {
    /// Reads the tuning cache at `path` for a compile whose header is `expected`: an error when
    /// the file is not one, or was made by another compiler or for another target.
    pub fn read(path: &str, expected: &Header) -> Result<Self, String> {
        let text = turbine_files::read_text(Path::new(path), turbine_files::TEXT)
            .map_err(|error| format!("cannot read the tuning cache {error}"))?;
        let file: File = serde_json::from_str(&text)
            .map_err(|error| format!("'{path}' is not a tuning cache: {error}"))?;
        let found = &file.header;
        let refused = |what: String| {
            Err(format!(
                "tuning cache '{path}' {what}: tune again with turbine-run --tune \
                 --tuning-cache {path}"
            ))
        };
        if found.format != FORMAT {
            return refused(format!("has format '{}', not '{FORMAT}'", found.format));
        }
        if found.compiler != expected.compiler {
            return refused(format!(
                "was made by {}, not by this compiler ({})",
                found.compiler, expected.compiler
            ));
        }
        if (&found.target, &found.figures) != (&expected.target, &expected.figures) {
            return refused(format!(
                "was made for target '{}' (figures {}), not for this module's '{}' (figures {})",
                found.target, found.figures, expected.target, expected.figures
            ));
        }
        if found.pipeline != expected.pipeline {
            return refused(format!(
                "was made with pipeline={}, not pipeline={}",
                found.pipeline, expected.pipeline
            ));
        }
        Ok(file)
    }

    /// Writes the cache to `path`.
    pub fn write(&self, path: &str) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).expect("a cache serialises");
        std::fs::write(path, text + "\n")
            .map_err(|error| format!("cannot write the tuning cache '{path}': {error}"))
    }

    /// The choices, by key.
    pub fn cache(&self) -> Cache {
        Cache {
            choices: self
                .kernels
                .iter()
                .map(|entry| (entry.key.clone(), entry.choice.clone()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tilings named by a number, each with its estimated cycles: the estimate's pick first.
    fn ranking() -> Vec<(f64, u32)> {
        vec![(100.0, 1), (100.0, 2), (120.0, 2), (140.0, 3), (200.0, 4)]
    }

    fn picked(select: Select) -> (u32, Decision) {
        let (_, tiling, decision) =
            pick(ranking(), (|cycles| *cycles, PRUNE), select, "layer".into()).expect("candidates");
        (tiling, decision)
    }

    /// Tests that the estimate takes the first, that a rank counts each tiling once and stops at
    /// the pruning bound (1.5 times the lowest estimate), falling back to the first past it.
    #[test]
    fn ranks_distinct_tilings_within_the_bound() {
        assert_eq!(picked(Select::Estimate).0, 1);
        assert_eq!(picked(Select::Rank(1)).0, 2);
        assert_eq!(picked(Select::Rank(2)).0, 3);
        assert_eq!(picked(Select::Rank(3)).0, 1);
        assert_eq!(picked(Select::Estimate).1.ranked, 3);
    }

    /// Tests that a cache's choice is taken by name, and that a name that is no candidate is
    /// ignored and reported.
    #[test]
    fn takes_cached_choices_by_name_only() {
        let cache = |choice: &str| Cache {
            choices: [("layer".to_owned(), choice.to_owned())].into(),
        };
        let (tiling, decision) = picked(Select::Cache(&cache("3")));
        assert_eq!(
            (tiling, decision.choice.as_str(), decision.rejected),
            (3, "3", None)
        );
        let (tiling, decision) = picked(Select::Cache(&cache("9")));
        assert_eq!((tiling, decision.rejected), (1, Some("9".to_owned())));
        assert_eq!(picked(Select::Cache(&Cache::default())).0, 1);
    }
}
