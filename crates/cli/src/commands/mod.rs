//! One module per subcommand.

pub mod cache;
pub mod check;
pub mod emit;
pub mod fmt;
pub mod repl;
pub mod run;
