//! An SVG picture of a traced run, readable in any image viewer: a time axis in cycles; a lane
//! for the launches (kernels, each its own colour and named where there is room); then per
//! cluster, one lane per compute unit and DMA channel of each core and one per port (DDR port,
//! GB bus). Boxes on those lanes take the colour of their layer, with a legend of the costliest
//! layers. Each lane is drawn one pixel column at a time: a column takes the colour of the layer
//! that kept it busiest, and its opacity says how busy it was; neighbouring columns that look
//! the same are one box. So the file's size depends on the picture, not on the run's length.

use crate::launch::NO_LAYER;
use crate::trace::{Span, Trace, Tracks};
use std::collections::BTreeMap;
use std::fmt::Write;
use turbine_targets::Target;

/// Width of the lane labels and of the plot, in pixels.
const LABEL_WIDTH: f64 = 150.0;
const PLOT_WIDTH: usize = 1400;
/// Height of a lane, of a cluster's title row and of the launches lane.
const LANE_HEIGHT: f64 = 9.0;
const TITLE_HEIGHT: f64 = 14.0;
const LAUNCH_HEIGHT: f64 = 16.0;
/// Where the launches lane starts (below the picture's title).
const TOP: f64 = 34.0;
/// Layers named in the legend, costliest first, and legend entries per row.
const LEGEND_LAYERS: usize = 30;
const LEGEND_COLUMNS: usize = 5;
/// Colour of work attributed to no layer.
const NO_LAYER_COLOUR: &str = "#9e9e9e";

/// Busy cycles per layer colour in one pixel column of a lane.
type Column = Vec<(usize, f64)>;

/// The SVG of `trace`, recorded on `target`, with layers named from `layer_names`.
pub(crate) fn render(
    target: &Target,
    trace: &Trace,
    layer_names: &BTreeMap<u32, String>,
) -> String {
    let tracks = Tracks::new(target);
    let end = trace
        .launches
        .iter()
        .map(|l| l.end)
        .max()
        .unwrap_or(0)
        .max(1);
    let scale = PLOT_WIDTH as f64 / end as f64;
    let layers = Layers::new(&trace.spans);
    let lanes = (target.device.clusters * tracks.count()) as usize;
    let mut columns: Vec<Vec<Column>> = vec![vec![Vec::new(); PLOT_WIDTH]; lanes];
    for span in &trace.spans {
        let lane = (span.cluster * tracks.count() + span.track) as usize;
        add_span(
            &mut columns[lane],
            span,
            layers.colour_index(span.layer),
            scale,
        );
    }
    let plot_height =
        target.device.clusters as f64 * (TITLE_HEIGHT + tracks.count() as f64 * LANE_HEIGHT);
    let legend_top = TOP + LAUNCH_HEIGHT + plot_height + 30.0;
    let legend_rows = layers.legend(layer_names).len().div_ceil(LEGEND_COLUMNS) + 1;
    let width = LABEL_WIDTH + PLOT_WIDTH as f64 + 20.0;
    let height = legend_top + legend_rows as f64 * 14.0 + 10.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"8\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}: {} launches, {end} \
         cycles at {} MHz</text>\n",
        escape(&target.name),
        trace.launches.len(),
        target.clock_mhz
    );
    draw_axis(&mut svg, end, scale, legend_top - 30.0);
    draw_launches(&mut svg, trace, scale);
    let cycles_per_column = end as f64 / PLOT_WIDTH as f64;
    let mut y = TOP + LAUNCH_HEIGHT;
    for cluster in 0..target.device.clusters {
        let _ = writeln!(
            svg,
            "<text class=\"cluster\" x=\"4\" y=\"{}\" font-size=\"11\" \
             font-weight=\"bold\">cluster {cluster}</text>",
            y + TITLE_HEIGHT - 3.0
        );
        y += TITLE_HEIGHT;
        for (track, name) in tracks.names().enumerate() {
            let lane = (cluster * tracks.count()) as usize + track;
            let shade = (track as u32 / tracks.per_core()).is_multiple_of(2);
            draw_lane(
                &mut svg,
                y,
                &name,
                shade,
                &columns[lane],
                cycles_per_column,
                &layers,
            );
            y += LANE_HEIGHT;
        }
    }
    draw_legend(&mut svg, legend_top, &layers.legend(layer_names));
    svg.push_str("</svg>\n");
    svg
}

/// Adds the cycles `span` covers to the pixel columns it falls in.
fn add_span(columns: &mut [Column], span: &Span, colour: usize, scale: f64) {
    let (start, end) = (span.start as f64 * scale, span.end as f64 * scale);
    let first = (start.floor() as usize).min(columns.len() - 1);
    let last = (end.ceil() as usize).clamp(first + 1, columns.len());
    for (x, column) in columns.iter_mut().enumerate().take(last).skip(first) {
        let overlap = (end.min(x as f64 + 1.0) - start.max(x as f64)).max(0.0) / scale;
        match column.iter_mut().find(|(c, _)| *c == colour) {
            Some((_, cycles)) => *cycles += overlap,
            None => column.push((colour, overlap)),
        }
    }
}

/// The colours of the layers, in order of first appearance, so that neighbouring layers differ.
struct Layers {
    /// Layer ids by colour index.
    ids: Vec<u32>,
    index: BTreeMap<u32, usize>,
    /// Busy cycles per colour index.
    busy: Vec<u64>,
}

impl Layers {
    fn new(spans: &[Span]) -> Layers {
        let mut layers = Layers {
            ids: Vec::new(),
            index: BTreeMap::new(),
            busy: Vec::new(),
        };
        for span in spans {
            let next = layers.ids.len();
            let index = *layers.index.entry(span.layer).or_insert(next);
            if index == next {
                layers.ids.push(span.layer);
                layers.busy.push(0);
            }
            layers.busy[index] += span.end - span.start;
        }
        layers
    }

    fn colour_index(&self, layer: u32) -> usize {
        self.index[&layer]
    }

    fn colour(&self, index: usize) -> String {
        if self.ids[index] == NO_LAYER {
            NO_LAYER_COLOUR.to_string()
        } else {
            palette(index)
        }
    }

    /// (colour, name, percentage of all busy cycles) of the costliest layers, costliest first.
    fn legend(&self, names: &BTreeMap<u32, String>) -> Vec<(String, String, f64)> {
        let total = self.busy.iter().sum::<u64>().max(1) as f64;
        let mut order: Vec<usize> = (0..self.ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.busy[i]));
        order
            .into_iter()
            .take(LEGEND_LAYERS)
            .map(|i| {
                let id = self.ids[i];
                let name = match names.get(&id) {
                    Some(name) => name.clone(),
                    None if id == NO_LAYER => "no layer".to_string(),
                    None => format!("layer {id}"),
                };
                (self.colour(i), name, 100.0 * self.busy[i] as f64 / total)
            })
            .collect()
    }
}

/// The `index`-th colour: hues a golden angle apart, so that consecutive ones differ most.
fn palette(index: usize) -> String {
    let hue = (index as f64 * 137.507_764) % 360.0;
    let lightness = [0.45, 0.6, 0.52][index % 3];
    hsl_to_hex(hue, 0.65, lightness)
}

fn hsl_to_hex(hue: f64, saturation: f64, lightness: f64) -> String {
    let chroma = (1.0 - (2.0 * lightness - 1.0).abs()) * saturation;
    let h = hue / 60.0;
    let x = chroma * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = lightness - chroma / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// Text for SVG content and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The time axis: vertical grid lines at round numbers of cycles, labelled above the launches
/// lane and at `bottom`.
fn draw_axis(svg: &mut String, end: u64, scale: f64, bottom: f64) {
    let rough = end as f64 / 10.0;
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * magnitude)
        .max(1.0);
    svg.push_str("<g class=\"axis\" font-size=\"10\" fill=\"#444\">\n");
    let mut tick = 0.0;
    while tick <= end as f64 {
        let x = LABEL_WIDTH + tick * scale;
        let label = cycles_label(tick);
        let _ = writeln!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{bottom}\" stroke=\"#ddd\"/>\
             <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>\
             <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
            TOP - 2.0,
            TOP - 4.0,
            bottom + 12.0
        );
        tick += step;
    }
    let _ = writeln!(
        svg,
        "<text x=\"4\" y=\"{}\">cycles</text></g>",
        bottom + 12.0
    );
}

/// `cycles` with a k, M or G suffix.
fn cycles_label(cycles: f64) -> String {
    match cycles {
        c if c >= 1e9 => format!("{}G", c / 1e9),
        c if c >= 1e6 => format!("{}M", c / 1e6),
        c if c >= 1e3 => format!("{}k", c / 1e3),
        c => format!("{c}"),
    }
}

/// The launches lane: one box per launch (merged below a pixel), named where it is wide enough.
fn draw_launches(svg: &mut String, trace: &Trace, scale: f64) {
    let _ = writeln!(
        svg,
        "<g class=\"launches\"><text x=\"4\" y=\"{}\" font-size=\"10\" \
         font-weight=\"bold\">launches</text>",
        TOP + LAUNCH_HEIGHT - 5.0
    );
    let mut drawn_to = f64::NEG_INFINITY;
    for (index, launch) in trace.launches.iter().enumerate() {
        let x = LABEL_WIDTH + launch.start as f64 * scale;
        let width = (launch.end - launch.start) as f64 * scale;
        if x + width < drawn_to + 1.0 {
            continue;
        }
        drawn_to = x + width.max(1.0);
        let _ = write!(
            svg,
            "<rect x=\"{x:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{}\" fill=\"{}\">\
             <title>{}</title></rect>",
            width.max(1.0),
            LAUNCH_HEIGHT - 2.0,
            palette(index),
            escape(&launch.name)
        );
        let room = (width / 5.5) as usize;
        if room >= 4 {
            let name: String = launch.name.chars().take(room).collect();
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"9\" fill=\"white\">{}</text>",
                x + 2.0,
                TOP + LAUNCH_HEIGHT - 6.0,
                escape(&name)
            );
        }
        svg.push('\n');
    }
    svg.push_str("</g>\n");
}

/// One lane at height `y`: its label, a background (shaded for every other core) and the boxes
/// of its pixel columns.
fn draw_lane(
    svg: &mut String,
    y: f64,
    name: &str,
    shade: bool,
    columns: &[Column],
    cycles_per_column: f64,
    layers: &Layers,
) {
    let background = if shade { "#f3f3f3" } else { "#fbfbfb" };
    let _ = write!(
        svg,
        "<g class=\"lane\"><rect x=\"{LABEL_WIDTH}\" y=\"{y}\" width=\"{PLOT_WIDTH}\" \
         height=\"{LANE_HEIGHT}\" fill=\"{background}\"/><text x=\"4\" y=\"{}\" \
         font-size=\"7.5\">{}</text>",
        y + LANE_HEIGHT - 1.5,
        escape(name)
    );
    let look = |column: &Column| {
        let busy: f64 = column.iter().map(|(_, c)| c).sum();
        let top = column
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(colour, _)| *colour)?;
        let level = ((busy / cycles_per_column) * 3.0).ceil().clamp(1.0, 3.0) as u32;
        Some((top, level))
    };
    let mut x = 0;
    while x < columns.len() {
        let Some(current) = look(&columns[x]) else {
            x += 1;
            continue;
        };
        let start = x;
        while x < columns.len() && look(&columns[x]) == Some(current) {
            x += 1;
        }
        let _ = write!(
            svg,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" \
             fill-opacity=\"{}\"/>",
            LABEL_WIDTH + start as f64,
            y + 0.5,
            x - start,
            LANE_HEIGHT - 1.0,
            layers.colour(current.0),
            [0.4, 0.7, 1.0][current.1 as usize - 1]
        );
    }
    svg.push_str("</g>\n");
}

/// The legend: a swatch and the name of each of `entries`, with its share of the busy cycles,
/// and how to read the opacity.
fn draw_legend(svg: &mut String, top: f64, entries: &[(String, String, f64)]) {
    let _ = writeln!(
        svg,
        "<g class=\"legend\" font-size=\"10\"><text x=\"4\" y=\"{}\" font-weight=\"bold\">\
         Layers by busy cycles (colour); opacity: share of the pixel's time busy</text>",
        top + 10.0
    );
    let column_width = (LABEL_WIDTH + PLOT_WIDTH as f64) / LEGEND_COLUMNS as f64;
    for (i, (colour, name, share)) in entries.iter().enumerate() {
        let x = 4.0 + (i % LEGEND_COLUMNS) as f64 * column_width;
        let y = top + 14.0 * (1 + i / LEGEND_COLUMNS) as f64;
        let label: String = name.chars().take(36).collect();
        let _ = writeln!(
            svg,
            "<rect class=\"swatch\" x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" \
             fill=\"{colour}\"/><text x=\"{}\" y=\"{}\">{} ({:.1}%)</text>",
            y + 2.0,
            x + 14.0,
            y + 11.0,
            escape(&label),
            share
        );
    }
    svg.push_str("</g>\n");
}
