//! The math library in random programs: each op where its result is well conditioned, so
//! that ulp differences between the backends stay within the comparison's tolerance (a
//! bounded argument for `tan`, `arcsin` and the like; rounding, `sign` and float `mod` only on
//! leaves, where both backends see the same exact value). The logical ops and the float
//! tests are left out: bool reductions over `?` dims hit an IREE 3.13 stack-allocation limit
//! often enough to exceed the differential test's budget for it.

use ptl_lang::types::DType;

use super::{Gen, Shape};

impl Gen<'_> {
    /// A float expression of one of the math library's unary ops around `inner`.
    pub(super) fn math_unary(&mut self, shape: &Shape, dtype: DType, inner: String) -> String {
        let t = format!("tanh({inner})");
        match self.rng.below(25) {
            22 => format!("gammaln(abs({inner}) + 0.5)"),
            23 => format!("digamma(abs({inner}) + 0.5)"),
            24 => format!("erfinv(({t}) * 0.9)"),
            0 => format!("tan({t})"),
            1 => format!("arcsin(({t}) * 0.5)"),
            2 => format!("arccos(({t}) * 0.5)"),
            3 => format!("arctan({inner})"),
            4 => format!("sinh({t})"),
            5 => format!("cosh({t})"),
            6 => format!("arcsinh({inner})"),
            7 => format!("arccosh(abs({inner}) + 2.0)"),
            8 => format!("arctanh(({t}) * 0.5)"),
            9 => format!("exp2({t})"),
            10 => format!("expm1({t})"),
            11 => format!("log2(abs({inner}) + 1.0)"),
            12 => format!("log10(abs({inner}) + 1.0)"),
            13 => format!("cbrt({inner})"),
            14 => format!("erf({inner})"),
            15 => format!("erfc({t})"),
            16 => format!("log1mexp(-abs({inner}) - 1.0)"),
            17 => format!("softplus({inner})"),
            18 => format!("square({inner})"),
            19 => format!("reciprocal(abs({inner}) + 1.0)"),
            20 => {
                let f = self.rng.pick(&["floor", "ceil", "round", "trunc", "sign"]);
                format!("{f}({})", self.leaf(shape, dtype))
            }
            _ => {
                let (a, b) = self.operands(shape, dtype, 0);
                match self.rng.below(5) {
                    0 => format!("arctan2({a}, {b})"),
                    1 => format!("logaddexp(abs({a}), abs({b}))"),
                    4 => {
                        let f = self.rng.pick(&["gammainc", "gammaincc", "gammaincinv", "gammainccinv", "betainc", "betaincinv", "polygamma", "owens_t", "kv", "kve"]);
                        match f {
                            "betainc" => format!("betainc(abs({a}) + 0.5, abs({b}) + 0.5, sigmoid({a} - {b}))"),
                            "betaincinv" => format!("betaincinv(abs({a}) + 0.5, abs({b}) + 0.5, sigmoid({a} - {b}))"),
                            // Both operands: either may be the smaller one, and the value must
                            // have the whole shape.
                            "polygamma" => format!("polygamma({}, abs({a}) + abs({b}) + 0.5)", self.rng.below(4)),
                            "gammaincinv" | "gammainccinv" => format!("{f}(abs({a}) + 0.5, sigmoid({b}))"),
                            "owens_t" => format!("owens_t({a}, {b})"),
                            "kv" | "kve" => format!("{f}({a}, abs({b}) + 0.5)"),
                            _ => format!("{f}(abs({a}) + 0.5, abs({b}))"),
                        }
                    }
                    2 => format!("mod({a}, abs({b}) + 0.5)"),
                    _ => format!("floor_divide({a}, abs({b}) + 0.5)"),
                }
            }
        }
    }

    /// An integer expression of the math library: `mod`, `floor_divide` (any divisor: 0 is
    /// defined), `square`, `sign`, `clip`.
    pub(super) fn math_int(&mut self, shape: &Shape, dtype: DType, d: usize) -> String {
        if self.rng.one_in(3) {
            // One operand: it must have the whole shape (`operands` may give the smaller one first).
            let a = self.expr(shape, dtype, d);
            let f = self.rng.pick(&["square", "sign"]);
            return format!("{f}({a})");
        }
        let (a, b) = self.operands(shape, dtype, d);
        match self.rng.below(3) {
            0 => format!("mod({a}, {b})"),
            1 => format!("floor_divide({a}, {b})"),
            _ => format!("clip({a}, {b}, 3)"),
        }
    }
}
