//! The trace's forms: per-layer JSON against per-instruction JSON, and the SVG timeline.

use serde_json::Value;
use turbine_runtime::{
    CoreId, Device, Instr, Placement, Target, Token, TraceFormat, UnaryOp, View,
};

const C00: CoreId = CoreId::new(0, 0);
const C01: CoreId = CoreId::new(0, 1);

/// A device of `mini` that ran two launches whose instructions belong to the layers `load`
/// and `relu` (and, for the first instruction of core (0,0), to none), traced.
fn traced() -> Device {
    let mut dev = Device::new(Target::builtin("mini").unwrap());
    dev.set_tracing(true);
    dev.name_layer(0, "load");
    dev.name_layer(1, "relu");
    let src = dev.alloc(Placement::Ddr, 4096).unwrap();
    for name in ["first", "second"] {
        dev.launch_begin(name, &[C00, C01]).unwrap();
        for core in [C00, C01] {
            let lb = dev.alloc(Placement::Lb(core), 4096).unwrap();
            let view = |b| View::contiguous(b, 0, &[256]);
            let dma = Instr::Dma {
                src: view(src),
                dst: view(lb),
            };
            let mut last: Token = dev.enqueue(core, dma.clone(), &[]).unwrap();
            dev.set_layer(core, 0).unwrap();
            for _ in 0..3 {
                last = dev.enqueue(core, dma.clone(), &[last]).unwrap();
            }
            dev.set_layer(core, 1).unwrap();
            for _ in 0..4 {
                let relu = Instr::Unary {
                    op: UnaryOp::Relu,
                    input: view(lb),
                    out: view(lb),
                };
                last = dev.enqueue(core, relu, &[last]).unwrap();
            }
        }
        dev.launch_end().unwrap();
    }
    dev
}

/// The complete events of the trace in `format`, but the launches.
fn events(dev: &Device, format: TraceFormat) -> Vec<Value> {
    let trace: Value = serde_json::from_str(&dev.trace_text(format).unwrap()).unwrap();
    trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] != "launch")
        .cloned()
        .collect()
}

fn number(event: &Value, field: &str) -> u64 {
    event["args"][field].as_u64().unwrap()
}

#[test]
fn the_layer_trace_has_one_event_per_run_of_a_layer_on_a_track() {
    let dev = traced();
    let instructions = events(&dev, TraceFormat::Instructions);
    let layers = events(&dev, TraceFormat::Layers);
    // The runs of equal (launch, layer) among each track's instructions in time order.
    let mut ordered: Vec<&Value> = instructions.iter().collect();
    ordered.sort_by_key(|e| {
        (
            e["pid"].as_u64(),
            e["tid"].as_u64(),
            e["args"]["launch"].as_str().map(String::from),
            number(e, "start_cycle"),
        )
    });
    let key = |e: &Value| {
        (
            e["pid"].as_u64(),
            e["tid"].as_u64(),
            e["args"]["launch"].clone(),
            e["args"]["layer"].clone(),
        )
    };
    let runs = ordered.chunk_by(|a, b| key(a) == key(b)).count();
    assert_eq!(layers.len(), runs);
    assert!(layers.len() < instructions.len());
    let total = |events: &[Value], field| events.iter().map(|e| number(e, field)).sum::<u64>();
    assert_eq!(total(&layers, "instructions"), instructions.len() as u64);
    let busy: u64 = instructions
        .iter()
        .map(|e| number(e, "end_cycle") - number(e, "start_cycle"))
        .sum();
    assert_eq!(total(&layers, "busy_cycles"), busy);
    let bytes = |events: &[Value]| {
        events
            .iter()
            .filter(|e| e["cat"] == "dma")
            .map(|e| number(e, "bytes"))
            .sum::<u64>()
    };
    assert_eq!(bytes(&layers), bytes(&instructions));
    for event in &layers {
        let expected = event["args"]["layer"]
            .as_str()
            .or(event["args"]["launch"].as_str());
        assert_eq!(event["name"].as_str(), expected, "{event}");
        assert!(
            number(event, "busy_cycles")
                <= number(event, "end_cycle") - number(event, "start_cycle")
        );
    }
}

#[test]
fn the_timeline_has_a_lane_per_unit_channel_and_port_and_a_legend_of_the_layers() {
    let dev = traced();
    let svg = dev.trace_text(TraceFormat::TimelineSvg).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<g").count(), svg.matches("</g>").count());
    // 2 clusters x (2 cores x (3 units + 2 channels) + 2 ports).
    assert_eq!(svg.matches("<g class=\"lane\">").count(), 2 * (2 * 5 + 2));
    assert!(svg.contains(">core 1 matrix_engine#2<") && svg.contains(">gb bus<"));
    assert!(svg.contains("<title>first</title>") && svg.contains("<title>second</title>"));
    let legend = &svg[svg.find("<g class=\"legend\"").unwrap()..];
    for layer in ["load", "relu", "no layer"] {
        assert!(
            legend.contains(&format!(">{layer} (")),
            "{layer} is not in the legend"
        );
    }
    assert_eq!(legend.matches("class=\"swatch\"").count(), 3);
}

#[test]
fn a_trace_written_while_tracing_is_off_is_an_error() {
    let dev = Device::new(Target::builtin("mini").unwrap());
    let error = dev
        .write_trace("/nonexistent/t.svg", TraceFormat::TimelineSvg)
        .unwrap_err();
    assert!(error.to_string().contains("tracing is off"), "{error}");
    let dev = traced();
    let error = dev
        .write_trace("/nonexistent/t.svg", TraceFormat::TimelineSvg)
        .unwrap_err();
    assert!(error.to_string().contains("/nonexistent/t.svg"), "{error}");
}
