//! Programs that IREE 3.13 miscompiled before the lowering worked around it, each compiled
//! with the default (optimising) flags and compared with the reference interpreter.

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{Engine, EngineOptions};

fn f32s(shape: &[usize], seed: u32) -> Value {
    let n = shape.iter().product::<usize>();
    let v = (0..n).map(|i| ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 1000) as f32 / 499.0 - 1.0).collect();
    Value::F32(ArrayD::from_shape_vec(IxDyn(shape), v).unwrap())
}

fn agrees(src: &str, args: &[Value]) {
    let prog = ptl_lang::frontend(src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    let want = ptl_interp::call_function(&prog, "f", args).expect("the interpreter runs it");
    let mut engine = Engine::new(EngineOptions::default()).expect("IREE runtime starts");
    let got = engine.call(&prog, "f", args).unwrap_or_else(|e| panic!("{src}: {e}"));
    match (&got[0], &want[0]) {
        (Value::F32(g), Value::F32(w)) => {
            assert_eq!(g.shape(), w.shape(), "{src}");
            for (p, q) in g.iter().zip(w) {
                assert!((p - q).abs() <= 1e-5 * (1.0 + q.abs()), "{src}:\ncompiled {g}\ninterpreter {w}");
            }
        }
        other => panic!("{src}: unexpected values {other:?}"),
    }
}

/// With data tiling, an f32 batched product of a normalised operand (static batch, dynamic
/// rows) gave zeros for every batch after the first.
#[test]
fn batched_products_of_normalised_f32_operands() {
    let cases: [(&str, Vec<Value>); 4] = [
        ("fn f(v: f32[2, n, 1]) -> f32[2, n, 1] { softmax(broadcast((1.54 : f32), [2, n, n]), 2) @ v }", vec![f32s(&[2, 3, 1], 1)]),
        ("fn f(v: f32[2, n, 4], w: f32[2, n, n]) -> f32[2, n, 4] { softmax(w, 2) @ v }", vec![f32s(&[2, 3, 4], 1), f32s(&[2, 3, 3], 2)]),
        (
            "fn f(v: f32[2, n, 1], w: f32[2, n, n]) -> f32[2, n, 1] { (w / broadcast(expand(sum(w, 2), 2), [2, n, n])) @ v }",
            vec![f32s(&[2, 3, 1], 1), f32s(&[2, 3, 3], 2)],
        ),
        ("fn f(v: f32[2, 2, n, 4], w: f32[2, 2, n, n]) -> f32[2, 2, n, 4] { softmax(w, 3) @ v }", vec![f32s(&[2, 2, 3, 4], 1), f32s(&[2, 2, 3, 3], 2)]),
    ];
    for (src, args) in &cases {
        agrees(src, args);
    }
}
