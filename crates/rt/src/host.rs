//! `ptl_host`: the native IREE module of the runtime's host kernels. Compiled programs call
//! it where IREE's own code is slow (see `ptl_lower`'s `CompileOptions::host_matmul_from`):
//! an f64 matrix product runs in faer's kernel, not in IREE's generic tiled loop.
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

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        // Exports sorted by name, as IREE requires; one function entry per export.
        let exports = vec![sys::iree_vm_native_export_descriptor_t {
            local_name: view(ptl_lower::HOST_MATMUL_F64),
            calling_convention: view("0rr_r"),
            attr_count: 0,
            attrs: std::ptr::null(),
        }];
        let functions = vec![sys::iree_vm_native_function_ptr_t { shim: Some(matmul_f64_shim), target: None }];
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

/// A borrowed f64 matrix argument: its buffer view and shape.
struct Matrix {
    view: *mut sys::iree_hal_buffer_view_t,
    rows: usize,
    cols: usize,
}

unsafe fn matrix_arg(args: &sys::iree_byte_span_t, i: usize, name: &str) -> std::result::Result<Matrix, String> {
    let r = unsafe { ref_arg(args, i) }.ok_or_else(|| format!("{name}: missing argument"))?;
    let mut view = std::ptr::null_mut();
    status_result(unsafe { sys::iree_hal_buffer_view_check_deref(r, &mut view) }).map_err(|e| format!("{name}: not a buffer view ({e})"))?;
    let rank = unsafe { sys::iree_hal_buffer_view_shape_rank(view) };
    let ty = unsafe { sys::iree_hal_buffer_view_element_type(view) };
    if rank != 2 || ty != sys::iree_hal_element_types_t_IREE_HAL_ELEMENT_TYPE_FLOAT_64 as sys::iree_hal_element_type_t {
        return Err(format!("{name}: expected an f64 matrix, got rank {rank}, element type {ty:#x}"));
    }
    let rows = unsafe { sys::iree_hal_buffer_view_shape_dim(view, 0) } as usize;
    let cols = unsafe { sys::iree_hal_buffer_view_shape_dim(view, 1) } as usize;
    Ok(Matrix { view, rows, cols })
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

/// The f64 elements of a matrix argument, copied only when the buffer is not 8-byte aligned.
fn read_f64<R>(m: &Matrix, f: impl FnOnce(&[f64]) -> R) -> std::result::Result<R, String> {
    let n = m.rows * m.cols;
    if n == 0 {
        return Ok(f(&[]));
    }
    let buffer = unsafe { sys::iree_hal_buffer_view_buffer(m.view) };
    let mapping = unsafe { Mapping::new(buffer, false, n * 8)? };
    let (data, len) = mapping.bytes();
    if len < n * 8 {
        return Err(format!("buffer of {len} bytes for {n} elements"));
    }
    if (data as usize) % std::mem::align_of::<f64>() == 0 {
        Ok(f(unsafe { std::slice::from_raw_parts(data as *const f64, n) }))
    } else {
        let copy: Vec<f64> = (0..n).map(|i| unsafe { std::ptr::read_unaligned((data as *const f64).add(i)) }).collect();
        Ok(f(&copy))
    }
}

/// A new f64 buffer view of `shape`, its elements written by `fill`.
unsafe fn new_f64_view(
    module: &HostModule,
    shape: [usize; 2],
    fill: impl FnOnce(&mut [f64]),
) -> std::result::Result<*mut sys::iree_hal_buffer_view_t, String> {
    let n = shape[0] * shape[1];
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
    let bytes = (n * 8).max(64);
    let mut buffer = std::ptr::null_mut();
    status_result(unsafe { sys::iree_hal_allocator_allocate_buffer(module.allocator, params, bytes as _, &mut buffer) })
        .map_err(|e| format!("cannot allocate a {}x{} f64 result ({e})", shape[0], shape[1]))?;
    let written = (|| {
        if n > 0 {
            let mapping = unsafe { Mapping::new(buffer, true, n * 8)? };
            let (data, len) = mapping.bytes();
            if len < n * 8 || (data as usize) % 8 != 0 {
                return Err("unusable result mapping".to_string());
            }
            fill(unsafe { std::slice::from_raw_parts_mut(data as *mut f64, n) });
        }
        let dims: [sys::iree_hal_dim_t; 2] = [shape[0] as _, shape[1] as _];
        let mut out = std::ptr::null_mut();
        status_result(unsafe {
            sys::iree_hal_buffer_view_create(
                buffer,
                2,
                dims.as_ptr(),
                sys::iree_hal_element_types_t_IREE_HAL_ELEMENT_TYPE_FLOAT_64 as _,
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

unsafe extern "C" fn matmul_f64_shim(
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
        let a = unsafe { matrix_arg(&args, 0, "lhs")? };
        let b = unsafe { matrix_arg(&args, 1, "rhs")? };
        if a.cols != b.rows {
            return Err(format!("cannot multiply a {}x{} matrix by a {}x{} one", a.rows, a.cols, b.rows, b.cols));
        }
        let (m, k, n) = (a.rows, a.cols, b.cols);
        let mut failed = None;
        let out = unsafe {
            new_f64_view(module, [m, n], |c| {
                let r = read_f64(&a, |a| {
                    read_f64(&b, |b| crate::kernels::matmul_f64(a, b, c, m, k, n))
                });
                if let Err(e) | Ok(Err(e)) = r {
                    failed = Some(e);
                }
            })?
        };
        if let Some(e) = failed {
            unsafe { sys::iree_hal_buffer_view_release(out) };
            return Err(e);
        }
        unsafe { set_result(&rets, out) }
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => fail(&format!("ptl_host.matmul_f64: {e}")),
        Err(_) => fail("ptl_host.matmul_f64: the host kernel panicked"),
    }
}
