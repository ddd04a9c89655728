//! `ptl emit`: the parsed, typed, MLIR or compiled form of a program.

use std::path::{Path, PathBuf};

use ptl_lower::Entry;

use crate::args::{Stage, TargetArg};
use crate::exec;
use crate::report::{CmdResult, Failed, fail, load_program, print_diagnostics, read_source};
use crate::typed_view;

pub fn emit(
    file: &Path,
    stage: Stage,
    function: Option<&str>,
    output: Option<&PathBuf>,
    target: TargetArg,
) -> CmdResult {
    if target != TargetArg::Cpu && stage != Stage::Vmfb {
        return Err(fail("--target applies to --stage vmfb"));
    }
    if stage == Stage::Vmfb && output.is_none() {
        return Err(fail("a vmfb is binary; write it to a file with -o FILE"));
    }
    if function.is_some() && matches!(stage, Stage::Ast | Stage::Typed) {
        return Err(fail("--fn applies to --stage mlir and vmfb"));
    }
    let bytes: Vec<u8> = match stage {
        Stage::Ast => {
            let src = read_source(file)?;
            match ptl_lang::parse(&src) {
                (Some(ast), diags) if diags.is_empty() => {
                    ptl_lang::print_program(&ast).into_bytes()
                }
                (_, diags) => {
                    print_diagnostics(&diags, file, &src);
                    return Err(Failed);
                }
            }
        }
        Stage::Typed => {
            let (src, prog) = load_program(file)?;
            typed_view::render(&prog, &src).into_bytes()
        }
        Stage::Mlir | Stage::Vmfb => {
            let (_, prog) = load_program(file)?;
            let entry = match function {
                Some(name) if prog.function(name).is_none() => {
                    return Err(fail(format!(
                        "no function named `{name}` in {}",
                        file.display()
                    )));
                }
                Some(name) => Entry::Function(name.to_string()),
                None if !prog.top.is_empty() => Entry::Script,
                // No statements: the one function, or a question of which.
                None => match prog.fns.as_slice() {
                    [f] => Entry::Function(f.name.clone()),
                    [] => return Err(fail(format!("{} has no statements and no functions to emit", file.display()))),
                    fns => {
                        let names: Vec<String> = fns.iter().map(|f| format!("`{}`", f.name)).collect();
                        return Err(fail(format!(
                            "{} has no top-level statements; pick a function with --fn: {}",
                            file.display(),
                            names.join(", ")
                        )));
                    }
                },
            };
            let mlir = exec::mlir(&prog, &entry).map_err(fail)?;
            if stage == Stage::Mlir {
                mlir.into_bytes()
            } else {
                let target = match target {
                    TargetArg::Cpu => ptl_lower::Target::Cpu,
                    TargetArg::Vulkan => ptl_lower::Target::Vulkan(ptl_lower::VulkanCaps::BASELINE),
                    TargetArg::Cuda => ptl_lower::Target::Cuda { sm: ptl_lower::DEFAULT_CUDA_SM },
                };
                ptl_lower::compile(&mlir, &ptl_lower::CompileOptions { target, ..Default::default() }).map_err(fail)?
            }
        }
    };
    match output {
        Some(path) => std::fs::write(path, bytes)
            .map_err(|e| fail(format!("cannot write {}: {e}", path.display()))),
        None => {
            print!("{}", String::from_utf8_lossy(&bytes));
            Ok(())
        }
    }
}
