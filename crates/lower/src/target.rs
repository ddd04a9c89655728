//! What IREE compiles a module for: the CPU, a Vulkan device (SPIR-V) or an NVIDIA GPU (PTX).

use std::fmt;

use melior::ir::{Attribute, Module, operation::OperationMutLike};

use crate::error::{LowerError, Result};

/// The code IREE generates. Part of [`crate::CompileOptions`], so of every cache key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Target {
    /// LLVM code for this machine's CPU (IREE's `local` devices).
    #[default]
    Cpu,
    /// SPIR-V for IREE's Vulkan driver, for a device with these properties.
    Vulkan(VulkanCaps),
    /// PTX for IREE's CUDA driver, for NVIDIA GPUs of compute capability `sm` (80 = Ampere).
    Cuda { sm: u32 },
}

/// The compute capability compiled for when none is given: Ampere, which later GPUs also run.
pub const DEFAULT_CUDA_SM: u32 = 80;

/// What a Vulkan device can do, as its driver reports it. IREE's SPIR-V code generation is
/// told exactly this, not a named GPU's profile: a profile's subgroup size (32 on NVIDIA) that
/// the device does not have (lavapipe's is 8) gives silently wrong reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VulkanCaps {
    /// `shaderFloat64`. Without it an f64 program is refused before compiling: IREE would
    /// otherwise fail in its SPIR-V conversion, or, with its demotion flag, compute in f32
    /// without saying so.
    pub float64: bool,
    /// `shaderInt64` (without it IREE emulates i64 with pairs of i32).
    pub int64: bool,
    /// `shaderInt8` and `storageBuffer8BitAccess`: bools cross the device's buffers as bytes.
    pub int8: bool,
    /// The subgroup size, when the device has one fixed size and subgroup shuffles and
    /// arithmetic in compute shaders; `None` keeps IREE from using subgroup operations.
    pub subgroup_size: Option<u32>,
    /// `maxComputeWorkGroupSize`.
    pub max_workgroup_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`.
    pub max_invocations: u32,
    /// `maxComputeSharedMemorySize`, in bytes.
    pub shared_memory: u32,
    /// `maxComputeWorkGroupCount`.
    pub max_workgroup_count: [u32; 3],
}

impl VulkanCaps {
    /// The minimum every Vulkan 1.1 compute device guarantees, with 64-bit types: for compiling
    /// without a device at hand (`ptl emit --target vulkan`).
    pub const BASELINE: VulkanCaps = VulkanCaps {
        float64: true,
        int64: true,
        int8: true,
        subgroup_size: None,
        max_workgroup_size: [128, 128, 64],
        max_invocations: 128,
        shared_memory: 16384,
        max_workgroup_count: [65535, 65535, 65535],
    };

    /// IREE's description of the device (`#hal.device.target<"vulkan", ...>`).
    fn device_target(&self) -> String {
        let mut compute = vec!["fp32", "int32"];
        let mut storage = vec!["b32"];
        if self.float64 {
            compute.insert(0, "fp64");
        }
        if self.int64 {
            compute.push("int64");
        }
        if self.float64 || self.int64 {
            storage.insert(0, "b64");
        }
        if self.int8 {
            compute.push("int8");
            storage.push("b8");
        }
        let (subgroup, size) = match self.subgroup_size {
            Some(n) => ("shuffle|arithmetic", n),
            // IREE still sizes workgroups by a subgroup size; 32 is a multiple of the usual ones.
            None => ("none", 32),
        };
        let [wx, wy, wz] = self.max_workgroup_size;
        let [cx, cy, cz] = self.max_workgroup_count;
        format!(
            "#hal.device.target<\"vulkan\", [#hal.executable.target<\"vulkan-spirv\", \"vulkan-spirv-fb\", \
             {{iree_codegen.target_info = #iree_gpu.target<arch = \"\", features = \"spirv:v1.3,cap:Shader\", \
             wgp = <compute = {}, storage = {}, subgroup = {subgroup}, subgroup_size_choices = [{size}], \
             max_workgroup_sizes = [{wx}, {wy}, {wz}], max_thread_count_per_workgroup = {}, \
             max_workgroup_memory_bytes = {}, max_workgroup_counts = [{cx}, {cy}, {cz}]>>}}>]> : !hal.device",
            compute.join("|"),
            storage.join("|"),
            self.max_invocations,
            self.shared_memory,
        )
    }
}

impl Target {
    /// Whether code for this target can use 64-bit floats.
    pub fn has_float64(self) -> bool {
        match self {
            Target::Cpu | Target::Cuda { .. } => true,
            Target::Vulkan(caps) => caps.float64,
        }
    }

    /// IREE's flags that choose the device and its code generation.
    pub(crate) fn flags(self, target_cpu: &str) -> Vec<String> {
        match self {
            Target::Cpu => vec![
                "--iree-hal-target-device=local".to_string(),
                "--iree-hal-local-target-device-backends=llvm-cpu".to_string(),
                format!("--iree-llvmcpu-target-cpu={target_cpu}"),
            ],
            // The device's description is an attribute of the module (see `for_device`).
            Target::Vulkan(_) => vec!["--iree-hal-target-device=vulkan".to_string()],
            Target::Cuda { sm } => {
                vec!["--iree-hal-target-device=cuda".to_string(), format!("--iree-cuda-target=sm_{sm}")]
            }
        }
    }

    /// The module text as IREE compiles it for this target: for Vulkan, the module carries
    /// the device's description (`hal.device.targets`), which IREE takes over its flags.
    pub(crate) fn for_device(self, mlir: &str) -> Result<String> {
        let Target::Vulkan(caps) = self else { return Ok(mlir.to_string()) };
        let context = crate::context::new_context();
        let mut module = Module::parse(&context, mlir).ok_or_else(|| LowerError::Internal("the lowered module does not parse".into()))?;
        let targets = format!("[{}]", caps.device_target());
        let attribute = Attribute::parse(&context, &targets)
            .ok_or_else(|| LowerError::Internal(format!("the Vulkan target does not parse: {targets}")))?;
        module.as_operation_mut().set_attribute("hal.device.targets", attribute);
        Ok(module.as_operation().to_string())
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Cpu => write!(f, "cpu"),
            Target::Vulkan(caps) if caps.float64 => write!(f, "vulkan"),
            Target::Vulkan(_) => write!(f, "vulkan (no f64)"),
            Target::Cuda { sm } => write!(f, "cuda (sm_{sm})"),
        }
    }
}
