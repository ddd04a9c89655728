//! `loop` and `scan` expressions, and `let (a, b) = ...` destructuring.
//!
//! A loop's state keeps one type across steps: the initial values fix it, and the body
//! must give values of the same dtype (or ones that widen to it losslessly) and dims that
//! fit (a `?` state dim takes any size). A scan's per-step outputs must have dims known
//! before the loop runs (static, or names of the signature), so the stack that collects
//! them can be allocated once.

use super::dims::fits;
use super::dtype::can_widen;
use super::env::Scope;
use super::{Checker, Typed, has_type};
use crate::ast::{Expr, ExprKind, Ident, Let, LoopExpr, LoopKind};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::typed::{TBlock, TExpr, TExprKind, TLet, TLoop};
use crate::types::{DType, Dim, TensorType};
use crate::value::Value;

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One checked part of a multi-value position and the values it gives.
struct Part {
    t: Typed,
    types: Vec<TensorType>,
    span: Span,
}

/// The constant value of an `i64` scalar literal node.
fn literal_i64(e: &TExpr) -> Option<i64> {
    match &e.kind {
        TExprKind::Literal(Value::I64(a)) if a.ndim() == 0 => a.iter().next().copied(),
        _ => None,
    }
}

impl Checker {
    /// The values of a position that may hold several: a tuple `(a, b)`, a call of a
    /// function with several results, or a loop carrying several values.
    fn parts(&mut self, sc: &Scope, e: &Expr) -> Option<Vec<Part>> {
        let items: Vec<&Expr> = match &e.kind {
            ExprKind::Tuple(xs) => xs.iter().collect(),
            _ => vec![e],
        };
        let checked: Vec<Option<Typed>> = items.iter().map(|x| self.expr_in(sc, x, true)).collect();
        let mut parts = Vec::new();
        for (t, x) in checked.into_iter().zip(items) {
            let t = t?;
            let types = t.e.result_types();
            parts.push(Part { t, types, span: x.span.clone() });
        }
        Some(parts)
    }

    /// A loop bound: an integer scalar, as `i64`.
    fn loop_bound(&mut self, sc: &Scope, e: &Expr) -> Option<TExpr> {
        let t = self.expr(sc, e)?;
        if !t.ty().is_scalar() || !t.dtype().is_int() {
            let d = Diagnostic::new(ErrorKind::DType, e.span.clone(), "a loop bound must be an integer scalar")
                .with_label(e.span.clone(), has_type(t.ty()))
                .with_note("loop bounds are `i32` or `i64` scalars: literals, arguments, dimension names or arithmetic on them");
            self.report(d);
            return None;
        }
        self.convert(t, DType::I64)
    }

    /// Reports a name bound twice in one pattern (or a counter named like a state value).
    fn duplicate_names(&mut self, names: &[&Ident], what: &str) -> bool {
        let mut ok = true;
        for (i, n) in names.iter().enumerate() {
            if let Some(prev) = names[..i].iter().find(|p| p.name == n.name) {
                let d = Diagnostic::new(ErrorKind::Duplicate, n.span.clone(), format!("`{}` is bound twice in {what}", n.name))
                    .with_label(n.span.clone(), "bound again here")
                    .with_label(prev.span.clone(), "first bound here");
                self.report(d);
                ok = false;
            }
        }
        ok
    }

    /// `loop` / `scan`; `allow_multi` tells whether several values may stand here.
    pub(crate) fn loop_expr(&mut self, sc: &Scope, l: &LoopExpr, span: Span, allow_multi: bool) -> Option<Typed> {
        let mut names: Vec<&Ident> = l.state.iter().collect();
        names.push(&l.counter);
        let names_ok = self.duplicate_names(&names, "this loop");
        let init = self.parts(sc, &l.init);
        let start = self.loop_bound(sc, &l.start);
        let stop = self.loop_bound(sc, &l.stop);
        let init = init?;
        let state_types: Vec<TensorType> = init.iter().flat_map(|p| p.types.clone()).collect();
        let pattern_span = match (l.state.first(), l.state.last()) {
            (Some(a), Some(b)) => a.span.start..b.span.end,
            _ => span.clone(),
        };
        if state_types.len() != l.state.len() {
            let n = l.state.len();
            let d = Diagnostic::new(
                ErrorKind::Mismatch,
                l.init.span.clone(),
                format!("the loop state has {n} name{}, but its initial value gives {} value{}", plural(n), state_types.len(), plural(state_types.len())),
            )
            .with_label(l.init.span.clone(), format!("{} value{}", state_types.len(), plural(state_types.len())))
            .with_label(pattern_span, format!("{n} name{}", plural(n)));
            self.report(d);
            return None;
        }
        // The body sees the enclosing scope, the state and the counter.
        let mut body_sc = sc.clone();
        for (n, ty) in l.state.iter().zip(&state_types) {
            body_sc.bind(&n.name, Some(ty.clone()));
        }
        body_sc.bind(&l.counter.name, Some(TensorType::scalar(DType::I64)));
        let mut lets = Vec::new();
        for let_ in &l.body.lets {
            if let Some(tl) = self.let_stmt(&mut body_sc, let_) {
                lets.push(tl);
            }
        }
        let body = self.parts(&body_sc, &l.body.result);
        let until = self.loop_until(sc, l, &state_types);
        let (start, stop, body) = (start?, stop?, body?);
        let until = match (&l.until, until) {
            (Some(_), None) => return None,
            (_, until) => until,
        };
        if !names_ok || lets.len() != l.body.lets.len() {
            return None;
        }
        let n_state = state_types.len();
        let n_body: usize = body.iter().map(|p| p.types.len()).sum();
        let scan = l.kind == LoopKind::Scan;
        if (!scan && n_body != n_state) || (scan && n_body <= n_state) {
            let message = if scan {
                format!(
                    "the scan body gives {n_body} value{}, but it needs the next state ({n_state} value{}) followed by at least one output",
                    plural(n_body),
                    plural(n_state)
                )
            } else {
                format!("the loop body gives {n_body} value{}, but the state has {n_state}", plural(n_body))
            };
            let d = Diagnostic::new(ErrorKind::Mismatch, l.body.result.span.clone(), message)
            .with_label(l.body.result.span.clone(), format!("{n_body} value{}", plural(n_body)))
            .with_label(pattern_span, format!("the state has {n_state} value{}", plural(n_state)))
            .with_note(if scan {
                "a `scan` body ends with `(next_state, output)`: the state's values, then what to stack"
            } else {
                "a `loop` body ends with the next value of the state (a tuple for several)"
            });
            self.report(d);
            return None;
        }
        let results = self.loop_body_results(l, &init, &state_types, body)?;
        let mut result_types = state_types.clone();
        if scan {
            let lead = match (literal_i64(&start), literal_i64(&stop), &stop.kind) {
                // A scan that may stop early stacks as many rows as it ran steps.
                _ if until.is_some() => Dim::Unknown,
                (Some(a), Some(b), _) => Dim::Static(b.saturating_sub(a).max(0) as u64),
                (Some(0), _, TExprKind::DimValue(n)) => Dim::Symbol(n.clone()),
                _ => Dim::Unknown,
            };
            for (e, ty) in results.iter().flat_map(|e| e.result_types().into_iter().map(move |t| (e, t))).skip(n_state) {
                if ty.dims.contains(&Dim::Unknown) {
                    let d = Diagnostic::new(ErrorKind::Shape, e.span.clone(), format!("a scan output must have known dims, but this one has type `{ty}`"))
                        .with_label(e.span.clone(), has_type(&ty))
                        .with_note("the stack of outputs is allocated before the first step, so each dim must be static or a dimension name of the signature");
                    self.report(d);
                    return None;
                }
                let mut dims = vec![lead.clone()];
                dims.extend(ty.dims.iter().cloned());
                result_types.push(TensorType::new(ty.dtype, dims));
            }
        }
        if result_types.len() > 1 && !allow_multi {
            let tys: Vec<String> = result_types.iter().map(|t| t.to_string()).collect();
            let d = Diagnostic::new(ErrorKind::Mismatch, span.clone(), format!("this loop gives {} values, but one value is expected here", result_types.len()))
                .with_label(span, format!("this gives `({})`", tys.join(", ")))
                .with_note("bind its values with `let (a, b) = ...`, or print it whole");
            self.report(d);
            return None;
        }
        let tloop = TLoop {
            scan,
            state: l.state.iter().map(|n| n.name.clone()).collect(),
            init: init.into_iter().map(|p| p.t.e).collect(),
            counter: l.counter.name.clone(),
            start,
            stop,
            body: TBlock { lets, results },
            results: result_types.clone(),
            until,
        };
        let ty = result_types[0].clone();
        Some(Typed::strong(TExpr::new(TExprKind::Loop(Box::new(tloop)), ty, span)))
    }

    /// A loop's `until COND`: a `bool` scalar over the enclosing scope, the state after a step
    /// and the counter of that step (not the body's own names).
    fn loop_until(&mut self, sc: &Scope, l: &LoopExpr, state_types: &[TensorType]) -> Option<TExpr> {
        let c = l.until.as_ref()?;
        let mut until_sc = sc.clone();
        for (n, ty) in l.state.iter().zip(state_types) {
            until_sc.bind(&n.name, Some(ty.clone()));
        }
        until_sc.bind(&l.counter.name, Some(TensorType::scalar(DType::I64)));
        let cond = self.expr(&until_sc, c)?;
        if cond.dtype() != DType::Bool || !cond.ty().is_scalar() {
            let d = Diagnostic::new(ErrorKind::DType, c.span.clone(), "the stopping condition of a loop (`until`) must be a `bool` scalar")
                .with_label(c.span.clone(), has_type(cond.ty()))
                .with_note("reduce a `bool` array with `all` or `any`: `until all(done)` stops when every element is done");
            self.report(d);
            return None;
        }
        Some(cond.e)
    }

    /// The body's values, each next-state value checked against (and converted to) the
    /// state's type.
    fn loop_body_results(&mut self, l: &LoopExpr, init: &[Part], state: &[TensorType], body: Vec<Part>) -> Option<Vec<TExpr>> {
        let init_spans: Vec<Span> = init.iter().flat_map(|p| vec![p.span.clone(); p.types.len()]).collect();
        let mut out = Vec::new();
        let mut k = 0;
        let mut ok = true;
        for part in body {
            let n = part.types.len();
            let mut fits_all = true;
            let mut converted = None;
            for (j, ty) in part.types.iter().enumerate() {
                let Some(want) = state.get(k + j) else { break };
                let dims_fit = want.rank() == ty.rank() && want.dims.iter().zip(&ty.dims).all(|(w, a)| fits(w, a));
                // A single value may widen (or a literal adapt) to the state's dtype.
                let dtype_ok = ty.dtype == want.dtype || (n == 1 && (part.t.weak.is_some() || can_widen(ty.dtype, want.dtype)));
                if !(dims_fit && dtype_ok) {
                    let name = &l.state[k + j].name;
                    let d = Diagnostic::new(
                        ErrorKind::Mismatch,
                        part.span.clone(),
                        format!("the loop state `{name}` has type `{want}`, but the body's next value for it has type `{ty}`"),
                    )
                    .with_label(part.span.clone(), format!("the next `{name}` has type `{ty}`"))
                    .with_label(init_spans.get(k + j).cloned().unwrap_or_else(|| l.init.span.clone()), format!("`{name}` starts as `{want}` here"))
                    .with_note("a loop's state keeps the type of its initial value at every step; change the initial value or convert the next one");
                    self.report(d);
                    fits_all = false;
                } else if n == 1 && ty.dtype != want.dtype {
                    converted = Some(want.dtype);
                }
            }
            if !fits_all {
                ok = false;
                k += n;
                continue;
            }
            match converted {
                Some(to) => out.push(self.convert(part.t, to)?),
                None => out.push(part.t.e),
            }
            k += n;
        }
        ok.then_some(out)
    }

    /// A function body's results: the items of a tuple, or each value of an expression
    /// that gives several (a loop, a multi-result call), which is bound first by a
    /// destructuring `let` of names no program can write (`result#0`, ...).
    pub(crate) fn body_results(&mut self, sc: &Scope, result: &Expr, lets: &mut Vec<TLet>) -> Vec<Option<Typed>> {
        if let ExprKind::Tuple(xs) = &result.kind {
            return xs.iter().map(|e| self.expr(sc, e)).collect();
        }
        let Some(t) = self.expr_in(sc, result, true) else { return vec![None] };
        let types = t.e.result_types();
        if types.len() == 1 {
            return vec![Some(t)];
        }
        let span = result.span.clone();
        let names: Vec<String> = (0..types.len()).map(|k| format!("result#{k}")).collect();
        lets.push(TLet { name: names[0].clone(), value: t.e, span: span.clone(), rest: names[1..].to_vec() });
        names
            .into_iter()
            .zip(types)
            .map(|(n, ty)| Some(Typed::strong(TExpr::new(TExprKind::Var(n), ty, span.clone()))))
            .collect()
    }

    /// `let (a, b) = value`: `value` gives exactly as many values as there are names.
    pub(crate) fn destructure(&mut self, sc: &mut Scope, l: &Let) -> Option<TLet> {
        let names: Vec<&Ident> = l.names().collect();
        let names_ok = self.duplicate_names(&names, "this `let`");
        let poison = |sc: &mut Scope| {
            for n in l.names() {
                sc.bind(&n.name, None);
            }
        };
        if let Some(t) = &l.ty {
            let d = Diagnostic::new(ErrorKind::Syntax, t.span.clone(), "a destructuring `let` cannot have a type")
                .with_label(t.span.clone(), "a type here")
                .with_note("ascribe the value instead, or bind each value with its own `let`");
            self.report(d);
            poison(sc);
            return None;
        }
        if let ExprKind::Tuple(_) = &l.value.kind {
            let d = Diagnostic::new(ErrorKind::Mismatch, l.value.span.clone(), "a destructuring `let` takes one expression that gives several values")
                .with_label(l.value.span.clone(), "a tuple of separate values")
                .with_note("destructure a call of a function with several results or a loop with several values; bind separate values with one `let` each");
            self.report(d);
            poison(sc);
            return None;
        }
        let Some(t) = self.expr_in(sc, &l.value, true) else {
            poison(sc);
            return None;
        };
        let types = t.e.result_types();
        if types.len() != names.len() {
            let n = names.len();
            let pattern_span = l.name.span.start..names.last().map_or(l.name.span.end, |x| x.span.end);
            let d = Diagnostic::new(
                ErrorKind::Mismatch,
                l.value.span.clone(),
                format!("this `let` binds {n} name{}, but its value gives {} value{}", plural(n), types.len(), plural(types.len())),
            )
            .with_label(l.value.span.clone(), has_types(&types))
            .with_label(pattern_span, format!("{n} name{}", plural(n)));
            self.report(d);
            poison(sc);
            return None;
        }
        for (n, ty) in names.iter().zip(&types) {
            sc.bind(&n.name, Some(ty.clone()));
        }
        names_ok.then(|| TLet {
            name: l.name.name.clone(),
            value: t.e,
            span: l.span.clone(),
            rest: l.rest.iter().map(|n| n.name.clone()).collect(),
        })
    }
}

/// "this has type `f64`" or "this gives `(f64, i64)`".
fn has_types(types: &[TensorType]) -> String {
    match types {
        [one] => has_type(one),
        many => format!("this gives `({})`", many.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")),
    }
}
