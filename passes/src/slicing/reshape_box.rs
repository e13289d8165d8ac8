//! The box of a reshape's operand that a box of its result reads. A reshape keeps the
//! row-major order of the elements, so its dimensions fall into groups, on both sides, whose
//! sizes multiply to the same number (`[1024, 3072]` and `[128, 8, 3072]`: `1024 = 128 · 8`,
//! then `3072`); a box of the result is one of the operand when, in every group, its elements
//! are one run of consecutive elements that is itself a box of the operand's dimensions of the
//! group: the 256 rows `[0, 256)` of the `1024` are rows `[0, 32)` of the `128`, all of the `8`.

use super::boxes::Region;
use std::ops::Range;

/// The box of the operand (of shape `input`) that `region` of the result (of shape `output`)
/// reads; None when the region's elements are no box of the operand.
pub fn reshape_box(region: &Region, input: &[usize], output: &[usize]) -> Option<Region> {
    let mut operand = Vec::with_capacity(input.len());
    for (inputs, outputs) in groups(input, output)? {
        let run = run_of(&region[outputs.clone()], &output[outputs])?;
        operand.extend(box_of(run, &input[inputs])?);
    }
    Some(operand)
}

/// The groups of dimensions of `input` and `output` whose sizes multiply to the same number,
/// in order (a dimension of size 1 joins the group before it, the first group if none); None
/// when the element counts differ or a size is 0.
fn groups(input: &[usize], output: &[usize]) -> Option<Vec<(Range<usize>, Range<usize>)>> {
    if input.contains(&0) || output.contains(&0) {
        return None;
    }
    let (mut i, mut o) = (0, 0);
    let mut groups: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    while i < input.len() || o < output.len() {
        let (start_i, start_o) = (i, o);
        let (mut in_size, mut out_size) = (1usize, 1usize);
        loop {
            if in_size <= out_size && i < input.len() && (in_size < out_size || o == output.len()) {
                in_size *= input[i];
                i += 1;
            } else if o < output.len() && (out_size < in_size || i == input.len()) {
                out_size *= output[o];
                o += 1;
            } else if in_size == out_size && i < input.len() && o < output.len() {
                in_size *= input[i];
                out_size *= output[o];
                i += 1;
                o += 1;
            } else {
                break;
            }
            if in_size == out_size && !trailing_ones(input, i) && !trailing_ones(output, o) {
                break;
            }
        }
        if in_size != out_size {
            return None;
        }
        groups.push((start_i..i, start_o..o));
    }
    Some(groups)
}

/// Whether the dimension at `position` of `shape` is a size-1 one that the group ending there
/// takes in too.
fn trailing_ones(shape: &[usize], position: usize) -> bool {
    shape.get(position) == Some(&1)
}

/// The run of consecutive elements (row-major over `shape`) that the box `ranges` holds; None
/// when it holds several runs, or none.
fn run_of(ranges: &[Range<usize>], shape: &[usize]) -> Option<Range<usize>> {
    if ranges.iter().any(|range| range.is_empty()) {
        return None;
    }
    // Dimensions held whole from the innermost out, then one held in part, then single indices.
    let whole = ranges
        .iter()
        .zip(shape)
        .rev()
        .take_while(|(range, &size)| **range == (0..size))
        .count();
    let partial = shape.len().saturating_sub(whole + 1);
    if (0..partial).any(|d| ranges[d].len() != 1) {
        return None;
    }
    let inner: usize = shape[shape.len() - whole..].iter().product();
    let (mut start, mut end) = (0, 0);
    for d in 0..shape.len() - whole {
        let stride: usize = shape[d + 1..].iter().product();
        start += ranges[d].start * stride;
        end = start - ranges[d].start * stride + (ranges[d].end - 1) * stride;
    }
    if whole == shape.len() {
        return Some(0..inner);
    }
    Some(start..end + inner)
}

/// The box of dimensions `shape` that holds exactly the elements `run`; None when it is no box.
fn box_of(run: Range<usize>, shape: &[usize]) -> Option<Region> {
    for m in (0..shape.len()).rev() {
        let inner: usize = shape[m + 1..].iter().product();
        let block = inner * shape[m];
        if !run.start.is_multiple_of(inner) || !run.end.is_multiple_of(inner) {
            continue;
        }
        if run.start / block != (run.end - 1) / block {
            continue;
        }
        let mut region: Region = Vec::with_capacity(shape.len());
        let mut rest = run.start / block;
        let mut outer: Vec<Range<usize>> = (0..m)
            .rev()
            .map(|d| {
                let index = rest % shape[d];
                rest /= shape[d];
                index..index + 1
            })
            .collect();
        outer.reverse();
        region.extend(outer);
        region.push((run.start % block) / inner..(run.end - 1) % block / inner + 1);
        region.extend(shape[m + 1..].iter().map(|&size| 0..size));
        return Some(region);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::boxes::full;
    use super::*;

    #[test]
    fn rows_of_a_flattened_batch_are_a_box_of_the_leading_dimension() {
        // [1024, 3072] from [128, 8, 3072]: rows 256..512 are positions 32..64, every batch.
        let region = vec![256..512, 0..3072];
        assert_eq!(
            reshape_box(&region, &[128, 8, 3072], &[1024, 3072]),
            Some(vec![32..64, 0..8, 0..3072])
        );
        // The other way round: a share of the batch of [128, 8, 768] is no box of the rows.
        assert_eq!(
            reshape_box(&vec![0..128, 0..2, 0..768], &[1024, 768], &[128, 8, 768]),
            None
        );
    }

    #[test]
    fn heads_split_from_the_hidden_dimension_follow_the_batch() {
        // [S, B·H, hd] = [128, 96, 64] from [S, B, E] = [128, 8, 768]: heads 0..24 are batches
        // 0..2.
        let region = vec![0..128, 0..24, 0..64];
        assert_eq!(
            reshape_box(&region, &[128, 8, 768], &[128, 96, 64]),
            Some(vec![0..128, 0..2, 0..768])
        );
        // Half a batch's heads are half its hidden dimension; heads 6..18 cross a batch.
        assert_eq!(
            reshape_box(&vec![0..128, 0..6, 0..64], &[128, 8, 768], &[128, 96, 64]),
            Some(vec![0..128, 0..1, 0..384])
        );
        assert_eq!(
            reshape_box(&vec![0..128, 6..18, 0..64], &[128, 8, 768], &[128, 96, 64]),
            None
        );
    }

    #[test]
    fn size_one_dimensions_and_shared_prefixes() {
        // A shared prefix maps as it is, whatever follows whole.
        assert_eq!(
            reshape_box(&vec![2..4, 0..6], &[8, 2, 3], &[8, 6]),
            Some(vec![2..4, 0..2, 0..3])
        );
        // Unit dimensions on either side.
        assert_eq!(
            reshape_box(&vec![0..1, 1..3, 0..1, 0..5], &[4, 5], &[1, 4, 1, 5]),
            Some(vec![1..3, 0..5])
        );
        assert_eq!(
            reshape_box(&vec![1..3, 0..5], &[1, 4, 1, 5], &[4, 5]),
            Some(vec![0..1, 1..3, 0..1, 0..5])
        );
        // A column of a matrix is no run.
        assert_eq!(reshape_box(&vec![0..4, 1..2], &[20], &[4, 5]), None);
    }

    /// The flat positions of the elements of `region` of a row-major `shape`.
    fn elements(region: &Region, shape: &[usize]) -> Vec<usize> {
        let mut positions = vec![0usize];
        for (range, size) in region.iter().zip(shape) {
            positions = positions
                .iter()
                .flat_map(|&p| range.clone().map(move |i| p * size + i))
                .collect();
        }
        positions
    }

    #[test]
    fn every_box_found_holds_exactly_the_region_elements() {
        // Random factorisations of 24 elements and random boxes of the result: when a box of
        // the operand is returned, it holds the same elements; the whole result always maps.
        let shapes: [&[usize]; 8] = [
            &[24],
            &[2, 12],
            &[4, 6],
            &[2, 3, 4],
            &[6, 1, 4],
            &[2, 2, 2, 3],
            &[1, 24],
            &[3, 8],
        ];
        let mut seed = 7u64;
        let mut next = |bound: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % bound
        };
        let mut found = 0;
        for input in shapes {
            for output in shapes {
                assert_eq!(
                    reshape_box(&full(output), input, output),
                    Some(full(input)),
                    "{input:?} -> {output:?}"
                );
                for _ in 0..50 {
                    let region: Region = output
                        .iter()
                        .map(|&size| {
                            let start = next(size);
                            start..start + 1 + next(size - start)
                        })
                        .collect();
                    if let Some(operand) = reshape_box(&region, input, output) {
                        found += 1;
                        assert_eq!(
                            elements(&operand, input),
                            elements(&region, output),
                            "{region:?} of {output:?} from {input:?}"
                        );
                    }
                }
            }
        }
        assert!(found > 500, "only {found} boxes mapped");
    }
}
