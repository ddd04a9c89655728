//! `erf`, `erfc`, `erfcx` and `cbrt` built from arithmetic in `f64` (IREE cannot compile `math.erf`,
//! `math.erfc` or `math.cbrt` for `f64`).
//!
//! Provenance: `erf`/`erfc` are fdlibm's `s_erf.c` (Sun Microsystems, 1993; the constants as
//! musl and Rust's `libm` crate carry them): a rational approximation of `(erf(x) - x) / x`
//! below 0.84375, `erf(x) - erx` around 1 (0.84375..1.25), and
//! `erfc(x) = exp(-x^2 - 0.5625 + R(1/x^2) / S(1/x^2)) / x` beyond, with `x^2` split exactly
//! through `z` (x with its low word cleared) so `erfc` keeps full relative accuracy far out
//! (to x = 28, where it underflows). `cbrt` starts from `exp(log|x| / 3)` and takes one
//! Newton step whose residual `y^3 - x` is computed exactly with `fma` (the refinement of
//! CORE-MATH's `cbrt`), which leaves the result within an ulp.

use super::fbuild::{F, V};
use crate::error::Result;

const ERX: f64 = 8.450_629_115_104_675_292_97e-01;
const EFX8: f64 = 1.027_033_336_764_100_690_53e+00;
const PP: [f64; 5] = [
    1.283_791_670_955_125_585_61e-01,
    -3.250_421_072_470_014_993_70e-01,
    -2.848_174_957_559_851_047_66e-02,
    -5.770_270_296_489_441_591_57e-03,
    -2.376_301_665_665_016_260_84e-05,
];
const QQ: [f64; 6] = [
    1.0,
    3.979_172_239_591_553_528_19e-01,
    6.502_224_998_876_729_444_85e-02,
    5.081_306_281_875_765_627_76e-03,
    1.324_947_380_043_216_445_26e-04,
    -3.960_228_278_775_368_123_20e-06,
];
const PA: [f64; 7] = [
    -2.362_118_560_752_659_440_77e-03,
    4.148_561_186_837_483_316_66e-01,
    -3.722_078_760_357_013_238_47e-01,
    3.183_466_199_011_617_536_74e-01,
    -1.108_946_942_823_966_774_76e-01,
    3.547_830_432_561_823_593_71e-02,
    -2.166_375_594_868_790_843_00e-03,
];
const QA: [f64; 7] = [
    1.0,
    1.064_208_804_008_442_282_86e-01,
    5.403_979_177_021_710_489_37e-01,
    7.182_865_441_419_626_628_68e-02,
    1.261_712_198_087_616_421_12e-01,
    1.363_708_391_202_905_073_62e-02,
    1.198_449_984_679_910_741_70e-02,
];
const RA: [f64; 8] = [
    -9.864_944_034_847_148_227_05e-03,
    -6.938_585_727_071_817_643_72e-01,
    -1.055_862_622_532_329_098_14e+01,
    -6.237_533_245_032_600_603_96e+01,
    -1.623_966_694_625_734_703_55e+02,
    -1.846_050_929_067_110_359_94e+02,
    -8.128_743_550_630_659_342_46e+01,
    -9.814_329_344_169_145_485_92e+00,
];
const SA: [f64; 9] = [
    1.0,
    1.965_127_166_743_925_712_92e+01,
    1.376_577_541_435_190_426_00e+02,
    4.345_658_774_752_292_288_21e+02,
    6.453_872_717_332_678_803_36e+02,
    4.290_081_400_275_678_333_86e+02,
    1.086_350_055_417_794_351_34e+02,
    6.570_249_770_319_281_701_35e+00,
    -6.042_441_521_485_809_874_38e-02,
];
const RB: [f64; 7] = [
    -9.864_942_924_700_099_285_97e-03,
    -7.992_832_376_805_230_065_74e-01,
    -1.775_795_491_775_475_198_89e+01,
    -1.606_363_848_558_219_160_62e+02,
    -6.375_664_433_683_896_277_22e+02,
    -1.025_095_131_611_077_249_54e+03,
    -4.835_191_916_086_513_970_19e+02,
];
const SB: [f64; 8] = [
    1.0,
    3.033_806_074_348_245_829_24e+01,
    3.257_925_129_965_739_188_26e+02,
    1.536_729_586_084_436_959_94e+03,
    3.199_858_219_508_595_539_08e+03,
    2.553_050_406_433_164_425_83e+03,
    4.745_285_412_069_553_672_15e+02,
    -2.244_095_244_658_581_833_62e+01,
];

/// The pieces of fdlibm's erf/erfc for `ax = |x|`: `y` with `erf(ax) = ax + ax * y` below
/// 0.84375, `d = erf(ax) - erx` on [0.84375, 1.25), and `erfc(ax)` from 1.25 on.
struct Parts<'c, 'a> {
    y: V<'c, 'a>,
    d: V<'c, 'a>,
    tail: V<'c, 'a>,
    /// `exp(x^2) erfc(ax)` from 1.25 on: the tail without its `exp(-x^2)`.
    scaled: V<'c, 'a>,
}

fn parts<'c, 'a>(f: F<'_, 'c, 'a>, ax: V<'c, 'a>) -> Result<Parts<'c, 'a>> {
    let z = f.mul(ax, ax)?;
    let y = f.div(f.poly(z, &PP)?, f.poly(z, &QQ)?)?;
    let s = f.addc(ax, -1.0)?;
    let d = f.div(f.poly(s, &PA)?, f.poly(s, &QA)?)?;
    // Clamp so the far branch stays finite where it is not used.
    let xa = f.max(ax, f.c(1.0)?)?;
    let s = f.div(f.c(1.0)?, f.mul(xa, xa)?)?;
    let near = f.ltc(xa, 1.0 / 0.35)?;
    let r = f.sel(near, f.poly(s, &RA)?, f.poly(s, &RB)?)?;
    let big_s = f.sel(near, f.poly(s, &SA)?, f.poly(s, &SB)?)?;
    let zh = f.high_word_only(xa)?;
    let e1 = f.exp(f.addc(f.neg(f.mul(zh, zh)?)?, -0.5625)?)?;
    let e2 = f.exp(f.add(f.mul(f.sub(zh, xa)?, f.add(zh, xa)?)?, f.div(r, big_s)?)?)?;
    let tail = f.div(f.mul(e1, e2)?, xa)?;
    // exp(x^2) times the tail: -z^2 + (z - x)(z + x) = -x^2 exactly, so it is
    // exp(-0.5625 + R/S) / x, which neither under- nor overflows.
    let scaled = f.div(f.exp(f.addc(f.div(r, big_s)?, -0.5625)?)?, xa)?;
    Ok(Parts { y, d, tail, scaled })
}

/// `erf(x)`.
pub fn erf<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let p = parts(f, ax)?;
    let small = f.add(ax, f.mul(ax, p.y)?)?;
    let tiny = f.mulc(f.add(f.mulc(ax, 8.0)?, f.mulc(ax, EFX8)?)?, 0.125)?;
    let small = f.sel(f.ltc(ax, 2f64.powi(-28))?, tiny, small)?;
    let mid = f.addc(p.d, ERX)?;
    let far = f.sub(f.c(1.0)?, p.tail)?;
    let r = f.sel(f.ltc(ax, 1.25)?, mid, far)?;
    let r = f.sel(f.gec(ax, 6.0)?, f.c(1.0)?, r)?;
    let r = f.sel(f.ltc(ax, 0.84375)?, small, r)?;
    let r = f.copysign(r, x)?;
    f.nan_through(x, r)
}

/// `erfc(x)`.
pub fn erfc<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let p = parts(f, f.abs(x)?)?;
    erfc_from(f, x, &p)
}

/// `erfc(x)` from the pieces of `|x|`.
fn erfc_from<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>, p: &Parts<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax = f.abs(x)?;
    let neg = f.ltc(x, 0.0)?;
    let one = f.c(1.0)?;
    // |x| < 0.84375: 1 - (x + x*y), or 0.5 - (x - 0.5 + x*y) for 1/4 <= x.
    let xy = f.mul(x, p.y)?;
    let direct = f.sub(one, f.add(x, xy)?)?;
    let halfway = f.sub(f.c(0.5)?, f.add(f.addc(x, -0.5)?, xy)?)?;
    let use_half = f.and(f.gec(x, 0.25)?, f.ltc(x, 0.84375)?)?;
    let small = f.sel(use_half, halfway, direct)?;
    // [0.84375, 1.25): 1 - erx - d for x > 0, 1 + erx + d for x < 0.
    let mid_pos = f.sub(f.c(1.0 - ERX)?, p.d)?;
    let mid_neg = f.add(f.c(1.0 + ERX)?, p.d)?;
    let mid = f.sel(neg, mid_neg, mid_pos)?;
    // Beyond: tail, or 2 - tail; 0 (2) from 28 on.
    let tail = f.sel(f.gec(ax, 28.0)?, f.c(0.0)?, p.tail)?;
    let far = f.sel(neg, f.sub(f.c(2.0)?, tail)?, tail)?;
    let r = f.sel(f.ltc(ax, 1.25)?, mid, far)?;
    let r = f.sel(f.ltc(ax, 0.84375)?, small, r)?;
    f.nan_through(x, r)
}

/// `erfcx(x) = exp(x^2) erfc(x)`: from 1.25 on, fdlibm's tail without its `exp(-x^2)`;
/// below, `exp(x^2) erfc(x)` with `x^2 = h + l` split exactly (`fma`), so the factor keeps its
/// relative accuracy (it overflows to inf from about x = -26.6, as the function does).
pub fn erfcx<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let p = parts(f, f.abs(x)?)?;
    let h = f.mul(x, x)?;
    // (No low part where x^2 overflows: inf - inf would be NaN.)
    let l = f.sel(f.is_inf(h)?, f.c(0.0)?, f.fma(x, x, f.neg(h)?)?)?;
    let near = f.mul(f.mul(f.exp(h)?, f.exp(l)?)?, erfc_from(f, x, &p)?)?;
    let r = f.sel(f.gec(x, 1.25)?, p.scaled, near)?;
    f.nan_through(x, r)
}

/// `cbrt(x)`: `exp(log|x| / 3)` refined by one Newton step with an exact residual.
pub fn cbrt<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let ax0 = f.abs(x)?;
    // Scale far-out arguments by 2^(±900) (result by 2^(∓300)) so y^3 neither overflows
    // nor loses bits to subnormals.
    let tiny = f.ltc(ax0, 2f64.powi(-600))?;
    let huge = f.gtc(ax0, 2f64.powi(600))?;
    let scale_in = f.sel(tiny, f.c(2f64.powi(900))?, f.sel(huge, f.c(2f64.powi(-900))?, f.c(1.0)?)?)?;
    let scale_out = f.sel(tiny, f.c(2f64.powi(-300))?, f.sel(huge, f.c(2f64.powi(300))?, f.c(1.0)?)?)?;
    let ax = f.mul(ax0, scale_in)?;
    let y = f.exp(f.mulc(f.log(ax)?, 1.0 / 3.0)?)?;
    // y^3 = y3 + y3l exactly (to the last bits): y2 + y2l = y*y, y3 + y3l = (y2 + y2l) * y.
    let y2 = f.mul(y, y)?;
    let y2l = f.fma(y, y, f.neg(y2)?)?;
    let y3 = f.mul(y2, y)?;
    let y3l = f.add(f.fma(y, y2, f.neg(y3)?)?, f.mul(y, y2l)?)?;
    let h = f.add(f.sub(y3, ax)?, y3l)?;
    let y = f.sub(y, f.div(h, f.mulc(y2, 3.0)?)?)?;
    let y = f.mul(y, scale_out)?;
    let special = f.or(f.eqc(ax0, 0.0)?, f.is_inf(ax0)?)?;
    let r = f.sel(special, ax0, y)?;
    let r = f.copysign(r, x)?;
    f.nan_through(x, r)
}
