//! The compile cache: a vmfb is keyed by a hash of its MLIR, the compiler flags and the
//! compiler's version; kept in memory for the process and on disk across runs.
//!
//! A disk entry is `MAGIC`, the SHA-256 of the payload, then the payload; an entry whose hash
//! does not match (truncated, corrupted) is deleted and rebuilt, never loaded. The folder is
//! created private (0700); one writable by group or others, or owned by another user, is not
//! read or written (see `private`). Entries are written to a temporary file and renamed into
//! place, so a concurrent reader or writer never sees half an entry.

mod private;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::error::{Result, RtError};

const MAGIC: &[u8; 8] = b"PTLVMFB1";

/// Where a vmfb came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    Memory,
    Disk,
    Compiled,
}

pub struct CompileCache {
    dir: Option<PathBuf>,
    memory: HashMap<String, Arc<Vec<u8>>>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl CompileCache {
    /// A cache kept on disk under `dir` (created on first write), or in memory only with `None`.
    pub fn new(dir: Option<PathBuf>) -> Self {
        CompileCache { dir, memory: HashMap::new() }
    }

    /// `$PTL_CACHE_DIR`, else `$XDG_CACHE_HOME/ptl`, else `~/.cache/ptl`.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(d) = std::env::var_os("PTL_CACHE_DIR") {
            return Some(PathBuf::from(d));
        }
        if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
            return Some(PathBuf::from(d).join("ptl"));
        }
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("ptl"))
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The key for a module compiled with `flags` by compiler `version`.
    pub fn key(mlir: &str, flags: &[String], version: &str) -> String {
        let mut h = Sha256::new();
        h.update(version.as_bytes());
        h.update([0]);
        for f in flags {
            h.update(f.as_bytes());
            h.update([0]);
        }
        h.update(mlir.as_bytes());
        hex(&h.finalize())
    }

    /// Why `dir` must not hold a compile cache (writable by group or others, or owned by
    /// another user), if it must not. A cache in such a folder is kept in memory only.
    pub fn refusal(dir: &Path) -> Option<String> {
        private::refusal(dir)
    }

    /// The entry's file, or `None` when the cache is in memory only or its folder is refused.
    fn path(&self, key: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        if private::refusal(dir).is_some() {
            return None;
        }
        Some(dir.join(format!("{key}.vmfb")))
    }

    /// The vmfb for `key`, compiling it with `compile` when no valid entry exists.
    pub fn get_or_compile(
        &mut self,
        key: &str,
        compile: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<(Arc<Vec<u8>>, CacheOutcome)> {
        if let Some(v) = self.memory.get(key) {
            return Ok((v.clone(), CacheOutcome::Memory));
        }
        if let Some(path) = self.path(key) {
            if let Some(v) = read_entry(&path) {
                let v = Arc::new(v);
                self.memory.insert(key.to_string(), v.clone());
                return Ok((v, CacheOutcome::Disk));
            }
        }
        let v = Arc::new(compile()?);
        if let Some(path) = self.path(key) {
            write_entry(&path, &v)?;
        }
        self.memory.insert(key.to_string(), v.clone());
        Ok((v, CacheOutcome::Compiled))
    }

    /// Removes every entry on disk and in memory, and temporary files left by interrupted
    /// writes; returns how many files were removed.
    pub fn clear(&mut self) -> Result<usize> {
        self.memory.clear();
        let Some(dir) = &self.dir else { return Ok(0) };
        let Ok(entries) = std::fs::read_dir(dir) else { return Ok(0) };
        let mut n = 0;
        for e in entries.flatten() {
            // Entries, and temporary files a process left when it died mid-write.
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".vmfb") || (name.starts_with('.') && name.ends_with(".tmp")) {
                std::fs::remove_file(e.path()).map_err(|err| cache_err(&e.path(), err))?;
                n += 1;
            }
        }
        Ok(n)
    }
}

fn cache_err(path: &Path, e: impl std::fmt::Display) -> RtError {
    RtError::Cache { path: path.display().to_string(), message: e.to_string() }
}

/// A valid entry's payload; a damaged one is deleted and reported as absent.
fn read_entry(path: &Path) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    let valid = bytes.len() >= MAGIC.len() + 32 && &bytes[..MAGIC.len()] == MAGIC && {
        let (hash, payload) = bytes[MAGIC.len()..].split_at(32);
        Sha256::digest(payload).as_slice() == hash
    };
    if valid {
        Some(bytes[MAGIC.len() + 32..].to_vec())
    } else {
        let _ = std::fs::remove_file(path);
        None
    }
}

fn write_entry(path: &Path, payload: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    private::create(dir).map_err(|e| cache_err(dir, e))?;
    if let Some(why) = private::refusal(dir) {
        return Err(cache_err(dir, why));
    }
    let mut bytes = Vec::with_capacity(MAGIC.len() + 32 + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&Sha256::digest(payload));
    bytes.extend_from_slice(payload);
    // Write then rename, so a reader never sees half an entry; two writers of one entry each
    // rename a whole file, and the last one wins.
    let (mut file, tmp) = private::temp_file(path).map_err(|e| cache_err(dir, e))?;
    let written = file.write_all(&bytes).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(cache_err(path, e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptl-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn second_lookup_hits_memory_then_disk_in_a_new_cache() {
        let dir = temp_dir("hits");
        let mut c = CompileCache::new(Some(dir.clone()));
        let (v, o) = c.get_or_compile("k", || Ok(vec![1, 2, 3])).unwrap();
        assert_eq!((v.as_slice(), o), (&[1u8, 2, 3][..], CacheOutcome::Compiled));
        let (_, o) = c.get_or_compile("k", || panic!("must not compile")).unwrap();
        assert_eq!(o, CacheOutcome::Memory);
        let mut c2 = CompileCache::new(Some(dir.clone()));
        let (v, o) = c2.get_or_compile("k", || panic!("must not compile")).unwrap();
        assert_eq!((v.as_slice(), o), (&[1u8, 2, 3][..], CacheOutcome::Disk));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn corrupted_or_truncated_entries_are_rebuilt() {
        let dir = temp_dir("corrupt");
        let mut c = CompileCache::new(Some(dir.clone()));
        c.get_or_compile("k", || Ok(vec![7; 100])).unwrap();
        let path = dir.join("k.vmfb");
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let mut c2 = CompileCache::new(Some(dir.clone()));
        let (v, o) = c2.get_or_compile("k", || Ok(vec![8; 10])).unwrap();
        assert_eq!((v.as_slice(), o), (&[8u8; 10][..], CacheOutcome::Compiled));
        std::fs::write(&path, &bytes[..20]).unwrap();
        let mut c3 = CompileCache::new(Some(dir.clone()));
        let (_, o) = c3.get_or_compile("k", || Ok(vec![9])).unwrap();
        assert_eq!(o, CacheOutcome::Compiled);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_folder_is_created_private_and_a_shared_one_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("private");
        let nested = dir.join("a").join("b");
        let mut c = CompileCache::new(Some(nested.clone()));
        c.get_or_compile("k", || Ok(vec![1])).unwrap();
        for d in [&dir, &dir.join("a"), &nested] {
            let mode = std::fs::metadata(d).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", d.display());
        }
        let entries: Vec<_> = std::fs::read_dir(&nested).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(entries, vec![std::ffi::OsString::from("k.vmfb")]);

        std::fs::set_permissions(&nested, std::fs::Permissions::from_mode(0o770)).unwrap();
        assert!(CompileCache::refusal(&nested).is_some_and(|why| why.contains("mode 770")));
        let mut c2 = CompileCache::new(Some(nested.clone()));
        let (v, o) = c2.get_or_compile("k", || Ok(vec![2])).unwrap();
        assert_eq!((v.as_slice(), o), (&[2u8][..], CacheOutcome::Compiled));
        c2.get_or_compile("k2", || Ok(vec![3])).unwrap();
        assert!(!nested.join("k2.vmfb").exists());

        std::fs::set_permissions(&nested, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::write(nested.join(".k3.vmfb.1.0.tmp"), b"half").unwrap();
        std::fs::write(nested.join("notes.txt"), b"mine").unwrap();
        assert_eq!(CompileCache::new(Some(nested.clone())).clear().unwrap(), 2);
        let left: Vec<_> = std::fs::read_dir(&nested).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("notes.txt")]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn key_depends_on_module_flags_and_version() {
        let f = vec!["--a".to_string()];
        let k = CompileCache::key("m", &f, "v1");
        assert_ne!(k, CompileCache::key("m2", &f, "v1"));
        assert_ne!(k, CompileCache::key("m", &[], "v1"));
        assert_ne!(k, CompileCache::key("m", &f, "v2"));
        assert_eq!(k, CompileCache::key("m", &f, "v1"));
    }
}
