//! `ptl_host`: the native IREE module of the runtime's host kernels. Compiled programs call
//! it where IREE's own code is slow (see `ptl_lower`'s `CompileOptions::host_matmul_from`):
//! an f64 matrix product runs in OpenBLAS's `dgemm`, not in IREE's generic tiled loop, and
//! `cholesky`, `eigh`, `solve_triangular` and `solve` run faer's factorisations instead of a loop of
//! vector operations.
//!
//! The module is added to every runtime the engine opens on the CPU, before any program is
//! loaded, so a program's imports of `ptl_host.*` resolve. Each function is an IREE
//! synchronous import: IREE has waited for the operands before the call, and takes the
//! returned buffer view as ready.

use std::ffi::{CString, c_char, c_void};
use std::sync::OnceLock;

use eerie::runtime::Runtime;
use eerie_sys::runtime as sys;

use crate::error::{Result, RtError};

/// What the module keeps: the allocator its results come from (retained).
struct HostModule {
    allocator: *mut sys::iree_hal_allocator_t,
}

/// The module's tables; IREE reads them for the module's lifetime, so they are static.
struct Tables {
    exports: Vec<sys::iree_vm_native_export_descriptor_t>,
    functions: Vec<sys::iree_vm_native_function_ptr_t>,
    descriptor: sys::iree_vm_native_module_descriptor_t,
}

// The tables are written once and then only read (by IREE, from any thread).
unsafe impl Send for Tables {}
unsafe impl Sync for Tables {}

fn view(s: &'static str) -> sys::iree_string_view_t {
    sys::iree_string_view_t { data: s.as_ptr() as *const c_char, size: s.len() }
}

/// Every export: its name in the module, its calling convention, its shim.
fn exports() -> Vec<(String, &'static str, Shim)> {
    use ptl_lower::host_names as names;
    let mut out: Vec<(String, &'static str, Shim)> = vec![(names::matmul("f64"), "0rr_r", shim::<MatMul>)];
    macro_rules! typed {
        ($t:ty, $name:literal) => {
            out.push((names::cholesky($name), "0r_r", shim::<Cholesky<$t>>));
            out.push((names::eigh($name, false), "0r_r", shim::<Eigh<$t, VALUES>>));
            out.push((names::eigh($name, true), "0r_r", shim::<Eigh<$t, VECTORS>>));
            out.push((names::eigh_both($name), "0r_r", shim::<Eigh<$t, BOTH>>));
            for vector in [true, false] {
                out.push((names::solve($name, vector), "0rr_r", shim::<Solve<$t>>));
                out.push((names::solve_triangular($name, true, vector), "0rr_r", shim::<SolveTriangular<$t, true>>));
                out.push((names::solve_triangular($name, false, vector), "0rr_r", shim::<SolveTriangular<$t, false>>));
            }
        };
    }
    typed!(f32, "f32");
    typed!(f64, "f64");
    out.push((names::CHECK_INTERRUPT.to_string(), "0v_v", crate::interrupt::poll::<true>));
    for elem in names::AWAITED {
        out.push((names::await_value(elem), "0r_v", crate::interrupt::poll::<false>));
    }
    out
}

type Shim = unsafe extern "C" fn(
    *mut sys::iree_vm_stack_t,
    sys::iree_vm_native_function_flags_t,
    sys::iree_byte_span_t,
    sys::iree_byte_span_t,
    sys::iree_vm_native_function_target_t,
    *mut c_void,
    *mut c_void,
) -> sys::iree_status_t;

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        // Exports sorted by name, as IREE requires; one function entry per export. The
        // names live as long as the process (leaked once).
        let mut list = exports();
        list.sort_by(|a, b| a.0.cmp(&b.0));
        let exports = list
            .iter()
            .map(|(name, cc, _)| sys::iree_vm_native_export_descriptor_t {
                local_name: view(Box::leak(name.clone().into_boxed_str())),
                calling_convention: view(cc),
                attr_count: 0,
                attrs: std::ptr::null(),
            })
            .collect();
        let functions = list.iter().map(|(_, _, f)| sys::iree_vm_native_function_ptr_t { shim: Some(*f), target: None }).collect();
        let mut tables = Box::new(Tables {
            exports,
            functions,
            descriptor: sys::iree_vm_native_module_descriptor_t {
                name: view(ptl_lower::HOST_MODULE),
                version: 0,
                attr_count: 0,
                attrs: std::ptr::null(),
                dependency_count: 0,
                dependencies: std::ptr::null(),
                import_count: 0,
                imports: std::ptr::null(),
                export_count: 0,
                exports: std::ptr::null(),
                function_count: 0,
                functions: std::ptr::null(),
            },
        });
        tables.descriptor.export_count = tables.exports.len();
        tables.descriptor.exports = tables.exports.as_ptr();
        tables.descriptor.function_count = tables.functions.len();
        tables.descriptor.functions = tables.functions.as_ptr();
        tables
    })
}

/// Adds `ptl_host` to `runtime`: every program loaded on it afterwards may call it.
pub fn register(runtime: &mut Runtime) -> Result<()> {
    let allocator = runtime.raw_allocator();
    unsafe { sys::iree_hal_allocator_retain(allocator) };
    let state = Box::into_raw(Box::new(HostModule { allocator }));
    let mut interface: sys::iree_vm_module_t = unsafe { std::mem::zeroed() };
    let mut module = std::ptr::null_mut();
    let status = unsafe {
        status_result(sys::iree_vm_module_initialize(&mut interface, state as *mut c_void)).and_then(|_| {
            interface.destroy = Some(destroy);
            let host = sys::iree_hal_allocator_host_allocator(allocator);
            status_result(sys::iree_vm_native_module_create(&interface, &tables().descriptor, runtime.raw_instance(), host, &mut module))
        })
    };
    if let Err(e) = status {
        unsafe { destroy(state as *mut c_void) };
        return Err(RtError::Device(format!("cannot create the host module: {e}")));
    }
    unsafe { runtime.add_module(module) };
    Ok(())
}

unsafe extern "C" fn destroy(this: *mut c_void) {
    let state = unsafe { Box::from_raw(this as *mut HostModule) };
    unsafe { sys::iree_hal_allocator_release(state.allocator) };
}

fn status_result(status: sys::iree_status_t) -> std::result::Result<(), String> {
    if status.is_null() {
        return Ok(());
    }
    let code = unsafe { sys::iree_status_consume_code(status) };
    Err(format!("IREE status {code}"))
}

/// A failed call, as an IREE status the caller reports with the message.
fn fail(message: &str) -> sys::iree_status_t {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe {
        sys::iree_status_allocate_f(
            sys::iree_status_code_e_IREE_STATUS_INVALID_ARGUMENT,
            c"ptl_host".as_ptr(),
            0,
            c"%s".as_ptr(),
            text.as_ptr(),
        )
    }
}

/// The `i`th of a call's reference arguments.
unsafe fn ref_arg(args: &sys::iree_byte_span_t, i: usize) -> Option<sys::iree_vm_ref_t> {
    let size = std::mem::size_of::<sys::iree_vm_ref_t>();
    if args.data.is_null() || args.data_length < (i + 1) * size {
        return None;
    }
    Some(unsafe { std::ptr::read_unaligned(args.data.add(i * size) as *const sys::iree_vm_ref_t) })
}

/// An element type of the kernels, with IREE's code for it.
trait Elem: crate::kernels::Real {
    const IREE: u32;
}

impl Elem for f32 {
    const IREE: u32 = sys::iree_hal_element_types_t_IREE_HAL_ELEMENT_TYPE_FLOAT_32 as u32;
}

impl Elem for f64 {
    const IREE: u32 = sys::iree_hal_element_types_t_IREE_HAL_ELEMENT_TYPE_FLOAT_64 as u32;
}

/// A borrowed argument of rank 1 or 2: its buffer view and shape (a vector is one column).
struct Array {
    view: *mut sys::iree_hal_buffer_view_t,
    rows: usize,
    cols: usize,
    rank: usize,
}

unsafe fn array_arg<T: Elem>(args: &sys::iree_byte_span_t, i: usize, name: &str) -> std::result::Result<Array, String> {
    let r = unsafe { ref_arg(args, i) }.ok_or_else(|| format!("{name}: missing argument"))?;
    let mut view = std::ptr::null_mut();
    status_result(unsafe { sys::iree_hal_buffer_view_check_deref(r, &mut view) }).map_err(|e| format!("{name}: not a buffer view ({e})"))?;
    let rank = unsafe { sys::iree_hal_buffer_view_shape_rank(view) };
    let ty = unsafe { sys::iree_hal_buffer_view_element_type(view) };
    if !(1..=2).contains(&rank) || ty != T::IREE as sys::iree_hal_element_type_t {
        return Err(format!("{name}: expected a vector or matrix of element type {:#x}, got rank {rank}, element type {ty:#x}", T::IREE));
    }
    let rows = unsafe { sys::iree_hal_buffer_view_shape_dim(view, 0) } as usize;
    let cols = if rank == 2 { (unsafe { sys::iree_hal_buffer_view_shape_dim(view, 1) }) as usize } else { 1 };
    Ok(Array { view, rows, cols, rank })
}

/// A buffer mapped for the host; unmapped when dropped.
struct Mapping(sys::iree_hal_buffer_mapping_t);

impl Mapping {
    unsafe fn new(buffer: *mut sys::iree_hal_buffer_t, write: bool, len: usize) -> std::result::Result<Self, String> {
        let mut mapping: sys::iree_hal_buffer_mapping_t = unsafe { std::mem::zeroed() };
        let access = if write {
            sys::iree_hal_memory_access_bits_t_IREE_HAL_MEMORY_ACCESS_DISCARD_WRITE
        } else {
            sys::iree_hal_memory_access_bits_t_IREE_HAL_MEMORY_ACCESS_READ
        };
        status_result(unsafe {
            sys::iree_hal_buffer_map_range(
                buffer,
                sys::iree_hal_mapping_mode_bits_t_IREE_HAL_MAPPING_MODE_SCOPED as _,
                access as _,
                0,
                len as sys::iree_device_size_t,
                &mut mapping,
            )
        })
        .map_err(|e| format!("cannot map a buffer for the host ({e})"))?;
        Ok(Mapping(mapping))
    }

    fn bytes(&self) -> (*mut u8, usize) {
        (self.0.contents.data, self.0.contents.data_length)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        unsafe { sys::iree_status_ignore(sys::iree_hal_buffer_unmap_range(&mut self.0)) };
    }
}

/// The elements of an argument, copied only when the buffer is not aligned for `T`.
fn read<T: Elem, R>(m: &Array, f: impl FnOnce(&[T]) -> R) -> std::result::Result<R, String> {
    let n = m.rows * m.cols;
    if n == 0 {
        return Ok(f(&[]));
    }
    let size = std::mem::size_of::<T>();
    let buffer = unsafe { sys::iree_hal_buffer_view_buffer(m.view) };
    let mapping = unsafe { Mapping::new(buffer, false, n * size)? };
    let (data, len) = mapping.bytes();
    if len < n * size {
        return Err(format!("buffer of {len} bytes for {n} elements"));
    }
    if (data as usize) % std::mem::align_of::<T>() == 0 {
        Ok(f(unsafe { std::slice::from_raw_parts(data as *const T, n) }))
    } else {
        let copy: Vec<T> = (0..n).map(|i| unsafe { std::ptr::read_unaligned((data as *const T).add(i)) }).collect();
        Ok(f(&copy))
    }
}

/// A new buffer view of `shape`, its elements written by `fill` (which may fail).
unsafe fn new_view<T: Elem>(
    module: &HostModule,
    shape: &[usize],
    fill: impl FnOnce(&mut [T]) -> std::result::Result<(), String>,
) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
    let n: usize = shape.iter().product();
    let size = std::mem::size_of::<T>();
    let params = sys::iree_hal_buffer_params_t {
        usage: (sys::iree_hal_buffer_usage_bits_t_IREE_HAL_BUFFER_USAGE_DEFAULT
            | sys::iree_hal_buffer_usage_bits_t_IREE_HAL_BUFFER_USAGE_MAPPING) as _,
        access: sys::iree_hal_memory_access_bits_t_IREE_HAL_MEMORY_ACCESS_ALL as _,
        type_: (sys::iree_hal_memory_type_bits_t_IREE_HAL_MEMORY_TYPE_OPTIMAL_FOR_DEVICE
            | sys::iree_hal_memory_type_bits_t_IREE_HAL_MEMORY_TYPE_HOST_VISIBLE) as _,
        queue_affinity: !0,
        min_alignment: 64,
    };
    // An empty result still gets a small allocation: some allocators refuse size zero.
    let bytes = (n * size).max(64);
    let mut buffer = std::ptr::null_mut();
    status_result(unsafe { sys::iree_hal_allocator_allocate_buffer(module.allocator, params, bytes as _, &mut buffer) })
        .map_err(|e| format!("cannot allocate a result of shape {shape:?} ({e})"))?;
    let written = (|| {
        if n > 0 {
            let mapping = unsafe { Mapping::new(buffer, true, n * size)? };
            let (data, len) = mapping.bytes();
            if len < n * size || (data as usize) % std::mem::align_of::<T>() != 0 {
                return Err("unusable result mapping".to_string());
            }
            fill(unsafe { std::slice::from_raw_parts_mut(data as *mut T, n) })?;
        } else {
            fill(&mut [])?;
        }
        let dims: Vec<sys::iree_hal_dim_t> = shape.iter().map(|&d| d as _).collect();
        let mut out = std::ptr::null_mut();
        status_result(unsafe {
            sys::iree_hal_buffer_view_create(
                buffer,
                dims.len(),
                dims.as_ptr(),
                T::IREE as _,
                sys::iree_hal_encoding_types_t_IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR as _,
                sys::iree_hal_allocator_host_allocator(module.allocator),
                &mut out,
            )
        })?;
        Ok(out)
    })();
    // The view holds its own reference to the buffer.
    unsafe { sys::iree_hal_buffer_release(buffer) };
    written
}

/// Writes `view` as the call's one reference result, handing over its reference.
unsafe fn set_result(rets: &sys::iree_byte_span_t, view: *mut sys::iree_hal_buffer_view_t) -> std::result::Result<(), String> {
    let size = std::mem::size_of::<sys::iree_vm_ref_t>();
    if rets.data.is_null() || rets.data_length < size {
        unsafe { sys::iree_hal_buffer_view_release(view) };
        return Err("no room for the result".to_string());
    }
    let r = unsafe { sys::iree_hal_buffer_view_move_ref(view) };
    // The storage holds a null reference on entry (IREE resets results before the call).
    unsafe { std::ptr::write_unaligned(rets.data as *mut sys::iree_vm_ref_t, r) };
    Ok(())
}

/// One host function: reads its arguments, makes its result.
trait Kernel {
    const NAME: &'static str;
    unsafe fn run(module: &HostModule, args: &sys::iree_byte_span_t) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String>;
}

unsafe extern "C" fn shim<K: Kernel>(
    _stack: *mut sys::iree_vm_stack_t,
    _flags: sys::iree_vm_native_function_flags_t,
    args: sys::iree_byte_span_t,
    rets: sys::iree_byte_span_t,
    _target: sys::iree_vm_native_function_target_t,
    module: *mut c_void,
    _state: *mut c_void,
) -> sys::iree_status_t {
    let run = || -> std::result::Result<(), String> {
        let module = unsafe { &*(module as *const HostModule) };
        let out = unsafe { K::run(module, &args)? };
        unsafe { set_result(&rets, out) }
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => fail(&format!("ptl_host.{}: {e}", K::NAME)),
        Err(_) => fail(&format!("ptl_host.{}: the host kernel panicked", K::NAME)),
    }
}

struct MatMul;

impl Kernel for MatMul {
    const NAME: &'static str = "matmul";
    unsafe fn run(module: &HostModule, args: &sys::iree_byte_span_t) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
        let a = unsafe { array_arg::<f64>(args, 0, "lhs")? };
        let b = unsafe { array_arg::<f64>(args, 1, "rhs")? };
        if a.rank != 2 || b.rank != 2 || a.cols != b.rows {
            return Err(format!("cannot multiply a {}x{} matrix by a {}x{} one", a.rows, a.cols, b.rows, b.cols));
        }
        let (m, k, n) = (a.rows, a.cols, b.cols);
        unsafe { new_view::<f64>(module, &[m, n], |c| read(&a, |a| read(&b, |b| crate::kernels::matmul_f64(a, b, c, m, k, n)))?) }
    }
}

/// A square matrix argument `a`, as `n`.
fn square(a: &Array, op: &str) -> std::result::Result<usize, String> {
    if a.rank != 2 || a.rows != a.cols {
        return Err(format!("{op} of a {}x{} array", a.rows, a.cols));
    }
    Ok(a.rows)
}

/// The right-hand side `b` of a solve with `n` rows: its shape and column count.
fn rhs(b: &Array, n: usize, op: &str) -> std::result::Result<(Vec<usize>, usize), String> {
    if b.rows != n {
        return Err(format!("{op}: {} right-hand-side rows for {n} matrix rows", b.rows));
    }
    Ok(if b.rank == 1 { (vec![n], 1) } else { (vec![n, b.cols], b.cols) })
}

struct Cholesky<T>(std::marker::PhantomData<T>);

impl<T: Elem> Kernel for Cholesky<T> {
    const NAME: &'static str = "cholesky";
    unsafe fn run(module: &HostModule, args: &sys::iree_byte_span_t) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
        let a = unsafe { array_arg::<T>(args, 0, "a")? };
        let n = square(&a, Self::NAME)?;
        unsafe { new_view::<T>(module, &[n, n], |out| read(&a, |a| crate::kernels::cholesky(a, out, n))) }
    }
}

/// The parts of `eigh` ([`crate::kernels::EighPart`]), as the const parameter of [`Eigh`].
const VALUES: u8 = 0;
const VECTORS: u8 = 1;
const BOTH: u8 = 2;

struct Eigh<T, const PART: u8>(std::marker::PhantomData<T>);

impl<T: Elem, const PART: u8> Kernel for Eigh<T, PART> {
    const NAME: &'static str = "eigh";
    unsafe fn run(module: &HostModule, args: &sys::iree_byte_span_t) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
        use crate::kernels::EighPart;
        let a = unsafe { array_arg::<T>(args, 0, "a")? };
        let n = square(&a, Self::NAME)?;
        let (part, shape) = match PART {
            VALUES => (EighPart::Values, vec![n]),
            VECTORS => (EighPart::Vectors, vec![n, n]),
            _ => (EighPart::Both, vec![n + 1, n]),
        };
        unsafe { new_view::<T>(module, &shape, |out| read(&a, |a| crate::kernels::eigh(a, out, n, part))) }
    }
}

/// A solve's result: `kernel(a, b, out, n, k)` for its square `a` and right-hand side `b`.
unsafe fn solve_with<T: Elem>(
    module: &HostModule,
    args: &sys::iree_byte_span_t,
    op: &str,
    kernel: impl FnOnce(&[T], &[T], &mut [T], usize, usize),
) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
    let a = unsafe { array_arg::<T>(args, 0, "a")? };
    let b = unsafe { array_arg::<T>(args, 1, "b")? };
    let n = square(&a, op)?;
    let (shape, k) = rhs(&b, n, op)?;
    unsafe { new_view::<T>(module, &shape, |out| read(&a, |a| read(&b, |b| kernel(a, b, out, n, k)))?) }
}

struct SolveTriangular<T, const LOWER: bool>(std::marker::PhantomData<T>);

impl<T: Elem, const LOWER: bool> Kernel for SolveTriangular<T, LOWER> {
    const NAME: &'static str = "solve_triangular";
    unsafe fn run(module: &HostModule, args: &sys::iree_byte_span_t) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
        unsafe { solve_with::<T>(module, args, Self::NAME, |a, b, out, n, k| crate::kernels::solve_triangular(a, b, out, n, k, LOWER)) }
    }
}

struct Solve<T>(std::marker::PhantomData<T>);

impl<T: Elem> Kernel for Solve<T> {
    const NAME: &'static str = "solve";
    unsafe fn run(module: &HostModule, args: &sys::iree_byte_span_t) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
        unsafe { solve_with::<T>(module, args, Self::NAME, crate::kernels::solve) }
    }
}
