//! The devices a program can run on, what each can compute, and the check that a program fits
//! its device before it is compiled.

use std::collections::BTreeSet;

use ptl_lang::typed::{TExpr, TExprKind, TProgram, TStmt};
use ptl_lang::{DType, Span};
use ptl_lower::{Entry, Target, VulkanCaps};

use crate::error::{Result, RtError};

/// Which IREE driver executes the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Device {
    /// The CPU, on the calling thread: lowest per-call overhead, best for small work.
    #[default]
    LocalSync,
    /// The CPU, on a pool of worker threads: faster for large work.
    LocalTask,
    /// The first Vulkan device (a GPU, or lavapipe on the CPU), through SPIR-V.
    Vulkan,
    /// The first NVIDIA GPU, through PTX (a `ptl` built with the `cuda` feature).
    Cuda,
}

impl Device {
    /// The name IREE's driver registry knows the driver by (and `--device` takes).
    pub fn driver(self) -> &'static str {
        match self {
            Device::LocalSync => "local-sync",
            Device::LocalTask => "local-task",
            Device::Vulkan => "vulkan",
            Device::Cuda => "cuda",
        }
    }

    pub(crate) fn spec(self) -> eerie::runtime::DeviceSpec {
        use eerie::runtime::DeviceSpec;
        match self {
            Device::LocalSync => DeviceSpec::local_sync(),
            Device::LocalTask => DeviceSpec::local_task(),
            Device::Vulkan => DeviceSpec::vulkan(),
            Device::Cuda => DeviceSpec::cuda(),
        }
    }

    /// Whether this `ptl` was built with the device's IREE driver.
    pub fn built_in(self) -> bool {
        match self {
            Device::LocalSync | Device::LocalTask => true,
            Device::Vulkan => cfg!(feature = "vulkan"),
            Device::Cuda => cfg!(feature = "cuda"),
        }
    }
}

/// What was found about the device a session runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub device: Device,
    /// The device's own name (`llvmpipe (LLVM 15.0.6, 256 bits)`, `NVIDIA H100`), or `cpu`.
    pub name: String,
    /// Whether it computes in 64-bit floats.
    pub float64: bool,
}

/// Finds `device` and what it can do; an error says why it cannot be used.
pub(crate) fn probe(device: Device, cuda_sm: Option<u32>) -> Result<(DeviceInfo, Target)> {
    if !device.built_in() {
        return Err(RtError::Device(format!(
            "this ptl was built without IREE's `{}` driver (build it with the cargo feature `{}`)",
            device.driver(),
            device.driver()
        )));
    }
    match device {
        Device::LocalSync | Device::LocalTask => {
            Ok((DeviceInfo { device, name: "cpu".into(), float64: true }, Target::Cpu))
        }
        Device::Vulkan => {
            let vk = vulkan_devices().map_err(RtError::Device)?;
            let first = vk.into_iter().next().ok_or_else(|| {
                RtError::Device(
                    "no Vulkan device found: install a GPU's Vulkan driver, or Mesa's lavapipe \
                     (Debian: `apt install mesa-vulkan-drivers`) to run on the CPU"
                        .into(),
                )
            })?;
            let target = Target::Vulkan(first.caps);
            Ok((DeviceInfo { device, name: first.name, float64: first.caps.float64 }, target))
        }
        Device::Cuda => {
            let found = eerie::runtime::Runtime::available_devices(eerie::runtime::Driver::cuda())
                .map_err(|e| RtError::Device(format!("no CUDA device: {}", crate::error::status_message(&e.to_string()))))?;
            let first = found.into_iter().next().ok_or_else(|| RtError::Device("no NVIDIA GPU found by the CUDA driver".into()))?;
            let sm = cuda_sm.unwrap_or(ptl_lower::DEFAULT_CUDA_SM);
            Ok((DeviceInfo { device, name: first.name().to_string(), float64: true }, Target::Cuda { sm }))
        }
    }
}

/// One Vulkan physical device, in the order IREE's driver numbers them.
#[derive(Debug, Clone)]
pub struct VulkanDevice {
    pub name: String,
    /// What the code generation is told about it.
    pub caps: VulkanCaps,
}

/// The machine's Vulkan devices, asked of the Vulkan loader (`libvulkan.so.1`).
pub fn vulkan_devices() -> std::result::Result<Vec<VulkanDevice>, String> {
    use ash::vk;
    // SAFETY: loading the system's Vulkan loader runs its initialisers, as IREE's driver does.
    let entry = unsafe { ash::Entry::load() }.map_err(|e| {
        format!("cannot load the Vulkan loader (libvulkan.so.1): {e}; on Debian `apt install libvulkan1 mesa-vulkan-drivers`")
    })?;
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: a plain instance with no layers or extensions, destroyed below.
    let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| format!("cannot start Vulkan: {e}"))?;
    // SAFETY: the instance is live until `destroy_instance`; the handles are only queried.
    let devices = unsafe {
        let found = instance.enumerate_physical_devices().map(|list| {
            list.into_iter()
                .map(|d| {
                    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
                    let mut sizes = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
                    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup).push_next(&mut sizes);
                    instance.get_physical_device_properties2(d, &mut props2);
                    let props = props2.properties;
                    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
                    let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut v12);
                    instance.get_physical_device_features2(d, &mut features2);
                    let features = features2.features;
                    let limits = props.limits;
                    let ops = vk::SubgroupFeatureFlags::SHUFFLE | vk::SubgroupFeatureFlags::ARITHMETIC;
                    // One fixed subgroup size (the driver reports no range, or a range of one).
                    let fixed = sizes.max_subgroup_size == 0 || sizes.min_subgroup_size == sizes.max_subgroup_size;
                    let usable = subgroup.supported_stages.contains(vk::ShaderStageFlags::COMPUTE)
                        && subgroup.supported_operations.contains(ops)
                        && fixed
                        && subgroup.subgroup_size > 0;
                    VulkanDevice {
                        name: props.device_name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                        caps: VulkanCaps {
                            float64: features.shader_float64 == vk::TRUE,
                            int64: features.shader_int64 == vk::TRUE,
                            int8: v12.shader_int8 == vk::TRUE && v12.storage_buffer8_bit_access == vk::TRUE,
                            subgroup_size: usable.then_some(subgroup.subgroup_size),
                            max_workgroup_size: limits.max_compute_work_group_size,
                            max_invocations: limits.max_compute_work_group_invocations,
                            shared_memory: limits.max_compute_shared_memory_size,
                            max_workgroup_count: limits.max_compute_work_group_count,
                        },
                    }
                })
                .collect::<Vec<_>>()
        });
        instance.destroy_instance(None);
        found
    };
    devices.map_err(|e| format!("cannot list Vulkan devices: {e}"))
}

/// The ops that SPIR-V has no 64-bit form for: Vulkan's extended instructions (GLSL.std.450)
/// give `Exp`, `Log`, `Pow` and the functions built from them only for 16- and 32-bit floats.
/// (`sin`, `cos`, `tan`, their inverses and `arctan2` have f64 forms.) Refused on f64
/// operands; the list is checked against the compiler by `crates/rt/tests/it/vulkan.rs`.
pub const VULKAN_NO_F64: &[&str] = &["exp", "log", "log1p", "tanh", "sigmoid", "**", "logsumexp", "softmax", "log_softmax", "slogdet"];

/// The ops whose `f32` form the lowering computes through f64 (for f32 results as accurate as
/// NumPy's) with exp or log: on Vulkan they are refused in every float dtype. Checked by
/// `crates/rt/tests/it/vulkan.rs` too.
pub const VULKAN_WIDENED: &[&str] = &[
    "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "exp2", "expm1", "log2", "log10", "cbrt", "erf", "erfc", "erfcx", "gammaln",
    "digamma", "erfinv", "erfcinv", "log1mexp", "softplus", "logaddexp", "i0", "i1", "gammainc", "gammaincc", "gammaincinv", "gammainccinv", "betainc", "betaincinv", "polygamma", "owens_t", "kv", "kve",
];

/// Fails when the program computes with 64-bit floats and `device` cannot, or uses an op the
/// device has no 64-bit form of: the error names the first such value and where it is, before
/// anything is compiled.
pub(crate) fn check_fits(prog: &TProgram, entry: &Entry, target: Target, device: &DeviceInfo) -> Result<()> {
    let Target::Vulkan(_) = target else { return Ok(()) };
    let (driver, name) = (device.device.driver(), &device.name);
    // lavapipe (Mesa 22.3) loses work between the steps of a loop, whose steps are separate
    // queue submissions: rows of a scan's stack came back as zeros, or its timeline semaphore
    // reported VK_ERROR_DEVICE_LOST, in a few runs of ten. Refused there rather than wrong. The
    // linear-algebra ops are loops too once lowered (their decompositions): `lu_factor`'s
    // pivots came back wrong there in one run of several.
    let is_loop = |e: &TExpr| match &e.kind {
        TExprKind::Loop(_) => true,
        TExprKind::Op(op, _) => op.family() == ptl_lang::ops::Family::Linalg,
        _ => false,
    };
    if name.starts_with("llvmpipe")
        && let Some((_, span)) = first_hit(prog, entry, &is_loop, false)
    {
        return Err(RtError::Unsupported {
            message: format!(
                "loops (and the linear-algebra ops, which run as loops) are not run on the {driver} device \
                 `{name}` (lavapipe): it loses work between a loop's steps; run them on the CPU or on a GPU"
            ),
            span,
        });
    }
    // A loop inside another loop's body, where the inner loop starts from the outer one's
    // state, started from a freed buffer on Vulkan (a garbage sum, every run): the optimization
    // barrier the lowering puts on a loop's initial state (an IREE 3.13 CPU workaround) is at
    // fault; without it Vulkan agreed. Refused until the lowering knows its target.
    if let Some((_, span)) = first_hit(prog, entry, &|e: &TExpr| matches!(&e.kind, TExprKind::Loop(_)) && has_loop_inside(prog, e, &mut BTreeSet::new()), false) {
        return Err(RtError::Unsupported {
            message: format!(
                "a loop inside a loop's body is not run on the {driver} device `{name}`: IREE 3.13 computes it \
                 wrongly on Vulkan; run it on the CPU"
            ),
            span,
        });
    }
    let float64 = target.has_float64();
    let found = first_hit(prog, entry, &|e: &TExpr| {
        // The ops without an f64 form, on f64 operands, and those computed through f64.
        let op = match &e.kind {
            TExprKind::Op(op, args) => {
                let f64_operand = args.iter().any(|a| a.ty.dtype == DType::F64) || e.ty.dtype == DType::F64;
                (VULKAN_NO_F64.contains(&op.name()) && f64_operand) || VULKAN_WIDENED.contains(&op.name())
            }
            _ => false,
        };
        op || (!float64 && e.result_types().iter().any(|t| t.dtype == DType::F64))
    }, !float64);
    let Some((what, span)) = found else { return Ok(()) };
    let widened = VULKAN_WIDENED.iter().any(|op| what == format!("`{op}`"));
    let message = if widened {
        format!(
            "{what} is computed through f64 (for accurate f32 results too), which SPIR-V has no exp or log \
             for on the {driver} device `{name}`; run it on the CPU"
        )
    } else if float64 || what.starts_with('`') {
        format!(
            "{what} computes in f64, which SPIR-V has no form of on the {driver} device `{name}` \
             (Vulkan's exp, log and pow are 32-bit only); compute it in f32 (`cast(x, f32)`) or run on the CPU"
        )
    } else {
        format!(
            "{what} is f64, and the {driver} device `{name}` has no 64-bit floats (no `shaderFloat64`); \
             use f32 (`cast(x, f32)`) or run on the CPU"
        )
    };
    Err(RtError::Unsupported { message, span })
}

/// Whether a loop is inside `e`, directly or in a function it calls (each looked at once).
fn has_loop_inside<'p>(prog: &'p TProgram, e: &'p TExpr, seen: &mut BTreeSet<&'p str>) -> bool {
    e.children().into_iter().any(|c| {
        let called = match &c.kind {
            TExprKind::Call(name, _) | TExprKind::CallMulti(name, ..) if seen.insert(name) => prog.function(name),
            _ => None,
        };
        let in_callee = called.is_some_and(|f| {
            f.body.lets.iter().map(|l| &l.value).chain(&f.body.results).any(|x| matches!(&x.kind, TExprKind::Loop(_)) || has_loop_inside(prog, x, seen))
        });
        in_callee || matches!(&c.kind, TExprKind::Loop(_)) || has_loop_inside(prog, c, seen)
    })
}

/// The first expression the entry computes that `hit` picks (with `params`, or a parameter
/// that is f64), in source order within each function, the functions it calls included.
fn first_hit(prog: &TProgram, entry: &Entry, hit: &dyn Fn(&TExpr) -> bool, params: bool) -> Option<(String, Span)> {
    let mut todo: Vec<&str> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut exprs: Vec<&TExpr> = Vec::new();
    match entry {
        Entry::Script => {
            for s in &prog.top {
                match s {
                    TStmt::Let(l) => exprs.push(&l.value),
                    TStmt::Print(es, _) => exprs.extend(es.iter()),
                }
            }
        }
        Entry::Function(name) => todo.push(name),
    }
    loop {
        if let Some(found) = exprs.iter().find_map(|e| first_hit_in(e, &mut todo, hit)) {
            return Some(found);
        }
        exprs.clear();
        let name = loop {
            let n = todo.pop()?;
            if seen.insert(n) {
                break n;
            }
        };
        let f = prog.function(name)?;
        if let Some(p) = f.params.iter().find(|p| params && p.ty.dtype == DType::F64) {
            return Some((format!("argument `{}` of `{}`", p.name, f.name), p.span.clone()));
        }
        exprs.extend(f.body.lets.iter().map(|l| &l.value));
        exprs.extend(f.body.results.iter());
    }
}

fn first_hit_in<'p>(e: &'p TExpr, calls: &mut Vec<&'p str>, hit: &dyn Fn(&TExpr) -> bool) -> Option<(String, Span)> {
    for c in e.children() {
        if let Some(found) = first_hit_in(c, calls, hit) {
            return Some(found);
        }
    }
    if let TExprKind::Call(name, _) | TExprKind::CallMulti(name, ..) = &e.kind {
        calls.push(name);
    }
    let what = match &e.kind {
        TExprKind::Op(op, _) => format!("`{}`", op.name()),
        _ => "this value".to_string(),
    };
    hit(e).then_some((what, e.span.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a GPU (not lavapipe) with every capability is refused: the check needs no device.
    fn refusal(src: &str, name: &str) -> Option<String> {
        let prog = ptl_lang::frontend(src).unwrap_or_else(|d| panic!("{src}: {d:?}"));
        let caps = VulkanCaps::BASELINE;
        let device = DeviceInfo { device: Device::Vulkan, name: "Some GPU".into(), float64: true };
        match check_fits(&prog, &Entry::Function(name.into()), Target::Vulkan(caps), &device) {
            Ok(()) => None,
            Err(e) => Some(e.to_string()),
        }
    }

    #[test]
    fn nested_loops_are_found_through_calls() {
        let inline = "fn f(n: i64) -> i64 { loop s = 0 for i in 0..n { loop t = s for j in 0..i { t + j } } }";
        assert!(refusal(inline, "f").is_some_and(|m| m.contains("a loop inside a loop's body")));
        let through_call = "fn inner(s: i64, i: i64) -> i64 { loop t = s for j in 0..i { t + j } }
fn steps(n: i64) -> i64 { loop s = 0 for i in 0..n { inner(s, i) } }";
        assert!(refusal(through_call, "steps").is_some_and(|m| m.contains("a loop inside a loop's body")));
        let single = "fn g(n: i64) -> i64 { loop s = 0 for i in 0..n { s + i } }";
        assert_eq!(refusal(single, "g"), None);
    }

    #[test]
    fn f64_functions_are_named_and_f32_ones_pass() {
        let m = refusal("fn f(x: f64[n]) -> f64 { sum(exp(x)) }", "f").expect("refused");
        assert!(m.starts_with("`exp` computes in f64"), "{m}");
        assert_eq!(refusal("fn f(x: f32[n]) -> f32 { sum(exp(x)) }", "f"), None);
        let m = refusal("fn f(x: f32[n]) -> f32[n] { sinh(x) }", "f").expect("refused");
        assert!(m.starts_with("`sinh` is computed through f64"), "{m}");
        assert_eq!(refusal("fn f(x: f64[n]) -> f64[n] { sqrt(abs(x)) + sin(x) }", "f"), None);
    }
}
