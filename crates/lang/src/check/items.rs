//! Items: function signatures and bodies, the call graph (no recursion), top-level
//! `let` and `print`.

use std::collections::HashMap;

use super::env::Scope;
use super::{Checker, FnSig};
use crate::ast::{Block, Expr, ExprKind, FnDef, Item, Let, Program, TypeExpr};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::typed::{TBlock, TFn, TLet, TParam, TProgram, TStmt};
use crate::types::{Dim, TensorType};

/// Every call of a user function in an expression: (name, span of the name).
fn calls(e: &Expr, out: &mut Vec<(String, Span)>) {
    match &e.kind {
        ExprKind::Call(name, args) => {
            out.push((name.name.clone(), name.span.clone()));
            args.iter().for_each(|a| calls(a, out));
        }
        ExprKind::Apply(callee, args) => {
            // `grad(f, w)(..)` needs `f` checked first.
            if let ExprKind::Call(_, spec) = &callee.kind
                && let Some(Expr { kind: ExprKind::Var(f), span }) = spec.first()
            {
                out.push((f.clone(), span.clone()));
            }
            args.iter().for_each(|a| calls(a, out));
        }
        ExprKind::Array(xs) | ExprKind::Tuple(xs) => xs.iter().for_each(|a| calls(a, out)),
        ExprKind::Unary(_, x) | ExprKind::Transpose(x) | ExprKind::Ascribe(x, _) => calls(x, out),
        ExprKind::Binary(_, a, b) => {
            calls(a, out);
            calls(b, out);
        }
        ExprKind::Index(x, items) => {
            calls(x, out);
            for item in items {
                match item {
                    crate::ast::IndexItem::Single(i) => calls(i, out),
                    crate::ast::IndexItem::Slice { start, stop, step, .. } => {
                        [start, stop, step].into_iter().flatten().for_each(|b| calls(b, out))
                    }
                }
            }
        }
        ExprKind::Loop(l) => {
            [&l.init, &l.start, &l.stop].into_iter().chain(&l.until).for_each(|x| calls(x, out));
            out.extend(block_calls(&l.body));
        }
        ExprKind::If(c) => {
            calls(&c.cond, out);
            out.extend(block_calls(&c.then));
            out.extend(block_calls(&c.otherwise));
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Var(_)
        | ExprKind::DType(_)
        | ExprKind::UnknownDim
        | ExprKind::Error => {}
    }
}

fn block_calls(b: &Block) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    for l in &b.lets {
        calls(&l.value, &mut out);
    }
    calls(&b.result, &mut out);
    out
}

impl Checker {
    pub(crate) fn program(&mut self, program: &Program) -> TProgram {
        let mut defs: Vec<&FnDef> = Vec::new();
        let mut first: HashMap<&str, Span> = HashMap::new();
        for item in &program.items {
            let Item::Fn(f) = item else { continue };
            let name = f.name.name.as_str();
            if crate::ops::Builtin::from_name(name).is_some() {
                self.error::<()>(
                    ErrorKind::Duplicate,
                    f.name.span.clone(),
                    format!("`{name}` is a builtin; a function cannot take its name"),
                    "this name is taken by the builtin",
                );
                continue;
            }
            if let Some(prev) = first.get(name) {
                let d = Diagnostic::new(
                    ErrorKind::Duplicate,
                    f.name.span.clone(),
                    format!("function `{name}` is defined twice"),
                )
                .with_label(f.name.span.clone(), "defined again here")
                .with_label(prev.clone(), "first defined here");
                self.report(d);
                continue;
            }
            first.insert(name, f.name.span.clone());
            defs.push(f);
        }
        let mut declared: HashMap<String, Option<Vec<TensorType>>> = HashMap::new();
        for f in &defs {
            let (sig, decl) = self.signature(f);
            self.sigs.insert(f.name.name.clone(), sig);
            declared.insert(f.name.name.clone(), decl);
        }
        let globals: Vec<String> = program
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Let(l) => Some(l.names().map(|n| n.name.clone()).collect::<Vec<_>>()),
                _ => None,
            })
            .flatten()
            .collect();
        for i in self.call_order(&defs) {
            let f = defs[i];
            let decl = declared.get(&f.name.name).cloned().flatten();
            if let Some(tf) = self.function(f, decl, &globals) {
                self.typed_fns.insert(tf.name.clone(), tf);
            }
        }

        let mut sc = Scope {
            globals,
            ..Scope::default()
        };
        let mut top = Vec::new();
        for item in &program.items {
            match item {
                Item::Fn(_) => {}
                Item::Let(l) => {
                    if let Some(tl) = self.let_stmt(&mut sc, l) {
                        top.push(TStmt::Let(tl));
                    }
                }
                Item::Print(p) => {
                    if let Some(t) = self.expr_in(&sc, &p.value, true) {
                        top.push(TStmt::Print(vec![t.e], p.span.clone()));
                    }
                }
            }
        }
        let mut fns: Vec<TFn> = defs
            .iter()
            .filter_map(|f| self.typed_fns.remove(&f.name.name).or_else(|| self.partial_fns.remove(&f.name.name)))
            .collect();
        // Generated derivatives follow the functions they differentiate.
        fns.extend(self.generated.iter().filter_map(|n| self.typed_fns.remove(n)));
        TProgram { fns, top }
    }

    /// A function's parameters (introducing their dimension names) and declared results
    /// (which may use only those names). Returns the signature and the declared result types
    /// when they are given and valid.
    fn signature(&mut self, f: &FnDef) -> (FnSig, Option<Vec<TensorType>>) {
        let mut symbols: Vec<String> = Vec::new();
        let mut params: Vec<(String, TensorType, Span)> = Vec::new();
        let mut params_ok = true;
        for p in &f.params {
            if let Some((_, _, prev)) = params.iter().find(|(n, _, _)| *n == p.name.name) {
                let d = Diagnostic::new(
                    ErrorKind::Duplicate,
                    p.name.span.clone(),
                    format!(
                        "parameter `{}` is declared twice in `{}`",
                        p.name.name, f.name.name
                    ),
                )
                .with_label(p.name.span.clone(), "declared again here")
                .with_label(prev.clone(), "first declared here");
                self.report(d);
                params_ok = false;
                continue;
            }
            for d in &p.ty.dims {
                if let Dim::Symbol(s) = &d.dim
                    && !symbols.contains(s)
                {
                    symbols.push(s.clone());
                }
            }
            let ty = TensorType::new(
                p.ty.dtype,
                p.ty.dims.iter().map(|d| d.dim.clone()).collect(),
            );
            if self.too_large(&ty.dims, p.ty.span.clone()) {
                params_ok = false;
            }
            params.push((p.name.name.clone(), ty, p.name.span.start..p.ty.span.end));
        }
        let sc = Scope {
            symbols: symbols.clone(),
            function: Some(f.name.name.clone()),
            ..Scope::default()
        };
        let decl = match &f.ret {
            None => None,
            Some(rets) => {
                let tys: Vec<Option<TensorType>> =
                    rets.iter().map(|t| self.resolve_type(&sc, t)).collect();
                tys.into_iter().collect::<Option<Vec<_>>>()
            }
        };
        let sig = FnSig {
            params,
            results: decl.clone(),
            symbols,
            params_ok,
        };
        (sig, decl)
    }

    /// A written type; its dimension names must be in scope.
    pub(crate) fn resolve_type(&mut self, sc: &Scope, t: &TypeExpr) -> Option<TensorType> {
        let mut ok = true;
        for d in &t.dims {
            if let Dim::Symbol(s) = &d.dim
                && !sc.has_symbol(s)
            {
                let note = match &sc.function {
                        Some(f) => format!("dimension names come from the parameter types of `{f}`"),
                        None => {
                            "dimension names are only in scope inside a function whose parameter types use them".to_string()
                        }
                    };
                let d = Diagnostic::new(
                    ErrorKind::UnknownName,
                    d.span.clone(),
                    format!("unknown dimension `{s}`"),
                )
                .with_label(d.span.clone(), "not a dimension name in scope")
                .with_note(note);
                self.report(d);
                ok = false;
            }
        }
        let dims: Vec<Dim> = t.dims.iter().map(|d| d.dim.clone()).collect();
        if ok && self.too_large(&dims, t.span.clone()) {
            return None;
        }
        ok.then(|| TensorType::new(t.dtype, dims))
    }

    /// Orders functions so that every callee comes before its callers, reporting recursion.
    fn call_order(&mut self, defs: &[&FnDef]) -> Vec<usize> {
        let index: HashMap<&str, usize> = defs
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.name.as_str(), i))
            .collect();
        let edges: Vec<Vec<(usize, Span)>> = defs
            .iter()
            .map(|f| {
                block_calls(&f.body)
                    .into_iter()
                    .filter_map(|(n, s)| index.get(n.as_str()).map(|&j| (j, s)))
                    .collect()
            })
            .collect();
        let mut state = vec![0u8; defs.len()];
        let mut order = Vec::new();
        for start in 0..defs.len() {
            if state[start] != 0 {
                continue;
            }
            // Iterative depth-first search: (function, next edge to follow).
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (i, ref mut next)) = stack.last_mut() {
                if let Some((j, span)) = edges[i].get(*next) {
                    *next += 1;
                    let j = *j;
                    match state[j] {
                        0 => {
                            state[j] = 1;
                            stack.push((j, 0));
                        }
                        1 => {
                            let from = stack.iter().position(|(k, _)| *k == j).unwrap_or(0);
                            let mut path: Vec<&str> = stack[from..]
                                .iter()
                                .map(|(k, _)| defs[*k].name.name.as_str())
                                .collect();
                            path.push(defs[j].name.name.as_str());
                            let message = if path.len() == 2 {
                                format!("`{}` calls itself; recursion is not supported", path[0])
                            } else {
                                format!(
                                    "recursive call: {}; recursion is not supported",
                                    path.join(" -> ")
                                )
                            };
                            self.recursive_calls.insert((span.start, span.end));
                            let span = span.clone();
                            self.error::<()>(
                                ErrorKind::UnknownName,
                                span,
                                message,
                                "this call closes the cycle",
                            );
                        }
                        _ => {}
                    }
                } else {
                    state[i] = 2;
                    order.push(i);
                    stack.pop();
                }
            }
        }
        order
    }

    fn function(
        &mut self,
        f: &FnDef,
        declared: Option<Vec<TensorType>>,
        globals: &[String],
    ) -> Option<TFn> {
        let name = f.name.name.clone();
        let sig = self.sigs.get(&name)?.clone();
        let errors_before = self.diags.len();
        let mut sc = Scope {
            symbols: sig.symbols.clone(),
            function: Some(name.clone()),
            globals: globals.to_vec(),
            ..Scope::default()
        };
        for (pname, ty, _) in &sig.params {
            sc.bind(pname, Some(ty.clone()));
        }
        let mut lets = Vec::new();
        for l in &f.body.lets {
            if let Some(tl) = self.let_stmt(&mut sc, l) {
                lets.push(tl);
            }
        }
        let checked = self.body_results(&sc, &f.body.result, &mut lets);
        let n_results = checked.len();
        let mut results = Vec::new();
        match (&f.ret, declared) {
            (None, _) => {
                results = checked
                    .into_iter()
                    .map(|t| t.map(|t| t.e))
                    .collect::<Option<Vec<_>>>()
                    .unwrap_or_default();
                if results.len() == n_results {
                    let tys = results.iter().map(|e| e.ty.clone()).collect();
                    if let Some(s) = self.sigs.get_mut(&name) {
                        s.results = Some(tys);
                    }
                }
            }
            (Some(_), None) => {}
            (Some(rets), Some(decl)) => {
                if decl.len() != checked.len() {
                    let d = Diagnostic::new(
                        ErrorKind::Mismatch,
                        f.body.result.span.clone(),
                        format!(
                            "`{name}` declares {} result{}, but its body gives {}",
                            decl.len(),
                            if decl.len() == 1 { "" } else { "s" },
                            checked.len()
                        ),
                    )
                    .with_label(
                        f.body.result.span.clone(),
                        format!(
                            "{} value{}",
                            checked.len(),
                            if checked.len() == 1 { "" } else { "s" }
                        ),
                    );
                    let d = match (rets.first(), rets.last()) {
                        (Some(a), Some(b)) => {
                            d.with_label(a.span.start..b.span.end, "declared here")
                        }
                        _ => d,
                    };
                    self.report(d);
                } else {
                    let what = format!("the result of `{name}`");
                    for ((t, ty), texpr) in checked.into_iter().zip(&decl).zip(rets) {
                        if let Some(t) = t
                            && let Some(e) = self.coerce(t, ty, &what, texpr.span.clone())
                        {
                            results.push(e);
                        }
                    }
                }
            }
        }
        let params: Vec<TParam> = sig
            .params
            .iter()
            .map(|(n, ty, span)| TParam {
                name: n.clone(),
                ty: ty.clone(),
                span: span.clone(),
            })
            .collect();
        if self.diags.len() > errors_before || results.len() != n_results {
            if self.keep_partial {
                let declared = self.sigs.get(&name).and_then(|s| s.results.clone());
                let tys = declared.unwrap_or_else(|| results.iter().map(|e| e.ty.clone()).collect());
                let partial = TFn { name: name.clone(), params, body: TBlock { lets, results }, results: tys, span: f.span.clone() };
                self.partial_fns.insert(name, partial);
            }
            return None;
        }
        let result_tys = results.iter().map(|e| e.ty.clone()).collect();
        // Callers see the precise types of the checked body.
        if let Some(s) = self.sigs.get_mut(&name) {
            s.results = Some(result_tys);
        }
        let results_tys = results.iter().map(|e| e.ty.clone()).collect();
        Some(TFn {
            name,
            params,
            body: TBlock { lets, results },
            results: results_tys,
            span: f.span.clone(),
        })
    }

    /// A `let`, in a function body or at top level. A failed definition still binds the name
    /// (to its declared type when there is one) so later uses do not report it again.
    pub(crate) fn let_stmt(&mut self, sc: &mut Scope, l: &Let) -> Option<TLet> {
        if !l.rest.is_empty() {
            return self.destructure(sc, l);
        }
        let declared = l.ty.as_ref().map(|t| self.resolve_type(sc, t));
        let value = self.expr(sc, &l.value);
        let name = &l.name.name;
        let result = match (value, &declared) {
            (Some(v), None) => Some(v.e),
            (Some(v), Some(Some(d))) => {
                let span =
                    l.ty.as_ref()
                        .map(|t| t.span.clone())
                        .unwrap_or_else(|| l.name.span.clone());
                self.coerce(v, d, &format!("`{name}`"), span)
            }
            _ => None,
        };
        let ty = match (&result, declared) {
            (Some(e), _) => Some(e.ty.clone()),
            (None, Some(Some(d))) => Some(d),
            _ => None,
        };
        sc.bind(name, ty);
        result.map(|value| TLet {
            name: name.clone(),
            value,
            span: l.span.clone(),
            rest: Vec::new(),
        })
    }
}
