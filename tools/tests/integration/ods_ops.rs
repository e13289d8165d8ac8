//! The typed op views and builders generated from the dialects' ODS (`turbine_dialects::ops`):
//! ops built with the typed builders verify and print as expected, and ops parsed from text read
//! back through the typed views.

use melior::{
    dialect::func,
    ir::{
        attribute::{StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::OperationLike,
        r#type::{FunctionType, MemRefType, RankedTensorType},
        Block, BlockRef, Location, Module, OperationRef, Region, RegionLike, Type, Value,
        ValueLike,
    },
    Context,
};
use turbine_dialects::{
    attributes::{
        dsa::{MemorySpace, UnaryKind},
        graph::{Activation, ComparePredicate, PadMode},
        instance::{Scope, Split},
        EnumAttribute,
    },
    ops::{dsa, graph, instance, ops_in, OpView},
};

fn tensor<'c>(context: &'c Context, shape: &[u64]) -> Type<'c> {
    RankedTensorType::new(shape, Type::float32(context), None).into()
}

fn buffer<'c>(context: &'c Context, shape: &[i64], space: MemorySpace) -> Type<'c> {
    MemRefType::new(
        Type::float32(context),
        shape,
        None,
        Some(space.attribute(context)),
    )
    .into()
}

/// Appends `func.func @name` with `body`'s block to `module`; `body` fills the block and returns
/// the values to return.
fn add_function<'c>(
    context: &'c Context,
    module: &Module<'c>,
    name: &str,
    inputs: &[Type<'c>],
    results: &[Type<'c>],
    body: impl for<'a> FnOnce(&'a Block<'c>) -> Vec<Value<'c, 'a>>,
) {
    let location = Location::unknown(context);
    let block = Block::new(
        &inputs
            .iter()
            .map(|&r#type| (r#type, location))
            .collect::<Vec<_>>(),
    );
    let returned = body(&block);
    block.append_operation(func::r#return(&returned, location));
    let region = Region::new();
    region.append_block(block);
    let function_type = FunctionType::new(context, inputs, results).into();
    module.body().append_operation(func::func(
        context,
        StringAttribute::new(context, name),
        TypeAttribute::new(function_type),
        region,
        &[],
        location,
    ));
}

/// The body of the first function of `module`.
fn first_body<'c, 'a>(module: &'a Module<'c>) -> BlockRef<'c, 'a> {
    let function = module.body().first_operation().expect("a function");
    function.region(0).unwrap().first_block().expect("a body")
}

fn parse<'c>(context: &'c Context, source: &str) -> Module<'c> {
    let module = Module::parse(context, source).expect("the test IR parses");
    assert!(module.as_operation().verify(), "the test IR verifies");
    module
}

fn name_of<'c: 'a, 'a, T: OpView<'c, 'a>>(_: T) -> &'static str {
    T::NAME
}

fn argument<'c, 'a>(block: &'a Block<'c>, index: usize) -> Value<'c, 'a> {
    block.argument(index).unwrap().into()
}

#[test]
fn graph_builders_make_verified_ops() {
    let context = turbine_dialects::create_context();
    let location = Location::unknown(&context);
    let module = Module::new(location);
    let input = tensor(&context, &[1, 3, 8, 8]);
    let filter = tensor(&context, &[4, 3, 3, 3]);
    let bias = tensor(&context, &[4]);
    let output = tensor(&context, &[1, 4, 4, 4]);
    let joined = tensor(&context, &[1, 8, 4, 4]);
    let padded = tensor(&context, &[1, 4, 6, 6]);
    add_function(
        &context,
        &module,
        "main",
        &[input, bias],
        &[output, joined, padded],
        |block| {
            let weight = block.append_operation(
                graph::WeightOp::builder(location, filter, "conv.weight").build(),
            );
            let weight = graph::WeightOp::cast(weight).unwrap();
            let conv = block.append_operation(
                graph::Conv2dOp::builder(location, output, argument(block, 0), weight.result())
                    .bias(argument(block, 1))
                    .strides(&[2, 2])
                    .pads(&[1, 1, 1, 1])
                    .activation(Activation::Relu)
                    .build(),
            );
            let conv = graph::Conv2dOp::cast(conv).unwrap();
            let relu =
                graph::ReluOp::cast(block.append_operation(
                    graph::ReluOp::builder(location, output, conv.result()).build(),
                ))
                .unwrap();
            let concat = graph::ConcatOp::cast(
                block.append_operation(
                    graph::ConcatOp::builder(location, joined, [conv.result(), relu.result()], 1)
                        .build(),
                ),
            )
            .unwrap();
            let split = graph::SplitOp::cast(block.append_operation(
                graph::SplitOp::builder(location, &[output, output], concat.result(), 1).build(),
            ))
            .unwrap();
            let mut halves = split.results();
            let clip = graph::ClipOp::cast(block.append_operation(
                graph::ClipOp::builder(location, output, halves.next().unwrap(), 0.0, 6.0).build(),
            ))
            .unwrap();
            let pad = graph::PadOp::cast(
                block.append_operation(
                    graph::PadOp::builder(
                        location,
                        padded,
                        halves.next().unwrap(),
                        &[0, 0, 1, 1, 0, 0, 1, 1],
                    )
                    .mode(PadMode::Edge)
                    .build(),
                ),
            )
            .unwrap();
            vec![
                clip.result().into(),
                concat.result().into(),
                pad.result().into(),
            ]
        },
    );
    assert!(module.as_operation().verify());
    insta::assert_snapshot!("graph_ops_built", module.as_operation().to_string());
}

#[test]
fn graph_views_read_parsed_ops() {
    let context = turbine_dialects::create_context();
    let module = parse(
        &context,
        r#"
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>,
    %m: tensor<8x16xf32>, %n: tensor<4x16xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>,
        tensor<8x4xf32>, tensor<8x4xi1>) {
  %y = graph.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
      activation = #graph<activation relu6>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>,
          tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %z = graph.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %s = graph.add %y, %y : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  %c = graph.clip %z {min = -1.5 : f32, max = 6.0 : f32} : tensor<1x4x6x6xf32>
  %g = graph.gemm %m, %n {trans_b = true, beta = 0.5 : f32} : (tensor<8x16xf32>,
      tensor<4x16xf32>) -> tensor<8x4xf32>
  %e = graph.compare lt, %g, %g : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xi1>
  %v = graph.weight "w\FF" : tensor<4xf32>
  %p = graph.pad %s {pads = array<i64: 0, 0, 1, 1, 0, 0, 1,
      1>} : tensor<1x4x4x4xf32> -> tensor<1x4x6x6xf32>
  %l = graph.concat %y, %s, %y {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>,
      tensor<1x4x4x4xf32>) -> tensor<1x12x4x4xf32>
  return %s, %c, %g, %e : tensor<1x4x4x4xf32>, tensor<1x4x6x6xf32>, tensor<8x4xf32>, tensor<8x4xi1>
}
"#,
    );
    let body = first_body(&module);
    let convs: Vec<graph::Conv2dOp> = ops_in(body).collect();
    let [strided, plain] = convs.as_slice() else {
        panic!("two convolutions, got {}", convs.len())
    };

    // Written attributes, an optional operand and an optional enumeration attribute.
    assert_eq!(strided.strides(), [2, 2]);
    assert_eq!(strided.pads(), [1, 1, 1, 1]);
    assert_eq!(strided.activation(), Some(Activation::Relu6));
    assert_eq!(strided.bias(), Some(body.argument(2).unwrap().into()));
    assert_eq!(strided.input(), Value::from(body.argument(0).unwrap()));
    assert_eq!(strided.filter(), Value::from(body.argument(1).unwrap()));
    // Default-valued attributes read as their ODS defaults when absent.
    assert_eq!(plain.strides(), [1, 1]);
    assert_eq!(plain.dilations(), [1, 1]);
    assert_eq!(plain.groups(), 1);
    assert_eq!(plain.activation(), None);
    assert_eq!(plain.bias(), None);
    assert_eq!(plain.result().r#type(), tensor(&context, &[1, 4, 6, 6]));

    // `cast` is None for any other op; TryFrom says what it found.
    let add = strided
        .operation()
        .next_in_block()
        .unwrap()
        .next_in_block()
        .unwrap();
    assert!(graph::Conv2dOp::cast(add).is_none());
    assert!(graph::AddOp::cast(strided.operation()).is_none());
    let error = graph::Conv2dOp::try_from(add).unwrap_err();
    insta::assert_snapshot!(error, @"expected a `graph.conv2d`, found a `graph.add`");
    let add = graph::AddOp::try_from(add).unwrap();
    assert_eq!(add.lhs(), add.rhs());
    assert_eq!(OperationRef::from(add), add.operation());

    // The dialect's trait: the generated constants, the list, and the registered op agree.
    const {
        assert!(
            graph::AddOp::ELEMENTWISE
                && graph::ClipOp::ELEMENTWISE
                && graph::CompareOp::ELEMENTWISE
        );
        assert!(!graph::Conv2dOp::ELEMENTWISE && !graph::ConcatOp::ELEMENTWISE);
    }
    assert!(graph::is_elementwise(add.operation()));
    assert!(!graph::is_elementwise(strided.operation()));
    for op in std::iter::successors(body.first_operation(), |op| op.next_in_block()) {
        let name = op.name().as_string_ref().as_str().unwrap().to_string();
        let listed = graph::ELEMENTWISE_OPS.contains(&name.as_str());
        assert_eq!(graph::is_elementwise(op), listed, "{name}");
    }
    assert_eq!(graph::ELEMENTWISE_OPS.len(), 25);
    assert!(graph::OPERATION_NAMES.contains(&graph::LoopOp::NAME));

    // Floats, booleans, enumerations, strings (read lossily), variadic operands.
    let clip: graph::ClipOp = ops_in(body).next().unwrap();
    assert_eq!((clip.min(), clip.max()), (-1.5, 6.0));
    let gemm: graph::GemmOp = ops_in(body).next().unwrap();
    assert_eq!(
        (gemm.alpha(), gemm.beta(), gemm.trans_a(), gemm.trans_b()),
        (1.0, 0.5, false, true)
    );
    assert_eq!(gemm.c(), None);
    let compare: graph::CompareOp = ops_in(body).next().unwrap();
    assert_eq!(compare.predicate(), ComparePredicate::Lt);
    let weight: graph::WeightOp = ops_in(body).next().unwrap();
    assert_eq!(weight.name(), "w\u{FFFD}");
    let pad: graph::PadOp = ops_in(body).next().unwrap();
    assert_eq!((pad.mode(), pad.value()), (PadMode::Constant, 0.0));
    let concat: graph::ConcatOp = ops_in(body).next().unwrap();
    assert_eq!(concat.inputs().len(), 3);
    assert_eq!(concat.inputs().nth(1), Some(add.result().into()));
    assert_eq!(concat.axis(), 1);

    // The dialect enum dispatches on the kind of an op.
    let kinds: Vec<&str> = std::iter::successors(body.first_operation(), |op| op.next_in_block())
        .map(|op| match graph::AnyOp::cast(op) {
            Some(graph::AnyOp::Conv2d(conv)) if conv.bias().is_some() => "conv+bias",
            Some(graph::AnyOp::Conv2d(_)) => "conv",
            Some(graph::AnyOp::Add(_)) => "add",
            Some(other) => {
                assert_eq!(other.operation(), op);
                "graph"
            }
            None => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "conv+bias",
            "conv",
            "add",
            "graph",
            "graph",
            "graph",
            "graph",
            "graph",
            "graph",
            "other"
        ]
    );
}

#[test]
fn instance_builders_and_views() {
    let context = turbine_dialects::create_context();
    let location = Location::unknown(&context);
    let module = Module::new(location);
    let whole = tensor(&context, &[1, 4, 8, 8]);
    let half = tensor(&context, &[1, 4, 4, 8]);
    let split = Split {
        dim: 2,
        factor: 2,
        ops: 1,
    };
    add_function(&context, &module, "main", &[whole], &[half], |block| {
        let inner = Block::new(&[(whole, location)]);
        let relu = inner
            .append_operation(graph::ReluOp::builder(location, whole, argument(&inner, 0)).build());
        let relu = graph::ReluOp::cast(relu).unwrap();
        inner.append_operation(instance::YieldOp::builder(location, [relu.result()]).build());
        let body = Region::new();
        body.append_block(inner);
        let group = block.append_operation(
            instance::GroupOp::builder(location, &[whole], "stage", [argument(block, 0)], body)
                .split_info(&[
                    split,
                    Split {
                        dim: 3,
                        factor: 2,
                        ops: 1,
                    },
                ])
                .best_split(&split)
                .build(),
        );
        let group = instance::GroupOp::cast(group).unwrap();
        let slice = instance::SliceOp::cast(
            block.append_operation(
                instance::SliceOp::builder(
                    location,
                    half,
                    group.results().next().unwrap(),
                    &[0, 0, 4, 0],
                )
                .build(),
            ),
        )
        .unwrap();
        let copy = instance::CopyOp::cast(block.append_operation(
            instance::CopyOp::builder(location, half, slice.result(), Scope::Gb).build(),
        ))
        .unwrap();
        vec![copy.result().into()]
    });
    assert!(module.as_operation().verify());
    insta::assert_snapshot!("instance_ops_built", module.as_operation().to_string());

    // The same ops read back, and optional attributes of a parsed instance.
    let body = first_body(&module);
    let group: instance::GroupOp = ops_in(body).next().unwrap();
    assert_eq!(group.name(), "stage");
    assert_eq!(group.best_split(), Some(split));
    assert_eq!(group.split_info().unwrap().len(), 2);
    assert_eq!(
        group.inputs().collect::<Vec<_>>(),
        [Value::from(body.argument(0).unwrap())]
    );
    let inner = group.body().first_block().unwrap();
    let relu: graph::ReluOp = ops_in(inner).next().unwrap();
    assert_eq!(relu.input(), Value::from(inner.argument(0).unwrap()));
    let copy: instance::CopyOp = ops_in(body).next().unwrap();
    assert_eq!(copy.scope(), Scope::Gb);
    assert!(instance::SliceOp::cast(copy.operation()).is_none());

    let module = parse(
        &context,
        r#"
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %a = instance.instance "g" [0 of 2 along 2] (%x) {order = 3 : i64, bind = array<i64: 1, 2, 1,
      1>, scope = #instance<scope lb>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x8xf32> {
  ^bb0(%v: tensor<1x4x8x8xf32>):
    %s = instance.slice %v [0, 0, 0, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x4x8xf32>
    instance.yield %s : tensor<1x4x4x8xf32>
  }
  %b = instance.instance "g" [1 of 2 along 2] (%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x8xf32> {
  ^bb0(%v: tensor<1x4x8x8xf32>):
    %s = instance.slice %v [0, 0, 4, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x4x8xf32>
    instance.yield %s : tensor<1x4x4x8xf32>
  }
  %c = instance.concat %a, %b along 2 : (tensor<1x4x4x8xf32>,
      tensor<1x4x4x8xf32>) -> tensor<1x4x8x8xf32>
  %r = instance.redistribute %c from [1, 2, 1, 1] to [1, 1, 2, 1] : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
"#,
    );
    let body = first_body(&module);
    let instances: Vec<instance::InstanceOp> = ops_in(body).collect();
    let [first, second] = instances.as_slice() else {
        panic!("two instances")
    };
    assert_eq!(
        (first.group(), first.index(), first.count(), first.dim()),
        ("g".to_string(), 0, 2, 2)
    );
    assert_eq!(
        (first.order(), first.bind(), first.scope()),
        (Some(3), Some(vec![1, 2, 1, 1]), Some(Scope::Lb))
    );
    assert_eq!(
        (
            second.index(),
            second.order(),
            second.bind(),
            second.scope()
        ),
        (1, None, None, None)
    );
    let concat: instance::ConcatOp = ops_in(body).next().unwrap();
    assert_eq!(
        concat
            .inputs()
            .map(|value| value.r#type())
            .collect::<Vec<_>>(),
        [tensor(&context, &[1, 4, 4, 8]); 2]
    );
    let redistribute: instance::RedistributeOp = ops_in(body).next().unwrap();
    assert_eq!(
        (redistribute.from(), redistribute.to()),
        (vec![1, 2, 1, 1], vec![1, 1, 2, 1])
    );
    assert!(matches!(
        instance::AnyOp::cast(concat.operation()),
        Some(instance::AnyOp::Concat(_))
    ));
    let inner = first.body().first_block().unwrap();
    assert!(matches!(
        instance::AnyOp::cast(inner.first_operation().unwrap()),
        Some(instance::AnyOp::Slice(_))
    ));
}

#[test]
fn dsa_builders_and_views() {
    let context = turbine_dialects::create_context();
    let location = Location::unknown(&context);
    let module = Module::new(location);
    let a = buffer(&context, &[4, 8], MemorySpace::Lb);
    let b = buffer(&context, &[8, 4], MemorySpace::Lb);
    let c = buffer(&context, &[4, 4], MemorySpace::Lb);
    let d = buffer(&context, &[4, 4], MemorySpace::Ddr);
    let token = turbine_dialects::attributes::dsa::token_type(&context);
    let kernel_type: Type = FunctionType::new(&context, &[a, b, c, d], &[]).into();
    {
        let block = Block::new(&[(a, location), (b, location), (c, location), (d, location)]);
        let matmul = dsa::MatmulOp::cast(
            block.append_operation(
                dsa::MatmulOp::builder(
                    location,
                    token,
                    argument(&block, 0),
                    argument(&block, 1),
                    argument(&block, 2),
                    Vec::<Value>::new(),
                )
                .accumulate(true)
                .build(),
            ),
        )
        .unwrap();
        let clip = dsa::UnaryOp::cast(
            block.append_operation(
                dsa::UnaryOp::builder(
                    location,
                    token,
                    UnaryKind::Clip,
                    argument(&block, 2),
                    argument(&block, 2),
                    [matmul.token()],
                )
                .min(0.0)
                .max(6.0)
                .build(),
            ),
        )
        .unwrap();
        let dma = dsa::DmaOp::cast(
            block.append_operation(
                dsa::DmaOp::builder(
                    location,
                    token,
                    argument(&block, 2),
                    argument(&block, 3),
                    [matmul.token(), clip.token()],
                )
                .build(),
            ),
        )
        .unwrap();
        block.append_operation(dsa::WaitOp::builder(location, [dma.token()]).build());
        block.append_operation(dsa::CoreIdOp::builder(location, Type::index(&context)).build());
        block.append_operation(dsa::ReturnOp::builder(location).build());
        let body = Region::new();
        body.append_block(block);
        module
            .body()
            .append_operation(dsa::KernelOp::builder(location, "tile", kernel_type, body).build());
    }
    add_function(&context, &module, "main", &[a, b, c, d], &[], |block| {
        let args: Vec<Value> = (0..4).map(|index| argument(block, index)).collect();
        block.append_operation(dsa::LaunchOp::builder(location, "tile", args, &[0, 1]).build());
        Vec::new()
    });
    assert!(module.as_operation().verify());
    insta::assert_snapshot!("dsa_ops_built", module.as_operation().to_string());

    // Read back: the kernel, a unit attribute, optional float attributes, variadic tokens.
    let kernel = dsa::KernelOp::cast(module.body().first_operation().unwrap()).unwrap();
    assert_eq!(kernel.sym_name(), "tile");
    assert_eq!(kernel.function_type(), kernel_type);
    assert_eq!(kernel.arg_attrs(), None);
    let body = kernel.body().first_block().unwrap();
    let matmul: dsa::MatmulOp = ops_in(body).next().unwrap();
    assert!(matmul.accumulate());
    assert_eq!(matmul.after().len(), 0);
    let clip: dsa::UnaryOp = ops_in(body).next().unwrap();
    assert_eq!(
        (clip.kind(), clip.min(), clip.max(), clip.scale()),
        (UnaryKind::Clip, Some(0.0), Some(6.0), None)
    );
    assert_eq!(
        clip.after().collect::<Vec<_>>(),
        [Value::from(matmul.token())]
    );
    let dma: dsa::DmaOp = ops_in(body).next().unwrap();
    assert_eq!(dma.after().len(), 2);
    assert_eq!(
        MemorySpace::of_type(dma.target().r#type()),
        Some(MemorySpace::Ddr)
    );
    assert!(dsa::DmaOp::cast(clip.operation()).is_none());
    let main = module
        .body()
        .first_operation()
        .unwrap()
        .next_in_block()
        .unwrap();
    let launch: dsa::LaunchOp = ops_in(main.region(0).unwrap().first_block().unwrap())
        .next()
        .unwrap();
    assert_eq!(
        (launch.kernel(), launch.cores()),
        ("tile".to_string(), vec![0, 1])
    );
    assert_eq!(launch.args().len(), 4);
    assert_eq!(name_of(launch), "dsa.launch");
}
