//! MLIR text for the `dsa` code the lowering generates: buffer types, views and the SSA names of
//! one function body.
//!
//! The lowering plans in Rust and writes its result as MLIR text, which MLIR then parses and
//! verifies like any input: every generated op goes through the same verifiers as a hand-written
//! one, and the text is what a reader of `--mlir-print-ir-after` sees.

use std::fmt::Write;

/// A memory level of the accelerator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// A core's local buffer.
    Lb,
    /// DDR.
    Ddr,
}

impl Space {
    fn attribute(self) -> &'static str {
        match self {
            Space::Lb => "#dsa.memory_space<lb>",
            Space::Ddr => "#dsa.memory_space<ddr>",
        }
    }
}

/// Row-major strides of `shape`, in elements.
pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// The type of a buffer or of a view into one: shape, strides in elements, and whether the
/// offset is known (0) or dynamic.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// Dimension sizes.
    pub shape: Vec<usize>,
    /// Strides in elements.
    pub strides: Vec<usize>,
    /// True when the offset is a runtime value (a view made with SSA offsets).
    pub dynamic_offset: bool,
    /// Where the buffer lives.
    pub space: Space,
}

impl View {
    /// A whole contiguous buffer.
    pub fn contiguous(shape: &[usize], space: Space) -> Self {
        Self {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            dynamic_offset: false,
            space,
        }
    }

    /// Number of elements.
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// The memref type.
    pub fn type_text(&self) -> String {
        let mut text = String::from("memref<");
        for dim in &self.shape {
            write!(text, "{dim}x").unwrap();
        }
        text.push_str("f32");
        if self.dynamic_offset || self.strides != contiguous_strides(&self.shape) {
            let strides: Vec<String> = self.strides.iter().map(usize::to_string).collect();
            write!(text, ", strided<[{}]", strides.join(", ")).unwrap();
            if self.dynamic_offset {
                text.push_str(", offset: ?");
            }
            text.push('>');
        }
        write!(text, ", {}>", self.space.attribute()).unwrap();
        text
    }

    /// The view of `sizes` elements starting at dynamic offsets, keeping only the dimensions
    /// listed in `keep` (the others must have size 1: a rank-reducing subview).
    pub fn window(&self, sizes: &[usize], keep: &[usize]) -> View {
        View {
            shape: keep.iter().map(|&d| sizes[d]).collect(),
            strides: keep.iter().map(|&d| self.strides[d]).collect(),
            dynamic_offset: true,
            space: self.space,
        }
    }

    /// The same elements with dimensions permuted: result dimension i is dimension
    /// `permutation[i]`.
    pub fn permuted(&self, permutation: &[usize]) -> View {
        View {
            shape: permutation.iter().map(|&d| self.shape[d]).collect(),
            strides: permutation.iter().map(|&d| self.strides[d]).collect(),
            dynamic_offset: self.dynamic_offset,
            space: self.space,
        }
    }
}

/// The body of one function being written: lines and fresh SSA names.
#[derive(Debug, Default)]
pub struct Body {
    text: String,
    next: usize,
    indent: usize,
}

impl Body {
    /// A body whose lines start at `indent` levels.
    pub fn new(indent: usize) -> Self {
        Self {
            indent,
            ..Self::default()
        }
    }

    /// A fresh SSA name.
    pub fn fresh(&mut self, hint: &str) -> String {
        self.next += 1;
        format!("%{hint}{}", self.next)
    }

    /// Appends one line.
    pub fn line(&mut self, line: impl AsRef<str>) {
        for _ in 0..self.indent {
            self.text.push_str("  ");
        }
        self.text.push_str(line.as_ref());
        self.text.push('\n');
    }

    /// Opens a region: following lines are indented one more level.
    pub fn open(&mut self, line: impl AsRef<str>) {
        self.line(line);
        self.indent += 1;
    }

    /// Closes a region with `line` (`}` or `} else {`).
    pub fn close(&mut self, line: &str) {
        self.indent -= 1;
        self.line(line);
    }

    /// Closes a region and opens the next one with `line` (`} else {`).
    pub fn reopen(&mut self, line: &str) {
        self.indent -= 1;
        self.line(line);
        self.indent += 1;
    }

    /// An `index` constant.
    pub fn index(&mut self, value: usize) -> String {
        let name = self.fresh("c");
        self.line(format!("{name} = arith.constant {value} : index"));
        name
    }

    /// `lhs op rhs` on indices (`muli`, `addi`, `divui`, `remui`, ...).
    pub fn arith(&mut self, op: &str, lhs: &str, rhs: &str) -> String {
        let name = self.fresh("i");
        self.line(format!("{name} = arith.{op} {lhs}, {rhs} : index"));
        name
    }

    /// `value * factor`, folded when the factor is 1.
    pub fn scaled(&mut self, value: &str, factor: usize) -> String {
        if factor == 1 {
            return value.to_owned();
        }
        let factor = self.index(factor);
        self.arith("muli", value, &factor)
    }

    /// `value + delta` for a signed constant delta, folded when it is 0.
    pub fn shifted(&mut self, value: &str, delta: i64) -> String {
        match delta {
            0 => value.to_owned(),
            d if d > 0 => {
                let delta = self.index(d as usize);
                self.arith("addi", value, &delta)
            }
            d => {
                let delta = self.index((-d) as usize);
                self.arith("subi", value, &delta)
            }
        }
    }

    /// A subview of `source` (of type `view`) at `offsets` (SSA indices) with `sizes`, keeping
    /// the dimensions `keep` (all when None). Returns the name and the view's type.
    pub fn subview(
        &mut self,
        source: &str,
        view: &View,
        offsets: &[String],
        sizes: &[usize],
        keep: Option<&[usize]>,
    ) -> (String, View) {
        let all: Vec<usize> = (0..sizes.len()).collect();
        let keep = keep.unwrap_or(&all);
        let result = view.window(sizes, keep);
        let name = self.fresh("s");
        let sizes_text: Vec<String> = sizes.iter().map(usize::to_string).collect();
        let ones = vec!["1"; sizes.len()];
        self.line(format!(
            "{name} = memref.subview {source}[{}] [{}] [{}] : {} to {}",
            offsets.join(", "),
            sizes_text.join(", "),
            ones.join(", "),
            view.type_text(),
            result.type_text()
        ));
        (name, result)
    }

    /// A subview taking every `steps[d]`-th element (a strided slice), keeping every dimension.
    pub fn subview_strided(
        &mut self,
        source: &str,
        view: &View,
        offsets: &[String],
        sizes: &[usize],
        steps: &[usize],
    ) -> (String, View) {
        let result = View {
            shape: sizes.to_vec(),
            strides: view
                .strides
                .iter()
                .zip(steps)
                .map(|(stride, step)| stride * step)
                .collect(),
            dynamic_offset: true,
            space: view.space,
        };
        let name = self.fresh("s");
        let sizes_text: Vec<String> = sizes.iter().map(usize::to_string).collect();
        let steps_text: Vec<String> = steps.iter().map(usize::to_string).collect();
        self.line(format!(
            "{name} = memref.subview {source}[{}] [{}] [{}] : {} to {}",
            offsets.join(", "),
            sizes_text.join(", "),
            steps_text.join(", "),
            view.type_text(),
            result.type_text()
        ));
        (name, result)
    }

    /// Emits `emit` for `count` accumulation chunks: chunk 0 overwrites (`accumulate` false),
    /// the others, in an `scf.for`, accumulate.
    pub fn chunks(&mut self, count: usize, emit: &mut dyn FnMut(&mut Body, &str, bool)) {
        let first = self.index(0);
        emit(self, &first, false);
        if count > 1 {
            let start = self.index(1);
            let end = self.index(count);
            let step = self.index(1);
            let chunk = self.fresh("chunk");
            self.open(format!("scf.for {chunk} = {start} to {end} step {step} {{"));
            emit(self, &chunk, true);
            self.close("}");
        }
    }

    /// An asynchronous instruction returning a token; `after` lists the tokens it waits on.
    pub fn instruction(&mut self, head: &str, after: &[String], tail: &str) -> String {
        let token = self.fresh("t");
        let after = if after.is_empty() {
            String::new()
        } else {
            format!(" after {}", after.join(", "))
        };
        self.line(format!("{token} = {head}{after} {tail}"));
        token
    }

    /// `dsa.dma source to target`.
    pub fn dma(
        &mut self,
        source: (&str, &View),
        target: (&str, &View),
        after: &[String],
    ) -> String {
        self.instruction(
            &format!("dsa.dma {} to {}", source.0, target.0),
            after,
            &format!(": {}, {}", source.1.type_text(), target.1.type_text()),
        )
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        self.text
    }
}

/// Divisors of `n`, largest first.
pub fn divisors_descending(n: usize) -> Vec<usize> {
    let mut divisors: Vec<usize> = (1..=n).filter(|d| n % d == 0).collect();
    divisors.reverse();
    divisors
}
