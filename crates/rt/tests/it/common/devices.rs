//! What the device tests share: running every fixture on a device and comparing it with the
//! reference interpreter.

#![allow(dead_code)]

use std::path::Path;

use ptl_lang::{Value, map_value};
use ptl_rt::{Device, Engine, EngineOptions, RtError};
use ptl_testkit::fixture::{Expected, load_all};

/// An engine on `device`, or `None` (with the reason printed) where this machine has none,
/// unless `require` names an environment variable set to 1: then a missing device fails.
pub fn engine_on(device: Device, require: &str) -> Option<Engine> {
    let options = EngineOptions { device, cache_dir: ptl_rt::CompileCache::default_dir(), ..Default::default() };
    match Engine::new(options) {
        Ok(e) => Some(e),
        Err(e) if std::env::var(require).is_ok_and(|v| v == "1") => panic!("{require}=1 but: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no {} device ({e})", device.driver());
            None
        }
    }
}

fn close(a: f64, b: f64, rtol: f64, atol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * a.abs().max(b.abs())
}

/// Why `got` differs from `want`: f32 within rtol 1e-5, f64 within 1e-12 (the CPU's
/// tolerance), integers and bools exactly.
pub fn compare(got: &Value, want: &Value) -> Option<String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Some(format!("type {} vs expected {}", got.tensor_type(), want.tensor_type()));
    }
    let floats: Option<(Vec<f64>, Vec<f64>, f64, f64)> = match (got, want) {
        (Value::F32(g), Value::F32(w)) => {
            Some((g.iter().map(|&x| x as f64).collect(), w.iter().map(|&x| x as f64).collect(), 1e-5, 1e-30))
        }
        (Value::F64(g), Value::F64(w)) => Some((g.iter().copied().collect(), w.iter().copied().collect(), 1e-12, 1e-300)),
        _ => None,
    };
    match floats {
        Some((g, w, rtol, atol)) => g
            .iter()
            .zip(&w)
            .enumerate()
            .find(|(_, (a, b))| !close(**a, **b, rtol, atol))
            .map(|(i, (a, b))| format!("element {i}: {a} vs expected {b}")),
        None => {
            let g = map_value!(got, a => format!("{:?}", a.iter().collect::<Vec<_>>()));
            let w = map_value!(want, a => format!("{:?}", a.iter().collect::<Vec<_>>()));
            (g != w).then(|| format!("{g} vs expected {w}"))
        }
    }
}

/// Runs every output and run-time error fixture on `engine`'s device, skipping those
/// `skip` gives a reason for; panics with every disagreement.
pub fn fixtures_agree(engine: &mut Engine, skip: &dyn Fn(&str) -> Option<&'static str>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let all = load_all(&dir);
    let mut failures = Vec::new();
    let mut outputs = 0;
    let mut refused = Vec::new();
    for f in &all {
        let name = f.path.display().to_string();
        if let Some(why) = skip(&name) {
            eprintln!("{name}: not compared: {why}");
            continue;
        }
        let expect_failure = match &f.expected {
            Expected::Output(_) => false,
            Expected::Error(e) if e.starts_with("runtime error") => true,
            Expected::Error(_) | Expected::Missing => continue,
        };
        let prog = ptl_lang::frontend(&f.source).unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let want = ptl_interp::run_program(&prog);
        match (want, engine.run_script(&prog)) {
            (Ok(want), Ok(got)) if !expect_failure => {
                outputs += 1;
                if got.len() != want.len() {
                    failures.push(format!("{name}: {} values vs expected {}", got.len(), want.len()));
                }
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    if let Some(why) = compare(g, w) {
                        failures.push(format!("{name}: print #{i}: {why}"));
                    }
                }
            }
            // What the device cannot compute is refused with ptl's reason: an f64 op SPIR-V
            // has no form of (before compiling), or an empty array (Vulkan binds no empty buffer).
            (_, Err(e @ (RtError::Unsupported { .. } | RtError::Device(_)))) => {
                refused.push(format!("{name}: {e}"));
            }
            (Err(i), Err(c)) if expect_failure => {
                let (want, got) = (i.diagnostic(), c.diagnostic());
                if got.as_ref().map(|g| (&g.message, &g.span)) != Some((&want.message, &want.span)) {
                    failures.push(format!("{name}: the interpreter failed with `{}`, the device with `{c}`", want.message));
                }
            }
            (want, got) => failures.push(format!("{name}: interpreter {want:?}, on the device {got:?}")),
        }
    }
    eprintln!("{outputs} fixtures agree; {} refused by the device:\n{}", refused.len(), refused.join("\n"));
    assert!(outputs >= 50, "expected the output fixtures under {}", dir.display());
    assert!(failures.is_empty(), "{} fixtures disagree on the device:\n{}", failures.len(), failures.join("\n"));
}

