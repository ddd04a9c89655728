use eerie_sys::compiler as sys;
use log::debug;
#[cfg(unix)]
use std::os::fd::IntoRawFd;
#[cfg(windows)]
use std::os::windows::io::{AsRawHandle, IntoRawHandle};
use std::{
    ffi::{CStr, CString},
    fmt::{Debug, Display, Formatter},
    marker::{PhantomData, PhantomPinned},
    path::Path,
    pin::Pin,
    sync::{Mutex, OnceLock, RwLock, RwLockReadGuard},
};
use thiserror::Error;

mod loader;
use loader::api;
pub use loader::CompilerLoadError;

/// Errors from the IREE compiler
pub struct Error {
    message: String,
}

impl Error {
    fn from_ptr(ptr: *mut sys::iree_compiler_error_t) -> Self {
        let c_str = unsafe { std::ffi::CStr::from_ptr(api().ireeCompilerErrorGetMessage(ptr)) };
        let message = c_str.to_string_lossy().into_owned();
        unsafe { api().ireeCompilerErrorDestroy(ptr) }
        Self { message }
    }

    fn check(ptr: *mut sys::iree_compiler_error_t) -> Result<(), CompilerError> {
        if ptr.is_null() {
            Ok(())
        } else {
            Err(CompilerError::IREECompilerError(
                Self::from_ptr(ptr),
                Diagnostics::default(),
            ))
        }
    }
}

struct StringCapture {
    values: Vec<String>,
}

impl StringCapture {
    extern "C" fn cstr_callback(
        value: *const std::os::raw::c_char,
        user_data: *mut std::ffi::c_void,
    ) {
        if value.is_null() || user_data.is_null() {
            return;
        }
        let length = unsafe { CStr::from_ptr(value) }.to_bytes().len();
        Self::callback(value, length, user_data);
    }

    extern "C" fn callback(
        value: *const std::os::raw::c_char,
        length: usize,
        user_data: *mut std::ffi::c_void,
    ) {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if value.is_null() || user_data.is_null() {
                return;
            }
            let bytes = unsafe { std::slice::from_raw_parts(value.cast(), length) };
            let value = String::from_utf8_lossy(bytes).into_owned();
            debug!("Captured string: {}", value);
            unsafe { &mut *(user_data as *mut Self) }.values.push(value);
        }));
    }
}

struct SourceCapture {
    values: Vec<*mut sys::iree_compiler_source_t>,
}

fn path_to_cstring(path: &Path) -> Result<CString, CompilerError> {
    CString::new(path.to_string_lossy().as_bytes()).map_err(Into::into)
}

// IREE's ToolOutputFile closes the descriptor when destroyed. Give it an
// independent descriptor so the caller's Rust File remains usable.
fn duplicate_output_fd(file: &std::fs::File) -> Result<i32, std::io::Error> {
    let duplicate = file.try_clone()?;
    #[cfg(unix)]
    return Ok(duplicate.into_raw_fd());
    #[cfg(windows)]
    {
        let descriptor = unsafe {
            libc::open_osfhandle(duplicate.as_raw_handle() as libc::intptr_t, libc::O_BINARY)
        };
        if descriptor == -1 {
            return Err(std::io::Error::last_os_error());
        }
        // The CRT descriptor now owns this duplicated Windows handle.
        let _ = duplicate.into_raw_handle();
        Ok(descriptor)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Error {}

static GLOBAL_CL_IS_SET: OnceLock<()> = OnceLock::new();
static PROCESS_CL_ARGS: OnceLock<Vec<String>> = OnceLock::new();
static GLOBAL_CONFIGURATION: RwLock<()> = RwLock::new(());

/// An embedded IREE compiler handle.
///
/// `new` discovers the installed compiler library automatically. Handles share
/// process-wide initialization and may be created, cloned, and dropped freely;
/// each session and convenience compilation has its own options and context.
#[derive(Clone)]
pub struct Compiler {
    state: &'static loader::LoadedCompiler,
}

impl Debug for Compiler {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("library", &self.library_path())
            .field("api_version", &self.api_version())
            .finish()
    }
}

impl Compiler {
    /// Discovers and loads IREE from the active Python executable on PATH, or
    /// the interpreter selected by EERIE_PYTHON. Install `iree-base-compiler==3.13.0` first.
    /// No linker flags or library-path environment variables are required.
    pub fn new() -> Result<Self, CompilerError> {
        Ok(Self {
            state: loader::load(None)?,
        })
    }

    /// Loads a custom compiler library file or a directory containing it.
    /// Only one compiler library may be loaded by eerie in a process.
    pub fn with_library(path: impl AsRef<Path>) -> Result<Self, CompilerError> {
        Ok(Self {
            state: loader::load(Some(path.as_ref()))?,
        })
    }

    /// The compiler library selected during discovery or explicit loading.
    pub fn library_path(&self) -> &Path {
        &self.state.path
    }

    /// The embedding API version exported by the loaded compiler.
    pub fn api_version(&self) -> (u16, u16) {
        let version = unsafe { self.state.api.ireeCompilerGetAPIVersion() } as u32;
        ((version >> 16) as u16, version as u16)
    }

    /// Gets the build revision of the IREE compiler. In official releases, this
    /// will be a string with the build tag. In development builds, it may be an
    /// empty string. The returned is valid for as long as the compiler is
    /// initialized.
    pub fn get_revision(&self) -> Result<String, CompilerError> {
        let rev_str = unsafe { std::ffi::CStr::from_ptr(api().ireeCompilerGetRevision()) };
        Ok(rev_str.to_string_lossy().into_owned())
    }

    /// Returns process command-line arguments as normalized by the compiler API.
    pub fn get_process_cl_args(&self) -> Vec<String> {
        PROCESS_CL_ARGS
            .get_or_init(|| {
                // This API rewrites argc/argv in place. Windows reads argv[0]
                // before normalizing the command line; Unix leaves it unchanged.
                let arguments = std::env::args_os()
                    .map(|argument| {
                        CString::new(argument.to_string_lossy().as_bytes())
                            .expect("process arguments cannot contain NUL bytes")
                    })
                    .collect::<Vec<_>>();
                let mut pointers = arguments
                    .iter()
                    .map(|argument| argument.as_ptr())
                    .chain(core::iter::once(core::ptr::null()))
                    .collect::<Vec<_>>();
                let mut argc = arguments
                    .len()
                    .try_into()
                    .expect("process argument count fits a C int");
                let mut argv = pointers.as_mut_ptr();
                unsafe {
                    api().ireeCompilerGetProcessCLArgs(&mut argc, &mut argv);
                }
                if argv.is_null() || argc <= 0 {
                    return Vec::new();
                }
                unsafe { core::slice::from_raw_parts(argv, argc as usize) }
                    .iter()
                    .filter_map(|arg| {
                        if arg.is_null() {
                            None
                        } else {
                            Some(
                                unsafe { CStr::from_ptr(*arg) }
                                    .to_string_lossy()
                                    .into_owned(),
                            )
                        }
                    })
                    .collect()
            })
            .clone()
    }

    /// Initializes the command line environment from an explicit argc/argv
    /// The function returns GlobalCLAlreadySet if called more than once.
    /// This uses dark magic to setup the usual array of expected signal handlers.
    /// This API is not yet considered version-stable. If using out of tree, please
    /// contact the developers.
    pub fn setup_global_cl(&mut self, argv: Vec<String>) -> Result<&mut Self, CompilerError> {
        if GLOBAL_CL_IS_SET.get().is_some() {
            return Err(CompilerError::GlobalCLAlreadySet);
        }
        // Validate before claiming the one-time initialization slot so invalid
        // Rust input does not prevent a later valid call.
        let c_str_vec = argv
            .iter()
            .map(|arg| CString::new(arg.as_str()))
            .collect::<Result<Vec<_>, _>>()?;
        // Cloned handles must not change process-wide options while another
        // handle has sessions using them. New sessions wait for setup to finish.
        let _configuration = GLOBAL_CONFIGURATION
            .try_write()
            .map_err(|_| CompilerError::GlobalCLInUse)?;
        let mut ptr_array = c_str_vec.iter().map(|arg| arg.as_ptr()).collect::<Vec<_>>();
        match GLOBAL_CL_IS_SET.set(()) {
            Ok(_) => {
                unsafe {
                    api().ireeCompilerSetupGlobalCL(
                        argv.len() as i32,
                        ptr_array.as_mut_ptr(),
                        c"IREE Compiler".as_ptr(),
                        false,
                    )
                }
                debug!("Global CL setup");
                Ok(self)
            }
            Err(_) => Err(CompilerError::GlobalCLAlreadySet),
        }
    }

    /// Enumerates the registered HAL target backends.
    pub fn get_registered_hal_target_backends(&self) -> Vec<String> {
        let mut registered_hal_target_backends = StringCapture { values: Vec::new() };
        debug!("Enumerating registered HAL target backends");
        unsafe {
            api().ireeCompilerEnumerateRegisteredHALTargetBackends(
                Some(StringCapture::cstr_callback),
                &mut registered_hal_target_backends as *mut StringCapture as *mut _,
            );
        }
        registered_hal_target_backends.values
    }

    /// Enumerates the registered plugins.
    pub fn get_plugins(&self) -> Vec<String> {
        let mut plugins = StringCapture { values: Vec::new() };
        debug!("Enumerating plugins");
        unsafe {
            api().ireeCompilerEnumeratePlugins(
                Some(StringCapture::cstr_callback),
                &mut plugins as *mut StringCapture as *mut _,
            );
        }
        plugins.values
    }

    /// Creates a new session.
    pub fn create_session(&self) -> Session<'_> {
        Session::new(self)
    }

    /// Compiles an MLIR file to an owned VMFB archive using a fresh session.
    ///
    /// Flags configure this compilation only; they do not modify global flags.
    /// For example, use `["--iree-hal-target-backends=llvm-cpu"]` for hosted CPU
    /// execution. Reuse this `Compiler` for subsequent compilations.
    pub fn compile_file<I, S>(
        &self,
        path: impl AsRef<Path>,
        flags: I,
    ) -> Result<Vec<u8>, CompilerError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut session = self.create_session();
        session.set_flags(
            flags
                .into_iter()
                .map(|flag| flag.as_ref().to_owned())
                .collect(),
        )?;
        let source = session.create_source_from_file(path.as_ref())?;
        self.compile_source(source)
    }

    /// Compiles MLIR text to an owned VMFB archive using a fresh session.
    pub fn compile_str<I, S>(&self, source: &str, flags: I) -> Result<Vec<u8>, CompilerError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.compile_bytes(source.as_bytes(), flags)
    }

    /// Compiles MLIR text or MLIR bytecode to an owned VMFB archive.
    ///
    /// The returned bytes can outlive the source and compiler. Use the session
    /// and invocation APIs when customizing the pipeline or output format.
    pub fn compile_bytes<I, S>(&self, source: &[u8], flags: I) -> Result<Vec<u8>, CompilerError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut session = self.create_session();
        session.set_flags(
            flags
                .into_iter()
                .map(|flag| flag.as_ref().to_owned())
                .collect(),
        )?;
        let source = session.create_source_from_buf(source)?;
        self.compile_source(source)
    }

    fn compile_source(&self, source: Source<'_, '_>) -> Result<Vec<u8>, CompilerError> {
        let mut invocation = source.session.create_invocation();
        let mut output = MemBufferOutput::new(self)?;
        invocation
            .parse_source(source)?
            .set_verify_ir(true)
            .pipeline(Pipeline::Std)?
            .output_vm_byte_code(&mut output)?;
        Ok(output.map_memory()?.to_vec())
    }
}

/// A session represents a scope where one or more runs can be executed.
/// Internally, it consists of an MLIRContext and a private set of session
/// options. If the CL environment was initialized, session options will be
/// bootstrapped from global flags.
pub struct Session<'a> {
    ctx: *mut sys::iree_compiler_session_t,
    _compiler: &'a Compiler,
    _configuration: RwLockReadGuard<'static, ()>,
}

impl<'a> Session<'a> {
    /// Creates a new session.
    pub fn new(compiler: &'a Compiler) -> Self {
        let configuration = GLOBAL_CONFIGURATION
            .read()
            .unwrap_or_else(|error| error.into_inner());
        let ctx: *mut sys::iree_compiler_session_t;
        unsafe {
            debug!("Creating session");
            ctx = api().ireeCompilerSessionCreate();
        }
        Self {
            ctx,
            _compiler: compiler,
            _configuration: configuration,
        }
    }

    /// Sets session flags.
    pub fn set_flags(&mut self, argv: Vec<String>) -> Result<&mut Self, CompilerError> {
        let c_str_vec = argv
            .iter()
            .map(|arg| std::ffi::CString::new(arg.as_str()))
            .collect::<Result<Vec<_>, _>>()?;
        let ptr_array = c_str_vec.iter().map(|arg| arg.as_ptr()).collect::<Vec<_>>();
        let err_ptr: *mut sys::iree_compiler_error_t;
        unsafe {
            debug!("Setting session flags");
            err_ptr =
                api().ireeCompilerSessionSetFlags(self.ctx, argv.len() as i32, ptr_array.as_ptr());
            debug!("Session flags set");
        }
        Error::check(err_ptr)?;
        Ok(self)
    }

    /// Gets textual flags actually in effect from any source. Optionally, only
    /// calls back for non-default valued flags.
    pub fn get_flags(&self, non_default_only: bool) -> Vec<String> {
        let mut flags = StringCapture { values: Vec::new() };
        debug!("Getting session flags");
        unsafe {
            api().ireeCompilerSessionGetFlags(
                self.ctx,
                non_default_only,
                Some(StringCapture::callback),
                &mut flags as *mut StringCapture as *mut _,
            );
        }
        flags.values
    }

    /// Creates a new invocation.
    pub fn create_invocation(&self) -> Invocation<'_> {
        Invocation::new(self)
    }

    /// Creates a new source from a file.
    pub fn create_source_from_file(
        &'a self,
        file_name: &Path,
    ) -> Result<Source<'a, 'a>, CompilerError> {
        Source::from_file(self, file_name)
    }

    /// Creates a new source from a C string.
    /// Use `Compiler::compile_str` to compile Rust text directly to VMFB, or
    /// `create_source_from_buf` for a source backed by Rust string bytes.
    pub fn create_source_from_cstr<'b>(
        &'a self,
        buffer: &'b CStr,
    ) -> Result<Source<'a, 'b>, CompilerError> {
        Source::from_cstr(self, buffer)
    }

    /// Creates a new source from a mlir framebuffer.
    pub fn create_source_from_buf<'b>(
        &'a self,
        buffer: &'b [u8],
    ) -> Result<Source<'a, 'b>, CompilerError> {
        Source::from_buf(self, buffer)
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        unsafe {
            debug!("Destroying session");
            api().ireeCompilerSessionDestroy(self.ctx);
        }
    }
}

/// An invocation represents a single run of a session.
pub struct Invocation<'a> {
    ctx: *mut sys::iree_compiler_invocation_t,
    diagnostic_queue: Pin<Box<Diagnostics>>,
    session: &'a Session<'a>,
    dump_compilation_phases_to: Option<CString>,
    remarks_filter: Option<CString>,
    remarks_output_file: Option<CString>,
    crash_reproducer_path: Option<CString>,
}

/// IREE Compiler diagnostics.
#[derive(Clone)]
pub enum Diagnostic {
    Note(String),
    Warning(String),
    Error(String),
    Remark(String),
}

impl Display for Diagnostic {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        match self {
            Diagnostic::Note(s) => write!(f, "Note: {}", s),
            Diagnostic::Warning(s) => write!(f, "Warning: {}", s),
            Diagnostic::Error(s) => write!(f, "Error: {}", s),
            Diagnostic::Remark(s) => write!(f, "Remark: {}", s),
        }
    }
}

impl Debug for Diagnostic {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        Display::fmt(self, f)
    }
}

/// IREE Compiler diagnostics.
#[derive(Debug)]
pub struct Diagnostics {
    data: Mutex<Vec<Diagnostic>>,
    _pin: PhantomPinned,
}

impl Display for Diagnostics {
    fn fmt(&self, f: &mut Formatter<'_>) -> std::fmt::Result {
        let vec = self.data.lock().unwrap();
        for diagnostic in vec.iter() {
            writeln!(f, "{}", diagnostic)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl Default for Diagnostics {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl Diagnostics {
    fn new(data: Vec<Diagnostic>) -> Self {
        Self {
            data: Mutex::new(data),
            _pin: PhantomPinned,
        }
    }

    fn clear(&self) {
        self.data.lock().unwrap().clear();
    }

    fn push(&self, diagnostic: Diagnostic) {
        if let Ok(mut data) = self.data.lock() {
            data.push(diagnostic);
        }
    }
}

impl Clone for Diagnostics {
    fn clone(&self) -> Self {
        let vec = self.data.lock().unwrap();
        Self::new(vec.clone())
    }
}

/// IREE Compiler pipelines.
pub enum Pipeline {
    /// IREE's full compilation pipeline.
    Std,
    /// Pipeline to translate a single hal.executable into a target-specific
    /// binary form (such as an ELF file or a flatbuffer containing a SPIR-V
    /// blob).
    HalExecutable,
    /// IREE's precompilation pipeline, which does input preprocessing and
    /// pre-fusion global optimization.
    /// This is experimental and this should be changed as we move to a more
    /// cohesive approach for managing compilation phases.
    Precompile,
}

impl From<Pipeline> for sys::iree_compiler_pipeline_t {
    fn from(val: Pipeline) -> Self {
        match val {
            Pipeline::Std => sys::iree_compiler_pipeline_t_IREE_COMPILER_PIPELINE_STD,
            Pipeline::HalExecutable => {
                sys::iree_compiler_pipeline_t_IREE_COMPILER_PIPELINE_HAL_EXECUTABLE
            }
            Pipeline::Precompile => sys::iree_compiler_pipeline_t_IREE_COMPILER_PIPELINE_PRECOMPILE,
        }
    }
}

impl<'a> Invocation<'a> {
    /// Creates a new invocation from a session.
    pub fn new(session: &'a Session<'a>) -> Self {
        let ctx: *mut sys::iree_compiler_invocation_t;
        unsafe {
            debug!("Creating invocation");
            ctx = api().ireeCompilerInvocationCreate(session.ctx);
        }
        let diagnostic_queue = Box::pin(Diagnostics::new(Vec::new()));
        unsafe {
            api().ireeCompilerInvocationEnableCallbackDiagnostics(
                ctx,
                0,
                Some(Self::capture_diagnostics_callback),
                diagnostic_queue.as_ref().get_ref() as *const Diagnostics as *mut _,
            );
        }
        Self {
            ctx,
            diagnostic_queue,
            session,
            dump_compilation_phases_to: None,
            remarks_filter: None,
            remarks_output_file: None,
            crash_reproducer_path: None,
        }
    }

    extern "C" fn capture_diagnostics_callback(
        severity: sys::iree_compiler_diagnostic_severity_t,
        message: *const std::os::raw::c_char,
        length: usize,
        user_data: *mut std::ffi::c_void,
    ) {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            debug!("Capturing callback diagnostics");
            if message.is_null() || user_data.is_null() {
                return;
            }
            let bytes = unsafe { std::slice::from_raw_parts(message.cast(), length) };
            let message = String::from_utf8_lossy(bytes).into_owned();
            let diagnostic = match severity {
                sys::iree_compiler_diagnostic_severity_t_IREE_COMPILER_DIAGNOSTIC_SEVERITY_NOTE => {
                    Diagnostic::Note(message)
                }
                sys::iree_compiler_diagnostic_severity_t_IREE_COMPILER_DIAGNOSTIC_SEVERITY_WARNING => {
                    Diagnostic::Warning(message)
                }
                sys::iree_compiler_diagnostic_severity_t_IREE_COMPILER_DIAGNOSTIC_SEVERITY_ERROR => {
                    Diagnostic::Error(message)
                }
                sys::iree_compiler_diagnostic_severity_t_IREE_COMPILER_DIAGNOSTIC_SEVERITY_REMARK => {
                    Diagnostic::Remark(message)
                }
                _ => Diagnostic::Error(message),
            };
            debug!("Diagnostic: {:?}", diagnostic);
            unsafe { &*(user_data as *const Diagnostics) }.push(diagnostic);
        }));
    }

    /// Enables default, pretty-printed diagnostics to the console. This is usually
    /// the right thing to do for command-line tools, but other mechanisms are
    /// preferred for library use.
    pub fn enable_console_diagnostics(&mut self) -> &mut Self {
        debug!("Enabling console diagnostics");
        unsafe {
            api().ireeCompilerInvocationEnableConsoleDiagnostics(self.ctx);
        }
        self
    }

    unsafe extern "C" fn crash_reproducer_callback(
        out_output: *mut *mut sys::iree_compiler_output_t,
        user_data: *mut std::ffi::c_void,
    ) -> *mut sys::iree_compiler_error_t {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if out_output.is_null() || user_data.is_null() {
                return core::ptr::null_mut();
            }
            let path = unsafe { &*(user_data as *const CString) };
            unsafe { api().ireeCompilerOutputOpenFile(path.as_ptr(), out_output) }
        }));
        result.unwrap_or(core::ptr::null_mut())
    }

    /// Writes a local crash reproducer to `path` if the compiler crashes.
    pub fn set_crash_reproducer(&mut self, path: &Path) -> Result<&mut Self, CompilerError> {
        self.crash_reproducer_path = Some(path_to_cstring(path)?);
        let user_data = self
            .crash_reproducer_path
            .as_ref()
            .expect("crash reproducer path was just set") as *const CString
            as *mut _;
        unsafe {
            api().ireeCompilerInvocationSetCrashHandler(
                self.ctx,
                true,
                Some(Self::crash_reproducer_callback),
                user_data,
            );
        }
        Ok(self)
    }

    /// Dumps IR snapshots for compilation phases into `path`.
    pub fn set_dump_compilation_phases_to(
        &mut self,
        path: &Path,
    ) -> Result<&mut Self, CompilerError> {
        self.dump_compilation_phases_to = Some(path_to_cstring(path)?);
        unsafe {
            api().ireeCompilerInvocationSetDumpCompilationPhasesTo(
                self.ctx,
                self.dump_compilation_phases_to
                    .as_ref()
                    .expect("dump path was just set")
                    .as_ptr(),
            );
        }
        Ok(self)
    }

    /// Configures YAML remark output.
    pub fn setup_remarks(
        &mut self,
        filter: &str,
        output_file: &Path,
    ) -> Result<&mut Self, CompilerError> {
        self.remarks_filter = Some(CString::new(filter)?);
        self.remarks_output_file = Some(path_to_cstring(output_file)?);
        unsafe {
            api().ireeCompilerInvocationSetupRemarks(
                self.ctx,
                self.remarks_filter
                    .as_ref()
                    .expect("remarks filter was just set")
                    .as_ptr(),
                self.remarks_output_file
                    .as_ref()
                    .expect("remarks output was just set")
                    .as_ptr(),
            );
        }
        Ok(self)
    }

    /// Parses a source into this instance in preparation for performing a
    /// compilation action.
    pub fn parse_source(&mut self, source: Source) -> Result<&mut Self, CompilerError> {
        self.diagnostic_queue.clear();
        debug!("Parsing source");
        match unsafe { api().ireeCompilerInvocationParseSource(self.ctx, source.ctx) } {
            true => Ok(self),
            false => Err(CompilerError::IREECompilerDiagnosticsError(
                self.diagnostic_queue.as_ref().get_ref().clone(),
            )),
        }
    }

    /// Parses a source from a file
    pub fn parse_source_from_file(&mut self, file_name: &Path) -> Result<&mut Self, CompilerError> {
        let source = Source::from_file(self.session, file_name)?;
        self.parse_source(source)
    }

    /// Sets a mnemonic phase name to run compilation from. Default is "input".
    /// The meaning of this is pipeline specific. See IREEVMPipelinePhase
    pub fn set_compile_from_phase(&mut self, phase: &str) -> Result<&mut Self, CompilerError> {
        debug!("Setting compile from phase");
        let phase = CString::new(phase)?;
        unsafe { api().ireeCompilerInvocationSetCompileFromPhase(self.ctx, phase.as_ptr()) }
        Ok(self)
    }

    /// Sets a mnemonic phase name to run compilation to. Default is "end".
    /// The meaning of this is pipeline specific. See IREEVMPipelinePhase
    /// for the standard pipeline.
    pub fn set_compile_to_phase(&mut self, phase: &str) -> Result<&mut Self, CompilerError> {
        debug!("Setting compile to phase");
        let phase = CString::new(phase)?;
        unsafe { api().ireeCompilerInvocationSetCompileToPhase(self.ctx, phase.as_ptr()) }
        Ok(self)
    }

    /// Enables/disables verification of IR after each pass. Defaults to enabled.
    pub fn set_verify_ir(&mut self, enable: bool) -> &mut Self {
        debug!("Setting verify IR");
        unsafe { api().ireeCompilerInvocationSetVerifyIR(self.ctx, enable) }
        self
    }

    /// Runs an arbitrary pass pipeline.
    pub fn pipeline(&mut self, pipeline: Pipeline) -> Result<&mut Self, CompilerError> {
        self.diagnostic_queue.clear();
        debug!("Running pipeline");
        match unsafe { api().ireeCompilerInvocationPipeline(self.ctx, pipeline.into()) } {
            true => Ok(self),
            false => Err(CompilerError::IREECompilerDiagnosticsError(
                self.diagnostic_queue.as_ref().get_ref().clone(),
            )),
        }
    }

    /// Runs an arbitrary pass pipeline.
    pub fn run_pass_pipeline(
        &mut self,
        text_pass_pipeline: &str,
    ) -> Result<&mut Self, CompilerError> {
        self.diagnostic_queue.clear();
        debug!("Running pass pipeline");
        let text_pass_pipeline = CString::new(text_pass_pipeline)?;
        match unsafe {
            api().ireeCompilerInvocationRunPassPipeline(self.ctx, text_pass_pipeline.as_ptr())
        } {
            true => Ok(self),
            false => Err(CompilerError::IREECompilerDiagnosticsError(
                self.diagnostic_queue.as_ref().get_ref().clone(),
            )),
        }
    }

    /// Outputs the current compiler state as textual IR to the output.
    pub fn output_ir(&self, output: &mut impl Output) -> Result<&Self, CompilerError> {
        debug!("Outputting IR");
        self.diagnostic_queue.clear();
        let output_ptr = output.as_ptr();
        let err_ptr = unsafe { api().ireeCompilerInvocationOutputIR(self.ctx, output_ptr) };
        if err_ptr.is_null() {
            Ok(self)
        } else {
            let diagnostic_queue = self.diagnostic_queue.as_ref().get_ref().clone();
            Err(CompilerError::IREECompilerError(
                Error::from_ptr(err_ptr),
                diagnostic_queue,
            ))
        }
    }

    /// Outputs the current compiler state as bytecode IR to the output.
    /// Emits as the given bytecode version or most recent if -1.
    pub fn output_ir_bytecode(
        &self,
        output: &mut impl Output,
        bytecode_version: i32,
    ) -> Result<&Self, CompilerError> {
        debug!("Outputting bytecode");
        self.diagnostic_queue.clear();
        let output_ptr = output.as_ptr();
        let err_ptr = unsafe {
            api().ireeCompilerInvocationOutputIRBytecode(self.ctx, output_ptr, bytecode_version)
        };
        if err_ptr.is_null() {
            Ok(self)
        } else {
            let diagnostic_queue = self.diagnostic_queue.as_ref().get_ref().clone();
            Err(CompilerError::IREECompilerError(
                Error::from_ptr(err_ptr),
                diagnostic_queue,
            ))
        }
    }

    /// Assuming that the compiler has produced VM IR, converts it to bytecode
    /// and outputs it. This is a valid next step after running the
    /// Std pipeline.
    pub fn output_vm_byte_code(&self, output: &mut impl Output) -> Result<&Self, CompilerError> {
        debug!("Outputting VM byte code");
        self.diagnostic_queue.clear();
        let output_ptr = output.as_ptr();
        let err_ptr = unsafe { api().ireeCompilerInvocationOutputVMBytecode(self.ctx, output_ptr) };
        if err_ptr.is_null() {
            Ok(self)
        } else {
            let diagnostic_queue = self.diagnostic_queue.as_ref().get_ref().clone();
            Err(CompilerError::IREECompilerError(
                Error::from_ptr(err_ptr),
                diagnostic_queue,
            ))
        }
    }

    // Assuming that the compiler has produced VM IR, converts it to textual
    // C source and output it. This is a valid next step after running the
    // Std pipeline.
    pub fn output_vm_c_source(&self, output: &mut impl Output) -> Result<&Self, CompilerError> {
        debug!("Outputting VM source");
        self.diagnostic_queue.clear();
        let output_ptr = output.as_ptr();
        let err_ptr = unsafe { api().ireeCompilerInvocationOutputVMCSource(self.ctx, output_ptr) };
        if err_ptr.is_null() {
            Ok(self)
        } else {
            let diagnostic_queue = self.diagnostic_queue.as_ref().get_ref().clone();
            Err(CompilerError::IREECompilerError(
                Error::from_ptr(err_ptr),
                diagnostic_queue,
            ))
        }
    }

    /// Outputs the contents of a single HAL executable as binary data.
    /// This is a valid next step after running the
    /// HalExecutable pipeline.
    pub fn output_hal_executable(&self, output: &mut impl Output) -> Result<&Self, CompilerError> {
        debug!("Outputting HAL executable");
        let output_ptr = output.as_ptr();
        let err_ptr =
            unsafe { api().ireeCompilerInvocationOutputHALExecutable(self.ctx, output_ptr) };
        Error::check(err_ptr)?;
        Ok(self)
    }
}

impl Drop for Invocation<'_> {
    fn drop(&mut self) {
        unsafe {
            debug!("Destroying invocation");
            api().ireeCompilerInvocationDestroy(self.ctx);
        }
    }
}

/// Compilation sources are loaded into Sources.
/// Sources reference an originating session and may contain a concrete
/// buffer of memory.
pub struct Source<'a, 'b> {
    ctx: *mut sys::iree_compiler_source_t,
    session: &'a Session<'a>,
    _phantom: PhantomData<&'b [u8]>,
}

impl<'a, 'b> Source<'a, 'b> {
    /// Creates a source from a file.
    pub fn from_file(session: &'a Session<'a>, file: &Path) -> Result<Self, CompilerError> {
        debug!("Creating source from file");
        match file.try_exists() {
            Ok(true) => {}
            Ok(false) => {
                return Err(CompilerError::FileNotFound(
                    file.to_string_lossy().into_owned(),
                ))
            }
            Err(e) => return Err(e.into()),
        }

        let file = path_to_cstring(file)?;
        let mut source_ptr = std::ptr::null_mut();
        let err_ptr = unsafe {
            debug!("Opening file");
            api().ireeCompilerSourceOpenFile(session.ctx, file.as_ptr(), &mut source_ptr)
        };
        Error::check(err_ptr)?;
        Ok(Self {
            ctx: source_ptr,
            session,
            _phantom: PhantomData,
        })
    }

    fn wrap_buffer(
        session: &'a Session<'a>,
        buf: &'b [u8],
        nullterm: bool,
    ) -> Result<Self, CompilerError> {
        debug!("Creating source from buffer");
        let mut source_ptr = std::ptr::null_mut();
        debug!("len: {}", buf.len());
        let err_ptr = unsafe {
            api().ireeCompilerSourceWrapBuffer(
                session.ctx,
                c"buffer".as_ptr(),
                buf.as_ptr() as *const core::ffi::c_char,
                buf.len(),
                nullterm,
                &mut source_ptr,
            )
        };

        Error::check(err_ptr)?;
        Ok(Self {
            ctx: source_ptr,
            session,
            _phantom: PhantomData,
        })
    }

    /// Creates a source from a CStr.
    pub fn from_cstr(session: &'a Session<'a>, cstr: &'b CStr) -> Result<Self, CompilerError> {
        debug!("Creating source from CStr");
        Self::wrap_buffer(session, cstr.to_bytes_with_nul(), true)
    }

    /// Creates a source from a buffer.
    pub fn from_buf(session: &'a Session<'a>, buf: &'b [u8]) -> Result<Self, CompilerError> {
        debug!("Creating source from buffer");
        Self::wrap_buffer(session, buf, false)
    }

    extern "C" fn split_callback(
        source: *mut sys::iree_compiler_source_t,
        user_data: *mut std::ffi::c_void,
    ) {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            debug!("Splitting source callback");
            if user_data.is_null() || source.is_null() {
                return;
            }
            unsafe { &mut *(user_data as *mut SourceCapture) }
                .values
                .push(source);
        }));
    }

    /// Splits the current source buffer, invoking a callback for each "split"
    /// within it. This is per the usual MLIR split rules (see
    /// splitAndProcessBuffer): which split on `// -----`.
    pub fn split(&self) -> Result<Vec<Self>, CompilerError> {
        debug!("Splitting source");
        let mut sources = SourceCapture { values: Vec::new() };
        let err_ptr = unsafe {
            api().ireeCompilerSourceSplit(
                self.ctx,
                Some(Self::split_callback),
                &mut sources as *mut SourceCapture as *mut std::ffi::c_void,
            )
        };
        Error::check(err_ptr)?;
        Ok(sources
            .values
            .into_iter()
            .map(|ctx| Self {
                ctx,
                session: self.session,
                _phantom: PhantomData,
            })
            .collect())
    }
}

impl Drop for Source<'_, '_> {
    fn drop(&mut self) {
        unsafe {
            debug!("Destroying source");
            api().ireeCompilerSourceDestroy(self.ctx);
        }
    }
}

/// Outputs that can be written by the invocation
pub trait Output {
    fn as_ptr(&self) -> *mut sys::iree_compiler_output_t;

    fn write(&mut self, data: &[u8]) -> Result<(), CompilerError> {
        let err_ptr = unsafe {
            api().ireeCompilerOutputWrite(
                self.as_ptr(),
                data.as_ptr() as *const std::ffi::c_void,
                data.len(),
            )
        };
        Error::check(err_ptr)
    }
}

/// Output that writes by file name
pub struct FileNameOutput<'a> {
    ctx: *mut sys::iree_compiler_output_t,
    _compiler: &'a Compiler,
}

impl Output for FileNameOutput<'_> {
    fn as_ptr(&self) -> *mut sys::iree_compiler_output_t {
        self.ctx
    }
}

impl Drop for FileNameOutput<'_> {
    fn drop(&mut self) {
        unsafe {
            api().ireeCompilerOutputKeep(self.ctx);
            api().ireeCompilerOutputDestroy(self.ctx);
        }
    }
}

impl<'a> FileNameOutput<'a> {
    /// Creates a new filename output
    pub fn new(compiler: &'a Compiler, path: &Path) -> Result<Self, CompilerError> {
        debug!("Creating filename output");
        let path = path_to_cstring(path)?;
        let mut output_ptr = std::ptr::null_mut();
        let err_ptr = unsafe { api().ireeCompilerOutputOpenFile(path.as_ptr(), &mut output_ptr) };
        Error::check(err_ptr)?;
        Ok(Self {
            ctx: output_ptr,
            _compiler: compiler,
        })
    }
}

/// Output that writes to a file
pub struct FileOutput<'a, 'b> {
    ctx: *mut sys::iree_compiler_output_t,
    _marker: PhantomData<&'a mut std::fs::File>,
    _compiler: &'b Compiler,
}

impl Output for FileOutput<'_, '_> {
    fn as_ptr(&self) -> *mut sys::iree_compiler_output_t {
        self.ctx
    }
}

impl Drop for FileOutput<'_, '_> {
    fn drop(&mut self) {
        unsafe {
            api().ireeCompilerOutputKeep(self.ctx);
            api().ireeCompilerOutputDestroy(self.ctx);
        }
    }
}

impl<'a, 'b> FileOutput<'a, 'b> {
    /// Creates a new file output from std::fs::File
    #[allow(clippy::needless_pass_by_ref_mut)]
    pub fn from_file(
        compiler: &'b Compiler,
        file: &'a mut std::fs::File,
    ) -> Result<Self, CompilerError> {
        debug!("Creating file output");
        let fd = duplicate_output_fd(file)?;
        let mut output_ptr = std::ptr::null_mut();
        let err_ptr = unsafe { api().ireeCompilerOutputOpenFD(fd, &mut output_ptr) };
        Error::check(err_ptr)?;
        Ok(Self {
            ctx: output_ptr,
            _marker: PhantomData,
            _compiler: compiler,
        })
    }
}

/// Output that writes to a memory buffer
pub struct MemBufferOutput<'a> {
    ctx: *mut sys::iree_compiler_output_t,
    _compiler: &'a Compiler,
}

impl Output for MemBufferOutput<'_> {
    fn as_ptr(&self) -> *mut sys::iree_compiler_output_t {
        self.ctx
    }
}

impl Drop for MemBufferOutput<'_> {
    fn drop(&mut self) {
        unsafe {
            debug!("Destroying membuffer output");
            api().ireeCompilerOutputDestroy(self.ctx);
        }
    }
}

impl<'a> MemBufferOutput<'a> {
    /// Creates a new membuffer output
    pub fn new(compiler: &'a Compiler) -> Result<Self, CompilerError> {
        debug!("Creating membuffer output");
        let mut output_ptr = std::ptr::null_mut();
        let err_ptr = unsafe { api().ireeCompilerOutputOpenMembuffer(&mut output_ptr) };
        Error::check(err_ptr)?;
        Ok(Self {
            ctx: output_ptr,
            _compiler: compiler,
        })
    }

    /// Maps the memory buffer to a slice
    pub fn map_memory(&self) -> Result<&[u8], CompilerError> {
        debug!("Mapping membuffer output");
        let mut data_ptr = std::ptr::null_mut();
        let mut data_length = 0;
        let err_ptr =
            unsafe { api().ireeCompilerOutputMapMemory(self.ctx, &mut data_ptr, &mut data_length) };
        Error::check(err_ptr)?;
        Ok(unsafe {
            std::slice::from_raw_parts(data_ptr as *const u8, data_length.try_into().unwrap())
        })
    }
}

#[derive(Error, Debug)]
pub enum CompilerError {
    #[error(transparent)]
    CompilerLoadError(#[from] CompilerLoadError),
    #[error("Global CL already set")]
    GlobalCLAlreadySet,
    #[error("Global command-line setup requires all compiler sessions to be dropped")]
    GlobalCLInUse,
    #[error("CString contains a null byte")]
    NulError(#[from] std::ffi::NulError),
    #[error("Invalid UTF-8 sequence")]
    Utf8Error(#[from] std::str::Utf8Error),
    #[error("IREE compiler error: {0:?} {1:?}")]
    IREECompilerError(Error, Diagnostics),
    #[error("IREE compiler error: {0:?}")]
    IREECompilerDiagnosticsError(Diagnostics),
    #[error("File not found: {0}")]
    FileNotFound(String),
    #[error(transparent)]
    FileIoError(#[from] std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_flags_respect_the_provided_length() {
        let bytes = b"--flag=\xfftrailing\0";
        let mut capture = StringCapture { values: Vec::new() };
        StringCapture::callback(bytes.as_ptr().cast(), 8, &mut capture as *mut _ as *mut _);
        assert_eq!(capture.values, ["--flag=\u{fffd}"]);
    }

    #[test]
    fn captured_diagnostics_respect_the_provided_length() {
        let bytes = b"errortrailing\0";
        let diagnostics = Diagnostics::default();
        Invocation::capture_diagnostics_callback(
            sys::iree_compiler_diagnostic_severity_t_IREE_COMPILER_DIAGNOSTIC_SEVERITY_ERROR,
            bytes.as_ptr().cast(),
            5,
            &diagnostics as *const _ as *mut _,
        );
        let messages = diagnostics.data.lock().unwrap();
        assert!(matches!(messages.as_slice(), [Diagnostic::Error(message)] if message == "error"));
    }
}
