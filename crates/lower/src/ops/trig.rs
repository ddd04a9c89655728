//! `sin` and `cos` built from arithmetic. IREE's CPU backend links no libm and has no f64
//! approximation of `math.sin`/`math.cos` (the link fails with "undefined symbol: sin"), and
//! its f32 one loses accuracy for large arguments. Both dtypes therefore compute in f64 with
//! fdlibm's method: Cody-Waite reduction by pi/2 in three parts, then the minimax kernels of
//! `k_sin.c` / `k_cos.c` on [-pi/4, pi/4]. Within |x| < 2^20 * pi/2 the reduction is exact to
//! the last bits, so results are within an ulp or so of libm's. Past that, as in libm, the
//! reduction is Payne-Hanek's (`large.rs`): `x * 2/pi` in 64-bit integer arithmetic with a
//! window of 2/pi's bits chosen by x's exponent, exact up to the largest finite `f64`.

use melior::dialect::arith::{self, CmpfPredicate};
use melior::dialect::ods::math;
use melior::ir::{Type, Value};
use ptl_lang::DType;

use crate::emitter::Emitter;
use crate::error::Result;

mod large;

/// The arguments a reduction must serve.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// Any `f64`.
    Any,
    /// Only `|x| < 2^20 * pi/2`: callers that reduced their argument themselves.
    Small,
}

/// Where the three-part reduction stops being exact.
const SMALL_LIMIT: f64 = 1_048_576.0 * PIO2_1;

// pi/2 in three parts of 33 bits each, and 2/pi (fdlibm's e_rem_pio2.c).
const PIO2_1: f64 = 1.570_796_326_734_125_614_17e+00;
const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11;
const PIO2_2T: f64 = 2.022_266_248_795_950_631_54e-21;
const PIO2_3: f64 = 2.022_266_248_711_166_455_80e-21;
const PIO2_3T: f64 = 8.478_427_660_368_899_569_97e-32;
const INV_PIO2: f64 = 6.366_197_723_675_813_824_33e-01;

// k_sin.c
const S: [f64; 6] = [
    -1.666_666_666_666_663_243_48e-01,
    8.333_333_333_322_489_461_24e-03,
    -1.984_126_982_985_794_931_34e-04,
    2.755_731_370_707_006_767_89e-06,
    -2.505_076_025_340_686_341_95e-08,
    1.589_690_995_211_550_102_21e-10,
];
// k_cos.c
const C: [f64; 6] = [
    4.166_666_666_666_660_190_37e-02,
    -1.388_888_888_887_410_957_49e-03,
    2.480_158_728_947_672_941_78e-05,
    -2.755_731_435_139_066_330_35e-07,
    2.087_572_321_298_174_827_90e-09,
    -1.135_964_755_778_819_482_65e-11,
];

/// `sin(x)` (or `cos(x)` when `cos`) of an element of dtype `dt` (f32 or f64).
pub fn sin_cos<'c, 'a>(e: &Emitter<'c, 'a>, dt: DType, x: Value<'c, 'a>, cos: bool) -> Result<Value<'c, 'a>> {
    let f64_ty: Type<'c> = e.elem(DType::F64);
    let x = if dt == DType::F32 { e.append(arith::extf(x, f64_ty, e.loc))? } else { x };
    let out = by_quadrant(e, &kernels(e, x, Range::Any)?, cos)?;
    if dt == DType::F32 {
        let f32_ty = e.elem(DType::F32);
        return e.append(melior::dialect::ods::arith::truncf(e.ctx, f32_ty, out, e.loc).into());
    }
    Ok(out)
}

/// `(sin(x), cos(x))` of an `f64` element, from one argument reduction.
pub fn sin_and_cos<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>, range: Range) -> Result<(Value<'c, 'a>, Value<'c, 'a>)> {
    let k = kernels(e, x, range)?;
    Ok((by_quadrant(e, &k, false)?, by_quadrant(e, &k, true)?))
}

/// `sin` (or `cos` when `cos`) of the reduced argument: the kernel its quadrant picks.
fn by_quadrant<'c, 'a>(e: &Emitter<'c, 'a>, k: &Kernels<'c, 'a>, cos: bool) -> Result<Value<'c, 'a>> {
    let Kernels { quadrant, sin: ks, cos: kc } = *k;
    let k = |v: f64| e.const_scalar(DType::F64, v);
    let is = |m: f64| -> Result<Value<'c, 'a>> {
        let c = k(m)?;
        e.append(arith::cmpf(e.ctx, CmpfPredicate::Oeq, quadrant, c, e.loc))
    };
    let neg_ks = e.append(arith::negf(ks, e.loc))?;
    let neg_kc = e.append(arith::negf(kc, e.loc))?;
    // sin: q0 ks, q1 kc, q2 -ks, q3 -kc; cos: q0 kc, q1 -ks, q2 -kc, q3 ks.
    let by_quadrant = if cos { [kc, neg_ks, neg_kc, ks] } else { [ks, kc, neg_ks, neg_kc] };
    let mut out = by_quadrant[3];
    for (m, v) in [(2.0, by_quadrant[2]), (1.0, by_quadrant[1]), (0.0, by_quadrant[0])] {
        let hit = is(m)?;
        out = e.append(arith::select(hit, v, out, e.loc))?;
    }
    Ok(out)
}

/// The reduced argument's kernels: `x = n * pi/2 + r`, `quadrant = n mod 4` (an `f64`), and
/// `sin(r)`, `cos(r)`.
#[derive(Clone, Copy)]
pub struct Kernels<'c, 'a> {
    pub quadrant: Value<'c, 'a>,
    pub sin: Value<'c, 'a>,
    pub cos: Value<'c, 'a>,
}

/// Reduces an `f64` `x` by pi/2 and evaluates both kernels.
pub fn kernels<'c, 'a>(e: &Emitter<'c, 'a>, x: Value<'c, 'a>, range: Range) -> Result<Kernels<'c, 'a>> {
    let k = |v: f64| e.const_scalar(DType::F64, v);
    let add = |a, b| e.append(arith::addf(a, b, e.loc));
    let sub = |a, b| e.append(arith::subf(a, b, e.loc));
    let mul = |a, b| e.append(arith::mulf(a, b, e.loc));

    // n = nearest integer to x * 2/pi; r + y = x - n * pi/2, as a head and a tail.
    let scaled = mul(x, k(INV_PIO2)?)?;
    let n = e.append(math::floor(e.ctx, add(scaled, k(0.5)?)?, e.loc).into())?;
    // fdlibm's three rounds: each subtracts the next 33 bits of pi/2 and carries the error.
    let mut r = sub(x, mul(n, k(PIO2_1)?)?)?;
    let mut w = k(0.0)?;
    for (part, tail) in [(PIO2_2, PIO2_2T), (PIO2_3, PIO2_3T)] {
        let t = r;
        let head = mul(n, k(part)?)?;
        r = sub(t, head)?;
        w = sub(mul(n, k(tail)?)?, sub(sub(t, r)?, head)?)?;
    }
    let head = sub(r, w)?;
    let y = sub(sub(r, head)?, w)?;
    let r = head;
    // n mod 4, in floating point (exact for every n a finite f64 gives; NaN for inf/NaN
    // input, whose r is NaN already).
    let quarter = e.append(math::floor(e.ctx, mul(n, k(0.25)?)?, e.loc).into())?;
    let quadrant = sub(n, mul(quarter, k(4.0)?)?)?;

    // Past SMALL_LIMIT, the exact reduction (inf and NaN stay on the path above).
    let (quadrant, r, y) = match range {
        Range::Small => (quadrant, r, y),
        Range::Any => {
            let f = crate::ops::fbuild::F::new(e);
            let ax = f.abs(x)?;
            let large = f.and(f.gec(ax, SMALL_LIMIT)?, f.ltc(ax, f64::INFINITY)?)?;
            let big = large::reduce(f, x)?;
            (f.sel(large, big.quadrant, quadrant)?, f.sel(large, big.head, r)?, f.sel(large, big.tail, y)?)
        }
    };

    // The kernels on [-pi/4, pi/4].
    let z = mul(r, r)?;
    let v = mul(z, r)?;
    // sin: r + (v*S1 + ... ) with the tail: r - ((z*(y/2 - v*p) - y) - v*S1)
    let mut p = k(S[5])?;
    for c in S[1..5].iter().rev() {
        p = add(k(*c)?, mul(z, p)?)?;
    }
    let half_y = mul(y, k(0.5)?)?;
    let inner = sub(half_y, mul(v, p)?)?;
    let t = sub(mul(z, inner)?, y)?;
    let t = sub(t, mul(v, k(S[0])?)?)?;
    let ks = sub(r, t)?;
    // cos: w + (((1 - w) - z/2) + (z*q - r*y)), w = 1 - z/2
    let mut q = k(C[5])?;
    for c in C[..5].iter().rev() {
        q = add(k(*c)?, mul(z, q)?)?;
    }
    let q = mul(z, q)?;
    let hz = mul(z, k(0.5)?)?;
    let one = k(1.0)?;
    let wc = sub(one, hz)?;
    let corr = add(sub(sub(one, wc)?, hz)?, sub(mul(z, q)?, mul(r, y)?)?)?;
    let kc = add(wc, corr)?;

    Ok(Kernels { quadrant, sin: ks, cos: kc })
}
