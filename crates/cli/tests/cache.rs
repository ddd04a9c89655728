//! The compile cache as seen from the `ptl` binary: created private, shared safely by
//! processes compiling the same program at once, and not used when others can write it.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use assert_cmd::cargo::CommandCargoExt;

/// A program no earlier run has compiled (its constant differs per run of this test).
fn fresh_program(dir: &Path) -> (std::path::PathBuf, String) {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock")
        .subsec_nanos();
    let k = i64::from(nanos % 1000);
    let file = dir.join("prog.ptl");
    std::fs::write(&file, format!("print sum([1, 2, 3]) + {k};\n")).expect("write program");
    (file, format!("{}\n", 6 + k))
}

fn ptl(cache: &Path) -> Command {
    let mut c = Command::cargo_bin("ptl").expect("ptl binary");
    c.env("PTL_CACHE_DIR", cache).env("NO_COLOR", "1");
    c
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("cache folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn six_processes_compiling_one_program_share_a_private_cache() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (prog, expected) = fresh_program(tmp.path());
    let cache = tmp.path().join("made").join("cache");
    let children: Vec<_> = (0..6)
        .map(|_| {
            ptl(&cache)
                .arg("run")
                .arg(&prog)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn ptl")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("ptl finishes");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
        assert_eq!(stderr, "");
    }
    assert_eq!(mode(&cache), 0o700);
    assert_eq!(mode(&tmp.path().join("made")), 0o700);
    let entries = names(&cache);
    assert!(!entries.is_empty());
    assert!(entries.iter().all(|n| n.ends_with(".vmfb")), "{entries:?}");
    // The entries load: a later run must not rewrite them.
    let before: Vec<_> = entries
        .iter()
        .map(|n| std::fs::read(cache.join(n)).expect("entry"))
        .collect();
    let out = ptl(&cache).arg("run").arg(&prog).output().expect("ptl");
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    assert_eq!(names(&cache), entries);
    let after: Vec<_> = entries
        .iter()
        .map(|n| std::fs::read(cache.join(n)).expect("entry"))
        .collect();
    assert!(before == after);
}

#[test]
fn a_cache_folder_others_can_write_is_not_used() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (prog, expected) = fresh_program(tmp.path());
    let cache = tmp.path().join("shared");
    std::fs::create_dir(&cache).expect("cache folder");
    for shared_mode in [0o770, 0o707] {
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(shared_mode))
            .expect("chmod");
        let out = ptl(&cache).arg("run").arg(&prog).output().expect("ptl");
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
        let d = cache.display();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "warning: the compile cache {d} is writable by group or others (mode {shared_mode:o}), \
                 so ptl does not use it; make it private with `chmod 700 {d}` or choose another \
                 folder with PTL_CACHE_DIR; compiling without the cache\n"
            )
        );
        assert_eq!(names(&cache), Vec::<String>::new());
    }
}
