//! Loops in random programs: `loop acc = INIT for step in 0..T { BODY }` with a small trip
//! count (a literal, possibly 0 or negative, or a dimension variable), INIT any expression of
//! the wanted type, and BODY an elementwise update of the state and the counter that keeps
//! its type exactly, sometimes reading a value of the enclosing scope. Float bodies contract
//! (`tanh`), so rounding differences between the backends do not grow from step to step.
//! Some loops stop early (`until`) on an exact condition: the counter, or integer and bool
//! states (never a float comparison, which rounding could decide differently).

use ptl_lang::types::DType;

use super::{Gen, Shape, Spelling, VARS};

impl Gen<'_> {
    /// A loop whose value has exactly `shape` and `dtype`.
    pub(super) fn looped(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        let body = self.loop_body(shape, dtype, d)?;
        if !self.rng.one_in(3) {
            return Some(body);
        }
        let until = if dtype.is_int() {
            self.rng.pick(&["any(acc > 5)", "all(acc < 0)", "step >= 1"])
        } else if dtype == DType::Bool {
            self.rng.pick(&["all(acc)", "any(logical_not(acc))", "step == 0"])
        } else {
            self.rng.pick(&["step >= 1", "step == 2"])
        };
        // In parentheses: the condition would take in what follows the loop.
        Some(format!("({body} until {until})"))
    }

    fn loop_body(&mut self, shape: &Shape, dtype: DType, d: usize) -> Option<String> {
        let init = self.expr(shape, dtype, d);
        let trips = if self.rng.one_in(3) {
            let v = self.rng.pick(&self.vars.clone());
            match self.spelling[v] {
                Spelling::Name => VARS[v].to_string(),
                Spelling::Static(s) => s.to_string(),
            }
        } else {
            self.rng.pick(&["0", "1", "2", "3", "-1"]).to_string()
        };
        let dt = dtype.name();
        // Sometimes the body also reads a value of the enclosing scope, reduced to a scalar so
        // that the state keeps its type exactly.
        if self.rng.one_in(2) {
            let other = self.leaf(shape, dtype);
            let body = if dtype.is_float() {
                format!("tanh(acc + tanh(sum({other}))) * 0.5 + cast(step, {dt})")
            } else if dtype.is_int() {
                format!("acc * 2 - cast(sum({other}), {dt}) - cast(step, {dt})")
            } else {
                format!("logical_xor(acc, any({other}))")
            };
            return Some(format!("loop acc = {init} for step in 0..{trips} {{ {body} }}"));
        }
        let body = if dtype.is_float() {
            match self.rng.below(3) {
                0 => format!("tanh(acc) * 0.5 + cast(step, {dt})"),
                1 => "sin(acc) * 0.75 - 0.25".to_string(),
                _ => format!("maximum(acc, cast(step, {dt})) * 0.5"),
            }
        } else if dtype.is_int() {
            match self.rng.below(2) {
                0 => format!("acc * 2 - cast(step, {dt})"),
                _ => "maximum(acc, 1) + 3".to_string(),
            }
        } else {
            match self.rng.below(2) {
                0 => "logical_xor(acc, step == 1)".to_string(),
                _ => "logical_not(acc)".to_string(),
            }
        };
        Some(format!("loop acc = {init} for step in 0..{trips} {{ {body} }}"))
    }
}
