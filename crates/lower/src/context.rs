//! The MLIR context with the dialects the lowering emits.

use melior::{Context, dialect::DialectRegistry, utility::register_all_dialects};

/// The dialects a lowered module uses.
const DIALECTS: [&str; 8] = ["builtin", "func", "arith", "math", "tensor", "linalg", "cf", "scf"];

/// Creates a context that knows every upstream dialect but loads only the ones the lowering
/// emits, without a thread pool: loading everything took most of a cache hit's time.
pub fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, false);
    // IREE's own ops (`util.optimization_barrier`) are emitted in generic form.
    context.set_allow_unregistered_dialects(true);
    for d in DIALECTS {
        context.get_or_load_dialect(d);
    }
    context
}
