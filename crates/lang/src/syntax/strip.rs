//! Copies of syntax trees with every span set to `0..0`, for comparing trees by structure.

use crate::ast::*;

const NO_SPAN: std::ops::Range<usize> = 0..0;

impl Program {
    /// This program with all spans zeroed: two parses of differently formatted but equal
    /// source compare equal this way.
    pub fn without_spans(&self) -> Program {
        Program {
            items: self.items.iter().map(item).collect(),
        }
    }
}

impl Expr {
    /// This expression with all spans zeroed.
    pub fn without_spans(&self) -> Expr {
        expr(self)
    }
}

fn item(i: &Item) -> Item {
    match i {
        Item::Fn(f) => Item::Fn(FnDef {
            name: ident(&f.name),
            params: f
                .params
                .iter()
                .map(|p| Param {
                    name: ident(&p.name),
                    ty: ty(&p.ty),
                })
                .collect(),
            ret: f.ret.as_ref().map(|r| r.iter().map(ty).collect()),
            body: Block {
                lets: f.body.lets.iter().map(let_).collect(),
                result: expr(&f.body.result),
                span: NO_SPAN,
            },
            span: NO_SPAN,
        }),
        Item::Let(l) => Item::Let(let_(l)),
        Item::Print(p) => Item::Print(Print {
            value: expr(&p.value),
            span: NO_SPAN,
        }),
    }
}

fn ident(i: &Ident) -> Ident {
    Ident {
        name: i.name.clone(),
        span: NO_SPAN,
    }
}

fn ty(t: &TypeExpr) -> TypeExpr {
    TypeExpr {
        dtype: t.dtype,
        dims: t
            .dims
            .iter()
            .map(|d| DimExpr {
                dim: d.dim.clone(),
                span: NO_SPAN,
            })
            .collect(),
        span: NO_SPAN,
    }
}

fn let_(l: &Let) -> Let {
    Let {
        name: ident(&l.name),
        ty: l.ty.as_ref().map(ty),
        value: expr(&l.value),
        span: NO_SPAN,
        rest: l.rest.iter().map(ident).collect(),
    }
}

fn loop_(l: &LoopExpr) -> LoopExpr {
    LoopExpr {
        kind: l.kind,
        state: l.state.iter().map(ident).collect(),
        tuple: l.tuple,
        init: expr(&l.init),
        counter: ident(&l.counter),
        start: expr(&l.start),
        stop: expr(&l.stop),
        body: block(&l.body),
        until: l.until.as_ref().map(expr),
    }
}

fn block(b: &Block) -> Block {
    Block { lets: b.lets.iter().map(let_).collect(), result: expr(&b.result), span: NO_SPAN }
}

fn expr(e: &Expr) -> Expr {
    let boxed = |x: &Expr| Box::new(expr(x));
    let kind = match &e.kind {
        ExprKind::Array(xs) => ExprKind::Array(xs.iter().map(expr).collect()),
        ExprKind::Tuple(xs) => ExprKind::Tuple(xs.iter().map(expr).collect()),
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, boxed(x)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, boxed(a), boxed(b)),
        ExprKind::Call(f, args) => ExprKind::Call(ident(f), args.iter().map(expr).collect()),
        ExprKind::Apply(f, args) => ExprKind::Apply(boxed(f), args.iter().map(expr).collect()),
        ExprKind::Transpose(x) => ExprKind::Transpose(boxed(x)),
        ExprKind::Ascribe(x, t) => ExprKind::Ascribe(boxed(x), ty(t)),
        ExprKind::Index(x, items) => ExprKind::Index(boxed(x), items.iter().map(index_item).collect()),
        ExprKind::Loop(l) => ExprKind::Loop(Box::new(loop_(l))),
        ExprKind::If(c) => ExprKind::If(Box::new(crate::ast::IfExpr { cond: expr(&c.cond), then: block(&c.then), otherwise: block(&c.otherwise) })),
        leaf => leaf.clone(),
    };
    Expr {
        kind,
        span: NO_SPAN,
    }
}

fn index_item(i: &IndexItem) -> IndexItem {
    match i {
        IndexItem::Single(x) => IndexItem::Single(expr(x)),
        IndexItem::Slice { start, stop, step, .. } => IndexItem::Slice {
            start: start.as_ref().map(expr),
            stop: stop.as_ref().map(expr),
            step: step.as_ref().map(expr),
            span: NO_SPAN,
        },
    }
}
