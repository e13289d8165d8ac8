//! Bindings of instances to the cores of a cluster (GraphTurbo §3.4): how many cores each
//! dimension of an instance's output is spread over, which dimensions may be spread at all, and
//! what a consumer's binding asks of the tensors it reads. `instance-bind` decides bindings and
//! scopes with them; `instance-stitch` inserts the data movement their mismatches need.

use super::regions::{demand, full, share, share_axis, sweep};
use crate::graph_view::FunctionView;
use crate::ir::{Op, Val};
use crate::registry::PassFailure;
use melior::ir::attribute::{DenseI64ArrayAttribute, IntegerAttribute};
use mlir_sys::*;
use turbine_dialects::attributes::{instance::Scope, EnumAttribute};
use turbine_dialects::ops::{instance, OpKind};

/// Cores per output dimension.
pub type Binding = Vec<usize>;

/// How many cores a binding uses.
pub fn cores(binding: &[usize]) -> usize {
    binding.iter().product()
}

/// An instance as the binding passes see it.
#[derive(Debug)]
pub struct Instance {
    pub op: Op,
    /// `group` and `index`, for messages.
    pub name: String,
    /// Its position in the order of Algorithm 3.
    pub order: usize,
    /// Its body.
    pub body: FunctionView,
    /// The shape of its first output, the one bindings describe.
    pub shape: Vec<usize>,
}

impl Instance {
    /// Reads the `instance.instance` ops among `ops`, in block order; an error at the first
    /// that cannot be read.
    pub fn read_all(ops: &[Op]) -> Result<Vec<Self>, PassFailure> {
        ops.iter()
            .filter(|op| op.is(instance::Kind::Instance))
            .map(|&op| {
                Self::read(op).map_err(|message| {
                    op.emit_error(&message);
                    PassFailure
                })
            })
            .collect()
    }

    /// Reads `op` (an `instance.instance`); an error names what is missing.
    pub fn read(op: Op) -> Result<Self, String> {
        let group = op.string_value("group").unwrap_or_default();
        let index = op
            .attribute("index")
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .map_or(0, |a| a.value());
        let name = format!("'{group}' #{index}");
        let order = op
            .attribute("order")
            .and_then(|a| IntegerAttribute::try_from(a).ok())
            .ok_or_else(|| format!("instance {name} has no order: run instance-order first"))?
            .value() as usize;
        let body = FunctionView::read_body(op, name.clone())
            .map_err(|error| format!("cannot read instance {name}: {}", error.message))?;
        let shape = body.type_of(body.returned()[0]).shape.clone();
        Ok(Self {
            op,
            name,
            order,
            body,
            shape,
        })
    }

    /// The dimensions of the output that may be spread over cores: a core must be able to
    /// compute its share of the op that makes the output on its own (§3.4 "some tensors have
    /// requirements on dimensions that cannot be bound": a softmax's or layer norm's axis, a
    /// reduction's reduced dimensions).
    pub fn bindable(&self) -> Vec<bool> {
        let output = self.body.returned()[0];
        let Some(sink) = self.body.producer(output) else {
            return vec![false; self.shape.len()];
        };
        let node = &self.body.ops[sink];
        let shapes: Vec<&[usize]> = node
            .operands
            .iter()
            .map(|&value| self.body.type_of(value).shape.as_slice())
            .collect();
        (0..self.shape.len())
            .map(|d| {
                self.shape[d] >= 2
                    && demand(
                        node,
                        &share(&self.shape, d, 0, smallest_factor(self.shape[d])),
                        &shapes,
                    )
                    .is_some()
            })
            .collect()
    }

    /// The plain strategy of §3.4: output dimensions from outer to inner take the largest factor
    /// of the cores still free (8, 4, 2, 1 for 8 cores) that divides their extent.
    pub fn plain(&self, cores_per_cluster: usize) -> Binding {
        let bindable = self.bindable();
        let mut free = cores_per_cluster;
        self.shape
            .iter()
            .zip(bindable)
            .map(|(&extent, bindable)| {
                let factor = if bindable {
                    (1..=free)
                        .rev()
                        .find(|&f| free.is_multiple_of(f) && extent.is_multiple_of(f))
                        .unwrap_or(1)
                } else {
                    1
                };
                free /= factor;
                factor
            })
            .collect()
    }

    /// What binding `binding` of this instance asks of each of its operands (by dimension of
    /// the operand): each bound output dimension whose share reads exactly one share of the
    /// operand along one of its dimensions passes its factor on (the matching of Algorithm 1,
    /// line 10); a share that reads the operand whole, or a halo of it, passes nothing.
    pub fn needs(&self, binding: &[usize]) -> Vec<Binding> {
        let mut needs: Vec<Binding> = self
            .body
            .arguments
            .iter()
            .map(|(_, r#type)| vec![1; r#type.shape.len()])
            .collect();
        let output = self.body.returned()[0];
        for (d, &factor) in binding.iter().enumerate() {
            if factor < 2 {
                continue;
            }
            let computed = sweep(&self.body, &[(output, share(&self.shape, d, 0, factor))]).0;
            for ((argument, r#type), need) in self.body.arguments.iter().zip(&mut needs) {
                let region = computed[*argument]
                    .clone()
                    .unwrap_or_else(|| full(&r#type.shape));
                if let Some(Some(axis)) = share_axis(&region, &r#type.shape, 0, factor) {
                    need[axis] = factor;
                }
            }
        }
        needs
    }
}

/// The smallest factor of `extent` above 1 (1 for 0 and 1): a number without one up to its
/// square root is prime, so the search takes at most `sqrt(extent)` steps.
fn smallest_factor(extent: usize) -> usize {
    let mut f = 2;
    while f <= extent / f {
        if extent.is_multiple_of(f) {
            return f;
        }
        f += 1;
    }
    if extent >= 2 {
        extent
    } else {
        1
    }
}

/// The instances (with the index of the result) whose outputs `value` is made of, through the
/// concatenations, slices, copies and redistributions between them; none for a function argument
/// or a weight.
pub fn producers(value: Val) -> Vec<(Op, usize)> {
    let mut found = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        let Some(op) = value.defining_op() else {
            continue;
        };
        match op.kind().and_then(OpKind::instance) {
            Some(instance::Kind::Instance) => {
                // SAFETY: the value is a result of `op`.
                let index = unsafe { mlirOpResultGetResultNumber(value.raw()) } as usize;
                found.push((op, index));
            }
            Some(
                instance::Kind::Concat
                | instance::Kind::Slice
                | instance::Kind::Copy
                | instance::Kind::Redistribute,
            ) => {
                // SAFETY: the op is alive.
                let count = unsafe { mlirOperationGetNumOperands(op.raw()) } as usize;
                stack.extend((0..count).map(|index| op.operand(index)));
            }
            Some(instance::Kind::Yield | instance::Kind::Clusters | instance::Kind::Group)
            | None => {}
        }
    }
    found
}

/// The `bind` of an instance, None when it has none.
pub fn binding_of(op: Op) -> Option<Binding> {
    let attribute = DenseI64ArrayAttribute::try_from(op.attribute("bind")?).ok()?;
    Some(
        (0..attribute.len())
            .map(|index| attribute.element(index).map_or(1, |factor| factor as usize))
            .collect(),
    )
}

/// The `scope` of an instance, None when it has none.
pub fn scope_of(op: Op) -> Option<Scope> {
    Scope::from_attribute(op.attribute("scope")?)
}

/// Formats a binding as the IR prints it.
pub fn spelled(binding: &[usize]) -> String {
    let factors: Vec<String> = binding.iter().map(usize::to_string).collect();
    format!("[{}]", factors.join(", "))
}

#[cfg(test)]
mod tests {
    use super::smallest_factor;

    #[test]
    fn smallest_factor_is_the_least_divisor_above_one() {
        for extent in 0..500usize {
            let expected = (2..=extent)
                .find(|f| extent.is_multiple_of(*f))
                .unwrap_or(1);
            assert_eq!(smallest_factor(extent), expected, "{extent}");
        }
        assert_eq!(smallest_factor(1 << 40), 2);
    }
}
