//! A PyTensor graph, described by the Python side as plain data, to a ptl `fn`.
//!
//! The description is JSON (inputs, nodes in topological order, outputs) plus the constants as
//! arrays. Every value keeps the dtype PyTensor gave it: operands are cast explicitly to the
//! dtype the PyTensor operation computes in, so ptl's promotion rules never change a result.

use std::collections::{HashMap, HashSet};

use ptl_lang::ast::{BinOp, Block, DimExpr, Expr, ExprKind, FnDef, Ident, Item, Let, Param, Program, TypeExpr, UnOp};
use ptl_lang::{DType, Dim, Value};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Graph {
    pub name: String,
    pub inputs: Vec<Input>,
    #[serde(default)]
    pub consts: Vec<Const>,
    pub nodes: Vec<Node>,
    pub outputs: Vec<usize>,
}

#[derive(Debug, Deserialize)]
pub struct Input {
    pub id: usize,
    pub name: String,
    pub dtype: String,
    /// `None` for a dim unknown until run time.
    pub shape: Vec<Option<u64>>,
}

#[derive(Debug, Deserialize)]
pub struct Const {
    pub id: usize,
    /// Position in the list of arrays passed next to the description.
    pub index: usize,
}

#[derive(Debug, Deserialize)]
pub struct Node {
    pub op: String,
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
    /// PyTensor's dtype of each output.
    pub dtypes: Vec<String>,
    #[serde(default)]
    pub attrs: serde_json::Value,
    /// Where the node sits in the PyTensor graph, for error messages.
    #[serde(default)]
    pub at: String,
}

/// Why a graph could not be converted; `at` names the node.
#[derive(Debug)]
pub struct ImportError {
    pub message: String,
}

impl ImportError {
    fn new(at: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        ImportError { message: if at.is_empty() { message } else { format!("{at}: {message}") } }
    }
}

type Result<T> = std::result::Result<T, ImportError>;

const SPAN: std::ops::Range<usize> = 0..0;

fn ex(kind: ExprKind) -> Expr {
    Expr { kind, span: SPAN }
}

fn ident(name: &str) -> Ident {
    Ident { name: name.to_string(), span: SPAN }
}

fn var(name: &str) -> Expr {
    ex(ExprKind::Var(name.to_string()))
}

fn call(name: &str, args: Vec<Expr>) -> Expr {
    ex(ExprKind::Call(ident(name), args))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

fn int(n: i64) -> Expr {
    ex(ExprKind::Int(n))
}

fn float(x: f64) -> Expr {
    ex(ExprKind::Float(x))
}

fn int_list(xs: impl IntoIterator<Item = i64>) -> Expr {
    ex(ExprKind::Array(xs.into_iter().map(int).collect()))
}

fn type_expr(dtype: DType, dims: &[Dim]) -> TypeExpr {
    TypeExpr { dtype, dims: dims.iter().map(|d| DimExpr { dim: d.clone(), span: SPAN }).collect(), span: SPAN }
}

fn ascribe(e: Expr, dtype: DType, dims: &[Dim]) -> Expr {
    ex(ExprKind::Ascribe(Box::new(e), type_expr(dtype, dims)))
}

pub fn dtype_of(name: &str) -> Option<DType> {
    Some(match name {
        "bool" => DType::Bool,
        "int32" | "i32" => DType::I32,
        "int64" | "i64" => DType::I64,
        "float32" | "f32" => DType::F32,
        "float64" | "f64" => DType::F64,
        _ => return None,
    })
}

/// One element of a constant, kept exactly.
#[derive(Debug, Clone, Copy)]
enum Scalar {
    B(bool),
    I(i64),
    F(f64),
}

impl Scalar {
    /// The literal for this value converted to `dtype` (as a cast would), and whether it is
    /// finite. Non-finite floats are written as a division of literals.
    fn literal(self, dtype: DType) -> Expr {
        match (self, dtype) {
            (s, DType::Bool) => ex(ExprKind::Bool(match s {
                Scalar::B(b) => b,
                Scalar::I(i) => i != 0,
                Scalar::F(f) => f != 0.0,
            })),
            (Scalar::B(b), DType::I32 | DType::I64) => int(b as i64),
            (Scalar::I(i), DType::I32 | DType::I64) => int(if dtype == DType::I32 { i as i32 as i64 } else { i }),
            (Scalar::F(f), DType::I32) => int(f as i32 as i64),
            (Scalar::F(f), DType::I64) => int(f as i64),
            (Scalar::B(b), _) => float(b as u8 as f64),
            (Scalar::I(i), DType::F32) => float(i as f32 as f64),
            (Scalar::I(i), _) => float(i as f64),
            (Scalar::F(f), d) => {
                let f = if d == DType::F32 { f as f32 as f64 } else { f };
                if f.is_nan() {
                    bin(BinOp::Div, float(0.0), float(0.0))
                } else if f == f64::INFINITY {
                    bin(BinOp::Div, float(1.0), float(0.0))
                } else if f == f64::NEG_INFINITY {
                    bin(BinOp::Div, float(-1.0), float(0.0))
                } else {
                    float(f)
                }
            }
        }
    }

    fn is_finite(self) -> bool {
        match self {
            Scalar::F(f) => f.is_finite(),
            _ => true,
        }
    }
}

fn scalars(v: &Value) -> Vec<Scalar> {
    match v {
        Value::Bool(a) => a.iter().map(|&b| Scalar::B(b)).collect(),
        Value::I32(a) => a.iter().map(|&i| Scalar::I(i as i64)).collect(),
        Value::I64(a) => a.iter().map(|&i| Scalar::I(i)).collect(),
        Value::F32(a) => a.iter().map(|&f| Scalar::F(f as f64)).collect(),
        Value::F64(a) => a.iter().map(|&f| Scalar::F(f)).collect(),
    }
}

/// A nested array literal of `values` in row-major order for `shape`.
fn nested(values: &[Scalar], shape: &[usize], dtype: DType) -> Expr {
    if shape.is_empty() {
        return values[0].literal(dtype);
    }
    let n = shape[0];
    let inner: usize = shape[1..].iter().product();
    ex(ExprKind::Array((0..n).map(|i| nested(&values[i * inner..(i + 1) * inner], &shape[1..], dtype)).collect()))
}

/// What an id stands for while the body is built.
#[derive(Clone)]
enum Val {
    /// A parameter or a `let`.
    Var(String),
    /// A constant with a single element, written in place as a literal.
    Scalar(Scalar),
}

struct Builder {
    vals: HashMap<usize, Val>,
    dtypes: HashMap<usize, DType>,
    lets: Vec<Let>,
    names: HashSet<String>,
    next: usize,
}

/// Words a value may not be named: keywords and builtins.
const RESERVED: &[&str] = &[
    "fn", "let", "print", "true", "false", "f32", "f64", "i32", "i64", "bool", "T", "transpose", "broadcast", "expand",
    "squeeze", "reshape", "where", "cast", "exp", "log", "log1p", "sqrt", "tanh", "abs", "sigmoid", "maximum", "minimum",
    "sum", "max", "min", "mean", "softmax", "log_softmax",
];

fn sanitize(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if RESERVED.contains(&s.as_str()) {
        s.insert_str(0, "v_");
    }
    s
}

impl Builder {
    fn fresh(&mut self, base: &str) -> String {
        let base = sanitize(base);
        if self.names.insert(base.clone()) {
            return base;
        }
        loop {
            self.next += 1;
            let n = format!("{base}_{}", self.next);
            if self.names.insert(n.clone()) {
                return n;
            }
        }
    }

    fn temp(&mut self) -> String {
        loop {
            self.next += 1;
            let n = format!("t{}", self.next);
            if self.names.insert(n.clone()) {
                return n;
            }
        }
    }

    fn dtype(&self, id: usize, at: &str) -> Result<DType> {
        self.dtypes.get(&id).copied().ok_or_else(|| ImportError::new(at, format!("value {id} is used before it is defined")))
    }

    fn is_literal(&self, id: usize) -> bool {
        matches!(self.vals.get(&id), Some(Val::Scalar(_)))
    }

    /// The value `id` as an operand computed in `want`. `alone` is true when no operand of the
    /// operation is a non-literal (the literal must then carry its dtype itself).
    fn arg_in(&self, id: usize, want: DType, alone: bool, at: &str) -> Result<Expr> {
        match self.vals.get(&id) {
            Some(Val::Scalar(s)) => {
                let lit = s.literal(want);
                Ok(if alone || !s.is_finite() { ascribe(lit, want, &[]) } else { lit })
            }
            Some(Val::Var(name)) => {
                let have = self.dtype(id, at)?;
                Ok(if have == want { var(name) } else { call("cast", vec![var(name), ex(ExprKind::DType(want))]) })
            }
            None => Err(ImportError::new(at, format!("value {id} is used before it is defined"))),
        }
    }

    /// Operands of an elementwise operation, each cast to `want`.
    fn args_in(&self, ids: &[usize], want: DType, at: &str) -> Result<Vec<Expr>> {
        let alone = ids.iter().all(|&i| self.is_literal(i));
        ids.iter().map(|&i| self.arg_in(i, want, alone, at)).collect()
    }

    /// A non-elementwise operand (never a bare literal).
    fn operand(&self, id: usize, want: DType, at: &str) -> Result<Expr> {
        self.arg_in(id, want, true, at)
    }

    fn bind(&mut self, id: usize, dtype: DType, value: Expr) {
        let name = self.temp();
        self.lets.push(Let { name: ident(&name), ty: None, value, span: SPAN });
        self.vals.insert(id, Val::Var(name));
        self.dtypes.insert(id, dtype);
    }
}

fn attr_i64(attrs: &serde_json::Value, key: &str, at: &str) -> Result<i64> {
    attrs.get(key).and_then(|v| v.as_i64()).ok_or_else(|| ImportError::new(at, format!("missing integer attribute `{key}`")))
}

fn attr_list(attrs: &serde_json::Value, key: &str, at: &str) -> Result<Option<Vec<Option<i64>>>> {
    match attrs.get(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Array(xs)) => Ok(Some(xs.iter().map(|x| x.as_i64()).collect())),
        Some(_) => Err(ImportError::new(at, format!("attribute `{key}` is not a list"))),
    }
}

fn unary_builtin(op: &str) -> Option<&'static str> {
    Some(match op {
        "exp" => "exp",
        "log" => "log",
        "log1p" => "log1p",
        "sqrt" => "sqrt",
        "tanh" => "tanh",
        "abs" => "abs",
        "sigmoid" => "sigmoid",
        _ => return None,
    })
}

fn comparison(op: &str) -> Option<BinOp> {
    Some(match op {
        "gt" => BinOp::Gt,
        "ge" => BinOp::Ge,
        "lt" => BinOp::Lt,
        "le" => BinOp::Le,
        "eq" => BinOp::Eq,
        "neq" => BinOp::Ne,
        _ => return None,
    })
}

/// Builds the `fn` for `graph`; `consts[i]` is the array of the constant with `index` i.
pub fn build(graph: &Graph, consts: &[Value]) -> Result<Program> {
    let mut b = Builder { vals: HashMap::new(), dtypes: HashMap::new(), lets: Vec::new(), names: HashSet::new(), next: 0 };
    let mut params = Vec::new();
    for input in &graph.inputs {
        let dtype = dtype_of(&input.dtype)
            .ok_or_else(|| ImportError::new("", format!("input `{}` has dtype {}, which ptl does not have", input.name, input.dtype)))?;
        let name = b.fresh(&input.name);
        let dims: Vec<Dim> = input.shape.iter().map(|d| d.map_or(Dim::Unknown, Dim::Static)).collect();
        params.push(Param { name: ident(&name), ty: type_expr(dtype, &dims) });
        b.vals.insert(input.id, Val::Var(name));
        b.dtypes.insert(input.id, dtype);
    }
    for c in &graph.consts {
        let v = consts.get(c.index).ok_or_else(|| ImportError::new("", format!("constant {} is missing", c.index)))?;
        let values = scalars(v);
        b.dtypes.insert(c.id, v.dtype());
        if values.len() == 1 {
            b.vals.insert(c.id, Val::Scalar(values[0]));
        } else {
            if let Some(s) = values.iter().find(|s| !s.is_finite()) {
                return Err(ImportError::new("", format!("a constant array holds {s:?}; ptl array literals are finite")));
            }
            let dims: Vec<Dim> = v.shape().iter().map(|&n| Dim::Static(n as u64)).collect();
            let lit = if values.is_empty() { ex(ExprKind::Array(vec![])) } else { nested(&values, v.shape(), v.dtype()) };
            let name = b.temp();
            b.lets.push(Let { name: ident(&name), ty: None, value: ascribe(lit, v.dtype(), &dims), span: SPAN });
            b.vals.insert(c.id, Val::Var(name));
        }
    }
    for node in &graph.nodes {
        convert_node(&mut b, node)?;
    }
    let mut results = Vec::new();
    for &id in &graph.outputs {
        let dtype = b.dtype(id, "output")?;
        results.push(b.operand(id, dtype, "output")?);
    }
    let result = if results.len() == 1 { results.pop().unwrap() } else { ex(ExprKind::Tuple(results)) };
    let f = FnDef {
        name: ident(&graph.name),
        params,
        ret: None,
        body: Block { lets: std::mem::take(&mut b.lets), result, span: SPAN },
        span: SPAN,
    };
    Ok(Program { items: vec![Item::Fn(f)] })
}

fn convert_node(b: &mut Builder, node: &Node) -> Result<()> {
    let at = node.at.as_str();
    let op = node.op.as_str();
    if node.outputs.len() != 1 || node.dtypes.len() != 1 {
        return Err(ImportError::new(at, format!("`{op}` with {} outputs is not supported", node.outputs.len())));
    }
    let out = node.outputs[0];
    let dt = dtype_of(&node.dtypes[0]).ok_or_else(|| ImportError::new(at, format!("dtype {} is not supported by ptl", node.dtypes[0])))?;
    let ins = &node.inputs;
    let need = |n: usize| -> Result<()> {
        if ins.len() == n { Ok(()) } else { Err(ImportError::new(at, format!("`{op}` expects {n} inputs, got {}", ins.len()))) }
    };
    // The dtype comparisons and other mixed operations compute in, as PyTensor chose it.
    let compute = match node.attrs.get("compute").and_then(|v| v.as_str()) {
        Some(s) => dtype_of(s).ok_or_else(|| ImportError::new(at, format!("dtype {s} is not supported by ptl")))?,
        None => dt,
    };
    let e = match op {
        "alias" => {
            need(1)?;
            let v = b.vals.get(&ins[0]).cloned().ok_or_else(|| ImportError::new(at, "input is not defined"))?;
            let have = b.dtype(ins[0], at)?;
            if have == dt {
                b.vals.insert(out, v);
                b.dtypes.insert(out, dt);
                return Ok(());
            }
            b.operand(ins[0], dt, at)?
        }
        "add" | "mul" => {
            if ins.is_empty() {
                return Err(ImportError::new(at, format!("`{op}` without inputs")));
            }
            let args = b.args_in(ins, dt, at)?;
            let o = if op == "add" { BinOp::Add } else { BinOp::Mul };
            args.into_iter().reduce(|a, x| bin(o, a, x)).unwrap()
        }
        "sub" | "true_div" | "pow" => {
            need(2)?;
            let mut a = b.args_in(ins, dt, at)?;
            let y = a.pop().unwrap();
            let x = a.pop().unwrap();
            let o = match op {
                "sub" => BinOp::Sub,
                "true_div" => BinOp::Div,
                _ => BinOp::Pow,
            };
            bin(o, x, y)
        }
        "neg" => {
            need(1)?;
            let x = b.args_in(ins, dt, at)?.pop().unwrap();
            ex(ExprKind::Unary(UnOp::Neg, Box::new(x)))
        }
        "sqr" => {
            need(1)?;
            let x = b.args_in(ins, dt, at)?.pop().unwrap();
            bin(BinOp::Mul, x.clone(), x)
        }
        "reciprocal" => {
            need(1)?;
            let x = b.args_in(ins, dt, at)?.pop().unwrap();
            bin(BinOp::Div, float(1.0), x)
        }
        "identity" => {
            need(1)?;
            b.args_in(ins, dt, at)?.pop().unwrap()
        }
        "maximum" | "minimum" => {
            need(2)?;
            call(op, b.args_in(ins, dt, at)?)
        }
        "softplus" => {
            // PyTensor's piecewise definition, branch for branch.
            need(1)?;
            let x = b.args_in(ins, dt, at)?.pop().unwrap();
            let neg_x = ex(ExprKind::Unary(UnOp::Neg, Box::new(x.clone())));
            let w = |c: Expr, a: Expr, e: Expr| call("where", vec![c, a, e]);
            w(
                bin(BinOp::Lt, x.clone(), float(-37.0)),
                call("exp", vec![x.clone()]),
                w(
                    bin(BinOp::Lt, x.clone(), float(18.0)),
                    call("log1p", vec![call("exp", vec![x.clone()])]),
                    w(bin(BinOp::Lt, x.clone(), float(33.3)), bin(BinOp::Add, x.clone(), call("exp", vec![neg_x])), x),
                ),
            )
        }
        "clip" => {
            need(3)?;
            let mut a = b.args_in(ins, dt, at)?;
            let hi = a.pop().unwrap();
            let lo = a.pop().unwrap();
            let x = a.pop().unwrap();
            call("minimum", vec![call("maximum", vec![x, lo]), hi])
        }
        "switch" => {
            need(3)?;
            let c = b.arg_in(ins[0], DType::Bool, b.is_literal(ins[0]), at)?;
            let alone = b.is_literal(ins[1]) && b.is_literal(ins[2]);
            let x = b.arg_in(ins[1], dt, alone, at)?;
            let y = b.arg_in(ins[2], dt, alone, at)?;
            call("where", vec![c, x, y])
        }
        "second" => {
            // `b` broadcast against `a`: a condition that is true everywhere, with `a`'s shape.
            need(2)?;
            let shape_of = b.operand(ins[0], b.dtype(ins[0], at)?, at)?;
            let v = b.arg_in(ins[1], dt, false, at)?;
            let v = if b.is_literal(ins[1]) { ascribe(v, dt, &[]) } else { v };
            call("where", vec![bin(BinOp::Eq, shape_of.clone(), shape_of), v.clone(), v])
        }
        "cast" => {
            need(1)?;
            let have = b.dtype(ins[0], at)?;
            b.arg_in(ins[0], have, true, at).map(|x| if have == dt { x } else { call("cast", vec![x, ex(ExprKind::DType(dt))]) })?
        }
        "and" | "or" | "invert" | "xor" => {
            if dt != DType::Bool {
                return Err(ImportError::new(at, format!("bitwise `{op}` on {dt} is not supported (only on bool)")));
            }
            let args = b.args_in(ins, DType::Bool, at)?;
            let t = || ex(ExprKind::Bool(true));
            let f = || ex(ExprKind::Bool(false));
            match (op, args.as_slice()) {
                ("invert", [x]) => bin(BinOp::Eq, x.clone(), f()),
                ("and", [x, y]) => call("where", vec![x.clone(), y.clone(), f()]),
                ("or", [x, y]) => call("where", vec![x.clone(), t(), y.clone()]),
                ("xor", [x, y]) => bin(BinOp::Ne, x.clone(), y.clone()),
                _ => return Err(ImportError::new(at, format!("`{op}` with {} inputs is not supported", args.len()))),
            }
        }
        _ if unary_builtin(op).is_some() => {
            need(1)?;
            call(unary_builtin(op).unwrap(), b.args_in(ins, dt, at)?)
        }
        _ if comparison(op).is_some() => {
            need(2)?;
            let mut a = b.args_in(ins, compute, at)?;
            let y = a.pop().unwrap();
            let x = a.pop().unwrap();
            bin(comparison(op).unwrap(), x, y)
        }
        "dimshuffle" => {
            need(1)?;
            let order = attr_list(&node.attrs, "order", at)?.unwrap_or_default();
            let ndim = attr_i64(&node.attrs, "in_ndim", at)? as usize;
            dimshuffle(b.operand(ins[0], dt, at)?, &order, ndim)
        }
        "dot" => {
            need(2)?;
            bin(BinOp::MatMul, b.operand(ins[0], dt, at)?, b.operand(ins[1], dt, at)?)
        }
        "reduce" => {
            need(1)?;
            let kind = node.attrs.get("kind").and_then(|v| v.as_str()).unwrap_or("");
            let axes = attr_list(&node.attrs, "axes", at)?;
            let ndim = attr_i64(&node.attrs, "in_ndim", at)? as usize;
            let (name, input_dtype) = match kind {
                "sum" => ("sum", dt),
                "max" | "min" => (kind, dt),
                "mean" => ("mean", dt),
                "all" => ("min", DType::Bool),
                "any" => ("max", DType::Bool),
                _ => return Err(ImportError::new(at, format!("reduction `{kind}` is not supported"))),
            };
            let x = b.operand(ins[0], input_dtype, at)?;
            let axes: Vec<i64> = match axes {
                None => (0..ndim as i64).collect(),
                Some(a) => a.into_iter().map(|x| x.unwrap_or(0)).collect(),
            };
            if axes.is_empty() {
                x
            } else if axes.len() == ndim {
                call(name, vec![x])
            } else {
                call(name, vec![x, int_list(axes)])
            }
        }
        "softmax" | "log_softmax" => {
            need(1)?;
            let axis = attr_i64(&node.attrs, "axis", at)?;
            call(op, vec![b.operand(ins[0], dt, at)?, int(axis)])
        }
        "broadcast" => {
            need(1)?;
            let shape = attr_list(&node.attrs, "shape", at)?.unwrap_or_default();
            let dims = shape_expr(&shape, at)?;
            call("broadcast", vec![b.operand(ins[0], dt, at)?, dims])
        }
        "reshape" => {
            need(1)?;
            let shape = attr_list(&node.attrs, "shape", at)?.unwrap_or_default();
            let dims = shape_expr(&shape, at)?;
            call("reshape", vec![b.operand(ins[0], dt, at)?, dims])
        }
        "gemv" | "gemm" => {
            // beta * y + alpha * (a @ x)
            need(5)?;
            let y = b.operand(ins[0], dt, at)?;
            let alpha = b.arg_in(ins[1], dt, false, at)?;
            let a = b.operand(ins[2], dt, at)?;
            let x = b.operand(ins[3], dt, at)?;
            let beta = b.arg_in(ins[4], dt, false, at)?;
            bin(BinOp::Add, bin(BinOp::Mul, beta, y), bin(BinOp::Mul, alpha, bin(BinOp::MatMul, a, x)))
        }
        _ => return Err(ImportError::new(at, format!("operation `{op}` is not supported by ptl"))),
    };
    b.bind(out, dt, e);
    Ok(())
}

/// A shape list: `-1` or `null` is `?`.
fn shape_expr(shape: &[Option<i64>], at: &str) -> Result<Expr> {
    let mut items = Vec::new();
    for d in shape {
        items.push(match d {
            Some(n) if *n >= 0 => int(*n),
            Some(-1) | None => ex(ExprKind::UnknownDim),
            Some(n) => return Err(ImportError::new(at, format!("shape entry {n} is not a size"))),
        });
    }
    if items.iter().filter(|e| matches!(e.kind, ExprKind::UnknownDim)).count() > 1 {
        return Err(ImportError::new(at, "a shape with more than one size unknown until run time is not supported"));
    }
    Ok(ex(ExprKind::Array(items)))
}

/// PyTensor's `DimShuffle`: drop broadcastable axes, permute, insert broadcastable axes
/// (`None` in `order`).
fn dimshuffle(mut x: Expr, order: &[Option<i64>], ndim: usize) -> Expr {
    let kept: Vec<usize> = order.iter().filter_map(|o| o.map(|i| i as usize)).collect();
    // Drop, highest axis first so the lower indices stay valid.
    let mut remaining: Vec<usize> = (0..ndim).collect();
    for axis in (0..ndim).rev() {
        if !kept.contains(&axis) {
            x = call("squeeze", vec![x, int(axis as i64)]);
            remaining.remove(axis);
        }
    }
    // Permutation of what is left, in terms of positions in `remaining`.
    let perm: Vec<i64> = kept.iter().map(|k| remaining.iter().position(|r| r == k).unwrap() as i64).collect();
    if perm.iter().enumerate().any(|(i, &p)| p != i as i64) {
        x = if perm.len() == 2 { ex(ExprKind::Transpose(Box::new(x))) } else { call("transpose", vec![x, int_list(perm)]) };
    }
    for (pos, o) in order.iter().enumerate() {
        if o.is_none() {
            x = call("expand", vec![x, int(pos as i64)]);
        }
    }
    x
}
