//! The software DSA: a runtime that executes the `dsa` instruction set functionally, on real
//! buffers, and times it with a documented, deterministic performance model.
//!
//! The device is the abstract machine of GraphTurbo (OSDI'23) Fig. 1, sized by a
//! [`turbine_targets::Target`]: clusters of cores, each core with compute units (vector core,
//! vector engine, matrix engine) and a local buffer (LB), a global buffer (GB) per cluster,
//! and DDR. Generated host code drives it through the C ABI in [`ffi`] (header
//! `runtime/include/turbine_dsa.h`); Rust code and tests use [`Device`] directly.
//!
//! ```
//! use turbine_runtime::{CoreId, Device, Instr, Placement, View};
//!
//! let mut dev = Device::open("mini").unwrap();
//! let core = CoreId::new(0, 0);
//! let input = dev.alloc(Placement::Ddr, 4 * 4).unwrap();
//! let local = dev.alloc(Placement::Lb(core), 4 * 4).unwrap();
//! dev.write(input, 0, &[1.0, 2.0, 3.0, 4.0]).unwrap();
//!
//! dev.launch_begin("copy_in", &[core]).unwrap();
//! let src = View::contiguous(input, 0, &[4]);
//! let dst = View::contiguous(local, 0, &[4]);
//! let t = dev.enqueue(core, Instr::Dma { src: src.clone(), dst: dst.clone() }, &[]).unwrap();
//! let back = Instr::Dma { src: dst, dst: View::contiguous(input, 0, &[4]) };
//! dev.enqueue(core, back, &[t]).unwrap();
//! let launch = dev.launch_end().unwrap();
//! assert!(launch.cycles() > 0);
//! assert_eq!(dev.read(input, 0, 4).unwrap(), [1.0, 2.0, 3.0, 4.0]);
//! println!("{}", dev.report());
//! ```
//!
//! Module map: [`ids`], [`view`] and [`instr`] define what a program is; `launch` records it;
//! `timing` (with `link`) simulates it; `hazard` rejects races; `exec` runs it; [`report`]
//! and `trace` describe what it cost; [`device`] ties them together; [`ffi`] exports it to C;
//! [`weights`] reads and writes the weights files of compiled models.
#![warn(missing_docs)]

pub mod device;
pub mod element;
pub mod error;
mod exec;
pub mod ffi;
pub mod footprint;
mod hashing;
mod hazard;
pub mod ids;
pub mod instr;
mod launch;
mod link;
pub mod memory;
pub mod operands;
mod recycle;
pub mod report;
mod report_text;
mod shape_rules;
mod timeline;
mod timing;
mod trace;
mod typing;
pub mod view;
pub mod weights;

pub use device::{Device, DEFAULT_LOOP_LIMIT};
pub use element::ElementType;
pub use error::{ErrorCode, Result, RuntimeError};
pub use ids::{BufferId, CoreId, Token};
pub use instr::{
    BinaryOp, ComparePredicate, Conv2dParams, Instr, Pool2dParams, PoolKind, ReduceKind, UnaryOp,
};
pub use launch::NO_LAYER;
pub use link::Port;
pub use memory::Placement;
pub use report::{LaunchSummary, LayerStat, Report};
pub use trace::TraceFormat;
pub use turbine_targets::{self as targets, MemLevel, Target, UnitKind};
pub use view::View;
