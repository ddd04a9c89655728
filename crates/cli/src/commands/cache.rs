//! `ptl cache`: where compiled modules are kept, and clearing them.

use ptl_rt::CompileCache;

use crate::args::CacheAction;
use crate::report::{CmdResult, fail};

pub fn cache(action: CacheAction) -> CmdResult {
    let Some(dir) = CompileCache::default_dir() else {
        return Err(fail(
            "no cache folder: set PTL_CACHE_DIR, XDG_CACHE_HOME or HOME",
        ));
    };
    match action {
        CacheAction::Dir => println!("{}", dir.display()),
        CacheAction::Clear => {
            let n = CompileCache::new(Some(dir.clone())).clear().map_err(fail)?;
            println!(
                "removed {n} cached module{} from {}",
                if n == 1 { "" } else { "s" },
                dir.display()
            );
        }
    }
    Ok(())
}
