//! NumPy's data allocation, aligned to 64 bytes.
//!
//! Compiled code assumes its buffers are 64-byte aligned, so the runtime reads an argument in
//! place (no copy) only when its memory is. NumPy's default allocator gives 16. This module
//! installs a NumPy memory handler (`PyDataMem_SetHandler`, NumPy's documented hook) that
//! returns 64-byte-aligned memory, and, as NumPy's own does, asks for huge pages on
//! allocations of 4 MiB and more. NumPy keeps the handler per thread (a context variable):
//! it applies to arrays made on the thread that imported `pytensor_ptl`; others are copied
//! as before. `PTL_NUMPY_ALLOCATOR=0` leaves NumPy's allocator alone.

use std::ffi::{CStr, c_void};

use numpy::npyffi::PY_ARRAY_API;
use pyo3::prelude::*;

/// Alignment of every data pointer handed to NumPy.
const ALIGN: usize = 64;
/// From this size on, the pages are advised as huge pages (NumPy's threshold).
const HUGE_FROM: usize = 4 << 20;

#[repr(C)]
struct Allocator {
    ctx: *mut c_void,
    malloc: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
    calloc: unsafe extern "C" fn(*mut c_void, usize, usize) -> *mut c_void,
    realloc: unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void, *mut c_void, usize),
}

#[repr(C)]
struct Handler {
    name: [u8; 127],
    version: u8,
    allocator: Allocator,
}

// SAFETY: the handler is immutable and its context pointer is null.
unsafe impl Sync for Handler {}
unsafe impl Send for Handler {}

const fn handler_name() -> [u8; 127] {
    let mut name = [0u8; 127];
    let text = b"ptl_aligned_64";
    let mut i = 0;
    while i < text.len() {
        name[i] = text[i];
        i += 1;
    }
    name
}

static HANDLER: Handler = Handler {
    name: handler_name(),
    version: 1,
    allocator: Allocator { ctx: std::ptr::null_mut(), malloc: aligned_malloc, calloc: aligned_calloc, realloc: aligned_realloc, free: aligned_free },
};

/// The aligned address inside a block from `malloc` at `raw`: at least one pointer past it
/// (where `raw` is kept), at most `ALIGN` bytes past it.
fn place(raw: *mut u8) -> *mut u8 {
    let addr = raw as usize + std::mem::size_of::<usize>();
    let aligned = (addr + ALIGN - 1) & !(ALIGN - 1);
    // SAFETY (for callers): the block has `ALIGN` spare bytes, and `aligned - raw <= ALIGN`.
    raw.wrapping_add(aligned - raw as usize)
}

/// Records `raw` just before `data` and returns `data`.
unsafe fn finish(raw: *mut u8, size: usize) -> *mut c_void {
    if raw.is_null() {
        return std::ptr::null_mut();
    }
    let data = place(raw);
    // SAFETY: `data - 8 >= raw`, inside the block.
    unsafe { (data as *mut usize).sub(1).write_unaligned(raw as usize) };
    if size >= HUGE_FROM {
        advise_huge(data, size);
    }
    data.cast()
}

fn advise_huge(data: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    {
        let page = 4096usize;
        let start = (data as usize + page - 1) & !(page - 1);
        let end = (data as usize + size) & !(page - 1);
        if end > start {
            // SAFETY: advice on pages of our own block; failure is harmless.
            unsafe { libc::madvise(start as *mut c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
}

unsafe fn raw_of(data: *mut c_void) -> *mut u8 {
    // SAFETY: `data` came from `finish`, which wrote the block's address before it.
    unsafe { (data as *mut usize).sub(1).read_unaligned() as *mut u8 }
}

unsafe extern "C" fn aligned_malloc(_ctx: *mut c_void, size: usize) -> *mut c_void {
    let Some(total) = size.checked_add(ALIGN) else { return std::ptr::null_mut() };
    unsafe { finish(libc::malloc(total).cast(), size) }
}

unsafe extern "C" fn aligned_calloc(_ctx: *mut c_void, nelem: usize, elsize: usize) -> *mut c_void {
    let Some(size) = nelem.checked_mul(elsize) else { return std::ptr::null_mut() };
    let Some(total) = size.checked_add(ALIGN) else { return std::ptr::null_mut() };
    unsafe { finish(libc::calloc(total, 1).cast(), size) }
}

unsafe extern "C" fn aligned_realloc(_ctx: *mut c_void, ptr: *mut c_void, new_size: usize) -> *mut c_void {
    if ptr.is_null() {
        return unsafe { aligned_malloc(_ctx, new_size) };
    }
    let Some(total) = new_size.checked_add(ALIGN) else { return std::ptr::null_mut() };
    unsafe {
        let old_raw = raw_of(ptr);
        let offset = ptr as usize - old_raw as usize;
        let raw: *mut u8 = libc::realloc(old_raw.cast(), total).cast();
        if raw.is_null() {
            return std::ptr::null_mut();
        }
        // The data kept its offset from the block's start; the new block may need another.
        let data = place(raw);
        let new_offset = data as usize - raw as usize;
        if new_offset != offset {
            std::ptr::copy(raw.add(offset), data, new_size);
        }
        finish(raw, new_size)
    }
}

unsafe extern "C" fn aligned_free(_ctx: *mut c_void, ptr: *mut c_void, _size: usize) {
    if !ptr.is_null() {
        unsafe { libc::free(raw_of(ptr).cast()) };
    }
}

/// Installs the handler for the calling thread, unless `PTL_NUMPY_ALLOCATOR=0`. Returns
/// whether it was installed.
pub fn install(py: Python<'_>) -> PyResult<bool> {
    if std::env::var("PTL_NUMPY_ALLOCATOR").is_ok_and(|v| v == "0") {
        return Ok(false);
    }
    const NAME: &CStr = c"mem_handler";
    // SAFETY: NumPy's and Python's C API with the GIL held. The capsule points to a static
    // that lives as long as the process; NumPy keeps its own reference to it. The previous
    // handler comes back as a new reference (released here), or null with an exception set.
    unsafe {
        let capsule = pyo3::ffi::PyCapsule_New(std::ptr::from_ref(&HANDLER).cast_mut().cast(), NAME.as_ptr(), None);
        if capsule.is_null() {
            return Err(PyErr::fetch(py));
        }
        let old = PY_ARRAY_API.PyDataMem_SetHandler(py, capsule);
        pyo3::ffi::Py_DecRef(capsule);
        if old.is_null() {
            return Err(PyErr::fetch(py));
        }
        pyo3::ffi::Py_DecRef(old);
    }
    Ok(true)
}
