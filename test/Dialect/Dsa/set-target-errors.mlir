// RUN: turbine-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(dsa-set-target),dsa-set-target{target=no-such-target})'

// One pipeline serves both chunks: the func.func-nested instance only runs where there is a function
// (the second chunk) and stops the pipeline there; the module instance with an unknown target runs on
// the first chunk, which has none.

// Tests that an unknown target name is an error naming it and listing the built-in targets.
// expected-error @+1 {{cannot use target 'no-such-target': unknown target 'no-such-target': no built-in target has this name (built-ins: stcp920, mini, solo)}}
module {
}

// -----

// Tests that the pass anchored on something other than a builtin.module is an error naming the op.
module {
  // expected-error @+1 {{dsa-set-target runs on a builtin.module, not on 'func.func'}}
  func.func @model(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
