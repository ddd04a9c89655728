//! `Display` for [`Value`], matching NumPy's `str()` of an array (NumPy 2 defaults:
//! `precision=8`, `floatmode='maxprec'`, `linewidth=75`, `threshold=1000`, `edgeitems=3`).
//!
//! - scalars print like NumPy scalars: `5.0`, `1e-05`, `5`, `True`;
//! - floats use the shortest digits that round-trip in their own precision (so `f32` values
//!   print as `f32`), at most 8 fractional digits, aligned to a common width, and switch to
//!   scientific notation when the largest magnitude is `>= 1e8`, the smallest nonzero one is
//!   `< 1e-4`, or their ratio exceeds 1000;
//! - long rows wrap at 75 columns;
//! - arrays of more than 1000 elements are summarized with `...`, keeping 3 items at each
//!   edge of every axis, and followed by a line `shape=(1000, 3) dtype=f64`.

use std::fmt::{self, Display, LowerExp};

use ndarray::{ArrayD, ArrayViewD, Axis};

use crate::value::Value;

const LINE_WIDTH: usize = 75;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;
const PRECISION: usize = 8;

impl Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_value(self))
    }
}

/// The text `print` shows for a value.
pub fn format_value(v: &Value) -> String {
    let body = match v {
        Value::Bool(a) => format_array(a, |_| Box::new(|&b: &bool| if b { " True" } else { "False" }.to_string()), |&b| py_bool(b)),
        Value::I32(a) => format_array(a, int_formatter, |x| x.to_string()),
        Value::I64(a) => format_array(a, int_formatter, |x| x.to_string()),
        Value::F32(a) => format_array(a, float_formatter, |&x| float_scalar(x)),
        Value::F64(a) => format_array(a, float_formatter, |&x| float_scalar(x)),
    };
    if v.len() > THRESHOLD {
        let dims: Vec<String> = v.shape().iter().map(|d| d.to_string()).collect();
        let tuple = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
        format!("{body}\nshape={tuple} dtype={}", v.dtype())
    } else {
        body
    }
}

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.to_string()
}

type ElemFmt<'a, T> = Box<dyn Fn(&T) -> String + 'a>;

fn format_array<T: Clone>(a: &ArrayD<T>, make: impl FnOnce(&[T]) -> ElemFmt<'static, T>, scalar: impl Fn(&T) -> String) -> String {
    if a.ndim() == 0 {
        return a.first().map(scalar).unwrap_or_default();
    }
    if a.is_empty() {
        return "[]".to_string();
    }
    let summarize = a.len() > THRESHOLD;
    let mut shown = Vec::new();
    collect_shown(a.view(), summarize, &mut shown);
    let elem = make(&shown);
    recurse(a.view(), &*elem, " ", LINE_WIDTH, summarize)
}

/// The elements that will be printed (NumPy's `_leading_trailing`), which alone decide widths.
fn collect_shown<T: Clone>(a: ArrayViewD<T>, summarize: bool, out: &mut Vec<T>) {
    if a.ndim() == 0 {
        out.extend(a.first().cloned());
        return;
    }
    let n = a.shape()[0];
    let idx: Vec<usize> = if summarize && n > 2 * EDGE_ITEMS { (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect() } else { (0..n).collect() };
    for i in idx {
        collect_shown(a.index_axis(Axis(0), i), summarize, out);
    }
}

/// NumPy's `_formatArray` for separator `' '`.
fn recurse<T>(a: ArrayViewD<T>, elem: &dyn Fn(&T) -> String, hanging: &str, width: usize, summarize: bool) -> String {
    if a.ndim() == 0 {
        return a.first().map(elem).unwrap_or_default();
    }
    let next_hanging = format!("{hanging} ");
    let next_width = width.saturating_sub(1);
    let n = a.shape()[0];
    let show_summary = summarize && 2 * EDGE_ITEMS < n;
    let (leading, trailing) = if show_summary { (EDGE_ITEMS, EDGE_ITEMS) } else { (0, n) };
    let sub = |i: usize| recurse(a.index_axis(Axis(0), i), elem, &next_hanging, next_width, summarize);
    let mut s = String::new();
    if a.ndim() == 1 {
        let elem_width = width.saturating_sub(1);
        let mut line = hanging.to_string();
        for i in 0..leading {
            extend_line(&mut s, &mut line, &sub(i), elem_width, hanging);
            line.push(' ');
        }
        if show_summary {
            extend_line(&mut s, &mut line, "...", elem_width, hanging);
            line.push(' ');
        }
        for i in (2..=trailing).rev() {
            extend_line(&mut s, &mut line, &sub(n - i), elem_width, hanging);
            line.push(' ');
        }
        extend_line(&mut s, &mut line, &sub(n - 1), elem_width, hanging);
        s.push_str(&line);
    } else {
        let line_sep = "\n".repeat(a.ndim() - 1);
        for i in 0..leading {
            s.push_str(hanging);
            s.push_str(&sub(i));
            s.push_str(&line_sep);
        }
        if show_summary {
            s.push_str(hanging);
            s.push_str("...");
            s.push_str(&line_sep);
        }
        for i in (2..=trailing).rev() {
            s.push_str(hanging);
            s.push_str(&sub(n - i));
            s.push_str(&line_sep);
        }
        s.push_str(hanging);
        s.push_str(&sub(n - 1));
    }
    format!("[{}]", &s[hanging.len()..])
}

fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, prefix: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > prefix.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = prefix.to_string();
    }
    line.push_str(word);
}

fn int_formatter<T: Display>(shown: &[T]) -> ElemFmt<'static, T> {
    let width = shown.iter().map(|x| x.to_string().len()).max().unwrap_or(0);
    Box::new(move |x: &T| format!("{:>width$}", x.to_string()))
}

/// What the float formatter needs from `f32` / `f64`.
trait PrintFloat: Copy + PartialOrd + Display + LowerExp + 'static {
    const E8: Self;
    const E16: Self;
    const E_4: Self;
    const E3: Self;
    const ZERO: Self;
    /// Enough fractional digits in scientific notation to show any finite value exactly.
    const EXACT_DIGITS: usize;
    fn is_finite(self) -> bool;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn abs(self) -> Self;
    fn div(self, o: Self) -> Self;
}

macro_rules! impl_print_float {
    ($t:ty, $exact:expr) => {
        impl PrintFloat for $t {
            const E8: Self = 1e8;
            const E16: Self = 1e16;
            const E_4: Self = 1e-4;
            const E3: Self = 1000.0;
            const ZERO: Self = 0.0;
            const EXACT_DIGITS: usize = $exact;
            fn is_finite(self) -> bool { <$t>::is_finite(self) }
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn is_sign_negative(self) -> bool { <$t>::is_sign_negative(self) }
            fn abs(self) -> Self { <$t>::abs(self) }
            fn div(self, o: Self) -> Self { self / o }
        }
    };
}
impl_print_float!(f32, 120);
impl_print_float!(f64, 780);

/// A finite float as sign, significant digits and decimal exponent: `-d.ddd × 10^exp`.
struct Digits {
    neg: bool,
    digits: String,
    exp: i32,
}

/// Parses Rust's `{:e}` output (`-1.25e-7`).
fn parse_exp(s: &str) -> Digits {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    Digits { neg, digits: mant.replace('.', ""), exp: exp.parse().unwrap_or(0) }
}

/// The shortest digits that round-trip, in the value's own precision. When two shortest
/// candidates are equally close to the exact value, NumPy's Dragon4 takes the one with an
/// even last digit; Rust's formatter may take the other, so ties are resolved here.
fn shortest<T: PrintFloat>(x: T) -> Digits {
    let mut d = parse_exp(&format!("{x:e}"));
    if !x.is_finite() || d.digits == "0" {
        return d;
    }
    // The exact binary value has at most `T::EXACT_DIGITS` significant digits.
    let exact = parse_exp(&format!("{x:.prec$e}", prec = T::EXACT_DIGITS));
    let exact_digits = exact.digits.trim_end_matches('0');
    let k = d.digits.len();
    if exact.exp == d.exp && exact_digits.len() == k + 1 && exact_digits.ends_with('5') {
        let trunc = &exact_digits[..k];
        let last = trunc.as_bytes()[k - 1] - b'0';
        if last.is_multiple_of(2) {
            d.digits = trunc.to_string();
        } else if d.digits == trunc && last < 9 {
            d.digits = format!("{}{}", &trunc[..k - 1], last + 1);
        }
    }
    d
}

fn sign(neg: bool) -> &'static str {
    if neg { "-" } else { "" }
}

/// Positional digits as (signed integer part, fractional part); at most `max_frac`
/// fractional digits (correctly rounded), trailing zeros trimmed.
///
/// With `max_frac` (array printing), an integral value too large for its shortest digits to
/// reach the units place prints all its exact integer digits (`f32` 92868784 prints as
/// `92868784.`, not `92868780.`), as NumPy's array printer does; scalars keep the zeros.
fn positional<T: PrintFloat>(x: T, max_frac: Option<usize>) -> (String, String) {
    let d = shortest(x);
    let len = d.digits.len() as i32;
    if max_frac.is_some() && len < d.exp + 1 {
        return (format!("{x:.0}"), String::new());
    }
    let frac_needed = (len - 1 - d.exp).max(0) as usize;
    if let Some(p) = max_frac.filter(|&p| frac_needed > p) {
        let s = format!("{x:.p$}");
        let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
        return (int.to_string(), frac.trim_end_matches('0').to_string());
    }
    let (int, frac) = if d.exp >= 0 {
        let e = d.exp as usize + 1;
        if d.digits.len() >= e {
            (d.digits[..e].to_string(), d.digits[e..].to_string())
        } else {
            (format!("{}{}", d.digits, "0".repeat(e - d.digits.len())), String::new())
        }
    } else {
        ("0".to_string(), format!("{}{}", "0".repeat((-d.exp - 1) as usize), d.digits))
    };
    let frac = if int == "0" && d.digits == "0" { String::new() } else { frac.trim_end_matches('0').to_string() };
    (format!("{}{int}", sign(d.neg)), frac)
}

/// Scientific digits as (signed leading digit, fractional digits, exponent); at most
/// `max_frac` fractional digits (correctly rounded), trailing zeros trimmed.
fn scientific<T: PrintFloat>(x: T, max_frac: Option<usize>) -> (String, String, i32) {
    let mut d = shortest(x);
    if let Some(p) = max_frac.filter(|&p| d.digits.len() > p + 1) {
        d = parse_exp(&format!("{x:.p$e}"));
    }
    let frac = d.digits.get(1..).unwrap_or("").trim_end_matches('0').to_string();
    (format!("{}{}", sign(d.neg), d.digits.get(..1).unwrap_or("0")), frac, d.exp)
}

fn exp_str(e: i32, min_digits: usize) -> String {
    format!("{}{:0min_digits$}", if e < 0 { '-' } else { '+' }, e.unsigned_abs())
}

fn non_finite<T: PrintFloat>(x: T) -> &'static str {
    if x.is_nan() {
        "nan"
    } else if x.is_sign_negative() {
        "-inf"
    } else {
        "inf"
    }
}

/// NumPy's `str()` of a float scalar: positional when `1e-4 <= |x| < 1e16` (or zero),
/// otherwise scientific, shortest round-trip digits either way.
fn float_scalar<T: PrintFloat>(x: T) -> String {
    if !x.is_finite() {
        return non_finite(x).to_string();
    }
    let a = x.abs();
    if a == T::ZERO || (T::E_4 <= a && a < T::E16) {
        let (int, frac) = positional(x, None);
        let frac = if frac.is_empty() { "0".to_string() } else { frac };
        format!("{int}.{frac}")
    } else {
        let (int, frac, e) = scientific(x, None);
        let dot = if frac.is_empty() { String::new() } else { format!(".{frac}") };
        format!("{int}{dot}e{}", exp_str(e, 2))
    }
}

/// NumPy's `FloatingFormat` for the printed elements `shown`.
fn float_formatter<T: PrintFloat>(shown: &[T]) -> ElemFmt<'static, T> {
    let finite: Vec<T> = shown.iter().copied().filter(|x| x.is_finite()).collect();
    let nonzero: Vec<T> = finite.iter().map(|x| x.abs()).filter(|&x| x != T::ZERO).collect();
    let mut exp_format = false;
    if let (Some(&max), Some(&min)) = (
        nonzero.iter().reduce(|a, b| if b > a { b } else { a }),
        nonzero.iter().reduce(|a, b| if b < a { b } else { a }),
    ) {
        exp_format = max >= T::E8 || min < T::E_4 || max.div(min) > T::E3;
    }

    let (mut pad_left, pad_right, precision, exp_size);
    if finite.is_empty() {
        (pad_left, pad_right, precision, exp_size) = (0, 0, 0, 0);
    } else if exp_format {
        let parts: Vec<_> = finite.iter().map(|&x| scientific(x, Some(PRECISION))).collect();
        precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
        exp_size = parts.iter().map(|p| exp_str(p.2, 2).len() - 1).max().unwrap_or(2);
        pad_right = exp_size + 2 + precision;
    } else {
        let parts: Vec<_> = finite.iter().map(|&x| positional(x, Some(PRECISION))).collect();
        pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
        pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        (precision, exp_size) = (0, 0);
    }
    if finite.len() != shown.len() {
        let neginf = shown.iter().any(|x| !x.is_finite() && !x.is_nan() && x.is_sign_negative());
        let offset = pad_right + 1;
        pad_left = pad_left.max(3usize.saturating_sub(offset)).max((3 + neginf as usize).saturating_sub(offset));
    }
    let total = pad_left + pad_right + 1;

    Box::new(move |&x: &T| {
        if !x.is_finite() {
            return format!("{:>total$}", non_finite(x));
        }
        if exp_format {
            // Every value gets exactly `precision` fractional digits, rounded from its exact
            // binary value (so `f32` 0.1 shows as `1.00000001e-01` next to longer values).
            let d = parse_exp(&format!("{x:.precision$e}"));
            let (int, frac) = (format!("{}{}", sign(d.neg), d.digits.get(..1).unwrap_or("0")), d.digits.get(1..).unwrap_or(""));
            format!("{int:>pad_left$}.{frac:0<precision$}e{}", exp_str(d.exp, exp_size))
        } else {
            let (int, frac) = positional(x, Some(PRECISION));
            format!("{int:>pad_left$}.{frac:<pad_right$}")
        }
    })
}

#[cfg(test)]
// Literals are NumPy's digits verbatim, even where they equal a named constant.
#[allow(clippy::approx_constant, clippy::excessive_precision)]
mod tests {
    use super::*;
    use ndarray::IxDyn;

    fn arr<T>(shape: &[usize], v: Vec<T>) -> ArrayD<T> {
        ArrayD::from_shape_vec(IxDyn(shape), v).unwrap()
    }

    #[track_caller]
    fn check(v: Value, expected: &str) {
        assert_eq!(v.to_string(), expected);
    }

    #[test]
    fn matches_numpy_str() {
    // Expected strings are NumPy 2.2's `str()` of the expression named above each case.
    // str(np.array([9., 12., 15.]))
    check(Value::F64(arr(&[3], vec![9.0, 12.0, 15.0])), "[ 9. 12. 15.]");
    // str(np.array([[1., 2.], [3., 4.]]))
    check(Value::F64(arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])), "[[1. 2.]\n [3. 4.]]");
    // str(np.array([1, 2, 3]))
    check(Value::I64(arr(&[3], vec![1, 2, 3])), "[1 2 3]");
    // str(np.array([-1, 10, 200], dtype=np.int32))
    check(Value::I32(arr(&[3], vec![-1, 10, 200])), "[ -1  10 200]");
    // str(np.array([True, False]))
    check(Value::Bool(arr(&[2], vec![true, false])), "[ True False]");
    // str(np.array([[True], [True]]))
    check(Value::Bool(arr(&[2, 1], vec![true, true])), "[[ True]\n [ True]]");
    // str(np.array(5.0))
    check(Value::F64(arr(&[], vec![5.0])), "5.0");
    // str(np.array(5))
    check(Value::I64(arr(&[], vec![5])), "5");
    // str(np.array(True))
    check(Value::Bool(arr(&[], vec![true])), "True");
    // str(np.array(1e-5))
    check(Value::F64(arr(&[], vec![1e-05])), "1e-05");
    // str(np.array(1e16))
    check(Value::F64(arr(&[], vec![1e+16])), "1e+16");
    // str(np.array(1e15))
    check(Value::F64(arr(&[], vec![1000000000000000.0])), "1000000000000000.0");
    // str(np.array(-0.0))
    check(Value::F64(arr(&[], vec![-0.0])), "-0.0");
    // str(np.array(np.nan))
    check(Value::F64(arr(&[], vec![f64::NAN])), "nan");
    // str(np.array(-np.inf))
    check(Value::F64(arr(&[], vec![-f64::INFINITY])), "-inf");
    // str(np.array(0.1 + 0.2))
    check(Value::F64(arr(&[], vec![0.30000000000000004])), "0.30000000000000004");
    // str(np.array(0.1, dtype=np.float32))
    check(Value::F32(arr(&[], vec![0.10000000149011612])), "0.1");
    // str(np.array(1e16, dtype=np.float32))
    check(Value::F32(arr(&[], vec![1.0000000272564224e+16])), "1e+16");
    // str(np.array(3.4028235e38, dtype=np.float32))
    check(Value::F32(arr(&[], vec![3.4028234663852886e+38])), "3.4028235e+38");
    // str(np.array([0.1, 1/3]))
    check(Value::F64(arr(&[2], vec![0.1, 0.3333333333333333])), "[0.1        0.33333333]");
    // str(np.array([0.1 + 0.2, 1.0]))
    check(Value::F64(arr(&[2], vec![0.30000000000000004, 1.0])), "[0.3 1. ]");
    // str(np.array([1., 2.5]))
    check(Value::F64(arr(&[2], vec![1.0, 2.5])), "[1.  2.5]");
    // str(np.array([-1.5, 2., 1e-3]))
    check(Value::F64(arr(&[3], vec![-1.5, 2.0, 0.001])), "[-1.5e+00  2.0e+00  1.0e-03]");
    // str(np.array([1e-5, 1e10]))
    check(Value::F64(arr(&[2], vec![1e-05, 10000000000.0])), "[1.e-05 1.e+10]");
    // str(np.array([1e-5, 1e100]))
    check(Value::F64(arr(&[2], vec![1e-05, 1e+100])), "[1.e-005 1.e+100]");
    // str(np.array([1e8, 1.0]))
    check(Value::F64(arr(&[2], vec![100000000.0, 1.0])), "[1.e+08 1.e+00]");
    // str(np.array([123456789.0]))
    check(Value::F64(arr(&[1], vec![123456789.0])), "[1.23456789e+08]");
    // str(np.array([1e-5, -2.5e-7, np.nan]))
    check(Value::F64(arr(&[3], vec![1e-05, -2.5e-07, f64::NAN])), "[ 1.0e-05 -2.5e-07      nan]");
    // str(np.array([np.nan, np.inf]))
    check(Value::F64(arr(&[2], vec![f64::NAN, f64::INFINITY])), "[nan inf]");
    // str(np.array([1.0, np.nan, -np.inf]))
    check(Value::F64(arr(&[3], vec![1.0, f64::NAN, -f64::INFINITY])), "[  1.  nan -inf]");
    // str(np.array([np.nan]))
    check(Value::F64(arr(&[1], vec![f64::NAN])), "[nan]");
    // str(np.array([-np.inf, 0.5]))
    check(Value::F64(arr(&[2], vec![-f64::INFINITY, 0.5])), "[-inf  0.5]");
    // str(np.array([0.0, -0.0]))
    check(Value::F64(arr(&[2], vec![0.0, -0.0])), "[ 0. -0.]");
    // str(np.array([0.0, 0.0]))
    check(Value::F64(arr(&[2], vec![0.0, 0.0])), "[0. 0.]");
    // str(np.array([0.001953125, 0.5]))
    check(Value::F64(arr(&[2], vec![0.001953125, 0.5])), "[0.00195312 0.5       ]");
    // str(np.array([1e-300, 1.0]))
    check(Value::F64(arr(&[2], vec![1e-300, 1.0])), "[1.e-300 1.e+000]");
    // str(np.array([2.0/3.0, 1000.0]))
    check(Value::F64(arr(&[2], vec![0.6666666666666666, 1000.0])), "[6.66666667e-01 1.00000000e+03]");
    // str(np.array([3.14159265358979, -2.71828182845904, 100.0]))
    check(Value::F64(arr(&[3], vec![3.14159265358979, -2.71828182845904, 100.0])), "[  3.14159265  -2.71828183 100.        ]");
    // str(np.array([99999999.5, 1.0]))
    check(Value::F64(arr(&[2], vec![99999999.5, 1.0])), "[9.99999995e+07 1.00000000e+00]");
    // str(np.array([1.23456789012e-3, 4.0]))
    check(Value::F64(arr(&[2], vec![0.00123456789012, 4.0])), "[1.23456789e-03 4.00000000e+00]");
    // str(np.array([9.999999999, 1.0]))
    check(Value::F64(arr(&[2], vec![9.999999999, 1.0])), "[10.  1.]");
    // str(np.array([0.1, 0.2, 0.3], dtype=np.float32))
    check(Value::F32(arr(&[3], vec![0.10000000149011612, 0.20000000298023224, 0.30000001192092896])), "[0.1 0.2 0.3]");
    // str(np.array([1/3, 2/3], dtype=np.float32))
    check(Value::F32(arr(&[2], vec![0.3333333432674408, 0.6666666865348816])), "[0.33333334 0.6666667 ]");
    // str(np.array([0.0001, 0.001], dtype=np.float32))
    check(Value::F32(arr(&[2], vec![9.999999747378752e-05, 0.0010000000474974513])), "[0.0001 0.001 ]");
    // str(np.array([1e-7, 1.0], dtype=np.float32))
    check(Value::F32(arr(&[2], vec![1.0000000116860974e-07, 1.0])), "[1.e-07 1.e+00]");
    // str(np.array([16777217.0, 1.0], dtype=np.float32))
    check(Value::F32(arr(&[2], vec![16777216.0, 1.0])), "[1.6777216e+07 1.0000000e+00]");
    // str(np.arange(30.))
    check(Value::F64(arr(&[30], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0])), "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]");
    // str(np.arange(30.).reshape(2, 15) / 7)
    check(Value::F64(arr(&[2, 15], vec![0.0, 0.14285714285714285, 0.2857142857142857, 0.42857142857142855, 0.5714285714285714, 0.7142857142857143, 0.8571428571428571, 1.0, 1.1428571428571428, 1.2857142857142858, 1.4285714285714286, 1.5714285714285714, 1.7142857142857142, 1.8571428571428572, 2.0, 2.142857142857143, 2.2857142857142856, 2.4285714285714284, 2.5714285714285716, 2.7142857142857144, 2.857142857142857, 3.0, 3.142857142857143, 3.2857142857142856, 3.4285714285714284, 3.5714285714285716, 3.7142857142857144, 3.857142857142857, 4.0, 4.142857142857143])), "[[0.         0.14285714 0.28571429 0.42857143 0.57142857 0.71428571\n  0.85714286 1.         1.14285714 1.28571429 1.42857143 1.57142857\n  1.71428571 1.85714286 2.        ]\n [2.14285714 2.28571429 2.42857143 2.57142857 2.71428571 2.85714286\n  3.         3.14285714 3.28571429 3.42857143 3.57142857 3.71428571\n  3.85714286 4.         4.14285714]]");
    // str(np.arange(40).reshape(2, 4, 5))
    check(Value::I64(arr(&[2, 4, 5], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39])), "[[[ 0  1  2  3  4]\n  [ 5  6  7  8  9]\n  [10 11 12 13 14]\n  [15 16 17 18 19]]\n\n [[20 21 22 23 24]\n  [25 26 27 28 29]\n  [30 31 32 33 34]\n  [35 36 37 38 39]]]");
    // str(np.arange(100))
    check(Value::I64(arr(&[100], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99])), "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47\n 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71\n 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95\n 96 97 98 99]");
    // str(np.arange(40) % 3 == 0)
    check(Value::Bool(arr(&[40], vec![true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true])), "[ True False False  True False False  True False False  True False False\n  True False False  True False False  True False False  True False False\n  True False False  True False False  True False False  True False False\n  True False False  True]");
    // str(np.zeros((2, 0)))
    check(Value::F64(arr(&[2, 0], vec![])), "[]");
    // str(np.zeros((1, 1, 1)))
    check(Value::F64(arr(&[1, 1, 1], vec![0.0])), "[[[0.]]]");
        // Shortest-digit ties go to the even digit, as in NumPy's Dragon4:
        // str(np.array([466749.625, 466749.875], dtype=np.float32))
        check(Value::F32(arr(&[2], vec![466749.625, 466749.875])), "[466749.62 466749.88]");
        // str(np.float32(466749.625))
        check(Value::F32(arr(&[], vec![466749.625])), "466749.62");
        // Arrays show all integer digits; scalars pad the shortest digits with zeros:
        // str(np.array([92868784.0], dtype=np.float32))
        check(Value::F32(arr(&[1], vec![92868784.0])), "[92868784.]");
        // str(np.float32(92868784.0))
        check(Value::F32(arr(&[], vec![92868784.0])), "92868780.0");
    }

    #[test]
    fn summarizes_large_arrays() {
        // str(np.arange(2000.).reshape(1000, 2))
        let v = Value::F64(ArrayD::from_shape_fn(IxDyn(&[1000, 2]), |i| (i[0] * 2 + i[1]) as f64));
        check(v, "[[0.000e+00 1.000e+00]\n [2.000e+00 3.000e+00]\n [4.000e+00 5.000e+00]\n ...\n [1.994e+03 1.995e+03]\n [1.996e+03 1.997e+03]\n [1.998e+03 1.999e+03]]\nshape=(1000, 2) dtype=f64");
        // str(np.arange(1001.) / 3)
        let v = Value::F64(ArrayD::from_shape_fn(IxDyn(&[1001]), |i| i[0] as f64 / 3.0));
        check(v, "[  0.           0.33333333   0.66666667 ... 332.66666667 333.\n 333.33333333]\nshape=(1001,) dtype=f64");
        // str(np.arange(1001, dtype=np.int32))
        let v = Value::I32(ArrayD::from_shape_fn(IxDyn(&[1001]), |i| i[0] as i32));
        check(v, "[   0    1    2 ...  998  999 1000]\nshape=(1001,) dtype=i32");
        // str(np.ones(1500, dtype=bool))
        check(Value::Bool(ArrayD::from_elem(IxDyn(&[1500]), true)), "[ True  True  True ...  True  True  True]\nshape=(1500,) dtype=bool");
        // str(np.arange(3003).reshape(3, 7, 11, 13))
        let v = Value::I64(ArrayD::from_shape_fn(IxDyn(&[3, 7, 11, 13]), |i| (((i[0] * 7 + i[1]) * 11 + i[2]) * 13 + i[3]) as i64));
        check(v, "[[[[   0    1    2 ...   10   11   12]\n   [  13   14   15 ...   23   24   25]\n   [  26   27   28 ...   36   37   38]\n   ...\n   [ 104  105  106 ...  114  115  116]\n   [ 117  118  119 ...  127  128  129]\n   [ 130  131  132 ...  140  141  142]]\n\n  [[ 143  144  145 ...  153  154  155]\n   [ 156  157  158 ...  166  167  168]\n   [ 169  170  171 ...  179  180  181]\n   ...\n   [ 247  248  249 ...  257  258  259]\n   [ 260  261  262 ...  270  271  272]\n   [ 273  274  275 ...  283  284  285]]\n\n  [[ 286  287  288 ...  296  297  298]\n   [ 299  300  301 ...  309  310  311]\n   [ 312  313  314 ...  322  323  324]\n   ...\n   [ 390  391  392 ...  400  401  402]\n   [ 403  404  405 ...  413  414  415]\n   [ 416  417  418 ...  426  427  428]]\n\n  ...\n\n  [[ 572  573  574 ...  582  583  584]\n   [ 585  586  587 ...  595  596  597]\n   [ 598  599  600 ...  608  609  610]\n   ...\n   [ 676  677  678 ...  686  687  688]\n   [ 689  690  691 ...  699  700  701]\n   [ 702  703  704 ...  712  713  714]]\n\n  [[ 715  716  717 ...  725  726  727]\n   [ 728  729  730 ...  738  739  740]\n   [ 741  742  743 ...  751  752  753]\n   ...\n   [ 819  820  821 ...  829  830  831]\n   [ 832  833  834 ...  842  843  844]\n   [ 845  846  847 ...  855  856  857]]\n\n  [[ 858  859  860 ...  868  869  870]\n   [ 871  872  873 ...  881  882  883]\n   [ 884  885  886 ...  894  895  896]\n   ...\n   [ 962  963  964 ...  972  973  974]\n   [ 975  976  977 ...  985  986  987]\n   [ 988  989  990 ...  998  999 1000]]]\n\n\n [[[1001 1002 1003 ... 1011 1012 1013]\n   [1014 1015 1016 ... 1024 1025 1026]\n   [1027 1028 1029 ... 1037 1038 1039]\n   ...\n   [1105 1106 1107 ... 1115 1116 1117]\n   [1118 1119 1120 ... 1128 1129 1130]\n   [1131 1132 1133 ... 1141 1142 1143]]\n\n  [[1144 1145 1146 ... 1154 1155 1156]\n   [1157 1158 1159 ... 1167 1168 1169]\n   [1170 1171 1172 ... 1180 1181 1182]\n   ...\n   [1248 1249 1250 ... 1258 1259 1260]\n   [1261 1262 1263 ... 1271 1272 1273]\n   [1274 1275 1276 ... 1284 1285 1286]]\n\n  [[1287 1288 1289 ... 1297 1298 1299]\n   [1300 1301 1302 ... 1310 1311 1312]\n   [1313 1314 1315 ... 1323 1324 1325]\n   ...\n   [1391 1392 1393 ... 1401 1402 1403]\n   [1404 1405 1406 ... 1414 1415 1416]\n   [1417 1418 1419 ... 1427 1428 1429]]\n\n  ...\n\n  [[1573 1574 1575 ... 1583 1584 1585]\n   [1586 1587 1588 ... 1596 1597 1598]\n   [1599 1600 1601 ... 1609 1610 1611]\n   ...\n   [1677 1678 1679 ... 1687 1688 1689]\n   [1690 1691 1692 ... 1700 1701 1702]\n   [1703 1704 1705 ... 1713 1714 1715]]\n\n  [[1716 1717 1718 ... 1726 1727 1728]\n   [1729 1730 1731 ... 1739 1740 1741]\n   [1742 1743 1744 ... 1752 1753 1754]\n   ...\n   [1820 1821 1822 ... 1830 1831 1832]\n   [1833 1834 1835 ... 1843 1844 1845]\n   [1846 1847 1848 ... 1856 1857 1858]]\n\n  [[1859 1860 1861 ... 1869 1870 1871]\n   [1872 1873 1874 ... 1882 1883 1884]\n   [1885 1886 1887 ... 1895 1896 1897]\n   ...\n   [1963 1964 1965 ... 1973 1974 1975]\n   [1976 1977 1978 ... 1986 1987 1988]\n   [1989 1990 1991 ... 1999 2000 2001]]]\n\n\n [[[2002 2003 2004 ... 2012 2013 2014]\n   [2015 2016 2017 ... 2025 2026 2027]\n   [2028 2029 2030 ... 2038 2039 2040]\n   ...\n   [2106 2107 2108 ... 2116 2117 2118]\n   [2119 2120 2121 ... 2129 2130 2131]\n   [2132 2133 2134 ... 2142 2143 2144]]\n\n  [[2145 2146 2147 ... 2155 2156 2157]\n   [2158 2159 2160 ... 2168 2169 2170]\n   [2171 2172 2173 ... 2181 2182 2183]\n   ...\n   [2249 2250 2251 ... 2259 2260 2261]\n   [2262 2263 2264 ... 2272 2273 2274]\n   [2275 2276 2277 ... 2285 2286 2287]]\n\n  [[2288 2289 2290 ... 2298 2299 2300]\n   [2301 2302 2303 ... 2311 2312 2313]\n   [2314 2315 2316 ... 2324 2325 2326]\n   ...\n   [2392 2393 2394 ... 2402 2403 2404]\n   [2405 2406 2407 ... 2415 2416 2417]\n   [2418 2419 2420 ... 2428 2429 2430]]\n\n  ...\n\n  [[2574 2575 2576 ... 2584 2585 2586]\n   [2587 2588 2589 ... 2597 2598 2599]\n   [2600 2601 2602 ... 2610 2611 2612]\n   ...\n   [2678 2679 2680 ... 2688 2689 2690]\n   [2691 2692 2693 ... 2701 2702 2703]\n   [2704 2705 2706 ... 2714 2715 2716]]\n\n  [[2717 2718 2719 ... 2727 2728 2729]\n   [2730 2731 2732 ... 2740 2741 2742]\n   [2743 2744 2745 ... 2753 2754 2755]\n   ...\n   [2821 2822 2823 ... 2831 2832 2833]\n   [2834 2835 2836 ... 2844 2845 2846]\n   [2847 2848 2849 ... 2857 2858 2859]]\n\n  [[2860 2861 2862 ... 2870 2871 2872]\n   [2873 2874 2875 ... 2883 2884 2885]\n   [2886 2887 2888 ... 2896 2897 2898]\n   ...\n   [2964 2965 2966 ... 2974 2975 2976]\n   [2977 2978 2979 ... 2987 2988 2989]\n   [2990 2991 2992 ... 3000 3001 3002]]]]\nshape=(3, 7, 11, 13) dtype=i64");
        // str((np.arange(1200, dtype=np.float32) * np.float32(0.1)).reshape(40, 30))
        let v = Value::F32(ArrayD::from_shape_fn(IxDyn(&[40, 30]), |i| (i[0] * 30 + i[1]) as f32 * 0.1f32));
        check(v, "[[0.00000000e+00 1.00000001e-01 2.00000003e-01 ... 2.70000005e+00\n  2.79999995e+00 2.90000010e+00]\n [3.00000000e+00 3.10000014e+00 3.20000005e+00 ... 5.70000029e+00\n  5.80000019e+00 5.90000010e+00]\n [6.00000000e+00 6.09999990e+00 6.20000029e+00 ... 8.69999981e+00\n  8.80000019e+00 8.90000057e+00]\n ...\n [1.11000000e+02 1.11099998e+02 1.11200005e+02 ... 1.13700005e+02\n  1.13800003e+02 1.13900002e+02]\n [1.14000000e+02 1.14099998e+02 1.14200005e+02 ... 1.16700005e+02\n  1.16800003e+02 1.16900002e+02]\n [1.17000000e+02 1.17099998e+02 1.17200005e+02 ... 1.19700005e+02\n  1.19800003e+02 1.19900002e+02]]\nshape=(40, 30) dtype=f32");
    }
}
