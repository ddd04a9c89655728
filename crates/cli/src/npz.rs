//! Reading an argument from a NumPy `.npz` archive that holds exactly one array.

use std::io::Read;
use std::path::Path;

use ptl_lang::Value;

use crate::npy;

/// The single array of an uncompressed `.npz` archive (`numpy.savez`); an archive with
/// several arrays is an error that names them, as is a compressed one.
pub fn read(path: &Path) -> Result<Value, String> {
    let p = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {p}: {e}"))?;
    let file_len = file
        .metadata()
        .map_err(|e| format!("cannot read {p}: {e}"))?
        .len();
    let mut zip =
        zip::ZipArchive::new(file).map_err(|e| format!("{p} is not a valid .npz archive ({e})"))?;
    let mut names: Vec<String> = zip.file_names().map(str::to_string).collect();
    names.sort();
    let name = match names.as_slice() {
        [] => return Err(format!("{p} is a .npz archive with no arrays")),
        [one] => one.clone(),
        many => {
            let list: Vec<String> = many.iter().map(|n| format!("`{n}`")).collect();
            return Err(format!(
                "{p} is a .npz archive of {} arrays ({}); ptl reads one array per argument: save the one you mean with numpy.save",
                many.len(),
                list.join(", ")
            ));
        }
    };
    let entry = zip.by_name(&name).map_err(|e| {
        format!("{p}: cannot read member `{name}` ({e}); ptl reads archives written by numpy.savez, not savez_compressed")
    })?;
    let mut bytes = Vec::new();
    // The archive's own length bounds what a member can honestly hold.
    entry
        .take(file_len)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{p}: cannot read member `{name}` ({e})"))?;
    npy::parse(&bytes, &format!("{p} (member `{name}`)"))
}
