//! Adaptive Gauss-Kronrod (7-15) quadrature, QUADPACK's `qk15` rule halved where its error
//! estimate is too large: the reference for functions defined by an integral.

/// Kronrod nodes (the Gauss ones are the odd entries) and weights of QUADPACK's `qk15`.
const XGK: [f64; 8] = [
    0.991_455_371_120_812_639_206_854_697_526_329,
    0.949_107_912_342_758_524_526_189_684_047_851,
    0.864_864_423_359_769_072_789_712_788_640_926,
    0.741_531_185_599_394_439_863_864_773_280_788,
    0.586_087_235_467_691_130_294_144_845_693_013,
    0.405_845_151_377_397_166_906_606_412_076_961,
    0.207_784_955_007_898_467_600_689_403_773_245,
    0.0,
];
const WGK: [f64; 8] = [
    0.022_935_322_010_529_224_963_732_008_058_970,
    0.063_092_092_629_978_553_290_700_663_189_204,
    0.104_790_010_322_250_183_839_876_322_541_518,
    0.140_653_259_715_525_918_745_189_590_510_238,
    0.169_004_726_639_267_902_826_583_426_598_550,
    0.190_350_578_064_785_409_913_256_402_421_014,
    0.204_432_940_075_298_892_414_161_999_234_649,
    0.209_482_141_084_727_828_012_999_174_891_714,
];
/// The 7-point Gauss weights, of `XGK[1]`, `XGK[3]`, `XGK[5]` and `XGK[7]`.
const WG: [f64; 4] = [
    0.129_484_966_168_869_693_270_611_432_679_082,
    0.279_705_391_489_276_667_901_467_771_423_780,
    0.381_830_050_505_118_944_950_369_775_488_975,
    0.417_959_183_673_469_387_755_102_040_816_327,
];

/// The integral of `f` over `[a, b]` and an estimate of its error (Kronrod minus Gauss).
pub(crate) fn kronrod(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let (c, r) = ((a + b) / 2.0, (b - a) / 2.0);
    let fc = f(c);
    let (mut k, mut g) = (WGK[7] * fc, WG[3] * fc);
    for i in 0..7 {
        let s = f(c - r * XGK[i]) + f(c + r * XGK[i]);
        k += WGK[i] * s;
        if i % 2 == 1 {
            g += WG[i / 2] * s;
        }
    }
    (k * r, ((k - g) * r).abs())
}

/// The integral of `f` over `[a, b]`, halving each part until its error estimate is within
/// its share of `tol` (to depth 48).
pub(crate) fn adaptive(f: &impl Fn(f64) -> f64, a: f64, b: f64, tol: f64, depth: u32) -> f64 {
    let (v, err) = kronrod(f, a, b);
    // Also done where the error estimate is at the piece's own rounding level: a narrow peak
    // would otherwise halve its share of `tol` below what any rule can reach, to depth 48.
    if err <= tol || err <= 8.0 * f64::EPSILON * v.abs() || depth >= 48 {
        return v;
    }
    let m = (a + b) / 2.0;
    adaptive(f, a, m, tol / 2.0, depth + 1) + adaptive(f, m, b, tol / 2.0, depth + 1)
}

/// Whether `a` is within `rel` of `b`, relatively (the unit tests' comparison).
#[cfg(test)]
pub(crate) fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}
