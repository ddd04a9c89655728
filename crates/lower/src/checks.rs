//! Run-time checks in compiled code. Each `cf.assert` the lowering emits carries only a
//! marker, `ptl-check #N`; the lowering records check `N` (what must hold, at which source
//! span, in which function) next to the module, and the runtime maps a failed assertion back
//! to that record, so a user sees the same ptl diagnostic the interpreter gives.
//!
//! The registry is per thread and per `lower_program` call: lowering is single-threaded and
//! each call starts a fresh list, so the numbers are stable for a given program.

use std::cell::RefCell;

use ptl_lang::Span;
use ptl_lang::runtime::RuntimeCheck;

/// One run-time check of a module.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckSite {
    pub check: RuntimeCheck,
    /// The op the check belongs to.
    pub span: Option<Span>,
    /// The function whose code holds the check (`None` for the script's statements).
    pub function: Option<String>,
}

#[derive(Default)]
struct Registry {
    sites: Vec<CheckSite>,
    span: Option<Span>,
    function: Option<String>,
    /// Lowering a checks-only twin (see `module::checks_entry`).
    twin: bool,
    /// How many blocks of `if`s of a twin enclose the code being lowered: there, no check
    /// is emitted (see `crate::conditional`).
    twin_blocks: usize,
    /// A decomposition was lowered (see `crate::iree::WITHOUT_DATA_TILING`).
    decomposed: bool,
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::default());
}

const MARKER: &str = "ptl-check #";

/// Starts the list of checks for one module.
pub(crate) fn begin() {
    REGISTRY.with(|r| *r.borrow_mut() = Registry::default());
}

/// The checks recorded since `begin`.
pub(crate) fn finish() -> Vec<CheckSite> {
    REGISTRY.with(|r| std::mem::take(&mut r.borrow_mut().sites))
}

/// Notes that the module holds a decomposition's loop.
pub(crate) fn note_decomposition() {
    REGISTRY.with(|r| r.borrow_mut().decomposed = true);
}

/// Whether a decomposition was lowered since `begin`.
pub(crate) fn decomposed() -> bool {
    REGISTRY.with(|r| r.borrow().decomposed)
}

/// How many checks are recorded so far.
pub(crate) fn count() -> usize {
    REGISTRY.with(|r| r.borrow().sites.len())
}

/// Marks whether a checks-only twin is being lowered.
pub(crate) fn set_twin(twin: bool) {
    REGISTRY.with(|r| r.borrow_mut().twin = twin);
}

pub(crate) fn in_twin() -> bool {
    REGISTRY.with(|r| r.borrow().twin)
}

/// Marks the code lowered while the guard lives as inside a block of an `if` of a twin.
pub(crate) fn in_twin_block() -> TwinBlock {
    REGISTRY.with(|r| r.borrow_mut().twin_blocks += 1);
    TwinBlock
}

pub(crate) struct TwinBlock;

impl Drop for TwinBlock {
    fn drop(&mut self) {
        REGISTRY.with(|r| r.borrow_mut().twin_blocks -= 1);
    }
}

/// Whether checks are left out here: inside a block of an `if` of a twin.
pub(crate) fn silent() -> bool {
    REGISTRY.with(|r| r.borrow().twin_blocks > 0)
}

/// Sets the function being lowered.
pub(crate) fn in_function(name: Option<&str>) {
    REGISTRY.with(|r| r.borrow_mut().function = name.map(str::to_string));
}

/// Sets the span of the node being lowered; returns the previous one, to restore after it.
pub(crate) fn at(span: Option<Span>) -> Option<Span> {
    REGISTRY.with(|r| std::mem::replace(&mut r.borrow_mut().span, span))
}

/// Records `check` at the current node and returns the assertion message that names it.
pub(crate) fn register(check: RuntimeCheck) -> String {
    REGISTRY.with(|r| {
        let mut r = r.borrow_mut();
        let site = CheckSite { check, span: r.span.clone(), function: r.function.clone() };
        r.sites.push(site);
        format!("{MARKER}{}", r.sites.len() - 1)
    })
}

/// The check number named in a runtime failure's text, if any.
pub fn find_marker(text: &str) -> Option<usize> {
    let at = text.find(MARKER)? + MARKER.len();
    let digits: String = text[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptl_lang::{DType, TensorType};

    #[test]
    fn markers_round_trip() {
        begin();
        in_function(Some("f"));
        at(Some(3..7));
        let t = TensorType::new(DType::F64, vec![]);
        let msg = register(RuntimeCheck::Reshape { from: t.clone(), to: t });
        let sites = finish();
        assert_eq!(sites.len(), 1);
        assert_eq!(sites[0].span, Some(3..7));
        assert_eq!(find_marker(&format!("FAILED_PRECONDITION; {msg}; while invoking")), Some(0));
        assert_eq!(find_marker("no marker here"), None);
    }
}
