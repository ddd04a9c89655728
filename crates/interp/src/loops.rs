//! `loop` and `scan`: the body runs once per counter value in `start..stop` (none when
//! `stop <= start`, as Python's `range`), each step seeing the enclosing scope, the state
//! and the counter; a scan stacks each step's outputs along a new leading axis. With `until`,
//! the loop stops after the first step whose new state makes the condition true.

use ndarray::{ArrayD, Axis, IxDyn};
use ptl_lang::span::Span;
use ptl_lang::typed::{TExpr, TLoop};
use ptl_lang::value::Value;
use ptl_lang::{DType, TensorType};

use crate::error::{InterpError, Result};
use crate::{Frame, Interp, target_dims};

/// The value of an `i64` scalar.
fn scalar_i64(v: &Value, span: &Span) -> Result<i64> {
    match v {
        Value::I64(a) if a.ndim() == 0 => a.iter().next().copied().ok_or_else(|| InterpError::internal("an empty scalar", span)),
        other => Err(InterpError::internal(format!("a loop bound of type {}", other.tensor_type()), span)),
    }
}

/// The value of a `bool` scalar.
fn scalar_bool(v: &Value, span: &Span) -> Result<bool> {
    match v {
        Value::Bool(a) if a.ndim() == 0 => a.iter().next().copied().ok_or_else(|| InterpError::internal("an empty scalar", span)),
        other => Err(InterpError::internal(format!("a stopping condition of type {}", other.tensor_type()), span)),
    }
}

/// Stacks same-shaped values along a new leading axis; `dims` is the shape of one step's
/// output, used when there are no steps.
fn stack(dtype: DType, dims: &[usize], steps: &[Value], span: &Span) -> Result<Value> {
    macro_rules! stack_as {
        ($variant:ident, $t:ty) => {{
            let mut views = Vec::new();
            for v in steps {
                match v {
                    Value::$variant(a) => views.push(a.view()),
                    other => return Err(InterpError::internal(format!("a scan output of type {}", other.tensor_type()), span)),
                }
            }
            let a: ArrayD<$t> = if views.is_empty() {
                let mut shape = vec![0];
                shape.extend_from_slice(dims);
                ArrayD::from_shape_vec(IxDyn(&shape), Vec::new()).map_err(|e| InterpError::internal(e.to_string(), span))?
            } else {
                ndarray::stack(Axis(0), &views).map_err(|e| InterpError::internal(format!("scan outputs of different shapes: {e}"), span))?
            };
            Value::$variant(a)
        }};
    }
    Ok(match dtype {
        DType::Bool => stack_as!(Bool, bool),
        DType::I32 => stack_as!(I32, i32),
        DType::I64 => stack_as!(I64, i64),
        DType::F32 => stack_as!(F32, f32),
        DType::F64 => stack_as!(F64, f64),
    })
}

impl Interp<'_> {
    /// Runs a loop and returns its values: the final state, then (scan) the stacked outputs.
    pub(crate) fn eval_loop(&mut self, frame: &Frame, l: &TLoop, span: &Span) -> Result<Vec<Value>> {
        let mut state = Vec::new();
        for e in &l.init {
            state.extend(self.eval_multi(frame, e)?);
        }
        if state.len() != l.state.len() {
            return Err(InterpError::internal(format!("{} initial values for {} state names", state.len(), l.state.len()), span));
        }
        let start = scalar_i64(&self.eval(frame, &l.start)?, span)?;
        let stop = scalar_i64(&self.eval(frame, &l.stop)?, span)?;
        let outputs: Vec<TensorType> = if l.scan { l.output_types() } else { Vec::new() };
        let mut output_dims = Vec::new();
        for t in &outputs {
            let dims: Option<Vec<usize>> = target_dims(frame, &t.dims).into_iter().collect();
            let dims = dims.ok_or_else(|| InterpError::internal(format!("a scan output of type {t} with an unknown dim"), span))?;
            let trips = usize::try_from(stop.saturating_sub(start).max(0)).unwrap_or(usize::MAX);
            let mut whole = vec![trips];
            whole.extend(&dims);
            crate::memory::check_size(&whole, t.dtype.size_bytes(), span)?;
            output_dims.push(dims);
        }
        let mut steps: Vec<Vec<Value>> = vec![Vec::new(); outputs.len()];
        // The body's scope: a copy of the enclosing one, in which each step rebinds the
        // state, the counter and the body's own `let`s.
        let mut body = Frame { vars: frame.vars.clone(), syms: frame.syms.clone() };
        let let_names: Vec<&String> = l.body.lets.iter().flat_map(|b| b.names()).collect();
        // `until`'s scope: the enclosing one, the state after a step and its counter.
        let mut after = l.until.as_ref().map(|_| Frame { vars: frame.vars.clone(), syms: frame.syms.clone() });
        for i in start..stop.max(start) {
            if crate::interrupted() {
                return Err(InterpError::Interrupted { step: i - start, span: span.clone() });
            }
            // A `let` of the body that shadows an outer name starts each step unbound again.
            for name in &let_names {
                match frame.vars.get(*name) {
                    Some(v) => body.vars.insert((*name).clone(), v.clone()),
                    None => body.vars.remove(*name),
                };
            }
            for (name, v) in l.state.iter().zip(std::mem::take(&mut state)) {
                body.vars.insert(name.clone(), v);
            }
            body.vars.insert(l.counter.clone(), Value::I64(ndarray::arr0(i).into_dyn()));
            for b in &l.body.lets {
                self.run_let(&mut body, b)?;
            }
            let mut values = Vec::new();
            for e in &l.body.results {
                values.extend(self.eval_multi(&body, e)?);
            }
            if values.len() != l.state.len() + outputs.len() {
                return Err(InterpError::internal(format!("a loop body gave {} values", values.len()), span));
            }
            let outs = values.split_off(l.state.len());
            state = values;
            for (k, v) in outs.into_iter().enumerate() {
                steps[k].push(v);
            }
            if let (Some(c), Some(after)) = (&l.until, after.as_mut()) {
                for (name, v) in l.state.iter().zip(&state) {
                    after.vars.insert(name.clone(), v.clone());
                }
                after.vars.insert(l.counter.clone(), Value::I64(ndarray::arr0(i).into_dyn()));
                if scalar_bool(&self.eval(after, c)?, span)? {
                    break;
                }
            }
        }
        let mut results = state;
        for ((t, dims), vs) in outputs.iter().zip(&output_dims).zip(&steps) {
            results.push(stack(t.dtype, dims, vs, span)?);
        }
        Ok(results)
    }
}

/// The loop's single value, where one value is expected.
pub(crate) fn single(mut values: Vec<Value>, e: &TExpr) -> Result<Value> {
    if values.len() != 1 {
        return Err(InterpError::internal(format!("a loop giving {} values where one is expected", values.len()), &e.span));
    }
    Ok(values.remove(0))
}
