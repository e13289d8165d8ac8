//! The picture of a module's schedule (`turbine-opt --view-schedule=FILE`), as Graphviz DOT: a
//! box per function; in it a node per op of the function's body, with the instances of one
//! group boxed together under the group's name, each labelled with its slice, its binding to
//! cores, its order, its memory scope and the ops it computes; a dashed box per
//! `instance.clusters` around the program each cluster runs; copies, redistributions,
//! concatenations and slices as nodes of their own shape and colour; and an edge per use of a
//! value. Weights are left out: they are read where they are used. Instances are filled by
//! scope (local buffer green, global buffer blue, DDR orange).
//!
//! The IR is read through the ops' typed views; a value is known by its handle, so that the
//! producer of each operand is found without names.

use melior::ir::attribute::StringAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, OperationRef, RegionLike, Value, ValueLike};
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use turbine_dialects::attributes::instance::Scope;
use turbine_dialects::ops::instance::{
    self, ClustersOp, ConcatOp, CopyOp, GroupOp, InstanceOp, RedistributeOp, SliceOp,
};
use turbine_dialects::ops::{graph, upstream, OpKind};

/// Kinds of body op named in an instance's or a group's label; more are counted.
const LISTED_BODY_KINDS: usize = 5;

/// The DOT text of `module`'s schedule.
pub fn dot(module: OperationRef) -> String {
    let mut drawing = Drawing::default();
    drawing.out.push_str(
        "digraph schedule {\n\
         rankdir=TB;\n\
         graph [fontname=\"sans-serif\", fontsize=11, labelloc=b, label=\"instances filled by \
         scope: lb green, gb blue, ddr orange; copies yellow, redistributions pink, \
         concatenations and slices grey\"];\n\
         node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"sans-serif\", \
         fontsize=10];\n\
         edge [color=\"#555555\"];\n",
    );
    for region in module.regions() {
        let mut block = region.first_block();
        while let Some(current) = block {
            drawing.functions(current);
            block = current.next_in_region();
        }
    }
    drawing.out.push_str("}\n");
    drawing.out
}

/// Writes the picture of `module` for `path`: DOT to `path` when it ends in `.dot`; when it
/// ends in `.svg`, DOT next to it (the same name ending in `.dot`) and the SVG that Graphviz's
/// `dot` renders from it. Returns a note for the user when `dot` is not installed (the DOT is
/// written all the same).
pub fn write(module: OperationRef, path: &Path) -> Result<Option<String>, String> {
    let extension = path.extension().and_then(|e| e.to_str());
    let dot_path = match extension {
        Some("dot") => path.to_path_buf(),
        Some("svg") => path.with_extension("dot"),
        _ => {
            return Err(format!(
                "{}: the schedule's picture is written as .svg or .dot",
                path.display()
            ))
        }
    };
    std::fs::write(&dot_path, dot(module))
        .map_err(|error| format!("{}: {error}", dot_path.display()))?;
    if extension == Some("dot") {
        return Ok(None);
    }
    render_svg(&dot_path, path)
}

/// Runs Graphviz's `dot` to render `dot_path` as the SVG `svg_path`.
fn render_svg(dot_path: &Path, svg_path: &Path) -> Result<Option<String>, String> {
    let outcome = std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg(dot_path)
        .arg("-o")
        .arg(svg_path)
        .output();
    match outcome {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Some(format!(
            "Graphviz's `dot` is not installed: wrote {} only (the graphviz package renders it: \
             dot -Tsvg {} -o {})",
            dot_path.display(),
            dot_path.display(),
            svg_path.display()
        ))),
        Err(error) => Err(format!("cannot run Graphviz's `dot`: {error}")),
        Ok(output) if !output.status.success() => Err(format!(
            "Graphviz's `dot` failed on {}: {}",
            dot_path.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Ok(_) => Ok(None),
    }
}

/// The DOT being written and what it knows of the values drawn so far.
#[derive(Default)]
struct Drawing {
    out: String,
    /// Node or subgraph ids handed out.
    next_id: usize,
    /// The node that produces each value, by the value's handle.
    producers: HashMap<usize, String>,
}

/// How a node looks.
struct Node {
    label: String,
    fill: &'static str,
    shape: &'static str,
    /// The group whose box holds it.
    group: Option<String>,
}

fn handle(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// `text` as a quoted DOT string, line breaks kept.
fn quoted(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    format!("\"{escaped}\"")
}

impl Drawing {
    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    /// A box per function among the ops of `block` (a module's body).
    fn functions(&mut self, block: BlockRef) {
        let mut op = block.first_operation();
        while let Some(function) = op {
            op = function.next_in_block();
            let Some(body) = function.first_region().and_then(|r| r.first_block()) else {
                continue;
            };
            let name = function
                .attribute("sym_name")
                .ok()
                .and_then(|name| StringAttribute::try_from(name).ok())
                .map(|name| name.value().to_owned())
                .unwrap_or_else(|| op_name(function));
            let id = self.id("cluster_function");
            let _ = writeln!(
                self.out,
                "subgraph {id} {{\nlabel={};\nlabelloc=t;",
                quoted(&format!("@{name}"))
            );
            for index in 0..body.argument_count() {
                let Ok(argument) = body.argument(index) else {
                    continue;
                };
                let node = self.id("n");
                let label = format!("%arg{index}\n{}", argument.r#type());
                let _ = writeln!(
                    self.out,
                    "{node} [label={}, shape=ellipse, fillcolor=\"#eeeeee\"];",
                    quoted(&label)
                );
                self.producers.insert(handle(argument.into()), node);
            }
            self.block(body);
            self.out.push_str("}\n");
        }
    }

    /// The ops of `block`, the instances and groups boxed per group.
    fn block(&mut self, block: BlockRef) {
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            if let Some(clusters) = ClustersOp::cast(current) {
                self.clusters(clusters);
                continue;
            }
            let Some(node) = describe(current) else {
                continue;
            };
            let id = self.id("n");
            let line = format!(
                "{id} [label={}, shape={}, fillcolor=\"{}\"];",
                quoted(&node.label),
                node.shape,
                node.fill
            );
            for operand in current.operands() {
                if let Some(source) = self.producers.get(&handle(operand)) {
                    let _ = writeln!(self.out, "{source} -> {id};");
                }
            }
            for result in current.results() {
                self.producers.insert(handle(result.into()), id.clone());
            }
            match node.group {
                Some(group) => match groups.iter_mut().find(|(name, _)| *name == group) {
                    Some((_, lines)) => lines.push(line),
                    None => groups.push((group, vec![line])),
                },
                None => {
                    self.out.push_str(&line);
                    self.out.push('\n');
                }
            }
        }
        for (group, lines) in groups {
            let id = self.id("cluster_group");
            let _ = writeln!(
                self.out,
                "subgraph {id} {{\nlabel={};\nlabelloc=t;\nstyle=filled;\n\
                 fillcolor=\"#f4f4f4\";\n{}\n}}",
                quoted(&format!("group {group}")),
                lines.join("\n")
            );
        }
    }

    /// A dashed box around the program of an `instance.clusters`; its body's arguments are the
    /// op's inputs and its results what the body yields, so that edges cross the box.
    fn clusters(&mut self, clusters: ClustersOp) {
        let Some(body) = clusters.body().first_block() else {
            return;
        };
        for (index, input) in clusters.inputs().enumerate() {
            let source = self.producers.get(&handle(input)).cloned();
            if let (Ok(argument), Some(source)) = (body.argument(index), source) {
                self.producers.insert(handle(argument.into()), source);
            }
        }
        let id = self.id("cluster_clusters");
        let label = format!(
            "instance.clusters: {} clusters, inputs split along {:?}, results along {:?}",
            clusters.count(),
            clusters.input_dims(),
            clusters.result_dims()
        );
        let _ = writeln!(
            self.out,
            "subgraph {id} {{\nlabel={};\nlabelloc=t;\nstyle=dashed;",
            quoted(&label)
        );
        self.block(body);
        self.out.push_str("}\n");
        let Some(terminator) = body.terminator() else {
            return;
        };
        for (result, value) in clusters.results().zip(terminator.operands()) {
            if let Some(source) = self.producers.get(&handle(value)).cloned() {
                self.producers.insert(handle(result.into()), source);
            }
        }
    }
}

/// How `op` is drawn; `None` for a terminator that only hands values on and for a weight.
fn describe(op: OperationRef) -> Option<Node> {
    let name = op_name(op);
    let plain = |label: String, fill, shape| Node {
        label,
        fill,
        shape,
        group: None,
    };
    if let Some(instance) = InstanceOp::cast(op) {
        return Some(instance_node(instance));
    }
    if let Some(group) = GroupOp::cast(op) {
        let mut label = format!("group {}", group.name());
        if let Some(split) = group.best_split() {
            let _ = write!(
                label,
                "\nbest split: loop {} into {}",
                split.dim, split.factor
            );
        }
        let _ = write!(label, "\n{}", body_summary(op));
        return Some(Node {
            label,
            fill: "#e1d5f0",
            shape: "box",
            group: Some(group.name()),
        });
    }
    Some(if let Some(copy) = CopyOp::cast(op) {
        plain(format!("copy to {}", copy.scope()), "#fff59d", "cds")
    } else if let Some(redistribute) = RedistributeOp::cast(op) {
        let label = format!(
            "redistribute\n{:?} -> {:?}",
            redistribute.from(),
            redistribute.to()
        );
        plain(label, "#f8bbd0", "cds")
    } else if let Some(concat) = ConcatOp::cast(op) {
        plain(
            format!("concat along {}", concat.axis()),
            "#e0e0e0",
            "trapezium",
        )
    } else if let Some(slice) = SliceOp::cast(op) {
        plain(
            format!("slice at {:?}", slice.offsets()),
            "#e0e0e0",
            "invtrapezium",
        )
    } else if kind_of(&name) == Some(OpKind::Upstream(upstream::Kind::FuncReturn)) {
        plain("return".into(), "#eeeeee", "ellipse")
    } else if is_undrawn(&name) {
        return None;
    } else {
        plain(name, "white", "box")
    })
}

/// An instance's node: its slice, binding, order, scope and ops, filled by its scope.
fn instance_node(instance: InstanceOp) -> Node {
    let mut label = format!(
        "{} [{} of {} along {}]",
        instance.group(),
        instance.index(),
        instance.count(),
        instance.dim()
    );
    if let Some(bind) = instance.bind() {
        let cores: i64 = bind.iter().product();
        let _ = write!(label, "\nbind {bind:?} ({cores} cores)");
    }
    if let Some(order) = instance.order() {
        let _ = write!(label, "\norder {order}");
    }
    let scope = instance.scope();
    if let Some(scope) = scope {
        let _ = write!(label, "\nscope {scope}");
    }
    let _ = write!(label, "\n{}", body_summary(instance.operation()));
    let fill = match scope {
        Some(Scope::Lb) => "#c8e6c9",
        Some(Scope::Gb) => "#bbdefb",
        Some(Scope::Ddr) => "#ffe0b2",
        None => "white",
    };
    Node {
        label,
        fill,
        shape: "box",
        group: Some(instance.group()),
    }
}

/// The kinds of op in `op`'s body (without the dialect prefix, the terminator and the weights)
/// with their counts, in order of first appearance: the first few, then how many more kinds.
fn body_summary(op: OperationRef) -> String {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for region in op.regions() {
        let Some(block) = region.first_block() else {
            continue;
        };
        let mut inner = block.first_operation();
        while let Some(current) = inner {
            inner = current.next_in_block();
            let name = op_name(current);
            if is_undrawn(&name) {
                continue;
            }
            let kind = name.rsplit('.').next().unwrap_or(&name).to_owned();
            match kinds.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, count)) => *count += 1,
                None => kinds.push((kind, 1)),
            }
        }
    }
    let more = kinds.len().saturating_sub(LISTED_BODY_KINDS);
    let mut summary: Vec<String> = kinds
        .into_iter()
        .take(LISTED_BODY_KINDS)
        .map(|(kind, count)| format!("{count} {kind}"))
        .collect();
    if more > 0 {
        summary.push(format!("{more} more kinds"));
    }
    summary.join(", ")
}

/// The kind of the op named `name`, None for an op Turbine does not know.
fn kind_of(name: &str) -> Option<OpKind> {
    OpKind::from_name(name)
}

/// Whether an op named `name` gets no node and no place in a body's summary: a terminator of an
/// instance, or a weight (an operand of the instances, read where it is used).
fn is_undrawn(name: &str) -> bool {
    matches!(
        kind_of(name),
        Some(OpKind::Instance(instance::Kind::Yield) | OpKind::Graph(graph::Kind::Weight))
    )
}

fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("?").to_owned()
}
