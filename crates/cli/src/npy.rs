//! Reading arguments from and writing results to NumPy `.npy` files.

use std::path::Path;

use ndarray::ArrayD;
use ndarray_npy::npy::header::Header;
use ndarray_npy::{ReadNpyError, ReadNpyExt, ReadableElement, WritableElement, WriteNpyExt};
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

/// Reads a `.npy` file of float64, float32, int64, int32 or bool.
pub fn read(path: &Path) -> Result<Value, String> {
    let p = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {p}: {e}"))?;
    let header = Header::from_reader(&mut &bytes[..])
        .map_err(|e| format!("{p} is not a valid .npy file ({e})"))?;
    let descr = descriptor(&header);
    let Some(dtype) = dtype_of(&descr) else {
        return Err(format!(
            "{p} holds dtype `{descr}`, which ptl cannot read (supported: float64, float32, int64, int32, bool)"
        ));
    };
    fn load<T: ReadableElement>(bytes: &[u8]) -> Result<ArrayD<T>, ReadNpyError> {
        ArrayD::<T>::read_npy(bytes)
    }
    let result = match dtype {
        DType::F64 => load::<f64>(&bytes).map(Value::F64),
        DType::F32 => load::<f32>(&bytes).map(Value::F32),
        DType::I64 => load::<i64>(&bytes).map(Value::I64),
        DType::I32 => load::<i32>(&bytes).map(Value::I32),
        DType::Bool => load::<bool>(&bytes).map(Value::Bool),
    };
    result.map_err(|e| match e {
        ReadNpyError::MissingData => format!(
            "{p} is truncated: its header promises a {descr} array of shape {} but the data ends early",
            shape_str(&header.shape)
        ),
        ReadNpyError::ExtraBytes(n) => format!("{p} has {n} unexpected bytes after the array data"),
        ReadNpyError::LengthOverflow => format!("{p} declares a shape too large to read"),
        ReadNpyError::WrongDescriptor(_) => {
            format!("{p} holds dtype `{descr}` in a byte order or layout ptl cannot read")
        }
        other => format!("{p} is not a valid .npy file ({other})"),
    })
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
