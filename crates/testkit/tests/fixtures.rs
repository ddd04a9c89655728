//! Runs every fixture under `tests/fixtures/` through the frontend and the reference
//! interpreter and compares with its expectation. `UPDATE_EXPECT=1` rewrites the
//! expectations instead (review the result by hand before committing).

use std::path::PathBuf;

use ptl_testkit::fixture::{Expected, evaluate, load_all, render_expected, with_expected};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// A line diff of two texts (longest common subsequence), `-` expected, `+` actual.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("   {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!(" + {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!(" - {}\n", a[i]));
            i += 1;
        }
    }
    out
}

#[test]
fn fixtures() {
    let dir = fixtures_dir();
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let fixtures = load_all(&dir);
    assert!(!fixtures.is_empty(), "no fixtures under {}", dir.display());
    let mut failures = Vec::new();
    let mut updated = 0;
    for f in &fixtures {
        let actual = evaluate(&f.source, &f.file_name());
        if actual == f.expected {
            continue;
        }
        if update {
            std::fs::write(&f.path, with_expected(&f.source, &actual))
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", f.path.display()));
            updated += 1;
            continue;
        }
        let shown = f
            .path
            .strip_prefix(&dir)
            .unwrap_or(&f.path)
            .display()
            .to_string();
        let message = match &f.expected {
            Expected::Missing => format!(
                "{shown}: no expectation (run with UPDATE_EXPECT=1)\n{}",
                render_expected(&actual)
            ),
            exp => format!(
                "{shown}:\n{}",
                diff(&render_expected(exp), &render_expected(&actual))
            ),
        };
        failures.push(message);
    }
    if update {
        eprintln!("updated {updated} of {} fixtures", fixtures.len());
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n")
    );
}

/// Walks a typed expression and checks the invariants `typed.rs` promises.
fn check_invariants(e: &ptl_lang::typed::TExpr, errors: &mut Vec<String>) {
    use ptl_lang::DType;
    use ptl_lang::ops::{Family, Op};
    use ptl_lang::typed::{BinaryOp, TExprKind};
    let mut fail = |m: String| errors.push(format!("{m} at {:?}", e.span));
    match &e.kind {
        TExprKind::Literal(v) if v.tensor_type() != e.ty => {
            fail(format!("literal of type {} typed {}", v.tensor_type(), e.ty));
        }
        TExprKind::Op(op, args) => {
            let (lo, hi) = op.arity();
            if args.len() < lo || args.len() > hi {
                fail(format!("`{op}` with {} operands", args.len()));
                return;
            }
            // Broadcasting is explicit: elementwise operands have the result's dims.
            if op.family() == Family::Elementwise {
                for a in args {
                    if a.ty.dims != e.ty.dims {
                        fail(format!("`{op}` operand {} for result {}", a.ty, e.ty));
                    }
                }
            }
            match op {
                Op::Binary(bop) => {
                    let (a, b) = (&args[0], &args[1]);
                    if a.ty.dtype != b.ty.dtype {
                        fail(format!("binary operands {} and {}", a.ty, b.ty));
                    }
                    if *bop == BinaryOp::Div && !a.ty.dtype.is_float() {
                        fail(format!("integer division on {}", a.ty));
                    }
                    let want = if bop.is_comparison() { DType::Bool } else { a.ty.dtype };
                    if e.ty.dtype != want {
                        fail(format!("binary result {} for operands {}", e.ty, a.ty));
                    }
                }
                Op::MatMul if args[0].ty.dtype != args[1].ty.dtype || e.ty.dtype != args[0].ty.dtype => {
                    fail(format!("matmul {} @ {} typed {}", args[0].ty, args[1].ty, e.ty));
                }
                Op::Select
                    if args[0].ty.dtype != DType::Bool || args[1].ty.dtype != e.ty.dtype || args[2].ty.dtype != e.ty.dtype =>
                {
                    fail(format!("where({}, {}, {}) typed {}", args[0].ty, args[1].ty, args[2].ty, e.ty));
                }
                Op::Reduce(_, axes) => {
                    let x = &args[0];
                    let sorted = axes.windows(2).all(|w| w[0] < w[1]);
                    if !sorted || axes.iter().any(|&a| a >= x.ty.rank()) || e.ty.rank() + axes.len() != x.ty.rank() {
                        fail(format!("reduce of {} over {axes:?} typed {}", x.ty, e.ty));
                    }
                }
                Op::Transpose(perm) => {
                    let mut p = perm.clone();
                    p.sort_unstable();
                    if p != (0..args[0].ty.rank()).collect::<Vec<_>>() {
                        fail(format!("transpose of {} by {perm:?}", args[0].ty));
                    }
                }
                Op::Broadcast if args[0].ty.rank() > e.ty.rank() => {
                    fail(format!("broadcast of {} to lower rank {}", args[0].ty, e.ty));
                }
                _ => {}
            }
        }
        _ => {}
    }
    let children = e.children();
    for c in children {
        check_invariants(c, errors);
    }
}

/// Every program of an `output` fixture type-checks into a tree that keeps the typed
/// program's invariants.
#[test]
fn typed_trees_keep_invariants() {
    use ptl_lang::typed::TStmt;
    let mut errors = Vec::new();
    for f in load_all(&fixtures_dir()) {
        if !matches!(f.expected, Expected::Output(_)) {
            continue;
        }
        let Ok(p) = ptl_lang::frontend(&f.source) else {
            errors.push(format!("{}: does not check", f.path.display()));
            continue;
        };
        let mut errs = Vec::new();
        for tf in &p.fns {
            for l in &tf.body.lets {
                check_invariants(&l.value, &mut errs);
            }
            for (r, ty) in tf.body.results.iter().zip(&tf.results) {
                check_invariants(r, &mut errs);
                if r.ty != *ty {
                    errs.push(format!(
                        "result of `{}` typed {} but declared {}",
                        tf.name, r.ty, ty
                    ));
                }
            }
        }
        for s in &p.top {
            match s {
                TStmt::Let(l) => check_invariants(&l.value, &mut errs),
                TStmt::Print(es, _) => es.iter().for_each(|e| check_invariants(e, &mut errs)),
            }
        }
        errors.extend(
            errs.into_iter()
                .map(|e| format!("{}: {e}", f.path.display())),
        );
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
