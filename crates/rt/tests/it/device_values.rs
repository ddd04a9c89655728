//! Results kept in device memory feed later calls without a trip through the host, and are
//! checked against the signature like host arrays. On the CPU, and on Vulkan where a device is.

use ndarray::arr1;
use ptl_lang::Value;
use ptl_rt::{Arg, Device, Engine, EngineOptions, RtError};

const SRC: &str = "fn step(x: f32[n], v: f32[n]) -> (f32[n], f32[n]) { (x + 0.1 * v, v * 0.9 - 0.1 * x) }
fn energy(x: f32[n], v: f32[n]) -> f32 { sum(x * x + v * v) }";

fn check_on(device: Device) {
    let mut engine = match Engine::new(EngineOptions { device, ..Default::default() }) {
        Ok(e) => e,
        Err(e) => return eprintln!("SKIPPED on {}: {e}", device.driver()),
    };
    let prog = ptl_lang::frontend(SRC).expect("checks");
    let x0 = Value::F32(arr1(&[1.0f32, -2.0, 0.5]).into_dyn());
    let v0 = Value::F32(arr1(&[0.0f32, 1.0, -1.0]).into_dyn());

    // Ten steps with the state on the device, and the same through the interpreter.
    let mut x = engine.upload(&x0).expect("uploads");
    let mut v = engine.upload(&v0).expect("uploads");
    let (mut hx, mut hv) = (x0.clone(), v0.clone());
    for _ in 0..10 {
        let out = engine.call_on_device(&prog, "step", &[Arg::Device(&x), Arg::Device(&v)]).expect("steps");
        (x, v) = (out[0].clone(), out[1].clone());
        let want = ptl_interp::call_function(&prog, "step", &[hx, hv]).expect("interprets");
        (hx, hv) = (want[0].clone(), want[1].clone());
    }
    let (gx, gv) = (engine.download(&x).unwrap(), engine.download(&v).unwrap());
    for (g, w) in [(&gx, &hx), (&gv, &hv)] {
        let (Value::F32(g), Value::F32(w)) = (g, w) else { panic!("dtypes") };
        assert!(g.iter().zip(w).all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs())), "{g} vs {w}");
    }
    // A device value and a host array mixed in one call.
    let e = engine.call_on_device(&prog, "energy", &[Arg::Device(&x), Arg::Host(&hv)]).expect("runs");
    assert_eq!(e[0].shape(), &[] as &[usize]);

    // A device value of the wrong length is refused by name, before IREE sees it.
    let short = engine.upload(&Value::F32(arr1(&[1.0f32, 2.0]).into_dyn())).unwrap();
    match engine.call_on_device(&prog, "step", &[Arg::Device(&x), Arg::Device(&short)]) {
        Err(err @ RtError::Argument { .. }) => {
            let text = err.to_string();
            assert!(text.contains("`v`") && text.contains("f32[2]"), "{text}");
        }
        other => panic!("expected an argument error, got {other:?}"),
    }
}

#[test]
fn device_values_on_the_cpu() {
    check_on(Device::LocalSync);
}

#[test]
fn device_values_on_vulkan() {
    check_on(Device::Vulkan);
}
