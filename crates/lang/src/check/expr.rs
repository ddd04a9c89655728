//! Expressions: literals, names, operators, calls of user functions, ascriptions.

use std::collections::HashMap;

use super::dims::fits;
use super::dtype::{Weak, can_widen};
use super::env::{Lookup, Scope, suggest};
use super::literal::{self, Scalar};
use super::{Checker, Typed, has_type};
use crate::ast::{BinOp, Expr, ExprKind, Ident, UnOp};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::ops::{Builtin, Op};
use crate::typed::{BinaryOp, TExpr, TExprKind};
use crate::types::{DType, Dim, TensorType};
use crate::value::Value;

pub(crate) fn literal_expr(v: Value, span: Span) -> TExpr {
    let ty = v.tensor_type();
    TExpr::new(TExprKind::Literal(v), ty, span)
}

fn binary_op(op: BinOp) -> Option<BinaryOp> {
    Some(match op {
        BinOp::Add => BinaryOp::Add,
        BinOp::Sub => BinaryOp::Sub,
        BinOp::Mul => BinaryOp::Mul,
        BinOp::Div => BinaryOp::Div,
        BinOp::Pow => BinaryOp::Pow,
        BinOp::Lt => BinaryOp::Lt,
        BinOp::Le => BinaryOp::Le,
        BinOp::Gt => BinaryOp::Gt,
        BinOp::Ge => BinaryOp::Ge,
        BinOp::Eq => BinaryOp::Eq,
        BinOp::Ne => BinaryOp::Ne,
        BinOp::MatMul => return None,
    })
}

/// Why two dims do not broadcast, as a note.
pub(crate) fn clash_note(a: &Dim, b: &Dim) -> String {
    match (a, b) {
        (Dim::Symbol(x), Dim::Symbol(y)) => {
            format!("`{x}` and `{y}` are different dimension names, so they may differ at run time")
        }
        (Dim::Symbol(x), other) | (other, Dim::Symbol(x)) => {
            format!("the dimension name `{x}` stands for any size, not necessarily `{other}`")
        }
        _ => format!("`{a}` and `{b}` differ, and only a dim that is statically 1 stretches"),
    }
}

/// An integer literal, possibly negated: the form of axes and shape entries.
pub(crate) fn literal_int(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Unary(UnOp::Neg, inner) => literal_int(inner)?.checked_neg(),
        _ => None,
    }
}

impl Checker {
    pub(crate) fn expr(&mut self, sc: &Scope, e: &Expr) -> Option<Typed> {
        self.expr_in(sc, e, false)
    }

    /// Checks an expression; `allow_multi` is set only for the whole operand of a top-level
    /// `print`, the one place a call of a function with several results may appear.
    pub(crate) fn expr_in(&mut self, sc: &Scope, e: &Expr, allow_multi: bool) -> Option<Typed> {
        let t = self.expr_kind(sc, e, allow_multi)?;
        // A variable's type was checked where it was bound.
        if !matches!(e.kind, ExprKind::Var(_)) && self.too_large(&t.e.ty.dims, e.span.clone()) {
            return None;
        }
        Some(t)
    }

    fn expr_kind(&mut self, sc: &Scope, e: &Expr, allow_multi: bool) -> Option<Typed> {
        let span = e.span.clone();
        match &e.kind {
            ExprKind::Int(v) => Some(Typed {
                e: literal_expr(literal::scalar(Scalar::Int(*v)), span),
                weak: Some(Weak::Int),
            }),
            ExprKind::Float(v) => Some(Typed {
                e: literal_expr(literal::scalar(Scalar::Float(*v)), span),
                weak: Some(Weak::Float),
            }),
            ExprKind::Bool(v) => Some(Typed::strong(literal_expr(
                literal::scalar(Scalar::Bool(*v)),
                span,
            ))),
            ExprKind::Array(items) if !super::ops::joining::is_constant_array(e) => self.stack_literal(sc, items, span),
            ExprKind::Array(_) => self.array_literal(e),
            ExprKind::Var(name) => self.var(sc, name, span),
            ExprKind::DType(d) => self.error(
                ErrorKind::BadArgument,
                span,
                format!("the dtype `{d}` is not a value"),
                "a dtype can only be the second argument of `cast`",
            ),
            ExprKind::UnknownDim => self.error(
                ErrorKind::BadArgument,
                span,
                "`?` is not a value",
                "`?` can only appear in the shape list of `reshape` or `broadcast`",
            ),
            ExprKind::Unary(UnOp::Neg, x) => {
                let t = self.expr(sc, x)?;
                self.negate(t, span)
            }
            ExprKind::Binary(op, a, b) => {
                let l = self.expr(sc, a);
                let r = self.expr(sc, b);
                let (l, r) = (l?, r?);
                match binary_op(*op) {
                    Some(bop) => self.binary(bop, op.symbol(), l, r, span),
                    None => self.matmul(l, r, span),
                }
            }
            ExprKind::Call(name, args) => self.call(sc, name, args, span, allow_multi),
            ExprKind::Apply(callee, args) => self.apply(sc, callee, args, span, allow_multi),
            ExprKind::Index(x, items) => self.index(sc, x, items, span),
            ExprKind::Transpose(x) => {
                let t = self.expr(sc, x)?;
                let rank = t.ty().rank();
                if rank < 2 {
                    return Some(Typed::strong(t.e));
                }
                let perm: Vec<usize> = (0..rank).rev().collect();
                let dims = perm.iter().map(|&i| t.ty().dims[i].clone()).collect();
                let ty = TensorType::new(t.dtype(), dims);
                Some(Typed::strong(TExpr::op(Op::Transpose(perm), vec![t.e], ty, span)))
            }
            ExprKind::Ascribe(x, texpr) => {
                let declared = self.resolve_type(sc, texpr);
                let t = self.expr(sc, x)?;
                let declared = declared?;
                let e = self.coerce(t, &declared, "this expression", texpr.span.clone())?;
                // The ascription covers the whole expression.
                Some(Typed::strong(TExpr { span, ..e }))
            }
            ExprKind::Tuple(items) => {
                let d = Diagnostic::new(
                    ErrorKind::Mismatch,
                    span.clone(),
                    format!("expected one value, found a tuple of {}", items.len()),
                )
                .with_label(span, "a tuple can only be the result of a function or loop body, a loop's initial state or a destructuring `let`");
                self.report(d);
                None
            }
            ExprKind::Loop(l) => self.loop_expr(sc, l, span, allow_multi),
            ExprKind::If(c) => self.if_expr(sc, c, span),
            ExprKind::Error => None,
        }
    }

    fn var(&mut self, sc: &Scope, name: &str, span: Span) -> Option<Typed> {
        match sc.lookup(name) {
            Lookup::Found(ty) => {
                let ty = ty.clone();
                Some(Typed::strong(TExpr::new(
                    TExprKind::Var(name.to_string()),
                    ty,
                    span,
                )))
            }
            Lookup::Poisoned => None,
            Lookup::Missing => {
                let mut d;
                if self.sigs.contains_key(name) || Builtin::from_name(name).is_some() {
                    d = Diagnostic::new(
                        ErrorKind::UnknownName,
                        span.clone(),
                        format!("`{name}` is a function, not a value"),
                    )
                    .with_label(span, "a function can only be called")
                    .with_note(format!("call it: `{name}(...)`"));
                } else if sc.has_symbol(name) {
                    // A dimension name of the signature is its run-time size, an `i64`.
                    let ty = TensorType::scalar(DType::I64);
                    return Some(Typed::strong(TExpr::new(TExprKind::DimValue(name.to_string()), ty, span)));
                } else {
                    d = Diagnostic::new(
                        ErrorKind::UnknownName,
                        span.clone(),
                        format!("unknown name `{name}`"),
                    )
                    .with_label(span, "not found in this scope");
                    if let Some(s) = suggest(name, sc.names()) {
                        d = d.with_note(format!("did you mean `{s}`?"));
                    }
                    if let Some(f) = &sc.function
                        && sc.globals.iter().any(|g| g == name)
                    {
                        d = d.with_note(format!(
                            "`{name}` is a top-level `let`; functions only see their parameters, so pass it to `{f}` as an argument"
                        ));
                    }
                }
                self.report(d);
                None
            }
        }
    }

    /// Gives a checked value a declared type (a `let` annotation, an ascription, a declared
    /// result): the dims must fit the declared ones (a declared `?` accepts any), and the dtype
    /// must be the same, a lossless widening (made an explicit cast), or a literal's.
    pub(crate) fn coerce(
        &mut self,
        t: Typed,
        declared: &TensorType,
        what: &str,
        decl_span: Span,
    ) -> Option<TExpr> {
        let actual = t.ty();
        if actual.rank() != declared.rank()
            || declared
                .dims
                .iter()
                .zip(&actual.dims)
                .any(|(d, a)| !fits(d, a))
        {
            let value_span = t.e.span.clone();
            let d = Diagnostic::new(
                ErrorKind::Mismatch,
                value_span.clone(),
                format!("{what} is declared `{declared}`, but its value has type `{actual}`"),
            )
            .with_label(value_span, has_type(actual))
            .with_label(decl_span, "declared here");
            self.report(d);
            return None;
        }
        self.coerce_dtype(t, declared.dtype, what, decl_span)
    }

    pub(crate) fn coerce_dtype(
        &mut self,
        t: Typed,
        to: DType,
        what: &str,
        decl_span: Span,
    ) -> Option<TExpr> {
        let from = t.dtype();
        if t.weak.is_some() || can_widen(from, to) {
            return self.convert(t, to);
        }
        let message = if from.is_float() && to.is_float() {
            format!("{what} would narrow `{from}` to `{to}`")
        } else {
            format!("{what} would convert `{from}` to `{to}`, which can lose information")
        };
        let d = Diagnostic::new(ErrorKind::DType, t.e.span.clone(), message)
            .with_label(t.e.span.clone(), has_type(t.ty()))
            .with_label(decl_span, format!("`{to}` expected here"))
            .with_note(format!(
                "only lossless conversions are implicit; write `cast(..., {to})` to convert"
            ));
        self.report(d);
        None
    }

    fn array_literal(&mut self, e: &Expr) -> Option<Typed> {
        let mut elems = Vec::new();
        let shape = self.array_shape(e, &mut elems)?;
        let has_bool = elems.iter().any(|s| matches!(s, Scalar::Bool(_)));
        let has_float = elems.iter().any(|s| matches!(s, Scalar::Float(_)));
        let has_number = elems.iter().any(|s| !matches!(s, Scalar::Bool(_)));
        if has_bool && has_number {
            return self.error(
                ErrorKind::DType,
                e.span.clone(),
                "array literal mixes bool and number elements",
                "all elements must be numbers, or all bool",
            );
        }
        let (dtype, weak) = if has_bool {
            (DType::Bool, None)
        } else if has_float || elems.is_empty() {
            (DType::F64, Some(Weak::Float))
        } else {
            (DType::I64, Some(Weak::Int))
        };
        let v = literal::array(dtype, &shape, &elems)?;
        Some(Typed {
            e: literal_expr(v, e.span.clone()),
            weak,
        })
    }

    /// The shape of a (nested) array literal, collecting its elements in row-major order.
    fn array_shape(&mut self, e: &Expr, out: &mut Vec<Scalar>) -> Option<Vec<usize>> {
        match &e.kind {
            ExprKind::Array(items) => {
                let mut inner: Option<(Vec<usize>, Span)> = None;
                let mut ok = true;
                for item in items {
                    let Some(s) = self.array_shape(item, out) else {
                        ok = false;
                        continue;
                    };
                    match &inner {
                        None => inner = Some((s, item.span.clone())),
                        Some((first, first_span)) if *first != s => {
                            let show = |s: &[usize]| {
                                if s.is_empty() {
                                    "a scalar".to_string()
                                } else {
                                    format!("shape {s:?}")
                                }
                            };
                            let d = Diagnostic::new(
                                ErrorKind::Shape,
                                item.span.clone(),
                                "ragged array literal",
                            )
                            .with_label(item.span.clone(), format!("this element has {}", show(&s)))
                            .with_label(
                                first_span.clone(),
                                format!("but the first one has {}", show(first)),
                            )
                            .with_note("every row of an array literal must have the same length");
                            self.report(d);
                            return None;
                        }
                        Some(_) => {}
                    }
                }
                if !ok {
                    return None;
                }
                let mut shape = vec![items.len()];
                shape.extend(inner.map(|(s, _)| s).unwrap_or_default());
                Some(shape)
            }
            _ => {
                let s = self.array_element(e)?;
                out.push(s);
                Some(vec![])
            }
        }
    }

    fn array_element(&mut self, e: &Expr) -> Option<Scalar> {
        match &e.kind {
            ExprKind::Int(v) => Some(Scalar::Int(*v)),
            ExprKind::Float(v) => Some(Scalar::Float(*v)),
            ExprKind::Bool(v) => Some(Scalar::Bool(*v)),
            ExprKind::Unary(UnOp::Neg, inner) => match self.array_element(inner)? {
                Scalar::Int(v) => match v.checked_neg() {
                    Some(n) => Some(Scalar::Int(n)),
                    None => self.error(
                        ErrorKind::BadArgument,
                        e.span.clone(),
                        "negating this literal overflows `i64`",
                        "this literal",
                    ),
                },
                Scalar::Float(v) => Some(Scalar::Float(-v)),
                Scalar::Bool(_) => self.error(
                    ErrorKind::DType,
                    e.span.clone(),
                    "`-` is not defined on bool",
                    "a negated bool",
                ),
            },
            ExprKind::Error => None,
            _ => self.error(
                ErrorKind::BadArgument,
                e.span.clone(),
                "array literal elements must be number or bool literals",
                "this is not a literal",
            ),
        }
    }

    pub(crate) fn call(
        &mut self,
        sc: &Scope,
        name: &Ident,
        args: &[Expr],
        span: Span,
        allow_multi: bool,
    ) -> Option<Typed> {
        if let Some(b) = Builtin::from_name(&name.name) {
            return self.builtin(sc, b, name, args, span, allow_multi);
        }
        if let Some(d) = super::grad::unapplied(name, self.sigs.contains_key(&name.name)) {
            self.report(d);
            return None;
        }
        let Some(sig) = self.sigs.get(&name.name).cloned() else {
            let mut d = Diagnostic::new(
                ErrorKind::UnknownName,
                name.span.clone(),
                format!("unknown function `{}`", name.name),
            )
            .with_label(name.span.clone(), "no function or builtin has this name");
            let mut candidates: Vec<&str> = crate::ops::builtin_names();
            candidates.extend(self.sigs.keys().map(String::as_str));
            if let Some(s) = suggest(&name.name, candidates) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            if matches!(sc.lookup(&name.name), Lookup::Found(_)) {
                d = d.with_note(format!("`{}` is a variable, not a function", name.name));
            }
            self.report(d);
            for a in args {
                self.expr(sc, a);
            }
            return None;
        };
        let targs: Vec<Option<Typed>> = args.iter().map(|a| self.expr(sc, a)).collect();
        let fname = &name.name;
        if args.len() != sig.params.len() {
            let n = sig.params.len();
            let sig_text: Vec<String> = sig
                .params
                .iter()
                .map(|(p, t, _)| format!("{p}: {t}"))
                .collect();
            let d = Diagnostic::new(
                ErrorKind::Arity,
                span.clone(),
                format!(
                    "`{fname}` takes {n} argument{}, got {}",
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .with_label(
                span,
                format!(
                    "{} argument{} given",
                    args.len(),
                    if args.len() == 1 { "" } else { "s" }
                ),
            )
            .with_note(format!(
                "`{fname}` is declared as `fn {fname}({})`",
                sig_text.join(", ")
            ));
            self.report(d);
            return None;
        }
        if self
            .recursive_calls
            .contains(&(name.span.start, name.span.end))
            || !sig.params_ok
        {
            return None;
        }
        let results = sig.results.clone()?;
        if results.is_empty() {
            let d = Diagnostic::new(ErrorKind::Mismatch, span.clone(), format!("`{fname}` gives no value, so a call of it has none to use"))
                .with_label(span, "this gives `()`")
                .with_note(format!("`{fname}` declares `-> ()`: give it a result type"));
            self.report(d);
            return None;
        }
        if results.len() > 1 && !allow_multi {
            let tys: Vec<String> = results.iter().map(|t| t.to_string()).collect();
            let d = Diagnostic::new(
                ErrorKind::Mismatch,
                span.clone(),
                format!(
                    "`{fname}` returns {} results, but one value is expected here",
                    results.len()
                ),
            )
            .with_label(span, format!("this returns `({})`", tys.join(", ")))
            .with_note(format!(
                "a call of `{fname}` can only be printed whole, as in `print {fname}(...);`"
            ));
            self.report(d);
            return None;
        }
        let targs: Vec<Typed> = targs.into_iter().collect::<Option<_>>()?;
        let arg_spans: Vec<Span> = targs.iter().map(|t| t.e.span.clone()).collect();
        let mut bound: HashMap<String, (Dim, usize)> = HashMap::new();
        let mut out_args = Vec::new();
        let mut ok = true;
        for (i, (arg, (pname, pty, pspan))) in targs.into_iter().zip(&sig.params).enumerate() {
            let aty = arg.ty().clone();
            let aspan = arg.e.span.clone();
            if aty.rank() != pty.rank() {
                let d = Diagnostic::new(
                    ErrorKind::Rank,
                    aspan.clone(),
                    format!(
                        "argument {} of `{fname}` has rank {}, but parameter `{pname}` has rank {}",
                        i + 1,
                        aty.rank(),
                        pty.rank()
                    ),
                )
                .with_label(aspan, has_type(&aty))
                .with_label(pspan.clone(), format!("`{pname}` is declared `{pty}` here"));
                self.report(d);
                ok = false;
                continue;
            }
            for (pd, ad) in pty.dims.iter().zip(&aty.dims) {
                match pd {
                    Dim::Unknown => {}
                    Dim::Static(_) => {
                        if !matches!(ad, Dim::Unknown) && ad != pd {
                            let d = Diagnostic::new(
                                ErrorKind::Shape,
                                aspan.clone(),
                                format!("argument {} of `{fname}` has type `{aty}`, but parameter `{pname}` is `{pty}`", i + 1),
                            )
                            .with_label(aspan.clone(), has_type(&aty))
                            .with_label(pspan.clone(), format!("`{pname}` is declared `{pty}` here"));
                            self.report(d);
                            ok = false;
                            break;
                        }
                    }
                    Dim::Symbol(n) => {
                        if matches!(ad, Dim::Unknown) {
                            continue;
                        }
                        match bound.get(n) {
                            None => {
                                bound.insert(n.clone(), (ad.clone(), i));
                            }
                            Some((b, _)) if b == ad => {}
                            Some((b, j)) => {
                                let first =
                                    arg_spans.get(*j).cloned().unwrap_or_else(|| aspan.clone());
                                let d = Diagnostic::new(
                                    ErrorKind::Shape,
                                    aspan.clone(),
                                    format!(
                                        "dimension `{n}` of `{fname}` is `{b}` from argument {} but `{ad}` from argument {}",
                                        j + 1,
                                        i + 1
                                    ),
                                )
                                .with_label(first, format!("here `{n}` is `{b}`"))
                                .with_label(aspan.clone(), format!("here `{n}` is `{ad}` ({})", has_type(&aty)))
                                .with_note(format!("every use of `{n}` in the signature of `{fname}` is the same size"));
                                self.report(d);
                                ok = false;
                                break;
                            }
                        }
                    }
                }
            }
            let what = format!("argument {} of `{fname}`", i + 1);
            match self.coerce_dtype(arg, pty.dtype, &what, pspan.clone()) {
                Some(e) => out_args.push(e),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        let subst = |t: &TensorType| {
            let dims = t
                .dims
                .iter()
                .map(|d| match d {
                    Dim::Symbol(n) => bound.get(n).map(|(b, _)| b.clone()).unwrap_or(Dim::Unknown),
                    other => other.clone(),
                })
                .collect();
            TensorType::new(t.dtype, dims)
        };
        let ty = subst(&results[0]);
        let kind = if results.len() > 1 {
            TExprKind::CallMulti(fname.clone(), out_args, results.iter().map(subst).collect())
        } else {
            TExprKind::Call(fname.clone(), out_args)
        };
        Some(Typed::strong(TExpr::new(kind, ty, span)))
    }
}
