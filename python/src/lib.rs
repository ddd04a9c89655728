//! `pytensor_ptl._ptl`: builds ptl programs from PyTensor graph descriptions and runs them.

mod importer;

use std::cell::RefCell;

use ndarray::ArrayD;
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use ptl_lang::typed::TProgram;
use ptl_lang::{DType, Value, diag, print_program};
use ptl_rt::{CompileCache, Engine, EngineOptions};

thread_local! {
    /// One engine per thread: it is not `Send`, and it keeps the compiled modules loaded.
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

fn with_engine<T>(f: impl FnOnce(&mut Engine) -> Result<T, ptl_rt::RtError>) -> PyResult<T> {
    ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let options = EngineOptions { cache_dir: CompileCache::default_dir(), ..Default::default() };
            *slot = Some(Engine::new(options).map_err(|e| PyRuntimeError::new_err(format!("cannot start the ptl runtime: {e}")))?);
        }
        f(slot.as_mut().unwrap()).map_err(rt_error)
    })
}

fn rt_error(e: ptl_rt::RtError) -> PyErr {
    match e {
        ptl_rt::RtError::Argument { .. } | ptl_rt::RtError::ArgumentCount { .. } => PyValueError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

/// A NumPy array (any supported dtype) to a value.
fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    macro_rules! try_dtype {
        ($t:ty, $variant:ident) => {
            if let Ok(a) = obj.cast::<PyArrayDyn<$t>>() {
                return Ok(Value::$variant(a.readonly().as_array().to_owned()));
            }
        };
    }
    try_dtype!(f64, F64);
    try_dtype!(f32, F32);
    try_dtype!(i64, I64);
    try_dtype!(i32, I32);
    try_dtype!(bool, Bool);
    let dtype = obj
        .getattr("dtype")
        .and_then(|d| d.str().map(|s| s.to_string()))
        .unwrap_or_else(|_| obj.get_type().name().map(|n| n.to_string()).unwrap_or_default());
    Err(PyTypeError::new_err(format!("ptl takes NumPy arrays of bool, int32, int64, float32 or float64, got {dtype}")))
}

fn to_numpy(py: Python<'_>, v: Value) -> Py<PyAny> {
    fn arr<T: numpy::Element>(py: Python<'_>, a: ArrayD<T>) -> Py<PyAny> {
        a.into_pyarray(py).into_any().unbind()
    }
    match v {
        Value::Bool(a) => arr(py, a),
        Value::I32(a) => arr(py, a),
        Value::I64(a) => arr(py, a),
        Value::F32(a) => arr(py, a),
        Value::F64(a) => arr(py, a),
    }
}

fn values_to_list(py: Python<'_>, values: Vec<Value>) -> PyResult<Py<PyList>> {
    let items: Vec<Py<PyAny>> = values.into_iter().map(|v| to_numpy(py, v)).collect();
    Ok(PyList::new(py, items)?.unbind())
}

/// A ptl program with one function, made from a PyTensor graph.
#[pyclass(module = "pytensor_ptl._ptl")]
pub struct Program {
    source: String,
    entry: String,
    typed: Option<TProgram>,
    diagnostics: String,
}

#[pymethods]
impl Program {
    /// The canonical ptl text of the program.
    fn source(&self) -> String {
        self.source.clone()
    }

    /// The name of the function.
    #[getter]
    fn entry(&self) -> String {
        self.entry.clone()
    }

    /// The rendered diagnostics; empty when the program type-checks.
    #[getter]
    fn diagnostics(&self) -> String {
        self.diagnostics.clone()
    }

    /// Raises `ValueError` with the rendered diagnostics unless the program type-checks.
    fn check(&self) -> PyResult<()> {
        match &self.typed {
            Some(_) => Ok(()),
            None => Err(PyValueError::new_err(format!("the imported program does not type-check:\n{}", self.diagnostics))),
        }
    }

    /// The result dtypes, as ptl names them.
    fn result_dtypes(&self) -> PyResult<Vec<String>> {
        let f = self.function()?;
        Ok(f.results.iter().map(|t| t.dtype.name().to_string()).collect())
    }

    /// The result types as ptl writes them.
    fn result_types(&self) -> PyResult<Vec<String>> {
        let f = self.function()?;
        Ok(f.results.iter().map(|t| t.to_string()).collect())
    }

    /// Compiles (once) and runs the function; returns one array per result.
    #[pyo3(signature = (*args))]
    fn run(&self, py: Python<'_>, args: Vec<Bound<'_, PyAny>>) -> PyResult<Py<PyList>> {
        let typed = self.typed()?;
        let values = args.iter().map(to_value).collect::<PyResult<Vec<_>>>()?;
        // Other Python threads run while IREE computes: the engine is this thread's own, and
        // nothing here touches Python objects.
        let entry = &self.entry;
        let out = py.detach(|| with_engine(|e| e.call(typed, entry, &values)))?;
        values_to_list(py, out)
    }

    /// Runs the function with the reference interpreter.
    #[pyo3(signature = (*args))]
    fn interpret(&self, py: Python<'_>, args: Vec<Bound<'_, PyAny>>) -> PyResult<Py<PyList>> {
        let typed = self.typed()?;
        let values = args.iter().map(to_value).collect::<PyResult<Vec<_>>>()?;
        let out = ptl_interp::call_function(typed, &self.entry, &values).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        values_to_list(py, out)
    }

    /// Compiles the function now (through the compile cache) instead of at the first call.
    fn compile(&self) -> PyResult<()> {
        let typed = self.typed()?;
        with_engine(|e| e.vmfb(typed, &ptl_lower::Entry::Function(self.entry.clone())).map(|_| ()))
    }

    /// The MLIR module the function is compiled from.
    fn mlir(&self) -> PyResult<String> {
        let typed = self.typed()?;
        with_engine(|e| e.mlir(typed, &ptl_lower::Entry::Function(self.entry.clone())))
    }
}

impl Program {
    fn typed(&self) -> PyResult<&TProgram> {
        self.check()?;
        Ok(self.typed.as_ref().unwrap())
    }

    fn function(&self) -> PyResult<&ptl_lang::typed::TFn> {
        self.typed()?.function(&self.entry).ok_or_else(|| PyRuntimeError::new_err("the program lost its function"))
    }
}

/// Builds a program from a graph description (JSON) and its constant arrays. Raises
/// `NotImplementedError` naming the node when a part of the graph has no ptl equivalent. The
/// program is printed, then parsed and checked from that text, so diagnostics point into
/// `source()`.
#[pyfunction]
fn build_program(description: &str, consts: Vec<Bound<'_, PyAny>>) -> PyResult<Program> {
    let graph: importer::Graph =
        serde_json::from_str(description).map_err(|e| PyValueError::new_err(format!("bad graph description: {e}")))?;
    let consts = consts.iter().map(to_value).collect::<PyResult<Vec<_>>>()?;
    let ast = importer::build(&graph, &consts).map_err(|e| PyNotImplementedError::new_err(e.message))?;
    let source = print_program(&ast);
    let (typed, diagnostics) = match ptl_lang::frontend(&source) {
        Ok(p) => (Some(p), String::new()),
        Err(d) => (None, diag::render_all(&d, "<imported>", &source, false)),
    };
    Ok(Program { source, entry: graph.name, typed, diagnostics })
}

fn check_source(src: &str, file: &str) -> PyResult<TProgram> {
    ptl_lang::frontend(src).map_err(|d| PyValueError::new_err(diag::render_all(&d, file, src, false)))
}

/// Runs a ptl script compiled (as `ptl run`) or interpreted (as `ptl run --interp`); returns
/// the printed values in order.
#[pyfunction]
#[pyo3(signature = (source, interp = false))]
fn run_script(py: Python<'_>, source: &str, interp: bool) -> PyResult<Py<PyList>> {
    let typed = check_source(source, "<script>")?;
    let out = if interp {
        ptl_interp::run_program(&typed).map_err(|e| PyRuntimeError::new_err(e.to_string()))?
    } else {
        py.detach(|| with_engine(|e| e.run_script(&typed)))?
    };
    values_to_list(py, out)
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
    DType::ALL
        .iter()
        .map(|d| match d {
            DType::Bool => "bool",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F32 => "float32",
            DType::F64 => "float64",
        })
        .collect()
}

#[pymodule]
fn _ptl(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Program>()?;
    m.add_function(wrap_pyfunction!(build_program, m)?)?;
    m.add_function(wrap_pyfunction!(run_script, m)?)?;
    m.add_function(wrap_pyfunction!(format_source, m)?)?;
    m.add_function(wrap_pyfunction!(dtypes, m)?)?;
    Ok(())
}
