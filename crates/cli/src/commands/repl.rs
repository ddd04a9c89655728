//! `ptl repl`: the interactive loop around [`crate::repl::Repl`], with line editing and
//! persistent history.

use std::io::IsTerminal;
use std::path::PathBuf;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;

use crate::args::ExecOptions;
use crate::repl::{Output, Repl, is_incomplete};
use crate::report::{CmdResult, fail, no_color_unset};

/// `$PTL_HISTORY`, else `$XDG_DATA_HOME/ptl/history`, else `~/.local/share/ptl/history`.
pub fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTL_HISTORY") {
        return Some(PathBuf::from(p));
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME") {
        return Some(PathBuf::from(d).join("ptl").join("history"));
    }
    std::env::var_os("HOME").map(|h| {
        PathBuf::from(h)
            .join(".local")
            .join("share")
            .join("ptl")
            .join("history")
    })
}

fn save_history(rl: &mut DefaultEditor, path: &Option<PathBuf>) {
    if let Some(path) = path {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = rl.save_history(path) {
            eprintln!(
                "warning: cannot save the history to {}: {e}",
                path.display()
            );
        }
    }
}

/// A whole line typed while the previous input was evaluated, if one is waiting. Between
/// prompts the terminal is in its normal (canonical) mode, where the kernel has already echoed
/// such a line and a read returns exactly one line; left to the line editor, which reads raw
/// bytes in chunks, every typed-ahead line after the first would be dropped. A line typed
/// only in part is left for the line editor, which shows it.
fn typed_ahead_line() -> Option<String> {
    let mut fds = libc::pollfd { fd: libc::STDIN_FILENO, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd, a zero timeout.
    let ready = unsafe { libc::poll(&mut fds, 1, 0) };
    if ready != 1 || fds.revents & libc::POLLIN == 0 {
        return None;
    }
    let mut buf = vec![0u8; 64 * 1024];
    // SAFETY: reading into a buffer of the given length.
    let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
    if n <= 0 {
        return None;
    }
    buf.truncate(n as usize);
    Some(String::from_utf8_lossy(&buf).trim_end_matches(['\n', '\r']).to_string())
}

pub fn repl(opts: ExecOptions) -> CmdResult {
    let interactive = std::io::stdin().is_terminal();
    let color = no_color_unset() && std::io::stdout().is_terminal();
    let mut session = Repl::new(opts, color);
    let mut rl =
        DefaultEditor::new().map_err(|e| fail(format!("cannot start the line editor: {e}")))?;
    let history = history_path();
    if let Some(path) = &history {
        // A missing history file is the normal first run.
        let _ = rl.load_history(path);
    }
    if interactive {
        println!(
            "ptl {} — :help for help, :quit or Ctrl-D to leave",
            env!("CARGO_PKG_VERSION")
        );
    }
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() { "ptl> " } else { "...> " };
        let ahead = if interactive { typed_ahead_line() } else { None };
        let line = match ahead {
            Some(line) => Ok(line),
            None => rl.readline(prompt),
        };
        match line {
            Ok(line) => {
                pending.push_str(&line);
                pending.push('\n');
                if is_incomplete(&pending) {
                    continue;
                }
                let input = std::mem::take(&mut pending);
                if !input.trim().is_empty() {
                    let _ = rl.add_history_entry(input.trim_end());
                }
                let out = {
                    // Ctrl-C stops the evaluation, not the REPL.
                    let _ctrl_c = crate::interrupt::Guard::install();
                    session.eval_line(&input)
                };
                if let Some(t) = session.take_timing() {
                    eprintln!("{t}");
                }
                match out {
                    Output::Nothing => {}
                    Output::Text(t) => println!("{t}"),
                    Output::Error(e) => eprintln!("{}", e.trim_end()),
                    Output::Quit => break,
                }
            }
            // Ctrl-C drops the input being typed, as in a shell.
            Err(ReadlineError::Interrupted) => pending.clear(),
            Err(ReadlineError::Eof) => {
                if !pending.trim().is_empty() {
                    eprintln!("error: input ended inside an open bracket or brace");
                }
                break;
            }
            Err(e) => {
                save_history(&mut rl, &history);
                return Err(fail(format!("reading input: {e}")));
            }
        }
    }
    save_history(&mut rl, &history);
    Ok(())
}
