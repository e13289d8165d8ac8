// C-API registration hooks: melior loads each dialect through the handle these
// macros define (mlirGetDialectHandle__<name>__).
#include "Dsa.h"
#include "Graph.h"
#include "Instance.h"

#include "mlir/CAPI/Registration.h"

extern "C" {
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Graph, graph, turbine::graph::GraphDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Instance, instance,
                                      turbine::instance::InstanceDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Dsa, dsa, turbine::dsa::DsaDialect)
}
