//! Name resolution on the syntax tree: every binding (function, parameter, `let`, loop state
//! and counter, dimension name) with the span of its name and where it is visible, and every
//! use of a name with the binding it refers to. The scoping rules are the checker's:
//! functions see only their parameters (and the dimension names of their signature), a `let`
//! is visible after its statement, a loop's state and counter inside its body, and
//! functions everywhere.

use std::collections::HashMap;

use ptl_lang::ast::{Block, Expr, ExprKind, FnDef, IndexItem, Item, Let, LoopExpr, Program, TypeExpr};
use ptl_lang::ops::Builtin;
use ptl_lang::{Dim, Span, TensorType};

use crate::signature::written;

/// What a name binds.
#[derive(Debug, Clone, PartialEq)]
pub enum DefKind {
    Function,
    /// A parameter and its declared type.
    Param(TensorType),
    /// A `let` name: the statement's span (the typed `let` has the same), the name's
    /// position among the names it binds, and its declared type if written.
    Let { stmt: Span, index: usize, declared: Option<TensorType> },
    /// A loop's state name: the loop expression's span and the name's position in the state.
    LoopState { expr: Span, index: usize },
    /// A loop's counter (an `i64` scalar).
    Counter,
    /// A dimension name of a function's signature (its first occurrence).
    Dim,
}

/// One binding.
#[derive(Debug, Clone, PartialEq)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// The name where it is bound.
    pub span: Span,
    /// Where the name can be used (to the end of the text for a top-level `let`: `usize::MAX`).
    pub visible: Span,
    /// Whether it is a top-level `let` (not visible inside function bodies).
    pub top_level: bool,
    /// The function it belongs to, if any.
    pub function: Option<String>,
}

/// What a use of a name refers to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    Def(usize),
    Builtin(Builtin),
}

/// One use of a name.
#[derive(Debug, Clone, PartialEq)]
pub struct Ref {
    pub span: Span,
    pub target: Target,
    /// For the callee of a call: the whole call expression.
    pub call: Option<Span>,
}

/// Every binding and use of a program.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Index {
    pub defs: Vec<Def>,
    pub refs: Vec<Ref>,
    /// Function name -> its definition (the first one, for a name defined twice).
    pub functions: HashMap<String, usize>,
    /// The span of each function definition.
    pub function_spans: Vec<Span>,
}

impl Index {
    /// Indexes `program`, parsed from `text`. Names that error recovery made up (whose span
    /// does not hold the name) bind nothing.
    pub fn build(program: &Program, text: &str) -> Index {
        let mut r = Resolver {
            index: Index::default(),
            scope: Vec::new(),
            dims: Vec::new(),
            fn_params: HashMap::new(),
            pending: Vec::new(),
            text,
        };
        r.program(program);
        r.finish();
        r.index
    }

    /// The binding or use whose name contains `offset` (a name ending at `offset` counts
    /// when no name starts there).
    pub fn at(&self, offset: usize) -> Option<Site<'_>> {
        self.at_strict(offset).or_else(|| offset.checked_sub(1).and_then(|o| self.at_strict(o)))
    }

    fn at_strict(&self, offset: usize) -> Option<Site<'_>> {
        let inside = |s: &Span| s.start <= offset && offset < s.end;
        if let Some(r) = self.refs.iter().find(|r| inside(&r.span)) {
            return Some(Site::Use(r));
        }
        self.defs.iter().position(|d| inside(&d.span)).map(Site::Def)
    }

    /// Whether `offset` is inside a function definition.
    pub fn in_function(&self, offset: usize) -> bool {
        self.function_spans.iter().any(|s| s.start <= offset && offset < s.end)
    }

    /// The names visible at `offset`, the innermost binding of each name, in binding order.
    pub fn visible_at(&self, offset: usize) -> Vec<&Def> {
        let in_fn = self.in_function(offset);
        // A function and a value may share a name: they are told apart by use.
        let mut seen: HashMap<(&str, bool), usize> = HashMap::new();
        let mut out: Vec<&Def> = Vec::new();
        for d in &self.defs {
            let visible = match d.kind {
                DefKind::Function => true,
                _ => d.visible.start <= offset && offset < d.visible.end && !(d.top_level && in_fn),
            };
            if !visible {
                continue;
            }
            let key = (d.name.as_str(), d.kind == DefKind::Function);
            match seen.get(&key) {
                // A later binding of a name shadows the earlier one.
                Some(&i) if out[i].span.start < d.span.start && !key.1 => out[i] = d,
                Some(_) => {}
                None => {
                    seen.insert(key, out.len());
                    out.push(d);
                }
            }
        }
        out
    }
}

/// A name under the cursor.
#[derive(Debug, Clone, Copy)]
pub enum Site<'a> {
    /// Where a name is bound (index into `defs`).
    Def(usize),
    Use(&'a Ref),
}

struct Resolver<'t> {
    index: Index,
    /// Value names in scope, innermost last.
    scope: Vec<(String, usize)>,
    /// Dimension names of the function being resolved.
    dims: Vec<(String, usize)>,
    /// Function name -> its parameters' definitions.
    fn_params: HashMap<String, Vec<usize>>,
    /// Names in `grad(f, w)` that name parameters of `f`: (span, function, parameter).
    pending: Vec<(Span, String, String)>,
    text: &'t str,
}

impl Resolver<'_> {
    /// Whether `span` holds `name` in the text.
    fn written(&self, name: &str, span: &Span) -> bool {
        !name.is_empty() && self.text.get(span.clone()) == Some(name)
    }

    /// Adds a binding; returns its index, or `None` for a name that is not in the text.
    fn define(&mut self, name: &str, kind: DefKind, span: Span, visible: Span, top_level: bool, function: Option<&str>) -> Option<usize> {
        if !self.written(name, &span) {
            return None;
        }
        self.index.defs.push(Def { name: name.to_string(), kind, span, visible, top_level, function: function.map(str::to_string) });
        Some(self.index.defs.len() - 1)
    }

    /// Adds a use, unless `span` holds no name (a placeholder of error recovery).
    fn refer(&mut self, span: Span, target: Target, call: Option<Span>) {
        let is_name = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !self.text.get(span.clone()).is_some_and(is_name) {
            return;
        }
        self.index.refs.push(Ref { span, target, call });
    }

    fn program(&mut self, program: &Program) {
        for item in &program.items {
            if let Item::Fn(f) = item {
                self.index.function_spans.push(f.span.clone());
                let Some(id) = self.define(&f.name.name, DefKind::Function, f.name.span.clone(), 0..usize::MAX, false, None) else { continue };
                self.index.functions.entry(f.name.name.clone()).or_insert(id);
            }
        }
        let mut top: Vec<(String, usize)> = Vec::new();
        for item in &program.items {
            match item {
                Item::Fn(f) => self.function(f),
                Item::Let(l) => {
                    self.scope = std::mem::take(&mut top);
                    self.let_stmt(l, usize::MAX, true, None);
                    top = std::mem::take(&mut self.scope);
                }
                Item::Print(p) => {
                    self.scope = std::mem::take(&mut top);
                    self.expr(&p.value, None);
                    top = std::mem::take(&mut self.scope);
                }
            }
        }
    }

    fn function(&mut self, f: &FnDef) {
        self.scope.clear();
        self.dims.clear();
        let fname = Some(f.name.name.as_str());
        let mut params = Vec::new();
        for p in &f.params {
            self.type_expr(&p.ty, true, fname);
            let ty = written(&p.ty);
            if let Some(id) = self.define(&p.name.name, DefKind::Param(ty), p.name.span.clone(), f.body.span.clone(), false, fname) {
                params.push(id);
                self.scope.push((p.name.name.clone(), id));
            }
        }
        self.fn_params.entry(f.name.name.clone()).or_insert(params);
        for t in f.ret.iter().flatten() {
            self.type_expr(t, false, fname);
        }
        self.block(&f.body, fname);
        self.scope.clear();
        self.dims.clear();
    }

    /// The dimension names of a written type: the first occurrence of a name in a parameter
    /// type binds it (when `binds`), the others refer to it.
    fn type_expr(&mut self, t: &TypeExpr, binds: bool, function: Option<&str>) {
        for d in &t.dims {
            let Dim::Symbol(name) = &d.dim else { continue };
            if let Some(&(_, id)) = self.dims.iter().find(|(n, _)| n == name) {
                self.refer(d.span.clone(), Target::Def(id), None);
            } else if binds && let Some(f) = function {
                let spans = &self.index.function_spans;
                let within = spans.iter().find(|s| s.start <= d.span.start && d.span.end <= s.end);
                let visible = within.cloned().unwrap_or(d.span.clone());
                if let Some(id) = self.define(name, DefKind::Dim, d.span.clone(), visible, false, Some(f)) {
                    self.dims.push((name.clone(), id));
                }
            }
        }
    }

    fn let_stmt(&mut self, l: &Let, visible_end: usize, top_level: bool, function: Option<&str>) {
        self.expr(&l.value, function);
        if let Some(t) = &l.ty {
            self.type_expr(t, false, function);
        }
        let declared = l.ty.as_ref().map(written);
        for (index, n) in l.names().enumerate() {
            let kind = DefKind::Let { stmt: l.span.clone(), index, declared: declared.clone() };
            if let Some(id) = self.define(&n.name, kind, n.span.clone(), l.span.end..visible_end, top_level, function) {
                self.scope.push((n.name.clone(), id));
            }
        }
    }

    fn block(&mut self, b: &Block, function: Option<&str>) {
        let depth = self.scope.len();
        for l in &b.lets {
            self.let_stmt(l, b.span.end, false, function);
        }
        self.expr(&b.result, function);
        self.scope.truncate(depth);
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.scope.iter().rev().find(|(n, _)| n == name).map(|&(_, id)| id)
    }

    fn var(&mut self, name: &str, span: Span) {
        let target = self
            .lookup(name)
            .or_else(|| self.dims.iter().find(|(n, _)| n == name).map(|&(_, id)| id))
            .or_else(|| self.index.functions.get(name).copied());
        if let Some(id) = target {
            self.refer(span, Target::Def(id), None);
        }
    }

    fn expr(&mut self, e: &Expr, function: Option<&str>) {
        match &e.kind {
            ExprKind::Var(name) => self.var(name, e.span.clone()),
            ExprKind::Call(name, args) => {
                if let Some(b) = Builtin::from_name(&name.name) {
                    self.refer(name.span.clone(), Target::Builtin(b), Some(e.span.clone()));
                } else if let Some(&id) = self.index.functions.get(&name.name) {
                    self.refer(name.span.clone(), Target::Def(id), Some(e.span.clone()));
                }
                args.iter().for_each(|a| self.expr(a, function));
            }
            ExprKind::Apply(callee, args) => {
                self.apply_callee(callee, function);
                args.iter().for_each(|a| self.expr(a, function));
            }
            ExprKind::Array(xs) | ExprKind::Tuple(xs) => xs.iter().for_each(|x| self.expr(x, function)),
            ExprKind::Unary(_, x) | ExprKind::Transpose(x) => self.expr(x, function),
            ExprKind::Ascribe(x, t) => {
                self.expr(x, function);
                self.type_expr(t, false, function);
            }
            ExprKind::Binary(_, a, b) => {
                self.expr(a, function);
                self.expr(b, function);
            }
            ExprKind::Index(x, items) => {
                self.expr(x, function);
                for item in items {
                    match item {
                        IndexItem::Single(i) => self.expr(i, function),
                        IndexItem::Slice { start, stop, step, .. } => {
                            [start, stop, step].into_iter().flatten().for_each(|b| self.expr(b, function))
                        }
                    }
                }
            }
            ExprKind::Loop(l) => self.loop_expr(l, &e.span, function),
            ExprKind::If(c) => {
                self.expr(&c.cond, function);
                self.block(&c.then, function);
                self.block(&c.otherwise, function);
            }
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::DType(_) | ExprKind::UnknownDim | ExprKind::Error => {}
        }
    }

    /// `grad(f, w)` / `value_and_grad(f, (w, b))`: `f` names a function and `w`, `b` its
    /// parameters.
    fn apply_callee(&mut self, callee: &Expr, function: Option<&str>) {
        if let ExprKind::Call(form, spec) = &callee.kind
            && matches!(form.name.as_str(), "grad" | "value_and_grad")
            && let [Expr { kind: ExprKind::Var(f), span: fspan }, wrt] = spec.as_slice()
            && let Some(&id) = self.index.functions.get(f)
        {
            self.refer(fspan.clone(), Target::Def(id), None);
            let names: Vec<&Expr> = match &wrt.kind {
                ExprKind::Tuple(items) => items.iter().collect(),
                _ => vec![wrt],
            };
            for n in names {
                if let ExprKind::Var(p) = &n.kind {
                    self.pending.push((n.span.clone(), f.clone(), p.clone()));
                }
            }
            return;
        }
        self.expr(callee, function);
    }

    fn loop_expr(&mut self, l: &LoopExpr, span: &Span, function: Option<&str>) {
        self.expr(&l.init, function);
        self.expr(&l.start, function);
        self.expr(&l.stop, function);
        let depth = self.scope.len();
        // The state and the counter are visible in the body and the stopping condition.
        let body = l.body.span.start..l.until.as_ref().map_or(l.body.span.end, |c| c.span.end);
        for (index, n) in l.state.iter().enumerate() {
            let kind = DefKind::LoopState { expr: span.clone(), index };
            if let Some(id) = self.define(&n.name, kind, n.span.clone(), body.clone(), false, function) {
                self.scope.push((n.name.clone(), id));
            }
        }
        if let Some(id) = self.define(&l.counter.name, DefKind::Counter, l.counter.span.clone(), body, false, function) {
            self.scope.push((l.counter.name.clone(), id));
        }
        self.block(&l.body, function);
        if let Some(c) = &l.until {
            self.expr(c, function);
        }
        self.scope.truncate(depth);
    }

    /// Resolves the parameter names of `grad(f, w)`, once every function is known.
    fn finish(&mut self) {
        for (span, f, p) in std::mem::take(&mut self.pending) {
            let target = self.fn_params.get(&f).and_then(|ps| ps.iter().copied().find(|&id| self.index.defs[id].name == p));
            if let Some(id) = target {
                self.refer(span, Target::Def(id), None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(src: &str) -> Index {
        let (program, diags) = ptl_lang::parse(src);
        assert!(diags.is_empty(), "{diags:?}");
        Index::build(&program.unwrap(), src)
    }

    fn def_of_use(idx: &Index, src: &str, needle: &str, nth: usize) -> Option<Span> {
        let at = src.match_indices(needle).nth(nth).unwrap().0;
        match idx.at(at)? {
            Site::Use(Ref { target: Target::Def(id), .. }) => Some(idx.defs[*id].span.clone()),
            _ => None,
        }
    }

    #[test]
    fn uses_resolve_to_the_innermost_earlier_binding() {
        let src = "fn f(x: f64[n]) -> f64[n] {\n    let y = x * 2.0;\n    let y = y + x;\n    y\n}\nlet y = [1.0];\nprint f(y);\n";
        let idx = index(src);
        let first_y = src.find("let y").unwrap() + 4;
        let second_y = src.match_indices("let y").nth(1).unwrap().0 + 4;
        // `y + x` uses the first `y`; the result `y` the second.
        assert_eq!(def_of_use(&idx, src, "y + x", 0), Some(first_y..first_y + 1));
        assert_eq!(def_of_use(&idx, src, "y\n}", 0), Some(second_y..second_y + 1));
        let x_param = src.find("x:").unwrap();
        assert_eq!(def_of_use(&idx, src, "x * 2.0", 0), Some(x_param..x_param + 1));
        let top_y = src.match_indices("let y").nth(2).unwrap().0 + 4;
        assert_eq!(def_of_use(&idx, src, "y);", 0), Some(top_y..top_y + 1));
        let f_name = src.find("f(").unwrap();
        assert_eq!(def_of_use(&idx, src, "f(y)", 0), Some(f_name..f_name + 1));
        // The `n` of the result type refers to the parameter's.
        let n = src.find("n]").unwrap();
        assert_eq!(def_of_use(&idx, src, "n]", 1), Some(n..n + 1));
    }

    #[test]
    fn loop_names_are_visible_in_the_body_only() {
        let src = "fn h(x: f64[n], k: i64) -> f64[n] {\n    loop y = x for i in 0..k { y / 2.0 }\n}\n";
        let idx = index(src);
        let y = src.find("y =").unwrap();
        assert_eq!(def_of_use(&idx, src, "y / 2.0", 0), Some(y..y + 1));
        let body = src.find("{ y").unwrap() + 2;
        let names: Vec<&str> = idx.visible_at(body).iter().map(|d| d.name.as_str()).collect();
        assert!(names.contains(&"y") && names.contains(&"i") && names.contains(&"x"), "{names:?}");
        let after = src.rfind('}').unwrap() - 1;
        let names: Vec<&str> = idx.visible_at(after).iter().map(|d| d.name.as_str()).collect();
        assert!(!names.contains(&"i"), "{names:?}");
    }

    #[test]
    fn grad_names_a_function_and_its_parameters() {
        let src = "fn loss(w: f64[k], b: f64, x: f64[n, k]) -> f64 {\n    sum(x @ w + b)\n}\n\nfn step(w: f64[k], b: f64, x: f64[n, k]) -> f64[k] {\n    let (gw, gb) = grad(loss, (w, b))(w, b, x);\n    w - gw\n}\n";
        let idx = index(src);
        let loss = src.find("loss").unwrap();
        assert_eq!(def_of_use(&idx, src, "loss,", 0), Some(loss..loss + 4));
        // In `grad(loss, (w, b))`, `w` and `b` are parameters of `loss`; in the call, of `step`.
        let loss_w = src.find("w:").unwrap();
        let loss_b = src.find("b:").unwrap();
        assert_eq!(def_of_use(&idx, src, "w, b))", 0), Some(loss_w..loss_w + 1));
        assert_eq!(def_of_use(&idx, src, "b))", 0), Some(loss_b..loss_b + 1));
        let step_w = src.match_indices("w:").nth(1).unwrap().0;
        assert_eq!(def_of_use(&idx, src, "w, b, x)", 0), Some(step_w..step_w + 1));
        let gw = src.find("gw").unwrap();
        assert_eq!(def_of_use(&idx, src, "gw\n", 0), Some(gw..gw + 2));
    }

    #[test]
    fn names_made_up_by_error_recovery_bind_nothing() {
        let src = "let inf = 1.0;\nprint inf;\n";
        let (program, diags) = ptl_lang::parse(src);
        assert!(!diags.is_empty());
        let idx = Index::build(&program.unwrap(), src);
        assert!(idx.defs.iter().all(|d| !d.name.is_empty()), "{:?}", idx.defs);
    }

    #[test]
    fn top_level_lets_are_not_visible_in_functions() {
        let src = "let a = 1.0;\nfn f(x: f64) -> f64 {\n    x\n}\nprint a;\n";
        let idx = index(src);
        let in_fn = src.find("    x").unwrap() + 4;
        let names: Vec<&str> = idx.visible_at(in_fn).iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["f", "x"]);
        let names: Vec<&str> = idx.visible_at(src.len()).iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["f", "a"]);
    }
}
