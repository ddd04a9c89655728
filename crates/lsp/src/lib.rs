//! A language server for ptl: diagnostics as `ptl check` reports them, hover with types and
//! dims (and, on a call, the signature with the dims bound there), go to definition,
//! document symbols, formatting, completion and inlay hints for `let` types.
//!
//! [`serve_stdio`] runs it over stdin/stdout, as editors start it; [`serve`] runs it over
//! any [`lsp_server::Connection`] (tests use [`lsp_server::Connection::memory`]).

mod completion;
mod definition;
mod diagnostics;
pub mod document;
mod formatting;
mod hover;
mod inlay;
pub mod position;
pub mod resolve;
mod server;
mod signature;
mod symbols;
#[cfg(test)]
mod sweep_tests;
pub mod typed_lookup;

pub use document::{Analysis, Document};
pub use server::{Error, capabilities};

/// Runs the server over any connection until the client sends `exit` (after `shutdown`)
/// or hangs up.
pub fn serve(connection: lsp_server::Connection) -> Result<(), Error> {
    server::serve(connection)
}

/// Runs the server over stdin and stdout.
pub fn serve_stdio() -> Result<(), Error> {
    let (connection, io_threads) = lsp_server::Connection::stdio();
    serve(connection)?;
    io_threads.join()?;
    Ok(())
}
