//! The MLIR context with every dialect the lowering emits.

use melior::{
    Context,
    dialect::DialectRegistry,
    utility::register_all_dialects,
};

/// Creates a context with all upstream dialects registered and loaded.
pub fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context
}
