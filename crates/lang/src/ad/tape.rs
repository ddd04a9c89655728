//! The forward half of a derivative function: the differentiated function's body again, with
//! every node bound to its own `let` (so the backward half can name each operand and
//! result), and a record of each op application on the path from the active parameters.

use std::collections::{HashMap, HashSet};

use super::AdError;
use super::build::Builder;
use crate::ops::{Op, SliceAxis};
use crate::span::Span;
use crate::typed::{TBlock, TExpr, TExprKind, TFn, TLet, TParam};
use crate::types::TensorType;

/// One step of the forward code whose result depends on an active parameter.
pub(crate) enum Step {
    /// `out = op(args)`.
    Op { op: Op, args: Vec<TExpr>, out: TExpr, span: Span },
    /// `outs = f(args)`, one result or several.
    Call { function: String, args: Vec<TExpr>, outs: Vec<TExpr>, span: Span },
    /// A `loop` or `scan` whose body is the function `body` (see `super::loops`).
    Loop {
        body: String,
        init: Vec<TExpr>,
        free: Vec<TExpr>,
        start: TExpr,
        stop: TExpr,
        finals: Vec<TExpr>,
        outputs: Vec<TExpr>,
        stacked: Vec<TExpr>,
        span: Span,
    },
    /// An `if` that calls `then_fn` or `else_fn` (see `super::conditional`) on `free`.
    If { then_fn: String, else_fn: String, cond: TExpr, free: Vec<TExpr>, out: TExpr, span: Span },
}

pub(crate) struct Tape {
    pub(crate) b: Builder,
    pub(crate) steps: Vec<Step>,
    /// Names of values that depend on an active parameter (float values only).
    pub(crate) active: HashSet<String>,
    /// Source names to the names (or literals) holding their values.
    env: HashMap<String, TExpr>,
    /// The differentiated function's name and parameters.
    pub(crate) function: String,
    params: Vec<TParam>,
    /// Loop bodies made functions (see `super::loops`), and how many loops were met.
    pub(crate) lifted: Vec<TFn>,
    pub(crate) loops: usize,
    /// How many `if`s with active blocks were met.
    pub(crate) ifs: usize,
}

impl Tape {
    pub(crate) fn new(f: &TFn, active_params: &[usize]) -> Tape {
        let mut tape = Tape {
            b: Builder::new(f.span.clone(), first_free_name(f)),
            steps: Vec::new(),
            active: HashSet::new(),
            env: HashMap::new(),
            function: f.name.clone(),
            params: f.params.clone(),
            lifted: Vec::new(),
            loops: 0,
            ifs: 0,
        };
        for (i, p) in f.params.iter().enumerate() {
            if active_params.contains(&i) {
                tape.active.insert(p.name.clone());
            }
        }
        tape
    }

    /// The value a source name has at this point: a `let`'s, or a parameter.
    pub(crate) fn lookup(&self, name: &str) -> Option<TExpr> {
        self.env.get(name).cloned().or_else(|| {
            let p = self.params.iter().find(|p| p.name == name)?;
            Some(self.b.var(&p.name, p.ty.clone()))
        })
    }

    pub(crate) fn is_active(&self, e: &TExpr) -> bool {
        matches!(&e.kind, TExprKind::Var(n) if self.active.contains(n)) && e.ty.dtype.is_float()
    }

    /// The body's lets, then its results as names or literals.
    pub(crate) fn body(&mut self, body: &TBlock) -> Result<Vec<TExpr>, AdError> {
        for l in &body.lets {
            self.let_(l)?;
        }
        body.results.iter().map(|r| self.atom(r)).collect()
    }

    fn let_(&mut self, l: &TLet) -> Result<(), AdError> {
        if l.rest.is_empty() {
            let v = self.atom(&l.value)?;
            self.env.insert(l.name.clone(), v);
            return Ok(());
        }
        let outs = match &l.value.kind {
            TExprKind::CallMulti(function, args, tys) => {
                let args = self.atoms(args)?;
                let e = TExpr::new(TExprKind::CallMulti(function.clone(), args.clone(), tys.clone()), l.value.ty.clone(), l.value.span.clone());
                let outs = self.bind_multi(e);
                self.record_call(function, args, outs.clone(), l.value.span.clone());
                outs
            }
            TExprKind::Loop(_) => self.opaque_loop(&l.value)?,
            TExprKind::Tuple(items) => self.atoms(items)?,
            _ => return Err(AdError::internal(&l.value.span, "a destructuring `let` of one value")),
        };
        for (name, v) in l.names().zip(outs) {
            self.env.insert(name.clone(), v);
        }
        Ok(())
    }

    fn atoms(&mut self, es: &[TExpr]) -> Result<Vec<TExpr>, AdError> {
        es.iter().map(|e| self.atom(e)).collect()
    }

    fn bind_multi(&mut self, e: TExpr) -> Vec<TExpr> {
        self.b.span = e.span.clone();
        self.b.bind_multi(e)
    }

    fn bind(&mut self, e: TExpr) -> TExpr {
        self.b.span = e.span.clone();
        self.b.bind(e)
    }

    fn record_call(&mut self, function: &str, args: Vec<TExpr>, outs: Vec<TExpr>, span: Span) {
        if args.iter().any(|a| self.is_active(a)) {
            for o in &outs {
                if let TExprKind::Var(n) = &o.kind && o.ty.dtype.is_float() {
                    self.active.insert(n.clone());
                }
            }
            self.steps.push(Step::Call { function: function.to_string(), args, outs, span });
        }
    }

    /// `e` as a name or a literal, its nodes bound to lets.
    pub(crate) fn atom(&mut self, e: &TExpr) -> Result<TExpr, AdError> {
        match &e.kind {
            TExprKind::Literal(_) | TExprKind::DimValue(_) => Ok(e.clone()),
            TExprKind::Var(n) => Ok(match self.env.get(n) {
                Some(v) => TExpr { span: e.span.clone(), ..v.clone() },
                None => e.clone(),
            }),
            TExprKind::Op(Op::Slice(axes), args) if axes.iter().filter(|a| **a != SliceAxis::Full).count() > 1 => {
                let args = self.atoms(args)?;
                self.slices(axes, args, e)
            }
            TExprKind::Op(op, args) => {
                let args = self.atoms(args)?;
                if matches!(op, Op::Arg { .. }) && args.iter().any(|a| self.is_active(a)) {
                    return Err(AdError {
                        span: e.span.clone(),
                        message: format!("`{}` has no derivative", op.name()),
                        label: "its result is an index, and its operand depends on the differentiated parameter".into(),
                        quiet: false,
                    });
                }
                Ok(self.op(op.clone(), args, e.ty.clone(), e.span.clone()))
            }
            TExprKind::Call(function, args) => {
                let args = self.atoms(args)?;
                let call = TExpr::new(TExprKind::Call(function.clone(), args.clone()), e.ty.clone(), e.span.clone());
                let out = self.bind(call);
                self.record_call(function, args, vec![out.clone()], e.span.clone());
                Ok(out)
            }
            TExprKind::CallMulti(..) => Err(AdError::internal(&e.span, "a call with several results used as one value")),
            TExprKind::Loop(_) => Ok(self.opaque_loop(e)?.remove(0)),
            TExprKind::If(_) => self.opaque_if(e),
            TExprKind::Tuple(_) => Err(AdError::internal(&e.span, "several values used as one")),
        }
    }

    fn op(&mut self, op: Op, args: Vec<TExpr>, ty: TensorType, span: Span) -> TExpr {
        // A broadcast's or a reshape's shape witness lends only its size.
        let carries = if matches!(op, Op::Broadcast | Op::Reshape) { &args[..1] } else { &args[..] };
        let active = carries.iter().any(|a| self.is_active(a));
        let out = self.bind(TExpr::op(op.clone(), args.clone(), ty, span.clone()));
        if active && out.ty.dtype.is_float() {
            if let TExprKind::Var(n) = &out.kind {
                self.active.insert(n.clone());
            }
            self.steps.push(Step::Op { op, args, out: out.clone(), span });
        }
        out
    }

    /// A slice of several axes, as one slice per axis from the last to the first (so the
    /// axes still to slice keep their positions).
    fn slices(&mut self, axes: &[SliceAxis], args: Vec<TExpr>, e: &TExpr) -> Result<TExpr, AdError> {
        let x = args[0].clone();
        // Each axis's bound operands, and each kept axis's dim in the result.
        let mut bounds = Vec::new();
        let mut at = 1;
        for a in axes {
            bounds.push(args[at..at + a.operands()].to_vec());
            at += a.operands();
        }
        let mut result_dim = Vec::new();
        let mut kept = 0;
        for a in axes {
            if *a == SliceAxis::Index {
                result_dim.push(None);
            } else {
                result_dim.push(Some(e.ty.dims[kept].clone()));
                kept += 1;
            }
        }
        let mut cur = x.clone();
        for k in (0..axes.len()).rev() {
            if axes[k] == SliceAxis::Full {
                continue;
            }
            let mut one = vec![SliceAxis::Full; cur.ty.rank()];
            one[k] = axes[k];
            let mut dims: Vec<_> = x.ty.dims[..k].to_vec();
            dims.extend((k..axes.len()).filter_map(|i| result_dim[i].clone()));
            let ty = TensorType::new(x.ty.dtype, dims);
            let mut operands = vec![cur];
            operands.extend(bounds[k].iter().cloned());
            cur = self.op(Op::Slice(one), operands, ty, e.span.clone());
        }
        Ok(cur)
    }

    /// A loop: differentiated through (see `super::loops`) when it reads a value that
    /// depends on an active parameter; otherwise kept as it is. The names its body uses are
    /// bound again under their source names, since the loop refers to them by those.
    fn opaque_loop(&mut self, e: &TExpr) -> Result<Vec<TExpr>, AdError> {
        let TExprKind::Loop(l) = &e.kind else {
            return Err(AdError::internal(&e.span, "a loop that is not a loop"));
        };
        let names = self.read_names(e);
        if names.iter().any(|(_, v)| self.is_active(v)) {
            if l.until.is_some() {
                return Err(AdError {
                    span: e.span.clone(),
                    message: "no derivative through a loop that may stop early (`until`): its number of steps depends on the values".into(),
                    label: "this loop reads a value being differentiated".into(),
                    quiet: false,
                });
            }
            return self.active_loop(e, l);
        }
        self.rebind(names, e);
        Ok(self.bind_multi(e.clone()))
    }

    /// The names `e` reads that have values here, with those values, in name order.
    fn read_names(&self, e: &TExpr) -> Vec<(String, TExpr)> {
        let mut names = HashSet::new();
        free_names(e, &mut names);
        let mut names: Vec<(String, TExpr)> = names.into_iter().filter_map(|n| self.lookup(&n).map(|v| (n, v))).collect();
        names.sort_by(|a, b| a.0.cmp(&b.0));
        names
    }

    /// Binds again, under their source names, the names `e` reads from `let`s.
    fn rebind(&mut self, names: Vec<(String, TExpr)>, e: &TExpr) {
        for (n, v) in names {
            if self.env.contains_key(&n) {
                self.b.lets.push(TLet { name: n, value: v, span: e.span.clone(), rest: Vec::new() });
            }
        }
    }
}

impl Tape {
    /// An `if`: bound as it is after the names it reads where its blocks read nothing that
    /// depends on the differentiated parameters (its condition may: a condition has no
    /// derivative), else through its blocks made functions (`super::conditional`).
    fn opaque_if(&mut self, e: &TExpr) -> Result<TExpr, AdError> {
        let TExprKind::If(c) = &e.kind else {
            return Err(AdError::internal(&e.span, "a conditional that is not one"));
        };
        let names = self.read_names(e);
        let mut in_branches = HashSet::new();
        for b in [&c.then, &c.otherwise] {
            for x in b.lets.iter().map(|l| &l.value).chain(&b.results) {
                free_names(x, &mut in_branches);
            }
        }
        if e.ty.dtype.is_float() && names.iter().any(|(n, v)| in_branches.contains(n) && self.is_active(v)) {
            return self.active_if(e, c, names);
        }
        self.rebind(names, e);
        Ok(self.bind(e.clone()))
    }
}

/// The first `N` such that no name `%N` or above appears in `f` (derivative code may be
/// differentiated again, and its new names must not shadow the old).
fn first_free_name(f: &TFn) -> usize {
    fn number(name: &str) -> usize {
        name.strip_prefix('%').and_then(|n| n.parse::<usize>().ok()).map_or(0, |n| n + 1)
    }
    fn block(b: &TBlock, top: &mut usize) {
        for l in &b.lets {
            for n in l.names() {
                *top = (*top).max(number(n));
            }
            expr(&l.value, top);
        }
        b.results.iter().for_each(|r| expr(r, top));
    }
    fn expr(e: &TExpr, top: &mut usize) {
        if let TExprKind::Loop(l) = &e.kind {
            for n in l.state.iter().chain(std::iter::once(&l.counter)) {
                *top = (*top).max(number(n));
            }
            block(&l.body, top);
        }
        if let TExprKind::If(c) = &e.kind {
            block(&c.then, top);
            block(&c.otherwise, top);
        }
        if let TExprKind::Var(n) = &e.kind {
            *top = (*top).max(number(n));
        }
        e.children().into_iter().for_each(|c| expr(c, top));
    }
    let mut top = f.params.iter().map(|p| number(&p.name)).max().unwrap_or(0);
    block(&f.body, &mut top);
    top
}

/// Every name `e` reads (a superset of its free names).
pub(crate) fn free_names(e: &TExpr, out: &mut HashSet<String>) {
    if let TExprKind::Var(n) = &e.kind {
        out.insert(n.clone());
    }
    for c in e.children() {
        free_names(c, out);
    }
}
