//! IREE compilation of a module's text to a vmfb, with the compiler library found once per process.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use eerie::compiler::Compiler;

use crate::error::{LowerError, Result};
use crate::target::Target;

/// Options that change the compiled code.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// The device the code is for.
    pub target: Target,
    /// `--iree-llvmcpu-target-cpu`: `host` tunes for this machine.
    pub target_cpu: String,
    /// Keep float sums in source order (bitwise reproducible) instead of reassociating.
    pub exact_reductions: bool,
    /// IREE's optimising code generation (LLVM-CPU O3, data tiling, the CPU microkernels,
    /// vectorised float reductions). Off gives IREE's defaults, which compile faster and run
    /// slower. A program the optimised pipeline cannot compile is compiled with the defaults.
    pub optimize: bool,
    /// Further IREE flags for the optimised compile, after ptl's own. The fallback compile
    /// with IREE's defaults leaves them out.
    pub extra_flags: Vec<String>,
    /// On the CPU, f64 matrix products of at least this many multiply-adds (`m * k * n`)
    /// call the host kernel of ptl's runtime (`ptl_host.matmul_f64`) instead of IREE's code,
    /// which has no f64 microkernel. `None` compiles every product. Only
    /// [`crate::lower_program_for`] reads it: a module with host calls runs only on ptl's runtime.
    pub host_matmul_from: Option<u64>,
    /// On the CPU, `cholesky`, `solve_triangular` and `solve` (and what is built on them:
    /// `inv`, derivatives) call the host's factorisations (faer) instead of running IREE's
    /// code for ptl's loop of vector operations. Read as `host_matmul_from` is.
    pub host_linalg: bool,
}

/// The default of [`CompileOptions::host_matmul_from`]: 32^3 multiply-adds. Measured with
/// `make bench`: below it the call's fixed cost (the wait for its operands, an allocation)
/// is a noticeable part; above it the host kernel is several times faster.
pub const HOST_MATMUL_FROM: u64 = 32 * 32 * 32;

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { target: Target::Cpu, target_cpu: "host".into(), exact_reductions: false, optimize: true, extra_flags: Vec::new(), host_matmul_from: Some(HOST_MATMUL_FROM), host_linalg: true }
    }
}

impl CompileOptions {
    /// The compiler flags; part of the compile cache key.
    pub fn flags(&self) -> Vec<String> {
        let mut flags = self.target.flags(&self.target_cpu);
        flags.extend([
            // Without this IREE silently computes f64 programs in f32.
            "--iree-input-demote-f64-to-f32=false".to_string(),
            // Constant subexpressions are folded by MLIR (exact IEEE arithmetic) but not
            // evaluated by IREE's compile-time runtime, which flushes subnormals to zero.
            "--iree-opt-const-eval=false".to_string(),
            // `cf.assert` carries ptl's run-time checks; higher opt levels would strip it.
            "--iree-opt-strip-assertions=false".to_string(),
        ]);
        if self.target != Target::Cpu {
            // The options below tune IREE's CPU code generation; a GPU takes IREE's defaults
            // and the caller's own flags.
            flags.extend(self.extra_flags.iter().cloned());
            return flags;
        }
        if self.optimize {
            // Not the whole of `--iree-opt-level=O3`: in IREE 3.13 its dispatch-creation level
            // fails on some matmul + softmax programs ("write affecting operations on global
            // resources are restricted to workgroup distributed contexts"), and its global
            // optimisation level with data tiling fails on matmuls with dynamic dims
            // ("'affine.delinearize_index' op no basis element may be statically non-positive").
            flags.push("--iree-llvmcpu-mlir-opt-level=O3".to_string());
            // Data tiling with the CPU microkernels gives matmul the `mmt4d` kernel.
            flags.push("--iree-opt-data-tiling".to_string());
            flags.push("--iree-llvmcpu-enable-ukernels=all".to_string());
            if !self.exact_reductions {
                // Vector accumulators in float reductions instead of one serial chain.
                flags.push("--iree-llvmcpu-reassociate-fp-reductions=true".to_string());
            }
            flags.extend(self.extra_flags.iter().cloned());
        }
        if self.exact_reductions {
            flags.push("--iree-llvmcpu-reassociate-fp-reductions=false".to_string());
        }
        flags
    }
}

impl CompileOptions {
    /// What a compiled module depends on besides its text: the flags, and the device's
    /// description that [`compile`] adds to the text. The compile cache keys on it.
    pub fn identity(&self) -> Vec<String> {
        let mut id = self.flags();
        if let Target::Vulkan(caps) = self.target {
            id.push(format!("vulkan device {caps:?}"));
        }
        id
    }
}

static COMPILER: OnceLock<std::result::Result<Compiler, String>> = OnceLock::new();

/// Environment variable naming the IREE compiler library (the file or its folder).
pub const COMPILER_ENV: &str = "PTL_IREE_COMPILER";

/// Candidate locations of `libIREECompiler.so`, best first.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os(COMPILER_ENV) {
        out.push(PathBuf::from(p));
    }
    let mut venvs: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
        venvs.push(PathBuf::from(v));
    }
    // The project's own environment, made by scripts/setup.sh.
    if let Some(v) = option_env!("PTL_DEFAULT_VENV") {
        venvs.push(PathBuf::from(v));
    }
    for venv in venvs {
        if let Ok(entries) = std::fs::read_dir(venv.join("lib")) {
            for entry in entries.flatten() {
                let dir = entry.path().join("site-packages/iree/compiler/_mlir_libs");
                if dir.join("libIREECompiler.so").exists() {
                    out.push(dir);
                }
            }
        }
    }
    out
}

fn install_hint() -> String {
    format!(
        "Install it with `scripts/setup.sh` (or `pip install iree-base-compiler==3.13.0`), \
         or point {COMPILER_ENV} at the library or its folder."
    )
}

fn load() -> std::result::Result<Compiler, String> {
    // An explicit choice that does not exist is a mistake to report, not to work around.
    if let Some(p) = std::env::var_os(COMPILER_ENV).filter(|p| !Path::new(p).exists()) {
        return Err(format!(
            "cannot find the IREE compiler library: {COMPILER_ENV} is set to {}, which does not exist.\n{}",
            Path::new(&p).display(),
            install_hint()
        ));
    }
    for c in candidates() {
        if Path::new(&c).exists() {
            return Compiler::with_library(&c).map_err(|e| format!("cannot load the IREE compiler from {}: {e}", c.display()));
        }
    }
    // Last resort: ask the Python on PATH (or EERIE_PYTHON) where its iree-base-compiler lives.
    Compiler::new().map_err(|e| {
        format!(
            "cannot find the IREE compiler library (libIREECompiler.so).\n{}\n({e})",
            install_hint()
        )
    })
}

/// The process-wide compiler.
pub fn compiler() -> Result<&'static Compiler> {
    COMPILER.get_or_init(load).as_ref().map_err(|e| LowerError::Compiler(e.clone()))
}

/// The compiler's version string, for cache keys.
pub fn compiler_version() -> Result<String> {
    let c = compiler()?;
    let rev = c.get_revision().unwrap_or_default();
    let (major, minor) = c.api_version();
    Ok(format!("iree {rev} api {major}.{minor}"))
}

/// Which compiler a cache key stands for, known without loading the 350 MB library: the
/// library's path, size and modification time, and the version its Python distribution
/// declares next to it. When the library can only be found by asking Python, the loaded
/// compiler's own revision is used.
pub fn compiler_identity() -> Result<String> {
    static IDENTITY: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    IDENTITY
        .get_or_init(|| match candidates().into_iter().find(|c| c.exists()) {
            Some(c) => Ok(library_identity(&c)),
            None => compiler_version().map_err(|e| e.to_string()),
        })
        .clone()
        .map_err(LowerError::Compiler)
}

fn library_identity(path: &Path) -> String {
    let lib = if path.is_dir() { path.join("libIREECompiler.so") } else { path.to_path_buf() };
    let stat = std::fs::metadata(&lib)
        .map(|m| {
            let mtime = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_secs());
            format!("{} bytes, modified {mtime}", m.len())
        })
        .unwrap_or_else(|e| format!("unreadable: {e}"));
    let version = dist_version(&lib).unwrap_or_else(|| "unknown version".to_string());
    format!("iree-base-compiler {version} at {} ({stat})", lib.display())
}

/// The `Version:` of the `iree_base_compiler-*.dist-info` in the site-packages holding `lib`
/// (`site-packages/iree/compiler/_mlir_libs/libIREECompiler.so`).
fn dist_version(lib: &Path) -> Option<String> {
    let site = lib.ancestors().nth(4)?;
    std::fs::read_dir(site).ok()?.flatten().find_map(|entry| {
        let name = entry.file_name().to_string_lossy().to_string();
        if !(name.starts_with("iree_base_compiler-") && name.ends_with(".dist-info")) {
            return None;
        }
        let meta = std::fs::read_to_string(entry.path().join("METADATA")).ok()?;
        meta.lines().find_map(|l| l.strip_prefix("Version: ")).map(|v| v.trim().to_string())
    })
}

/// One compilation at a time per process: concurrent first compilations in IREE 3.13 race in
/// its LLVM target setup ("createTargetMachine ... failed", then a crash).
static COMPILE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The module attribute that asks for a compile without data tiling. IREE 3.13's data
/// tiling crashed the process (a segmentation fault in its MaterializeDeviceEncoding pass,
/// which no fallback compile can catch) on some modules whose linear-algebra decompositions'
/// loops meet matmuls; the lowering marks every module with such a loop.
pub const WITHOUT_DATA_TILING: &str = "ptl.without_data_tiling";

/// The flags that turn data tiling on.
const DATA_TILING_FLAGS: [&str; 2] = ["--iree-opt-data-tiling", "--iree-llvmcpu-enable-ukernels=all"];

/// Compiles MLIR text to a vmfb. When the optimising flags make IREE fail, the program is
/// compiled once more with IREE's defaults, and only that second failure is reported: the
/// optimising pipelines of IREE 3.13 reject some valid programs that its defaults compile.
pub fn compile(mlir: &str, options: &CompileOptions) -> Result<Vec<u8>> {
    let c = compiler()?;
    let mlir = &options.target.for_device(mlir)?;
    let _one_at_a_time = COMPILE_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let report = |e: eerie::compiler::CompilerError| {
        LowerError::Compiler(format!("IREE failed to compile the program: {}", summarize(&e)))
    };
    let mut flags = options.flags();
    if mlir.contains(WITHOUT_DATA_TILING) {
        flags.retain(|f| !DATA_TILING_FLAGS.contains(&f.as_str()));
    }
    match c.compile_str(mlir, flags) {
        Ok(vmfb) => Ok(vmfb),
        Err(_) if options.optimize && options.target == Target::Cpu => {
            let plain = CompileOptions { optimize: false, ..options.clone() };
            c.compile_str(mlir, plain.flags()).map_err(report)
        }
        Err(e) => Err(report(e)),
    }
}

/// The first line of each error IREE reported, without the IR dumps that follow them.
fn summarize(e: &eerie::compiler::CompilerError) -> String {
    use eerie::compiler::CompilerError as E;
    let text = match e {
        E::IREECompilerError(_, d) | E::IREECompilerDiagnosticsError(d) => d.to_string(),
        other => return other.to_string(),
    };
    let errors: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Error: "))
        .map(|l| {
            // "buffer:12:3: message" -> "message": the positions are in generated text.
            let parts: Vec<&str> = l.splitn(4, ':').collect();
            match parts.as_slice() {
                ["buffer", _, _, rest] => rest.trim().to_string(),
                _ => l.trim().to_string(),
            }
        })
        .take(3)
        .collect();
    if errors.is_empty() { format!("{e}") } else { errors.join("; ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The identity (and so every cache key) changes with the installed compiler's version.
    #[test]
    fn identity_follows_the_installed_version() {
        let root = std::env::temp_dir().join(format!("ptl-identity-{}", std::process::id()));
        let libs = root.join("site-packages/iree/compiler/_mlir_libs");
        std::fs::create_dir_all(&libs).unwrap();
        std::fs::write(libs.join("libIREECompiler.so"), b"not a real library").unwrap();
        let dist = root.join("site-packages/iree_base_compiler-9.8.7.dist-info");
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("METADATA"), "Metadata-Version: 2.1\nName: iree-base-compiler\nVersion: 9.8.7\n").unwrap();
        let first = library_identity(&libs);
        assert!(first.starts_with("iree-base-compiler 9.8.7 at "), "{first}");
        std::fs::write(dist.join("METADATA"), "Version: 9.8.8\n").unwrap();
        let second = library_identity(&libs);
        assert!(second.starts_with("iree-base-compiler 9.8.8 at "), "{second}");
        assert_ne!(first, second);
        let _ = std::fs::remove_dir_all(&root);
    }
}
