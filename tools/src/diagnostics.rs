//! How the tools name the location of a diagnostic: read through MLIR's location accessors, in
//! the spelling of MLIR's own printer without the `loc(...)` around it — `"model.mlir":7:8` for a
//! place in a file, `"/layer1/Conv"` for the ONNX node an op comes from.

use melior::ir::Location;

/// `location` as a diagnostic prefix.
pub fn describe(location: Location) -> String {
    if location.is_file_line_col_range() {
        let file = location.file_line_col_range_filename();
        return format!(
            "\"{}\":{}:{}",
            file.as_string_ref().as_str().unwrap_or("?"),
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column()
        );
    }
    if location.is_name() {
        let name = location.name_value();
        let name = format!("\"{}\"", name.as_string_ref().as_str().unwrap_or("?"));
        let child = location.name_child_location();
        // SAFETY: the location is alive, so is its context.
        let unknown = unsafe {
            mlir_sys::mlirLocationUnknownGet(mlir_sys::mlirLocationGetContext(child.to_raw()))
        };
        // SAFETY: the C API returned a valid location of that context.
        return if child == unsafe { Location::from_raw(unknown) } {
            name
        } else {
            format!("{name}({})", describe(child))
        };
    }
    if location.is_call_site() {
        return format!(
            "callsite({} at {})",
            describe(location.call_site_callee()),
            describe(location.call_site_caller())
        );
    }
    if location.is_fused() {
        let parts: Vec<String> = (0..location.fused_num_locations())
            .map(|index| describe(location.fused_location(index)))
            .collect();
        return format!("fused[{}]", parts.join(", "));
    }
    "unknown".into()
}
