//! Memory soak: calls one compiled function many times and samples the resident set size.
//!
//! `cargo run --release -p ptl-rt --example soak -- [CALLS] [ELEMENTS] [local-sync|local-task]`
//! prints RSS samples and the least-squares slope in bytes per call; a flat runtime has a
//! slope near 0.

use std::time::Instant;

use ndarray::{ArrayD, IxDyn};
use ptl_lang::Value;
use ptl_rt::{Device, Engine, EngineOptions};

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|p| p.parse::<u64>().ok()))
        .map(|pages| pages * 4)
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let calls: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let device = match args.get(3).map(String::as_str) {
        Some("local-task") => Device::LocalTask,
        _ => Device::LocalSync,
    };
    let prog = ptl_lang::frontend("fn axpy(x: f64[n], y: f64[n]) -> f64[n] { x + y * 2.0 }").expect("checks");
    let mut engine = Engine::new(EngineOptions { device, ..Default::default() }).expect("runtime");
    let x = Value::F64(ArrayD::from_shape_fn(IxDyn(&[n]), |i| i[0] as f64));
    let y = Value::F64(ArrayD::from_shape_fn(IxDyn(&[n]), |i| 1.0 + i[0] as f64));
    let args = [x, y];
    // Warm up: compile, load, first allocations.
    for _ in 0..1000 {
        engine.call(&prog, "axpy", &args).expect("call");
    }
    let samples = 20;
    let mut points = Vec::new();
    let t = Instant::now();
    for s in 0..samples {
        for _ in 0..calls / samples {
            engine.call(&prog, "axpy", &args).expect("call");
        }
        points.push((((s + 1) * (calls / samples)) as f64, rss_kb() as f64 * 1024.0));
    }
    let elapsed = t.elapsed();
    let k = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / k, points.iter().map(|p| p.1).sum::<f64>() / k);
    let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>()
        / points.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    println!("calls: {calls}, elements: {n}, device: {device:?}");
    println!("rss first: {:.0} kB, last: {:.0} kB", points[0].1 / 1024.0, points[points.len() - 1].1 / 1024.0);
    println!("slope: {slope:.4} bytes/call");
    println!("time: {:.2} us/call (including argument checks and copies)", elapsed.as_secs_f64() * 1e6 / calls as f64);
}
