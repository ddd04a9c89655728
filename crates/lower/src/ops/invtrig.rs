//! `tan`, `arctan`, `arcsin`, `arccos` and `arctan2` built from arithmetic in `f64` (IREE's
//! CPU backend has no `f64` `math.atan`/`asin`/`tan`: the link fails on the libm symbol).
//!
//! Provenance: `arctan` is fdlibm's `s_atan.c` (argument reduction to four intervals around
//! atan(0.5), atan(1), atan(1.5) and atan(inf) with hi/lo table values, then the 11-term odd
//! minimax polynomial); `arcsin`/`arccos` are fdlibm's `e_asin.c`/`e_acos.c` (the rational
//! approximation pS/qS of (asin(x) - x) / x^3, with the half-angle reduction near ±1);
//! `arctan2` is fdlibm's `e_atan2.c` reduced to `atan(|y| / |x|)` plus the quadrant
//! corrections with pi's low part; `tan` is `sin / cos` of the kernels of `trig.rs` (each
//! within an ulp, so the quotient is within a few). Every branch is computed and the right
//! one selected.

use super::fbuild::{F, V};
use super::trig::{self, Range};
use crate::error::Result;

const ATANHI: [f64; 4] = [
    4.636_476_090_008_060_935_15e-01,
    7.853_981_633_974_482_789_99e-01,
    9.827_937_232_473_290_540_82e-01,
    1.570_796_326_794_896_558_00e+00,
];
const ATANLO: [f64; 4] = [
    2.269_877_745_296_168_709_24e-17,
    3.061_616_997_868_383_017_93e-17,
    1.390_331_103_123_099_845_16e-17,
    6.123_233_995_736_766_035_87e-17,
];
const AT: [f64; 11] = [
    3.333_333_333_333_293_180_27e-01,
    -1.999_999_999_987_648_324_76e-01,
    1.428_571_427_250_346_637_11e-01,
    -1.111_111_040_546_235_578_80e-01,
    9.090_887_133_436_506_561_96e-02,
    -7.691_876_205_044_829_994_95e-02,
    6.661_073_137_387_531_206_69e-02,
    -5.833_570_133_790_573_486_45e-02,
    4.976_877_994_615_932_360_17e-02,
    -3.653_157_274_421_691_552_70e-02,
    1.628_582_011_536_578_236_23e-02,
];
const PIO2_HI: f64 = 1.570_796_326_794_896_558_00e+00;
const PIO2_LO: f64 = 6.123_233_995_736_766_035_87e-17;
const PI: f64 = 3.141_592_653_589_793_115_997_96e+00;
const PI_LO: f64 = 1.224_646_799_147_353_207_2e-16;
// pS0..pS5 and 1, qS1..qS4 of e_asin.c.
const PS: [f64; 6] = [
    1.666_666_666_666_666_574_15e-01,
    -3.255_658_186_224_009_154_05e-01,
    2.012_125_321_348_629_258_81e-01,
    -4.005_553_450_067_941_140_27e-02,
    7.915_349_942_898_145_321_76e-04,
    3.479_331_075_960_211_675_70e-05,
];
const QS: [f64; 5] = [
    1.0,
    -2.403_394_911_734_414_218_78e+00,
    2.020_945_760_233_505_694_71e+00,
    -6.882_839_716_054_532_930_30e-01,
    7.703_815_055_590_193_527_91e-02,
];

/// `(asin(x) - x) / x^3`-type ratio `z * P(z) / Q(z)` of e_asin.c.
fn ratio<'c, 'a>(f: F<'_, 'c, 'a>, z: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let p = f.mul(z, f.poly(z, &PS)?)?;
    let q = f.poly(z, &QS)?;
    f.div(p, q)
}

/// `arctan(x)` (fdlibm `s_atan.c`).
pub fn atan<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let one = f.c(1.0)?;
    // The reduced argument t and the interval id, from the widest interval inwards.
    let t3 = f.div(f.c(-1.0)?, ax)?;
    let t2 = f.div(f.addc(ax, -1.5)?, f.add(one, f.mulc(ax, 1.5)?)?)?;
    let t1 = f.div(f.addc(ax, -1.0)?, f.addc(ax, 1.0)?)?;
    let t0 = f.div(f.addc(f.mulc(ax, 2.0)?, -1.0)?, f.addc(ax, 2.0)?)?;
    let bounds = [(2.4375, t2, 2), (1.1875, t1, 1), (0.6875, t0, 0)];
    let (mut t, mut hi, mut lo) = (t3, f.c(ATANHI[3])?, f.c(ATANLO[3])?);
    for (b, tb, id) in bounds {
        let below = f.ltc(ax, b)?;
        t = f.sel(below, tb, t)?;
        hi = f.sel(below, f.c(ATANHI[id])?, hi)?;
        lo = f.sel(below, f.c(ATANLO[id])?, lo)?;
    }
    let direct = f.ltc(ax, 0.4375)?;
    let t = f.sel(direct, ax, t)?;
    let z = f.mul(t, t)?;
    let w = f.mul(z, z)?;
    let even: Vec<f64> = AT.iter().step_by(2).copied().collect();
    let odd: Vec<f64> = AT.iter().skip(1).step_by(2).copied().collect();
    let s1 = f.mul(z, f.poly(w, &even)?)?;
    let s2 = f.mul(w, f.poly(w, &odd)?)?;
    let ts = f.mul(t, f.add(s1, s2)?)?;
    let small = f.sub(t, ts)?;
    let reduced = f.sub(hi, f.sub(f.sub(ts, lo)?, t)?)?;
    let r = f.sel(direct, small, reduced)?;
    let r = f.copysign(r, x)?;
    f.nan_through(x, r)
}

/// `arcsin(x)` (fdlibm `e_asin.c`); NaN outside [-1, 1].
pub fn asin<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    // |x| < 0.5: x + x * R(x^2)
    let small = f.add(ax, f.mul(ax, ratio(f, f.mul(ax, ax)?)?)?)?;
    // 0.5 <= |x| < 1: z = (1 - |x|) / 2, s = sqrt(z)
    let z = f.mulc(f.sub(f.c(1.0)?, ax)?, 0.5)?;
    let s = f.sqrt(z)?;
    let r = ratio(f, z)?;
    let near_one = f.sub(f.c(PIO2_HI)?, f.sub(f.mulc(f.add(s, f.mul(s, r)?)?, 2.0)?, f.c(PIO2_LO)?)?)?;
    let w = f.high_word_only(s)?;
    let c = f.div(f.sub(z, f.mul(w, w)?)?, f.add(s, w)?)?;
    let p = f.sub(f.mulc(f.mul(s, r)?, 2.0)?, f.sub(f.c(PIO2_LO)?, f.mulc(c, 2.0)?)?)?;
    let q = f.sub(f.c(0.5 * PIO2_HI)?, f.mulc(w, 2.0)?)?;
    let middle = f.sub(f.c(0.5 * PIO2_HI)?, f.sub(p, q)?)?;
    let big = f.sel(f.gec(ax, 0.975)?, near_one, middle)?;
    let res = f.sel(f.ltc(ax, 0.5)?, small, big)?;
    let res = f.sel(f.eqc(ax, 1.0)?, f.c(PIO2_HI)?, res)?;
    let res = f.sel(f.gtc(ax, 1.0)?, f.c(f64::NAN)?, res)?;
    let res = f.copysign(res, x)?;
    f.nan_through(x, res)
}

/// `arccos(x)` (fdlibm `e_acos.c`); NaN outside [-1, 1].
pub fn acos<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let pio2_lo = f.c(PIO2_LO)?;
    // |x| < 0.5: pi/2 - (x - (pio2_lo - x * R(x^2)))
    let small = f.sub(f.c(PIO2_HI)?, f.sub(x, f.sub(pio2_lo, f.mul(x, ratio(f, f.mul(x, x)?)?)?)?)?)?;
    // x < -0.5: z = (1 + x) / 2; pi - 2 (s + (R(z) s - pio2_lo))
    let zn = f.mulc(f.addc(x, 1.0)?, 0.5)?;
    let sn = f.sqrt(zn)?;
    let wn = f.sub(f.mul(ratio(f, zn)?, sn)?, pio2_lo)?;
    let negative = f.mulc(f.sub(f.c(PIO2_HI)?, f.add(sn, wn)?)?, 2.0)?;
    // x > 0.5: z = (1 - x) / 2; 2 (df + (R(z) s + c)) with df + c = sqrt(z)
    let zp = f.mulc(f.sub(f.c(1.0)?, x)?, 0.5)?;
    let sp = f.sqrt(zp)?;
    let df = f.high_word_only(sp)?;
    let c = f.div(f.sub(zp, f.mul(df, df)?)?, f.add(sp, df)?)?;
    let wp = f.add(f.mul(ratio(f, zp)?, sp)?, c)?;
    let positive = f.mulc(f.add(df, wp)?, 2.0)?;
    let big = f.sel(f.ltc(x, 0.0)?, negative, positive)?;
    let res = f.sel(f.ltc(ax, 0.5)?, small, big)?;
    let res = f.sel(f.eqc(x, 1.0)?, f.c(0.0)?, res)?;
    let res = f.sel(f.eqc(x, -1.0)?, f.c(PI)?, res)?;
    let res = f.sel(f.gtc(ax, 1.0)?, f.c(f64::NAN)?, res)?;
    f.nan_through(x, res)
}

/// `arctan2(y, x)` (fdlibm `e_atan2.c`): `z = atan(|y| / |x|)` (1 when both are infinite),
/// then by the signs of x and y: `z`, `-z`, `pi - (z - pi_lo)`, `(z - pi_lo) - pi`.
pub fn atan2<'c, 'a>(f: F<'_, 'c, 'a>, y: V<'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let (ay, ax) = (f.abs(y)?, f.abs(x)?);
    let both_inf = f.and(f.is_inf(x)?, f.is_inf(y)?)?;
    let q = f.sel(both_inf, f.c(1.0)?, f.div(ay, ax)?)?;
    // y = 0 (x = 0 too): the angle of the x axis.
    let q = f.sel(f.eqc(ay, 0.0)?, f.c(0.0)?, q)?;
    let z = atan(f, q)?;
    let zl = f.sub(z, f.c(PI_LO)?)?;
    let left = f.sub(f.c(PI)?, zl)?;
    let r = f.sel(f.sign_bit(x)?, left, z)?;
    let r = f.copysign(r, y)?;
    let either_nan = f.or(f.is_nan(x)?, f.is_nan(y)?)?;
    f.sel(either_nan, f.add(x, y)?, r)
}

/// `tan(x) = sin(x) / cos(x)` from the reduced kernels: `ks / kc` in quadrants 0 and 2,
/// `-kc / ks` in 1 and 3.
pub fn tan<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let k = trig::kernels(f.e, x, Range::Any)?;
    let even = f.div(k.sin, k.cos)?;
    let odd = f.neg(f.div(k.cos, k.sin)?)?;
    let half = f.mulc(k.quadrant, 0.5)?;
    let is_even = f.eq(f.floor(half)?, half)?;
    let r = f.sel(is_even, even, odd)?;
    // tan(±0) = ±0.
    let r = f.sel(f.eqc(x, 0.0)?, x, r)?;
    f.nan_through(x, r)
}
