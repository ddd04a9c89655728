//! The graph description `pytensor_ptl/importer.py` writes, as types: JSON whose shape is fixed
//! here, so a description that does not have it is refused when it is read, naming the node.
//!
//! ```json
//! {"name": "graph",
//!  "inputs": [{"id": 1, "name": "x", "dtype": "float64", "shape": [null, 3]}],
//!  "consts": [{"id": 2, "index": 0, "name": "W"}],
//!  "nodes": [{"op": "dot", "inputs": [1, 2], "output": 3, "dtype": "float64", "at": "node 0 ..."},
//!            {"op": "reduce", "kind": "sum", "axes": [1], "in_ndim": 2,
//!             "inputs": [3], "output": 4, "dtype": "float64", "at": "node 1 ..."}],
//!  "outputs": [4]}
//! ```
//!
//! Values are numbered by `id`; a node's inputs are ids defined earlier (inputs, constants or
//! node outputs). `consts[k].index` is the position of the constant's array in the list passed
//! next to the description. Dtypes are NumPy's names of ptl's five dtypes.

use std::fmt;

use ptl_lang::DType;
use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Graph {
    /// The name of the ptl function.
    pub name: String,
    pub inputs: Vec<Input>,
    #[serde(default)]
    pub consts: Vec<Const>,
    /// In topological order.
    pub nodes: Vec<Node>,
    pub outputs: Vec<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    pub id: usize,
    pub name: String,
    pub dtype: NpDType,
    pub shape: Vec<InputDim>,
}

/// A dim of an input: static, unknown until run time (`null`), or unknown and named (a
/// string, the name's stem) because the graph computes with its size (`dim` nodes).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum InputDim {
    Static(u64),
    Named(String),
    Unknown(()),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Const {
    pub id: usize,
    /// Position in the list of arrays passed next to the description.
    pub index: usize,
    /// PyTensor's name of the constant, if it has one: the parameter's name when the constant
    /// is passed as an argument.
    #[serde(default)]
    pub name: Option<String>,
}

/// A dtype as NumPy names it (`"float64"`); only ptl's dtypes are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "&'static str")]
pub struct NpDType(pub DType);

pub const NUMPY_NAMES: [(&str, DType); 5] = [
    ("bool", DType::Bool),
    ("int32", DType::I32),
    ("int64", DType::I64),
    ("float32", DType::F32),
    ("float64", DType::F64),
];

impl From<NpDType> for &'static str {
    fn from(d: NpDType) -> &'static str {
        NUMPY_NAMES.iter().find(|(_, x)| *x == d.0).map_or("?", |(n, _)| n)
    }
}

impl TryFrom<String> for NpDType {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        NUMPY_NAMES.iter().find(|(n, _)| *n == name).map(|&(_, d)| NpDType(d)).ok_or_else(|| {
            let known: Vec<&str> = NUMPY_NAMES.iter().map(|(n, _)| *n).collect();
            format!("dtype `{name}` is not one of ptl's ({})", known.join(", "))
        })
    }
}

/// One PyTensor operation with one output.
#[derive(Debug)]
pub struct Node {
    pub kind: NodeKind,
    /// The `op` as written, for the message refusing an unknown one.
    pub op: String,
    pub inputs: Vec<usize>,
    pub output: usize,
    /// PyTensor's dtype of the output.
    pub dtype: DType,
    /// Where the node sits in the PyTensor graph, for error messages.
    pub at: String,
}

/// What a node computes, tagged by `op`; the other keys of the node are the fields.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum NodeKind {
    /// The input itself (a copy, a view, a type-casting op), cast to the output dtype if needed.
    Alias,
    /// The sum of one or more inputs.
    Add,
    /// The product of one or more inputs.
    Mul,
    Sub,
    TrueDiv,
    Pow,
    Neg,
    Exp,
    Log,
    Log1p,
    Sqrt,
    Tanh,
    Abs,
    Sigmoid,
    Softplus,
    Sqr,
    Reciprocal,
    Identity,
    Maximum,
    Minimum,
    /// `clip(x, lo, hi)`.
    Clip,
    /// `switch(cond, a, b)`.
    Switch,
    /// PyTensor's `IfElse` (one output): inputs the scalar condition and the two branches'
    /// values, which may differ in size: `if cond { a } else { b }`.
    IfElse,
    /// The second input broadcast against the first.
    Second,
    /// To the output dtype.
    Cast,
    /// Bitwise operations; only on bool.
    And,
    Or,
    Xor,
    Invert,
    /// Comparisons; `compute` is the dtype PyTensor compares in (the operands' upcast).
    Gt { compute: NpDType },
    Ge { compute: NpDType },
    Lt { compute: NpDType },
    Le { compute: NpDType },
    Eq { compute: NpDType },
    Neq { compute: NpDType },
    /// PyTensor's `DimShuffle`: `order[i]` is the input axis of output axis `i`, or `None` for
    /// a new broadcastable axis; input axes left out (all of size 1) are dropped.
    #[serde(rename = "dimshuffle")]
    DimShuffle { order: Vec<Option<usize>>, in_ndim: usize },
    Dot,
    /// `beta * y + alpha * (a @ x)` with inputs `[y, alpha, a, x, beta]`.
    Gemv,
    Gemm,
    /// A reduction over `axes` (sorted input axes) of a rank-`in_ndim` input.
    Reduce { kind: ReduceKind, axes: Vec<usize>, in_ndim: usize },
    Softmax { axis: usize },
    LogSoftmax { axis: usize },
    /// PyTensor's `Alloc`: the input broadcast to `shape`.
    Broadcast { shape: Vec<u64> },
    /// PyTensor's `Alloc` to sizes of which some are only known at run time: named dims of
    /// the graph's inputs.
    BroadcastDims { shape: Vec<Size> },
    /// Row-major reshape; `None` is the one size inferred from the others.
    Reshape { shape: Vec<Option<u64>> },
    /// A scalar operation that is the ptl builtin `name` (a unary op of the math library or a
    /// binary one such as `arctan2`, `mod`, `floor_divide`).
    Math { name: String },
    /// Basic indexing: one item per indexed axis. Indices and bounds known only at run time
    /// are the node's inputs after the first (`{"input": k}`).
    Subtensor { items: Vec<SubItem> },
    /// PyTensor's `Join`: the inputs joined along `axis` (`concat`).
    Join { axis: i64 },
    /// PyTensor's `Split`: the input in parts of `sizes` along `axis`; `outputs` are the ids of
    /// the parts (`output` is the first's).
    Split { axis: i64, sizes: Vec<u64>, outputs: Vec<usize> },
    /// PyTensor's `MakeVector`: scalars stacked into a vector.
    MakeVector,
    /// `x[idx]` with an integer array `idx` on one axis, every other axis whole (PyTensor's
    /// `AdvancedSubtensor1`, and its `AdvancedSubtensor` of one array index): `take`.
    Take { axis: i64 },
    /// `x[mask]` with a bool `mask` over `x`'s leading axes (PyTensor's `AdvancedSubtensor` of
    /// the mask or of its `Nonzero`): inputs `x`, `mask`.
    MaskSelect,
    /// `x[mask] = y` (`set`) or `x[mask] += y` with a bool `mask` over `x`'s leading axes and
    /// a value per selected element or row: inputs `x`, `y`, `mask`.
    MaskScatter { set: bool },
    /// PyTensor's `Nonzero` of a vector: the positions of its nonzero elements.
    Flatnonzero,
    /// PyTensor's `AdvancedIncSubtensor1`: inputs `x`, `y`, `idx`; `x[idx] = y` when `set`,
    /// else `x[idx] += y` with repeated indices adding up.
    Scatter { set: bool },
    /// PyTensor's `IncSubtensor` on the first axis: inputs `x`, `y` and the bounds `{"input":
    /// k}` refers to; `item` is one index or one slice of step 1; `set` or add.
    SetSubtensor { item: SubItem, set: bool },
    /// PyTensor's `IncSubtensor` on the first `items.len()` (two or more) axes: slices of step
    /// 1 and indices known and not negative; inputs `x` (of rank `rank`), `y` (of rank
    /// `value_rank`) and the bounds `{"input": k}` refers to.
    SetSubtensorAxes { items: Vec<SubItem>, set: bool, rank: usize, value_rank: usize },
    /// `argmax`/`argmin` over one axis.
    Arg { max: bool, axis: i64 },
    /// `cumsum`/`cumprod` over one axis.
    Cumulative { prod: bool, axis: i64 },
    /// PyTensor's `SLogDet`: outputs the sign (`output`) and the log of the absolute
    /// determinant (`outputs[1]`).
    Slogdet { outputs: Vec<usize> },
    /// PyTensor's `SortOp` (`arg` false) or `ArgSortOp` along one axis.
    Sort { arg: bool, axis: i64 },
    /// The main diagonal of a matrix (PyTensor's `ExtractDiag` with offset 0 on axes 0, 1).
    Diagonal,
    /// The main diagonals of the last two axes (both of static size `n`) of a batch of
    /// matrices of rank `rank` (PyTensor's `ExtractDiag` of rank 3 or more).
    BatchedDiagonal { n: u64, rank: usize },
    /// PyTensor's `AllocDiag` of a vector on the main diagonal: `diag(v)`.
    AllocDiag,
    /// `x[:, ..., :, i0, i1, ...]`: `lead` whole axes, then integer arrays (broadcast to rank
    /// `index_rank`) on the next `sizes.len()` axes, of static sizes `sizes`; `shape` is `x`'s,
    /// with at most one `None` outside the indexed axes. Inputs `x`, then the index arrays.
    Gather { sizes: Vec<u64>, shape: Vec<Option<u64>>, lead: usize, index_rank: usize },
    /// `x[:, ..., :, i0, i1, ...] = y` (`set`) or `+= y` (repeated indices adding up): inputs
    /// `x`, `y`, then the index arrays; `values` is the static shape of the indexed part in
    /// NumPy's order (the whole axes, the indices', the rest), to which `y` is broadcast.
    ScatterMulti { sizes: Vec<u64>, shape: Vec<Option<u64>>, values: Vec<u64>, set: bool, lead: usize, index_rank: usize },
    /// PyTensor's `Cholesky`: the lower factor, or (`lower` false) the upper one, read from
    /// the upper triangle.
    Cholesky { lower: bool },
    /// PyTensor's `SolveTriangular`: inputs `a`, `b`; with `unit`, `a`'s diagonal is read as
    /// ones.
    SolveTriangular {
        lower: bool,
        #[serde(default)]
        unit: bool,
    },
    /// PyTensor's `LUFactor`: outputs the packed factors (`output`) and the pivots
    /// (`outputs[1]`).
    LuFactor { outputs: Vec<usize> },
    /// PyTensor's `Eigh` of one matrix: outputs the eigenvalues (`output`) and the
    /// eigenvectors (`outputs[1]`), from the lower triangle (or, `lower` false, the upper one).
    Eigh { outputs: Vec<usize>, lower: bool },
    /// PyTensor's `PivotToPermutations`: the row order of the pivots (`inverse`), or its
    /// inverse permutation.
    PivotPermutation { inverse: bool },
    /// PyTensor's `CholeskySolve`: inputs the factor `c` (lower, or upper when `lower` is
    /// false) of `a` and `b`; `x` with `a @ x = b`, by two triangular solves.
    CholeskySolve { lower: bool },
    /// PyTensor's `Solve` of a general matrix: inputs `a`, `b`.
    Solve,
    /// PyTensor's `Det`.
    Det,
    /// PyTensor's `MatrixInverse`.
    Inv,
    /// The run-time size of axis `axis` of input `input` (an id), whose dim is named: PyTensor's
    /// `Shape_i`. An `i64`.
    Dim { input: usize, axis: usize },
    /// PyTensor's `CheckAndRaise` (`Assert`) with conditions known only at run time: the first
    /// input, once every later input (bool) holds; else a run-time error naming `code`.
    Guard { code: i64 },
    /// PyTensor's `ARange(0, n, 1)` where `n` is an input's named dim (a `dim` node).
    ArangeDim,
    /// PyTensor's `Eye` of an input's dimension (input 0), square, on the main diagonal.
    EyeDim,
    /// PyTensor's `Scan` (see [`crate::importer::scan`] for the fields), kept as JSON here so
    /// that the kind stays comparable; read into a `ScanDesc` when it is converted.
    Scan { scan: Box<serde_json::Value> },
    /// Any other `op`: refused by the importer with the node named.
    #[serde(other)]
    Unknown,
}

/// One item of a `subtensor`: an index (which drops the axis), or a slice with optional
/// start, stop and step (Python's meaning, negative values included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubItem {
    Index(Bound),
    Slice(Option<Bound>, Option<Bound>, Option<Bound>),
}

/// A size: a number, or the named dim `axis` of the input whose id is `input`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Size {
    Known(u64),
    Dim { input: usize, axis: usize },
}

/// An index or a slice bound: a number, or the node's input `k` (an integer scalar computed at
/// run time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Bound {
    Known(i64),
    Input { input: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReduceKind {
    Sum,
    Max,
    Min,
    Mean,
    Prod,
    #[serde(rename = "logsumexp")]
    LogSumExp,
    All,
    Any,
}

/// The keys of a node besides its kind's.
const ENVELOPE: [&str; 4] = ["at", "inputs", "output", "dtype"];

/// The fields around the kind, read in a second step so that an error can name the node.
#[derive(Deserialize)]
struct NodeFields {
    #[serde(default)]
    at: String,
    inputs: Vec<usize>,
    output: usize,
    dtype: NpDType,
    #[serde(flatten)]
    kind: NodeKind,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let at = value.get("at").and_then(|v| v.as_str()).unwrap_or("").to_string();
        let op = value.get("op").and_then(|v| v.as_str()).unwrap_or("").to_string();
        let located = |message: &dyn fmt::Display| D::Error::custom(Located { at: &at, message: &message.to_string() });
        let f = NodeFields::deserialize(&value).map_err(|e| located(&e))?;
        if let Some(key) = stray_key(&value, &f.kind) {
            return Err(located(&format!("unknown field `{key}` for `{op}`")));
        }
        Ok(Node { kind: f.kind, op, inputs: f.inputs, output: f.output, dtype: f.dtype.0, at: f.at })
    }
}

/// A key of `value` that is neither the envelope's nor `kind`'s. Serde refuses those for kinds
/// with fields, but lets them through for kinds without: writing the kind back shows its keys.
fn stray_key(value: &serde_json::Value, kind: &NodeKind) -> Option<String> {
    if *kind == NodeKind::Unknown {
        return None;
    }
    let own = serde_json::to_value(kind).ok()?;
    let own = own.as_object()?;
    value.as_object()?.keys().find(|k| !ENVELOPE.contains(&k.as_str()) && !own.contains_key(*k)).cloned()
}

/// A message prefixed with the node it is about.
pub struct Located<'a, M: fmt::Display> {
    pub at: &'a str,
    pub message: &'a M,
}

impl<M: fmt::Display> fmt::Display for Located<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() { write!(f, "{}", self.message) } else { write!(f, "{}: {}", self.at, self.message) }
    }
}
