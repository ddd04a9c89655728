//! `Program`: the ptl function made from a PyTensor graph, with the constants it is called with.

use std::sync::Mutex;

use ptl_rt::{Arg, HostView};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use ptl_lang::typed::TProgram;
use ptl_lang::{Value, diag, print_program};

use crate::engine::{Placement, parse_device, with_engine, with_engine_py};
use crate::importer::Imported;
use crate::values::{Borrowed, results_to_list, to_value, values_to_list};

/// Results kept in device memory between releasing and taking back the GIL.
struct OnThisThread(Vec<ptl_rt::DeviceValue>);

// SAFETY: `Python::detach` runs its closure on the calling thread, so the values never leave
// the thread that made them (IREE's reference counts are atomic in any case).
unsafe impl Send for OnThisThread {}

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
    device: Placement,
    /// The function made ready on each device's engine, after its first call there.
    prepared: Mutex<Vec<(Placement, ptl_rt::Prepared)>>,
    /// Whether the program has loops, which Ctrl-C must be able to stop.
    loops: bool,
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
        let loops = typed.as_ref().is_some_and(TProgram::has_loops);
        Program {
            source,
            entry: imported.entry,
            typed,
            diagnostics,
            n_inputs,
            bound: imported.bound,
            device: Placement::default(),
            prepared: Mutex::new(Vec::new()),
            loops,
        }
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

    /// A `TypeError` unless a caller passes `n` arguments.
    fn check_count(&self, n: usize) -> PyResult<()> {
        if n != self.n_inputs {
            let message = format!("`{}` takes {} arguments, got {}", self.entry, self.n_inputs, n);
            return Err(PyTypeError::new_err(message));
        }
        Ok(())
    }

    /// The caller's arguments followed by the bound constants.
    fn arguments(&self, args: &[Bound<'_, PyAny>]) -> PyResult<Vec<Value>> {
        self.check_count(args.len())?;
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

    /// Compiles (once) and runs the function; returns one array per result. The arguments
    /// are NumPy arrays of exactly the parameters' dtypes (any layout), read in place: a
    /// `TypeError` names the first that is not (the Python wrapper converts and calls again).
    #[pyo3(signature = (*args))]
    fn run(&self, py: Python<'_>, args: Vec<Bound<'_, PyAny>>) -> PyResult<Py<PyList>> {
        let typed = self.typed()?;
        let f = self.function()?;
        self.check_count(args.len())?;
        let borrowed = args
            .iter()
            .zip(&f.params)
            .enumerate()
            .map(|(k, (a, p))| {
                Borrowed::of(a, p.ty.dtype).ok_or_else(|| {
                    PyTypeError::new_err(format!("argument {k} (`{}`) is not a NumPy array of {}", p.name, p.ty.dtype))
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let views: Vec<HostView<'_>> = borrowed.iter().map(Borrowed::view).collect();
        let device = self.device;
        let known = self.prepared.lock().ok().and_then(|p| p.iter().find(|(d, _)| *d == device).map(|(_, p)| p.clone()));
        // Other Python threads run while IREE computes: the engine is this thread's own, and
        // nothing here touches Python objects (the arrays stay borrowed until it returns).
        let entry = &self.entry;
        let bound = &self.bound;
        let guard = crate::interrupt::Guard::install(self.loops);
        let result = py.detach(|| {
            with_engine(device, |e| {
                let prepared = match known {
                    Some(p) => p,
                    None => e.prepare(typed, entry)?,
                };
                let args: Vec<Arg<'_>> = views.iter().cloned().map(Arg::View).chain(bound.iter().map(Arg::Host)).collect();
                let outs = e.call_prepared(typed, &prepared, &args)?;
                Ok((OnThisThread(outs), prepared))
            })
        });
        let (out, prepared) = guard.finish(py, result)?;
        if let Ok(mut p) = self.prepared.lock()
            && !p.iter().any(|(d, _)| *d == device)
        {
            p.push((device, prepared));
        }
        with_engine_py(device, |e| results_to_list(py, e, &out.0))
    }

    /// Runs the function with the reference interpreter.
    #[pyo3(signature = (*args))]
    fn interpret(&self, py: Python<'_>, args: Vec<Bound<'_, PyAny>>) -> PyResult<Py<PyList>> {
        let typed = self.typed()?;
        let values = self.arguments(&args)?;
        let guard = crate::interrupt::Guard::install(self.loops);
        // Other Python threads run meanwhile, as during a compiled call.
        let out = py.detach(|| ptl_interp::call_function(typed, &self.entry, &values)).map_err(|e| match e {
            // A bad argument is the caller's ValueError, as in a compiled call.
            ptl_interp::InterpError::ArgumentMismatch { .. } | ptl_interp::InterpError::Arity { .. } => {
                PyValueError::new_err(e.to_string())
            }
            ptl_interp::InterpError::TooLarge { .. } => PyMemoryError::new_err(e.to_string()),
            _ => PyRuntimeError::new_err(e.to_string()),
        });
        values_to_list(py, guard.finish(py, out)?)
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

