//! `gamma(x)`, Euler's Gamma function, built from arithmetic in `f64`.
//!
//! Gamma on [2, 3] is a Chebyshev expansion of ptl's own (`scripts/coefficients/gamma.py`,
//! mpmath). Above 3 the recurrence `Gamma(x + 1) = x Gamma(x)` climbs from `2 + frac(x)` in a
//! loop of at most 170 steps (an `scf.for` inside the element code: the product is kept as
//! a double-double, so the result is within a few ulps however many steps it takes); below 2
//! it divides by `x` (and `x + 1`), in (-1, 0) too. Below -1, the reflection
//! `Gamma(x) = pi / (-x sin(pi x) Gamma(-x))` with `sin(pi x)` reduced exactly. As SciPy:
//! NaN at the negative integers and at -inf, ±inf at ±0, inf past 171.62; ±0 where the
//! reflection's `Gamma(-x)` overflows (x < -171.62, where the true values are subnormal).
//! SciPy gives 0 from about -170.6 on, where the values are still normal (1e-308).

use melior::ir::operation::OperationBuilder;
use melior::ir::{Block, BlockLike, Region, RegionLike};

use super::bessel::chebyshev;
use super::fbuild::{F, V};
use super::lgamma::sin_pi;
use crate::error::Result;
use ptl_lang::DType;

const PI: f64 = std::f64::consts::PI;

/// Where Gamma overflows.
const OVERFLOW: f64 = 171.624_376_956_302_7;

const GAMMA_2_3: [f64; 18] = [
    2.8275644840489047,
    0.49172848008900727,
    0.08532454170609606,
    0.008214558154673682,
    0.0008879278094690782,
    5.6765679151886106e-05,
    5.264076190531452e-06,
    1.9612784848738765e-07,
    2.425465919964936e-08,
    -4.340584399846537e-11,
    1.2813542241531117e-10,
    -7.185158744735293e-12,
    9.878862168080628e-13,
    -8.935248942385424e-14,
    9.472673359391568e-15,
    -9.426686010233666e-16,
    9.59100989075118e-17,
    -9.677958042410815e-18,
];

/// `gamma(x)`.
pub fn gamma<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let neg = f.ltc(x, 0.0)?;
    let ax = f.abs(x)?;
    // In (-1, 0), `Gamma(x + 2) / (x (x + 1))`, which keeps tiny x from under- and
    // overflowing the reflection's factors.
    let near_zero = f.and(neg, f.gtc(x, -1.0)?)?;
    let g = positive(f, f.sel(near_zero, f.addc(x, 2.0)?, ax)?)?;
    let small = f.div(g, f.mul(x, f.addc(x, 1.0)?)?)?;
    // Reflection as `Gamma(x) = pi / (-x sin(pi x) Gamma(-x))`: `-x` is exact where `1 - x`
    // would be rounded (and Gamma magnifies that: 300 ulps near -127). For negative x,
    // `-x sin(pi x) = -|x| sin(pi |x|)`. A pole (a negative integer) gives NaN, as SciPy.
    let s = f.neg(f.mul(ax, sin_pi(f, ax)?)?)?;
    let reflected = f.div(f.div(f.c(PI)?, s)?, g)?;
    let pole = f.eq(x, f.floor(x)?)?;
    let reflected = f.sel(pole, f.c(f64::NAN)?, reflected)?;
    let r = f.sel(neg, f.sel(near_zero, small, reflected)?, g)?;
    // ±0 gives ±inf; -inf NaN (a pole too: floor(-inf) = -inf); inf and NaN pass through.
    let zero = f.eqc(x, 0.0)?;
    let r = f.sel(zero, f.copysign(f.c(f64::INFINITY)?, x)?, r)?;
    f.nan_through(x, r)
}

/// Gamma(y) for `y > 0` (inf from OVERFLOW on, and for inf; other arguments give values
/// the caller does not select).
fn positive<'c, 'a>(f: F<'_, 'c, 'a>, y: V<'c, 'a>) -> Result<V<'c, 'a>> {
    // A safe stand-in where the loop count would not be a small integer.
    let ok = f.and(f.gtc(y, 0.0)?, f.ltc(y, OVERFLOW)?)?;
    let y = f.sel(ok, y, f.c(2.5)?)?;
    let whole = f.floor(y)?;
    let base = f.addc(f.sub(y, whole)?, 2.0)?;
    let on_base = chebyshev(f, f.addc(f.mulc(base, 2.0)?, -5.0)?, &GAMMA_2_3)?;
    // From 3 on: times base, base + 1, ..., y - 1 (floor(y) - 2 factors, each exact).
    let steps = f.max(f.addc(whole, -2.0)?, f.c(0.0)?)?;
    let (hi, lo) = product(f, base, steps)?;
    let above = f.add(f.mul(on_base, hi)?, f.mul(on_base, lo)?)?;
    // Below 3: divided by y (in [1, 2)) or y (y + 1) (in (0, 1)).
    let one_two = f.div(on_base, y)?;
    let zero_one = f.div(on_base, f.mul(y, f.addc(y, 1.0)?)?)?;
    let r = f.sel(f.gec(y, 2.0)?, above, f.sel(f.gec(y, 1.0)?, one_two, zero_one)?)?;
    f.sel(ok, r, f.c(f64::INFINITY)?)
}

/// `base * (base + 1) * ... * (base + steps - 1)` as a double-double `(hi, lo)`, in a loop
/// (`steps` an integral `f64` in [0, 170]).
fn product<'c, 'a>(f: F<'_, 'c, 'a>, base: V<'c, 'a>, steps: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    let e = f.e;
    let index = e.index_type();
    let f64_ty = e.elem(DType::F64);
    let count = e.append(melior::dialect::arith::index_cast(f.to_int(steps)?, index, e.loc))?;
    let (lb, step) = (e.const_index(0)?, e.const_index(1)?);
    let init = [f.c(1.0)?, f.c(0.0)?, base];
    let body = Block::new(&[(index, e.loc), (f64_ty, e.loc), (f64_ty, e.loc), (f64_ty, e.loc)]);
    {
        let inner = crate::emitter::Emitter::new(e.ctx, &body, e.loc);
        let g = F::new(&inner);
        let (hi, lo, factor) = (body.argument(1)?.into(), body.argument(2)?.into(), body.argument(3)?.into());
        // (hi + lo) * factor, exactly to the rounding of the sum.
        let p = g.mul(hi, factor)?;
        let err = g.fma(hi, factor, g.neg(p)?)?;
        let tail = g.add(err, g.mul(lo, factor)?)?;
        let new_hi = g.add(p, tail)?;
        let new_lo = g.sub(tail, g.sub(new_hi, p)?)?;
        let next = g.addc(factor, 1.0)?;
        body.append_operation(melior::dialect::scf::r#yield(&[new_hi, new_lo, next], e.loc));
    }
    let region = Region::new();
    region.append_block(body);
    let op = OperationBuilder::new("scf.for", e.loc)
        .add_operands(&[lb, count, step, init[0], init[1], init[2]])
        .add_results(&[f64_ty, f64_ty, f64_ty])
        .add_regions([region])
        .build()?;
    let op = e.block.append_operation(op);
    Ok((op.result(0)?.into(), op.result(1)?.into()))
}
