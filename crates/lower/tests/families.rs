//! The lowering of each op family, read off the MLIR it builds (no IREE involved): how many
//! loop nests an expression becomes, where run-time checks stand, which linalg ops appear.

use ptl_lower::{Entry, lower_program};

fn mlir(src: &str, function: &str) -> (String, usize) {
    let prog = ptl_lang::frontend(src).unwrap_or_else(|d| panic!("does not check:\n{src}\n{d:?}"));
    let lowered = lower_program(&prog, &Entry::Function(function.into())).expect("lowers");
    let checks = lowered.checks.len();
    (lowered.mlir, checks)
}

/// The text of `func.func @name` alone.
fn body<'m>(module: &'m str, name: &str) -> &'m str {
    let start = module.find(&format!("func.func @{name}(")).unwrap_or_else(|| panic!("no @{name} in\n{module}"));
    let rest = &module[start..];
    let end = rest[1..].find("func.func @").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn elementwise_broadcasts_fold_into_the_consumer() {
    // Scalars broadcast to `x`'s shape are read through indexing maps: one loop nest per op.
    let (m, checks) = mlir("fn f(x: f64[n]) { x * 2.0 + 1.0 }", "f");
    assert_eq!(count(body(&m, "f"), "linalg.generic"), 2, "{m}");
    assert_eq!(checks, 0, "nothing to check: every dim is static or named\n{m}");
}

#[test]
fn a_stretched_unknown_dim_takes_its_size_from_the_sibling() {
    // `b: f64[1]` stretches into `a`'s `?`: still one loop nest, and nothing to check.
    let (m, checks) = mlir("fn f(a: f64[?], b: f64[1]) { a + b }", "f");
    assert_eq!(count(body(&m, "f"), "linalg.generic"), 1, "{m}");
    assert_eq!(checks, 0, "{m}");
}

#[test]
fn a_question_dim_meeting_a_static_one_is_checked_once() {
    let (m, checks) = mlir("fn f(a: f64[?], b: f64[3]) -> f64[3] { a + b }", "f");
    let f = body(&m, "f");
    assert_eq!(count(f, "cf.assert"), 1, "{m}");
    // The function and its checks-only twin each hold the check.
    assert_eq!(checks, 2, "{m}");
    let twin = body(&m, "__ptl_checks_f");
    assert_eq!(count(twin, "cf.assert"), 1, "{m}");
    // The twin returns nothing, so IREE drops its computations.
    assert!(!twin.lines().next().unwrap_or_default().contains("->"), "{twin}");
    // `?` parameters are hidden from IREE's shape inference in the function and in its twin
    // (where IREE otherwise asserted an inferred size at the boundary, before the check); in
    // the twin, so is the operand the broadcast checked (`Emitter::checked_operand`), whose
    // static size IREE otherwise carried back into code the twin keeps.
    assert!(f.contains("util.optimization_barrier"), "{f}");
    assert_eq!(count(f, "util.optimization_barrier"), 1, "{f}");
    assert_eq!(count(twin, "util.optimization_barrier"), 2, "{twin}");
}

#[test]
fn two_question_dims_are_checked_equal() {
    let (m, _) = mlir("fn f(a: f64[?], b: f64[?]) { a * b }", "f");
    assert_eq!(count(body(&m, "f"), "cf.assert"), 1, "{m}");
    // Named dims are bound by the signature: nothing to check inside.
    let (m, checks) = mlir("fn f(a: f64[n], b: f64[n]) { a * b }", "f");
    assert_eq!((count(&m, "cf.assert"), checks), (0, 0), "{m}");
}

#[test]
fn reductions_check_for_empty_axes_only_where_needed() {
    let (m, _) = mlir("fn f(x: f64[?, 3]) { max(x, 0) }", "f");
    assert_eq!(count(body(&m, "f"), "cf.assert"), 1, "{m}");
    let (m, _) = mlir("fn f(x: f64[?, 3]) { max(x, 1) }", "f");
    assert_eq!(count(body(&m, "f"), "cf.assert"), 0, "a static 3 is never empty\n{m}");
    let (m, _) = mlir("fn f(x: f64[?, 3]) { sum(x, 0) }", "f");
    assert_eq!(count(body(&m, "f"), "cf.assert"), 0, "a sum of nothing is 0\n{m}");
}

#[test]
fn contractions_use_named_linalg_ops() {
    let (m, _) = mlir("fn f(a: f32[n, k], b: f32[k, m]) { a @ b }", "f");
    assert!(body(&m, "f").contains("linalg.matmul"), "{m}");
    let (m, _) = mlir("fn f(a: f64[n, k], b: f64[k]) { a @ b }", "f");
    assert!(body(&m, "f").contains("linalg.matvec"), "{m}");
    let (m, _) = mlir("fn f(a: f64[b, n, k], b: f64[b, k, m]) { a @ b }", "f");
    assert!(body(&m, "f").contains("linalg.batch_matmul"), "{m}");
}

#[test]
fn sin_and_cos_are_built_from_arithmetic() {
    // IREE's CPU code links no libm: `math.sin` on f64 would fail to link.
    for dt in ["f32", "f64"] {
        let (m, _) = mlir(&format!("fn f(x: {dt}[n]) {{ sin(x) + cos(x) }}"), "f");
        assert!(!m.contains("math.sin") && !m.contains("math.cos"), "{m}");
        assert!(m.contains("math.floor") && m.contains("arith.select"), "{m}");
    }
}

#[test]
fn slices_read_at_clamped_positions_and_check_single_indices() {
    // A slice needs no check (only a step that is not a literal is checked to be nonzero);
    // its reads come from NumPy's clamped bounds.
    let (m, _) = mlir("fn f(x: f64[n], a: i64, b: i64) { x[a:b] }", "f");
    let f = body(&m, "f");
    assert_eq!(count(f, "cf.assert"), 0, "{m}");
    assert_eq!(count(f, "linalg.generic"), 1, "{m}");
    assert!(f.contains("tensor.extract"), "{m}");
    // A single index is checked, and the read is guarded where the axis may be empty.
    let (m, _) = mlir("fn f(x: f64[n, 3], i: i64) { x[i] }", "f");
    let f = body(&m, "f");
    assert_eq!(count(f, "cf.assert"), 1, "{m}");
    assert!(f.contains("scf.if"), "{m}");
    // On a static axis of size 2 the clamp alone keeps the read in range.
    let (m, _) = mlir("fn f(x: f64[2, 3], i: i64) { x[i] }", "f");
    assert!(!body(&m, "f").contains("scf.if"), "{m}");
}

#[test]
fn indexing_ops_of_small_static_tensors_fuse_and_others_get_a_dispatch_of_their_own() {
    // Dynamic dims: the source and the result sit behind barriers (IREE 3.13 cannot put the
    // buffers of a fused read with dynamic dims on the stack).
    let (m, _) = mlir("fn f(x: f64[n], a: i64) { exp(x[a:]) }", "f");
    assert_eq!(count(body(&m, "f"), "util.optimization_barrier"), 2, "{m}");
    // Static and small (a PyMC point's slices): nothing stops the fusion.
    let (m, _) = mlir("fn f(x: f64[5], m: f64[100, 4]) { sum(m @ expand(x[:4], 1)) + x[4] }", "f");
    assert_eq!(count(body(&m, "f"), "util.optimization_barrier"), 0, "{m}");
    // Static but large: barriers again (a fused buffer past IREE's stack limit fails to compile).
    let (m, _) = mlir("fn f(x: f64[100, 100]) { exp(x[1:, :]) }", "f");
    assert_eq!(count(body(&m, "f"), "util.optimization_barrier"), 2, "{m}");
}

#[test]
fn gathers_and_scatters_check_every_index_once() {
    let (m, _) = mlir("fn f(x: f64[n], i: i64[k]) { x[i] }", "f");
    assert_eq!(count(body(&m, "f"), "cf.assert"), 1, "{m}");
    // A scatter reads only through indexing maps: no `tensor.extract` of a computed position.
    let (m, _) = mlir("fn f(x: f64[n], i: i64[k], v: f64[k]) { scatter_add(x, i, v) }", "f");
    let f = body(&m, "f");
    // The indices, and the values' dims against the index's where they are not static.
    assert!(count(f, "cf.assert") >= 1, "{m}");
    assert!(f.contains("reduction"), "{m}");
}

#[test]
fn dimension_names_are_read_from_the_arguments() {
    let (m, _) = mlir("fn f(x: f64[n]) { sum(x) / n }", "f");
    assert!(body(&m, "f").contains("tensor.from_elements"), "{m}");
}

#[test]
fn a_loop_is_one_scf_for_around_its_body() {
    // The state is the loop's `iter_args`; the body's ops and calls sit inside the loop.
    let src = "fn half(x: f64[n]) -> f64[n] { x * 0.5 }\n\
               fn f(x: f64[n], k: i64) { loop (a, b) = (x, 0.0) for i in 0..k { (half(a), b + sum(a)) } }\n\
               fn g(x: f64[n], k: i64) -> f64[n] { let (a, b) = f(x, k); a }";
    let (m, checks) = mlir(src, "g");
    let f = body(&m, "f");
    assert_eq!(count(f, "scf.for"), 1, "{m}");
    assert!(f.contains("iter_args("), "{m}");
    let inside = &f[f.find("scf.for").expect("a loop")..];
    assert!(inside.contains("call @half"), "the call is inside the loop\n{m}");
    assert_eq!(checks, 0, "{m}");
}

#[test]
fn a_scan_fills_a_preallocated_stack_row_by_row() {
    let (m, _) = mlir("fn f(x: f64[n]) -> f64[n] { let (s, out) = scan s = 0.0 for i in 0..n { (s + x[i], s) }; out }", "f");
    let f = body(&m, "f");
    assert_eq!(count(f, "scf.for"), 1, "{m}");
    assert_eq!(count(f, "tensor.insert_slice"), 1, "{m}");
    let before = &f[..f.find("scf.for").expect("a loop")];
    assert!(before.contains("tensor.empty"), "the stack is allocated before the loop\n{m}");
}
