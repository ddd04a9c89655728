//! A PyTensor graph, described by the Python side as plain data ([`desc`]), to a ptl `fn`.
//!
//! Every value keeps the dtype PyTensor gave it: operands are cast explicitly to the dtype
//! the PyTensor operation computes in, so ptl's promotion rules never change a result.
//! Constants are written as literals when small and become parameters otherwise
//! ([`consts`]); [`Imported::bound`] holds the arrays those parameters take.

mod consts;
pub mod desc;
mod error;
mod names;
mod nodes;
mod scan;
mod syntax;

use std::collections::HashMap;

use ptl_lang::ast::{Block, Expr, ExprKind, FnDef, Item, Let, Param, Program};
use ptl_lang::{DType, Dim, Value};

use consts::{Binding, Scalar};
use desc::{Graph, InputDim};
pub use error::ImportError;
use error::Result;
use names::Names;
use syntax::{SPAN, ascribe, cast, ex, ident, type_expr, var};

/// The function built from a graph, and the arrays of the constants that are parameters.
pub struct Imported {
    pub program: Program,
    /// The function's name: the graph's, made a valid ptl name.
    pub entry: String,
    /// The arguments after the graph's own inputs, in parameter order.
    pub bound: Vec<Value>,
}

/// What an id stands for while the body is built.
#[derive(Clone)]
enum Val {
    /// A parameter or a `let`.
    Var(String),
    /// A constant with a single element, written in place as a literal, and its shape.
    Scalar(Scalar, Vec<u64>),
}

#[derive(Default)]
struct Builder {
    vals: HashMap<usize, (Val, DType)>,
    lets: Vec<Let>,
    names: Names,
    /// The dimension names of the inputs' named dims, by (input id, axis).
    dim_names: HashMap<(usize, usize), String>,
}

impl Builder {
    fn define(&mut self, id: usize, val: Val, dtype: DType, at: &str) -> Result<()> {
        if self.vals.insert(id, (val, dtype)).is_some() {
            return Err(ImportError::malformed(at, format!("value {id} is defined twice")));
        }
        Ok(())
    }

    fn get(&self, id: usize, at: &str) -> Result<&(Val, DType)> {
        self.vals.get(&id).ok_or_else(|| ImportError::malformed(at, format!("value {id} is used before it is defined")))
    }

    fn dtype(&self, id: usize, at: &str) -> Result<DType> {
        Ok(self.get(id, at)?.1)
    }

    fn is_literal(&self, id: usize) -> bool {
        matches!(self.vals.get(&id), Some((Val::Scalar(..), _)))
    }

    /// The value `id` as an operand computed in `want`. `alone` is true when no operand of the
    /// operation is a non-literal (the literal must then carry its dtype itself).
    fn arg_in(&self, id: usize, want: DType, alone: bool, at: &str) -> Result<Expr> {
        Ok(match self.get(id, at)? {
            (Val::Scalar(s, _), _) => {
                let lit = s.literal(want);
                if alone || !s.is_finite() { ascribe(lit, want, &[]) } else { lit }
            }
            (Val::Var(name), have) if *have == want => var(name),
            (Val::Var(name), _) => cast(var(name), want),
        })
    }

    /// Operands of an elementwise operation, each cast to `want`.
    fn args_in(&self, ids: &[usize], want: DType, at: &str) -> Result<Vec<Expr>> {
        let alone = ids.iter().all(|&i| self.is_literal(i));
        ids.iter().map(|&i| self.arg_in(i, want, alone, at)).collect()
    }

    /// [`Self::args_in`] for an operation of exactly `N` operands.
    fn args_n<const N: usize>(&self, ids: &[usize; N], want: DType, at: &str) -> Result<[Expr; N]> {
        let args = self.args_in(ids, want, at)?;
        args.try_into().map_err(|_| ImportError::malformed(at, "operand count changed"))
    }

    /// A non-elementwise operand (never a bare literal): a one-element constant of rank 1 or
    /// more keeps its shape.
    fn operand(&self, id: usize, want: DType, at: &str) -> Result<Expr> {
        let e = self.arg_in(id, want, true, at)?;
        Ok(match self.get(id, at)? {
            (Val::Scalar(_, shape), _) if !shape.is_empty() => {
                let dims = shape.iter().map(|&n| syntax::int(n as i64)).collect();
                syntax::call("broadcast", vec![e, ex(ExprKind::Array(dims))])
            }
            _ => e,
        })
    }

    fn bind(&mut self, id: usize, dtype: DType, value: Expr, at: &str) -> Result<()> {
        let name = self.names.temp();
        self.lets.push(Let { name: ident(&name), ty: None, value, span: SPAN, rest: Vec::new() });
        self.define(id, Val::Var(name), dtype, at)
    }
}

/// Builds the `fn` for `graph`; `consts[i]` is the array of the constant with `index` i.
pub fn build(graph: &Graph, consts: &[Value]) -> Result<Imported> {
    let mut b = Builder::default();
    let entry = b.names.fresh(&graph.name);
    let mut params = Vec::new();
    // One dimension name per stem: inputs whose dims must be equal share the stem.
    let mut stems: HashMap<String, String> = HashMap::new();
    for input in &graph.inputs {
        let name = b.names.fresh(&input.name);
        let mut dims = Vec::with_capacity(input.shape.len());
        for (axis, d) in input.shape.iter().enumerate() {
            dims.push(match d {
                InputDim::Static(n) => Dim::Static(*n),
                InputDim::Unknown(()) => Dim::Unknown,
                InputDim::Named(stem) => {
                    let dim = match stems.get(stem) {
                        Some(d) => d.clone(),
                        None => {
                            let d = b.names.fresh(stem);
                            stems.insert(stem.clone(), d.clone());
                            d
                        }
                    };
                    b.dim_names.insert((input.id, axis), dim.clone());
                    Dim::Symbol(dim)
                }
            });
        }
        params.push(Param { name: ident(&name), ty: type_expr(input.dtype.0, &dims) });
        b.define(input.id, Val::Var(name), input.dtype.0, "")?;
    }
    let mut bound = Vec::new();
    for c in &graph.consts {
        let v = consts.get(c.index).ok_or_else(|| {
            let message = format!("constant {} is array {}, but {} arrays were passed", c.id, c.index, consts.len());
            ImportError::malformed("", message)
        })?;
        let val = match consts::binding(v) {
            Binding::Scalar(s, shape) => Val::Scalar(s, shape),
            Binding::Literal(lit) => {
                let name = b.names.temp();
                b.lets.push(Let { name: ident(&name), ty: None, value: lit, span: SPAN, rest: Vec::new() });
                Val::Var(name)
            }
            Binding::Parameter => {
                let name = b.names.fresh(c.name.as_deref().unwrap_or(&format!("c{}", bound.len() + 1)));
                let dims: Vec<Dim> = v.shape().iter().map(|&n| Dim::Static(n as u64)).collect();
                params.push(Param { name: ident(&name), ty: type_expr(v.dtype(), &dims) });
                bound.push(v.clone());
                Val::Var(name)
            }
        };
        b.define(c.id, val, v.dtype(), "")?;
    }
    for node in &graph.nodes {
        nodes::convert(&mut b, node)?;
    }
    let mut results = Vec::new();
    for &id in &graph.outputs {
        let dtype = b.dtype(id, "output")?;
        results.push(b.operand(id, dtype, "output")?);
    }
    let result = match results.len() {
        0 => return Err(ImportError::unsupported("", "a graph without outputs has no ptl function")),
        1 => results.remove(0),
        _ => ex(ExprKind::Tuple(results)),
    };
    let f = FnDef {
        name: ident(&entry),
        params,
        ret: None,
        body: Block { lets: std::mem::take(&mut b.lets), result, span: SPAN },
        span: SPAN,
    };
    Ok(Imported { program: Program { items: vec![Item::Fn(f)] }, entry, bound })
}
