// The dsa dialect's C++ declarations, generated from include/dsa/DsaOps.td.
#ifndef TURBINE_DIALECTS_DSA_H
#define TURBINE_DIALECTS_DSA_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dsa/DsaOpsDialect.h.inc"
#include "dsa/DsaOpsEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "dsa/DsaOpsAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "dsa/DsaOpsTypes.h.inc"
#define GET_OP_CLASSES
#include "dsa/DsaOps.h.inc"

#endif
