//! Which engine answers an input: the reference interpreter for small work (no compile, an
//! answer in milliseconds) or IREE for large work (a compile, then fast kernels). The two give
//! the same results (the differential tests hold them to it), so the choice shows only in
//! speed; `:mode` shows it or forces one.

use ptl_lang::typed::{TBlock, TExpr, TExprKind, TFn, TProgram};
use ptl_lang::ops::Op;
use ptl_lang::{Dim, TensorType, Value};

/// How the REPL chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The interpreter when the estimated work is at most [`SMALL_WORK`], else compiled.
    Auto,
    Interp,
    Compiled,
}

/// The engine chosen for one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Interp,
    Compiled,
}

/// Element operations the interpreter finishes in a few milliseconds.
pub const SMALL_WORK: f64 = 1e6;

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "auto" => Some(Mode::Auto),
            "interp" | "interpreted" => Some(Mode::Interp),
            "compiled" | "compile" | "iree" => Some(Mode::Compiled),
            _ => None,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Mode::Auto => "auto: the interpreter for small work, IREE for large work",
            Mode::Interp => "interp: every input by the reference interpreter",
            Mode::Compiled => "compiled: every input compiled through IREE",
        }
    }

    /// The engine for calling `f` of `prog`.
    pub fn choose(self, prog: &TProgram, f: &TFn) -> Tier {
        match self {
            Mode::Interp => Tier::Interp,
            Mode::Compiled => Tier::Compiled,
            Mode::Auto if work(prog, f) <= SMALL_WORK => Tier::Interp,
            Mode::Auto => Tier::Compiled,
        }
    }
}

/// An estimate of the element operations of calling `f`, whose parameters have static
/// types; infinite when a loop's trip count is not a literal. A `?` dim counts as the
/// largest static dim of the parameters (its bound for slices, the usual source of `?`).
pub fn work(prog: &TProgram, f: &TFn) -> f64 {
    let unknown = f
        .params
        .iter()
        .flat_map(|p| p.ty.dims.iter().filter_map(Dim::as_static))
        .max()
        .unwrap_or(1) as f64;
    Estimate { prog, unknown }.block(&f.body)
}

struct Estimate<'p> {
    prog: &'p TProgram,
    unknown: f64,
}

impl Estimate<'_> {
    fn elements(&self, ty: &TensorType) -> f64 {
        ty.dims.iter().map(|d| d.as_static().map_or(self.unknown, |n| n as f64)).product()
    }

    fn block(&self, b: &TBlock) -> f64 {
        b.lets.iter().map(|l| self.expr(&l.value)).sum::<f64>() + b.results.iter().map(|e| self.expr(e)).sum::<f64>()
    }

    fn expr(&self, e: &TExpr) -> f64 {
        let operands: f64 = e.children().iter().map(|c| self.expr(c)).sum();
        let own = match &e.kind {
            TExprKind::Literal(_) | TExprKind::Var(_) | TExprKind::DimValue(_) => 0.0,
            TExprKind::Op(Op::MatMul, args) => {
                let inner = args[0].ty.dims.last().map_or(1.0, |d| d.as_static().map_or(self.unknown, |n| n as f64));
                self.elements(&e.ty) * inner
            }
            TExprKind::Op(_, args) => args.iter().map(|a| self.elements(&a.ty)).fold(self.elements(&e.ty), f64::max),
            TExprKind::Call(name, args) | TExprKind::CallMulti(name, args, _) => {
                let data: f64 = args.iter().map(|a| self.elements(&a.ty)).sum::<f64>()
                    + e.result_types().iter().map(|t| self.elements(t)).sum::<f64>();
                let nodes = self.prog.function(name).map_or(1, |f| nodes(&f.body)) as f64;
                data * nodes
            }
            TExprKind::Loop(l) => {
                let trips = match (literal_int(&l.start), literal_int(&l.stop)) {
                    (Some(a), Some(b)) => (b - a).max(0) as f64,
                    _ => return f64::INFINITY,
                };
                // The loop's own operands (init, bounds, body) are in `children`; the body
                // runs `trips` times.
                return operands - self.block(&l.body) + trips * self.block(&l.body);
            }
            // Both blocks are counted among the operands; only one runs.
            TExprKind::If(_) | TExprKind::Tuple(_) => 0.0,
        };
        operands + own
    }
}

/// The number of expression nodes of a block (calls count as one).
fn nodes(b: &TBlock) -> usize {
    fn count(e: &TExpr) -> usize {
        1 + e.children().iter().map(|c| count(c)).sum::<usize>()
    }
    b.lets.iter().map(|l| count(&l.value)).sum::<usize>() + b.results.iter().map(count).sum::<usize>()
}

fn literal_int(e: &TExpr) -> Option<i64> {
    match &e.kind {
        TExprKind::Literal(Value::I64(a)) if a.ndim() == 0 => a.first().copied(),
        TExprKind::Literal(Value::I32(a)) if a.ndim() == 0 => a.first().map(|&v| i64::from(v)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(src: &str) -> f64 {
        let prog = ptl_lang::frontend(src).unwrap_or_else(|d| panic!("{d:?}"));
        let f = prog.function("g").expect("g");
        work(&prog, f)
    }

    #[test]
    fn work_grows_with_the_data_and_the_op() {
        // Two elementwise ops over 1,000 elements, and the broadcasts of their scalars.
        let w = estimate("fn g(x: f64[1000]) -> f64[1000] { x * 2.0 + 1.0 }");
        assert!((2000.0..=4000.0).contains(&w), "{w}");
        // A 100x100 matrix product: 100 * 100 results of 100 multiply-adds each.
        assert_eq!(estimate("fn g(a: f64[100, 100]) -> f64[100, 100] { a @ a }"), 1e6);
        // A reduction reads its whole operand.
        assert_eq!(estimate("fn g(x: f64[10, 10]) -> f64 { sum(x) }"), 100.0);
    }

    #[test]
    fn loops_multiply_their_body_and_unknown_trip_counts_are_large() {
        let fixed = estimate("fn g(x: f64[10]) -> f64[10] { loop s = x for i in 0..50 { s * 2.0 } }");
        assert!((500.0..=1500.0).contains(&fixed), "{fixed}");
        let open = estimate("fn g(x: f64[10], k: i64) -> f64[10] { loop s = x for i in 0..k { s * 2.0 } }");
        assert!(open.is_infinite());
    }

    #[test]
    fn the_mode_decides_when_forced() {
        let src = "fn g(x: f64[2000, 2000]) -> f64[2000, 2000] { x @ x }";
        let prog = ptl_lang::frontend(src).expect("checks");
        let f = prog.function("g").expect("g");
        assert_eq!(Mode::Auto.choose(&prog, f), Tier::Compiled);
        assert_eq!(Mode::Interp.choose(&prog, f), Tier::Interp);
        let small = ptl_lang::frontend("fn g(x: f64[3]) -> f64[3] { x + 1.0 }").expect("checks");
        assert_eq!(Mode::Auto.choose(&small, small.function("g").expect("g")), Tier::Interp);
        assert_eq!(Mode::Compiled.choose(&small, small.function("g").expect("g")), Tier::Compiled);
        assert_eq!(Mode::parse("compiled"), Some(Mode::Compiled));
        assert_eq!(Mode::parse("fast"), None);
    }
}
