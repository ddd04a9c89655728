//! The literal arguments of builtins: axes, permutations, shape lists.

use crate::ast::{Expr, ExprKind};
use crate::check::dims::normalize_axis;
use crate::check::env::Scope;
use crate::check::expr::literal_int;
use crate::check::Checker;
use crate::diag::{Diagnostic, ErrorKind};
use crate::types::{Dim, TensorType};

/// "valid axes are -2..=1" for rank 2.
fn axis_range(rank: usize) -> String {
    if rank == 0 {
        "a scalar has no axes".to_string()
    } else {
        format!("valid axes are -{rank}..={}", rank - 1)
    }
}

impl Checker {
    /// One axis argument (an integer literal, possibly negative) for an operand of `ty`, valid
    /// in `-rank..rank`; normalized.
    pub(crate) fn axis(&mut self, arg: &Expr, fname: &str, ty: &TensorType, rank: usize) -> Option<usize> {
        let Some(v) = literal_int(arg) else {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!("the axis of `{fname}` must be an integer literal"),
                "not an integer literal",
            );
        };
        match normalize_axis(v, rank) {
            Some(a) => Some(a),
            None => self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!("axis {v} is out of range for `{ty}` in `{fname}`"),
                axis_range(rank),
            ),
        }
    }

    /// The axes of a reduction: one axis or a list of them; sorted, unique.
    pub(crate) fn axes(&mut self, arg: &Expr, fname: &str, ty: &TensorType) -> Option<Vec<usize>> {
        let rank = ty.rank();
        let items: Vec<&Expr> = match &arg.kind {
            ExprKind::Array(items) => items.iter().collect(),
            _ if literal_int(arg).is_some() => vec![arg],
            _ => {
                return self.error(
                    ErrorKind::BadArgument,
                    arg.span.clone(),
                    format!("the axes of `{fname}` must be an integer literal or a list of them, like `[0, 1]`"),
                    "not an axis or a list of axes",
                );
            }
        };
        let mut axes: Vec<usize> = Vec::new();
        let mut ok = true;
        for item in items {
            let Some(a) = self.axis(item, fname, ty, rank) else {
                ok = false;
                continue;
            };
            if axes.contains(&a) {
                self.error::<()>(
                    ErrorKind::BadArgument,
                    item.span.clone(),
                    format!("axis {a} is repeated in the axes of `{fname}`"),
                    "repeated axis",
                );
                ok = false;
            }
            axes.push(a);
        }
        if !ok {
            return None;
        }
        axes.sort_unstable();
        Some(axes)
    }

    pub(crate) fn permutation(&mut self, arg: &Expr, ty: &TensorType) -> Option<Vec<usize>> {
        let rank = ty.rank();
        let ExprKind::Array(items) = &arg.kind else {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                "the axes of `transpose` must be a list of integer literals, like `[1, 0]`",
                "not a list of axes",
            );
        };
        if items.len() != rank {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!(
                    "`transpose` of `{ty}` needs a permutation of its {rank} axes, got {} axes",
                    items.len()
                ),
                format!("{} axes", items.len()),
            );
        }
        let mut perm = Vec::new();
        for item in items {
            let a = self.axis(item, "transpose", ty, rank)?;
            if perm.contains(&a) {
                return self.error(
                    ErrorKind::BadArgument,
                    item.span.clone(),
                    format!("the axes of `transpose` are not a permutation: axis {a} is repeated"),
                    "repeated axis",
                );
            }
            perm.push(a);
        }
        Some(perm)
    }

    /// A shape list `[2, n, ?]` for `broadcast` / `reshape`.
    pub(crate) fn shape_list(&mut self, sc: &Scope, arg: &Expr, fname: &str) -> Option<Vec<Dim>> {
        let ExprKind::Array(items) = &arg.kind else {
            return self.error(
                ErrorKind::BadArgument,
                arg.span.clone(),
                format!("the shape of `{fname}` must be a list like `[2, n, ?]`"),
                "not a shape list",
            );
        };
        let mut dims = Vec::new();
        let mut ok = true;
        for item in items {
            let d = match &item.kind {
                ExprKind::UnknownDim => Some(Dim::Unknown),
                ExprKind::Var(n) if sc.has_symbol(n) => Some(Dim::Symbol(n.clone())),
                ExprKind::Var(n) => {
                    let mut d = Diagnostic::new(ErrorKind::UnknownName, item.span.clone(), format!("unknown dimension `{n}`"))
                        .with_label(item.span.clone(), "not a dimension name in scope");
                    d = d.with_note(match &sc.function {
                        Some(f) => format!("dimension names come from the parameter types of `{f}`"),
                        None => "dimension names are only in scope inside a function whose parameter types use them"
                            .to_string(),
                    });
                    self.report(d);
                    None
                }
                _ => match literal_int(item) {
                    Some(v) if v >= 0 => Some(Dim::Static(v as u64)),
                    Some(v) => self.error(
                        ErrorKind::BadArgument,
                        item.span.clone(),
                        format!("a dim cannot be negative, got {v}"),
                        "write `?` for a dim to infer",
                    ),
                    None => self.error(
                        ErrorKind::BadArgument,
                        item.span.clone(),
                        format!("a dim in the shape of `{fname}` must be an integer literal, a dimension name or `?`"),
                        "not a dim",
                    ),
                },
            };
            match d {
                Some(d) => dims.push(d),
                None => ok = false,
            }
        }
        ok.then_some(dims)
    }

}
