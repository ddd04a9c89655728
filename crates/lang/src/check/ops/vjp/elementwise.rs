//! Derivatives of the elementwise ops. Subgradients: `abs` and `sign` have derivative `sign(x)`
//! and 0 (0 at 0); `maximum`/`minimum` (and so `clip`) send the whole cotangent to the first
//! operand where the operands tie; the rounding ops, comparisons and logical ops have
//! derivative 0. `gammaln`'s derivative is `digamma`, `digamma`'s `trigamma`, `trigamma`'s
//! `polygamma(2, x)` and `polygamma(n, x)`'s `polygamma(n + 1, x)`.

use std::f64::consts::{LN_2, LN_10, PI};

use super::{Grads, Node};
use crate::ad::build::Builder;
use crate::ops::{BinaryOp, Op, TernaryOp, UnaryOp};
use crate::typed::TExpr;

pub(super) fn vjp(op: &Op, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    match op {
        Op::Unary(u) => Ok(vec![unary(*u, b, n.x().clone(), n.out.clone(), ct)?]),
        Op::Binary(o) => binary(*o, b, n, ct),
        Op::Ternary(t @ (TernaryOp::Betainc | TernaryOp::Betaincinv)) => {
            let inverse = *t == TernaryOp::Betaincinv;
            if n.active[0] || n.active[1] {
                let wrt = if inverse { "y" } else { "x" };
                return Err(format!("`{}` has no derivative in its operands `a` and `b` in ptl; the derivative in `{wrt}` is available", t.name()));
            }
            // d/dx I_x(a, b) = x^(a - 1) (1 - x)^(b - 1) / B(a, b), the Beta density; with
            // x = betaincinv(a, b, y), dx/dy is one over it at x.
            let g = n.active[2].then(|| {
                let (a, bb) = (n.args[0].clone(), n.args[1].clone());
                let x = if inverse { n.out.clone() } else { n.args[2].clone() };
                let t = log_beta_density(b, a, bb, x);
                let t = if inverse { b.neg(t) } else { t };
                let d = b.un(UnaryOp::Exp, t);
                b.mul(ct, d)
            });
            Ok(vec![None, None, g])
        }
        Op::Select => {
            let c = n.args[0].clone();
            let ga = n.active[1].then(|| b.keep(c.clone(), ct.clone()));
            let gb = if n.active[2] {
                let nc = b.un(UnaryOp::LogicalNot, c);
                Some(b.keep(nc, ct))
            } else {
                None
            };
            Ok(vec![None, ga, gb])
        }
        Op::Cast => {
            let x = n.x();
            let flows = x.ty.dtype.is_float() && n.out.ty.dtype.is_float();
            Ok(vec![flows.then(|| b.cast(ct, x.ty.dtype))])
        }
        _ => Err(format!("`{}` has no derivative yet", op.name())),
    }
}

/// `ct * d/dx u(x)`, where `y = u(x)`.
fn unary(u: UnaryOp, b: &mut Builder, x: TExpr, y: TExpr, ct: TExpr) -> Result<Option<TExpr>, String> {
    use UnaryOp::*;
    let one = b.lit(x.ty.dtype, 1.0);
    let g = match u {
        Neg => b.neg(ct),
        Exp => b.mul(ct, y),
        Log => b.div(ct, x),
        Log1p => {
            let d = b.add(x, one.clone());
            b.div(ct, d)
        }
        Sqrt => {
            let d = b.scale(y, 2.0);
            b.div(ct, d)
        }
        Tanh => {
            let y2 = b.mul(y.clone(), y);
            let d = b.sub(one.clone(), y2);
            b.mul(ct, d)
        }
        Abs => {
            let s = b.un(Sign, x);
            b.mul(ct, s)
        }
        Sigmoid => {
            let c = b.sub(one.clone(), y.clone());
            let d = b.mul(y, c);
            b.mul(ct, d)
        }
        Sin => {
            let d = b.un(Cos, x);
            b.mul(ct, d)
        }
        Cos => {
            let s = b.un(Sin, x);
            let d = b.neg(s);
            b.mul(ct, d)
        }
        Tan => {
            let y2 = b.mul(y.clone(), y);
            let d = b.add(one.clone(), y2);
            b.mul(ct, d)
        }
        Arcsin | Arccos => {
            let x2 = b.mul(x.clone(), x);
            let r = b.sub(one.clone(), x2);
            let r = b.un(Sqrt, r);
            let g = b.div(ct, r);
            if u == Arccos { b.neg(g) } else { g }
        }
        Arctan => {
            let x2 = b.mul(x.clone(), x);
            let d = b.add(one.clone(), x2);
            b.div(ct, d)
        }
        Sinh => {
            let d = b.un(Cosh, x);
            b.mul(ct, d)
        }
        Cosh => {
            let d = b.un(Sinh, x);
            b.mul(ct, d)
        }
        Arcsinh | Arccosh => {
            let x2 = b.mul(x.clone(), x);
            let r = if u == Arcsinh { b.add(x2, one.clone()) } else { b.sub(x2, one.clone()) };
            let r = b.un(Sqrt, r);
            b.div(ct, r)
        }
        Arctanh => {
            let x2 = b.mul(x.clone(), x);
            let d = b.sub(one.clone(), x2);
            b.div(ct, d)
        }
        Exp2 => {
            let d = b.scale(y, LN_2);
            b.mul(ct, d)
        }
        Expm1 => {
            let d = b.add(y, one.clone());
            b.mul(ct, d)
        }
        Log2 | Log10 => {
            let d = b.scale(x, if u == Log2 { LN_2 } else { LN_10 });
            b.div(ct, d)
        }
        Cbrt => {
            let y2 = b.mul(y.clone(), y);
            let d = b.scale(y2, 3.0);
            b.div(ct, d)
        }
        Square => {
            let d = b.scale(x, 2.0);
            b.mul(ct, d)
        }
        Reciprocal => {
            let y2 = b.mul(y.clone(), y);
            let d = b.neg(y2);
            b.mul(ct, d)
        }
        Erf | Erfc => {
            let x2 = b.mul(x.clone(), x);
            let e = b.neg(x2);
            let e = b.un(Exp, e);
            let c = if u == Erf { 2.0 } else { -2.0 } / PI.sqrt();
            let d = b.scale(e, c);
            b.mul(ct, d)
        }
        Erfcx => {
            // d/dx erfcx(x) = 2 x erfcx(x) - 2 / sqrt(pi)
            let xy = b.mul(x, y);
            let two_xy = b.scale(xy, 2.0);
            let c = b.lit(two_xy.ty.dtype, 2.0 / PI.sqrt());
            let d = b.sub(two_xy, c);
            b.mul(ct, d)
        }
        Log1mexp => {
            // d/dx log(1 - e^x) = -1 / expm1(-x)
            let m = b.neg(x);
            let d = b.un(Expm1, m);
            let g = b.div(ct, d);
            b.neg(g)
        }
        Softplus => {
            let d = b.un(Sigmoid, x);
            b.mul(ct, d)
        }
        Sign | Floor | Ceil | Round | Trunc => return Ok(None),
        Isnan | Isinf | Isfinite | LogicalNot => return Ok(None),
        Gamma => {
            // gamma' = gamma digamma
            let d = b.un(Digamma, x);
            let d = b.mul(y, d);
            b.mul(ct, d)
        }
        Gammaln => {
            let d = b.un(Digamma, x);
            b.mul(ct, d)
        }
        Erfinv => {
            // d/dx erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x)^2)
            let y2 = b.mul(y.clone(), y);
            let e = b.un(Exp, y2);
            let d = b.scale(e, PI.sqrt() / 2.0);
            b.mul(ct, d)
        }
        I0 => {
            let d = b.un(I1, x);
            b.mul(ct, d)
        }
        J0 => {
            let d = b.un(J1, x);
            let g = b.mul(ct, d);
            b.neg(g)
        }
        I1 | J1 => {
            // i1' = i0 - i1 / x and j1' = j0 - j1 / x, both 1/2 at 0.
            let d0 = b.un(if u == I1 { I0 } else { J0 }, x.clone());
            let q = b.div(y, x.clone());
            let d = b.sub(d0, q);
            let d = half_at_zero(b, x, d);
            b.mul(ct, d)
        }
        I0e => {
            // i0e' = i1e - sign(x) i0e
            let d1 = b.un(I1e, x.clone());
            let s = b.un(Sign, x);
            let sy = b.mul(s, y);
            let d = b.sub(d1, sy);
            b.mul(ct, d)
        }
        I1e => {
            // i1e' = i0e - i1e (sign(x) + 1 / x), 1/2 at 0
            let d0 = b.un(I0e, x.clone());
            let s = b.un(Sign, x.clone());
            let r = b.div(one.clone(), x.clone());
            let f = b.add(s, r);
            let yf = b.mul(y, f);
            let d = b.sub(d0, yf);
            let d = half_at_zero(b, x, d);
            b.mul(ct, d)
        }
        Erfcinv => {
            // d/dz erfcinv(z) = -sqrt(pi) / 2 * exp(erfcinv(z)^2)
            let y2 = b.mul(y.clone(), y);
            let e = b.un(Exp, y2);
            let d = b.scale(e, -PI.sqrt() / 2.0);
            b.mul(ct, d)
        }
        Digamma => {
            let d = b.un(Trigamma, x);
            b.mul(ct, d)
        }
        Trigamma => {
            // trigamma' = polygamma(2, x)
            let two = b.lit(x.ty.dtype, 2.0);
            let d = b.bin(BinaryOp::Polygamma, two, x);
            b.mul(ct, d)
        }
    };
    Ok(Some(g))
}

/// `d`, but 1/2 where `x` is 0: the derivatives of `i1`, `i1e` and `j1` there, where their
/// formulas divide 0 by 0.
/// `log` of the Gamma(a) density at `x`: `(a - 1) log x - x - gammaln(a)`.
fn log_gamma_density(b: &mut Builder, a: TExpr, x: TExpr) -> TExpr {
    let one = b.lit(a.ty.dtype, 1.0);
    let am1 = b.sub(a.clone(), one);
    let l = b.un(UnaryOp::Log, x.clone());
    let t = b.mul(am1, l);
    let t = b.sub(t, x);
    let g = b.un(UnaryOp::Gammaln, a);
    b.sub(t, g)
}

/// `log` of the Beta(a, bb) density at `x`: `(a - 1) log x + (bb - 1) log1p(-x) - log B(a, bb)`.
fn log_beta_density(b: &mut Builder, a: TExpr, bb: TExpr, x: TExpr) -> TExpr {
    let one = b.lit(x.ty.dtype, 1.0);
    let am1 = b.sub(a.clone(), one.clone());
    let bm1 = b.sub(bb.clone(), one);
    let lx = b.un(UnaryOp::Log, x.clone());
    let mx = b.neg(x);
    let l1x = b.un(UnaryOp::Log1p, mx);
    let t1 = b.mul(am1, lx);
    let t2 = b.mul(bm1, l1x);
    let t = b.add(t1, t2);
    let ga = b.un(UnaryOp::Gammaln, a.clone());
    let gb = b.un(UnaryOp::Gammaln, bb.clone());
    let ab = b.add(a, bb);
    let gab = b.un(UnaryOp::Gammaln, ab);
    let t = b.add(t, gab);
    let t = b.sub(t, ga);
    b.sub(t, gb)
}

fn half_at_zero(b: &mut Builder, x: TExpr, d: TExpr) -> TExpr {
    let zero = b.lit(x.ty.dtype, 0.0);
    let half = b.lit(x.ty.dtype, 0.5);
    let at_zero = b.bin(BinaryOp::Eq, x, zero);
    b.select(at_zero, half, d)
}

fn binary(o: BinaryOp, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
    use BinaryOp::*;
    let (x, y, out) = (n.args[0].clone(), n.args[1].clone(), n.out.clone());
    let (ax, ay) = (n.active[0], n.active[1]);
    let (gx, gy) = match o {
        Add => (Some(ct.clone()), Some(ct)),
        Sub => (Some(ct.clone()), ay.then(|| b.neg(ct))),
        Mul => (ax.then(|| b.mul(ct.clone(), y.clone())), ay.then(|| b.mul(ct, x))),
        Div => {
            let gx = b.div(ct.clone(), y.clone());
            let gy = ay.then(|| {
                let q = b.mul(gx.clone(), out);
                b.neg(q)
            });
            (Some(gx), gy)
        }
        Pow => {
            let gx = ax.then(|| {
                let one = b.lit(y.ty.dtype, 1.0);
                let e = b.sub(y.clone(), one);
                let p = b.bin(Pow, x.clone(), e);
                let d = b.mul(y.clone(), p);
                b.mul(ct.clone(), d)
            });
            let gy = ay.then(|| {
                let l = b.un(UnaryOp::Log, x);
                let d = b.mul(out, l);
                b.mul(ct, d)
            });
            (gx, gy)
        }
        Maximum | Minimum => {
            let first = b.bin(if o == Maximum { Ge } else { Le }, x, y);
            let gx = ax.then(|| b.keep(first.clone(), ct.clone()));
            let gy = ay.then(|| {
                let second = b.un(UnaryOp::LogicalNot, first);
                b.keep(second, ct)
            });
            (gx, gy)
        }
        Arctan2 => {
            // out = atan2(x, y): d/dx = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2)
            let x2 = b.mul(x.clone(), x.clone());
            let y2 = b.mul(y.clone(), y.clone());
            let r = b.add(x2, y2);
            let s = b.div(ct, r);
            let gx = ax.then(|| b.mul(s.clone(), y));
            let gy = ay.then(|| {
                let t = b.mul(s, x);
                b.neg(t)
            });
            (gx, gy)
        }
        Mod => {
            let gy = ay.then(|| {
                let q = b.bin(FloorDivide, x, y);
                let t = b.mul(ct.clone(), q);
                b.neg(t)
            });
            (Some(ct), gy)
        }
        Logaddexp => {
            let gx = ax.then(|| {
                let d = b.sub(x, out.clone());
                let e = b.un(UnaryOp::Exp, d);
                b.mul(ct.clone(), e)
            });
            let gy = ay.then(|| {
                let d = b.sub(y, out);
                let e = b.un(UnaryOp::Exp, d);
                b.mul(ct, e)
            });
            (gx, gy)
        }
        Polygamma => {
            if ax {
                return Err("`polygamma` has no derivative in its order `n`; the derivative in `x` is available".into());
            }
            // d/dx polygamma(n, x) = polygamma(n + 1, x)
            let gy = ay.then(|| {
                let one = b.lit(x.ty.dtype, 1.0);
                let n1 = b.add(x, one);
                let d = b.bin(Polygamma, n1, y);
                b.mul(ct, d)
            });
            (None, gy)
        }
        Gammainc | Gammaincc | Gammaincinv | Gammainccinv => {
            let inverse = matches!(o, Gammaincinv | Gammainccinv);
            if ax {
                let wrt = if inverse { "y" } else { "x" };
                return Err(format!(
                    "`{}` has no derivative in its first operand `a` in ptl; the derivative in `{wrt}` is available",
                    o.name()
                ));
            }
            // d/dx P(a, x) = -d/dx Q(a, x) = x^(a - 1) e^-x / Gamma(a), the Gamma density; with
            // x = gammaincinv(a, y), dx/dy is one over it at x (negated for gammainccinv).
            let gy = ay.then(|| {
                let at = if inverse { out } else { y };
                let t = log_gamma_density(b, x, at);
                let t = if inverse { b.neg(t) } else { t };
                let d = b.un(UnaryOp::Exp, t);
                let g = b.mul(ct, d);
                if matches!(o, Gammaincc | Gammainccinv) { b.neg(g) } else { g }
            });
            (None, gy)
        }
        Kv | Kve => {
            if ax {
                return Err(format!("`{}` has no derivative in its order `v`; the derivative in `x` is available", o.name()));
            }
            // d/dx K_v(x) = -K_(v-1)(x) - (v / x) K_v(x), from the recurrences; for kve, whose
            // exp(x) adds kve itself: (1 - v / x) kve(v, x) - kve(v - 1, x) (PyTensor's form).
            let gy = ay.then(|| {
                let one = b.lit(x.ty.dtype, 1.0);
                let below = b.sub(x.clone(), one);
                let lower = b.bin(o, below, y.clone());
                let ratio = b.div(x, y);
                let scaled = b.mul(ratio, out.clone());
                let both = b.add(lower, scaled);
                let d = if o == Kve { b.sub(out, both) } else { b.neg(both) };
                b.mul(ct, d)
            });
            (None, gy)
        }
        OwensT => {
            // d/dh T(h, a) = -exp(-h^2 / 2) erf(a h / sqrt 2) / (2 sqrt(2 pi)),
            // d/da T(h, a) = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)).
            let dt = x.ty.dtype;
            let half_h2 = {
                let h2 = b.mul(x.clone(), x.clone());
                let half = b.lit(dt, 0.5);
                b.mul(h2, half)
            };
            let gx = ax.then(|| {
                let e = {
                    let m = b.neg(half_h2.clone());
                    b.un(UnaryOp::Exp, m)
                };
                let ah = b.mul(y.clone(), x.clone());
                let r = b.lit(dt, std::f64::consts::FRAC_1_SQRT_2);
                let z = b.mul(ah, r);
                let erf = b.un(UnaryOp::Erf, z);
                let c = b.lit(dt, -1.0 / (2.0 * (2.0 * std::f64::consts::PI).sqrt()));
                let d = b.mul(e, erf);
                let d = b.mul(d, c);
                b.mul(ct.clone(), d)
            });
            let gy = ay.then(|| {
                let one = b.lit(dt, 1.0);
                let a2 = b.mul(y.clone(), y);
                let q = b.add(one, a2);
                let m = b.mul(half_h2, q.clone());
                let m = b.neg(m);
                let e = b.un(UnaryOp::Exp, m);
                let two_pi = b.lit(dt, 2.0 * std::f64::consts::PI);
                let den = b.mul(two_pi, q);
                let d = b.div(e, den);
                b.mul(ct, d)
            });
            (gx, gy)
        }
        FloorDivide | Lt | Le | Gt | Ge | Eq | Ne | LogicalAnd | LogicalOr | LogicalXor => (None, None),
    };
    Ok(vec![gx, gy])
}
