// Tests what graph-substitute rejects: malformed rule files (each error names the rule file and
// line), unsound rules (verify=true checks each through the reference interpreter; the built-in
// rules pass), unknown rule names, missing files and bad options.

// RUN: not turbine-opt %s --graph-substitute="builtin-rules=false rules=%S/Inputs/bad-rules.mlir" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not turbine-opt %s --graph-substitute="builtin-rules=false rules=%S/Inputs/unparsable-rules.mlir" 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not turbine-opt %s --graph-substitute="rules=%S/Inputs/no-such-file.mlir" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not turbine-opt %s --graph-substitute="only=no_such_rule" 2>&1 | FileCheck %s --check-prefix=ONLY
// RUN: not turbine-opt %s --graph-substitute="search=random" 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: not turbine-opt %s --graph-substitute="alpha=0.5" 2>&1 | FileCheck %s --check-prefix=ALPHA
// RUN: not turbine-opt %s --graph-substitute="cost=latency" 2>&1 | FileCheck %s --check-prefix=COST
// RUN: not turbine-opt %s --graph-substitute 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not turbine-opt %s --graph-substitute="verify=true builtin-rules=false rules=%S/Inputs/unsound-rules.mlir search=all" 2>&1 | FileCheck %s --check-prefix=UNSOUND
// RUN: turbine-opt %s --graph-substitute="verify=true search=all" -o /dev/null

// BAD: bad-rules.mlir:2:1: error: rule 'no_target' needs functions @source and @target
// BAD: bad-rules.mlir:13:3: error: rule 'other_signature': @target's signature differs from @source's
// BAD: bad-rules.mlir:19:10: error: unknown rule attribute 'rule.bogus'
// BAD: bad-rules.mlir:27:3: error: rule.dims of argument 0: only sizes and groups ("p...") name dimensions
// BAD: bad-rules.mlir:41:10: error: rule 'unbound_size': size 'm' is not bound by @source
// BAD: bad-rules.mlir:46:3: error: rule 'unread_argument': argument 1 is not read by @source
// BAD: bad-rules.mlir:54:1: error: rule 'bad_expression': rule.where: unexpected '*'
// BAD: bad-rules.mlir:64:3: error: rule.dims of argument 0: names 2 dimensions, its type has 1
// BAD: bad-rules.mlir:78:10: error: rule 'unbound_attribute': 'axis' takes 'a', which @source does not bind
// BAD: bad-rules.mlir:88:10: error: rule.shape: '2 * p...': a group is a name followed by '...'
// BAD: bad-rules.mlir:92:1: error: rule 'bad_rank': rule.where: 'rank' takes a group: rank(p)
// BAD: bad-rules.mlir:103:10: error: rule 'unbound_group': size 'q' is not bound by @source
// PARSE: unparsable-rules.mlir:5:14: error: expected ':'
// MISSING: error: cannot read rule file '{{.*}}no-such-file.mlir'
// ONLY: error: graph-substitute: no rule is named 'no_such_rule'
// SEARCH: search 'random' is not one of backtracking, egraph, all, none
// ALPHA: alpha must be at least 1, got 0.5
// COST: cost 'latency' is not one of cycles, flops, memory
// UNSOUND: unsound-rules.mlir:2:1: error: unsound rule: rule 'sigmoid_is_tanh' at its example shapes {{\[\[}}2, 3]]: result 0 differs at element 0
// UNSOUND: unsound-rules.mlir:15:1: error: unsound rule: rule 'transpose_is_identity' at shapes {{.*}}: rule 'transpose_is_identity': its result 0 would change type
// UNSOUND: unsound-rules.mlir:27:1: error: unsound rule: rule 'gather_any_axis_as_axis_0' at shapes {{.*}} with i = {{[0-9]}}, k = {{-?[0-9]}}:
// TARGET: error: graph-substitute needs a target: set the module's dsa.target (dsa-set-target) or the 'target' option

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
