//! The imported function as typed records: each graph-dialect operation with its operands, its
//! attributes as values, its result types and the ONNX node it comes from.
//!
//! The crate does not link MLIR (its tests stay fast); the tools build the module from these
//! records with MLIR's builders (`turbine_tools::graph_module`), so no MLIR text is written or
//! parsed on the way from an ONNX file to verified IR. Every record carries the name of the ONNX
//! node it lowers, which becomes the operation's location: a verifier error names the node.

use crate::tensor::{Data, Tensor};
use crate::types::TensorType;

/// Where an SSA value of the function comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueRef {
    /// Function argument `index`.
    Argument(usize),
    /// Result `index` of operation `op` (its position in [`FunctionBody::ops`]).
    Result {
        /// The defining operation.
        op: usize,
        /// Which of its results.
        index: usize,
    },
    /// Argument `index` of the block of region `region` (its position in
    /// [`FunctionBody::regions`]).
    RegionArgument {
        /// The region.
        region: usize,
        /// Which of its block's arguments.
        index: usize,
    },
}

/// An SSA value of the function being recorded, with its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// Its definition.
    pub value: ValueRef,
    /// Its type.
    pub ty: TensorType,
}

/// The value of an operation attribute; each maps onto one MLIR builtin or graph attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// A 64-bit integer attribute.
    Int(i64),
    /// An `f32` float attribute.
    Float(f32),
    /// A bool attribute.
    Bool(bool),
    /// A dense `i64` array.
    Ints(Vec<i64>),
    /// A dense `f32` array.
    Floats(Vec<f32>),
    /// A string attribute.
    Str(String),
    /// One of the graph dialect's enumeration attributes: its mnemonic (`pad_mode`) and the
    /// case's keyword (`reflect`).
    Enum(&'static str, &'static str),
    /// Dense elements of type `ty`: `data` holds every element, or one for a splat.
    Dense {
        /// The tensor type of the attribute.
        ty: TensorType,
        /// The elements, outermost dimension first.
        data: Data,
    },
}

/// One operation of the function.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// The operation name (`graph.conv2d`, `func.return`).
    pub name: String,
    /// Its operands in order.
    pub operands: Vec<ValueRef>,
    /// Its attributes by name.
    pub attributes: Vec<(&'static str, Attribute)>,
    /// The types of its results.
    pub results: Vec<TensorType>,
    /// The ONNX node (or tensor) it comes from: the operation's location.
    pub location: String,
    /// The regions it holds (positions in [`FunctionBody::regions`]), in order.
    pub regions: Vec<usize>,
    /// The region it is in; `None` for the function's body.
    pub parent: Option<usize>,
}

/// A region of an operation (`graph.if`, `graph.loop`): one block, whose arguments have these
/// types; its operations are those whose [`Op::parent`] it is, ending with `graph.yield`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    /// The types of the block's arguments.
    pub arguments: Vec<TensorType>,
}

impl Op {
    /// The attribute called `name`, if set.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value)
    }
}

/// The body of `@main`, operation by operation in order (which is a topological order: an
/// operation is recorded after the operations it reads, and after the operations of its regions),
/// with the regions of its control flow.
#[derive(Debug, Default)]
pub struct FunctionBody {
    ops: Vec<Op>,
    regions: Vec<Region>,
    /// The regions being recorded, innermost last: new operations go to the innermost.
    open: Vec<usize>,
}

impl FunctionBody {
    /// Records operation `name` on `operands` at `location` and returns its results.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[&Operand],
        attributes: &[(&'static str, Attribute)],
        results: &[TensorType],
        location: &str,
    ) -> Vec<Operand> {
        self.op_with_regions(name, operands, attributes, results, Vec::new(), location)
    }

    /// [`Self::op`] for an operation holding `regions` (made by [`Self::open_region`] and
    /// closed since).
    pub fn op_with_regions(
        &mut self,
        name: &str,
        operands: &[&Operand],
        attributes: &[(&'static str, Attribute)],
        results: &[TensorType],
        regions: Vec<usize>,
        location: &str,
    ) -> Vec<Operand> {
        let op = self.ops.len();
        self.ops.push(Op {
            name: name.to_owned(),
            operands: operands.iter().map(|operand| operand.value).collect(),
            attributes: attributes.to_vec(),
            results: results.to_vec(),
            location: location.to_owned(),
            regions,
            parent: self.open.last().copied(),
        });
        results
            .iter()
            .enumerate()
            .map(|(index, ty)| Operand {
                value: ValueRef::Result { op, index },
                ty: ty.clone(),
            })
            .collect()
    }

    /// One result of [`Self::op`].
    pub fn op1(
        &mut self,
        name: &str,
        operands: &[&Operand],
        attributes: &[(&'static str, Attribute)],
        result: TensorType,
        location: &str,
    ) -> Operand {
        self.op(name, operands, attributes, &[result], location)
            .remove(0)
    }

    /// `graph.constant` holding `tensor` inline (one element when all are equal).
    pub fn constant(&mut self, tensor: &Tensor, location: &str) -> Operand {
        let data = if !tensor.data.is_empty() && tensor.data.is_splat() {
            tensor.data.take(&[0])
        } else {
            tensor.data.clone()
        };
        self.dense(tensor.ty(), data, location)
    }

    /// `graph.constant` of type `ty` whose every element is the one element of `value`
    /// (converted to `ty`'s element type): a splat costs one element whatever its size.
    pub fn splat(&mut self, value: &Tensor, ty: TensorType, location: &str) -> Operand {
        let data = value.data.take(&[0]).convert(ty.element);
        self.dense(ty, data, location)
    }

    fn dense(&mut self, ty: TensorType, data: Data, location: &str) -> Operand {
        let value = Attribute::Dense {
            ty: ty.clone(),
            data,
        };
        self.op1("graph.constant", &[], &[("value", value)], ty, location)
    }

    /// `graph.weight "<name>"`, a tensor of the weights file.
    pub fn weight(&mut self, name: &str, ty: TensorType, location: &str) -> Operand {
        let name = Attribute::Str(name.to_owned());
        self.op1("graph.weight", &[], &[("name", name)], ty, location)
    }

    /// `func.return` of `values`.
    pub fn ret(&mut self, values: &[&Operand], location: &str) {
        self.op("func.return", values, &[], &[], location);
    }

    /// Starts a region whose block has arguments of `arguments`: operations go to it until
    /// [`Self::close_region`]. Returns the region and its arguments.
    pub fn open_region(&mut self, arguments: Vec<TensorType>) -> (usize, Vec<Operand>) {
        let region = self.regions.len();
        let operands = arguments
            .iter()
            .enumerate()
            .map(|(index, ty)| Operand {
                value: ValueRef::RegionArgument { region, index },
                ty: ty.clone(),
            })
            .collect();
        self.regions.push(Region { arguments });
        self.open.push(region);
        (region, operands)
    }

    /// Adds an argument of type `ty` to the end of `region`'s block.
    pub fn add_region_argument(&mut self, region: usize, ty: TensorType) -> Operand {
        let arguments = &mut self.regions[region].arguments;
        arguments.push(ty.clone());
        Operand {
            value: ValueRef::RegionArgument {
                region,
                index: arguments.len() - 1,
            },
            ty,
        }
    }

    /// Ends the innermost open region.
    pub fn close_region(&mut self) {
        self.open.pop().expect("a region is open");
    }

    /// The operations recorded so far, in order.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// The regions recorded so far.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }
}

/// A function argument or result: the name it stands for (`graph.name`) and its type.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The ONNX graph input or output name.
    pub name: String,
    /// Its type.
    pub ty: TensorType,
}

/// A module of one function, `@main`, as the tools build it.
#[derive(Debug)]
pub struct GraphModule {
    /// The weights file that `graph.weights` records, when the module has weights.
    pub weights_file: Option<String>,
    /// The location of the module and the function: the ONNX graph's name.
    pub location: String,
    /// The function's arguments (each located at its name).
    pub inputs: Vec<Signature>,
    /// The function's results.
    pub outputs: Vec<Signature>,
    /// The operations, ending with `func.return`.
    pub body: FunctionBody,
}

impl GraphModule {
    /// The operand that stands for argument `index`.
    pub fn argument(index: usize, ty: TensorType) -> Operand {
        Operand {
            value: ValueRef::Argument(index),
            ty,
        }
    }

    /// The operations called `name`, in order.
    pub fn ops_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Op> + 'a {
        self.body.ops().iter().filter(move |op| op.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ElementType;

    #[test]
    fn results_refer_to_their_operation() {
        let mut body = FunctionBody::default();
        let ty = TensorType::new(vec![2], ElementType::F32);
        let a = body.weight("w", ty.clone(), "w");
        let sum = body.op1("graph.add", &[&a, &a], &[], ty.clone(), "add");
        let parts = body.op(
            "graph.split",
            &[&sum],
            &[("axis", Attribute::Int(0))],
            &vec![TensorType::new(vec![1], ElementType::F32); 2],
            "split",
        );
        assert_eq!(parts[1].value, ValueRef::Result { op: 2, index: 1 });
        let ops = body.ops();
        assert_eq!(ops[1].operands, vec![a.value, a.value]);
        assert_eq!(ops[2].operands, vec![ValueRef::Result { op: 1, index: 0 }]);
        assert_eq!(ops[2].attribute("axis"), Some(&Attribute::Int(0)));
        assert_eq!(ops[0].location, "w");
    }

    #[test]
    fn constants_keep_one_element_when_all_are_equal() {
        let mut body = FunctionBody::default();
        body.constant(&Tensor::new(vec![3], Data::F32(vec![0.5; 3])), "c");
        body.constant(&Tensor::new(vec![2], Data::I64(vec![1, 2])), "d");
        let values: Vec<_> = body
            .ops()
            .iter()
            .map(|op| op.attribute("value").unwrap().clone())
            .collect();
        assert_eq!(
            values[0],
            Attribute::Dense {
                ty: TensorType::new(vec![3], ElementType::F32),
                data: Data::F32(vec![0.5])
            }
        );
        assert_eq!(
            values[1],
            Attribute::Dense {
                ty: TensorType::new(vec![2], ElementType::I64),
                data: Data::I64(vec![1, 2])
            }
        );
    }
}
