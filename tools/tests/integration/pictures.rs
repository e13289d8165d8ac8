//! The pictures: the schedule's DOT (and its SVG when Graphviz is installed) on a small stitched
//! schedule, and the trace's forms of a run of a small network: the per-layer JSON against the
//! per-instruction JSON, and the SVG timeline.

use crate::layerwise::{random_cnn, random_inputs};
use melior::ir::{operation::OperationLike, Module};
use std::path::Path;
use turbine_interpreter::Program;
use turbine_tools::driver::{self, CompileOptions, Device, TraceFormat};
use turbine_tools::schedule_view;

/// Group g0 split in two instances over slices joined by a concatenation, then a copy and a
/// redistribution into group g1.
const STITCHED: &str = r#"
func.func @moves(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %s0 = instance.slice %x [0, 0] : tensor<4x16xf32> -> tensor<2x16xf32>
  %s1 = instance.slice %x [2, 0] : tensor<4x16xf32> -> tensor<2x16xf32>
  %a0 = instance.instance "g0"[0 of 2 along 0] (%s0) {bind = array<i64: 1, 8>, order = 0 : i64,
      scope = #instance<scope gb>} : (tensor<2x16xf32>) -> tensor<2x16xf32> {
  ^bb0(%p: tensor<2x16xf32>):
    %r = graph.relu %p : tensor<2x16xf32>
    instance.yield %r : tensor<2x16xf32>
  }
  %a1 = instance.instance "g0"[1 of 2 along 0] (%s1) {bind = array<i64: 1, 8>, order = 1 : i64,
      scope = #instance<scope gb>} : (tensor<2x16xf32>) -> tensor<2x16xf32> {
  ^bb0(%p: tensor<2x16xf32>):
    %r = graph.relu %p : tensor<2x16xf32>
    instance.yield %r : tensor<2x16xf32>
  }
  %a = instance.concat %a0, %a1 along 0
      : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<4x16xf32>
  %c = instance.copy %a to lb : tensor<4x16xf32>
  %m = instance.redistribute %c from [1, 8] to [4, 2] : tensor<4x16xf32>
  %b = instance.instance "g1"[0 of 1 along 0] (%m) {bind = array<i64: 4, 2>, order = 2 : i64,
      scope = #instance<scope lb>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %t = graph.tanh %p : tensor<4x16xf32>
    instance.yield %t : tensor<4x16xf32>
  }
  return %b : tensor<4x16xf32>
}
"#;

/// The stitched schedule's nodes: the argument, 2 slices, 3 instances, the concatenation, the
/// copy, the redistribution and the return; one edge per use.
const NODES: usize = 10;
const EDGES: usize = 10;

/// What DOT written by `schedule_view` holds, one statement per line.
#[derive(Default)]
struct DotStructure<'a> {
    subgraphs: Vec<&'a str>,
    /// Node ids with their labels.
    nodes: Vec<(&'a str, &'a str)>,
    edges: Vec<(&'a str, &'a str)>,
}

fn dot_structure(dot: &str) -> DotStructure<'_> {
    let mut structure = DotStructure::default();
    for line in dot.lines() {
        if let Some(id) = line.strip_prefix("subgraph ") {
            structure.subgraphs.push(id.trim_end_matches(" {"));
        } else if let Some((id, label)) = line.split_once(" [label=") {
            structure.nodes.push((id, label));
        } else if let Some((from, to)) = line.strip_suffix(';').and_then(|l| l.split_once(" -> ")) {
            structure.edges.push((from, to));
        }
    }
    structure
}

#[test]
fn the_schedule_dot_boxes_groups_and_draws_every_node_and_use() {
    let context = turbine_dialects::create_context();
    let module = Module::parse(&context, STITCHED).unwrap();
    assert!(module.as_operation().verify());
    let dot = schedule_view::dot(module.as_operation());
    assert!(dot.starts_with("digraph schedule {") && dot.trim_end().ends_with('}'));
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
    let DotStructure {
        subgraphs,
        nodes,
        edges,
    } = dot_structure(&dot);
    let groups = subgraphs
        .iter()
        .filter(|s| s.starts_with("cluster_group"))
        .count();
    assert_eq!((subgraphs.len(), groups), (3, 2), "{dot}");
    assert_eq!((nodes.len(), edges.len()), (NODES, EDGES), "{dot}");
    let label = |text: &str| {
        nodes
            .iter()
            .find(|(_, label)| label.contains(text))
            .unwrap_or_else(|| panic!("no node labelled {text}:\n{dot}"))
            .0
    };
    let (copy, redistribute) = (label("copy to lb"), label("redistribute"));
    let consumer = label("g1 [0 of 1 along 0]\\nbind [4, 2] (8 cores)\\norder 2\\nscope lb");
    assert!(edges.contains(&(copy, redistribute)) && edges.contains(&(redistribute, consumer)));
    // Every edge joins drawn nodes.
    for (from, to) in &edges {
        assert!(nodes.iter().any(|(id, _)| id == from) && nodes.iter().any(|(id, _)| id == to));
    }
}

#[test]
fn an_svg_name_writes_the_dot_beside_it_and_graphviz_renders_it() {
    let context = turbine_dialects::create_context();
    let module = Module::parse(&context, STITCHED).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let svg = folder.path().join("schedule.svg");
    let note = schedule_view::write(module.as_operation(), &svg).unwrap();
    let dot = std::fs::read_to_string(folder.path().join("schedule.dot")).unwrap();
    assert_eq!(dot, schedule_view::dot(module.as_operation()));
    let graphviz = std::process::Command::new("dot").arg("-V").output().is_ok();
    if !graphviz {
        assert!(note.unwrap().contains("not installed"));
        return;
    }
    assert_eq!(note, None);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.contains("<svg") && picture.trim_end().ends_with("</svg>"));
    assert_eq!(picture.matches("class=\"cluster\"").count(), 3);
    assert_eq!(picture.matches("class=\"node\"").count(), NODES);
    assert_eq!(picture.matches("class=\"edge\"").count(), EDGES);
}

#[test]
fn a_schedule_picture_of_another_kind_or_in_a_missing_folder_is_an_error() {
    let context = turbine_dialects::create_context();
    let module = Module::parse(&context, STITCHED).unwrap();
    let error = schedule_view::write(module.as_operation(), Path::new("x.png")).unwrap_err();
    assert!(error.contains(".svg or .dot"), "{error}");
    let missing = Path::new("/nonexistent-folder/x.dot");
    let error = schedule_view::write(module.as_operation(), missing).unwrap_err();
    assert!(error.starts_with("/nonexistent-folder/x.dot: "), "{error}");
}

#[test]
fn a_runs_layer_trace_is_smaller_than_its_instruction_trace_and_its_timeline_has_every_lane() {
    let (source, weights) = random_cnn(3);
    let context = turbine_dialects::create_context();
    let module = Module::parse(&context, &source).unwrap();
    // SAFETY: the module is verified and outlives the program.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
    let inputs = random_inputs(&program, 3);
    let options = CompileOptions {
        target: "mini".into(),
        schedule: "graphturbo".into(),
        ..CompileOptions::default()
    };
    let compiled = driver::compile(&context, module, None, &options).unwrap();
    let device = Device::new("mini").unwrap();
    device.enable_trace().unwrap();
    driver::run(&compiled, &device, &inputs, &weights).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let write = |name: &str, format| {
        let path = folder.path().join(name);
        device.write_trace(&path, format).unwrap();
        std::fs::read_to_string(path).unwrap()
    };
    let complete = |json: &str| {
        let trace: serde_json::Value = serde_json::from_str(json).unwrap();
        let events = trace["traceEvents"].as_array().unwrap().clone();
        events.iter().filter(|e| e["ph"] == "X").count()
    };
    let layers = write("layers.json", TraceFormat::Layers);
    let instructions = write("instructions.json", TraceFormat::Instructions);
    assert!(
        complete(&layers) < complete(&instructions) && layers.len() < instructions.len(),
        "{} events in {} bytes per layer, {} in {} per instruction",
        complete(&layers),
        layers.len(),
        complete(&instructions),
        instructions.len()
    );
    let svg = write("timeline.svg", TraceFormat::TimelineSvg);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // mini: 2 clusters x (2 cores x (3 units + 2 DMA channels) + 2 ports).
    assert_eq!(svg.matches("<g class=\"lane\">").count(), 2 * (2 * 5 + 2));
    assert_eq!(svg.matches("<g class=\"legend\"").count(), 1);
    assert!(
        svg.matches("class=\"swatch\"").count() >= 2,
        "layers in the legend"
    );
    let error = device
        .write_trace(
            Path::new("/nonexistent-folder/t.svg"),
            TraceFormat::TimelineSvg,
        )
        .unwrap_err();
    assert!(error.contains("/nonexistent-folder/t.svg"), "{error}");
}
