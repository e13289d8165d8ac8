//! The ops of MLIR's own dialects (builtin, func, arith, memref, scf, llvm) that Turbine's passes
//! build or recognise by kind. Their ODS lives in MLIR, so their names are listed here, once.

use std::fmt;

/// Declares `Kind` with one variant per `Variant => "dialect.op"` line.
macro_rules! upstream_kinds {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// The kind of an upstream op that Turbine builds or reads.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $($(#[$doc])* $variant,)*
        }

        impl Kind {
            /// Every kind listed here.
            pub const ALL: &'static [Kind] = &[$(Self::$variant,)*];

            /// The op's full name, such as `func.return`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }

            /// The kind named `name`, if it is one listed here.
            pub fn from_name(name: &str) -> Option<Self> {
                Some(match name {
                    $($name => Self::$variant,)*
                    _ => return None,
                })
            }
        }
    };
}

upstream_kinds! {
    /// `builtin.module`.
    BuiltinModule => "builtin.module",
    /// `builtin.unrealized_conversion_cast`.
    BuiltinUnrealizedConversionCast => "builtin.unrealized_conversion_cast",
    /// `func.func`.
    FuncFunc => "func.func",
    /// `func.return`.
    FuncReturn => "func.return",
    /// `func.call`.
    FuncCall => "func.call",
    /// `arith.constant`.
    ArithConstant => "arith.constant",
    /// `arith.addi`.
    ArithAddi => "arith.addi",
    /// `arith.subi`.
    ArithSubi => "arith.subi",
    /// `arith.divui`.
    ArithDivui => "arith.divui",
    /// `arith.remui`.
    ArithRemui => "arith.remui",
    /// `arith.maxui`.
    ArithMaxui => "arith.maxui",
    /// `arith.andi`.
    ArithAndi => "arith.andi",
    /// `arith.ori`.
    ArithOri => "arith.ori",
    /// `arith.muli`.
    ArithMuli => "arith.muli",
    /// `arith.shrui`.
    ArithShrui => "arith.shrui",
    /// `arith.minui`.
    ArithMinui => "arith.minui",
    /// `arith.cmpi`.
    ArithCmpi => "arith.cmpi",
    /// `arith.select`.
    ArithSelect => "arith.select",
    /// `arith.index_cast`.
    ArithIndexCast => "arith.index_cast",
    /// `arith.trunci`.
    ArithTrunci => "arith.trunci",
    /// `memref.cast`.
    MemrefCast => "memref.cast",
    /// `memref.subview`.
    MemrefSubview => "memref.subview",
    /// `memref.transpose`.
    MemrefTranspose => "memref.transpose",
    /// `memref.reinterpret_cast`.
    MemrefReinterpretCast => "memref.reinterpret_cast",
    /// `memref.extract_strided_metadata`.
    MemrefExtractStridedMetadata => "memref.extract_strided_metadata",
    /// `memref.extract_aligned_pointer_as_index`.
    MemrefExtractAlignedPointerAsIndex => "memref.extract_aligned_pointer_as_index",
    /// `scf.for`.
    ScfFor => "scf.for",
    /// `scf.if`.
    ScfIf => "scf.if",
    /// `scf.yield`.
    ScfYield => "scf.yield",
    /// `scf.while`.
    ScfWhile => "scf.while",
    /// `scf.condition`.
    ScfCondition => "scf.condition",
    /// `llvm.func`.
    LlvmFunc => "llvm.func",
    /// `llvm.alloca`.
    LlvmAlloca => "llvm.alloca",
    /// `llvm.load`.
    LlvmLoad => "llvm.load",
    /// `llvm.store`.
    LlvmStore => "llvm.store",
    /// `llvm.getelementptr`.
    LlvmGetelementptr => "llvm.getelementptr",
    /// `llvm.inttoptr`.
    LlvmInttoptr => "llvm.inttoptr",
    /// `llvm.select`.
    LlvmSelect => "llvm.select",
    /// `llvm.insertvalue`.
    LlvmInsertvalue => "llvm.insertvalue",
    /// `llvm.extractvalue`.
    LlvmExtractvalue => "llvm.extractvalue",
    /// `llvm.mlir.undef`.
    LlvmMlirUndef => "llvm.mlir.undef",
    /// `llvm.mlir.poison`.
    LlvmMlirPoison => "llvm.mlir.poison",
    /// `llvm.mlir.zero`.
    LlvmMlirZero => "llvm.mlir.zero",
    /// `llvm.mlir.addressof`.
    LlvmMlirAddressof => "llvm.mlir.addressof",
    /// `llvm.mlir.global`.
    LlvmMlirGlobal => "llvm.mlir.global",
}

impl fmt::Display for Kind {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.name())
    }
}
