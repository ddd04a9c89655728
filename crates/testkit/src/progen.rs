//! Random well-typed programs, for differential tests (interpreter vs compiled) and fuzzing.
//!
//! A generated function works over three dimension variables `n`, `m`, `k`. Each function
//! spells each variable either as a dimension name or as a static size, and declares each
//! parameter dim as that spelling or as `?` (checked only when the program runs), so
//! signatures such as `x: f64[?, m], w: f64[m, 3]` arise. Parameters are float, integer and
//! bool tensors of ranks 0 to 3. The body (with a few `let`s) is a random expression built
//! type-directed from operations that type-check by construction: float, integer and bool
//! arithmetic, comparisons, `where`, casts, reductions (`max` / `min` included, which fail on an
//! empty axis), matrix products, softmax, shape operations and small loops.
//!
//! Run-time sizes are drawn from 0, 1, 2, 3, 5. Sometimes one argument dim is given a size that
//! contradicts its declaration (a `?` that must equal a name or a static dim where it meets it,
//! or a name bound twice differently): both backends must then fail alike.
//!
//! Results are compared by value, floats with tolerances, so the generator keeps rounding from
//! being amplified into different answers: comparisons, float-to-bool and float-to-int casts
//! see only *exact* float expressions (arguments, literals, negation, `abs`, `maximum` /
//! `minimum`, scaling by powers of two), which every implementation computes bit for bit.
//! Integer arithmetic wraps on overflow in both backends and `/` is true division (to f64), so
//! no integer operation is undefined.
//!
//! Everything is deterministic in the seed; a function is reproducible from its own seed.

use ptl_lang::types::DType;

mod loops;
mod math;

/// A tiny deterministic generator (xorshift64*), so this module needs no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `[lo, hi)`.
    pub fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
}

/// The name of the single function of [`random_program`].
pub const FUNCTION: &str = "f";

/// The name of the function [`hub`] writes.
pub const HUB: &str = "all_fns";

/// Run-time sizes of named and `?` dims. 0 and 1 are the sizes backends get wrong most.
const SIZES: [usize; 8] = [0, 1, 1, 2, 3, 3, 5, 4];

const VARS: [&str; 3] = ["n", "m", "k"];

/// A dim of the generator's own (logical) shapes: a dimension variable or a static 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum D {
    Var(usize),
    One,
}

type Shape = Vec<D>;

/// How one dim of a parameter is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclDim {
    Name(&'static str),
    Static(usize),
    Unknown,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedParam {
    pub name: String,
    pub dtype: DType,
    pub dims: Vec<DeclDim>,
}

impl GeneratedParam {
    /// The declared type, each dimension name followed by `suffix` (so that several functions'
    /// names stay apart in one signature).
    pub fn type_text(&self, suffix: &str) -> String {
        if self.dims.is_empty() {
            return self.dtype.name().to_string();
        }
        let dims: Vec<String> = self
            .dims
            .iter()
            .map(|d| match d {
                DeclDim::Name(n) => format!("{n}{suffix}"),
                DeclDim::Static(s) => s.to_string(),
                DeclDim::Unknown => "?".to_string(),
            })
            .collect();
        format!("{}[{}]", self.dtype.name(), dims.join(", "))
    }
}

/// Row-major elements of an argument. Floats are exact `f32` values for `f32` arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgData {
    Float(Vec<f64>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedArg {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: ArgData,
}

impl GeneratedArg {
    /// A ptl expression that evaluates to exactly this value (for tests that build values
    /// through the language itself, and for reproducing a failure by hand).
    pub fn literal(&self) -> String {
        let dt = self.dtype.name();
        let shape: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        let elems: Vec<String> = match &self.data {
            // `{:?}` is the shortest text that reads back as the same f64 (an f32 value is
            // exact in f64, so it reads back exactly too).
            ArgData::Float(v) => v.iter().map(|x| format!("{x:?}")).collect(),
            ArgData::Int(v) => v.iter().map(|x| x.to_string()).collect(),
            ArgData::Bool(v) => v.iter().map(|x| x.to_string()).collect(),
        };
        if elems.is_empty() {
            let zero = match self.dtype {
                DType::Bool => "false".to_string(),
                d if d.is_float() => format!("(0.0 : {dt})"),
                _ => format!("(0 : {dt})"),
            };
            return format!("broadcast({zero}, [{}])", shape.join(", "));
        }
        if self.shape.is_empty() {
            return format!("({} : {dt})", elems[0]);
        }
        format!("reshape([{}] : {dt}[{}], [{}])", elems.join(", "), elems.len(), shape.join(", "))
    }
}

#[derive(Debug, Clone)]
pub struct GeneratedFn {
    pub name: String,
    /// The seed that reproduces this function alone (with [`random_function`]).
    pub seed: u64,
    /// The function's definition.
    pub source: String,
    pub params: Vec<GeneratedParam>,
    /// Run-time sizes of `n`, `m`, `k`.
    pub sizes: [usize; 3],
    /// One argument per parameter, in order.
    pub args: Vec<GeneratedArg>,
    /// The argument dim deliberately given a size that contradicts its declaration, if any.
    pub inconsistent: Option<String>,
}

/// A program of one or more generated functions.
#[derive(Debug, Clone)]
pub struct GeneratedProgram {
    pub source: String,
    pub fns: Vec<GeneratedFn>,
}

/// One random function named [`FUNCTION`], with `depth` levels of operations at most.
pub fn random_program(seed: u64, depth: usize) -> GeneratedProgram {
    let f = random_function(seed, FUNCTION, depth);
    GeneratedProgram { source: f.source.clone(), fns: vec![f] }
}

/// `count` random functions `f0`, `f1`, ... in one program (compiled once, called one by one).
pub fn random_batch(seed: u64, depth: usize, count: usize) -> GeneratedProgram {
    let mut rng = Rng::new(seed);
    let fns: Vec<GeneratedFn> = (0..count).map(|i| random_function(rng.next(), &format!("f{i}"), depth)).collect();
    let source = fns.iter().map(|f| f.source.as_str()).collect::<Vec<_>>().join("\n");
    GeneratedProgram { source, fns }
}

/// A function named [`HUB`] that calls each of `fns` (with its result dtype and rank) on its
/// own parameters and returns every result, so that one compiled module holds them all.
/// Dimension names are suffixed per function, so each keeps its own sizes.
pub fn hub(fns: &[(&GeneratedFn, DType, usize)]) -> String {
    let mut params = Vec::new();
    let mut results = Vec::new();
    let mut calls = Vec::new();
    for (f, dtype, rank) in fns {
        let mut args = Vec::new();
        for p in &f.params {
            let name = format!("{}_{}", f.name, p.name);
            params.push(format!("{name}: {}", p.type_text(&format!("_{}", f.name))));
            args.push(name);
        }
        results.push(if *rank == 0 { dtype.name().to_string() } else { format!("{}[{}]", dtype.name(), vec!["?"; *rank].join(", ")) });
        calls.push(format!("{}({})", f.name, args.join(", ")));
    }
    format!(
        "fn {HUB}({}) -> ({},) {{\n    ({},)\n}}\n",
        params.join(", "),
        results.join(", "),
        calls.join(", ")
    )
}

/// A value in scope: a parameter or a `let`.
#[derive(Clone)]
struct Var {
    name: String,
    shape: Shape,
    dtype: DType,
    /// Parameters hold exact values; `let`s may hold rounded ones.
    exact: bool,
}

/// How a function writes a dimension variable in shapes it spells out.
#[derive(Clone, Copy, PartialEq)]
enum Spelling {
    Name,
    Static(usize),
}

struct Gen<'r> {
    rng: &'r mut Rng,
    float: DType,
    int: DType,
    spelling: [Spelling; 3],
    /// Variables the body may use: static ones, and names some parameter declares.
    vars: Vec<usize>,
    scope: Vec<Var>,
    /// Names the body refers to.
    used: Vec<String>,
}

/// One random function named `name`.
pub fn random_function(seed: u64, name: &str, depth: usize) -> GeneratedFn {
    let mut rng = Rng::new(seed);
    let float = if rng.one_in(2) { DType::F32 } else { DType::F64 };
    let int = if rng.one_in(2) { DType::I32 } else { DType::I64 };
    let spelling: [Spelling; 3] =
        std::array::from_fn(|_| if rng.one_in(6) { Spelling::Static(1 + rng.below(3)) } else { Spelling::Name });
    let params = random_params(&mut rng, float, int, &spelling);
    let declared = |v: usize| params.iter().any(|(p, _)| p.dims.contains(&DeclDim::Name(VARS[v])));
    let vars: Vec<usize> = (0..3).filter(|&v| matches!(spelling[v], Spelling::Static(_)) || declared(v)).collect();
    let scope = params
        .iter()
        .map(|(p, shape)| Var { name: p.name.clone(), shape: shape.clone(), dtype: p.dtype, exact: true })
        .collect();
    let mut g = Gen { rng: &mut rng, float, int, spelling, vars, scope, used: Vec::new() };

    let mut lets = String::new();
    for i in 0..g.rng.below(3) {
        if g.rng.one_in(5) {
            if let Some(split) = g.split_let(i, depth.saturating_sub(1)) {
                lets.push_str(&split);
                continue;
            }
        }
        let (shape, dtype) = (g.random_shape(), g.random_dtype());
        let value = g.expr(&shape, dtype, depth.saturating_sub(1));
        lets.push_str(&format!("    let a{i} = {value};\n"));
        g.scope.push(Var { name: format!("a{i}"), shape, dtype, exact: false });
    }
    let (shape, dtype) = (g.random_shape(), g.random_dtype());
    let body = g.expr(&shape, dtype, depth);
    let used = std::mem::take(&mut g.used);

    let sizes: [usize; 3] = std::array::from_fn(|v| match spelling[v] {
        Spelling::Static(s) => s,
        Spelling::Name => rng.pick(&SIZES),
    });
    let mut args: Vec<GeneratedArg> = params.iter().map(|(p, shape)| random_arg(&mut rng, p.dtype, runtime_shape(shape, &sizes))).collect();
    let inconsistent = if rng.one_in(6) { contradict(&mut rng, &params, &used, &mut args, &sizes) } else { None };
    let params: Vec<GeneratedParam> = params.into_iter().map(|(p, _)| p).collect();
    let signature: Vec<String> = params.iter().map(|p| format!("{}: {}", p.name, p.type_text(""))).collect();
    let source = format!("fn {name}({}) {{\n{lets}    {body}\n}}\n", signature.join(", "));
    GeneratedFn { name: name.to_string(), seed, source, params, sizes, args, inconsistent }
}

/// The parameters (with their logical shapes), in random order; `x` is always there.
fn random_params(rng: &mut Rng, float: DType, int: DType, spelling: &[Spelling; 3]) -> Vec<(GeneratedParam, Shape)> {
    use D::{One, Var};
    let (n, m, k) = (Var(0), Var(1), Var(2));
    let candidates: [(&str, Shape, DType); 11] = [
        ("x", vec![n, m], float),
        ("y", vec![m], float),
        ("z", vec![n, One], float),
        ("w", vec![m, k], float),
        ("s", vec![], float),
        ("v", vec![k, n, m], float),
        ("i", vec![n, m], int),
        ("j", vec![k], int),
        ("t", vec![], int),
        ("b", vec![n, m], DType::Bool),
        ("c", vec![m], DType::Bool),
    ];
    let mut chosen: Vec<(GeneratedParam, Shape)> = Vec::new();
    for (name, shape, dtype) in candidates {
        if name != "x" && rng.one_in(2) {
            continue;
        }
        let dims = shape
            .iter()
            .map(|d| match (d, rng.one_in(4)) {
                (One, _) => DeclDim::Static(1),
                (Var(_), true) => DeclDim::Unknown,
                (Var(v), false) => match spelling[*v] {
                    Spelling::Name => DeclDim::Name(VARS[*v]),
                    Spelling::Static(s) => DeclDim::Static(s),
                },
            })
            .collect();
        chosen.push((GeneratedParam { name: name.to_string(), dtype, dims }, shape));
    }
    // Shuffle: which argument binds a name first decides what error messages say.
    for i in (1..chosen.len()).rev() {
        chosen.swap(i, rng.below(i + 1));
    }
    // A name the body spells out must be declared somewhere: where every use of a variable
    // was written `?`, its first use gets the name back.
    for v in 0..3 {
        if spelling[v] != Spelling::Name || chosen.iter().any(|(p, _)| p.dims.contains(&DeclDim::Name(VARS[v]))) {
            continue;
        }
        if let Some((p, axis)) = chosen.iter_mut().find_map(|(p, s)| s.iter().position(|d| *d == Var(v)).map(|a| (p, a))) {
            p.dims[axis] = DeclDim::Name(VARS[v]);
        }
    }
    chosen
}

/// Axes of `big` whose removal leaves `small` (sorted), if there are such.
fn removed_axes(big: &Shape, small: &Shape) -> Option<Vec<usize>> {
    if big.len() < small.len() {
        return None;
    }
    // Matching `small` as a subsequence from the left finds one such set when any exists.
    let (mut axes, mut j) = (Vec::new(), 0);
    for (i, d) in big.iter().enumerate() {
        if j < small.len() && *d == small[j] {
            j += 1;
        } else {
            axes.push(i);
        }
    }
    (j == small.len()).then_some(axes)
}

/// The run-time shape of a logical shape.
fn runtime_shape(shape: &Shape, sizes: &[usize; 3]) -> Vec<usize> {
    shape.iter().map(|d| if let D::Var(v) = d { sizes[*v] } else { 1 }).collect()
}

/// An argument of `shape` with random elements: floats in [-2, 2) with some exact zeros (log,
/// division and signs meet them), integers in -4..=4.
fn random_arg(rng: &mut Rng, dtype: DType, shape: Vec<usize>) -> GeneratedArg {
    let len: usize = shape.iter().product();
    let data = match dtype {
        DType::Bool => ArgData::Bool((0..len).map(|_| rng.one_in(2)).collect()),
        DType::I32 | DType::I64 => ArgData::Int((0..len).map(|_| rng.below(9) as i64 - 4).collect()),
        _ => ArgData::Float(
            (0..len)
                .map(|_| {
                    let x = if rng.one_in(16) { 0.0 } else { rng.float(-2.0, 2.0) };
                    if dtype == DType::F32 { x as f32 as f64 } else { x }
                })
                .collect(),
        ),
    };
    GeneratedArg { dtype, shape, data }
}

/// Gives one argument dim a size its declaration does not allow: mostly a `?` dim (which only a
/// run-time check inside the function can catch), otherwise a name or static dim (the argument
/// check at the call catches it). Only parameters the body uses are changed. Returns a
/// description, or `None` where nothing changed.
fn contradict(
    rng: &mut Rng,
    params: &[(GeneratedParam, Shape)],
    used: &[String],
    args: &mut [GeneratedArg],
    sizes: &[usize; 3],
) -> Option<String> {
    let dims: Vec<(usize, usize)> = params
        .iter()
        .enumerate()
        .filter(|(_, (p, _))| used.contains(&p.name))
        .flat_map(|(i, (p, _))| (0..p.dims.len()).map(move |a| (i, a)))
        .collect();
    let unknown: Vec<(usize, usize)> = dims.iter().copied().filter(|&(i, a)| params[i].0.dims[a] == DeclDim::Unknown).collect();
    let (i, axis) = if !unknown.is_empty() && !rng.one_in(4) {
        rng.pick(&unknown)
    } else if !dims.is_empty() {
        rng.pick(&dims)
    } else {
        return None;
    };
    let (p, shape) = &params[i];
    let mut wrong = runtime_shape(shape, sizes);
    let new = loop {
        let s = rng.pick(&SIZES);
        if s != wrong[axis] {
            break s;
        }
    };
    wrong[axis] = new;
    args[i] = random_arg(rng, p.dtype, wrong);
    let declared = match &p.dims[axis] {
        DeclDim::Name(n) => n.to_string(),
        DeclDim::Static(s) => s.to_string(),
        DeclDim::Unknown => "?".to_string(),
    };
    let meant = match shape[axis] {
        D::Var(v) => format!("`{}` = {}", VARS[v], sizes[v]),
        D::One => "1".to_string(),
    };
    Some(format!("argument `{}` axis {axis} (declared `{declared}`, standing for {meant}) has size {new}", p.name))
}

impl Gen<'_> {
    fn random_dtype(&mut self) -> DType {
        match self.rng.below(10) {
            0..=3 => self.float,
            4..=6 => self.int,
            _ => DType::Bool,
        }
    }

    fn random_dim(&mut self) -> D {
        if self.rng.one_in(8) { D::One } else { D::Var(self.rng.pick(&self.vars)) }
    }

    /// Often a shape in scope (so that values in scope fit), otherwise random.
    fn random_shape(&mut self) -> Shape {
        if self.rng.one_in(2) {
            let shapes: Vec<Shape> = self.scope.iter().map(|v| v.shape.clone()).collect();
            return self.rng.pick(&shapes);
        }
        let rank = [0, 1, 1, 2, 2, 2, 3][self.rng.below(7)];
        (0..rank).map(|_| self.random_dim()).collect()
    }

    /// A shape written out in the function's spelling (names and static sizes, never `?`).
    fn spell(&self, shape: &Shape) -> String {
        let dims: Vec<String> = shape
            .iter()
            .map(|d| match d {
                D::One => "1".to_string(),
                D::Var(v) => match self.spelling[*v] {
                    Spelling::Name => VARS[*v].to_string(),
                    Spelling::Static(s) => s.to_string(),
                },
            })
            .collect();
        format!("[{}]", dims.join(", "))
    }

    /// A shape that broadcasts to `shape`: itself, a suffix, a scalar, or with some dims 1.
    fn broadcastable(&mut self, shape: &Shape) -> Shape {
        match self.rng.below(5) {
            0 => Vec::new(),
            1 if !shape.is_empty() => shape[self.rng.below(shape.len()) + 1..].to_vec(),
            2 => shape.iter().map(|d| if self.rng.one_in(2) { D::One } else { *d }).collect(),
            _ => shape.clone(),
        }
    }

    /// An axis as written: sometimes counted from the end.
    fn axis_text(&mut self, axis: usize, rank: usize) -> String {
        if self.rng.one_in(3) { format!("{}", axis as i64 - rank as i64) } else { axis.to_string() }
    }

    /// An expression of exactly `shape` and `dtype`.
    fn expr(&mut self, shape: &Shape, dtype: DType, depth: usize) -> String {
        if depth == 0 || self.rng.one_in(6) {
            return self.leaf(shape, dtype);
        }
        let d = depth - 1;
        let made = if dtype.is_float() {
            match self.rng.below(22) {
                21 => Some(self.conditional(shape, dtype, d)),
                20 => Some(self.constructed(shape, dtype, d)),
                19 => self.matrix(shape, dtype, d),
                18 => self.looped(shape, dtype, d),
                15 => self.indexing(shape, dtype, d),
                16 => self.joined(shape, dtype, d),
                17 => self.scan(shape, dtype, d),
                0 | 1 => Some(self.float_unary(shape, dtype, d)),
                2..=4 => Some(self.arith(shape, dtype, d)),
                5 => Some(self.power(shape, dtype, d)),
                6 => self.softmax(shape, dtype, d),
                7 => self.matmul(shape, dtype, d),
                8 => self.promoted(shape, dtype, d),
                9 => Some(self.select(shape, dtype, d)),
                10 => self.reduce(shape, dtype, d),
                11 => self.transpose(shape, dtype, d),
                12 => self.shape_op(shape, dtype, d),
                13 => Some(self.cast_to(shape, dtype, d)),
                _ => Some(self.smooth_select(shape, dtype, d)),
            }
        } else if dtype.is_int() {
            match self.rng.below(20) {
                19 => Some(self.conditional(shape, dtype, d)),
                18 => Some(self.constructed(shape, dtype, d)),
                17 => self.looped(shape, dtype, d),
                12 => self.indexing(shape, dtype, d),
                13 => self.joined(shape, dtype, d),
                14 if dtype == DType::I64 => self.arg(shape, d),
                15 => self.scan(shape, dtype, d),
                16 => Some(self.math_int(shape, dtype, d)),
                0 => {
                    let f = if self.rng.one_in(2) { "abs" } else { "-" };
                    Some(format!("{f}({})", self.expr(shape, dtype, d)))
                }
                1..=3 => Some(self.arith(shape, dtype, d)),
                4 => Some(self.power(shape, dtype, d)),
                5 => self.matmul(shape, dtype, d),
                6 => self.promoted(shape, dtype, d),
                7 => Some(self.select(shape, dtype, d)),
                8 => self.reduce(shape, dtype, d),
                9 => self.transpose(shape, dtype, d),
                10 => self.shape_op(shape, dtype, d),
                _ => Some(self.cast_to(shape, dtype, d)),
            }
        } else {
            match self.rng.below(15) {
                14 => Some(self.conditional(shape, dtype, d)),
                13 => self.looped(shape, dtype, d),
                11 => self.indexing(shape, dtype, d),
                12 => self.joined(shape, dtype, d),
                0..=2 => Some(self.compare(shape, d)),
                3 => {
                    let (a, b) = self.operands(shape, DType::Bool, d);
                    let f = if self.rng.one_in(2) { "maximum" } else { "minimum" };
                    Some(format!("{f}({a}, {b})"))
                }
                4 => Some(self.select(shape, dtype, d)),
                5 => self.reduce(shape, dtype, d),
                6 => self.transpose(shape, dtype, d),
                7 => self.shape_op(shape, dtype, d),
                8 => Some(self.cast_to(shape, dtype, d)),
                _ => {
                    let (a, b) = self.operands(shape, DType::Bool, d);
                    let op = self.rng.pick(&["==", "!=", "<", ">="]);
                    Some(format!("({a}) {op} ({b})"))
                }
            }
        };
        made.unwrap_or_else(|| self.leaf(shape, dtype))
    }

    /// One operand of `shape` and one that broadcasts to it, in either order.
    fn operands(&mut self, shape: &Shape, dtype: DType, depth: usize) -> (String, String) {
        let a = self.expr(shape, dtype, depth);
        let other = self.broadcastable(shape);
        let b = self.expr(&other, dtype, depth);
        if self.rng.one_in(2) { (a, b) } else { (b, a) }
    }

    /// A weakly typed literal, which takes the other operand's dtype.
    fn weak_literal(&mut self, dtype: DType) -> String {
        if dtype.is_float() && !self.rng.one_in(4) {
            format!("{:.2}", self.rng.float(0.0, 2.0))
        } else {
            (self.rng.below(4)).to_string()
        }
    }

    fn float_unary(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let inner = self.expr(shape, dtype, d);
        match self.rng.below(12) {
            0 => format!("-({inner})"),
            // Keep exp's argument small so results stay finite and comparable.
            1 => format!("exp(tanh({inner}))"),
            2 => format!("tanh({inner})"),
            3 => format!("abs({inner})"),
            4 => format!("sigmoid({inner})"),
            5 => format!("sqrt(abs({inner}))"),
            6 => format!("log1p(abs({inner}))"),
            7 => format!("sin({inner})"),
            8 => format!("cos({inner})"),
            9 => format!("log(abs({inner}))"),
            _ => self.math_unary(shape, dtype, inner),
        }
    }

    /// `+ - * / maximum minimum` for numbers, with a broadcast operand or a literal.
    fn arith(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let float = dtype.is_float();
        let ops: &[&str] = if float { &["+", "-", "*", "/", "maximum", "minimum"] } else { &["+", "-", "*", "maximum", "minimum"] };
        let op = self.rng.pick(ops);
        let weak = self.rng.one_in(4);
        let (a, b) = if weak { (self.expr(shape, dtype, d), self.weak_literal(dtype)) } else { self.operands(shape, dtype, d) };
        match op {
            "maximum" | "minimum" => format!("{op}({a}, {b})"),
            // A divisor away from 0, so that rounding differences are not blown up. A weak
            // literal (never negative) stays bare: `abs(1.93)` would be an `f64` value, not a
            // literal that takes the other operand's dtype.
            "/" if weak => format!("({a}) / ({b} + 1.0)"),
            "/" => format!("({a}) / (abs({b}) + 1.0)"),
            _ => format!("({a}) {op} ({b})"),
        }
    }

    fn power(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let a = self.expr(shape, dtype, d);
        if dtype.is_int() {
            // Any integer exponent is defined: negative ones give 0 or +-1, large ones wrap.
            let e = if self.rng.one_in(2) { self.rng.pick(&["0", "1", "2", "3", "-1"]).to_string() } else {
                let other = self.broadcastable(shape);
                format!("({})", self.expr(&other, dtype, d))
            };
            return format!("({a}) ** {e}");
        }
        match self.rng.below(3) {
            0 => format!("({a}) ** {}", self.rng.pick(&["0", "1", "2", "3", "2.0"])),
            1 => format!("(abs({a}) + 0.5) ** {}", self.rng.pick(&["-1", "-2", "0.5", "-1.5"])),
            _ => {
                let other = self.broadcastable(shape);
                let b = self.expr(&other, dtype, d);
                format!("(abs({a}) + 0.5) ** (tanh({b}))")
            }
        }
    }

    fn softmax(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        if shape.is_empty() {
            return None;
        }
        let axis = self.rng.below(shape.len());
        let axis = self.axis_text(axis, shape.len());
        let f = if self.rng.one_in(2) { "softmax" } else { "log_softmax" };
        Some(format!("{f}({}, {axis})", self.expr(shape, dtype, d)))
    }

    /// NumPy's matmul ranks: 1x1, 2x1, 1x2, 2x2 and batched 3x3, over a random inner dim.
    fn matmul(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        let q = self.random_dim();
        let (l, r): (Shape, Shape) = match shape.as_slice() {
            [] => (vec![q], vec![q]),
            [a] if self.rng.one_in(2) => (vec![*a, q], vec![q]),
            [a] => (vec![q], vec![q, *a]),
            [a, b] => (vec![*a, q], vec![q, *b]),
            [bt, a, b] => (vec![*bt, *a, q], vec![*bt, q, *b]),
            _ => return None,
        };
        Some(format!("({}) @ ({})", self.expr(&l, dtype, d), self.expr(&r, dtype, d)))
    }

    /// Mixed dtypes, promoted: `f64` with an integer or `f32` operand, `i64` with `i32`, and
    /// integer true division (to `f64`).
    fn promoted(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        let other = self.broadcastable(shape);
        match dtype {
            DType::F64 if self.rng.one_in(2) => {
                let (a, b) = (self.expr(shape, self.int, d), self.expr(&other, self.int, d));
                Some(format!("({a}) / ({b})"))
            }
            DType::F64 => {
                let a = self.expr(shape, DType::F64, d);
                let bt = self.rng.pick(&[DType::I32, DType::I64, DType::F32]);
                let b = self.expr(&other, bt, d);
                let op = self.rng.pick(&["+", "-", "*", "maximum", "minimum"]);
                Some(if op.len() > 1 { format!("{op}({a}, {b})") } else { format!("({b}) {op} ({a})") })
            }
            DType::F32 => {
                let (a, b) = (self.expr(shape, self.int, d), self.expr(&other, self.int, d));
                Some(format!("cast(({a}) / ({b}), f32)"))
            }
            DType::I64 => {
                let a = self.expr(shape, DType::I64, d);
                let b = self.expr(&other, DType::I32, d);
                let op = self.rng.pick(&["+", "-", "*"]);
                Some(format!("({a}) {op} ({b})"))
            }
            _ => None,
        }
    }

    /// `where(c, a, b)` with all three broadcasting together.
    fn select(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let cs = self.broadcastable(shape);
        let c = self.expr(&cs, DType::Bool, d);
        let (a, b) = self.operands(shape, dtype, d);
        format!("where({c}, {a}, {b})")
    }

    /// `if c { a } else { b }` on a comparison of exact operands (so both backends choose the
    /// same block): of scalars, or `all`/`any` of one over an array; a block sometimes binds
    /// a name first.
    fn conditional(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let c = if self.rng.one_in(2) {
            self.compare(&Vec::new(), d)
        } else {
            let s = self.random_shape();
            let f = self.rng.pick(&["all", "any"]);
            format!("{f}({})", self.compare(&s, d))
        };
        let a = self.expr(shape, dtype, d);
        let b = self.expr(shape, dtype, d);
        let b = if self.rng.one_in(3) {
            let name = format!("k{}", self.rng.below(1000));
            format!("let {name} = {b}; {name}")
        } else {
            b
        };
        format!("if {c} {{ {a} }} else {{ {b} }}")
    }

    /// `where(a > b, a, b)`: a comparison of rounded floats where a tie cannot change the value.
    fn smooth_select(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let a = self.expr(shape, dtype, d);
        let other = self.broadcastable(shape);
        let b = self.expr(&other, dtype, d);
        format!("where(({a}) > ({b}), {a}, {b})")
    }

    /// A comparison of exact operands (integers, bools or exact floats), or of one with a literal.
    fn compare(&mut self, shape: &Shape, d: usize) -> String {
        let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
        let other = self.broadcastable(shape);
        let (a, b) = match self.rng.below(5) {
            0 | 1 => (self.expr(shape, self.int, d), self.expr(&other, self.int, d)),
            2 => (self.exact(shape, self.float, d), self.exact(&other, self.float, d)),
            // Promoted to f64 on both sides, exactly.
            3 => (self.expr(shape, self.int, d), self.exact(&other, self.float, d)),
            _ => {
                let dt = if self.rng.one_in(2) { self.int } else { self.float };
                let a = if dt.is_int() { self.expr(shape, dt, d) } else { self.exact(shape, dt, d) };
                (a, self.weak_literal(dt))
            }
        };
        if self.rng.one_in(2) { format!("({a}) {op} ({b})") } else { format!("({b}) {op} ({a})") }
    }

    fn cast_to(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let from: Vec<DType> = DType::ALL.into_iter().filter(|&t| t != dtype).collect();
        let from = self.rng.pick(&from);
        let x = if from.is_float() && !dtype.is_float() {
            // Float to int or bool sees exact values only: truncation and `!= 0` would turn
            // a last-bit difference into a different answer, and NaN into poison.
            let scale = if dtype.is_int() { " * 4.0" } else { "" };
            format!("({}){scale}", self.exact(shape, from, d))
        } else {
            self.expr(shape, from, d)
        };
        format!("cast({x}, {dtype})")
    }

    /// `sum` / `mean` / `max` / `min` / `var` / `std` / ... of a larger operand over one or
    /// two new axes (or over nothing, `[]`). `max` / `min` fail where a reduced axis is empty at run time.
    fn reduce(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        let mut ops: Vec<(&str, DType)> = vec![("max", dtype), ("min", dtype)];
        match dtype {
            DType::F32 | DType::F64 => {
                ops.extend([
                    ("sum", dtype),
                    ("sum", dtype),
                    ("mean", dtype),
                    ("prod", dtype),
                    ("logsumexp", dtype),
                    ("var", dtype),
                    ("std", dtype),
                ])
            }
            // bool and i32 sum (and multiply) as i64.
            DType::I64 => ops.extend([
                ("sum", DType::I64),
                ("sum", DType::I32),
                ("sum", DType::Bool),
                ("prod", DType::I64),
                ("prod", DType::Bool),
            ]),
            // Numbers count as `x != 0`: only of integers, whose values are exact.
            DType::Bool => ops.extend([("any", DType::Bool), ("all", DType::Bool), ("any", self.int), ("all", self.int)]),
            _ => {}
        }
        if dtype == DType::F64 {
            ops.extend([("mean", self.int), ("mean", DType::Bool)]);
        }
        let (op, from) = self.rng.pick(&ops);
        if self.rng.one_in(20) && from == dtype {
            return Some(format!("{op}({}, [])", self.expr(shape, dtype, d)));
        }
        // Often the shape of a value in scope, so that leaves are values rather than literals.
        let fits: Vec<(Shape, Vec<usize>)> = self
            .scope
            .iter()
            .filter_map(|v| removed_axes(&v.shape, shape).filter(|a| !a.is_empty()).map(|a| (v.shape.clone(), a)))
            .collect();
        let room = 3 - shape.len();
        let (bigger, axes) = if !fits.is_empty() && !self.rng.one_in(3) {
            self.rng.pick(&fits)
        } else if room > 0 {
            let extra = 1 + self.rng.below(room.min(2));
            self.grow(shape, extra)
        } else {
            return None;
        };
        let operand = self.expr(&bigger, from, d);
        let rank = bigger.len();
        let axes_text = if axes.len() == rank && self.rng.one_in(2) {
            return Some(format!("{op}({operand})"));
        } else if axes.len() == 1 && !self.rng.one_in(4) {
            self.axis_text(axes[0], rank)
        } else {
            let list: Vec<String> = axes.iter().map(|&a| self.axis_text(a, rank)).collect();
            format!("[{}]", list.join(", "))
        };
        // `var` and `std` sometimes with a `ddof` (which may leave no degree of freedom).
        let ddof = if matches!(op, "var" | "std") && self.rng.one_in(2) { format!(", {}", self.rng.below(3)) } else { String::new() };
        Some(format!("{op}({operand}, {axes_text}{ddof})"))
    }

    /// `argmax` / `argmin` (an `i64`) of an operand with one more axis; floats are exact, so
    /// that both backends see the same ties.
    fn arg(&mut self, shape: &Shape, d: usize) -> Option<String> {
        if shape.len() >= 3 {
            return None;
        }
        let (bigger, axes) = self.grow(shape, 1);
        let from = self.random_dtype();
        let x = if from.is_float() { self.exact(&bigger, from, d) } else { self.expr(&bigger, from, d) };
        let f = if self.rng.one_in(2) { "argmax" } else { "argmin" };
        let axis = self.axis_text(axes[0], bigger.len());
        Some(format!("{f}({x}, {axis})"))
    }

    /// `cumsum` / `cumprod` along one axis (`i64` results also of `i32` and `bool`), or
    /// `sort` / `argsort` along one (`argsort` of exactly computed operands, as `argmax`:
    /// its order must not hang on rounding).
    fn scan(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        if shape.is_empty() {
            return None;
        }
        if self.rng.one_in(4) {
            let axis = self.rng.below(shape.len());
            let axis = self.axis_text(axis, shape.len());
            if dtype == DType::I64 && self.rng.one_in(2) {
                let from = self.random_dtype();
                let x = if from.is_float() { self.exact(shape, from, d) } else { self.expr(shape, from, d) };
                return Some(format!("argsort({x}, {axis})"));
            }
            return Some(format!("sort({}, {axis})", self.expr(shape, dtype, d)));
        }
        let from = match dtype {
            DType::I64 => self.rng.pick(&[DType::I64, DType::I32, DType::Bool]),
            t if t.is_float() => t,
            _ => return None,
        };
        let f = if self.rng.one_in(3) { "cumprod" } else { "cumsum" };
        let axis = self.rng.below(shape.len());
        let axis = self.axis_text(axis, shape.len());
        Some(format!("{f}({}, {axis})", self.expr(shape, from, d)))
    }

    /// A reduction over the joining axis of `concat` / `stack` of two operands (or of a
    /// stacking array literal), giving `shape`.
    /// An expression of `shape` plus a constructed array of the same shape (spelled with its
    /// static sizes and dimension names): `zeros`, `ones` or `full` of a scalar expression.
    fn constructed(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        let dims = self.spell(shape);
        let dt = dtype.name();
        let made = match self.rng.below(3) {
            0 => format!("zeros({dims}, {dt})"),
            1 => format!("ones({dims}, {dt})"),
            _ => format!("full({dims}, {})", self.expr(&Vec::new(), dtype, d)),
        };
        format!("({}) + {made}", self.expr(shape, dtype, d))
    }

    /// The matrix helpers on floats: `tril`/`triu` of a matrix (diagonal offset -1, 0 or 1),
    /// `outer` of two vectors, `trace` of a matrix (of any two dims) as a scalar.
    fn matrix(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        match shape.len() {
            2 if self.rng.one_in(2) => {
                let f = self.rng.pick(&["tril", "triu"]);
                let k = self.rng.pick(&["-1", "0", "1"]);
                Some(format!("{f}({}, {k})", self.expr(shape, dtype, d)))
            }
            2 => {
                let a = self.expr(&vec![shape[0]], dtype, d);
                let b = self.expr(&vec![shape[1]], dtype, d);
                Some(format!("outer({a}, {b})"))
            }
            0 => {
                let m = vec![self.random_dim(), self.random_dim()];
                Some(format!("trace({})", self.expr(&m, dtype, d)))
            }
            _ => None,
        }
    }

    fn joined(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        if shape.len() >= 3 {
            return None;
        }
        let red = if dtype.is_float() || dtype == DType::I64 {
            self.rng.pick(&["sum", "max", "min"])
        } else {
            self.rng.pick(&["max", "min"])
        };
        let axis = self.rng.below(shape.len() + 1);
        let axis_text = self.axis_text(axis, shape.len() + 1);
        if self.rng.one_in(2) {
            let a = self.expr(shape, dtype, d);
            let b = self.expr(shape, dtype, d);
            if axis == 0 && self.rng.one_in(2) {
                return Some(format!("{red}([{a}, {b}], 0)"));
            }
            return Some(format!("{red}(stack([{a}, {b}], {axis_text}), {axis_text})"));
        }
        let mut first = shape.clone();
        first.insert(axis, self.random_dim());
        let mut second = shape.clone();
        second.insert(axis, self.random_dim());
        let a = self.expr(&first, dtype, d);
        let b = self.expr(&second, dtype, d);
        Some(format!("{red}(concat([{a}, {b}], {axis_text}), {axis_text})"))
    }

    /// `let (s{i}, t{i}) = split(concat([y, z], axis), [p, q], axis);`: two parts of a joined
    /// array, of static sizes (1 or a dimension spelled as a number), in the joined order or
    /// swapped so that they straddle the join. Both parts enter the scope.
    fn split_let(&mut self, i: usize, depth: usize) -> Option<String> {
        let mut statics: Vec<(D, usize)> = vec![(D::One, 1)];
        for &v in &self.vars {
            if let Spelling::Static(s) = self.spelling[v] {
                statics.push((D::Var(v), s));
            }
        }
        let base = self.random_shape();
        if base.is_empty() {
            return None;
        }
        let dtype = self.random_dtype();
        let axis = self.rng.below(base.len());
        let with = |d: D| {
            let mut s = base.clone();
            s[axis] = d;
            s
        };
        let (a, b) = (self.rng.pick(&statics), self.rng.pick(&statics));
        let y = self.expr(&with(a.0), dtype, depth);
        let z = self.expr(&with(b.0), dtype, depth);
        let (first, second) = if self.rng.one_in(2) { (b, a) } else { (a, b) };
        let axis_text = self.axis_text(axis, base.len());
        let (p, q) = (format!("s{i}"), format!("t{i}"));
        self.scope.push(Var { name: p.clone(), shape: with(first.0), dtype, exact: false });
        self.scope.push(Var { name: q.clone(), shape: with(second.0), dtype, exact: false });
        Some(format!(
            "    let ({p}, {q}) = split(concat([{y}, {z}], {axis_text}), [{}, {}], {axis_text});\n",
            first.1, second.1
        ))
    }

    /// `shape` with `extra` random dims inserted, and where they are (sorted).
    fn grow(&mut self, shape: &Shape, extra: usize) -> (Shape, Vec<usize>) {
        let mut bigger = shape.clone();
        let mut axes: Vec<usize> = Vec::new();
        for _ in 0..extra {
            let pos = self.rng.below(bigger.len() + 1);
            let dim = self.random_dim();
            bigger.insert(pos, dim);
            for a in axes.iter_mut() {
                if *a >= pos {
                    *a += 1;
                }
            }
            axes.push(pos);
        }
        axes.sort();
        (bigger, axes)
    }

    /// Indexing that keeps `shape`: a reversed axis, a single index into a bigger operand
    /// (which fails, the same way in both backends, where that axis is empty), a gather of
    /// the first or last row, a scatter into the first row.
    fn indexing(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        match self.rng.below(5) {
            0 if !shape.is_empty() => {
                let x = self.expr(shape, dtype, d);
                let axis = self.rng.below(shape.len());
                let items: Vec<&str> = (0..=axis).map(|a| if a == axis { "::-1" } else { ":" }).collect();
                Some(format!("({x})[{}]", items.join(", ")))
            }
            // Ranks stay at most 3, as everywhere in the generator.
            1 if shape.len() < 3 => {
                let (bigger, axes) = self.grow(shape, 1);
                let x = self.expr(&bigger, dtype, d);
                // 1 is out of range on a static 1 (a check error), so only on a named dim: not
                // on a 1, nor on a variable this function spells as the static size 1.
                let static_one = match bigger[axes[0]] {
                    D::One => true,
                    D::Var(v) => self.spelling[v] == Spelling::Static(1),
                };
                let i = if static_one { self.rng.pick(&["0", "-1"]) } else { self.rng.pick(&["0", "-1", "1"]) };
                let items: Vec<&str> = (0..=axes[0]).map(|a| if a == axes[0] { i } else { ":" }).collect();
                Some(format!("({x})[{}]", items.join(", ")))
            }
            2 if !shape.is_empty() && shape[0] == D::One => {
                let mut operand = shape.clone();
                operand[0] = self.random_dim();
                let x = self.expr(&operand, dtype, d);
                let idx = self.rng.pick(&["[0]", "[-1]"]);
                Some(format!("({x})[{idx}]"))
            }
            3 if !shape.is_empty() && dtype != DType::Bool => {
                let x = self.expr(shape, dtype, d);
                let mut row = shape.clone();
                row[0] = D::One;
                let v = self.expr(&row, dtype, d);
                let f = self.rng.pick(&["scatter_add", "scatter_set"]);
                Some(format!("{f}({x}, [0], {v})"))
            }
            // A boolean mask's selection (of a length the data decides), summed; or the sum of
            // its positions.
            4 if shape.is_empty() && (dtype.is_float() || dtype == DType::I64) => {
                let operand = self.random_shape();
                if operand.is_empty() {
                    return None;
                }
                let m = self.expr(&operand, DType::Bool, d);
                if dtype == DType::I64 {
                    return Some(format!("sum(flatnonzero({m}))"));
                }
                let x = self.expr(&operand, dtype, d);
                Some(format!("sum(({x})[{m}])"))
            }
            _ => None,
        }
    }

    fn transpose(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        match shape.len() {
            2 => Some(format!("({}).T", self.expr(&vec![shape[1], shape[0]], dtype, d))),
            3 => {
                let perms = [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
                let perm = self.rng.pick(&perms);
                // Result dim i is operand dim perm[i].
                let mut operand = shape.clone();
                for (i, &p) in perm.iter().enumerate() {
                    operand[p] = shape[i];
                }
                let x = self.expr(&operand, dtype, d);
                Some(if perm == [2, 1, 0] && self.rng.one_in(2) {
                    format!("({x}).T")
                } else {
                    format!("transpose({x}, [{}, {}, {}])", perm[0], perm[1], perm[2])
                })
            }
            _ => None,
        }
    }

    /// `broadcast`, `expand`, `squeeze` or `reshape` producing `shape`.
    fn shape_op(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        let rank = shape.len();
        match self.rng.below(4) {
            0 if rank > 0 => {
                let from = self.rng.below(rank + 1);
                let operand: Shape = shape[from..].iter().map(|&x| if self.rng.one_in(3) { D::One } else { x }).collect();
                let x = self.expr(&operand, dtype, d);
                Some(format!("broadcast({x}, {})", self.spell(shape)))
            }
            1 => {
                let ones: Vec<usize> = (0..rank).filter(|&i| shape[i] == D::One).collect();
                if ones.is_empty() {
                    return None;
                }
                let p = self.rng.pick(&ones);
                let mut operand = shape.clone();
                operand.remove(p);
                let x = self.expr(&operand, dtype, d);
                let axis = self.axis_text(p, rank);
                Some(format!("expand({x}, {axis})"))
            }
            2 if rank < 3 => {
                let p = self.rng.below(rank + 1);
                let mut operand = shape.clone();
                operand.insert(p, D::One);
                let x = self.expr(&operand, dtype, d);
                let axis = self.axis_text(p, rank + 1);
                Some(format!("squeeze({x}, {axis})"))
            }
            3 => {
                if self.rng.one_in(3) {
                    // Through a flat `?` and back: the count is checked at run time.
                    let x = self.expr(shape, dtype, d);
                    return Some(format!("reshape(reshape({x}, [?]), {})", self.spell(shape)));
                }
                // The same variables in order, with 1s moved about; one target dim may be `?`.
                let mut operand: Shape = shape.iter().copied().filter(|&x| x != D::One).collect();
                while operand.len() < 3 && self.rng.one_in(2) {
                    let p = self.rng.below(operand.len() + 1);
                    operand.insert(p, D::One);
                }
                let x = self.expr(&operand, dtype, d);
                let mut target = self.spell(shape);
                // Never a 1: a `?` that is 1 at run time does not stretch, and cannot be squeezed.
                let vars: Vec<usize> = (0..rank).filter(|&i| shape[i] != D::One).collect();
                if !vars.is_empty() && self.rng.one_in(3) {
                    let dims: Vec<&str> = target[1..target.len() - 1].split(", ").collect();
                    let q = self.rng.pick(&vars);
                    let dims: Vec<&str> = dims.iter().enumerate().map(|(i, s)| if i == q { "?" } else { s }).collect();
                    target = format!("[{}]", dims.join(", "));
                }
                Some(format!("reshape({x}, {target})"))
            }
            _ => None,
        }
    }

    /// A float expression every backend computes bit for bit: no rounding beyond the
    /// arguments', so comparing it, or casting it to int or bool, gives one answer.
    fn exact(&mut self, shape: &Shape, dtype: DType, depth: usize) -> String {
        if depth == 0 || self.rng.one_in(3) {
            return self.exact_leaf(shape, dtype);
        }
        let d = depth - 1;
        match self.rng.below(6) {
            0 => format!("-({})", self.exact(shape, dtype, d)),
            1 => format!("abs({})", self.exact(shape, dtype, d)),
            2 | 3 => {
                let a = self.exact(shape, dtype, d);
                let other = self.broadcastable(shape);
                let b = self.exact(&other, dtype, d);
                let f = if self.rng.one_in(2) { "maximum" } else { "minimum" };
                format!("{f}({a}, {b})")
            }
            4 => format!("({}) * {}", self.exact(shape, dtype, d), self.rng.pick(&["2.0", "0.5", "4"])),
            _ if shape.len() == 2 => format!("({}).T", self.exact(&vec![shape[1], shape[0]], dtype, d)),
            _ => {
                let cs = self.broadcastable(shape);
                let c = self.compare(&cs, d);
                let a = self.exact(shape, dtype, d);
                let other = self.broadcastable(shape);
                let b = self.exact(&other, dtype, d);
                format!("where({c}, {a}, {b})")
            }
        }
    }

    fn exact_leaf(&mut self, shape: &Shape, dtype: DType) -> String {
        let exact: Vec<String> =
            self.scope.iter().filter(|v| v.exact && v.shape == *shape && v.dtype == dtype).map(|v| v.name.clone()).collect();
        if !exact.is_empty() && !self.rng.one_in(4) {
            let name = self.rng.pick(&exact);
            return self.use_var(name);
        }
        let scalar = self.scalar(dtype, true);
        self.broadcast_scalar(scalar, shape)
    }

    /// Mostly a value in scope: of this shape and dtype, or made so by a broadcast, a
    /// transpose, a reduction or a cast; otherwise a scalar broadcast to the shape.
    fn leaf(&mut self, shape: &Shape, dtype: DType) -> String {
        let same: Vec<String> =
            self.scope.iter().filter(|v| v.shape == *shape && v.dtype == dtype).map(|v| v.name.clone()).collect();
        if !same.is_empty() && !self.rng.one_in(4) {
            let name = self.rng.pick(&same);
            return self.use_var(name);
        }
        let mut derived: Vec<(String, String)> = Vec::new();
        for v in self.scope.iter().filter(|v| v.dtype == dtype) {
            let (r, t) = (v.shape.len(), shape.len());
            if r < t && v.shape.iter().zip(&shape[t - r..]).all(|(a, b)| a == b || *a == D::One) {
                derived.push((v.name.clone(), format!("broadcast({}, {})", v.name, self.spell(shape))));
            }
            if r >= 2 && r == t && v.shape.iter().rev().eq(shape.iter()) {
                derived.push((v.name.clone(), format!("{}.T", v.name)));
            }
            // Sums keep the dtype of floats and i64; max/min keep every dtype.
            let op = if dtype.is_float() || dtype == DType::I64 { "sum" } else { "max" };
            if let Some(axes) = removed_axes(&v.shape, shape).filter(|a| a.len() == 1) {
                derived.push((v.name.clone(), format!("{op}({}, {})", v.name, axes[0])));
            }
        }
        if !derived.is_empty() && !self.rng.one_in(4) {
            let (name, text) = self.rng.pick(&derived);
            self.use_var(name);
            return text;
        }
        // Float to int or bool casts only of exact values (see `cast_to`).
        let castable: Vec<String> = self
            .scope
            .iter()
            .filter(|v| v.shape == *shape && v.dtype != dtype && (v.exact || !v.dtype.is_float() || dtype.is_float()))
            .map(|v| v.name.clone())
            .collect();
        if !castable.is_empty() && !self.rng.one_in(3) {
            let name = self.rng.pick(&castable);
            return format!("cast({}, {dtype})", self.use_var(name));
        }
        let scalar = self.scalar(dtype, false);
        self.broadcast_scalar(scalar, shape)
    }

    /// Notes that `name` is used (a contradicting size is only interesting where it is).
    fn use_var(&mut self, name: String) -> String {
        if !self.used.contains(&name) {
            self.used.push(name.clone());
        }
        name
    }

    fn broadcast_scalar(&mut self, scalar: String, shape: &Shape) -> String {
        if shape.is_empty() { scalar } else { format!("broadcast({scalar}, {})", self.spell(shape)) }
    }

    /// A scalar of `dtype`: a scalar in scope (maybe scaled) or a literal given its dtype.
    fn scalar(&mut self, dtype: DType, exact: bool) -> String {
        let vars: Vec<String> = self
            .scope
            .iter()
            .filter(|v| v.shape.is_empty() && v.dtype == dtype && (v.exact || !exact))
            .map(|v| v.name.clone())
            .collect();
        if !vars.is_empty() && self.rng.one_in(2) {
            let v = self.rng.pick(&vars);
            let v = self.use_var(v);
            // A product with a literal keeps the dtype; for exact floats, only by a power of 2.
            return match dtype {
                DType::Bool => v,
                d if d.is_float() && !exact && self.rng.one_in(2) => format!("{v} * {:.2}", self.rng.float(-2.0, 2.0)),
                d if d.is_float() && self.rng.one_in(2) => format!("{v} * 0.5"),
                _ => v,
            };
        }
        match dtype {
            DType::Bool => self.rng.pick(&["true", "false"]).to_string(),
            d if d.is_float() => format!("({:.2} : {d})", self.rng.float(-2.0, 2.0)),
            d => format!("({} : {d})", self.rng.below(9) as i64 - 4),
        }
    }
}
