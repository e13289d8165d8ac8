//! AFL++ target: [`turbine_tools::fuzzing::ir`]. The `fuzz!` loop runs it in persistent mode
//! with a panic hook that aborts, so a panic is reported as a crash even where the code under
//! test catches it.

fn main() {
    afl::fuzz!(|data: &[u8]| turbine_tools::fuzzing::ir(data));
}
