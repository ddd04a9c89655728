//! Reading arguments from and writing results to NumPy `.npy` files.

use std::path::Path;

use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use ndarray_npy::npy::header::{Header, Layout};
use ndarray_npy::{WritableElement, WriteNpyExt};
use ptl_lang::{DType, Value};

/// The dtypes ptl reads, by NumPy type code without the byte-order mark.
fn dtype_of(descr: &str) -> Option<DType> {
    let code = descr.strip_prefix(['<', '>', '|', '=']).unwrap_or(descr);
    Some(match code {
        "f8" => DType::F64,
        "f4" => DType::F32,
        "i8" => DType::I64,
        "i4" => DType::I32,
        "b1" | "?" => DType::Bool,
        _ => return None,
    })
}

/// The descriptor as NumPy writes it, e.g. `<f8`, or the raw header value when it is not a
/// plain string (a structured dtype).
fn descriptor(h: &Header) -> String {
    let text = h.type_descriptor.to_string();
    text.strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .map(str::to_string)
        .unwrap_or(text)
}

fn shape_str(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// Whether a descriptor's data is big-endian (`>`); `<`, `|` (no order) and `=` (native, which
/// NumPy never writes to a file) are read as little-endian.
fn big_endian(descr: &str) -> bool {
    descr.starts_with('>')
}

fn item_size(dtype: DType) -> usize {
    match dtype {
        DType::F64 | DType::I64 => 8,
        DType::F32 | DType::I32 => 4,
        DType::Bool => 1,
    }
}

/// Reads a `.npy` file of float64, float32, int64, int32 or bool, in either byte order and
/// either memory order.
pub fn read(path: &Path) -> Result<Value, String> {
    let p = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {p}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{p} is not a regular file"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {p}: {e}"))?;
    parse(&bytes, &p.to_string())
}

const MAGIC: &[u8] = b"\x93NUMPY";

/// The array in `bytes`, the contents of a `.npy` file called `what` in messages. Sizes are
/// checked against the bytes present before anything is allocated for the data, so a header
/// that lies about its shape is an error, not an allocation failure.
pub fn parse(bytes: &[u8], what: &str) -> Result<Value, String> {
    let invalid = |why: &str| format!("{what} is not a valid .npy file ({why})");
    if bytes.len() < MAGIC.len() + 2 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(invalid("it does not start with the .npy magic string"));
    }
    let len_bytes = match bytes[MAGIC.len()] {
        1 => 2,
        2 | 3 => 4,
        v => return Err(invalid(&format!("format version {v} is not one ptl knows"))),
    };
    let prefix = MAGIC.len() + 2 + len_bytes;
    let Some(len_field) = bytes.get(MAGIC.len() + 2..prefix) else {
        return Err(format!("{what} is truncated inside its header"));
    };
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let data_start = prefix + header_len;
    if data_start > bytes.len() {
        return Err(format!(
            "{what} is truncated: its header claims {header_len} bytes but the file holds {}",
            bytes.len() - prefix
        ));
    }
    let header =
        Header::from_reader(&mut &bytes[..data_start]).map_err(|e| invalid(&e.to_string()))?;
    let descr = descriptor(&header);
    let Some(dtype) = dtype_of(&descr) else {
        return Err(format!(
            "{what} holds dtype `{descr}`, which ptl cannot read (supported: float64, float32, int64, int32, bool)"
        ));
    };
    let shape = shape_str(&header.shape);
    let data = &bytes[data_start..];
    let needed = header
        .shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|n| n.checked_mul(item_size(dtype)));
    let Some(needed) = needed else {
        return Err(format!(
            "{what} declares shape {shape}, whose size overflows"
        ));
    };
    if data.len() < needed {
        return Err(format!(
            "{what} is truncated: its header promises a {descr} array of shape {shape} ({needed} bytes) but the file holds {} bytes of data",
            data.len()
        ));
    }
    if data.len() > needed {
        return Err(format!(
            "{what} has {} unexpected bytes after the data of its {descr} array of shape {shape}",
            data.len() - needed
        ));
    }
    let big = big_endian(&descr);
    let (dims, fortran) = (
        header.shape.as_slice(),
        matches!(header.layout, Layout::Fortran),
    );
    let shaped = |e: ndarray::ShapeError| {
        format!("{what} declares shape {shape}, which ptl cannot hold ({e})")
    };
    Ok(match dtype {
        DType::F64 => Value::F64(
            array(
                dims,
                fortran,
                numbers(data, big, f64::from_le_bytes, f64::from_be_bytes),
            )
            .map_err(shaped)?,
        ),
        DType::F32 => Value::F32(
            array(
                dims,
                fortran,
                numbers(data, big, f32::from_le_bytes, f32::from_be_bytes),
            )
            .map_err(shaped)?,
        ),
        DType::I64 => Value::I64(
            array(
                dims,
                fortran,
                numbers(data, big, i64::from_le_bytes, i64::from_be_bytes),
            )
            .map_err(shaped)?,
        ),
        DType::I32 => Value::I32(
            array(
                dims,
                fortran,
                numbers(data, big, i32::from_le_bytes, i32::from_be_bytes),
            )
            .map_err(shaped)?,
        ),
        DType::Bool => {
            let bools = data
                .iter()
                .enumerate()
                .map(|(i, &b)| match b {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(format!(
                        "{what} holds the byte {b} at bool element {i}; a bool must be 0 or 1"
                    )),
                })
                .collect::<Result<Vec<bool>, String>>()?;
            Value::Bool(array(dims, fortran, bools).map_err(shaped)?)
        }
    })
}

/// The elements of `data`, `N` bytes each, in the file's byte order.
fn numbers<T, const N: usize>(
    data: &[u8],
    big: bool,
    from_le: fn([u8; N]) -> T,
    from_be: fn([u8; N]) -> T,
) -> Vec<T> {
    data.chunks_exact(N)
        .map(|c| {
            let mut word = [0u8; N];
            word.copy_from_slice(c);
            if big { from_be(word) } else { from_le(word) }
        })
        .collect()
}

/// An array in C order, whatever the order the file stored it in.
fn array<T: Clone>(
    shape: &[usize],
    fortran: bool,
    data: Vec<T>,
) -> Result<ArrayD<T>, ndarray::ShapeError> {
    if fortran {
        Ok(ArrayD::from_shape_vec(IxDyn(shape).f(), data)?
            .as_standard_layout()
            .into_owned())
    } else {
        ArrayD::from_shape_vec(IxDyn(shape), data)
    }
}

/// Writes a value as a `.npy` file (C order, little-endian).
pub fn write(path: &Path, v: &Value) -> Result<(), String> {
    fn save<T: WritableElement>(path: &Path, a: &ArrayD<T>) -> Result<(), String> {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        a.write_npy(std::io::BufWriter::new(file))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
    match v {
        Value::Bool(a) => save(path, a),
        Value::I32(a) => save(path, a),
        Value::I64(a) => save(path, a),
        Value::F32(a) => save(path, a),
        Value::F64(a) => save(path, a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors() {
        assert_eq!(dtype_of("<f8"), Some(DType::F64));
        assert_eq!(dtype_of(">f4"), Some(DType::F32));
        assert_eq!(dtype_of("<i8"), Some(DType::I64));
        assert_eq!(dtype_of("<i4"), Some(DType::I32));
        assert_eq!(dtype_of("|b1"), Some(DType::Bool));
        assert_eq!(dtype_of("|u1"), None);
        assert_eq!(dtype_of("<c16"), None);
    }

    #[test]
    fn round_trip_every_dtype() {
        let dir = std::env::temp_dir().join(format!("ptl-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let values = [
            Value::F64(ndarray::arr2(&[[1.5, -2.0], [0.0, 1e-310]]).into_dyn()),
            Value::F32(ndarray::arr1(&[0.5f32, 3.0]).into_dyn()),
            Value::I64(ndarray::arr0(-7i64).into_dyn()),
            Value::I32(ndarray::arr1(&[1i32, 2, 3]).into_dyn()),
            Value::Bool(ndarray::arr1(&[true, false]).into_dyn()),
        ];
        for (i, v) in values.iter().enumerate() {
            let path = dir.join(format!("{i}.npy"));
            write(&path, v).expect("write");
            assert_eq!(&read(&path).expect("read"), v);
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
