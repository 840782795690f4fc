//! Object storage port: S3 on AWS (and moto/LocalStack through `AWS_ENDPOINT_URL`), a
//! local directory for the local server, memory for unit tests.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;

pub mod s3;

#[derive(Debug, Clone, PartialEq)]
pub struct BlobError(pub String);

impl std::fmt::Display for BlobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "blob store: {}", self.0)
    }
}

impl std::error::Error for BlobError {}

impl From<BlobError> for crate::error::AppError {
    fn from(e: BlobError) -> Self {
        crate::error::AppError::Internal(e.to_string())
    }
}

#[async_trait]
pub trait Blobs: Send + Sync {
    /// Stores a file's content under `key` (streamed, never read whole into memory).
    async fn put_file(&self, key: &str, path: &Path, content_type: &str) -> Result<u64, BlobError>;
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), BlobError>;
    /// The whole object (small objects and tests).
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError>;
    /// The object's size, when it exists.
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError>;
    fn kind(&self) -> &'static str;
}

/// Keys are `/`-separated relative paths; nothing may climb out of the root.
pub fn check_key(key: &str) -> Result<(), BlobError> {
    let bad = key.is_empty()
        || key.starts_with('/')
        || key.split('/').any(|p| p.is_empty() || p == "." || p == "..")
        || key.contains('\\')
        || key.chars().any(char::is_control);
    if bad {
        Err(BlobError(format!("invalid object key {key:?}")))
    } else {
        Ok(())
    }
}

/// A directory on disk (the local server).
pub struct LocalBlobs {
    root: PathBuf,
}

impl LocalBlobs {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        LocalBlobs { root: root.into() }
    }

    pub fn path_of(&self, key: &str) -> Result<PathBuf, BlobError> {
        check_key(key)?;
        Ok(self.root.join(key))
    }
}

fn io(e: std::io::Error) -> BlobError {
    BlobError(e.to_string())
}

#[async_trait]
impl Blobs for LocalBlobs {
    async fn put_file(&self, key: &str, path: &Path, _ct: &str) -> Result<u64, BlobError> {
        let dest = self.path_of(key)?;
        if let Some(dir) = dest.parent() {
            tokio::fs::create_dir_all(dir).await.map_err(io)?;
        }
        // Write next to the destination, then rename: readers never see half an object.
        let tmp = dest.with_extension("partial");
        let n = tokio::fs::copy(path, &tmp).await.map_err(io)?;
        tokio::fs::rename(&tmp, &dest).await.map_err(io)?;
        Ok(n)
    }

    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, _ct: &str) -> Result<(), BlobError> {
        let dest = self.path_of(key)?;
        if let Some(dir) = dest.parent() {
            tokio::fs::create_dir_all(dir).await.map_err(io)?;
        }
        let tmp = dest.with_extension("partial");
        tokio::fs::write(&tmp, bytes).await.map_err(io)?;
        tokio::fs::rename(&tmp, &dest).await.map_err(io)
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        match tokio::fs::read(self.path_of(key)?).await {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(e)),
        }
    }

    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        match tokio::fs::metadata(self.path_of(key)?).await {
            Ok(m) => Ok(Some(m.len())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(e)),
        }
    }

    fn kind(&self) -> &'static str {
        "local"
    }
}

/// In memory (unit tests).
#[derive(Default)]
pub struct MemoryBlobs(Mutex<HashMap<String, Vec<u8>>>);

#[async_trait]
impl Blobs for MemoryBlobs {
    async fn put_file(&self, key: &str, path: &Path, _ct: &str) -> Result<u64, BlobError> {
        check_key(key)?;
        let b = tokio::fs::read(path).await.map_err(io)?;
        let n = b.len() as u64;
        self.0.lock().map_err(|_| BlobError("poisoned".into()))?.insert(key.into(), b);
        Ok(n)
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, _ct: &str) -> Result<(), BlobError> {
        check_key(key)?;
        self.0.lock().map_err(|_| BlobError("poisoned".into()))?.insert(key.into(), bytes);
        Ok(())
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        Ok(self.0.lock().map_err(|_| BlobError("poisoned".into()))?.get(key).cloned())
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        Ok(self.0.lock().map_err(|_| BlobError("poisoned".into()))?.get(key).map(|b| b.len() as u64))
    }
    fn kind(&self) -> &'static str {
        "memory"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_escape() {
        for bad in ["", "/abs", "a/../b", "..", "a//b", "a\\b", "a/./b", "a\nb"] {
            assert!(check_key(bad).is_err(), "{bad:?}");
        }
        assert!(check_key("acct/assets/id/clip.mp4").is_ok());
    }
}
