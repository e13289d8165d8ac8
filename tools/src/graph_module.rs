//! Builds a graph-dialect module from the importer's typed operation records
//! ([`turbine_onnx::emit`]) with MLIR's builders: ONNX models and the built-in models reach
//! verified IR without MLIR text being written or parsed. Each operation is located at the name
//! its record carries (the ONNX node, or the layer of a built-in model), so a verifier error names
//! the layer.

use melior::dialect::func;
use melior::ir::attribute::{
    ArrayAttribute, AttributeLike, BoolAttribute, DenseI64ArrayAttribute, DictionaryAttribute,
    FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::operation::{OperationBuilder, OperationLike, OperationMutLike};
use melior::ir::r#type::{FunctionType, IntegerType, RankedTensorType, TypeLike};
use melior::ir::{
    Attribute, Block, BlockLike, BlockRef, Identifier, Location, Module, Region, RegionLike, Type,
    Value,
};
use melior::Context;
use mlir_sys::*;
use turbine_dialects::attributes::graph::{
    Activation, ComparePredicate, NearestRounding, PadMode, ResizeCoordinates, ResizeMode,
    ScatterReduction,
};
use turbine_dialects::attributes::EnumAttribute;
use turbine_onnx::emit::{self, GraphModule, ValueRef};
use turbine_onnx::tensor::Data;
use turbine_onnx::types::{ElementType, TensorType};

/// Builds `model` as a module in `context` and verifies it. An error means the records do not
/// form valid IR — a bug of whoever recorded them; the verifier's diagnostics, located at the
/// offending layer, have gone to the context's diagnostic handlers.
pub fn build<'c>(context: &'c Context, model: &GraphModule) -> Result<Module<'c>, String> {
    let location = named(context, &model.location);
    let mut module = Module::new(location);
    if let Some(file) = &model.weights_file {
        module
            .as_operation_mut()
            .set_discardable_attribute("graph.weights", StringAttribute::new(context, file).into());
    }
    let inputs: Vec<Type> = model
        .inputs
        .iter()
        .map(|input| tensor_type(context, &input.ty))
        .collect();
    let outputs: Vec<Type> = model
        .outputs
        .iter()
        .map(|output| tensor_type(context, &output.ty))
        .collect();
    let arguments: Vec<(Type, Location)> = inputs
        .iter()
        .zip(&model.inputs)
        .map(|(&ty, input)| (ty, named(context, &input.name)))
        .collect();
    let region = Region::new();
    let block = region.append_block(Block::new(&arguments));
    append_body(context, block, model)?;
    let mut attributes = Vec::new();
    for (key, signature) in [("arg_attrs", &model.inputs), ("res_attrs", &model.outputs)] {
        if !signature.is_empty() {
            let names: Vec<Attribute> = signature
                .iter()
                .map(|value| name_dictionary(context, &value.name))
                .collect();
            attributes.push((
                Identifier::new(context, key),
                ArrayAttribute::new(context, &names).into(),
            ));
        }
    }
    let function_type = FunctionType::new(context, &inputs, &outputs);
    let function = func::func(
        context,
        StringAttribute::new(context, "main"),
        TypeAttribute::new(function_type.into()),
        region,
        &attributes,
        location,
    );
    module.body().append_operation(function);
    if !module.as_operation().verify() {
        return Err(format!(
            "the module built for '{}' does not verify",
            model.location
        ));
    }
    Ok(module)
}

/// The regions of the function's control flow while they are filled: each one's region and
/// block, until the operation holding it takes the region.
struct Regions {
    regions: Vec<Option<MlirRegion>>,
    blocks: Vec<MlirBlock>,
}

impl Regions {
    /// A region with one block per record of `model`.
    fn new(context: &Context, model: &GraphModule) -> Self {
        let mut regions = Vec::new();
        let mut blocks = Vec::new();
        for record in model.body.regions() {
            let types: Vec<MlirType> = record
                .arguments
                .iter()
                .map(|ty| tensor_type(context, ty).to_raw())
                .collect();
            let location = Location::unknown(context).to_raw();
            let locations = vec![location; types.len()];
            // SAFETY: the block is handed to the region, which owns it until an operation takes
            // the region (or `Drop` destroys it).
            unsafe {
                let block =
                    mlirBlockCreate(types.len() as isize, types.as_ptr(), locations.as_ptr());
                let region = mlirRegionCreate();
                mlirRegionAppendOwnedBlock(region, block);
                regions.push(Some(region));
                blocks.push(block);
            }
        }
        Self { regions, blocks }
    }

    /// Region `index`, taken by the operation that holds it (once).
    fn take(&mut self, index: usize) -> Option<MlirRegion> {
        self.regions.get_mut(index)?.take()
    }
}

impl Drop for Regions {
    fn drop(&mut self) {
        for region in self.regions.iter().flatten() {
            // SAFETY: a region no operation took is still ours (an error stopped the build).
            unsafe { mlirRegionDestroy(*region) };
        }
    }
}

/// Appends the operations of `model` to `block`, the entry block of `@main`, and those of its
/// regions to theirs.
fn append_body<'c>(
    context: &'c Context,
    block: BlockRef<'c, '_>,
    model: &GraphModule,
) -> Result<(), String> {
    let mut regions = Regions::new(context, model);
    let mut results: Vec<Vec<Value>> = Vec::with_capacity(model.body.ops().len());
    for (index, op) in model.body.ops().iter().enumerate() {
        let problem = |message: String| {
            format!(
                "operation {index} ('{}' at '{}'): {message}",
                op.name, op.location
            )
        };
        let operands = op
            .operands
            .iter()
            .map(|reference| {
                operand(block, &regions, &results, *reference).ok_or_else(|| {
                    problem(format!("operand {reference:?} is not defined before it"))
                })
            })
            .collect::<Result<Vec<Value>, String>>()?;
        let attributes = op
            .attributes
            .iter()
            .map(|(key, value)| {
                Ok((
                    Identifier::new(context, key),
                    attribute(context, value).map_err(&problem)?,
                ))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let result_types: Vec<Type> = op
            .results
            .iter()
            .map(|ty| tensor_type(context, ty))
            .collect();
        let held = op
            .regions
            .iter()
            .map(|&region| {
                regions
                    .take(region)
                    .ok_or_else(|| problem(format!("region {region} is held twice or missing")))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let built = OperationBuilder::new(&op.name, named(context, &op.location))
            .add_operands(&operands)
            .add_attributes(&attributes)
            .add_results(&result_types)
            .add_regions_vec(held.iter().map(|_| Region::new()).collect())
            .build()
            .map_err(|error| problem(error.to_string()))?;
        for (position, region) in held.into_iter().enumerate() {
            // SAFETY: the op was built with one empty region per held region; each held region
            // gives its block to it and, empty, is destroyed.
            unsafe {
                mlirRegionTakeBody(
                    mlirOperationGetRegion(built.to_raw(), position as isize),
                    region,
                );
                mlirRegionDestroy(region);
            }
        }
        let target = match op.parent {
            None => block,
            // SAFETY: the region's block is alive: its region is in `regions` or already in the
            // operation that took it, and so in the module.
            Some(region) => unsafe { BlockRef::from_raw(regions.blocks[region]) },
        };
        let appended = target.append_operation(built);
        results.push(appended.results().map(Value::from).collect());
    }
    Ok(())
}

/// The value `reference` names: an argument of `@main` (whose entry block is `block`) or of a
/// region's block, or a result of an operation already built.
fn operand<'c, 'a>(
    block: BlockRef<'c, 'a>,
    regions: &Regions,
    results: &[Vec<Value<'c, 'a>>],
    reference: ValueRef,
) -> Option<Value<'c, 'a>> {
    match reference {
        ValueRef::Argument(argument) => block.argument(argument).map(Value::from).ok(),
        ValueRef::Result { op, index } => results
            .get(op)
            .and_then(|values| values.get(index))
            .copied(),
        ValueRef::RegionArgument { region, index } => {
            let raw = *regions.blocks.get(region)?;
            // SAFETY: the block is alive (see `append_body`), and the index is checked.
            unsafe {
                (index < mlirBlockGetNumArguments(raw) as usize)
                    .then(|| Value::from_raw(mlirBlockGetArgument(raw, index as isize)))
            }
        }
    }
}

/// `loc("name")`.
fn named<'c>(context: &'c Context, name: &str) -> Location<'c> {
    Location::name(context, name, Location::unknown(context))
}

/// `{graph.name = "name"}`, the attributes of a function argument or result.
fn name_dictionary<'c>(context: &'c Context, name: &str) -> Attribute<'c> {
    let entry = (
        Identifier::new(context, "graph.name"),
        StringAttribute::new(context, name).into(),
    );
    DictionaryAttribute::new(context, &[entry]).into()
}

fn element_type(context: &Context, element: ElementType) -> Type<'_> {
    match element {
        ElementType::F32 => Type::float32(context),
        ElementType::I32 => IntegerType::new(context, 32).into(),
        ElementType::I64 => IntegerType::new(context, 64).into(),
        ElementType::Bool => IntegerType::new(context, 1).into(),
        ElementType::F16 => Type::float16(context),
        ElementType::Bf16 => Type::bfloat16(context),
        ElementType::I8 => IntegerType::new(context, 8).into(),
        ElementType::U8 => IntegerType::unsigned(context, 8).into(),
    }
}

fn tensor_type<'c>(context: &'c Context, ty: &TensorType) -> Type<'c> {
    let dimensions: Vec<u64> = ty.shape.iter().map(|&dimension| dimension as u64).collect();
    RankedTensorType::new(&dimensions, element_type(context, ty.element), None).into()
}

fn attribute<'c>(context: &'c Context, value: &emit::Attribute) -> Result<Attribute<'c>, String> {
    Ok(match value {
        emit::Attribute::Int(value) => {
            IntegerAttribute::new(IntegerType::new(context, 64).into(), *value).into()
        }
        emit::Attribute::Float(value) => {
            FloatAttribute::new(context, Type::float32(context), f64::from(*value)).into()
        }
        emit::Attribute::Bool(value) => BoolAttribute::new(context, *value).into(),
        emit::Attribute::Ints(values) => DenseI64ArrayAttribute::new(context, values).into(),
        emit::Attribute::Floats(values) => {
            // SAFETY: the context is alive and MLIR copies the elements.
            unsafe {
                Attribute::from_raw(mlir_sys::mlirDenseF32ArrayGet(
                    context.to_raw(),
                    values.len() as isize,
                    values.as_ptr(),
                ))
            }
        }
        emit::Attribute::Str(text) => StringAttribute::new(context, text).into(),
        emit::Attribute::Enum(mnemonic, keyword) => graph_enum(context, mnemonic, keyword)
            .ok_or_else(|| {
                format!("#graph<{mnemonic} {keyword}> is not a case of the graph dialect")
            })?,
        emit::Attribute::Dense { ty, data } => dense(context, ty, data)?,
    })
}

/// The graph dialect's enumeration attribute with `mnemonic` and case `keyword`.
fn graph_enum<'c>(context: &'c Context, mnemonic: &str, keyword: &str) -> Option<Attribute<'c>> {
    fn case<'c, E: EnumAttribute>(context: &'c Context, keyword: &str) -> Option<Attribute<'c>> {
        E::from_keyword(keyword).map(|case| case.attribute(context))
    }
    match mnemonic {
        "activation" => case::<Activation>(context, keyword),
        "pad_mode" => case::<PadMode>(context, keyword),
        "resize_mode" => case::<ResizeMode>(context, keyword),
        "resize_coordinates" => case::<ResizeCoordinates>(context, keyword),
        "nearest_rounding" => case::<NearestRounding>(context, keyword),
        "predicate" => case::<ComparePredicate>(context, keyword),
        "reduction" => case::<ScatterReduction>(context, keyword),
        _ => None,
    }
}

/// Dense elements of `ty`: every element, or a splat of the one `data` holds.
fn dense<'c>(context: &'c Context, ty: &TensorType, data: &Data) -> Result<Attribute<'c>, String> {
    let count = ty.shape.iter().product::<usize>();
    let splat = data.len() == 1 && count != 1;
    if !splat && data.len() != count {
        return Err(format!(
            "{} elements for a tensor of shape {:?}",
            data.len(),
            ty.shape
        ));
    }
    if data.element() != ty.element {
        return Err(format!(
            "{:?} elements for a tensor of {}",
            data.element(),
            ty.element
        ));
    }
    let shaped = tensor_type(context, ty).to_raw();
    let length = data.len() as isize;
    let float = |value: f64| FloatAttribute::new(context, element_type(context, ty.element), value);
    // SAFETY: `shaped` is a ranked tensor type of the context with `count` elements, and the
    // pointers cover `length` elements of its element type (checked above); MLIR copies them.
    let raw = unsafe {
        use mlir_sys::*;
        match data {
            Data::F32(values) if splat => mlirDenseElementsAttrFloatSplatGet(shaped, values[0]),
            Data::F32(values) => mlirDenseElementsAttrFloatGet(shaped, length, values.as_ptr()),
            Data::I32(values) if splat => mlirDenseElementsAttrInt32SplatGet(shaped, values[0]),
            Data::I32(values) => mlirDenseElementsAttrInt32Get(shaped, length, values.as_ptr()),
            Data::I64(values) if splat => mlirDenseElementsAttrInt64SplatGet(shaped, values[0]),
            Data::I64(values) => mlirDenseElementsAttrInt64Get(shaped, length, values.as_ptr()),
            Data::Bool(values) if splat => mlirDenseElementsAttrBoolSplatGet(shaped, values[0]),
            Data::Bool(values) => {
                let bits: Vec<std::ffi::c_int> = values.iter().map(|&value| value.into()).collect();
                mlirDenseElementsAttrBoolGet(shaped, length, bits.as_ptr())
            }
            // An f16 or bf16 attribute holds the value exactly: it is one of the type's values.
            Data::F16(values) if splat => {
                mlirDenseElementsAttrSplatGet(shaped, float(values[0].into()).to_raw())
            }
            Data::F16(values) => {
                let bits: Vec<u16> = values.iter().map(|value| value.to_bits()).collect();
                mlirDenseElementsAttrFloat16Get(shaped, length, bits.as_ptr())
            }
            Data::Bf16(values) if splat => {
                mlirDenseElementsAttrSplatGet(shaped, float(values[0].into()).to_raw())
            }
            Data::Bf16(values) => {
                let bits: Vec<u16> = values.iter().map(|value| value.to_bits()).collect();
                mlirDenseElementsAttrBFloat16Get(shaped, length, bits.as_ptr())
            }
            Data::I8(values) if splat => mlirDenseElementsAttrInt8SplatGet(shaped, values[0]),
            Data::I8(values) => mlirDenseElementsAttrInt8Get(shaped, length, values.as_ptr()),
            Data::U8(values) if splat => mlirDenseElementsAttrUInt8SplatGet(shaped, values[0]),
            Data::U8(values) => mlirDenseElementsAttrUInt8Get(shaped, length, values.as_ptr()),
        }
    };
    // SAFETY: the C API returned a valid attribute of the context.
    Ok(unsafe { Attribute::from_raw(raw) })
}
