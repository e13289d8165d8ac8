//! `func.call`: the callee's body runs in an environment of its own, at most
//! [`MAX_CALL_DEPTH`] calls deep, on a thread whose stack holds that many.

use super::attributes::{runtime, unsupported};
use super::Evaluator;
use crate::{
    error::InterpretError,
    program::{Attr, Block, Node, Program},
    tensor::Tensor,
};
use std::rc::Rc;

/// The most calls that may be running at once: a call nested deeper (a recursion that does not
/// end, or ends too deep) is an error at its location rather than a stack overflow.
pub const MAX_CALL_DEPTH: usize = 1024;

/// Stack bytes one level of nesting takes: a block running an op that runs a block (a region,
/// or a callee's body). Measured on x86-64 at 576 bytes with the crate's `opt-level = 3` and
/// 4.3 KiB unoptimised; the thread's stack is address space reserved, not memory used, until
/// the calls reach that deep.
const STACK_PER_LEVEL: usize = 8 << 10;

/// Stack bytes beyond the nesting: the kernels of the innermost op and the caller's frames.
const STACK_BASE: usize = 8 << 20;

impl Evaluator<'_> {
    /// `func.call`: the callee's body on the operands, in a fresh environment; its results are
    /// the operands of the callee's `func.return`.
    pub(super) fn call(&mut self, node: &Node) -> Result<Vec<Rc<Tensor>>, InterpretError> {
        let Some(Attr::Symbol(name)) = node.attributes.get("callee") else {
            unreachable!("the verifier ensures func.call has a callee")
        };
        let Some(callee) = self.callees.get(name) else {
            return Err(unsupported(
                node,
                format!("call to @{name}, which is not among the program's callees"),
            ));
        };
        if self.depth == MAX_CALL_DEPTH {
            return Err(runtime(
                node,
                format!(
                    "call to @{name} nested deeper than {MAX_CALL_DEPTH} calls, the \
                     interpreter's bound on the depth of calls"
                ),
            ));
        }
        let arguments = (0..node.operands.len())
            .map(|i| self.operand(node, i))
            .collect();
        let caller = std::mem::replace(&mut self.values, vec![None; callee.value_count]);
        self.depth += 1;
        let results = self.run(&callee.body, arguments);
        self.depth -= 1;
        self.values = caller;
        results
    }
}

/// Runs `evaluate` on a thread whose stack holds the deepest nesting `program` can reach with
/// [`MAX_CALL_DEPTH`] calls running, and returns what it returns (a panic carries over).
pub(super) fn on_deep_stack<T: Send>(
    program: &Program,
    evaluate: impl FnOnce() -> Result<T, InterpretError> + Send,
) -> Result<T, InterpretError> {
    let size = stack_size(program);
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name(format!("interpreting @{}", program.name))
            .stack_size(size)
            .spawn_scoped(scope, evaluate)
            .map_err(|error| InterpretError::Runtime {
                location: format!("@{}", program.name),
                message: format!("cannot start a thread with a stack of {size} bytes: {error}"),
            })?;
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The stack the evaluation of `program` needs at most. Each running call takes one level for
/// the caller's block plus one per region around the call; the innermost function adds its
/// deepest nesting.
fn stack_size(program: &Program) -> usize {
    let bodies = std::iter::once(&program.body).chain(program.callees.values().map(|f| &f.body));
    let (mut deepest, mut deepest_call) = (0, 0);
    for body in bodies {
        let nesting = nesting(body);
        deepest = deepest.max(nesting.regions);
        deepest_call = deepest_call.max(nesting.calls.unwrap_or(0));
    }
    let levels = (MAX_CALL_DEPTH + 1)
        .saturating_mul(deepest_call + 1)
        .saturating_add(deepest + 1);
    levels
        .saturating_mul(STACK_PER_LEVEL)
        .saturating_add(STACK_BASE)
}

/// How deeply regions nest within a block.
struct Nesting {
    /// The most regions around an op.
    regions: usize,
    /// The most regions around a `func.call`, if there is one.
    calls: Option<usize>,
}

/// How deeply regions nest within `block` and around its calls.
fn nesting(block: &Block) -> Nesting {
    let mut result = Nesting {
        regions: 0,
        calls: None,
    };
    for node in &block.ops {
        if node.name == "func.call" {
            result.calls = result.calls.max(Some(0));
        }
        for region in &node.regions {
            let inner = nesting(region);
            result.regions = result.regions.max(inner.regions + 1);
            result.calls = result.calls.max(inner.calls.map(|depth| depth + 1));
        }
    }
    result
}
