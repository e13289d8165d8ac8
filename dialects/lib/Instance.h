// The instance dialect's C++ declarations, generated from
// include/instance/InstanceOps.td.
#ifndef TURBINE_DIALECTS_INSTANCE_H
#define TURBINE_DIALECTS_INSTANCE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "instance/InstanceOpsDialect.h.inc"
#include "instance/InstanceOpsEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "instance/InstanceOpsAttrs.h.inc"
#define GET_OP_CLASSES
#include "instance/InstanceOps.h.inc"

#endif
