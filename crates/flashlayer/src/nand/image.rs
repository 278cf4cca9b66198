//! A chip's bytes: in memory, or a file mapped into memory and laid out
//! exactly as the chip.

use crate::error::{Error, Result};
use memmap2::MmapMut;
use std::path::{Path, PathBuf};

pub(super) enum Image {
    Mem(Vec<u8>),
    File { map: MmapMut, path: PathBuf },
}

impl std::fmt::Debug for Image {
    // The bytes are the chip's contents, megabytes of them: name the image.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Image::Mem(v) => write!(f, "Mem({} bytes)", v.len()),
            Image::File { map, path } => write!(f, "File({}, {} bytes)", path.display(), map.len()),
        }
    }
}

impl Image {
    pub(super) fn open(path: &Path, bytes: usize) -> Result<Image> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let fresh = len == 0;
        if fresh {
            file.set_len(bytes as u64).map_err(|e| Error::io(path, e))?;
        } else if len != bytes as u64 {
            return Err(Error::Corrupt {
                path: path.to_path_buf(),
                msg: format!(
                    "chip image of {len} bytes, but the geometry needs {bytes}; \
                     give the geometry it was made with"
                ),
            });
        }
        // SAFETY: the mapping is private to this chip for its lifetime; the
        // file is not resized while mapped, and nothing else in this process
        // maps it (a second chip on the same file is the caller's error, and
        // at worst reads torn bytes, which the flash stores detect).
        let mut map = unsafe { MmapMut::map_mut(&file) }.map_err(|e| Error::io(path, e))?;
        if fresh {
            map.fill(0xFF);
        }
        Ok(Image::File {
            map,
            path: path.to_path_buf(),
        })
    }

    pub(super) fn bytes(&mut self) -> &mut [u8] {
        match self {
            Image::Mem(v) => v,
            Image::File { map, .. } => map,
        }
    }
}
