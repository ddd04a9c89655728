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
    (a - b).abs() / eps / a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

fn arguments() -> Vec<f64> {
    let mut xs: Vec<f64> = (0..=4000).map(|i| -20.0 + i as f64 * 0.01).collect();
    xs.extend([0.0, -0.0, 1e-300, 5e-324, 1e5, 123_456.789, 1e6, -1e6, std::f64::consts::PI, std::f64::consts::FRAC_PI_2]);
    xs.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
    xs
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
