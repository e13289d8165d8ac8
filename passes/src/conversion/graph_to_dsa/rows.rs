//! Row-wise layers: reductions (and global average pooling), softmax and layer norm. The tensor
//! is viewed as rows — `[A, L, B]` with the reduced extent `L` in the middle, or `[R, L]` with
//! the normalised extent last — and whole rows are tiled, since every output element needs its
//! whole row.

use super::{
    host::{reshaped, Layer, Scope},
    kernel::{float_text, Kernel, Tensor},
    layers,
    text::{divisors_descending, Body, View},
    LoweringError,
};

fn too_long(scope: &Scope, layer: &Layer, row: usize) -> LoweringError {
    LoweringError::at(
        layer.index,
        format!(
            "'{}' does not fit the local buffer of target '{}' ({} bytes): its rows of {} elements are not split",
            layer.node.name, scope.machine.name, scope.machine.lb_bytes, row
        ),
    )
}

/// The largest divisor of `rows` whose tile of `per_row` elements (plus `fixed`) fits.
fn row_tile(scope: &Scope, rows: usize, per_row: usize, fixed: usize) -> Option<usize> {
    let budget = scope.machine.lb_elements();
    let spread = rows.div_ceil(scope.machine.cores).max(1);
    divisors_descending(rows)
        .into_iter()
        .find(|&tile| tile <= spread && tile * per_row + fixed <= budget)
        .or_else(|| {
            divisors_descending(rows)
                .into_iter()
                .find(|&tile| tile * per_row + fixed <= budget)
        })
}

/// Lowers a reduction over contiguous axes (and `global_avg_pool`, a mean over H and W).
pub fn lower_reduce(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let shape = input.view.shape.clone();
    let rank = shape.len();
    let (kind, mut axes) = match node.name.as_str() {
        "graph.global_avg_pool" => ("mean", (2..rank).collect::<Vec<usize>>()),
        name => {
            let axes = node.ints("axes").to_vec();
            let axes: Vec<usize> = if axes.is_empty() {
                (0..rank).collect()
            } else {
                axes.iter().map(|&a| layers::axis(a, rank)).collect()
            };
            (name.trim_start_matches("graph.reduce_"), axes)
        }
    };
    axes.sort_unstable();
    axes.dedup();
    if axes.windows(2).any(|pair| pair[1] != pair[0] + 1) {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'{}' over non-adjacent axes {axes:?} is not supported",
                node.name
            ),
        ));
    }
    let (first, last) = (axes[0], axes[axes.len() - 1]);
    let outer: usize = shape[..first].iter().product();
    let length: usize = shape[first..=last].iter().product();
    let inner: usize = shape[last + 1..].iter().product();
    let source = reshaped(host, &input, &[outer, length, inner]);
    let target = reshaped(host, &layer.output, &[outer, 1, inner]);
    let tile = row_tile(scope, outer, length * inner + inner, 0)
        .ok_or_else(|| too_long(scope, layer, length * inner))?;
    let source_arg = kernel.argument(&source.host, &source.view);
    let target_arg = kernel.argument(&target.host, &target.view);
    let (rows_lb, rows_lb_view) = kernel.alloc_lb(&[tile, length, inner]);
    let (result_lb, result_lb_view) = kernel.alloc_lb(&[tile, 1, inner]);
    let index = kernel.begin_tiles(outer / tile, scope.machine);
    let body = &mut kernel.body;
    let row = body.scaled(&index, tile);
    let zero = body.index(0);
    let offsets = [row, zero.clone(), zero];
    let (from, from_view) = body.subview(
        &source_arg,
        &source.view,
        &offsets,
        &[tile, length, inner],
        None,
    );
    let loaded = body.dma((&from, &from_view), (&rows_lb, &rows_lb_view), &[]);
    let reduced = body.instruction(
        &format!("dsa.reduce {kind} {rows_lb} into {result_lb}"),
        &[loaded],
        &format!(
            "{{axis = 1 : i64}} : {}, {}",
            rows_lb_view.type_text(),
            result_lb_view.type_text()
        ),
    );
    let (to, to_view) = body.subview(&target_arg, &target.view, &offsets, &[tile, 1, inner], None);
    let stored = body.dma((&result_lb, &result_lb_view), (&to, &to_view), &[reduced]);
    kernel.end_tiles(&stored);
    Ok(kernel)
}

/// The `[R, L]` view of a tensor normalised over its dimensions from `axis` on.
fn as_rows(host: &mut Body, tensor: &Tensor, axis: usize) -> (Tensor, usize, usize) {
    let rows: usize = tensor.view.shape[..axis].iter().product();
    let length: usize = tensor.view.shape[axis..].iter().product();
    (reshaped(host, tensor, &[rows, length]), rows, length)
}

/// Lowers a softmax along its last axis (or any axis followed only by unit dimensions).
pub fn lower_softmax(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let rank = input.view.shape.len();
    let axis = layers::axis(node.int("axis"), rank);
    if input.view.shape[axis + 1..].iter().any(|&dim| dim != 1) {
        return Err(LoweringError::at(
            layer.index,
            "softmax along an axis other than the last is not supported",
        ));
    }
    let (source, rows, length) = as_rows(host, &input, axis);
    let (target, _, _) = as_rows(host, &layer.output, axis);
    let tile =
        row_tile(scope, rows, length + 1, 0).ok_or_else(|| too_long(scope, layer, length))?;
    let source_arg = kernel.argument(&source.host, &source.view);
    let target_arg = kernel.argument(&target.host, &target.view);
    let (x, x_view) = kernel.alloc_lb(&[tile, length]);
    let (s, s_view) = kernel.alloc_lb(&[tile, 1]);
    let index = kernel.begin_tiles(rows / tile, scope.machine);
    let body = &mut kernel.body;
    let row = body.scaled(&index, tile);
    let zero = body.index(0);
    let offsets = [row, zero];
    let (from, from_view) =
        body.subview(&source_arg, &source.view, &offsets, &[tile, length], None);
    let loaded = body.dma((&from, &from_view), (&x, &x_view), &[]);
    let types = |a: &View, b: &View| format!("{}, {}", a.type_text(), b.type_text());
    let maximum = body.instruction(
        &format!("dsa.reduce max {x} into {s}"),
        &[loaded],
        &format!("{{axis = 1 : i64}} : {}", types(&x_view, &s_view)),
    );
    let shifted = body.instruction(
        &format!("dsa.binary sub {x}, {s} into {x}"),
        &[maximum],
        &format!(": {}, {}", types(&x_view, &s_view), x_view.type_text()),
    );
    let exponent = body.instruction(
        &format!("dsa.unary exp {x} into {x}"),
        &[shifted],
        &format!(": {}", types(&x_view, &x_view)),
    );
    let sum = body.instruction(
        &format!("dsa.reduce sum {x} into {s}"),
        &[exponent],
        &format!("{{axis = 1 : i64}} : {}", types(&x_view, &s_view)),
    );
    let normalised = body.instruction(
        &format!("dsa.binary div {x}, {s} into {x}"),
        &[sum],
        &format!(": {}, {}", types(&x_view, &s_view), x_view.type_text()),
    );
    let (to, to_view) = body.subview(&target_arg, &target.view, &offsets, &[tile, length], None);
    let stored = body.dma((&x, &x_view), (&to, &to_view), &[normalised]);
    kernel.end_tiles(&stored);
    Ok(kernel)
}

/// Lowers a layer norm over the dimensions from `axis` on; scale and bias are loaded once per
/// core.
pub fn lower_layer_norm(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let rank = input.view.shape.len();
    let axis = layers::axis(node.int("axis"), rank);
    let epsilon = node.float("epsilon");
    let (source, rows, length) = as_rows(host, &input, axis);
    let (target, _, _) = as_rows(host, &layer.output, axis);
    let scale = reshaped(host, scope.tensor(node.operands[1]), &[1, length]);
    let bias = node
        .operands
        .get(2)
        .map(|&bias| reshaped(host, scope.tensor(bias), &[1, length]));
    let parameters = length * (1 + bias.is_some() as usize);
    let tile = row_tile(scope, rows, 2 * length + 2, parameters)
        .ok_or_else(|| too_long(scope, layer, length))?;
    let source_arg = kernel.argument(&source.host, &source.view);
    let target_arg = kernel.argument(&target.host, &target.view);
    let scale_arg = kernel.argument(&scale.host, &scale.view);
    let bias_arg = bias
        .as_ref()
        .map(|bias| kernel.argument(&bias.host, &bias.view));
    let (x, x_view) = kernel.alloc_lb(&[tile, length]);
    let (t, t_view) = kernel.alloc_lb(&[tile, length]);
    let (mean, mean_view) = kernel.alloc_lb(&[tile, 1]);
    let (variance, variance_view) = kernel.alloc_lb(&[tile, 1]);
    let (gamma, gamma_view) = kernel.alloc_lb(&[1, length]);
    let beta = bias.as_ref().map(|_| kernel.alloc_lb(&[1, length]));
    let body = &mut kernel.body;
    let gamma_loaded = body.dma((&scale_arg, &scale.view), (&gamma, &gamma_view), &[]);
    let mut parameters_loaded = vec![gamma_loaded];
    if let (Some(bias_arg), Some((beta, beta_view)), Some(bias)) = (&bias_arg, &beta, &bias) {
        parameters_loaded.push(body.dma((bias_arg, &bias.view), (beta, beta_view), &[]));
    }
    body.line(format!("dsa.wait {}", parameters_loaded.join(", ")));
    let index = kernel.begin_tiles(rows / tile, scope.machine);
    let body = &mut kernel.body;
    let row = body.scaled(&index, tile);
    let zero = body.index(0);
    let offsets = [row, zero];
    let (from, from_view) =
        body.subview(&source_arg, &source.view, &offsets, &[tile, length], None);
    let loaded = body.dma((&from, &from_view), (&x, &x_view), &[]);
    let pair = |a: &View, b: &View| format!("{}, {}", a.type_text(), b.type_text());
    let triple = |a: &View, b: &View, c: &View| {
        format!("{}, {}, {}", a.type_text(), b.type_text(), c.type_text())
    };
    let averaged = body.instruction(
        &format!("dsa.reduce mean {x} into {mean}"),
        &[loaded],
        &format!("{{axis = 1 : i64}} : {}", pair(&x_view, &mean_view)),
    );
    let centred = body.instruction(
        &format!("dsa.binary sub {x}, {mean} into {x}"),
        &[averaged],
        &format!(": {}", triple(&x_view, &mean_view, &x_view)),
    );
    let squared = body.instruction(
        &format!("dsa.binary mul {x}, {x} into {t}"),
        &[centred.clone()],
        &format!(": {}", triple(&x_view, &x_view, &t_view)),
    );
    let var = body.instruction(
        &format!("dsa.reduce mean {t} into {variance}"),
        &[squared],
        &format!("{{axis = 1 : i64}} : {}", pair(&t_view, &variance_view)),
    );
    let shifted = body.instruction(
        &format!("dsa.unary affine {variance} into {variance}"),
        &[var],
        &format!(
            "{{scale = {} : f32, shift = {} : f32}} : {}",
            float_text(1.0),
            float_text(epsilon),
            pair(&variance_view, &variance_view)
        ),
    );
    let inverse = body.instruction(
        &format!("dsa.unary rsqrt {variance} into {variance}"),
        &[shifted],
        &format!(": {}", pair(&variance_view, &variance_view)),
    );
    let normalised = body.instruction(
        &format!("dsa.binary mul {x}, {variance} into {x}"),
        &[inverse, centred],
        &format!(": {}", triple(&x_view, &variance_view, &x_view)),
    );
    let mut last = body.instruction(
        &format!("dsa.binary mul {x}, {gamma} into {x}"),
        &[normalised],
        &format!(": {}", triple(&x_view, &gamma_view, &x_view)),
    );
    if let Some((beta, beta_view)) = &beta {
        last = body.instruction(
            &format!("dsa.binary add {x}, {beta} into {x}"),
            &[last],
            &format!(": {}", triple(&x_view, beta_view, &x_view)),
        );
    }
    let (to, to_view) = body.subview(&target_arg, &target.view, &offsets, &[tile, length], None);
    let stored = body.dma((&x, &x_view), (&to, &to_view), &[last]);
    kernel.end_tiles(&stored);
    Ok(kernel)
}

/// Lowers a local response normalisation: the sum of squares over the channel window is an
/// average pooling of `x * x` viewed as `[1, 1, C, positions]` with a `size x 1` window padded
/// by the window's halves and counting the padding (so the divisor is always `size`), and the
/// power is `exp(-beta * log(bias + alpha * mean))`. Tiles take every channel and a divisor of
/// the spatial positions.
pub fn lower_lrn(scope: &Scope, host: &mut Body, layer: &Layer, mut kernel: Kernel) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let shape = input.view.shape.clone();
    if shape.len() < 3 {
        return Err(LoweringError::at(layer.index, "lrn needs a tensor with channels and positions (rank 3 or more)"));
    }
    let (batch, channels) = (shape[0], shape[1]);
    let positions: usize = shape[2..].iter().product();
    let size = node.int("size") as usize;
    let (alpha, beta, bias) = (node.float("alpha"), node.float("beta"), node.float("bias"));
    let below = (size - 1) / 2;
    let above = size - 1 - below;
    let source = reshaped(host, &input, &[batch, 1, channels, positions]);
    let target = reshaped(host, &layer.output, &[batch, 1, channels, positions]);
    let budget = scope.machine.lb_elements();
    let tile = divisors_descending(positions)
        .into_iter()
        .find(|&tile| 3 * channels * tile <= budget)
        .ok_or_else(|| too_long(scope, layer, channels))?;
    let source_arg = kernel.argument(&source.host, &source.view);
    let target_arg = kernel.argument(&target.host, &target.view);
    let tile_shape = [1, 1, channels, tile];
    let (x, x_view) = kernel.alloc_lb(&tile_shape);
    let (squares, squares_view) = kernel.alloc_lb(&tile_shape);
    let (scale, scale_view) = kernel.alloc_lb(&tile_shape);
    let counts = [batch, positions / tile];
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let coordinates = kernel.decode(&index, &counts);
    let body = &mut kernel.body;
    let position = body.scaled(&coordinates[1], tile);
    let zero = body.index(0);
    let offsets = [coordinates[0].clone(), zero.clone(), zero, position];
    let (from, from_view) = body.subview(&source_arg, &source.view, &offsets, &tile_shape, None);
    let loaded = body.dma((&from, &from_view), (&x, &x_view), &[]);
    let (xt, st, kt) = (x_view.type_text(), squares_view.type_text(), scale_view.type_text());
    let squared = body.instruction(&format!("dsa.binary mul {x}, {x} into {squares}"), &[loaded], &format!(": {xt}, {xt}, {st}"));
    let mean = body.instruction(
        &format!("dsa.pool avg {squares} into {scale}"),
        &[squared],
        &format!(
            "{{kernel = array<i64: {size}, 1>, strides = array<i64: 1, 1>, pads = array<i64: {below}, 0, {above}, 0>, count_include_pad = true}} : {st}, {kt}"
        ),
    );
    let unary = |body: &mut Body, kind: &str, attributes: String, after: String| {
        body.instruction(&format!("dsa.unary {kind} {scale} into {scale}"), &[after], &format!("{attributes}: {kt}, {kt}"))
    };
    let base = unary(body, "affine", format!("{{scale = {} : f32, shift = {} : f32}} ", float_text(alpha), float_text(bias)), mean);
    let logarithm = unary(body, "log", String::new(), base);
    let scaled = unary(body, "affine", format!("{{scale = {} : f32, shift = {} : f32}} ", float_text(-beta), float_text(0.0)), logarithm);
    let power = unary(body, "exp", String::new(), scaled);
    let normalised = body.instruction(&format!("dsa.binary mul {x}, {scale} into {x}"), &[power], &format!(": {xt}, {kt}, {xt}"));
    let (to, to_view) = body.subview(&target_arg, &target.view, &offsets, &tile_shape, None);
    let stored = body.dma((&x, &x_view), (&to, &to_view), &[normalised]);
    kernel.end_tiles(&stored);
    Ok(kernel)
}
