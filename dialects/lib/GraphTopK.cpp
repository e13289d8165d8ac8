// The verifier of graph.top_k: the axis is in range, k is at most its size,
// and both results have the input's shape with k at the axis.
#include "Graph.h"
#include "ShapeChecks.h"

using namespace mlir;
using namespace turbine;
using namespace turbine::graph;

LogicalResult TopKOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  int64_t given = static_cast<int64_t>(getAxis());
  std::optional<int64_t> axis = normalizeAxis(given, input.size());
  if (!axis)
    return emitOpError() << "axis " << given << " is out of range for rank "
                         << input.size();
  int64_t k = static_cast<int64_t>(getK());
  if (k < 0 || k > input[*axis])
    return emitOpError() << "k = " << k << " is not within the size "
                         << input[*axis] << " of axis " << *axis;
  SmallVector<int64_t> expected(input);
  expected[*axis] = k;
  if (failed(expectShape(*this, "values", getValues().getType().getShape(),
                         expected)))
    return failure();
  return expectShape(*this, "indices", getIndices().getType().getShape(),
                     expected);
}
