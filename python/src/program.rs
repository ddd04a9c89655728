//! `Program`: the ptl function made from a PyTensor graph, with the constants it is called with.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use ptl_lang::typed::TProgram;
use ptl_lang::{Value, diag, print_program};

use crate::engine::{parse_device, with_engine};
use crate::importer::Imported;
use crate::values::{to_value, values_to_list};

/// A ptl program with one function, made from a PyTensor graph. The function takes the
/// graph's inputs, then the graph's large constants; a call passes the inputs and the program
/// adds the constants.
#[pyclass(module = "pytensor_ptl._ptl")]
pub struct Program {
    source: String,
    entry: String,
    typed: Option<TProgram>,
    diagnostics: String,
    /// How many arguments a caller passes.
    n_inputs: usize,
    /// The arguments after those, in parameter order.
    bound: Vec<Value>,
    /// Where compiled calls run.
    device: ptl_rt::Device,
}

impl Program {
    /// Prints the imported program, then parses and checks that text, so diagnostics point
    /// into `source()` and the source is known to stand on its own.
    pub fn new(imported: Imported, n_inputs: usize) -> Self {
        let source = print_program(&imported.program);
        let (typed, diagnostics) = match ptl_lang::frontend(&source) {
            Ok(p) => (Some(p), String::new()),
            Err(d) => (None, diag::render_all(&d, "<imported>", &source, false)),
        };
        Program { source, entry: imported.entry, typed, diagnostics, n_inputs, bound: imported.bound, device: ptl_rt::Device::LocalSync }
    }

    fn typed(&self) -> PyResult<&TProgram> {
        match &self.typed {
            Some(t) => Ok(t),
            None => Err(PyValueError::new_err(format!("the imported program does not type-check:\n{}", self.diagnostics))),
        }
    }

    fn function(&self) -> PyResult<&ptl_lang::typed::TFn> {
        self.typed()?.function(&self.entry).ok_or_else(|| PyRuntimeError::new_err("the program lost its function"))
    }

    /// The caller's arguments followed by the bound constants.
    fn arguments(&self, args: &[Bound<'_, PyAny>]) -> PyResult<Vec<Value>> {
        if args.len() != self.n_inputs {
            let message = format!("`{}` takes {} arguments, got {}", self.entry, self.n_inputs, args.len());
            return Err(PyTypeError::new_err(message));
        }
        let mut values = args.iter().map(to_value).collect::<PyResult<Vec<_>>>()?;
        values.extend(self.bound.iter().cloned());
        Ok(values)
    }
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

    /// The constants the function takes after the graph's inputs, as NumPy arrays.
    fn constants(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        values_to_list(py, self.bound.clone())
    }

    /// Raises `ValueError` with the rendered diagnostics unless the program type-checks.
    fn check(&self) -> PyResult<()> {
        self.typed().map(|_| ())
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

    /// Chooses where compiled calls run: `cpu` (the default), `vulkan` or `cuda`.
    fn set_device(&mut self, device: &str) -> PyResult<()> {
        self.device = parse_device(device)?;
        Ok(())
    }

    /// Compiles (once) and runs the function; returns one array per result.
    #[pyo3(signature = (*args))]
    fn run(&self, py: Python<'_>, args: Vec<Bound<'_, PyAny>>) -> PyResult<Py<PyList>> {
        let typed = self.typed()?;
        let values = self.arguments(&args)?;
        // Other Python threads run while IREE computes: the engine is this thread's own, and
        // nothing here touches Python objects.
        let entry = &self.entry;
        let out = py.detach(|| with_engine(self.device, |e| e.call(typed, entry, &values)))?;
        values_to_list(py, out)
    }

    /// Runs the function with the reference interpreter.
    #[pyo3(signature = (*args))]
    fn interpret(&self, py: Python<'_>, args: Vec<Bound<'_, PyAny>>) -> PyResult<Py<PyList>> {
        let typed = self.typed()?;
        let values = self.arguments(&args)?;
        let out = ptl_interp::call_function(typed, &self.entry, &values);
        values_to_list(py, out.map_err(|e| PyRuntimeError::new_err(e.to_string()))?)
    }

    /// Compiles the function now (through the compile cache) instead of at the first call.
    fn compile(&self) -> PyResult<()> {
        let typed = self.typed()?;
        with_engine(self.device, |e| e.vmfb(typed, &ptl_lower::Entry::Function(self.entry.clone())).map(|_| ()))
    }

    /// The MLIR module the function is compiled from.
    fn mlir(&self) -> PyResult<String> {
        let typed = self.typed()?;
        with_engine(self.device, |e| e.mlir(typed, &ptl_lower::Entry::Function(self.entry.clone())))
    }
}

