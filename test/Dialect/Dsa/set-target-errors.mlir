// RUN: turbine-opt %s --verify-diagnostics --dsa-set-target=target=no-such-target
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(func.func(dsa-set-target))' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// Tests that the pass anchored on something other than a builtin.module is refused by the pass
// manager, before it runs.
// ANCHOR: error: Can't add pass 'dsa-set-target' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?

// Tests that an unknown target name is an error naming it and listing the built-in targets.
// expected-error @+1 {{cannot use target 'no-such-target': unknown target 'no-such-target': no built-in target has this name (built-ins: stcp920, mini, solo)}}
module {
}
