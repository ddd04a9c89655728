//! A small builder for `f64` element code: the math library writes its algorithms with it as
//! straight-line arithmetic (every branch of an algorithm is computed and the right one
//! selected), since IREE's CPU backend links no libm for `f64`.
//!
//! Only `arith` ops and the `math` ops IREE compiles inline for `f64` are used: `exp`, `log`,
//! `sqrt`, `floor`, `ceil`, `trunc`, `roundeven`, `fma`, `absf`, `copysign`.

use melior::dialect::arith::{self, CmpfPredicate, CmpiPredicate};
use melior::dialect::ods::{arith as ods_arith, math};
use melior::ir::Value;
use ptl_lang::DType;

use crate::emitter::Emitter;
use crate::error::Result;

pub type V<'c, 'a> = Value<'c, 'a>;

/// Builds `f64` (and `i64`/`i1` helper) element code into an emitter's block.
#[derive(Clone, Copy)]
pub struct F<'x, 'c, 'a> {
    pub e: &'x Emitter<'c, 'a>,
}

impl<'x, 'c, 'a> F<'x, 'c, 'a> {
    pub fn new(e: &'x Emitter<'c, 'a>) -> Self {
        F { e }
    }

    pub fn c(&self, v: f64) -> Result<V<'c, 'a>> {
        self.e.const_scalar(DType::F64, v)
    }
    pub fn add(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::addf(a, b, self.e.loc))
    }
    pub fn sub(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::subf(a, b, self.e.loc))
    }
    pub fn mul(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::mulf(a, b, self.e.loc))
    }
    pub fn div(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::divf(a, b, self.e.loc))
    }
    /// `a * b + c` with one rounding.
    pub fn fma(&self, a: V<'c, 'a>, b: V<'c, 'a>, c: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::fma(self.e.ctx, a, b, c, self.e.loc).into())
    }
    pub fn addc(&self, a: V<'c, 'a>, k: f64) -> Result<V<'c, 'a>> {
        self.add(a, self.c(k)?)
    }
    pub fn mulc(&self, a: V<'c, 'a>, k: f64) -> Result<V<'c, 'a>> {
        self.mul(a, self.c(k)?)
    }
    pub fn neg(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::negf(a, self.e.loc))
    }
    pub fn abs(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::absf(self.e.ctx, a, self.e.loc).into())
    }
    pub fn floor(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::floor(self.e.ctx, a, self.e.loc).into())
    }
    pub fn ceil(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::ceil(self.e.ctx, a, self.e.loc).into())
    }
    pub fn trunc(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::trunc(self.e.ctx, a, self.e.loc).into())
    }
    pub fn roundeven(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::roundeven(self.e.ctx, a, self.e.loc).into())
    }
    pub fn exp(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::exp(self.e.ctx, a, self.e.loc).into())
    }
    pub fn log(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::log(self.e.ctx, a, self.e.loc).into())
    }
    pub fn sqrt(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::sqrt(self.e.ctx, a, self.e.loc).into())
    }
    pub fn copysign(&self, mag: V<'c, 'a>, sign: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(math::copysign(self.e.ctx, mag, sign, self.e.loc).into())
    }
    /// NaN if either is NaN, as `np.maximum`.
    pub fn max(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(ods_arith::maximumf(self.e.ctx, a, b, self.e.loc).into())
    }
    pub fn min(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::minimumf(a, b, self.e.loc))
    }

    fn cmp(&self, p: CmpfPredicate, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::cmpf(self.e.ctx, p, a, b, self.e.loc))
    }
    pub fn lt(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.cmp(CmpfPredicate::Olt, a, b)
    }
    pub fn gt(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.cmp(CmpfPredicate::Ogt, a, b)
    }
    /// `a <= b` (false for NaN).
    pub fn le(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.cmp(CmpfPredicate::Ole, a, b)
    }
    pub fn ge(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.cmp(CmpfPredicate::Oge, a, b)
    }
    pub fn eq(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.cmp(CmpfPredicate::Oeq, a, b)
    }
    pub fn ltc(&self, a: V<'c, 'a>, k: f64) -> Result<V<'c, 'a>> {
        self.lt(a, self.c(k)?)
    }
    pub fn gtc(&self, a: V<'c, 'a>, k: f64) -> Result<V<'c, 'a>> {
        self.gt(a, self.c(k)?)
    }
    pub fn gec(&self, a: V<'c, 'a>, k: f64) -> Result<V<'c, 'a>> {
        self.ge(a, self.c(k)?)
    }
    pub fn eqc(&self, a: V<'c, 'a>, k: f64) -> Result<V<'c, 'a>> {
        self.eq(a, self.c(k)?)
    }
    pub fn is_nan(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.cmp(CmpfPredicate::Uno, a, a)
    }
    /// Whether `|a|` is infinite.
    pub fn is_inf(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let ab = self.abs(a)?;
        self.eqc(ab, f64::INFINITY)
    }
    pub fn sel(&self, c: V<'c, 'a>, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::select(c, a, b, self.e.loc))
    }
    pub fn and(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::andi(a, b, self.e.loc))
    }
    pub fn or(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::ori(a, b, self.e.loc))
    }
    /// The negation of an `i1`.
    pub fn not(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let t = self.e.const_scalar(DType::Bool, 1.0)?;
        self.e.append(arith::xori(a, t, self.e.loc))
    }
    /// `r`, except NaN where `x` is NaN (the algorithms' comparisons are false on NaN).
    pub fn nan_through(&self, x: V<'c, 'a>, r: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let n = self.is_nan(x)?;
        self.sel(n, x, r)
    }

    /// `c[0] + x * (c[1] + x * (c[2] + ...))`.
    pub fn poly(&self, x: V<'c, 'a>, c: &[f64]) -> Result<V<'c, 'a>> {
        let mut acc = self.c(c[c.len() - 1])?;
        for &k in c[..c.len() - 1].iter().rev() {
            acc = self.add(self.c(k)?, self.mul(x, acc)?)?;
        }
        Ok(acc)
    }

    // Bit-level helpers on `i64`.
    pub fn bits(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::bitcast(a, self.e.elem(DType::I64), self.e.loc))
    }
    pub fn from_bits(&self, i: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::bitcast(i, self.e.elem(DType::F64), self.e.loc))
    }
    pub fn i(&self, v: i64) -> Result<V<'c, 'a>> {
        self.e.const_int(DType::I64, v)
    }
    pub fn iand(&self, a: V<'c, 'a>, m: i64) -> Result<V<'c, 'a>> {
        self.e.append(arith::andi(a, self.i(m)?, self.e.loc))
    }
    pub fn iadd(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::addi(a, b, self.e.loc))
    }
    pub fn shl(&self, a: V<'c, 'a>, n: i64) -> Result<V<'c, 'a>> {
        self.e.append(arith::shli(a, self.i(n)?, self.e.loc))
    }
    pub fn shr(&self, a: V<'c, 'a>, n: i64) -> Result<V<'c, 'a>> {
        self.e.append(arith::shrui(a, self.i(n)?, self.e.loc))
    }
    pub fn ilt(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::cmpi(self.e.ctx, CmpiPredicate::Slt, a, b, self.e.loc))
    }
    pub fn to_int(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::fptosi(a, self.e.elem(DType::I64), self.e.loc))
    }
    pub fn to_float(&self, i: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.e.append(arith::sitofp(i, self.e.elem(DType::F64), self.e.loc))
    }
    /// Whether the sign bit of `a` is set (true for -0.0 and negative NaNs too).
    pub fn sign_bit(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let b = self.bits(a)?;
        self.ilt(b, self.i(0)?)
    }
    /// `a` with the low 32 bits of its representation cleared (fdlibm's `SET_LOW_WORD(x, 0)`).
    pub fn high_word_only(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let b = self.bits(a)?;
        self.from_bits(self.iand(b, !0xffff_ffff_i64)?)
    }
    /// `2^n` for an integral `n` (an `f64`) in [-1022, 1023], built from its bits.
    pub fn pow2(&self, n: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let k = self.to_int(n)?;
        let biased = self.iadd(k, self.i(1023)?)?;
        self.from_bits(self.shl(biased, 52)?)
    }
    /// `x * 2^n` for an integral `n` (an `f64`), clamped to [-2200, 2200] first: two exact
    /// scalings, so only a subnormal result is rounded (once).
    pub fn ldexp(&self, x: V<'c, 'a>, n: V<'c, 'a>) -> Result<V<'c, 'a>> {
        let n = self.max(self.min(n, self.c(2200.0)?)?, self.c(-2200.0)?)?;
        let n1 = self.floor(self.mulc(n, 0.5)?)?;
        let n2 = self.sub(n, n1)?;
        // n1, n2 in [-1100, 1100]: split again so each factor is a normal power of two.
        let mut r = x;
        for h in [n1, n2] {
            let a = self.floor(self.mulc(h, 0.5)?)?;
            let b = self.sub(h, a)?;
            r = self.mul(r, self.pow2(a)?)?;
            r = self.mul(r, self.pow2(b)?)?;
        }
        Ok(r)
    }

    /// Converts an element of a float dtype to `f64` (f32 ops compute in f64).
    pub fn widen(&self, dt: DType, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
        if dt == DType::F32 { self.e.append(arith::extf(x, self.e.elem(DType::F64), self.e.loc)) } else { Ok(x) }
    }
    /// Rounds an `f64` result back to `dt`.
    pub fn narrow(&self, dt: DType, x: V<'c, 'a>) -> Result<V<'c, 'a>> {
        if dt == DType::F32 {
            self.e.append(ods_arith::truncf(self.e.ctx, self.e.elem(DType::F32), x, self.e.loc).into())
        } else {
            Ok(x)
        }
    }
}
