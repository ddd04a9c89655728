//! The cache folder must be private to the user: a vmfb is native code, so whoever can write
//! the folder can choose what ptl runs.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Creates `dir` and any missing parents with mode 0700.
pub fn create(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Why `dir` must not be used, when it must not: it is writable by group or others, or
/// belongs to another user. A folder that does not exist yet is fine: it is made private.
pub fn refusal(dir: &Path) -> Option<String> {
    let meta = std::fs::metadata(dir).ok()?;
    let d = dir.display();
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Some(format!(
            "the compile cache {d} is writable by group or others (mode {mode:o}), so ptl does not \
             use it; make it private with `chmod 700 {d}` or choose another folder with PTL_CACHE_DIR"
        ));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Some(format!(
            "the compile cache {d} belongs to another user (uid {}), so ptl does not use it; \
             choose another folder with PTL_CACHE_DIR",
            meta.uid()
        ));
    }
    None
}

/// A new file for an entry being written, in the entry's own folder (so that renaming it into
/// place is atomic) and named uniquely per process and per write, readable only by the user.
pub fn temp_file(entry: &Path) -> io::Result<(File, PathBuf)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = entry
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = entry.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    Ok((file, tmp))
}
