// Shape rules shared by the verifiers of the three dialects: a dialect that
// tiles a convolution must agree with the dialect that declared it on what its
// output shape is.
#ifndef TURBINE_DIALECTS_SHAPE_CHECKS_H
#define TURBINE_DIALECTS_SHAPE_CHECKS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace turbine {

/// Prints a shape as `[1, 64, 56, 56]` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Output extent of a sliding window (convolution or pooling) along one
/// dimension, or nullopt when the window does not fit even once.
std::optional<int64_t> windowOutputSize(int64_t input, int64_t padBefore,
                                        int64_t padAfter, int64_t kernel,
                                        int64_t stride, int64_t dilation,
                                        bool ceilMode);

/// Checks the attribute lists of a 2-D window (convolution or pooling):
/// `kernel` 2 positive values, `strides` and `dilations` 2 positive values,
/// `pads` 4 non-negative values.
mlir::LogicalResult verifyWindowAttributes(mlir::Operation *op,
                                           llvm::ArrayRef<int64_t> kernel,
                                           llvm::ArrayRef<int64_t> strides,
                                           llvm::ArrayRef<int64_t> pads,
                                           llvm::ArrayRef<int64_t> dilations);

/// Output shape of a grouped NCHW/OIHW convolution, or failure with a
/// diagnostic on `op` explaining which input disagrees.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferConv2dShape(mlir::Operation *op, llvm::ArrayRef<int64_t> input,
                 llvm::ArrayRef<int64_t> filter, llvm::ArrayRef<int64_t> strides,
                 llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> dilations,
                 int64_t groups);

/// Output shape of a 2-D pooling window over an NCHW tensor.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferPool2dShape(mlir::Operation *op, llvm::ArrayRef<int64_t> input,
                 llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
                 llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> dilations,
                 bool ceilMode);

/// Output shape of a batched product `[..., M, K] x [..., K, N]`, the batch
/// dimensions broadcast; a diagnostic on `op` when the ranks are below 2, the
/// inner dimensions differ or the batch dimensions do not broadcast.
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferBatchMatmulShape(mlir::Operation *op, llvm::ArrayRef<int64_t> lhs,
                      llvm::ArrayRef<int64_t> rhs);

/// Numpy broadcast of two shapes, or nullopt when they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Fails with "<what> shape [..] does not match the expected [..]" unless the
/// two shapes are equal.
mlir::LogicalResult expectShape(mlir::Operation *op, llvm::StringRef what,
                                llvm::ArrayRef<int64_t> actual,
                                llvm::ArrayRef<int64_t> expected);

/// Normalises an axis that may count from the end; nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Fails unless every shaped operand and result of `op` shares one element
/// type; others (such as DMA tokens) are ignored.
mlir::LogicalResult verifySameElementType(mlir::Operation *op);

/// The rule of graph.concat and instance.concat: operands of the result's rank
/// and element type, equal to it off `axis`, adding up along it.
mlir::LogicalResult verifyConcatenation(mlir::Operation *op, int64_t axis);

} // namespace turbine

#endif
