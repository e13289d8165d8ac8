//! The loader interface of an ahead-of-time compiled module: per entry, a `td_model_desc`
//! constant describing its buffers (role, element type, shape, the weight's name, the inline
//! constant's bytes) and four functions that hand it to the runtime's model loader:
//! `<prefix>_create(weights_path, target, &model)`, `<prefix>_run(model, inputs, outputs)`,
//! `<prefix>_destroy(model)` and `<prefix>_error_message()`. They are built into the LLVM module
//! with inkwell's typed builders before it is optimised.

use crate::entries::{element_bytes, Entry, EntryBuffer, Role};
use inkwell::{
    context::Context,
    module::{Linkage, Module},
    types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, FunctionType, StructType},
    values::{BasicMetadataValueEnum, BasicValueEnum, PointerValue, StructValue},
    AddressSpace,
};
use turbine_runtime::ffi::{
    TD_ROLE_CONSTANT, TD_ROLE_INPUT, TD_ROLE_OUTPUT, TD_ROLE_SCRATCH, TD_ROLE_WEIGHT,
};
use turbine_runtime::ElementType;

/// The prefix of the loader functions of `entry`: `name` for a module's only entry, otherwise
/// `name` and the entry's name.
fn prefix(name: &str, entry: &Entry, entry_count: usize) -> String {
    if entry_count == 1 {
        name.to_owned()
    } else {
        format!("{name}_{}", entry.name)
    }
}

/// The runtime's element type of buffers of `element`s (as MLIR names them).
pub fn dtype(element: &str) -> ElementType {
    match element {
        "f32" => ElementType::F32,
        "i64" => ElementType::I64,
        "i32" => ElementType::I32,
        "i8" => ElementType::I8,
        "ui8" => ElementType::U8,
        "i1" => ElementType::Bool,
        "f16" => ElementType::F16,
        "bf16" => ElementType::Bf16,
        other => unreachable!("the lowering makes no buffers of {other}"),
    }
}

/// Typed builders over one LLVM module.
struct Builder<'a, 'l> {
    context: &'l Context,
    module: &'a Module<'l>,
}

impl<'l> Builder<'_, 'l> {
    fn pointer(&self) -> inkwell::types::PointerType<'l> {
        self.context.ptr_type(AddressSpace::default())
    }

    /// A private constant global of `value`; returns its address.
    fn constant(&self, name: &str, value: BasicValueEnum<'l>) -> PointerValue<'l> {
        let global = self.module.add_global(value.get_type(), None, name);
        global.set_initializer(&value);
        global.set_constant(true);
        global.set_linkage(Linkage::Private);
        global.set_unnamed_addr(true);
        global.as_pointer_value()
    }

    fn string(&self, name: &str, text: &str) -> PointerValue<'l> {
        let value = self.context.const_string(text.as_bytes(), true);
        self.constant(name, value.into())
    }

    /// `td_model_buffer { role, dtype, index, rank, shape, name, data }` of buffer `position`.
    fn buffer(
        &self,
        r#type: StructType<'l>,
        symbol: &str,
        entry: &Entry,
        position: usize,
    ) -> StructValue<'l> {
        let buffer = &entry.buffers[position];
        let int = self.context.i32_type();
        let null = self.pointer().const_null();
        let what = |field: &str| format!("{symbol}.buffer{position}.{field}");
        let (role, index, name, data) = match &buffer.role {
            Role::Input(index) => (TD_ROLE_INPUT, *index, null, null),
            Role::Output(index) => (TD_ROLE_OUTPUT, *index, null, null),
            Role::Weight(name) => (TD_ROLE_WEIGHT, 0, self.string(&what("name"), name), null),
            Role::Constant(bytes) => {
                let value = self.context.const_string(bytes, false);
                (
                    TD_ROLE_CONSTANT,
                    0,
                    null,
                    self.constant(&what("data"), value.into()),
                )
            }
            Role::Unspecified => (TD_ROLE_SCRATCH, 0, null, null),
        };
        let long = self.context.i64_type();
        let extents: Vec<_> = buffer
            .shape
            .iter()
            .map(|&extent| long.const_int(extent as u64, false))
            .collect();
        let shape = self.constant(&what("shape"), long.const_array(&extents).into());
        r#type.const_named_struct(&[
            int.const_int(u64::from(role), false).into(),
            int.const_int(u64::from(dtype(buffer.element) as u32), false)
                .into(),
            int.const_int(index as u64, false).into(),
            int.const_int(buffer.shape.len() as u64, false).into(),
            shape.into(),
            name.into(),
            data.into(),
        ])
    }

    /// The `td_model_desc` constant of `entry`; returns its address.
    fn descriptor(&self, prefix: &str, entry: &Entry) -> Result<PointerValue<'l>, String> {
        let int: BasicTypeEnum = self.context.i32_type().into();
        let pointer: BasicTypeEnum = self.pointer().into();
        let buffer_type = self
            .context
            .struct_type(&[int, int, int, int, pointer, pointer, pointer], false);
        let symbol = format!("{prefix}.descriptor");
        let buffers: Vec<_> = (0..entry.buffers.len())
            .map(|position| self.buffer(buffer_type, &symbol, entry, position))
            .collect();
        let buffers = self.constant(
            &format!("{symbol}.buffers"),
            buffer_type.const_array(&buffers).into(),
        );
        let function = self
            .module
            .get_function(&entry.name)
            .ok_or_else(|| format!("entry '{}' is not in the LLVM module", entry.name))?;
        let long = self.context.i64_type();
        let descriptor = self.context.const_struct(
            &[
                self.string(&format!("{symbol}.name"), &entry.name).into(),
                function.as_global_value().as_pointer_value().into(),
                long.const_int(entry.buffers.len() as u64, false).into(),
                buffers.into(),
            ],
            false,
        );
        Ok(self.constant(&symbol, descriptor.into()))
    }

    /// The declaration of runtime function `name`, added if the module has none.
    fn runtime(&self, name: &str, r#type: FunctionType<'l>) -> inkwell::values::FunctionValue<'l> {
        self.module.get_function(name).unwrap_or_else(|| {
            self.module
                .add_function(name, r#type, Some(Linkage::External))
        })
    }

    /// Defines `name` of `r#type` as a call of `callee` with `leading` then its own parameters.
    fn forward(
        &self,
        name: &str,
        r#type: FunctionType<'l>,
        callee: &str,
        leading: &[BasicMetadataValueEnum<'l>],
    ) -> Result<(), String> {
        let mut callee_parameters: Vec<BasicMetadataTypeEnum> =
            leading.iter().map(|_| self.pointer().into()).collect();
        callee_parameters.extend(r#type.get_param_types());
        let return_type = r#type
            .get_return_type()
            .expect("the loader functions return a value");
        let callee = self.runtime(callee, return_type.fn_type(&callee_parameters, false));
        if self.module.get_function(name).is_some() {
            return Err(format!(
                "the module already defines '{name}': give the loader another prefix"
            ));
        }
        let function = self
            .module
            .add_function(name, r#type, Some(Linkage::External));
        let builder = self.context.create_builder();
        builder.position_at_end(self.context.append_basic_block(function, "entry"));
        let mut arguments = leading.to_vec();
        arguments.extend(function.get_param_iter().map(BasicMetadataValueEnum::from));
        let error = |error: inkwell::builder::BuilderError| error.to_string();
        let result = builder
            .build_call(callee, &arguments, "result")
            .map_err(error)?
            .try_as_basic_value()
            .basic()
            .expect("the runtime function returns a value");
        builder.build_return(Some(&result)).map_err(error)?;
        Ok(())
    }
}

/// Adds the descriptor and loader functions of every entry of `entries` to `module`, prefixed
/// by `name` (a module's only entry), or by `name`, `_` and the entry's name (several entries).
pub fn add_loaders<'l>(
    context: &'l Context,
    module: &Module<'l>,
    entries: &[Entry],
    name: &str,
) -> Result<(), String> {
    let builder = Builder { context, module };
    let status = context.i32_type();
    let handle = context.i64_type();
    let pointer = builder.pointer();
    for entry in entries {
        let prefix = prefix(name, entry, entries.len());
        let descriptor = builder.descriptor(&prefix, entry)?;
        let create = status.fn_type(&[pointer.into(), pointer.into(), pointer.into()], false);
        builder.forward(
            &format!("{prefix}_create"),
            create,
            "td_model_create",
            &[descriptor.into()],
        )?;
        let run = status.fn_type(&[handle.into(), pointer.into(), pointer.into()], false);
        builder.forward(&format!("{prefix}_run"), run, "td_model_run", &[])?;
        let destroy = status.fn_type(&[handle.into()], false);
        builder.forward(
            &format!("{prefix}_destroy"),
            destroy,
            "td_model_destroy",
            &[],
        )?;
        let message = pointer.fn_type(&[], false);
        builder.forward(
            &format!("{prefix}_error_message"),
            message,
            "td_last_error",
            &[],
        )?;
    }
    Ok(())
}

/// The C declarations of the loader functions of every entry of `entries` (see
/// [`add_loaders`]), with each input's and output's shape, type and size in a comment and in
/// macros (`MODEL_INPUT0_BYTES`).
pub fn loader_header(entries: &[Entry], name: &str) -> String {
    let mut text = String::new();
    for entry in entries {
        let prefix = prefix(name, entry, entries.len());
        let upper = prefix.to_uppercase();
        text.push_str(&format!(
            "\n/* {prefix}: entry {} on a device of its own. inputs[i] and outputs[i] of\n \
             * {prefix}_run point at the bytes of input and output i, native order:\n",
            entry.name
        ));
        let mut macros = String::new();
        for (kind, is_kind) in [("input", true), ("output", false)] {
            let mut buffers: Vec<(usize, &EntryBuffer)> = entry
                .buffers
                .iter()
                .filter_map(|buffer| match buffer.role {
                    Role::Input(index) if is_kind => Some((index, buffer)),
                    Role::Output(index) if !is_kind => Some((index, buffer)),
                    _ => None,
                })
                .collect();
            buffers.sort_by_key(|(index, _)| *index);
            for (index, buffer) in &buffers {
                let shape: Vec<String> = buffer.shape.iter().map(usize::to_string).collect();
                let bytes = buffer.shape.iter().product::<usize>() * element_bytes(buffer.element);
                text.push_str(&format!(
                    " *   {kind}s[{index}]: {} {} ({bytes} bytes)\n",
                    shape.join("x"),
                    buffer.element
                ));
                let kind = kind.to_uppercase();
                macros.push_str(&format!("#define {upper}_{kind}{index}_BYTES {bytes}\n"));
            }
            let kind = kind.to_uppercase();
            macros.push_str(&format!("#define {upper}_{kind}_COUNT {}\n", buffers.len()));
        }
        let weights = entry
            .buffers
            .iter()
            .filter(|buffer| matches!(buffer.role, Role::Weight(_)))
            .count();
        text.push_str(&format!(
            " * {prefix}_create opens a device of `target` (a built-in target or a target file),\n \
             * allocates the buffers and reads the weights ({weights} tensors) from the \
             safetensors\n * file `weights_path` (NULL without weights). Each function returns \
             0 or a TD_ERR_* status;\n * {prefix}_error_message() gives the message of the \
             last failure. */\n\
             {macros}\
             int32_t {prefix}_create(const char *weights_path, const char *target, \
             uint64_t *model);\n\
             int32_t {prefix}_run(uint64_t model, const void *const *inputs, \
             void *const *outputs);\n\
             int32_t {prefix}_destroy(uint64_t model);\n\
             const char *{prefix}_error_message(void);\n"
        ));
    }
    text
}
