//! Derivative rules, one file per op family beside the family's type rule: the vector-Jacobian
//! product of each op, written as typed-program nodes with [`Builder`]. Reverse-mode
//! differentiation (`crate::ad`) calls [`Op::vjp`] once per op on the path from a parameter
//! to the result, with the cotangent of the op's result.

mod contraction;
mod elementwise;
mod indexing;
mod joining;
mod layout;
mod linalg;
mod matrix;
mod reductions;
mod scans;

use crate::ad::build::Builder;
use crate::ops::{Family, Op};
use crate::typed::TExpr;

/// One op application in the forward code: its operands and its result, all names or
/// literals, and which operands carry a derivative.
pub(crate) struct Node<'a> {
    pub(crate) args: &'a [TExpr],
    pub(crate) out: &'a TExpr,
    pub(crate) active: &'a [bool],
}

impl Node<'_> {
    pub(crate) fn x(&self) -> &TExpr {
        &self.args[0]
    }
}

/// The cotangent of each operand (`None`: no derivative flows there), or why the op has no
/// derivative.
pub(crate) type Grads = Result<Vec<Option<TExpr>>, String>;

impl Op {
    /// The vector-Jacobian product: given the cotangent `ct` of the result (its type), the
    /// cotangents of the operands (each of its operand's type).
    pub(crate) fn vjp(&self, b: &mut Builder, n: &Node, ct: TExpr) -> Grads {
        match self.family() {
            Family::Elementwise => elementwise::vjp(self, b, n, ct),
            Family::Layout => layout::vjp(self, b, n, ct),
            Family::Reduction => reductions::vjp(self, b, n, ct),
            Family::Contraction => contraction::vjp(b, n, ct),
            Family::Indexing => indexing::vjp(self, b, n, ct),
            Family::Scan => scans::vjp(self, b, n, ct),
            Family::Joining => joining::vjp(self, b, n, ct),
            Family::Matrix => matrix::vjp(self, b, n, ct),
            Family::Linalg => linalg::vjp(self, b, n, ct),
        }
    }
}
