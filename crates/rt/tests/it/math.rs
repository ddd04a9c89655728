//! Elementwise math built from arithmetic in the compiled path (IREE links no libm), against
//! the interpreter (Rust's libm calls): within a few ulps over a range of arguments, and the
//! same special values.

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{CompileCache, Engine, EngineOptions};

/// Distance in units of `eps` relative to the larger magnitude (NaN only matches NaN).
fn ulps(a: f64, b: f64, eps: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if a == b {
        return 0.0;
    }
    if a.is_infinite() || b.is_infinite() {
        return f64::INFINITY;
    }
    (a - b).abs() / eps / a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

fn arguments() -> Vec<f64> {
    let mut xs: Vec<f64> = (0..=4000).map(|i| -20.0 + i as f64 * 0.01).collect();
    xs.extend([0.0, -0.0, 1e-300, 5e-324, 1e5, 123_456.789, 1e6, -1e6, std::f64::consts::PI, std::f64::consts::FRAC_PI_2]);
    xs.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
    xs.extend(large_arguments());
    xs
}

/// Both signs of a sweep from the end of the three-part reduction (2^20 * pi/2) to the largest
/// `f64`, every power of two there, and the arguments on either side of the switch.
fn large_arguments() -> Vec<f64> {
    let mut xs: Vec<f64> = (0..=3000).map(|i| 1_647_099.0 * 10f64.powf(i as f64 * 0.1007)).filter(|x| x.is_finite()).collect();
    xs.extend((21..=1023).map(|k| 2f64.powi(k)));
    xs.extend([1_647_099.3, 1_647_099.4, 1e22, f64::MAX]);
    let negative: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negative);
    xs
}

/// The `f64` nearest a multiple of pi/2 (6381956970095103 * 2^797, about 2^-61 from it in
/// units of pi/2): sin, cos and tan against mpmath at 400 digits (libm's cos is 7 ulps off
/// here, so the interpreter is not the reference).
#[test]
fn reduction_of_the_hardest_argument() {
    let x = 6_381_956_970_095_103.0 * 2f64.powi(797);
    let src = "fn f(x: f64[n]) -> (f64[n], f64[n], f64[n]) { (sin(x), cos(x), tan(x)) }\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut e = Engine::new(EngineOptions { cache_dir: CompileCache::default_dir(), ..Default::default() }).expect("IREE runtime starts");
    let got = e.call(&prog, "f", &[vec64(&[x, -x])]).unwrap();
    // mpmath.sin, cos, tan of mpf(6381956970095103) * 2**797, mp.dps = 400.
    let want = [[1.0, -1.0], [-4.687165924254628e-19, -4.687165924254628e-19], [-2.133485385753704e18, 2.133485385753704e18]];
    for (name, (g, w)) in ["sin", "cos", "tan"].iter().zip(got.iter().zip(want)) {
        let Value::F64(g) = g else { panic!("{name}: dtype {}", g.dtype()) };
        for (g, w) in g.iter().zip(w) {
            assert!(ulps(*g, w, f64::EPSILON) <= 1.0, "{name}(±x): compiled {g:e}, mpmath {w:e}");
        }
    }
}

#[test]
fn sin_and_cos_match_libm() {
    let src = "fn s(x: f64[n]) { sin(x) }\nfn c(x: f64[n]) { cos(x) }\nfn s32(x: f32[n]) { sin(x) }\nfn c32(x: f32[n]) { cos(x) }\n";
    let prog = ptl_lang::frontend(src).expect("checks");
    let mut e = Engine::new(EngineOptions { cache_dir: CompileCache::default_dir(), ..Default::default() }).expect("IREE runtime starts");
    let xs = arguments();
    let x64 = Value::F64(ArrayD::from_shape_vec(IxDyn(&[xs.len()]), xs.clone()).unwrap());
    let x32 = Value::F32(ArrayD::from_shape_vec(IxDyn(&[xs.len()]), xs.iter().map(|&x| x as f32).collect()).unwrap());
    for (name, arg, tolerance) in [("s", &x64, 2.0), ("c", &x64, 2.0), ("s32", &x32, 1.0), ("c32", &x32, 1.0)] {
        let want = ptl_interp::call_function(&prog, name, std::slice::from_ref(arg)).unwrap().remove(0);
        let got = e.call(&prog, name, std::slice::from_ref(arg)).unwrap().remove(0);
        let (pairs, eps): (Vec<(f64, f64)>, f64) = match (&got, &want) {
            (Value::F64(g), Value::F64(w)) => (g.iter().zip(w.iter()).map(|(a, b)| (*a, *b)).collect(), f64::EPSILON),
            (Value::F32(g), Value::F32(w)) => {
                (g.iter().zip(w.iter()).map(|(a, b)| (*a as f64, *b as f64)).collect(), f32::EPSILON as f64)
            }
            _ => panic!("{name}: dtypes {} and {}", got.dtype(), want.dtype()),
        };
        for (i, (g, w)) in pairs.iter().enumerate() {
            let u = ulps(*g, *w, eps);
            assert!(u <= tolerance, "{name}({}): compiled {g:e}, interpreter {w:e}: {u} ulps", xs[i]);
        }
    }
}

/// Arguments over every op's domain: a fine grid, [-1, 1] finely, both signs of a
/// logarithmic sweep from 1e-300 to 1e300, the far tails some ops are known for, and the
/// special values.
fn wide_arguments() -> Vec<f64> {
    let mut xs: Vec<f64> = (0..=4000).map(|i| -20.0 + i as f64 * 0.01).collect();
    xs.extend((0..=2000).map(|i| -1.0 + i as f64 * 0.001));
    for i in 0..=600 {
        let m = 10f64.powf(-300.0 + i as f64);
        xs.extend([m, -m, m * 1.37, -m * 2.91]);
    }
    // erfc far out, exp2 near its limits, log1mexp near 0, arccosh near 1.
    xs.extend((0..=300).map(|i| 20.0 + i as f64 * 0.03));
    xs.extend([1023.5, 1024.0, -1074.0, -1075.0, -1022.5, 709.7, 710.0, -745.0, 1.0 + 1e-15, 1.0 - 1e-16, 0.5, -0.5, 2.5, -2.5]);
    xs.extend([0.0, -0.0, 5e-324, -5e-324, f64::MIN_POSITIVE, f64::MAX, -f64::MAX, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
    xs
}

/// Largest ulp distance, compiled vs interpreter, of `name` (a function of one or two
/// arguments in `prog`) over `args`, with the worst argument.
/// What an error is measured against: the result, or at least the operands' magnitude
/// (everywhere, or for negative operands).
#[derive(Clone, Copy, PartialEq)]
enum Scale {
    Result,
    Operands,
    Negative,
    /// Against the envelope `1 / sqrt(1 + |x|)` of an oscillating function (j0, j1), whose
    /// zeros no algorithm here resolves to relative accuracy.
    Envelope,
}

fn worst(e: &mut Engine, prog: &ptl_lang::typed::TProgram, name: &str, args: &[Value], mode: Scale) -> (f64, String) {
    let want = ptl_interp::call_function(prog, name, args).unwrap().remove(0);
    let got = e.call(prog, name, args).unwrap().remove(0);
    let (pairs, eps): (Vec<(f64, f64)>, f64) = match (&got, &want) {
        (Value::F64(g), Value::F64(w)) => (g.iter().zip(w.iter()).map(|(a, b)| (*a, *b)).collect(), f64::EPSILON),
        (Value::F32(g), Value::F32(w)) => {
            (g.iter().zip(w.iter()).map(|(a, b)| (*a as f64, *b as f64)).collect(), f32::EPSILON as f64)
        }
        _ => panic!("{name}: dtypes {} and {}", got.dtype(), want.dtype()),
    };
    let mut worst = (0.0, String::new());
    for (i, (g, w)) in pairs.iter().enumerate() {
        let scale = args.iter().map(|a| f64_at(a, i).abs()).filter(|m| m.is_finite()).fold(0.0, f64::max);
        let negative = args.iter().any(|a| f64_at(a, i) < 0.0);
        let by_operands = mode == Scale::Operands || (mode == Scale::Negative && negative);
        let u = if mode == Scale::Envelope && g.is_finite() && w.is_finite() {
            (g - w).abs() / eps / g.abs().max(w.abs()).max(1.0 / (1.0 + scale).sqrt())
        } else if by_operands && g.is_finite() && w.is_finite() {
            (g - w).abs() / eps / g.abs().max(w.abs()).max(scale).max(f64::MIN_POSITIVE)
        } else {
            ulps(*g, *w, eps)
        };
        if u > worst.0 {
            let at: Vec<String> = args.iter().map(|a| format!("{:e}", f64_at(a, i))).collect();
            worst = (u, format!("at ({}): compiled {g:e}, interpreter {w:e}", at.join(", ")));
        }
    }
    worst
}

/// The arguments squashed by `tanh` into [-1, 1] (erfinv's domain).
fn squashed(v: &Value) -> Value {
    match v {
        Value::F64(a) => vec64(&a.iter().map(|x| x.tanh()).collect::<Vec<_>>()),
        Value::F32(a) => vec32(&a.iter().map(|&x| (x as f64).tanh()).collect::<Vec<_>>()),
        other => other.clone(),
    }
}

/// The elements of `v` that `keep` accepts (as f64), in `v`'s dtype.
fn kept(v: &Value, keep: impl Fn(f64) -> bool) -> Value {
    match v {
        Value::F64(a) => vec64(&a.iter().copied().filter(|&x| keep(x)).collect::<Vec<_>>()),
        Value::F32(a) => vec32(&a.iter().map(|&x| x as f64).filter(|&x| keep(x)).collect::<Vec<_>>()),
        other => other.clone(),
    }
}

fn within(v: &Value, lo: f64, hi: f64) -> Value {
    kept(v, |x| (lo..=hi).contains(&x))
}

/// Without f32's subnormals (an f64 argument is kept whole).
fn normal32(v: &Value) -> Value {
    match v {
        Value::F32(_) => kept(v, |x| !(x != 0.0 && x.abs() < f32::MIN_POSITIVE as f64)),
        other => other.clone(),
    }
}

fn f64_at(v: &Value, i: usize) -> f64 {
    match v {
        Value::F64(a) => a.as_slice().and_then(|s| s.get(i)).copied().unwrap_or(f64::NAN),
        Value::F32(a) => a.as_slice().and_then(|s| s.get(i)).map(|x| *x as f64).unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn vec64(xs: &[f64]) -> Value {
    Value::F64(ArrayD::from_shape_vec(IxDyn(&[xs.len()]), xs.to_vec()).unwrap())
}

fn vec32(xs: &[f64]) -> Value {
    Value::F32(ArrayD::from_shape_vec(IxDyn(&[xs.len()]), xs.iter().map(|&x| x as f32).collect()).unwrap())
}

/// The math library's float functions, compiled (built from arithmetic) against the
/// interpreter (musl's libm through the `libm` crate), in ulps, over `wide_arguments()`.
#[test]
fn math_library_matches_libm() {
    // (op, f64 tolerance in ulps)
    let unary: &[(&str, f64)] = &[
        ("tan", 2.0),
        ("arcsin", 2.0),
        ("arccos", 2.0),
        ("arctan", 2.0),
        ("sinh", 2.0),
        ("cosh", 2.0),
        ("arcsinh", 2.0),
        ("arccosh", 2.0),
        ("arctanh", 2.0),
        ("exp2", 2.0),
        ("expm1", 2.0),
        ("log2", 2.0),
        ("log10", 2.0),
        ("cbrt", 1.0),
        ("erf", 2.0),
        ("erfc", 2.0),
        ("erfcx", 4.0),
        ("gamma", 8.0),
        ("gammaln", 3.0),
        ("digamma", 4.0),
        ("trigamma", 4.0),
        ("i0", 12.0),
        ("i1", 12.0),
        ("i0e", 12.0),
        ("i1e", 12.0),
        ("j0", 6.0),
        ("j1", 6.0),
        ("erfinv", 2.0),
        ("erfcinv", 2.0),
        ("log1mexp", 2.0),
        ("softplus", 2.0),
        ("square", 0.0),
        ("reciprocal", 0.0),
        ("sign", 0.0),
        ("floor", 0.0),
        ("ceil", 0.0),
        ("round", 0.0),
        ("trunc", 0.0),
    ];
    let mut src = String::new();
    for (op, _) in unary {
        src.push_str(&format!("fn {op}64(x: f64[n]) {{ {op}(x) }}\nfn {op}32(x: f32[n]) {{ {op}(x) }}\n"));
    }
    let binary: &[(&str, f64)] = &[("arctan2", 2.0), ("logaddexp", 2.0), ("mod", 0.0), ("floor_divide", 0.0)];
    for (op, _) in binary {
        src.push_str(&format!(
            "fn {op}64(a: f64[n], b: f64[n]) {{ {op}(a, b) }}\nfn {op}32(a: f32[n], b: f32[n]) {{ {op}(a, b) }}\n"
        ));
    }
    let prog = ptl_lang::frontend(&src).expect("checks");
    let mut e = Engine::new(EngineOptions { cache_dir: CompileCache::default_dir(), ..Default::default() }).expect("IREE runtime starts");
    let xs = wide_arguments();
    let (x64, x32) = (vec64(&xs), vec32(&xs));
    let mut failures = Vec::new();
    for (op, tol) in unary {
        for (suffix, arg, tol) in [("64", &x64, *tol), ("32", &x32, 1.0)] {
            // i1 and i1e are x/2 at f32's subnormals: the f64 result is exactly half an f32 ulp
            // there, and rounding it once more (the interpreter) ties to even below the true
            // value, which the compiled code's last bits need not do.
            let arg = if suffix == "32" && matches!(*op, "i1" | "i1e") { &normal32(arg) } else { arg };
            let name = format!("{op}{suffix}");
            // erfinv is defined on [-1, 1]: the arguments squashed by tanh (down to 1 - 2^-53).
            let arg = if *op == "erfinv" { &squashed(arg) } else { arg };
            // erfcinv on [0, 2], normal arguments: at subnormal z the erfc tail it inverts has
            // only a few bits, and the two algorithms part in the 5th digit (SciPy's gives inf
            // at 5e-324).
            let arg = if *op == "erfcinv" { &within(arg, f64::MIN_POSITIVE, 2.0) } else { arg };
            // gammaln of negative x is `log(pi / |x sin(pi x)|) - gammaln(-x)`, which cancels
            // near its zeros (in libm and SciPy as here): measured against |x| there.
            // So does digamma's `psi(1 - x) - pi / tan(pi x)`.
            let scale = match *op {
                "gammaln" | "digamma" => Scale::Negative,
                "j0" | "j1" => Scale::Envelope,
                _ => Scale::Result,
            };
            let (u, at) = worst(&mut e, &prog, &name, std::slice::from_ref(arg), scale);
            println!("{name:>14}: max {u:.2} ulp {at}");
            if u > tol {
                failures.push(format!("{name}: {u} ulps {at}"));
            }
        }
    }
    // Pairs: every a of a sample against every b of a sample (signs, zeros, inf, NaN, far
    // apart magnitudes).
    let sample: Vec<f64> = xs.iter().copied().step_by(37).chain([0.0, -0.0, f64::INFINITY, -f64::INFINITY, f64::NAN, 3.0, -3.0, 1e-300, 7.5]).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &p in &sample {
        for &q in &sample {
            // mod and floor_divide are exact while |a / b| < 2^52 (see lower/src/ops/mathlib.rs).
            a.push(p);
            b.push(q);
        }
    }
    for (op, tol) in binary {
        let (aa, bb): (Vec<f64>, Vec<f64>) = if op.contains("mod") || op.contains("floor") {
            a.iter().zip(&b).filter(|(p, q)| !((*p / *q).abs() >= 2f64.powi(52) && p.is_finite() && q.is_finite() && **q != 0.0)).map(|(p, q)| (*p, *q)).unzip()
        } else {
            (a.clone(), b.clone())
        };
        for (suffix, args, tol) in [("64", [vec64(&aa), vec64(&bb)], *tol), ("32", [vec32(&aa), vec32(&bb)], 1.0)] {
            let name = format!("{op}{suffix}");
            // logaddexp's result cancels (a + log1p(exp(b - a)) near 0, in NumPy's formula
            // as here): its error is measured against the operands' magnitude.
            let scale = if *op == "logaddexp" { Scale::Operands } else { Scale::Result };
            let (u, at) = worst(&mut e, &prog, &name, &args, scale);
            println!("{name:>14}: max {u:.2} ulp {at}");
            if u > tol {
                failures.push(format!("{name}: {u} ulps {at}"));
            }
        }
    }
    assert!(failures.is_empty(), "beyond tolerance:\n{}", failures.join("\n"));
}
