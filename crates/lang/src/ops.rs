//! The op table: every operation of the typed program, and every builtin a user calls by name.
//!
//! This file is the one source for builtin names, their arities, "did you mean" candidates,
//! the names the PyTensor importer must not give variables, and the reference chapter's op
//! list (a test checks the book against [`Builtin::all`]). Each op belongs to a [`Family`];
//! the checker, the interpreter and the lowering each have one function per family, so a new
//! op of an existing family is one variant here plus one arm in each backend's family file.

use std::fmt;

/// Elementwise functions of one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Exp,
    Log,
    Log1p,
    Sqrt,
    Tanh,
    Abs,
    Sigmoid,
    Sin,
    Cos,
    Tan,
    Arcsin,
    Arccos,
    Arctan,
    Sinh,
    Cosh,
    Arcsinh,
    Arccosh,
    Arctanh,
    Exp2,
    Expm1,
    Log2,
    Log10,
    Cbrt,
    Square,
    Reciprocal,
    Sign,
    Floor,
    Ceil,
    Round,
    Trunc,
    Erf,
    Erfc,
    /// `erfcx(x) = exp(x^2) erfc(x)`, the scaled complementary error function (SciPy's).
    Erfcx,
    /// Euler's Gamma function (SciPy's `gamma`).
    Gamma,
    Gammaln,
    Digamma,
    /// `trigamma(x)`, the derivative of digamma (SciPy's `polygamma(1, x)`).
    Trigamma,
    /// The modified Bessel functions of the first kind of orders 0 and 1 (SciPy's `i0`, `i1`),
    /// and the same scaled by `exp(-|x|)` (`i0e`, `i1e`).
    I0,
    I1,
    I0e,
    I1e,
    /// The Bessel functions of the first kind of orders 0 and 1 (SciPy's `j0`, `j1`).
    J0,
    J1,
    Erfinv,
    /// `erfcinv(z) = erfinv(1 - z)`, accurate for tiny z (SciPy's).
    Erfcinv,
    Log1mexp,
    Softplus,
    Isnan,
    Isinf,
    Isfinite,
    LogicalNot,
}

impl UnaryOp {
    /// The unary ops callable by name (`Neg` is the prefix operator `-`).
    pub const CALLABLE: &[UnaryOp] = &[
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Sqrt,
        UnaryOp::Tanh,
        UnaryOp::Abs,
        UnaryOp::Sigmoid,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Arcsin,
        UnaryOp::Arccos,
        UnaryOp::Arctan,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Arcsinh,
        UnaryOp::Arccosh,
        UnaryOp::Arctanh,
        UnaryOp::Exp2,
        UnaryOp::Expm1,
        UnaryOp::Log2,
        UnaryOp::Log10,
        UnaryOp::Cbrt,
        UnaryOp::Square,
        UnaryOp::Reciprocal,
        UnaryOp::Sign,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::Erf,
        UnaryOp::Erfc,
        UnaryOp::Erfcx,
        UnaryOp::Gamma,
        UnaryOp::Gammaln,
        UnaryOp::Digamma,
        UnaryOp::Trigamma,
        UnaryOp::I0,
        UnaryOp::I1,
        UnaryOp::I0e,
        UnaryOp::I1e,
        UnaryOp::J0,
        UnaryOp::J1,
        UnaryOp::Erfinv,
        UnaryOp::Erfcinv,
        UnaryOp::Log1mexp,
        UnaryOp::Softplus,
        UnaryOp::Isnan,
        UnaryOp::Isinf,
        UnaryOp::Isfinite,
        UnaryOp::LogicalNot,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Abs => "abs",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tan => "tan",
            UnaryOp::Arcsin => "arcsin",
            UnaryOp::Arccos => "arccos",
            UnaryOp::Arctan => "arctan",
            UnaryOp::Sinh => "sinh",
            UnaryOp::Cosh => "cosh",
            UnaryOp::Arcsinh => "arcsinh",
            UnaryOp::Arccosh => "arccosh",
            UnaryOp::Arctanh => "arctanh",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Log2 => "log2",
            UnaryOp::Log10 => "log10",
            UnaryOp::Cbrt => "cbrt",
            UnaryOp::Square => "square",
            UnaryOp::Reciprocal => "reciprocal",
            UnaryOp::Sign => "sign",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Trunc => "trunc",
            UnaryOp::Erf => "erf",
            UnaryOp::Erfc => "erfc",
            UnaryOp::Erfcx => "erfcx",
            UnaryOp::Gamma => "gamma",
            UnaryOp::Gammaln => "gammaln",
            UnaryOp::Digamma => "digamma",
            UnaryOp::Trigamma => "trigamma",
            UnaryOp::I0 => "i0",
            UnaryOp::I1 => "i1",
            UnaryOp::I0e => "i0e",
            UnaryOp::I1e => "i1e",
            UnaryOp::J0 => "j0",
            UnaryOp::J1 => "j1",
            UnaryOp::Erfinv => "erfinv",
            UnaryOp::Erfcinv => "erfcinv",
            UnaryOp::Log1mexp => "log1mexp",
            UnaryOp::Softplus => "softplus",
            UnaryOp::Isnan => "isnan",
            UnaryOp::Isinf => "isinf",
            UnaryOp::Isfinite => "isfinite",
            UnaryOp::LogicalNot => "logical_not",
        }
    }

    /// Whether an integer operand keeps its dtype (`abs`, `-`); every other op computes in
    /// floating point, so the checker casts integers to `f64` first, as NumPy does.
    pub fn keeps_integers(self) -> bool {
        use UnaryOp::*;
        matches!(self, Neg | Abs | Square | Sign | Floor | Ceil | Round | Trunc)
    }

    /// The tests `isnan`, `isinf`, `isfinite` and `logical_not` give bool.
    pub fn gives_bool(self) -> bool {
        use UnaryOp::*;
        matches!(self, Isnan | Isinf | Isfinite | LogicalNot)
    }
}

/// Elementwise functions of two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Maximum,
    Minimum,
    /// Comparisons produce bool.
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// `arctan2(y, x)`: the angle of the point (x, y), in (-pi, pi].
    Arctan2,
    /// `mod(a, b)`: the remainder with the sign of the divisor, as NumPy's `mod`.
    Mod,
    /// `floor_divide(a, b)`: `floor(a / b)`, as NumPy's `//`.
    FloorDivide,
    /// `logaddexp(a, b)`: `log(exp(a) + exp(b))` without overflow.
    Logaddexp,
    /// `gammainc(a, x)` and `gammaincc(a, x)`: the regularised lower and upper incomplete
    /// gamma functions `P(a, x)` and `Q(a, x) = 1 - P(a, x)` (SciPy's).
    Gammainc,
    Gammaincc,
    /// `gammaincinv(a, y)` and `gammainccinv(a, y)`: their inverses in `x`, the `x` with
    /// `P(a, x) = y` and the `x` with `Q(a, x) = y` (SciPy's).
    Gammaincinv,
    Gammainccinv,
    /// `polygamma(n, x)`: the n-th derivative of digamma (SciPy's); `n` a non-negative integer.
    Polygamma,
    /// `owens_t(h, a)`: Owen's T function, `(1/2pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx`
    /// (SciPy's), the probability of a standard bivariate normal region.
    OwensT,
    /// `kv(v, x)`: the modified Bessel function of the second kind of real order `v` (SciPy's).
    Kv,
    /// `kve(v, x)`: `exp(x) kv(v, x)`, which neither overflows nor underflows for large `x`.
    Kve,
    /// Logical ops on bool operands (the checker casts numbers to bool first).
    LogicalAnd,
    LogicalOr,
    LogicalXor,
}

impl BinaryOp {
    /// The binary ops callable by name (the others are operators; `power` is `**`).
    pub const CALLABLE: &[BinaryOp] = &[
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Pow,
        BinaryOp::Arctan2,
        BinaryOp::Mod,
        BinaryOp::FloorDivide,
        BinaryOp::Logaddexp,
        BinaryOp::Gammainc,
        BinaryOp::Gammaincc,
        BinaryOp::Gammaincinv,
        BinaryOp::Gammainccinv,
        BinaryOp::Polygamma,
        BinaryOp::OwensT,
        BinaryOp::Kv,
        BinaryOp::Kve,
        BinaryOp::LogicalAnd,
        BinaryOp::LogicalOr,
        BinaryOp::LogicalXor,
    ];

    /// Float functions: integer operands are computed in `f64`, as NumPy does.
    pub fn is_float_function(self) -> bool {
        matches!(self, BinaryOp::Div | BinaryOp::Arctan2 | BinaryOp::Logaddexp | BinaryOp::Gammainc | BinaryOp::Gammaincc | BinaryOp::Gammaincinv | BinaryOp::Gammainccinv | BinaryOp::Polygamma | BinaryOp::OwensT | BinaryOp::Kv | BinaryOp::Kve)
    }

    /// `logical_and`, `logical_or`, `logical_xor`: bool operands and result.
    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::LogicalXor)
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne)
    }

    /// Arithmetic ops, undefined on bool.
    pub fn is_arithmetic(self) -> bool {
        use BinaryOp::*;
        matches!(self, Add | Sub | Mul | Div | Pow | Arctan2 | Mod | FloorDivide | Logaddexp | Gammainc | Gammaincc | Gammaincinv | Gammainccinv | Polygamma | OwensT | Kv | Kve)
    }

    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "**",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Arctan2 => "arctan2",
            BinaryOp::Mod => "mod",
            BinaryOp::FloorDivide => "floor_divide",
            BinaryOp::Logaddexp => "logaddexp",
            BinaryOp::Gammainc => "gammainc",
            BinaryOp::Gammaincc => "gammaincc",
            BinaryOp::Gammaincinv => "gammaincinv",
            BinaryOp::Gammainccinv => "gammainccinv",
            BinaryOp::Polygamma => "polygamma",
            BinaryOp::OwensT => "owens_t",
            BinaryOp::Kv => "kv",
            BinaryOp::Kve => "kve",
            BinaryOp::LogicalAnd => "logical_and",
            BinaryOp::LogicalOr => "logical_or",
            BinaryOp::LogicalXor => "logical_xor",
        }
    }
}

/// Elementwise functions of three operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TernaryOp {
    /// `betainc(a, b, x)`: the regularised incomplete beta function `I_x(a, b)` (SciPy's).
    Betainc,
    /// `betaincinv(a, b, y)`: its inverse in `x`, the `x` with `I_x(a, b) = y` (SciPy's).
    Betaincinv,
}

impl TernaryOp {
    pub const CALLABLE: &[TernaryOp] = &[TernaryOp::Betainc, TernaryOp::Betaincinv];

    pub fn name(self) -> &'static str {
        match self {
            TernaryOp::Betainc => "betainc",
            TernaryOp::Betaincinv => "betaincinv",
        }
    }
}

/// Reductions over a set of axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Max,
    Min,
    /// Always on a float operand (ints are cast to f64 first).
    Mean,
    /// Product; the product of nothing is 1.
    Prod,
    /// On a bool operand (numbers are cast to bool first): any / all true.
    Any,
    All,
    /// `log(sum(exp(x)))`, shifted by the finite max: on a float operand.
    LogSumExp,
    /// Variance with `ddof` delta degrees of freedom (divides by `max(n - ddof, 0)`), on a
    /// float operand.
    Var(u32),
    /// Square root of `Var`.
    Std(u32),
}

impl ReduceOp {
    pub const ALL: &[ReduceOp] = &[
        ReduceOp::Sum,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Mean,
        ReduceOp::Prod,
        ReduceOp::Any,
        ReduceOp::All,
        ReduceOp::LogSumExp,
        ReduceOp::Var(0),
        ReduceOp::Std(0),
    ];

    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Mean => "mean",
            ReduceOp::Prod => "prod",
            ReduceOp::Any => "any",
            ReduceOp::All => "all",
            ReduceOp::LogSumExp => "logsumexp",
            ReduceOp::Var(_) => "var",
            ReduceOp::Std(_) => "std",
        }
    }

    /// `max` and `min` have no identity, so reducing an empty axis is an error.
    pub fn needs_elements(self) -> bool {
        matches!(self, ReduceOp::Max | ReduceOp::Min)
    }
}

/// How one operand axis of an [`Op::Slice`] is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SliceAxis {
    /// The whole axis (`:`, or an axis the index list does not reach).
    Full,
    /// One position, given by an `i64` scalar operand; the axis is dropped from the result.
    Index,
    /// `start:stop:step` with NumPy's rules; each bound that is present is an `i64` scalar
    /// operand, in the order start, stop, step.
    Range { start: bool, stop: bool, step: bool },
}

impl SliceAxis {
    /// How many scalar operands the axis takes.
    pub fn operands(self) -> usize {
        match self {
            SliceAxis::Full => 0,
            SliceAxis::Index => 1,
            SliceAxis::Range { start, stop, step } => start as usize + stop as usize + step as usize,
        }
    }
}

/// An operation of the typed program, with its literal parameters. Operands are the node's
/// children, in order; the result type is the node's `ty`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// Operand and result have the same dims.
    Unary(UnaryOp),
    /// Both operands have the result's dims (the checker inserts `Broadcast` nodes).
    Binary(BinaryOp),
    /// All three operands have the result's dims.
    Ternary(TernaryOp),
    /// `where(cond, a, b)`: all three have the result's dims; the condition is bool.
    Select,
    /// Converts to the result dtype (float -> int truncates toward zero; x -> bool is x != 0).
    Cast,
    /// Broadcast of the operand to the result dims: right-aligned; a static 1 (or a missing
    /// leading dim) stretches to any size; every other operand dim must equal the result dim
    /// (checked at run time when either is not static). A result dim that is `?` and that
    /// the operand stretches into takes its size from the optional second operand, the shape
    /// witness, right-aligned.
    Broadcast,
    /// Result dim `i` is operand dim `perm[i]`.
    Transpose(Vec<usize>),
    /// Inserts a size-1 dim at the axis.
    Expand(usize),
    /// Removes the size-1 dim at the axis.
    Squeeze(usize),
    /// Row-major reshape to the result dims (same element count). A second operand, a shape
    /// witness of the result's rank, gives the sizes of the result's `?` dims (a derivative
    /// moves a cotangent back to an operand with several `?` dims this way).
    Reshape,
    /// Axes sorted, unique and in range; reduced dims are removed from the result.
    Reduce(ReduceOp, Vec<usize>),
    /// Softmax (or log-softmax) along one axis.
    Softmax { axis: usize, log: bool },
    /// `a @ b` with NumPy matmul semantics for ranks: 1x1 -> scalar, 2x1 -> vector, 1x2 ->
    /// vector, 2x2 -> matrix, and rank >= 3 on both sides with equal batch dims.
    MatMul,
    /// `x[...]`: one entry per operand axis. Operands: `x`, then the `i64` scalars of the
    /// axes in order. Integer indices out of range are run-time errors; slice bounds clamp.
    Slice(Vec<SliceAxis>),
    /// `take(x, idx, axis)` (and `x[idx]`, axis 0): operands `x` and an integer `idx`;
    /// the result's dims are `x`'s before `axis`, `idx`'s, then `x`'s after `axis`.
    Take { axis: usize },
    /// `scatter_add` (`add`, repeated indices add up, as `np.add.at`) and `scatter_set`
    /// (the last of repeated indices wins): operands `target`, an integer `idx`, and `values`
    /// of dims `idx`'s followed by `target`'s after the first; the result has `target`'s type.
    Scatter { add: bool },
    /// `set_slice(x, value, a, b)`: `x` with `x[a:b]` (along axis 0, NumPy's slice bounds)
    /// replaced by `value`. Operands: `x`, `value` (dims `[?]` + `x`'s after the first, or a
    /// scalar), `a` and `b` (`i64` scalars).
    SetSlice,
    /// `flatnonzero(a)`: the `i64` row-major positions of `a`'s nonzero (true) elements, in
    /// increasing order, as NumPy's `flatnonzero` (a NaN is nonzero). With a second operand
    /// (`x[mask]` makes one), `a`'s dims must equal that operand's leading dims (checked at
    /// run time where not static), as NumPy's boolean indexing requires.
    Nonzero,
    /// `argmax` / `argmin` along one axis: the `i64` index of the first largest (smallest)
    /// element, where a NaN counts as larger (smaller) than everything; the axis is removed.
    /// An empty axis is a run-time error.
    Arg { max: bool, axis: usize },
    /// `cumsum` / `cumprod` along one axis; the result has the operand's type.
    Scan { prod: bool, axis: usize },
    /// Joins the operands (one or more, same dtype and rank) along the axis; the other dims
    /// must be equal (checked at run time where not static).
    Concat(usize),
    /// One part of `split(x, sizes, axis)`: `len` elements from `start` along `axis`, whose
    /// size must be `total` (the sum of the sizes; checked at run time where not static).
    SplitPart { axis: usize, start: u64, len: u64, total: u64 },
    /// The main diagonal of a matrix, of length `min(rows, cols)`.
    Diagonal,
    /// The elements on and below (`upper: false`) or on and above diagonal `k` of a matrix;
    /// the others are zero.
    Tri { upper: bool, k: i64 },
    /// `guard(cond, x, code)`: `x` (the second operand), once every element of the bool
    /// `cond` (the first) is true; otherwise a run-time error naming `code`.
    Guard(i64),
    /// `cholesky(a)`: the lower-triangular `l` with `l @ transpose(l) = a`, of a float square
    /// matrix; only `a`'s lower triangle is read. Where `a` is not positive definite (a pivot
    /// is not greater than zero, or is NaN), every element of the result is NaN.
    Cholesky,
    /// `solve_triangular(a, b, lower)`: `x` with `a @ x = b`, reading only the lower (upper)
    /// triangle of the square matrix `a`; `b` is a vector `[n]` or a matrix `[n, k]`, and `x`
    /// has `b`'s type. A zero on the diagonal divides by zero, as IEEE arithmetic does.
    SolveTriangular { lower: bool },
    /// `solve(a, b)`: `x` with `a @ x = b` for a float square matrix `a` (Gaussian
    /// elimination with partial pivoting); `b` is a vector `[n]` or a matrix `[n, k]`, and `x`
    /// has `b`'s type. A singular `a` divides by zero, as IEEE arithmetic does.
    Solve,
    /// `det(a)`: the determinant of a float square matrix (the product of the pivots of
    /// Gaussian elimination with partial pivoting, signed by the row swaps).
    Det,
    /// `sort(x, axis)` (`arg: false`): `x` with each lane along `axis` in ascending order, NaN
    /// last, as NumPy's `sort`; `argsort(x, axis)` (`arg: true`): the `i64` positions that
    /// order each lane so, equal elements in their original order (a stable sort).
    Sort { axis: usize, arg: bool },
    /// One part of `slogdet(a)` of a float square matrix: the sign of its determinant (`log:
    /// false`: -1, 0 or 1) or the log of its absolute value (`log: true`; -inf for a singular
    /// matrix), from the pivots of Gaussian elimination with partial pivoting, so that a
    /// determinant beyond the float range keeps its logarithm.
    Slogdet { log: bool },
    /// One part of `lu_factor(a)` of a float square matrix, as SciPy's `lu_factor` (LAPACK's
    /// `getrf`, partial pivoting): the factors `l` (below the diagonal; its unit diagonal is
    /// not stored) and `u` (on and above it) in one matrix (`pivots: false`), or the `i32`
    /// pivots (`pivots: true`): row `i` was swapped with row `piv[i]`, in order.
    LuFactor { pivots: bool },
    /// `lu_permutation(piv)`: the `i64` row order `p` that `lu_factor`'s pivots make, the swaps
    /// applied to `0, 1, ..., n - 1` in order, so that `a[p] == l @ u`. A pivot may be
    /// negative, counting from the end, as an index may.
    LuPermutation,
    /// One part of `eigh(a)` of a float square matrix read from its lower triangle (the
    /// symmetric matrix it makes), as NumPy's `eigh`: the eigenvalues in ascending order
    /// (`vectors: false`), or the matrix whose column `i` is a unit eigenvector of eigenvalue
    /// `i` (`vectors: true`), each column's sign chosen so that its first component of
    /// magnitude above `sqrt(eps)` is positive. A NaN or infinity in the lower triangle makes
    /// every element of both parts NaN.
    Eigh { vectors: bool },
}

/// Op families: the unit of organisation of the checker, the interpreter and the lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    Elementwise,
    Layout,
    Reduction,
    Contraction,
    Indexing,
    /// Ops along one axis that keep the operand's shape: `cumsum`, `cumprod`, `sort`,
    /// `argsort`.
    Scan,
    Joining,
    Matrix,
    Linalg,
}

impl Op {
    pub fn family(&self) -> Family {
        match self {
            Op::Unary(_) | Op::Binary(_) | Op::Ternary(_) | Op::Select | Op::Cast => Family::Elementwise,
            Op::Broadcast | Op::Transpose(_) | Op::Expand(_) | Op::Squeeze(_) | Op::Reshape | Op::Guard(_) => Family::Layout,
            Op::Reduce(..) | Op::Softmax { .. } | Op::Arg { .. } => Family::Reduction,
            Op::MatMul => Family::Contraction,
            Op::Slice(_) | Op::Take { .. } | Op::Scatter { .. } | Op::SetSlice | Op::Nonzero => Family::Indexing,
            Op::Scan { .. } | Op::Sort { .. } => Family::Scan,
            Op::Concat(_) | Op::SplitPart { .. } => Family::Joining,
            Op::Diagonal | Op::Tri { .. } => Family::Matrix,
            Op::Cholesky | Op::SolveTriangular { .. } | Op::Solve | Op::Det | Op::Slogdet { .. } | Op::LuFactor { .. } | Op::LuPermutation | Op::Eigh { .. } => Family::Linalg,
        }
    }

    /// The smallest and largest number of operands (a broadcast or a reshape may name a shape
    /// witness).
    pub fn arity(&self) -> (usize, usize) {
        match self {
            Op::Binary(_) | Op::MatMul | Op::Guard(_) | Op::SolveTriangular { .. } | Op::Solve => (2, 2),
            Op::Select | Op::Ternary(_) => (3, 3),
            Op::Broadcast | Op::Reshape | Op::Nonzero => (1, 2),
            Op::Slice(axes) => {
                let n = 1 + axes.iter().map(|a| a.operands()).sum::<usize>();
                (n, n)
            }
            Op::Take { .. } => (2, 2),
            Op::Scatter { .. } => (3, 3),
            Op::SetSlice => (4, 4),
            Op::Concat(_) => (1, usize::MAX),
            _ => (1, 1),
        }
    }

    /// The name the op is written with (an operator symbol or a builtin name).
    pub fn name(&self) -> &'static str {
        match self {
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
            Op::Ternary(t) => t.name(),
            Op::Select => "where",
            Op::Cast => "cast",
            Op::Broadcast => "broadcast",
            Op::Transpose(_) => "transpose",
            Op::Expand(_) => "expand",
            Op::Squeeze(_) => "squeeze",
            Op::Reshape => "reshape",
            Op::Reduce(r, _) => r.name(),
            Op::Softmax { log: false, .. } => "softmax",
            Op::Softmax { log: true, .. } => "log_softmax",
            Op::MatMul => "@",
            Op::Slice(_) => "[]",
            Op::Take { .. } => "take",
            Op::Scatter { add: true } => "scatter_add",
            Op::Scatter { add: false } => "scatter_set",
            Op::SetSlice => "set_slice",
            Op::Nonzero => "flatnonzero",
            Op::Arg { max: true, .. } => "argmax",
            Op::Arg { max: false, .. } => "argmin",
            Op::Scan { prod: false, .. } => "cumsum",
            Op::Scan { prod: true, .. } => "cumprod",
            Op::Concat(_) => "concat",
            Op::SplitPart { .. } => "split",
            Op::Diagonal => "diagonal",
            Op::Tri { upper: false, .. } => "tril",
            Op::Tri { upper: true, .. } => "triu",
            Op::Guard(_) => "guard",
            Op::Cholesky => "cholesky",
            Op::SolveTriangular { .. } => "solve_triangular",
            Op::Solve => "solve",
            Op::Det => "det",
            Op::Sort { arg: false, .. } => "sort",
            Op::Sort { arg: true, .. } => "argsort",
            Op::Slogdet { .. } => "slogdet",
            Op::LuFactor { .. } => "lu_factor",
            Op::LuPermutation => "lu_permutation",
            Op::Eigh { .. } => "eigh",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A builtin function as a user calls it: its name and the shape of its arguments. The
/// literal arguments (axes, shapes, dtypes) become an [`Op`]'s parameters when checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `exp(x)`, ...
    Unary(UnaryOp),
    /// `maximum(a, b)`, `minimum(a, b)`.
    Pair(BinaryOp),
    /// `betainc(a, b, x)`.
    Triple(TernaryOp),
    /// `sum(x)`, `sum(x, axes)`, ...
    Reduce(ReduceOp),
    /// `softmax(x, axis)`, `log_softmax(x, axis)`.
    Softmax { log: bool },
    /// `transpose(x, [axes])`.
    Transpose,
    /// `broadcast(x, [shape])`.
    Broadcast,
    /// `expand(x, axis)`.
    Expand,
    /// `squeeze(x, axis)`.
    Squeeze,
    /// `reshape(x, [shape])`.
    Reshape,
    /// `where(cond, a, b)`.
    Where,
    /// `clip(x, lo, hi)`: `minimum(maximum(x, lo), hi)`, as NumPy's `clip`.
    Clip,
    /// `cast(x, dtype)`.
    Cast,
    /// `take(x, idx, axis)`.
    Take,
    /// `scatter_add(target, idx, values)`, `scatter_set(target, idx, values)`.
    Scatter { add: bool },
    /// `set_slice(x, value, a, b)`.
    SetSlice,
    /// `flatnonzero(a)`.
    FlatNonzero,
    /// `argmax(x, axis)`, `argmin(x, axis)`.
    Arg { max: bool },
    /// `cumsum(x, axis)`, `cumprod(x, axis)`.
    Scan { prod: bool },
    /// `concat([a, b], axis)`.
    Concat,
    /// `stack([a, b], axis)`.
    Stack,
    /// `split(x, [sizes], axis)`: several values.
    Split,
    /// `zeros([dims], dtype)`, `ones([dims], dtype)`.
    Fill { one: bool },
    /// `full([dims], value)`.
    Full,
    /// `arange(n)`, `arange(start, stop)`, `arange(start, stop, step)`.
    Arange,
    /// `eye(n)`.
    Eye,
    /// `outer(a, b)`.
    Outer,
    /// `diagonal(m)`.
    Diagonal,
    /// `trace(m)`.
    Trace,
    /// `tril(m)`, `tril(m, k)`, `triu(m)`, `triu(m, k)`.
    Tri { upper: bool },
    /// `guard(cond, x, code)`.
    Guard,
    /// `diag(v)`: the square matrix with `v` on its diagonal; `diag(m)`: `diagonal(m)`.
    Diag,
    /// `cholesky(a)`.
    Cholesky,
    /// `solve_triangular(a, b)`, `solve_triangular(a, b, lower)`.
    SolveTriangular,
    /// `solve(a, b)`.
    Solve,
    /// `inv(a)`.
    Inv,
    /// `det(a)`.
    Det,
    /// `sort(x)`, `sort(x, axis)`, `argsort(x)`, `argsort(x, axis)`.
    Sort { arg: bool },
    /// `slogdet(a)`: two values, the sign and the log of the absolute value of `det(a)`.
    Slogdet,
    /// `lu_factor(a)`: two values, the packed factors and the pivots.
    LuFactor,
    /// `lu_permutation(piv)`.
    LuPermutation,
    /// `eigh(a)`: two values, the eigenvalues and the eigenvectors.
    Eigh,
}

impl Builtin {
    /// Every builtin, in the order the reference lists them.
    pub fn all() -> Vec<Builtin> {
        let mut v: Vec<Builtin> = UnaryOp::CALLABLE.iter().map(|&u| Builtin::Unary(u)).collect();
        v.extend(BinaryOp::CALLABLE.iter().map(|&b| Builtin::Pair(b)));
        v.extend(TernaryOp::CALLABLE.iter().map(|&t| Builtin::Triple(t)));
        v.extend(ReduceOp::ALL.iter().map(|&r| Builtin::Reduce(r)));
        v.extend([
            Builtin::Softmax { log: false },
            Builtin::Softmax { log: true },
            Builtin::Transpose,
            Builtin::Broadcast,
            Builtin::Expand,
            Builtin::Squeeze,
            Builtin::Reshape,
            Builtin::Where,
            Builtin::Clip,
            Builtin::Cast,
            Builtin::Take,
            Builtin::Scatter { add: true },
            Builtin::Scatter { add: false },
            Builtin::SetSlice,
            Builtin::FlatNonzero,
            Builtin::Arg { max: true },
            Builtin::Arg { max: false },
            Builtin::Scan { prod: false },
            Builtin::Scan { prod: true },
            Builtin::Concat,
            Builtin::Stack,
            Builtin::Split,
            Builtin::Fill { one: false },
            Builtin::Fill { one: true },
            Builtin::Full,
            Builtin::Arange,
            Builtin::Eye,
            Builtin::Outer,
            Builtin::Diagonal,
            Builtin::Trace,
            Builtin::Tri { upper: false },
            Builtin::Tri { upper: true },
            Builtin::Guard,
            Builtin::Diag,
            Builtin::Cholesky,
            Builtin::SolveTriangular,
            Builtin::Solve,
            Builtin::Inv,
            Builtin::Det,
            Builtin::Sort { arg: false },
            Builtin::Sort { arg: true },
            Builtin::Slogdet,
            Builtin::LuFactor,
            Builtin::LuPermutation,
            Builtin::Eigh,
        ]);
        v
    }

    /// The builtin called `name`, by its own name or an alias ([`ALIASES`]).
    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::all().into_iter().find(|b| b.name() == name).or_else(|| ALIASES.iter().find(|(n, _)| *n == name).map(|&(_, b)| b))
    }

    pub fn name(self) -> &'static str {
        match self {
            Builtin::Unary(u) => u.name(),
            Builtin::Pair(BinaryOp::Pow) => "power",
            Builtin::Pair(b) => b.name(),
            Builtin::Triple(t) => t.name(),
            Builtin::Reduce(r) => r.name(),
            Builtin::Softmax { log: false } => "softmax",
            Builtin::Softmax { log: true } => "log_softmax",
            Builtin::Transpose => "transpose",
            Builtin::Broadcast => "broadcast",
            Builtin::Expand => "expand",
            Builtin::Squeeze => "squeeze",
            Builtin::Reshape => "reshape",
            Builtin::Where => "where",
            Builtin::Clip => "clip",
            Builtin::Cast => "cast",
            Builtin::Take => "take",
            Builtin::Scatter { add: true } => "scatter_add",
            Builtin::Scatter { add: false } => "scatter_set",
            Builtin::SetSlice => "set_slice",
            Builtin::FlatNonzero => "flatnonzero",
            Builtin::Arg { max: true } => "argmax",
            Builtin::Arg { max: false } => "argmin",
            Builtin::Scan { prod: false } => "cumsum",
            Builtin::Scan { prod: true } => "cumprod",
            Builtin::Concat => "concat",
            Builtin::Stack => "stack",
            Builtin::Split => "split",
            Builtin::Fill { one: false } => "zeros",
            Builtin::Fill { one: true } => "ones",
            Builtin::Full => "full",
            Builtin::Arange => "arange",
            Builtin::Eye => "eye",
            Builtin::Outer => "outer",
            Builtin::Diagonal => "diagonal",
            Builtin::Trace => "trace",
            Builtin::Tri { upper: false } => "tril",
            Builtin::Tri { upper: true } => "triu",
            Builtin::Guard => "guard",
            Builtin::Diag => "diag",
            Builtin::Cholesky => "cholesky",
            Builtin::SolveTriangular => "solve_triangular",
            Builtin::Solve => "solve",
            Builtin::Inv => "inv",
            Builtin::Det => "det",
            Builtin::Sort { arg: false } => "sort",
            Builtin::Sort { arg: true } => "argsort",
            Builtin::Slogdet => "slogdet",
            Builtin::LuFactor => "lu_factor",
            Builtin::LuPermutation => "lu_permutation",
            Builtin::Eigh => "eigh",
        }
    }

    /// The smallest and largest number of arguments.
    pub fn arity(self) -> (usize, usize) {
        match self {
            Builtin::Unary(_) | Builtin::Eye | Builtin::Diagonal | Builtin::Trace | Builtin::Diag | Builtin::Cholesky | Builtin::FlatNonzero => (1, 1),
            Builtin::SolveTriangular => (2, 3),
            Builtin::Inv | Builtin::Det | Builtin::Slogdet | Builtin::LuFactor | Builtin::LuPermutation | Builtin::Eigh => (1, 1),
            Builtin::Reduce(ReduceOp::Var(_) | ReduceOp::Std(_)) | Builtin::Arange => (1, 3),
            Builtin::Reduce(_) | Builtin::Arg { .. } | Builtin::Scan { .. } | Builtin::Sort { .. } => (1, 2),
            Builtin::Concat | Builtin::Stack | Builtin::Fill { .. } | Builtin::Tri { .. } => (1, 2),
            Builtin::Where | Builtin::Clip | Builtin::Triple(_) | Builtin::Take | Builtin::Scatter { .. } | Builtin::Guard => (3, 3),
            Builtin::SetSlice => (4, 4),
            Builtin::Split => (2, 3),
            _ => (2, 2),
        }
    }

    /// How a call is written, for the reference and for arity errors.
    pub fn signature(self) -> String {
        let n = self.name();
        match self {
            Builtin::Unary(_) => format!("{n}(x)"),
            Builtin::Pair(BinaryOp::Arctan2) => format!("{n}(y, x)"),
            Builtin::Pair(BinaryOp::Gammainc | BinaryOp::Gammaincc) => format!("{n}(a, x)"),
            Builtin::Pair(BinaryOp::Gammaincinv | BinaryOp::Gammainccinv) => format!("{n}(a, y)"),
            Builtin::Pair(BinaryOp::Polygamma) => format!("{n}(n, x)"),
            Builtin::Pair(BinaryOp::OwensT) => format!("{n}(h, a)"),
            Builtin::Pair(BinaryOp::Kv | BinaryOp::Kve) => format!("{n}(v, x)"),
            Builtin::Pair(_) => format!("{n}(a, b)"),
            Builtin::Triple(TernaryOp::Betainc) => format!("{n}(a, b, x)"),
            Builtin::Triple(TernaryOp::Betaincinv) => format!("{n}(a, b, y)"),
            Builtin::Reduce(ReduceOp::Var(_) | ReduceOp::Std(_)) => format!("{n}(x), {n}(x, axes), {n}(x, axes, ddof)"),
            Builtin::Reduce(_) => format!("{n}(x), {n}(x, axes)"),
            Builtin::Arg { .. } | Builtin::Scan { .. } | Builtin::Sort { .. } => format!("{n}(x), {n}(x, axis)"),
            Builtin::Concat | Builtin::Stack => format!("{n}([a, b, ...]), {n}([a, b, ...], axis)"),
            Builtin::Split => format!("{n}(x, [sizes]), {n}(x, [sizes], axis)"),
            Builtin::Fill { .. } => format!("{n}([dims]), {n}([dims], dtype)"),
            Builtin::Full => format!("{n}([dims], value)"),
            Builtin::Arange => format!("{n}(stop), {n}(start, stop), {n}(start, stop, step)"),
            Builtin::Eye => format!("{n}(n)"),
            Builtin::Outer => format!("{n}(a, b)"),
            Builtin::Diagonal | Builtin::Trace => format!("{n}(m)"),
            Builtin::Tri { .. } => format!("{n}(m), {n}(m, k)"),
            Builtin::Softmax { .. } | Builtin::Expand | Builtin::Squeeze => format!("{n}(x, axis)"),
            Builtin::Transpose => format!("{n}(x, [axes])"),
            Builtin::Broadcast | Builtin::Reshape => format!("{n}(x, [dims])"),
            Builtin::Where => format!("{n}(cond, a, b)"),
            Builtin::Clip => format!("{n}(x, lo, hi)"),
            Builtin::Cast => format!("{n}(x, dtype)"),
            Builtin::Take => format!("{n}(x, idx, axis)"),
            Builtin::Scatter { .. } => format!("{n}(target, idx, values)"),
            Builtin::SetSlice => format!("{n}(x, value, a, b)"),
            Builtin::FlatNonzero => format!("{n}(a)"),
            Builtin::Guard => format!("{n}(cond, x, code)"),
            Builtin::Diag => format!("{n}(v), {n}(m)"),
            Builtin::Cholesky => format!("{n}(a)"),
            Builtin::SolveTriangular => format!("{n}(a, b), {n}(a, b, lower)"),
            Builtin::Solve => format!("{n}(a, b)"),
            Builtin::Inv | Builtin::Det | Builtin::Slogdet | Builtin::LuFactor | Builtin::Eigh => format!("{n}(a)"),
            Builtin::LuPermutation => format!("{n}(piv)"),
        }
    }
}

/// Second names of builtins, as SciPy spells them.
pub const ALIASES: [(&str, Builtin); 1] = [("psi", Builtin::Unary(UnaryOp::Digamma))];

/// Every builtin name, aliases included; user functions and the PyTensor importer's
/// variables may not use them.
pub fn builtin_names() -> Vec<&'static str> {
    Builtin::all().into_iter().map(Builtin::name).chain(ALIASES.iter().map(|(n, _)| *n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let names = builtin_names();
        for b in Builtin::all() {
            assert_eq!(Builtin::from_name(b.name()), Some(b));
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "duplicate builtin names: {names:?}");
        assert_eq!(Builtin::from_name("nope"), None);
        for (alias, b) in ALIASES {
            assert_eq!(Builtin::from_name(alias), Some(b));
        }
    }

    #[test]
    fn arity_matches_family() {
        assert_eq!(Op::Binary(BinaryOp::Add).arity(), (2, 2));
        assert_eq!(Op::Select.arity(), (3, 3));
        assert_eq!(Op::Reduce(ReduceOp::Sum, vec![0]).family(), Family::Reduction);
        assert_eq!(Op::Softmax { axis: 0, log: true }.name(), "log_softmax");
    }
}
