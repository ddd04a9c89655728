//! Payne-Hanek reduction by pi/2 for arguments past the three-part reduction's reach.
//!
//! With `|x| = M * 2^s` (M the 53-bit significand), `x * 2/pi mod 4` needs only the bits of
//! 2/pi from weight `2^-(s-1)` on: earlier bits give multiples of 4. A 192-bit window of them
//! is shifted out of `TWO_OVER_PI` by x's exponent (a chain of selects: straight-line code
//! that vectorizes), multiplied by M exactly in 32-bit halves, and the product's top bits are
//! the quadrant and the fraction to 128 bits. Even the `f64` nearest a multiple of pi/2
//! (6381956970095103 * 2^797, 2^-61 away in units of pi/2) keeps 60 bits of it.

use super::super::fbuild::{F, V};
use crate::error::Result;
use melior::dialect::arith::{self, CmpiPredicate};
use ptl_lang::DType;

// scripts/coefficients/two_over_pi.py: word 0 is zero; word j >= 1 holds 2/pi's fraction
// bits with weights 2^-(64 j - 63) down to 2^-(64 j).
const TWO_OVER_PI: [u64; 20] = [
    0x0000000000000000,
    0xa2f9836e4e441529,
    0xfc2757d1f534ddc0,
    0xdb6295993c439041,
    0xfe5163abdebbc561,
    0xb7246e3a424dd2e0,
    0x06492eea09d1921c,
    0xfe1deb1cb129a73e,
    0xe88235f52ebb4484,
    0xe99c7026b45f7e41,
    0x3991d639835339f4,
    0x9c845f8bbdf9283b,
    0x1ff897ffde05980f,
    0xef2f118b5a0a6d1f,
    0x6d367ecf27cb09b7,
    0x4f463f669e5fea2d,
    0x7527bac7ebe5f17b,
    0x3d0739f78a5292ea,
    0x6bfb5fb11f8d5d08,
    0x56033046fc7b6bab,
];

// pi/2 as a double-double.
const PIO2_HI: f64 = 1.570_796_326_794_896_558e+00;
const PIO2_LO: f64 = 6.123_233_995_736_766_036e-17;

/// `x = n * pi/2 + head + tail` with `|head + tail| <= pi/4`; `quadrant = n mod 4` (an `f64`).
pub struct Reduced<'c, 'a> {
    pub quadrant: V<'c, 'a>,
    pub head: V<'c, 'a>,
    pub tail: V<'c, 'a>,
}

/// The exact reduction of a finite `x` with `|x| >= 2^-11` (other arguments give values
/// that the caller does not select).
pub fn reduce<'c, 'a>(f: F<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<Reduced<'c, 'a>> {
    let i = Int(f);
    let bits = f.bits(f.abs(x)?)?;
    let exponent = f.shr(bits, 52)?;
    let significand = i.or(f.iand(bits, (1 << 52) - 1)?, f.i(1 << 52)?)?;
    // |x| = M * 2^s with s = exponent - 1075; the window starts at bit s - 1 of 2/pi's
    // fraction, which is bit `start = s + 62` of the table counted from its first word's top.
    let start = i.sub(exponent, f.i(1075 - 62)?)?;
    let word = i.shrs(start, 6)?;
    let shift = f.iand(start, 63)?;
    let back = i.sub(f.i(63)?, shift)?;
    // Words word..word+3 of the table, then three 64-bit words of the window.
    let table: Vec<V<'c, 'a>> = (0..4).map(|j| i.pick(word, j)).collect::<Result<_>>()?;
    let window: Vec<V<'c, 'a>> = (0..3)
        .map(|j| {
            let high = i.shl(table[j], shift)?;
            // (next >> 1) >> (63 - shift): no shift by 64 when shift is 0.
            let low = i.shru(f.shr(table[j + 1], 1)?, back)?;
            i.or(high, low)
        })
        .collect::<Result<_>>()?;
    // M * window, keeping bits 0..191 of the 245-bit product (bit 190 has weight 1).
    let lo0 = i.mul(significand, window[0])?;
    let (lo1, hi1) = i.mul_wide(significand, window[1])?;
    let (lo2, hi2) = i.mul_wide(significand, window[2])?;
    let w1 = i.add(lo1, hi2)?;
    let carry = i.extend(i.ult(w1, lo1)?)?;
    let w0 = i.add(i.add(lo0, hi1)?, carry)?;
    let w2 = lo2;
    // Nearest integer n (mod 4) and the fraction F - n in [-1/2, 1/2) as a signed 128-bit
    // fixed-point number `high * 2^-64 + low * 2^-128`.
    let floor_n = f.shr(w0, 62)?;
    let round_up = f.iand(f.shr(w0, 61)?, 1)?;
    let n = f.iand(i.add(floor_n, round_up)?, 3)?;
    let high = i.or(f.shl(w0, 2)?, f.shr(w1, 62)?)?;
    let low = i.or(f.shl(w1, 2)?, f.shr(w2, 62)?)?;
    let (frac_head, frac_tail) = to_double_double(f, i, high, low)?;
    // Times pi/2, as a double-double.
    let p = f.mul(frac_head, f.c(PIO2_HI)?)?;
    let p_err = f.fma(frac_head, f.c(PIO2_HI)?, f.neg(p)?)?;
    let rest = f.add(p_err, f.add(f.mulc(frac_head, PIO2_LO)?, f.mulc(frac_tail, PIO2_HI)?)?)?;
    let head = f.add(p, rest)?;
    let tail = f.sub(rest, f.sub(head, p)?)?;
    // Negative x: x = -n * pi/2 - (head + tail).
    let negative = f.sign_bit(x)?;
    let minus_n = f.iand(i.sub(f.i(0)?, n)?, 3)?;
    let n = f.sel(negative, minus_n, n)?;
    Ok(Reduced {
        quadrant: f.to_float(n)?,
        head: f.sel(negative, f.neg(head)?, head)?,
        tail: f.sel(negative, f.neg(tail)?, tail)?,
    })
}

/// `high * 2^-64 + low * 2^-128` (high signed, low unsigned) as `head + tail`: four exact
/// 32-bit pieces summed with the rounding errors kept.
fn to_double_double<'c, 'a>(f: F<'_, 'c, 'a>, i: Int<'_, 'c, 'a>, high: V<'c, 'a>, low: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
    let mask = 0xffff_ffff_i64;
    let pieces = [
        f.mulc(f.to_float(i.shrs(high, 32)?)?, 2f64.powi(-32))?,
        f.mulc(i.to_float_unsigned(f.iand(high, mask)?)?, 2f64.powi(-64))?,
        f.mulc(i.to_float_unsigned(f.shr(low, 32)?)?, 2f64.powi(-96))?,
        f.mulc(i.to_float_unsigned(f.iand(low, mask)?)?, 2f64.powi(-128))?,
    ];
    let mut sum = pieces[0];
    let mut errors = f.c(0.0)?;
    for &piece in &pieces[1..] {
        // Knuth's two-sum: sum + piece = s + err exactly.
        let s = f.add(sum, piece)?;
        let b = f.sub(s, sum)?;
        let err = f.add(f.sub(sum, f.sub(s, b)?)?, f.sub(piece, b)?)?;
        errors = f.add(errors, err)?;
        sum = s;
    }
    let head = f.add(sum, errors)?;
    let tail = f.sub(errors, f.sub(head, sum)?)?;
    Ok((head, tail))
}

/// The `i64` operations the reduction needs beyond `F`'s.
#[derive(Clone, Copy)]
struct Int<'x, 'c, 'a>(F<'x, 'c, 'a>);

impl<'x, 'c, 'a> Int<'x, 'c, 'a> {
    fn append(&self, op: melior::ir::Operation<'c>) -> Result<V<'c, 'a>> {
        self.0.e.append(op)
    }
    fn add(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::addi(a, b, self.0.e.loc))
    }
    fn sub(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::subi(a, b, self.0.e.loc))
    }
    fn or(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::ori(a, b, self.0.e.loc))
    }
    fn shl(&self, a: V<'c, 'a>, n: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::shli(a, n, self.0.e.loc))
    }
    fn shru(&self, a: V<'c, 'a>, n: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::shrui(a, n, self.0.e.loc))
    }
    fn shrs(&self, a: V<'c, 'a>, n: i64) -> Result<V<'c, 'a>> {
        self.append(arith::shrsi(a, self.0.i(n)?, self.0.e.loc))
    }
    fn ult(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::cmpi(self.0.e.ctx, CmpiPredicate::Ult, a, b, self.0.e.loc))
    }
    fn extend(&self, bit: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::extui(bit, self.0.e.elem(DType::I64), self.0.e.loc))
    }
    fn to_float_unsigned(&self, a: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::uitofp(a, self.0.e.elem(DType::F64), self.0.e.loc))
    }
    fn mul(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<V<'c, 'a>> {
        self.append(arith::muli(a, b, self.0.e.loc))
    }
    /// The 128-bit product of a word `a < 2^53` and any word `b`: (low, high). Built from
    /// 32-bit halves with `muli`: IREE does not legalize `arith.mului_extended` on the 2-d
    /// vectors a generic of rank 2 vectorizes to.
    fn mul_wide(&self, a: V<'c, 'a>, b: V<'c, 'a>) -> Result<(V<'c, 'a>, V<'c, 'a>)> {
        let f = self.0;
        let mask = 0xffff_ffff_i64;
        let (a1, a0) = (f.shr(a, 32)?, f.iand(a, mask)?);
        let (b1, b0) = (f.shr(b, 32)?, f.iand(b, mask)?);
        // Every partial product fits in 64 bits (a1 < 2^21).
        let p00 = self.mul(a0, b0)?;
        let p01 = self.mul(a0, b1)?;
        let p10 = self.mul(a1, b0)?;
        let p11 = self.mul(a1, b1)?;
        let middle = self.add(self.add(f.shr(p00, 32)?, f.iand(p01, mask)?)?, f.iand(p10, mask)?)?;
        let high = self.add(self.add(p11, f.shr(p01, 32)?)?, self.add(f.shr(p10, 32)?, f.shr(middle, 32)?)?)?;
        Ok((self.mul(a, b)?, high))
    }
    /// `TWO_OVER_PI[word + j]`, by selects over the words an argument can start at.
    fn pick(&self, word: V<'c, 'a>, j: usize) -> Result<V<'c, 'a>> {
        let last_start = TWO_OVER_PI.len() - 4;
        let mut out = self.0.i(TWO_OVER_PI[j] as i64)?;
        for start in 1..=last_start {
            let here = self.append(arith::cmpi(self.0.e.ctx, CmpiPredicate::Eq, word, self.0.i(start as i64)?, self.0.e.loc))?;
            out = self.0.sel(here, self.0.i(TWO_OVER_PI[start + j] as i64)?, out)?;
        }
        Ok(out)
    }
}
