//! The reference interpreter: evaluates a [`TProgram`] directly on [`Value`]s with NumPy's
//! semantics. It is the oracle the compiled path is tested against.
//!
//! Every call checks its arguments against the parameter types (dtype, rank, static dims,
//! symbolic dims consistently bound across the signature) and its results against the
//! declared result types. Every evaluated node is checked against its static type, so a
//! typed tree that breaks the checker's invariants is reported as
//! [`InterpError::Internal`] rather than silently computing something else.
//!
//! Deviations from NumPy, all in cases NumPy leaves undefined or rejects:
//! - float -> int casts of NaN and ±inf give 0; finite out-of-range values saturate;
//! - an integer raised to a negative power gives 0 (1 for base 1, ±1 for base -1) where
//!   NumPy raises an error;
//! - float sums use NumPy's pairwise summation over the reduced elements in row-major
//!   order; NumPy sums non-trailing axes of C-ordered arrays sequentially, so such sums can
//!   differ from NumPy's in the last bits.

// Errors carry the names and types they report; they are off the hot path, so their size
// does not matter.
#![allow(clippy::result_large_err)]

mod error;
mod loops;
mod memory;
mod ops;
mod scalar;
mod signature;

use std::collections::HashMap;

pub use ops::elementwise::cast;
pub use error::InterpError;

static INTERRUPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks every evaluation in progress to stop: the next step of a loop fails with
/// [`InterpError::Interrupted`]. Only an atomic store, so a signal handler may call it.
pub fn interrupt() {
    INTERRUPT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Withdraws a request to stop (before a new evaluation); whether one was pending.
pub fn clear_interrupt() -> bool {
    INTERRUPT.swap(false, std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn interrupted() -> bool {
    INTERRUPT.load(std::sync::atomic::Ordering::Relaxed)
}
use error::Result;
use signature::{SymbolBindings, match_type};

use ptl_lang::runtime::RuntimeCheck;
use ptl_lang::span::Span;
use ptl_lang::typed::{TExpr, TExprKind, TFn, TLet, TProgram, TStmt};
use ptl_lang::types::Dim;
use ptl_lang::value::Value;

/// How deeply calls may nest before the interpreter gives up.
pub const MAX_CALL_DEPTH: usize = 256;

/// Runs the program's top-level statements and returns the printed values in order (a
/// `print` of a call returning several results contributes all of them).
pub fn run_program(p: &TProgram) -> Result<Vec<Value>, InterpError> {
    with_stack(|| run_top(p))
}

/// Calls function `name` with `args`, checking them against its signature first.
pub fn call_function(p: &TProgram, name: &str, args: &[Value]) -> Result<Vec<Value>, InterpError> {
    with_stack(|| Interp { prog: p, depth: 0 }.call(name, args.to_vec(), None))
}

/// Stack for the evaluating thread: evaluation recurses over the tree and through calls.
const STACK_BYTES: usize = 64 << 20;

/// Runs `f` on a thread with a large stack, so deep expression trees and call chains up to
/// [`MAX_CALL_DEPTH`] do not overflow the caller's stack.
fn with_stack<T: Send>(f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new().stack_size(STACK_BYTES).spawn_scoped(scope, f);
        match handle {
            Ok(h) => h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(e) => Err(InterpError::Internal { message: format!("cannot start the evaluation thread: {e}"), span: None }),
        }
    })
}

fn run_top(p: &TProgram) -> Result<Vec<Value>> {
    let mut interp = Interp { prog: p, depth: 0 };
    let mut frame = Frame::default();
    let mut printed = Vec::new();
    for stmt in &p.top {
        match stmt {
            TStmt::Let(l) => interp.run_let(&mut frame, l)?,
            TStmt::Print(exprs, _) => {
                for e in exprs {
                    printed.extend(interp.eval_multi(&frame, e)?);
                }
            }
        }
    }
    Ok(printed)
}

#[derive(Default)]
struct Frame {
    vars: HashMap<String, Value>,
    syms: SymbolBindings,
}

struct Interp<'p> {
    prog: &'p TProgram,
    depth: usize,
}

impl Interp<'_> {
    fn call(&mut self, name: &str, args: Vec<Value>, span: Option<Span>) -> Result<Vec<Value>> {
        let f = self.prog.function(name).ok_or_else(|| InterpError::UnknownFunction { name: name.to_string(), span: span.clone() })?;
        if args.len() != f.params.len() {
            return Err(InterpError::Arity { function: name.to_string(), expected: f.params.len(), actual: args.len(), span });
        }
        if self.depth >= MAX_CALL_DEPTH {
            return Err(InterpError::RecursionLimit { function: name.to_string(), limit: MAX_CALL_DEPTH, span });
        }
        let mut frame = Frame::default();
        for (param, arg) in f.params.iter().zip(args) {
            let who = format!("argument `{}`", param.name);
            let before = frame.syms.clone();
            if let Err(detail) = match_type(&param.ty, &arg, &who, &mut frame.syms) {
                // A call inside the program: the dims the checker let through (a `?` for a
                // static or named dim) are a run-time check, reported as compiled code does.
                if let (Some(at), Some(axis)) = (&span, signature::mismatched_axis(&param.ty, &arg, &before)) {
                    let check = RuntimeCheck::Argument {
                        function: name.to_string(),
                        param: param.name.clone(),
                        axis,
                        expected: param.ty.dims[axis].to_string(),
                    };
                    return Err(InterpError::check(check, at, format!("it has type {}: {detail}", arg.tensor_type())));
                }
                return Err(InterpError::ArgumentMismatch {
                    function: name.to_string(),
                    param: param.name.clone(),
                    actual: arg.tensor_type().to_string(),
                    expected: param.ty.to_string(),
                    detail,
                    span,
                });
            }
            frame.vars.insert(param.name.clone(), arg);
        }
        self.depth += 1;
        let results = self.run_body(f, &mut frame);
        self.depth -= 1;
        let results = results?;
        if results.len() != f.results.len() {
            return Err(InterpError::internal(format!("`{name}` produced {} results for {} declared", results.len(), f.results.len()), &f.span));
        }
        for (i, (ty, v)) in f.results.iter().zip(&results).enumerate() {
            if let Err(detail) = match_type(ty, v, &format!("result {i}"), &mut frame.syms) {
                return Err(InterpError::ResultMismatch {
                    function: name.to_string(),
                    index: i,
                    actual: v.tensor_type().to_string(),
                    expected: ty.to_string(),
                    detail,
                });
            }
        }
        Ok(results)
    }

    fn run_body(&mut self, f: &TFn, frame: &mut Frame) -> Result<Vec<Value>> {
        for l in &f.body.lets {
            self.run_let(frame, l)?;
        }
        f.body.results.iter().map(|e| self.eval(frame, e)).collect()
    }

    fn run_let(&mut self, frame: &mut Frame, l: &TLet) -> Result<()> {
        if l.rest.is_empty() {
            let v = self.eval(frame, &l.value)?;
            frame.vars.insert(l.name.clone(), v);
            return Ok(());
        }
        let values = self.eval_multi(frame, &l.value)?;
        if values.len() != 1 + l.rest.len() {
            return Err(InterpError::internal(format!("{} values for {} names", values.len(), 1 + l.rest.len()), &l.span));
        }
        for (name, v) in l.names().zip(values) {
            frame.vars.insert(name.clone(), v);
        }
        Ok(())
    }

    /// Evaluates an expression that may be a multi-result call.
    fn eval_multi(&mut self, frame: &Frame, e: &TExpr) -> Result<Vec<Value>> {
        match &e.kind {
            TExprKind::CallMulti(name, args, types) => {
                let args = args.iter().map(|a| self.eval(frame, a)).collect::<Result<Vec<_>>>()?;
                let results = self.call(name, args, Some(e.span.clone()))?;
                if results.len() != types.len() {
                    return Err(InterpError::internal(format!("`{name}` gave {} results for {} expected", results.len(), types.len()), &e.span));
                }
                for (ty, v) in types.iter().zip(&results) {
                    check_value(frame, ty, v, &e.span)?;
                }
                Ok(results)
            }
            TExprKind::Loop(l) => {
                let results = self.eval_loop(frame, l, &e.span)?;
                if results.len() != l.results.len() {
                    return Err(InterpError::internal(format!("a loop gave {} values for {} expected", results.len(), l.results.len()), &e.span));
                }
                for (ty, v) in l.results.iter().zip(&results) {
                    check_value(frame, ty, v, &e.span)?;
                }
                Ok(results)
            }
            TExprKind::Tuple(items) => items.iter().map(|x| self.eval(frame, x)).collect(),
            _ => Ok(vec![self.eval(frame, e)?]),
        }
    }

    fn eval(&mut self, frame: &Frame, e: &TExpr) -> Result<Value> {
        let v = self.eval_kind(frame, e)?;
        check_value(frame, &e.ty, &v, &e.span)?;
        Ok(v)
    }

    fn eval_kind(&mut self, frame: &Frame, e: &TExpr) -> Result<Value> {
        let span = &e.span;
        Ok(match &e.kind {
            TExprKind::Literal(v) => v.clone(),
            TExprKind::Var(name) => frame.vars.get(name).cloned().ok_or_else(|| InterpError::UnboundVariable { name: name.clone(), span: span.clone() })?,
            TExprKind::DimValue(name) => {
                let n = frame.syms.get(name).ok_or_else(|| InterpError::internal(format!("no argument binds the dimension `{name}`"), span))?;
                let n = i64::try_from(n).map_err(|_| InterpError::internal(format!("dimension `{name}` exceeds i64"), span))?;
                Value::I64(ndarray::arr0(n).into_dyn())
            }
            TExprKind::Op(op, args) => {
                let values = args.iter().map(|a| self.eval(frame, a)).collect::<Result<Vec<_>>>()?;
                let node = ops::Node { expr: e, operands: args, dims: target_dims(frame, &e.ty.dims) };
                ops::apply(op, &node, values)?
            }
            TExprKind::Call(name, args) => {
                let args = args.iter().map(|a| self.eval(frame, a)).collect::<Result<Vec<_>>>()?;
                let mut results = self.call(name, args, Some(span.clone()))?;
                if results.len() != 1 {
                    return Err(InterpError::internal(format!("`{name}` returns {} results where one is expected", results.len()), span));
                }
                results.remove(0)
            }
            TExprKind::Loop(l) => loops::single(self.eval_loop(frame, l, span)?, e)?,
            TExprKind::If(c) => {
                let cond = match self.eval(frame, &c.cond)? {
                    Value::Bool(a) if a.ndim() == 0 => a.iter().next().copied().unwrap_or(false),
                    other => return Err(InterpError::internal(format!("an `if` condition of type {}", other.tensor_type()), span)),
                };
                let block = if cond { &c.then } else { &c.otherwise };
                let [result] = block.results.as_slice() else {
                    return Err(InterpError::internal("an `if` block without one value", span));
                };
                let v = if block.lets.is_empty() {
                    self.eval(frame, result)?
                } else {
                    // The chosen block's scope: a copy of the enclosing one with its own `let`s.
                    let mut inner = Frame { vars: frame.vars.clone(), syms: frame.syms.clone() };
                    for b in &block.lets {
                        self.run_let(&mut inner, b)?;
                    }
                    self.eval(&inner, result)?
                };
                check_value(frame, &e.ty, &v, span)?;
                v
            }
            TExprKind::CallMulti(..) => {
                return Err(InterpError::internal("a multi-result call outside a top-level `print`", span));
            }
            TExprKind::Tuple(_) => {
                return Err(InterpError::internal("several values where one is expected", span));
            }
        })
    }
}

/// A type's dims as run-time sizes where known: static dims and symbols bound by the call.
fn target_dims(frame: &Frame, dims: &[Dim]) -> Vec<Option<usize>> {
    dims.iter()
        .map(|d| match d {
            Dim::Static(n) => usize::try_from(*n).ok(),
            Dim::Symbol(s) => frame.syms.get(s),
            Dim::Unknown => None,
        })
        .collect()
}

/// Checks an evaluated value against its node's static type: dtype, rank, static dims and
/// symbols the enclosing call bound.
fn check_value(frame: &Frame, ty: &ptl_lang::TensorType, v: &Value, span: &Span) -> Result<()> {
    let expected = target_dims(frame, &ty.dims);
    let ok = v.dtype() == ty.dtype
        && v.shape().len() == expected.len()
        && v.shape().iter().zip(&expected).all(|(&n, d)| d.is_none_or(|m| m == n));
    if ok {
        Ok(())
    } else {
        Err(InterpError::internal(format!("node of type {ty} evaluated to a {} value", v.tensor_type()), span))
    }
}
