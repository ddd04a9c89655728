//! Element-level arithmetic inside `linalg.generic` bodies: one function per family of ops.

use melior::{
    dialect::arith::{self, CmpfPredicate, CmpiPredicate},
    ir::Value,
};
use ptl_lang::DType;
use ptl_lang::typed::{BinaryOp, UnaryOp};

use crate::emitter::Emitter;
use crate::error::Result;
use crate::types::element_type;

pub fn unary<'c, 'a>(e: &Emitter<'c, 'a>, op: UnaryOp, dt: DType, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    let ty = element_type(e.ctx, dt);
    let float = dt.is_float();
    let name = match op {
        UnaryOp::Neg if float => "arith.negf",
        UnaryOp::Neg => {
            let zero = e.const_int(dt, 0)?;
            return e.op1("arith.subi", &[zero, x], ty, &[]);
        }
        UnaryOp::Abs if float => "math.absf",
        UnaryOp::Abs if dt == DType::Bool => return Ok(x),
        UnaryOp::Abs => "math.absi",
        UnaryOp::Exp => "math.exp",
        UnaryOp::Log => "math.log",
        UnaryOp::Log1p => "math.log1p",
        UnaryOp::Sqrt => "math.sqrt",
        UnaryOp::Tanh => "math.tanh",
        UnaryOp::Sigmoid => {
            // 1 / (1 + exp(-x)): saturates to 0 and 1 without overflow trouble.
            let neg = e.op1("arith.negf", &[x], ty, &[])?;
            let ex = e.op1("math.exp", &[neg], ty, &[])?;
            let one = e.const_scalar(dt, 1.0)?;
            let den = e.op1("arith.addf", &[one, ex], ty, &[])?;
            return e.op1("arith.divf", &[one, den], ty, &[]);
        }
    };
    e.op1(name, &[x], ty, &[])
}

pub fn binary<'c, 'a>(
    e: &Emitter<'c, 'a>,
    op: BinaryOp,
    dt: DType,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let ty = element_type(e.ctx, dt);
    let float = dt.is_float();
    let boolean = dt == DType::Bool;
    if op.is_comparison() {
        return compare(e, op, dt, a, b);
    }
    let name = match op {
        BinaryOp::Add if float => "arith.addf",
        BinaryOp::Add if boolean => "arith.ori",
        BinaryOp::Add => "arith.addi",
        BinaryOp::Sub if float => "arith.subf",
        BinaryOp::Sub if boolean => "arith.xori",
        BinaryOp::Sub => "arith.subi",
        BinaryOp::Mul if float => "arith.mulf",
        BinaryOp::Mul if boolean => "arith.andi",
        BinaryOp::Mul => "arith.muli",
        BinaryOp::Div => "arith.divf",
        BinaryOp::Pow if float => "math.powf",
        BinaryOp::Pow => "math.ipowi",
        BinaryOp::Maximum if float => "arith.maximumf",
        BinaryOp::Maximum if boolean => "arith.ori",
        BinaryOp::Maximum => "arith.maxsi",
        BinaryOp::Minimum if float => "arith.minimumf",
        BinaryOp::Minimum if boolean => "arith.andi",
        BinaryOp::Minimum => "arith.minsi",
        _ => unreachable!("comparisons handled above"),
    };
    e.op1(name, &[a, b], ty, &[])
}

fn compare<'c, 'a>(
    e: &Emitter<'c, 'a>,
    op: BinaryOp,
    dt: DType,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    if dt.is_float() {
        // Ordered comparisons are false on NaN; `!=` is unordered (true on NaN), as in NumPy.
        let p = match op {
            BinaryOp::Lt => CmpfPredicate::Olt,
            BinaryOp::Le => CmpfPredicate::Ole,
            BinaryOp::Gt => CmpfPredicate::Ogt,
            BinaryOp::Ge => CmpfPredicate::Oge,
            BinaryOp::Eq => CmpfPredicate::Oeq,
            _ => CmpfPredicate::Une,
        };
        return e.append(arith::cmpf(e.ctx, p, a, b, e.loc));
    }
    let unsigned = dt == DType::Bool;
    let p = match (op, unsigned) {
        (BinaryOp::Lt, false) => CmpiPredicate::Slt,
        (BinaryOp::Le, false) => CmpiPredicate::Sle,
        (BinaryOp::Gt, false) => CmpiPredicate::Sgt,
        (BinaryOp::Ge, false) => CmpiPredicate::Sge,
        (BinaryOp::Lt, true) => CmpiPredicate::Ult,
        (BinaryOp::Le, true) => CmpiPredicate::Ule,
        (BinaryOp::Gt, true) => CmpiPredicate::Ugt,
        (BinaryOp::Ge, true) => CmpiPredicate::Uge,
        (BinaryOp::Eq, _) => CmpiPredicate::Eq,
        _ => CmpiPredicate::Ne,
    };
    e.append(arith::cmpi(e.ctx, p, a, b, e.loc))
}

/// Converts one element from `from` to `to` with NumPy's `astype` meaning.
pub fn convert<'c, 'a>(e: &Emitter<'c, 'a>, from: DType, to: DType, x: Value<'c, 'a>) -> Result<Value<'c, 'a>> {
    if from == to {
        return Ok(x);
    }
    let ty = element_type(e.ctx, to);
    if to == DType::Bool {
        let zero = e.const_scalar(from, 0.0)?;
        return compare(e, BinaryOp::Ne, from, x, zero);
    }
    let name = match (from, to) {
        (DType::F32, DType::F64) => "arith.extf",
        (DType::F64, DType::F32) => "arith.truncf",
        (DType::Bool, t) if t.is_float() => "arith.uitofp",
        (DType::Bool, _) => "arith.extui",
        (f, t) if f.is_int() && t.is_float() => "arith.sitofp",
        (f, t) if f.is_float() && t.is_int() => "arith.fptosi",
        (DType::I32, DType::I64) => "arith.extsi",
        (DType::I64, DType::I32) => "arith.trunci",
        (f, t) => {
            return Err(crate::error::LowerError::Internal(format!("no conversion from {f} to {t}")));
        }
    };
    e.op1(name, &[x], ty, &[])
}
