//! Diagnostic locations read through MLIR's accessors spell what MLIR's printer spells.

use melior::ir::{Attribute, Location};
use turbine_tools::diagnostics::describe;

#[test]
fn locations_read_as_mlir_prints_them() {
    let context = melior::Context::new();
    let file = Location::new(&context, "model.mlir", 7, 8);
    let name = Location::name(&context, "/stem/Conv", Location::unknown(&context));
    assert_eq!(describe(file), "\"model.mlir\":7:8");
    assert_eq!(describe(name), "\"/stem/Conv\"");
    assert_eq!(
        describe(Location::name(&context, "fc", file)),
        "\"fc\"(\"model.mlir\":7:8)"
    );
    assert_eq!(describe(Location::unknown(&context)), "unknown");
    let fused = Location::fused(&context, &[name, file], Attribute::unit(&context));
    assert_eq!(describe(fused), "fused[\"/stem/Conv\", \"model.mlir\":7:8]");
    for location in [file, name] {
        let printed = location.to_string();
        assert_eq!(
            format!("loc({})", describe(location)),
            printed,
            "as MLIR prints it"
        );
    }
}
