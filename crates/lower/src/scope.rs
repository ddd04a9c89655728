//! What a function body can refer to while it is lowered: bindings and symbolic dims.

use std::collections::HashMap;

use melior::ir::Value;

use crate::emitter::Emitter;
use crate::error::{LowerError, Result};

#[derive(Clone)]
pub struct Scope<'c, 'a> {
    vars: HashMap<String, Value<'c, 'a>>,
    /// A symbolic dim's size is read from the first parameter that carries it.
    symbols: HashMap<String, (Value<'c, 'a>, usize)>,
}

impl<'c, 'a> Scope<'c, 'a> {
    pub fn new() -> Self {
        Scope { vars: HashMap::new(), symbols: HashMap::new() }
    }

    pub fn bind(&mut self, name: &str, value: Value<'c, 'a>) {
        self.vars.insert(name.to_string(), value);
    }

    pub fn lookup(&self, name: &str) -> Result<Value<'c, 'a>> {
        self.vars.get(name).copied().ok_or_else(|| LowerError::Internal(format!("unbound name `{name}`")))
    }

    pub fn bind_symbol(&mut self, name: &str, tensor: Value<'c, 'a>, axis: usize) {
        self.symbols.entry(name.to_string()).or_insert((tensor, axis));
    }

    pub fn symbol_size(&self, e: &Emitter<'c, 'a>, name: &str) -> Result<Value<'c, 'a>> {
        let (t, axis) = self
            .symbols
            .get(name)
            .copied()
            .ok_or_else(|| LowerError::Internal(format!("no parameter carries dim `{name}`")))?;
        e.dim(t, axis)
    }
}

impl Default for Scope<'_, '_> {
    fn default() -> Self {
        Self::new()
    }
}
