//! The Bessel functions `i0`, `i1`, `i0e`, `i1e` (modified, first kind) and `j0`, `j1` (first
//! kind), built from arithmetic in `f64` as Chebyshev expansions of our own
//! (`scripts/coefficients/bessel.py` computes the tables with mpmath at 60 digits):
//!
//! - `exp(-|x|) I0(|x|)` and `exp(-|x|) I1(|x|) / |x|` on [0, 8], in t = |x| / 4 - 1; from 8 on,
//!   `sqrt(|x|) exp(-|x|) I0(|x|)` and `sqrt(|x|) exp(-|x|) I1(|x|)` in t = 16 / |x| - 1. `i0`
//!   and `i1` multiply the scaled values by `exp(|x|)` (infinite from 709.78 on, as SciPy's).
//! - At the infinities `i0`, `i1`, `j0` and `j1` are NaN, as SciPy's (Cephes') are; `i0e` and
//!   `i1e` are 0 (with x's sign for `i1e`).
//! - `J0(x)` and `J1(x) / x` on [0, 8], in t = x^2 / 32 - 1; from 8 on, Hankel's form
//!   `sqrt(2 / (pi x)) (P cos(x - phase) - Q sin(x - phase))` with P and Q / u expanded in
//!   t = 2 u^2 - 1, u = 8 / x, and `cos(x - pi/4) = (cos x + sin x) / sqrt 2` (and the like for
//!   the other phases), so no rounded `x - phase` is formed. Near a zero of `J0` or `J1` the
//!   error is absolute (about 1e-16), not relative.
//!
//! Each expansion is summed by Clenshaw's recurrence; every branch is computed and the right
//! one selected.

use super::fbuild::{F, V};
use super::trig::{self, Range};
use crate::error::Result;

const I0_SMALL: [f64; 30] = [
    0.6767952744094761,
    -0.3046826723431984,
    0.17162090152220877,
    -0.09490109704804764,
    0.04930528423967071,
    -0.02373741480589947,
    0.010546460394594998,
    -0.004324309995050576,
    0.0016394756169413357,
    -0.0005763755745385824,
    0.00018850288509584165,
    -5.754195010082104e-05,
    1.6448448070728896e-05,
    -4.4167383584587505e-06,
    1.1173875391201037e-06,
    -2.670793853940612e-07,
    6.046995022541919e-08,
    -1.300025009986248e-08,
    2.6598237246823866e-09,
    -5.189795601635263e-10,
    9.675809035373237e-11,
    -1.726826291441556e-11,
    2.95505266312964e-12,
    -4.856446783111929e-13,
    7.676185498604936e-14,
    -1.1685332877993451e-14,
    1.715391285555133e-15,
    -2.431279846547955e-16,
    3.3307945188222384e-17,
    -4.4153416464793395e-18,
];
const I1_SMALL: [f64; 30] = [
    0.25258718644363365,
    -0.17641651835783406,
    0.1026436586898471,
    -0.05294598120809499,
    0.024726449030626516,
    -0.010564084894626197,
    0.004156422944312888,
    -0.0015135724506312532,
    0.0005122859561685758,
    -0.00016176081582589674,
    4.781565107550054e-05,
    -1.3273163656039436e-05,
    3.4702513081376785e-06,
    -8.568720264695455e-07,
    2.0032947535521353e-07,
    -4.445059128796328e-08,
    9.381537386495773e-09,
    -1.8872497517228294e-09,
    3.625590281552117e-10,
    -6.663489723502027e-11,
    1.1736186298890901e-11,
    -1.9839743977649436e-12,
    3.223793365945575e-13,
    -5.042185504727912e-14,
    7.600684294735408e-15,
    -1.1055969477353862e-15,
    1.5536319577362005e-16,
    -2.111421214358166e-17,
    2.7779141127610464e-18,
    -3.541581772542136e-19,
];
const I0_LARGE: [f64; 27] = [
    0.8044904110141088,
    0.0033691164782556943,
    6.889758346916825e-05,
    2.8913705208347567e-06,
    2.0489185894690638e-07,
    2.266668990498178e-08,
    3.3962320257083865e-09,
    4.94060238822497e-10,
    1.1889147107846439e-11,
    -3.1499165279632416e-11,
    -1.3215811840447713e-11,
    -1.7941785315068062e-12,
    7.180124451383666e-13,
    3.8527783827421426e-13,
    1.54008621752141e-14,
    -4.150569347287222e-14,
    -9.554846698828307e-15,
    3.8116806693526224e-15,
    1.7725601330565263e-15,
    -3.425485619677219e-16,
    -2.8276239805165836e-16,
    3.461222867697461e-17,
    4.46562142029676e-17,
    -4.830504485944182e-18,
    -7.233180487874754e-18,
    9.921475412173699e-19,
    1.193650890845982e-18,
];
const I1_LARGE: [f64; 27] = [
    0.7785762350182801,
    -0.009761097491361469,
    -0.00011058893876262371,
    -3.882564808877691e-06,
    -2.512236237870209e-07,
    -2.6314688468895196e-08,
    -3.835380385964237e-09,
    -5.589743462196584e-10,
    -1.8974958123505413e-11,
    3.2526035830154884e-11,
    1.4125807436613782e-11,
    2.0356285441470896e-12,
    -7.198551776245908e-13,
    -4.0835511110921974e-13,
    -2.1015418427726643e-14,
    4.272440016711951e-14,
    1.0420276984128802e-14,
    -3.8144030724370075e-15,
    -1.8803547755107825e-15,
    3.3082023109209285e-16,
    2.96262899764595e-16,
    -3.209525921993424e-17,
    -4.6503053684893586e-17,
    4.414348323071708e-18,
    7.517296310842105e-18,
    -9.314178867326884e-19,
    -1.242193275194891e-18,
];
const J0_SMALL: [f64; 17] = [
    0.31545594294978024,
    -0.008723442352852221,
    0.2651786132033368,
    -0.37009499387264977,
    0.15806710233209725,
    -0.034893769411408884,
    0.004819180069467605,
    -0.00046062616620627504,
    3.246032882100508e-05,
    -1.7619469077621507e-06,
    7.608163592418782e-08,
    -2.679253530557673e-09,
    7.848696314479465e-11,
    -1.9438346867370164e-12,
    4.125320595634374e-14,
    -7.588508125447546e-16,
    1.2218515873961411e-17,
];
const J1_SMALL: [f64; 17] = [
    0.16208969265131623,
    -0.1489751450676521,
    0.1609992623572097,
    -0.08268049176681791,
    0.022213639654966037,
    -0.003646940600769276,
    0.0004050337728354822,
    -3.255554866857259e-05,
    1.9858774049915165e-06,
    -9.521984756750436e-08,
    3.687133759097148e-09,
    -1.178026622695885e-10,
    3.160154580348003e-12,
    -7.221755239651773e-14,
    1.4232144003513942e-15,
    -2.4441972916190464e-17,
    3.6912682997929334e-19,
];
const P0_LARGE: [f64; 14] = [
    1.9989206986950374,
    -0.0005365220468132117,
    3.0751847875194745e-06,
    -5.1705945376060975e-08,
    1.6306464635151382e-09,
    -7.86409137723707e-11,
    5.168262387349193e-12,
    -4.3045788699253914e-13,
    4.3265957431549404e-14,
    -5.069034095935236e-15,
    6.748072215733873e-16,
    -1.0011513723467786e-16,
    1.6305919233744186e-17,
    -2.880866169482871e-18,
];
const Q0_LARGE: [f64; 16] = [
    -0.031111709210674018,
    6.838519942611649e-05,
    -7.414498411060647e-07,
    1.7972457247968992e-08,
    -7.27191593686632e-10,
    4.2201219046687385e-11,
    -3.206747420996635e-12,
    3.006145125351706e-13,
    -3.336328185322427e-14,
    4.255225040245461e-15,
    -6.09993013164005e-16,
    9.662128970303257e-17,
    -1.6686065214378146e-17,
    3.1082440486738143e-18,
    -6.191115787358145e-19,
    1.3091448717220122e-19,
];
const P1_LARGE: [f64; 14] = [
    2.0018060817200274,
    0.0008989898330859408,
    -3.987284300488908e-06,
    6.177633960644299e-08,
    -1.8718907491063067e-09,
    8.816898659582339e-11,
    -5.704863640395645e-12,
    4.699195515230542e-13,
    -4.6842237839904895e-14,
    5.452674896044717e-15,
    -7.221180842274018e-16,
    1.0667689114335412e-16,
    -1.7312313216116335e-17,
    3.0492991197665872e-18,
];
const Q1_LARGE: [f64; 16] = [
    0.09355557413907065,
    -9.62772354915708e-05,
    9.138615257955454e-07,
    -2.0959781384083424e-08,
    8.229193327650554e-10,
    -4.686363688176945e-11,
    3.5152187949686082e-12,
    -3.2643156743279e-13,
    3.5967765829165294e-14,
    -4.5612523950772974e-15,
    6.508282957783384e-16,
    -1.0269147531823243e-16,
    1.767635548776479e-17,
    -3.2834519872981614e-18,
    6.524081149589261e-19,
    -1.3765771484849487e-19,
];

/// `c[0] / 2 + sum_{k >= 1} c[k] T_k(t)` by Clenshaw's recurrence.
pub(super) fn chebyshev<'c, 'a>(f: F<'_, 'c, 'a>, t: V<'c, 'a>, c: &[f64]) -> Result<V<'c, 'a>> {
    let two_t = f.mulc(t, 2.0)?;
    let (mut b0, mut b1, mut b2) = (f.c(0.0)?, f.c(0.0)?, f.c(0.0)?);
    for &k in c.iter().rev() {
        b2 = b1;
        b1 = b0;
        b0 = f.addc(f.sub(f.mul(two_t, b1)?, b2)?, k)?;
    }
    f.mulc(f.sub(b0, b2)?, 0.5)
}

/// `exp(-a) I0(a)` (or `exp(-a) I1(a)` when `one`) for `a = |x|`; 0 at infinity.
fn scaled_i<'c, 'a>(f: F<'_, 'c, 'a>, a: V<'c, 'a>, one: bool) -> Result<V<'c, 'a>> {
    let (small_table, large_table): (&[f64], &[f64]) = if one { (&I1_SMALL, &I1_LARGE) } else { (&I0_SMALL, &I0_LARGE) };
    let a_small = f.min(a, f.c(8.0)?)?;
    let mut small = chebyshev(f, f.addc(f.mulc(a_small, 0.25)?, -1.0)?, small_table)?;
    if one {
        small = f.mul(small, a_small)?;
    }
    let a_large = f.max(a, f.c(8.0)?)?;
    let t = f.addc(f.div(f.c(16.0)?, a_large)?, -1.0)?;
    let large = f.div(chebyshev(f, t, large_table)?, f.sqrt(a_large)?)?;
    f.sel(f.gtc(a, 8.0)?, large, small)
}

/// `i0e(x) = exp(-|x|) I0(x)`.
pub fn i0e<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let r = scaled_i(f, f.abs(x)?, false)?;
    f.nan_through(x, r)
}

/// `r`, negated where `x < 0` (so `-0` gives `+0`, as SciPy's odd Bessel functions).
fn odd<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>, r: V<'c, 'a>) -> Result<V<'c, 'a>> {
    f.sel(f.ltc(x, 0.0)?, f.neg(r)?, r)
}

/// `i1e(x) = exp(-|x|) I1(x)`, odd.
pub fn i1e<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let r = odd(f, x, scaled_i(f, f.abs(x)?, true)?)?;
    f.nan_through(x, r)
}

/// `i0(x)`: `i0e(x) exp(|x|)` (NaN at the infinities: 0 times inf).
pub fn i0<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let a = f.abs(x)?;
    let r = f.mul(scaled_i(f, a, false)?, f.exp(a)?)?;
    f.nan_through(x, r)
}

/// `i1(x)`: `i1e(x) exp(|x|)`, odd (NaN at the infinities).
pub fn i1<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    let a = f.abs(x)?;
    let r = f.mul(scaled_i(f, a, true)?, f.exp(a)?)?;
    let r = odd(f, x, r)?;
    f.nan_through(x, r)
}

/// `J0(x)` (or `J1(x)` when `one`): even (odd), NaN at the infinities.
fn bessel_j<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>, one: bool) -> Result<V<'c, 'a>> {
    let a = f.abs(x)?;
    // [-8, 8]: J0 as a series in x^2; J1 as x times one.
    let x_small = f.max(f.min(x, f.c(8.0)?)?, f.c(-8.0)?)?;
    let t = f.addc(f.mulc(f.mul(x_small, x_small)?, 1.0 / 32.0)?, -1.0)?;
    let mut small = chebyshev(f, t, if one { &J1_SMALL } else { &J0_SMALL })?;
    if one {
        small = f.mul(small, x_small)?;
    }
    // From 8 on (at infinity, 8 stands in and the result is replaced by NaN below).
    let inf = f.is_inf(x)?;
    let a_large = f.sel(inf, f.c(8.0)?, f.max(a, f.c(8.0)?)?)?;
    let u = f.div(f.c(8.0)?, a_large)?;
    let t = f.addc(f.mulc(f.mul(u, u)?, 2.0)?, -1.0)?;
    let (p_table, q_table): (&[f64], &[f64]) = if one { (&P1_LARGE, &Q1_LARGE) } else { (&P0_LARGE, &Q0_LARGE) };
    let p = chebyshev(f, t, p_table)?;
    let q = f.mul(chebyshev(f, t, q_table)?, u)?;
    let (sin, cos) = trig::sin_and_cos(f.e, a_large, Range::Any)?;
    // sqrt 2 cos(x - phase) and sqrt 2 sin(x - phase), phase = pi/4 (J0) or 3 pi/4 (J1).
    let (c, s) = if one {
        (f.sub(sin, cos)?, f.neg(f.add(sin, cos)?)?)
    } else {
        (f.add(cos, sin)?, f.sub(sin, cos)?)
    };
    // sqrt(pi x), without overflow in pi x for x near the largest f64.
    let amplitude = f.sel(
        f.ltc(a_large, 1e300)?,
        f.sqrt(f.mulc(a_large, std::f64::consts::PI)?)?,
        f.mulc(f.sqrt(a_large)?, std::f64::consts::PI.sqrt())?,
    )?;
    let large = f.div(f.sub(f.mul(p, c)?, f.mul(q, s)?)?, amplitude)?;
    let large = if one { f.sel(f.ltc(x, 0.0)?, f.neg(large)?, large)? } else { large };
    let r = f.sel(f.gtc(a, 8.0)?, large, small)?;
    let r = f.sel(inf, f.c(f64::NAN)?, r)?;
    f.nan_through(x, r)
}

/// `j0(x)`, the Bessel function of the first kind of order 0.
pub fn j0<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    bessel_j(f, x, false)
}

/// `j1(x)`, the Bessel function of the first kind of order 1.
pub fn j1<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
    bessel_j(f, x, true)
}
