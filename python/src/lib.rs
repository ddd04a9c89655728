//! `pytensor_ptl._ptl`: builds ptl programs from PyTensor graph descriptions and runs them.

mod aligned;
mod engine;
mod importer;
mod interrupt;
mod program;
mod values;

use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use ptl_lang::typed::TProgram;
use ptl_lang::{DType, diag, print_program};

use engine::with_engine;
use importer::ImportError;
use importer::desc::{Graph, NUMPY_NAMES};
use program::Program;
use values::{to_value, values_to_list};

/// Builds a program from a graph description (JSON, see `importer/desc.rs`) and its constant
/// arrays. Raises `NotImplementedError` naming the node when a part of the graph has no ptl
/// equivalent, and `ValueError` when the description does not have the documented shape.
#[pyfunction]
fn build_program(description: &str, consts: Vec<Bound<'_, PyAny>>) -> PyResult<Program> {
    let graph: Graph =
        serde_json::from_str(description).map_err(|e| PyValueError::new_err(format!("bad graph description: {e}")))?;
    let consts = consts.iter().map(to_value).collect::<PyResult<Vec<_>>>()?;
    let imported = importer::build(&graph, &consts).map_err(|e| match e {
        ImportError::Malformed(_) => PyValueError::new_err(e.to_string()),
        ImportError::Unsupported(_) => PyNotImplementedError::new_err(e.to_string()),
    })?;
    Ok(Program::new(imported, graph.inputs.len()))
}

fn check_source(src: &str, file: &str) -> PyResult<TProgram> {
    ptl_lang::frontend(src).map_err(|d| PyValueError::new_err(diag::render_all(&d, file, src, false)))
}

/// Runs a ptl script compiled (as `ptl run`) or interpreted (as `ptl run --interp`); returns
/// the printed values in order. `device` is `cpu`, `vulkan` or `cuda`.
#[pyfunction]
#[pyo3(signature = (source, interp = false, device = "cpu"))]
fn run_script(py: Python<'_>, source: &str, interp: bool, device: &str) -> PyResult<Py<PyList>> {
    let device = engine::parse_device(device)?;
    let typed = check_source(source, "<script>")?;
    let guard = interrupt::Guard::install(typed.has_loops());
    let out = if interp {
        // Other Python threads run meanwhile, as during a compiled call.
        py.detach(|| ptl_interp::run_program(&typed)).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    } else {
        py.detach(|| with_engine(device, |e| e.run_script(&typed)))
    };
    values_to_list(py, guard.finish(py, out)?)
}

/// The canonical text of a ptl source (as `ptl fmt`).
#[pyfunction]
fn format_source(source: &str) -> PyResult<String> {
    let (program, diags) = ptl_lang::parse(source);
    match program {
        Some(p) if diags.is_empty() => Ok(print_program(&p)),
        _ => Err(PyValueError::new_err(diag::render_all(&diags, "<source>", source, false))),
    }
}

/// The dtypes ptl has, by NumPy name.
#[pyfunction]
fn dtypes() -> Vec<&'static str> {
    DType::ALL.iter().filter_map(|d| NUMPY_NAMES.iter().find(|(_, x)| x == d).map(|(n, _)| *n)).collect()
}

#[pymodule]
fn _ptl(m: &Bound<'_, PyModule>) -> PyResult<()> {
    aligned::install(m.py())?;
    m.add_class::<Program>()?;
    m.add_function(wrap_pyfunction!(build_program, m)?)?;
    m.add_function(wrap_pyfunction!(run_script, m)?)?;
    m.add_function(wrap_pyfunction!(format_source, m)?)?;
    m.add_function(wrap_pyfunction!(dtypes, m)?)?;
    Ok(())
}
