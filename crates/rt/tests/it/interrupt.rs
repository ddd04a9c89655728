//! Stopping compiled loops: `ptl_rt::interrupt` from another thread makes a call that runs a
//! loop of 10^12 steps return `RtError::Interrupted` at its next step, on both CPU drivers,
//! for `loop` and `scan`, in a loop nested in another and in a function the loop calls; the
//! engine then runs the next call normally. A request made while nothing runs stops the next
//! loop at its first step; `clear_interrupt` withdraws it.
//!
//! The request is process-wide, so these tests take a lock: they would stop each other's
//! loops otherwise (no other test binary runs long loops in this process).

#![allow(clippy::result_large_err)]

use std::sync::Mutex;
use std::time::{Duration, Instant};

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{Device, Engine, EngineOptions, RtError};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const SRC: &str = "
fn step(x: f64[n]) -> f64[n] { x * 0.5 + 1.0 }
fn spin(x: f64[n], steps: i64) -> f64[n] {
    loop s = x for i in 0..steps { step(s) }
}
fn stacked(x: f64, steps: i64) -> f64[?] {
    let (last, all) = scan s = x for i in 0..steps { (s + 1.0, s) };
    all
}
fn nested(x: f64, steps: i64) -> f64 {
    loop s = x for i in 0..3 {
        loop t = s for j in 0..steps { t * 0.5 }
    }
}
";

fn program() -> ptl_lang::typed::TProgram {
    ptl_lang::frontend(SRC).expect("the program checks")
}

fn x() -> Value {
    Value::F64(ArrayD::from_shape_vec(IxDyn(&[4]), vec![1.0, 2.0, 3.0, 4.0]).unwrap())
}

fn scalar(v: f64) -> Value {
    Value::F64(ArrayD::from_elem(IxDyn(&[]), v))
}

fn steps(n: i64) -> Value {
    Value::I64(ArrayD::from_elem(IxDyn(&[]), n))
}

/// Calls `name` on `args` while another thread asks it to stop after 300 ms; the error and
/// how long the call took.
fn interrupted_after_300ms(engine: &mut Engine, prog: &ptl_lang::typed::TProgram, name: &str, args: &[Value]) -> (RtError, Duration) {
    ptl_rt::clear_interrupt();
    let stopper = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        ptl_rt::interrupt();
    });
    let start = Instant::now();
    let err = engine.call(prog, name, args).expect_err("a loop of 10^12 steps cannot end in this test");
    let took = start.elapsed();
    stopper.join().unwrap();
    (err, took)
}

#[test]
fn compiled_loops_stop_when_interrupted() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let prog = program();
    for device in [Device::LocalSync, Device::LocalTask] {
        let mut engine = Engine::new(EngineOptions { device, ..Default::default() }).unwrap();
        // Compile (and load) every function first, so the time below is the loop's.
        for (name, args) in [("spin", vec![x(), steps(2)]), ("stacked", vec![scalar(1.0), steps(2)]), ("nested", vec![scalar(1.0), steps(2)])] {
            engine.call(&prog, name, &args).unwrap();
        }
        for (name, args) in [("spin", vec![x(), steps(1_000_000_000_000)]), ("stacked", vec![scalar(1.0), steps(1_000_000_000_000)]), ("nested", vec![scalar(1.0), steps(1_000_000_000_000)])] {
            if name == "stacked" {
                // A stack of 10^12 rows cannot be allocated: that is the error, before any step.
                let err = engine.call(&prog, name, &args).unwrap_err();
                assert!(matches!(err, RtError::OutOfMemory(_)), "{device:?} {name}: {err}");
                continue;
            }
            let (err, took) = interrupted_after_300ms(&mut engine, &prog, name, &args);
            assert!(matches!(err, RtError::Interrupted), "{device:?} {name}: {err}");
            assert!(took < Duration::from_secs(20), "{device:?} {name}: stopped only after {took:?}");
            // The engine goes on: the same function runs to its end with a short loop.
            let out = engine.call(&prog, name, &[args[0].clone(), steps(3)]).unwrap();
            let want = ptl_interp::call_function(&prog, name, &[args[0].clone(), steps(3)]).unwrap();
            assert_eq!(out, want, "{device:?} {name} after the interrupt");
        }
    }
}

#[test]
fn a_scan_stops_when_interrupted() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let prog = program();
    let mut engine = Engine::new(EngineOptions::default()).unwrap();
    // 10^8 rows of one f64 fit in memory; the steps take far longer than 300 ms.
    let args = [scalar(1.0), steps(100_000_000)];
    engine.call(&prog, "stacked", &[scalar(1.0), steps(2)]).unwrap();
    let (err, _) = interrupted_after_300ms(&mut engine, &prog, "stacked", &args);
    assert!(matches!(err, RtError::Interrupted), "{err}");
    let out = engine.call(&prog, "stacked", &[scalar(1.0), steps(4)]).unwrap();
    assert_eq!(out, ptl_interp::call_function(&prog, "stacked", &[scalar(1.0), steps(4)]).unwrap());
}

#[test]
fn a_pending_request_stops_the_next_loop_until_withdrawn() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let prog = program();
    let mut engine = Engine::new(EngineOptions::default()).unwrap();
    let args = [x(), steps(5)];
    ptl_rt::interrupt();
    let err = engine.call(&prog, "spin", &args).unwrap_err();
    assert!(matches!(err, RtError::Interrupted), "{err}");
    // Answered: the request is gone, and the call runs.
    assert!(!ptl_rt::clear_interrupt());
    let want = ptl_interp::call_function(&prog, "spin", &args).unwrap();
    assert_eq!(engine.call(&prog, "spin", &args).unwrap(), want);
    // Withdrawn before the call: the call runs.
    ptl_rt::interrupt();
    assert!(ptl_rt::clear_interrupt());
    assert_eq!(engine.call(&prog, "spin", &args).unwrap(), want);
    // A function without loops never looks at the request.
    ptl_rt::interrupt();
    let out = engine.call(&prog, "step", &[x()]).unwrap();
    ptl_rt::clear_interrupt();
    assert_eq!(out, ptl_interp::call_function(&prog, "step", &[x()]).unwrap());
}
