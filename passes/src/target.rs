//! The machine as the passes see it: the module's `#dsa.target`, read through its typed
//! accessors, with the derived figures the lowerings and the grouping use.

use crate::ir::Op;
use crate::tuning::{Header, Tuning, COMPILER, FORMAT};
use turbine_dialects::attributes::dsa::Target;
use turbine_targets::{DType, UnitKind};

/// The `target` option of the passes that plan for a machine, read by [`Machine::for_function`].
pub const TARGET_OPTION: crate::registry::OptionInfo = crate::registry::OptionInfo {
    name: "target",
    description: "Target (built-in name or file); by default the module's dsa.target",
    kind: turbine_dialects::pass_abi::OptionKind::String,
    default: "",
};

/// What the passes need to know of the target.
#[derive(Debug, Clone)]
pub struct Machine {
    /// Target name, for messages.
    pub name: String,
    /// Clusters of the device (each with its cores, global buffer and DDR link).
    pub clusters: usize,
    /// Cores of the whole device.
    pub cores: usize,
    /// Cores of one cluster (they share the cluster's DDR link).
    pub cores_per_cluster: usize,
    /// Bytes of one core's local buffer.
    pub lb_bytes: usize,
    /// Bytes of one cluster's global buffer.
    pub gb_bytes: usize,
    /// Bytes of DDR.
    pub ddr_bytes: usize,
    /// DDR bytes per cycle of one cluster.
    pub ddr_bandwidth: f64,
    /// GB↔LB bytes per cycle of one cluster.
    pub gb_bandwidth: f64,
    /// LB↔LB bytes per cycle.
    pub lb_bandwidth: f64,
    /// f32 flops per cycle of one matrix engine (0 without one).
    pub matrix_flops: f64,
    /// Matrix engines of one core.
    pub matrix_engines_per_core: usize,
    /// Cycles a DMA spends on its channel before its first byte moves.
    pub dma_setup: f64,
    /// Cycles of a compute instruction's pipeline fill and drain.
    pub compute_setup: f64,
    /// Cycles from the last core's arrival at a barrier to its release.
    pub barrier: f64,
    /// Cycles from a kernel's launch to its first instruction.
    pub kernel_launch: f64,
    /// Not a figure of the target but a choice of the lowering that reads it: whether tile loops
    /// may be software-pipelined and GraphTurbo's kernels prefetch the next layer's weights
    /// (GraphTurbo §4.4; the passes' `pipeline` option, off for the ablation).
    pub pipeline: bool,
    /// Not a figure of the target either: the bytes of the elements the LB's capacity is
    /// counted in ([`Machine::lb_elements`]), 4 (f32) but for a kernel whose arenas hold a
    /// narrower float type ([`Machine::counted_in`]).
    pub word_bytes: usize,
    /// Not a figure either: which candidate tiling each layer takes (the lowest estimate, or a
    /// measured one: the passes' `tuning-cache` and `tuning-rank` options).
    pub tuning: Tuning,
}

impl Machine {
    /// The figures of a `#dsa.target`.
    pub fn new(target: &Target) -> Self {
        Self {
            name: target.name.clone(),
            clusters: target.clusters as usize,
            cores: target.core_count() as usize,
            cores_per_cluster: target.cores_per_cluster as usize,
            lb_bytes: target.lb_bytes as usize,
            gb_bytes: target.gb_bytes as usize,
            ddr_bytes: target.ddr_bytes as usize,
            ddr_bandwidth: target.ddr_gb_bandwidth,
            gb_bandwidth: target.gb_lb_bandwidth,
            lb_bandwidth: target.lb_lb_bandwidth,
            matrix_flops: target.matrix_flops,
            matrix_engines_per_core: target.matrix_engines_per_core as usize,
            dma_setup: target.dma_setup as f64,
            compute_setup: target.compute_setup as f64,
            barrier: target.barrier as f64,
            kernel_launch: target.kernel_launch as f64,
            pipeline: true,
            word_bytes: 4,
            tuning: Tuning::Estimate,
        }
    }

    /// The header of tuning caches for this machine by this compiler.
    pub fn tuning_header(&self) -> Header {
        Header {
            format: FORMAT.into(),
            compiler: COMPILER.into(),
            target: self.name.clone(),
            figures: self.fingerprint(),
            pipeline: self.pipeline,
        }
    }

    /// A hash of every figure the planners read (FNV-1a over their text): what tells a tuning
    /// cache made for other figures under the same target name.
    pub fn fingerprint(&self) -> String {
        let figures = format!(
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            self.clusters,
            self.cores,
            self.cores_per_cluster,
            self.lb_bytes,
            self.gb_bytes,
            self.ddr_bytes,
            self.ddr_bandwidth,
            self.gb_bandwidth,
            self.lb_bandwidth,
            self.matrix_flops,
            self.matrix_engines_per_core,
            self.dma_setup,
            self.compute_setup,
            self.barrier,
            self.kernel_launch
        );
        let hash = figures
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
            });
        format!("{hash:016x}")
    }

    /// The same machine with capacities counted in elements of `bytes` bytes: what a kernel
    /// whose buffers hold that type plans its tiles against.
    pub fn counted_in(&self, bytes: usize) -> Machine {
        Machine {
            word_bytes: bytes,
            ..self.clone()
        }
    }

    /// Cycles of the matrix engine for `flops` f32 flops (infinite without a matrix engine).
    pub fn matrix_cycles(&self, flops: f64) -> f64 {
        if flops == 0.0 {
            0.0
        } else {
            flops / self.matrix_flops
        }
    }

    /// The machine of `module`'s `dsa.target` attribute, None when it has none.
    pub fn of_module(module: Op) -> Option<Self> {
        target_of_module(module).as_ref().map(Self::new)
    }

    /// The machine a pass plans `function` for: the target named by the pass's `target` option
    /// (`option`, a built-in name or a file), or else the `dsa.target` of the module that holds
    /// `function`; an error at `function`, naming `pass`, when there is neither.
    pub fn for_function(
        function: Op,
        option: &str,
        pass: &str,
    ) -> Result<Self, crate::registry::PassFailure> {
        if option.is_empty() {
            return function.parent().and_then(Self::of_module).ok_or_else(|| {
                function.emit_error(&format!(
                    "{pass} needs a target: set the module's dsa.target (dsa-set-target) or the \
                     'target' option"
                ));
                crate::registry::PassFailure
            });
        }
        let target = turbine_targets::Target::load(option).map_err(|error| {
            function.emit_error(&format!("cannot use target '{option}': {error}"));
            crate::registry::PassFailure
        })?;
        Ok(Self::new(&from_description(&target)))
    }

    /// Elements of [`Machine::word_bytes`] bytes (f32 unless counted in another type) that fit
    /// in one LB.
    pub fn lb_elements(&self) -> usize {
        self.lb_bytes / self.word_bytes
    }
}

/// The module's `dsa.target`, None when it has none (or another kind of attribute there).
pub fn target_of_module(module: Op) -> Option<Target> {
    Target::from_attribute(module.attribute("dsa.target")?)
}

/// The `#dsa.target` fields of a target description (the runtime's TOML), so that compiler and
/// runtime read one set of figures.
pub fn from_description(target: &turbine_targets::Target) -> Target {
    let units = |kind| target.units_of(kind) as i64;
    Target {
        name: target.name.clone(),
        clusters: target.device.clusters as i64,
        cores_per_cluster: target.cluster.cores as i64,
        matrix_engines_per_core: units(UnitKind::MatrixEngine),
        vector_engines_per_core: units(UnitKind::VectorEngine),
        vector_cores_per_core: units(UnitKind::VectorCore),
        lb_bytes: target.core.lb_bytes as i64,
        gb_bytes: target.cluster.gb_bytes as i64,
        ddr_bytes: target.device.ddr_bytes as i64,
        clock_mhz: target.clock_mhz,
        ddr_gb_bandwidth: target.bandwidth.ddr_gb,
        gb_lb_bandwidth: target.bandwidth.gb_lb,
        lb_lb_bandwidth: target.bandwidth.lb_lb,
        matrix_flops: target
            .throughput(UnitKind::MatrixEngine, DType::F32)
            .unwrap_or(0.0),
        dma_setup: target.latency.dma_setup as i64,
        compute_setup: target.latency.compute_setup as i64,
        barrier: target.latency.barrier as i64,
        kernel_launch: target.latency.kernel_launch as i64,
    }
}
