//! `gammaln(x) = log|Gamma(x)|` built from arithmetic in `f64`: fdlibm's `e_lgamma_r.c`
//! (Sun Microsystems, 1993; the constants as musl and Rust's `libm` crate carry them).
//! Below 2 the function is expanded around its minimum (tc = 1.4616...) and around the
//! zeros at 1 and 2, so results keep their relative accuracy near the zeros; [2, 8) is
//! reduced to [2, 3) by `Gamma(x + 1) = x Gamma(x)`; from 8 on, Stirling's series with a
//! minimax correction; negative x by the reflection formula with an exact `sin(pi x)`.
//! Every branch is computed and the right one selected.

use super::fbuild::{F, V};
use super::trig::{self, Range};
use crate::error::Result;

const PI: f64 = 3.141_592_653_589_793_116_00e+00;
const A: [f64; 12] = [
    7.721_566_490_153_286_554_94e-02,
    3.224_670_334_241_135_916_11e-01,
    6.735_230_105_312_926_818_24e-02,
    2.058_080_843_251_673_328_06e-02,
    7.385_550_860_814_028_839_57e-03,
    2.890_513_836_734_156_290_91e-03,
    1.192_707_631_833_620_678_45e-03,
    5.100_697_921_535_113_366_08e-04,
    2.208_627_907_139_083_855_57e-04,
    1.080_115_672_475_839_399_54e-04,
    2.521_445_654_512_573_269_39e-05,
    4.486_409_496_189_151_601_50e-05,
];
const TC: f64 = 1.461_632_144_968_362_245_76e+00;
const TF: f64 = -1.214_862_905_358_496_114_61e-01;
const TT: f64 = -3.638_676_997_039_505_365_41e-18;
const T: [f64; 15] = [
    4.838_361_227_238_100_470_42e-01,
    -1.475_877_229_945_939_117_52e-01,
    6.462_494_023_913_338_547_78e-02,
    -3.278_854_107_598_596_495_65e-02,
    1.797_067_508_118_203_871_26e-02,
    -1.031_422_412_983_414_374_50e-02,
    6.100_538_702_462_913_326_35e-03,
    -3.684_520_167_811_382_567_60e-03,
    2.259_647_809_006_124_722_50e-03,
    -1.403_464_699_892_328_438_13e-03,
    8.810_818_824_376_540_113_82e-04,
    -5.385_953_053_567_405_467_15e-04,
    3.156_320_709_036_259_503_61e-04,
    -3.127_541_683_751_208_605_18e-04,
    3.355_291_926_355_190_735_43e-04,
];
const U: [f64; 6] = [
    -7.721_566_490_153_286_554_94e-02,
    6.328_270_640_250_933_665_17e-01,
    1.454_922_501_372_347_687_37e+00,
    9.777_175_279_633_727_456_03e-01,
    2.289_637_280_646_924_510_92e-01,
    1.338_109_185_367_876_603_77e-02,
];
const V_: [f64; 6] = [
    1.0,
    2.455_977_937_130_411_348_22e+00,
    2.128_489_763_798_933_953_61e+00,
    7.692_851_504_566_727_838_25e-01,
    1.042_226_455_933_691_342_54e-01,
    3.217_092_422_824_239_118_10e-03,
];
const S: [f64; 7] = [
    -7.721_566_490_153_286_554_94e-02,
    2.149_824_159_606_088_525_01e-01,
    3.257_787_964_089_309_817_87e-01,
    1.463_504_726_524_644_528_05e-01,
    2.664_227_030_336_386_095_60e-02,
    1.840_284_514_073_377_156_52e-03,
    3.194_753_265_841_008_676_17e-05,
];
const R: [f64; 7] = [
    1.0,
    1.392_005_334_676_210_459_58e+00,
    7.219_355_475_671_380_695_25e-01,
    1.719_338_656_328_030_789_93e-01,
    1.864_591_917_156_529_013_44e-02,
    7.779_424_963_818_935_964_34e-04,
    7.326_684_307_446_256_361_89e-06,
];
const W: [f64; 7] = [
    4.189_385_332_046_727_250_52e-01,
    8.333_333_333_333_296_788_49e-02,
    -2.777_777_777_287_755_364_70e-03,
    7.936_505_586_430_195_585_00e-04,
    -5.951_875_574_503_399_631_35e-04,
    8.363_399_189_962_821_391_26e-04,
    -1.630_929_340_965_752_739_89e-03,
];

/// The thresholds of e_lgamma_r.c, written there as high words of `x`.
fn hi(word: u64) -> f64 {
    f64::from_bits(word << 32)
}

/// `sin(pi x)` for `x > 0`, exact in its reduction (`x mod 2`, then to [-1/4, 1/4]).
pub(super) fn sin_pi<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let h = f.mulc(x, 0.5)?;
    let x = f.mulc(f.sub(h, f.floor(h)?)?, 2.0)?;
    let n = f.floor(f.mulc(f.addc(f.floor(f.mulc(x, 4.0)?)?, 1.0)?, 0.5)?)?;
    let r = f.mulc(f.sub(x, f.mulc(n, 0.5)?)?, PI)?;
    let (sin, cos) = trig::sin_and_cos(f.e, r, Range::Small)?;
    let is = |m: f64| f.eqc(n, m);
    f.sel(is(1.0)?, cos, f.sel(is(2.0)?, f.neg(sin)?, f.sel(is(3.0)?, f.neg(cos)?, sin)?)?)
}

/// `gammaln(x)`.
pub fn gammaln<'c, 'a>(f: F<'_, 'c, 'a>, x0: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let neg = f.ltc(x0, 0.0)?;
    let x = f.abs(x0)?;
    // Below 2: three expansions in y, picked by where x lies.
    let below_09 = f.ltc(x, hi(0x3fec_cccd))?;
    let r0 = f.sel(below_09, f.neg(f.log(x)?)?, f.c(0.0)?)?;
    let y0 = f.sel(below_09, f.sub(f.c(1.0)?, x)?, f.sub(f.c(2.0)?, x)?)?;
    let y1 = f.sel(below_09, f.sub(x, f.c(TC - 1.0)?)?, f.addc(x, -TC)?)?;
    let y2 = f.sel(below_09, x, f.addc(x, -1.0)?)?;
    let i0 = f.sel(below_09, f.gec(x, hi(0x3fe7_6944))?, f.gec(x, hi(0x3ffb_b4c3))?)?;
    let i1 = f.sel(below_09, f.gec(x, hi(0x3fcd_a661))?, f.gec(x, hi(0x3ff3_b4c4))?)?;
    // i = 0
    let z = f.mul(y0, y0)?;
    let even: Vec<f64> = A.iter().step_by(2).copied().collect();
    let odd: Vec<f64> = A.iter().skip(1).step_by(2).copied().collect();
    let p = f.add(f.mul(y0, f.poly(z, &even)?)?, f.mul(z, f.poly(z, &odd)?)?)?;
    let e0 = f.sub(p, f.mulc(y0, 0.5)?)?;
    // i = 1
    let z = f.mul(y1, y1)?;
    let w = f.mul(z, y1)?;
    let t_at = |k: usize| -> Vec<f64> { T.iter().skip(k).step_by(3).copied().collect() };
    let p1 = f.poly(w, &t_at(0))?;
    let p2 = f.poly(w, &t_at(1))?;
    let p3 = f.poly(w, &t_at(2))?;
    let p = f.sub(f.mul(z, p1)?, f.sub(f.c(TT)?, f.mul(w, f.add(p2, f.mul(y1, p3)?)?)?)?)?;
    let e1 = f.addc(p, TF)?;
    // i = 2
    let p1 = f.mul(y2, f.poly(y2, &U)?)?;
    let p2 = f.poly(y2, &V_)?;
    let e2 = f.add(f.mulc(y2, -0.5)?, f.div(p1, p2)?)?;
    let small = f.add(r0, f.sel(i0, e0, f.sel(i1, e1, e2)?)?)?;
    // [2, 8): lgamma(i + y) = lgamma(2 + y) + log((2 + y) ... (i - 1 + y)).
    let i = f.trunc(x)?;
    let y = f.sub(x, i)?;
    let p = f.mul(y, f.poly(y, &S)?)?;
    let q = f.poly(y, &R)?;
    let mut r = f.add(f.mulc(y, 0.5)?, f.div(p, q)?)?;
    let mut prod = f.c(1.0)?;
    for k in 2..=6 {
        let factor = f.sel(f.gec(i, (k + 1) as f64)?, f.addc(y, k as f64)?, f.c(1.0)?)?;
        prod = f.mul(prod, factor)?;
    }
    r = f.add(r, f.log(prod)?)?;
    let mid = r;
    // [8, 2^58): Stirling with a minimax correction.
    let t = f.log(x)?;
    let zz = f.div(f.c(1.0)?, x)?;
    let yy = f.mul(zz, zz)?;
    let w = f.add(f.c(W[0])?, f.mul(zz, f.poly(yy, &W[1..])?)?)?;
    let stirling = f.add(f.mul(f.addc(x, -0.5)?, f.addc(t, -1.0)?)?, w)?;
    let huge = f.mul(x, f.addc(t, -1.0)?)?;
    let big = f.sel(f.ltc(x, hi(0x4390_0000))?, stirling, huge)?;
    let pos = f.sel(f.ltc(x, 8.0)?, mid, big)?;
    let pos = f.sel(f.ltc(x, 2.0)?, small, pos)?;
    let exact = f.or(f.eqc(x, 1.0)?, f.eqc(x, 2.0)?)?;
    let pos = f.sel(exact, f.c(0.0)?, pos)?;
    // Negative x: log(pi / |x sin(pi x)|) - lgamma(|x|); +inf at the poles.
    let sp = f.abs(sin_pi(f, x)?)?;
    let nadj = f.log(f.div(f.c(PI)?, f.mul(sp, x)?)?)?;
    let reflected = f.sub(nadj, pos)?;
    let reflected = f.sel(f.eqc(sp, 0.0)?, f.c(f64::INFINITY)?, reflected)?;
    let r = f.sel(neg, reflected, pos)?;
    // Tiny |x|: -log|x|; inf and NaN: x * x.
    let r = f.sel(f.ltc(x, 2f64.powi(-70))?, f.neg(f.log(x)?)?, r)?;
    // ±inf: inf, except -inf as SciPy's gammaln gives it (fdlibm says +inf).
    let r = f.sel(f.is_inf(x0)?, x0, r)?;
    f.nan_through(x0, r)
}
