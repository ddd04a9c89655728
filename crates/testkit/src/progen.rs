//! Random well-typed programs, for differential tests (interpreter vs compiled) and fuzzing.
//!
//! A program is one function over a fixed set of parameters,
//! `fn f(x: D[n, m], y: D[m], z: D[n, 1], w: D[m, k], s: D)`, whose body is a random expression
//! built only from operations that type-check by construction. The generator is deterministic
//! in its seed, so any failure is reproducible from the seed alone.

use ptl_lang::types::DType;

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
}

/// Symbolic shapes the generator tracks: each dim is a parameter's symbol or a static 1.
type Shape = Vec<&'static str>;

/// A generated program and how to call it.
#[derive(Debug, Clone)]
pub struct GeneratedProgram {
    pub source: String,
    pub dtype: DType,
    /// Sizes for `n`, `m`, `k`.
    pub sizes: [usize; 3],
    /// Argument shapes in parameter order (x, y, z, w, s).
    pub arg_shapes: Vec<Vec<usize>>,
}

pub const FUNCTION: &str = "f";

fn params() -> Vec<(&'static str, Shape)> {
    vec![("x", vec!["n", "m"]), ("y", vec!["m"]), ("z", vec!["n", "1"]), ("w", vec!["m", "k"]), ("s", vec![])]
}

struct Gen<'r> {
    rng: &'r mut Rng,
}

impl Gen<'_> {
    /// An expression of exactly `shape`.
    fn expr(&mut self, shape: &Shape, depth: usize) -> String {
        if depth == 0 || self.rng.below(5) == 0 {
            return self.leaf(shape);
        }
        match self.rng.below(10) {
            0 | 1 => {
                let f = ["exp", "tanh", "abs", "sigmoid", "sqrt", "log1p", "-", "log"][self.rng.below(8)];
                let inner = self.expr(shape, depth - 1);
                match f {
                    "-" => format!("-({inner})"),
                    // Keep exp's argument small so results stay finite and comparable.
                    "exp" => format!("exp(tanh({inner}))"),
                    "sqrt" | "log" | "log1p" => format!("{f}(abs({inner}))"),
                    _ => format!("{f}({inner})"),
                }
            }
            2..=4 => {
                let op = ["+", "-", "*", "maximum", "minimum", "/"][self.rng.below(6)];
                let a = self.expr(shape, depth - 1);
                // The other operand may be a broadcastable suffix of the shape.
                let other = self.broadcastable(shape);
                let b = self.expr(&other, depth - 1);
                match op {
                    "maximum" | "minimum" => format!("{op}({a}, {b})"),
                    "/" => format!("({a}) / (abs({b}) + 1.0)"),
                    _ => format!("({a}) {op} ({b})"),
                }
            }
            5 => {
                // Reduce a larger shape down to this one. The reduced axis may be empty at run
                // time, where max/min are undefined, so only sum and mean.
                if let Some((bigger, axis)) = self.grow(shape) {
                    let f = ["sum", "mean"][self.rng.below(2)];
                    return format!("{f}({}, {axis})", self.expr(&bigger, depth - 1));
                }
                self.leaf(shape)
            }
            6 if shape.len() == 2 => {
                let t: Shape = vec![shape[1], shape[0]];
                format!("({}).T", self.expr(&t, depth - 1))
            }
            7 => {
                // where(a > b, a, b) with b broadcastable.
                let a = self.expr(shape, depth - 1);
                let other = self.broadcastable(shape);
                let b = self.expr(&other, depth - 1);
                let c = self.expr(&other, depth - 1);
                format!("where(({a}) > ({b}), {a}, {c})")
            }
            8 if shape.len() == 2 && shape[1] != "1" => {
                let axis = self.rng.below(2);
                if shape[axis] == "1" {
                    return self.leaf(shape);
                }
                let f = if self.rng.below(2) == 0 { "softmax" } else { "log_softmax" };
                format!("{f}({}, {axis})", self.expr(shape, depth - 1))
            }
            9 => self.matmul(shape, depth),
            _ => self.leaf(shape),
        }
    }

    fn matmul(&mut self, shape: &Shape, depth: usize) -> String {
        match shape.as_slice() {
            // [n, m] @ [m] -> [n]; [m] @ [m, k] -> [k]
            ["n"] => format!("({}) @ ({})", self.expr(&vec!["n", "m"], depth - 1), self.expr(&vec!["m"], depth - 1)),
            ["k"] => format!("({}) @ ({})", self.expr(&vec!["m"], depth - 1), self.expr(&vec!["m", "k"], depth - 1)),
            ["n", "k"] => format!("({}) @ ({})", self.expr(&vec!["n", "m"], depth - 1), self.expr(&vec!["m", "k"], depth - 1)),
            [] => format!("({}) @ ({})", self.expr(&vec!["m"], depth - 1), self.expr(&vec!["m"], depth - 1)),
            _ => self.leaf(shape),
        }
    }

    /// A shape that broadcasts against `shape`: itself, a suffix, a scalar, or with 1s.
    fn broadcastable(&mut self, shape: &Shape) -> Shape {
        match self.rng.below(4) {
            0 => Vec::new(),
            1 if !shape.is_empty() => shape[1..].to_vec(),
            2 => shape.iter().map(|d| if self.rng.below(2) == 0 { "1" } else { *d }).collect(),
            _ => shape.clone(),
        }
    }

    /// A shape with one more axis, reducing over which gives `shape`.
    fn grow(&mut self, shape: &Shape) -> Option<(Shape, usize)> {
        if shape.len() >= 2 {
            return None;
        }
        let dim = ["n", "m", "k"][self.rng.below(3)];
        let axis = self.rng.below(shape.len() + 1);
        let mut bigger = shape.clone();
        bigger.insert(axis, dim);
        Some((bigger, axis))
    }

    /// A parameter of exactly this shape, or a scalar (parameter or literal) broadcast to it.
    fn leaf(&mut self, shape: &Shape) -> String {
        let exact: Vec<&str> = params().into_iter().filter(|(_, s)| s == shape).map(|(n, _)| n).collect();
        if !exact.is_empty() && self.rng.below(4) != 0 {
            return exact[self.rng.below(exact.len())].to_string();
        }
        // `s * literal` keeps the program's dtype (a lone literal would be f64).
        let scalar = if self.rng.below(2) == 0 { "s".to_string() } else { format!("s * {:.2}", self.rng.float(-2.0, 2.0)) };
        if shape.is_empty() {
            return scalar;
        }
        format!("broadcast({scalar}, [{}])", shape.join(", "))
    }
}

/// A random well-typed program with `depth` levels of operations at most.
pub fn random_program(seed: u64, depth: usize) -> GeneratedProgram {
    let mut rng = Rng::new(seed);
    let dtype = if rng.below(2) == 0 { DType::F32 } else { DType::F64 };
    let out_shapes: [Shape; 5] = [vec!["n", "m"], vec!["m"], vec![], vec!["n"], vec!["n", "k"]];
    let shape = out_shapes[rng.below(out_shapes.len())].clone();
    let mut g = Gen { rng: &mut rng };
    let body = g.expr(&shape, depth);
    let d = dtype.name();
    let source = format!(
        "fn {FUNCTION}(x: {d}[n, m], y: {d}[m], z: {d}[n, 1], w: {d}[m, k], s: {d}) {{\n    {body}\n}}\n"
    );
    let sizes_choice = [0usize, 1, 2, 3, 5];
    let sizes = [
        sizes_choice[rng.below(5)],
        sizes_choice[rng.below(5)],
        sizes_choice[rng.below(5)],
    ];
    let [n, m, k] = sizes;
    let arg_shapes = vec![vec![n, m], vec![m], vec![n, 1], vec![m, k], vec![]];
    GeneratedProgram { source, dtype, sizes, arg_shapes }
}
