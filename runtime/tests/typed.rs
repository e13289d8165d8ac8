//! The instructions that see element types, against literal expectations (the f32 reference
//! of `common` does not model element types): typed DMAs, conversions, gathers of slices and of
//! elements (within one buffer too), comparisons and selections, integer arithmetic and arg
//! reductions.

mod common;

use common::*;
use turbine_runtime::{Instr, Placement, UnaryOp, View};

fn bytes_of<T: Copy, const N: usize>(values: [T; N], to: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    values.into_iter().flat_map(to).collect()
}

#[test]
fn typed_buffers_copy_convert_and_gather() {
    use turbine_runtime::{Device, ElementType as E};
    let mut dev = Device::new(roomy());
    // An embedding table of 4 rows of 3, looked up by i64 ids (one negative), through the LB.
    let table = dev.alloc(Placement::Ddr, 12 * 4).unwrap();
    let rows: Vec<f32> = (0..12).map(|x| x as f32).collect();
    dev.write(table, 0, &rows).unwrap();
    let ids = dev.alloc_typed(Placement::Ddr, 3 * 8, E::I64).unwrap();
    dev.write_elements(
        ids,
        E::I64,
        0,
        &bytes_of([2i64, -4, 3], |v| v.to_ne_bytes().into()),
    )
    .unwrap();
    let ids_lb = dev.alloc_typed(Placement::Lb(C00), 3 * 8, E::I64).unwrap();
    let out = dev.alloc(Placement::Ddr, 9 * 4).unwrap();
    // A mask of bools converted to f32, and f32 values converted to i32 and back to bool.
    let mask = dev.alloc_typed(Placement::Lb(C00), 4, E::Bool).unwrap();
    let floats = dev.alloc(Placement::Lb(C00), 16).unwrap();
    let ints = dev.alloc_typed(Placement::Lb(C00), 16, E::I32).unwrap();
    let result = dev.alloc_typed(Placement::Ddr, 16, E::I32).unwrap();
    let flags = dev.alloc_typed(Placement::Ddr, 4, E::Bool).unwrap();
    let steps = [
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(ids, 0, &[3]),
                dst: View::contiguous(ids_lb, 0, &[3]),
            },
            &[],
        ),
        step(
            C00,
            Instr::Gather {
                axis: 0,
                table: View::contiguous(table, 0, &[4, 3]),
                indices: View::contiguous(ids_lb, 0, &[3]),
                out: View::contiguous(out, 0, &[3, 3]),
            },
            &[0],
        ),
        step(
            C00,
            Instr::Dma {
                src: View::new(out, 0, &[4], &[2]),
                dst: View::contiguous(floats, 0, &[4]),
            },
            &[1],
        ),
        step(
            C00,
            Instr::Unary {
                op: UnaryOp::Affine {
                    scale: -0.75,
                    shift: 0.5,
                },
                input: View::contiguous(floats, 0, &[4]),
                out: View::contiguous(floats, 0, &[4]),
            },
            &[2],
        ),
        step(
            C00,
            Instr::Convert {
                input: View::contiguous(floats, 0, &[4]),
                out: View::contiguous(ints, 0, &[4]),
            },
            &[3],
        ),
        step(
            C00,
            Instr::Convert {
                input: View::contiguous(ints, 0, &[4]),
                out: View::contiguous(mask, 0, &[4]),
            },
            &[4],
        ),
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(ints, 0, &[4]),
                dst: View::contiguous(result, 0, &[4]),
            },
            &[4],
        ),
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(mask, 0, &[4]),
                dst: View::contiguous(flags, 0, &[4]),
            },
            &[5],
        ),
    ];
    let summary = launch(&mut dev, "typed", &[C00], &steps).unwrap();
    assert!(summary.end > summary.start);
    // Rows 2, 0 (= -4 + 4) and 3.
    let gathered = dev.read(out, 0, 9).unwrap();
    assert_eq!(gathered, [6., 7., 8., 0., 1., 2., 9., 10., 11.]);
    // out[0], out[2], out[4], out[6] = 6, 8, 1, 9; times -0.75 plus 0.5 = -4, -5.5, -0.25,
    // -6.25; truncated toward zero.
    let back = dev.read_elements(result, E::I32, 0, 4).unwrap();
    let values: Vec<i32> = back
        .chunks_exact(4)
        .map(|b| i32::from_ne_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(values, [-4, -5, 0, -6]);
    assert_eq!(
        dev.read_elements(flags, E::Bool, 0, 4).unwrap(),
        [1, 1, 0, 1]
    );
    // The report counts the i64 ids at 8 bytes an element: the DMA into the LB (with 4 f32
    // elements), and the gather's indices with its 9 f32 elements; then 4 i32 elements out.
    let report = dev.report();
    let bytes = |src, dst| {
        report
            .transfers
            .iter()
            .filter(|t| (t.src, t.dst) == (src, dst))
            .map(|t| t.bytes)
            .sum::<u64>()
    };
    use turbine_runtime::MemLevel::{Ddr, Lb};
    assert_eq!(bytes(Ddr, Lb), 3 * 8 + 4 * 4);
    assert_eq!(bytes(Ddr, Ddr), 9 * 4 + 3 * 8);
    assert_eq!(bytes(Lb, Ddr), 4 * 4 + 4);
}

#[test]
fn a_gather_within_one_buffer_reads_the_table_and_writes_elsewhere() {
    use turbine_runtime::{Device, ElementType as E};
    let mut dev = Device::new(roomy());
    // A [3, 2] table and a [2, 2] output side by side in one DDR buffer (as in one GB arena).
    let shared = dev.alloc(Placement::Ddr, 10 * 4).unwrap();
    dev.write(shared, 0, &[1., 2., 3., 4., 5., 6., 0., 0., 0., 0.])
        .unwrap();
    let ids = dev.alloc_typed(Placement::Ddr, 2 * 4, E::I32).unwrap();
    let picks: Vec<u8> = [2i32, -3].iter().flat_map(|v| v.to_ne_bytes()).collect();
    dev.write_elements(ids, E::I32, 0, &picks).unwrap();
    let gather = Instr::Gather {
        axis: 0,
        table: View::contiguous(shared, 0, &[3, 2]),
        indices: View::contiguous(ids, 0, &[2]),
        out: View::contiguous(shared, 6, &[2, 2]),
    };
    launch(&mut dev, "gather", &[C00], &[step(C00, gather, &[])]).unwrap();
    assert_eq!(dev.read(shared, 6, 4).unwrap(), [5., 6., 1., 2.]);
}

#[test]
fn comparisons_make_booleans_that_select_elements_of_any_type() {
    use turbine_runtime::{ComparePredicate as P, Device, ElementType as E};
    let mut dev = Device::new(roomy());
    let core = C00;
    let a = dev.alloc(Placement::Lb(core), 16).unwrap();
    let b = dev.alloc(Placement::Lb(core), 16).unwrap();
    let flags = dev.alloc_typed(Placement::Lb(core), 4, E::Bool).unwrap();
    let ints = dev.alloc_typed(Placement::Lb(core), 64, E::I64).unwrap();
    let picked = dev.alloc_typed(Placement::Lb(core), 32, E::I64).unwrap();
    let ddr = dev.alloc(Placement::Ddr, 32).unwrap();
    dev.write(ddr, 0, &[1., f32::NAN, 3., -0., 2., 2., f32::NAN, 0.])
        .unwrap();
    let ddr_ints = dev.alloc_typed(Placement::Ddr, 64, E::I64).unwrap();
    let values: Vec<u8> = [10i64, 20, 30, 40, -1, -2, -3, -4]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    dev.write_elements(ddr_ints, E::I64, 0, &values).unwrap();
    let out = dev.alloc_typed(Placement::Ddr, 32, E::I64).unwrap();
    let bools = dev.alloc_typed(Placement::Ddr, 4, E::Bool).unwrap();
    let v = |buffer, offset, n| View::contiguous(buffer, offset, &[n]);
    let steps = [
        step(
            core,
            Instr::Dma {
                src: v(ddr, 0, 4),
                dst: v(a, 0, 4),
            },
            &[],
        ),
        step(
            core,
            Instr::Dma {
                src: v(ddr, 4, 4),
                dst: v(b, 0, 4),
            },
            &[],
        ),
        step(
            core,
            Instr::Dma {
                src: v(ddr_ints, 0, 8),
                dst: v(ints, 0, 8),
            },
            &[],
        ),
        step(
            core,
            Instr::Compare {
                predicate: P::Lt,
                a: v(a, 0, 4),
                b: v(b, 0, 4),
                out: v(flags, 0, 4),
            },
            &[0, 1],
        ),
        step(
            core,
            Instr::Select {
                cond: v(flags, 0, 4),
                a: View::new(ints, 0, &[4], &[1]),
                b: View::new(ints, 4, &[4], &[1]),
                out: v(picked, 0, 4),
            },
            &[2, 3],
        ),
        step(
            core,
            Instr::Dma {
                src: v(picked, 0, 4),
                dst: v(out, 0, 4),
            },
            &[4],
        ),
        step(
            core,
            Instr::Dma {
                src: v(flags, 0, 4),
                dst: v(bools, 0, 4),
            },
            &[3],
        ),
    ];
    launch(&mut dev, "where", &[core], &steps).unwrap();
    // 1 < 2, NaN < 2 false, 3 < NaN false, -0 < 0 false.
    assert_eq!(
        dev.read_elements(bools, E::Bool, 0, 4).unwrap(),
        [1, 0, 0, 0]
    );
    let chosen: Vec<i64> = dev
        .read_elements(out, E::I64, 0, 4)
        .unwrap()
        .chunks_exact(8)
        .map(|b| i64::from_ne_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(chosen, [10, -2, -3, -4]);
}

#[test]
fn a_gather_of_elements_picks_one_element_per_index() {
    use turbine_runtime::{Device, ElementType as E};
    let mut dev = Device::new(roomy());
    // ONNX's example: data [[1, 2], [3, 4]], indices [[0, 0], [1, 0]] along axis 1.
    let data = dev.alloc(Placement::Ddr, 4 * 4).unwrap();
    dev.write(data, 0, &[1., 2., 3., 4.]).unwrap();
    let ids = dev.alloc_typed(Placement::Ddr, 4 * 8, E::I64).unwrap();
    let picks: Vec<u8> = [0i64, 0, 1, -2]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    dev.write_elements(ids, E::I64, 0, &picks).unwrap();
    let out = dev.alloc(Placement::Ddr, 4 * 4).unwrap();
    let gather = |axis| Instr::GatherElements {
        axis,
        data: View::contiguous(data, 0, &[2, 2]),
        indices: View::contiguous(ids, 0, &[2, 2]),
        out: View::contiguous(out, 0, &[2, 2]),
    };
    launch(&mut dev, "along_1", &[C00], &[step(C00, gather(1), &[])]).unwrap();
    assert_eq!(dev.read(out, 0, 4).unwrap(), [1., 1., 4., 3.]);
    launch(&mut dev, "along_0", &[C00], &[step(C00, gather(0), &[])]).unwrap();
    assert_eq!(dev.read(out, 0, 4).unwrap(), [1., 2., 3., 2.]);
}

#[test]
fn a_scatter_of_elements_writes_or_combines_in_index_order() {
    use turbine_runtime::{BinaryOp, Device, ElementType as E};
    let mut dev = Device::new(roomy());
    // ONNX's example along axis 1: data [[1, 2, 3, 4, 5]], indices [[1, 3]], updates
    // [[1.1, 2.1]]; then duplicates (index 1 twice, the second as -4) with each reduction.
    let out = dev.alloc(Placement::Ddr, 5 * 4).unwrap();
    let updates = dev.alloc(Placement::Ddr, 2 * 4).unwrap();
    dev.write(updates, 0, &[1.5, 2.5]).unwrap();
    let ids = dev.alloc_typed(Placement::Ddr, 2 * 8, E::I64).unwrap();
    let mut run = |positions: [i64; 2], reduction| {
        dev.write(out, 0, &[1., 2., 3., 4., 5.]).unwrap();
        let bytes: Vec<u8> = positions.iter().flat_map(|v| v.to_ne_bytes()).collect();
        dev.write_elements(ids, E::I64, 0, &bytes).unwrap();
        let scatter = Instr::ScatterElements {
            axis: 1,
            reduction,
            indices: View::contiguous(ids, 0, &[1, 2]),
            updates: View::contiguous(updates, 0, &[1, 2]),
            out: View::contiguous(out, 0, &[1, 5]),
        };
        launch(&mut dev, "scatter", &[C00], &[step(C00, scatter, &[])])?;
        dev.read(out, 0, 5)
    };
    assert_eq!(run([1, 3], None).unwrap(), [1., 1.5, 3., 2.5, 5.]);
    assert_eq!(run([1, -4], None).unwrap(), [1., 2.5, 3., 4., 5.]);
    assert_eq!(
        run([1, -4], Some(BinaryOp::Add)).unwrap(),
        [1., 6., 3., 4., 5.]
    );
    assert_eq!(
        run([1, -4], Some(BinaryOp::Mul)).unwrap(),
        [1., 7.5, 3., 4., 5.]
    );
    assert_eq!(
        run([1, -4], Some(BinaryOp::Max)).unwrap(),
        [1., 2.5, 3., 4., 5.]
    );
    assert_eq!(
        run([1, -4], Some(BinaryOp::Min)).unwrap(),
        [1., 1.5, 3., 4., 5.]
    );
    let error = run([1, 5], None).unwrap_err().to_string();
    assert!(error.contains("index 5 is outside"), "{error}");
}

#[test]
fn integer_arithmetic_wraps_and_broadcasts() {
    use turbine_runtime::{BinaryOp as B, Device, ElementType as E};
    let mut dev = Device::new(roomy());
    let a = dev.alloc_typed(Placement::Lb(C00), 4 * 8, E::I64).unwrap();
    let b = dev.alloc_typed(Placement::Lb(C00), 8, E::I64).unwrap();
    let out = dev.alloc_typed(Placement::Lb(C00), 4 * 8, E::I64).unwrap();
    let ddr = dev.alloc_typed(Placement::Ddr, 5 * 8, E::I64).unwrap();
    let values: Vec<u8> = [7i64, -7, i64::MAX, 0, 2]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    dev.write_elements(ddr, E::I64, 0, &values).unwrap();
    let result = dev.alloc_typed(Placement::Ddr, 4 * 8, E::I64).unwrap();
    let v = |buffer, offset, n| View::contiguous(buffer, offset, &[n]);
    let run = |dev: &mut Device, op| {
        let steps = [
            step(
                C00,
                Instr::Dma {
                    src: v(ddr, 0, 4),
                    dst: v(a, 0, 4),
                },
                &[],
            ),
            step(
                C00,
                Instr::Dma {
                    src: v(ddr, 4, 1),
                    dst: v(b, 0, 1),
                },
                &[],
            ),
            step(
                C00,
                Instr::Binary {
                    op,
                    a: v(a, 0, 4),
                    b: v(b, 0, 1),
                    out: v(out, 0, 4),
                },
                &[0, 1],
            ),
            step(
                C00,
                Instr::Dma {
                    src: v(out, 0, 4),
                    dst: v(result, 0, 4),
                },
                &[2],
            ),
        ];
        launch(dev, "integers", &[C00], &steps).unwrap();
        dev.read_elements(result, E::I64, 0, 4)
            .unwrap()
            .chunks_exact(8)
            .map(|b| i64::from_ne_bytes(b.try_into().unwrap()))
            .collect::<Vec<i64>>()
    };
    assert_eq!(run(&mut dev, B::Add), [9, -5, i64::MIN + 1, 2]);
    assert_eq!(run(&mut dev, B::Div), [3, -3, i64::MAX / 2, 0]);
    assert_eq!(run(&mut dev, B::Pow), [49, 49, i64::MAX, 0]);
}

#[test]
fn arg_reductions_find_the_first_or_last_extreme_and_nan() {
    use turbine_runtime::{Device, ElementType as E};
    let mut dev = Device::new(roomy());
    let ddr = dev.alloc(Placement::Ddr, 8 * 4).unwrap();
    dev.write(ddr, 0, &[1., 3., 3., 0., 2., f32::NAN, 5., f32::NAN])
        .unwrap();
    let lb = dev.alloc(Placement::Lb(C00), 8 * 4).unwrap();
    let picked = dev.alloc_typed(Placement::Lb(C00), 2 * 8, E::I64).unwrap();
    let result = dev.alloc_typed(Placement::Ddr, 2 * 8, E::I64).unwrap();
    let run = |dev: &mut Device, largest, last| {
        let steps = [
            step(
                C00,
                Instr::Dma {
                    src: View::contiguous(ddr, 0, &[2, 4]),
                    dst: View::contiguous(lb, 0, &[2, 4]),
                },
                &[],
            ),
            step(
                C00,
                Instr::ArgReduce {
                    largest,
                    last,
                    axis: 1,
                    input: View::contiguous(lb, 0, &[2, 4]),
                    out: View::contiguous(picked, 0, &[2, 1]),
                },
                &[0],
            ),
            step(
                C00,
                Instr::Dma {
                    src: View::contiguous(picked, 0, &[2, 1]),
                    dst: View::contiguous(result, 0, &[2, 1]),
                },
                &[1],
            ),
        ];
        launch(dev, "arg", &[C00], &steps).unwrap();
        dev.read_elements(result, E::I64, 0, 2)
            .unwrap()
            .chunks_exact(8)
            .map(|b| i64::from_ne_bytes(b.try_into().unwrap()))
            .collect::<Vec<i64>>()
    };
    assert_eq!(run(&mut dev, true, false), [1, 1]);
    assert_eq!(run(&mut dev, true, true), [2, 1]);
    assert_eq!(run(&mut dev, false, false), [3, 1]);
}

#[test]
fn compute_units_run_each_element_type_at_its_rate() {
    use turbine_runtime::targets::DType;
    use turbine_runtime::{BinaryOp, ComparePredicate, Device, ElementType as E, UnitKind};
    let mut target = roomy();
    let rates = target.throughput.get_mut(&UnitKind::VectorEngine).unwrap();
    rates.insert(DType::I64, 4.0);
    rates.insert(DType::I8, 64.0);
    target.validate().unwrap();
    let (f32_rate, setup) = (
        target
            .throughput(UnitKind::VectorEngine, DType::F32)
            .unwrap(),
        target.latency.compute_setup,
    );
    let mut dev = Device::new(target);
    let n: u64 = 1024;
    let cycles = |dev: &mut Device, instr: Instr| {
        launch(dev, "rate", &[C00], &[step(C00, instr, &[])])
            .unwrap()
            .cycles()
    };
    let binary = |dev: &mut Device, element: E| {
        let bytes = n * element.bytes();
        let a = dev.alloc_typed(Placement::Lb(C00), bytes, element).unwrap();
        let out = dev.alloc_typed(Placement::Lb(C00), bytes, element).unwrap();
        let v = |buffer| View::contiguous(buffer, 0, &[n]);
        let instr = Instr::Binary {
            op: BinaryOp::Add,
            a: v(a),
            b: v(a),
            out: v(out),
        };
        cycles(dev, instr)
    };
    let expected = |rate: f64| setup + (n as f64 / rate).ceil() as u64;
    // i64 at its own rate; i32, which the target gives no rate, at the f32 rate.
    assert_eq!(binary(&mut dev, E::F32), expected(f32_rate));
    assert_eq!(binary(&mut dev, E::I64), expected(4.0));
    assert_eq!(binary(&mut dev, E::I32), expected(f32_rate));
    // Booleans compared at the i8 rate.
    let a = dev.alloc_typed(Placement::Lb(C00), n, E::Bool).unwrap();
    let out = dev.alloc_typed(Placement::Lb(C00), n, E::Bool).unwrap();
    let v = |buffer| View::contiguous(buffer, 0, &[n]);
    let compare = Instr::Compare {
        predicate: ComparePredicate::Eq,
        a: v(a),
        b: v(a),
        out: v(out),
    };
    assert_eq!(cycles(&mut dev, compare), expected(64.0));
}

#[test]
fn top_k_orders_lines_keeping_the_lower_index_of_equals_and_nan_first() {
    use turbine_runtime::{Device, ElementType as E};
    let mut dev = Device::new(roomy());
    let ddr = dev.alloc(Placement::Ddr, 10 * 4).unwrap();
    let line = [1., 3., f32::NAN, 3., 2.];
    dev.write(ddr, 0, &[line, [0., -0., 5., 0., -1.]].concat())
        .unwrap();
    let lb = dev.alloc(Placement::Lb(C00), 10 * 4).unwrap();
    let best = dev.alloc(Placement::Lb(C00), 6 * 4).unwrap();
    let at = dev.alloc_typed(Placement::Lb(C00), 6 * 8, E::I64).unwrap();
    let picked = dev.alloc_typed(Placement::Ddr, 6 * 8, E::I64).unwrap();
    let ordered = dev.alloc(Placement::Ddr, 6 * 4).unwrap();
    let run = |dev: &mut Device, largest| {
        let steps = [
            step(
                C00,
                Instr::Dma {
                    src: View::contiguous(ddr, 0, &[2, 5]),
                    dst: View::contiguous(lb, 0, &[2, 5]),
                },
                &[],
            ),
            step(
                C00,
                Instr::TopK {
                    largest,
                    axis: 1,
                    input: View::contiguous(lb, 0, &[2, 5]),
                    values: View::contiguous(best, 0, &[2, 3]),
                    indices: View::contiguous(at, 0, &[2, 3]),
                },
                &[0],
            ),
            step(
                C00,
                Instr::Dma {
                    src: View::contiguous(at, 0, &[2, 3]),
                    dst: View::contiguous(picked, 0, &[2, 3]),
                },
                &[1],
            ),
            step(
                C00,
                Instr::Dma {
                    src: View::contiguous(best, 0, &[2, 3]),
                    dst: View::contiguous(ordered, 0, &[2, 3]),
                },
                &[1],
            ),
        ];
        launch(dev, "top_k", &[C00], &steps).unwrap();
        let positions = dev.read_elements(picked, E::I64, 0, 6).unwrap();
        let positions: Vec<i64> = positions
            .chunks_exact(8)
            .map(|b| i64::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        (dev.read(ordered, 0, 6).unwrap(), positions)
    };
    let (values, positions) = run(&mut dev, true);
    assert!(values[0].is_nan());
    assert_eq!(values[1..], [3., 3., 5., 0., -0.]);
    assert_eq!(positions, [2, 1, 3, 2, 0, 1]);
    let (values, positions) = run(&mut dev, false);
    assert!(values[0].is_nan());
    assert_eq!(values[1..], [1., 2., -1., 0., -0.]);
    assert_eq!(positions, [2, 0, 4, 4, 0, 1]);
    let too_many = Instr::TopK {
        largest: true,
        axis: 0,
        input: View::contiguous(lb, 0, &[2, 5]),
        values: View::contiguous(best, 0, &[3, 2]),
        indices: View::contiguous(at, 0, &[3, 2]),
    };
    let error = launch(&mut dev, "bad", &[C00], &[step(C00, too_many, &[])]).unwrap_err();
    assert!(
        error.to_string().contains("with at most 2 at axis 0"),
        "{error}"
    );
}
