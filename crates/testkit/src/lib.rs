//! Test support shared by the crates' tests and the fuzz targets: fixture files (a program and
//! its expected output or diagnostics) and a generator of random well-typed programs.

pub mod fixture;
pub mod progen;
