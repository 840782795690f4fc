//! Object storage port: S3 on AWS (and moto/LocalStack through `AWS_ENDPOINT_URL`), a
//! local directory for the local server, memory for unit tests.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;

#[cfg(feature = "aws")]
pub mod s3;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("blob store: {context}")]
pub struct BlobError {
    pub context: String,
    #[source]
    pub source: Option<crate::cause::Cause>,
    /// The bucket's service failed or did not answer (not this code's wiring): the client
    /// may retry (503).
    pub transient: bool,
}

impl BlobError {
    pub fn msg(context: impl Into<String>) -> BlobError {
        BlobError { context: context.into(), source: None, transient: false }
    }

    pub fn new(context: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> BlobError {
        BlobError { context: context.into(), source: Some(crate::cause::Cause::new(source)), transient: false }
    }

    /// A failure of the bucket's service (S3 errors, timeouts).
    pub fn unavailable(context: impl Into<String>, source: Option<crate::cause::Cause>) -> BlobError {
        BlobError { context: context.into(), source, transient: true }
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
    /// The object from byte `start` to its end, streamed (`None` when it does not exist).
    async fn open_from(&self, key: &str, start: u64) -> Result<Option<BlobReader>, BlobError>;
    /// Removes the object (nothing when it is not there). Ports that may not delete refuse.
    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        Err(BlobError::msg(format!("this blob port does not delete ({key})")))
    }
    /// Marks an asset object as one the CDN may serve (S3: the object tag
    /// [`SERVABLE_TAG`]`=true`, which the bucket policy requires of CloudFront's reads). Where
    /// this service's own media route serves (the local stores), it checks the asset record
    /// instead, and marking is nothing (docs/media.md, "Delivery").
    async fn mark_servable(&self, _key: &str) -> Result<(), BlobError> {
        Ok(())
    }
    fn kind(&self) -> &'static str;
}

/// The S3 object tag of asset objects the CDN may serve (`servable=true`).
pub const SERVABLE_TAG: &str = "servable";

/// The blob port of a function that has no bucket (its group never stores objects): every
/// call is an error, so a wiring mistake shows as a 500 naming it, not as lost data.
pub struct NoBlobs;

#[async_trait]
impl Blobs for NoBlobs {
    async fn put_file(&self, key: &str, _: &Path, _: &str) -> Result<u64, BlobError> {
        Err(BlobError::msg(format!("this function has no bucket (storing {key})")))
    }
    async fn put_bytes(&self, key: &str, _: Vec<u8>, _: &str) -> Result<(), BlobError> {
        Err(BlobError::msg(format!("this function has no bucket (storing {key})")))
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        Err(BlobError::msg(format!("this function has no bucket (reading {key})")))
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        Err(BlobError::msg(format!("this function has no bucket (reading {key})")))
    }
    async fn open_from(&self, key: &str, _: u64) -> Result<Option<BlobReader>, BlobError> {
        Err(BlobError::msg(format!("this function has no bucket (reading {key})")))
    }
    fn kind(&self) -> &'static str {
        "none"
    }
}

/// The blob port of an HTTP function that only stores uploads (the assets and audience
/// APIs, the console's ad form): stores go to the inner store (bytes, or a file streamed
/// from disk), reads refuse, so the function does not link the store's read operations.
pub struct UploadsOnly<B>(pub B);

#[async_trait]
impl<B: Blobs> Blobs for UploadsOnly<B> {
    async fn put_file(&self, key: &str, path: &Path, content_type: &str) -> Result<u64, BlobError> {
        self.0.put_file(key, path, content_type).await
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), BlobError> {
        self.0.put_bytes(key, bytes, content_type).await
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        Err(BlobError::msg(format!("this function stores uploads only (reading {key})")))
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        Err(BlobError::msg(format!("this function stores uploads only (reading {key})")))
    }
    async fn open_from(&self, key: &str, _: u64) -> Result<Option<BlobReader>, BlobError> {
        Err(BlobError::msg(format!("this function stores uploads only (reading {key})")))
    }
    fn kind(&self) -> &'static str {
        self.0.kind()
    }
}

/// The console's blob port: the ad form's uploads (as `UploadsOnly`), and reads of the
/// compiled snapshots (the home page's list of what needs attention); any other read refuses.
pub struct UploadsAndSnapshots<B>(pub UploadsOnly<B>);

#[async_trait]
impl<B: Blobs> Blobs for UploadsAndSnapshots<B> {
    async fn put_file(&self, key: &str, path: &Path, content_type: &str) -> Result<u64, BlobError> {
        self.0.put_file(key, path, content_type).await
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), BlobError> {
        self.0.put_bytes(key, bytes, content_type).await
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        match key.starts_with(crate::keys::COMPILED_PREFIX) {
            true => self.0 .0.get(key).await,
            false => self.0.get(key).await,
        }
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        self.0.size(key).await
    }
    async fn open_from(&self, key: &str, at: u64) -> Result<Option<BlobReader>, BlobError> {
        self.0.open_from(key, at).await
    }
    fn kind(&self) -> &'static str {
        self.0.kind()
    }
}

/// The blob port of a function that only deletes objects (the asset janitor): deletes go
/// to the inner store, everything else refuses, so the function links no other operation.
pub struct DeletesOnly<B>(pub B);

#[async_trait]
impl<B: Blobs> Blobs for DeletesOnly<B> {
    async fn put_file(&self, key: &str, _: &Path, _: &str) -> Result<u64, BlobError> {
        Err(BlobError::msg(format!("this function only deletes objects (storing {key})")))
    }
    async fn put_bytes(&self, key: &str, _: Vec<u8>, _: &str) -> Result<(), BlobError> {
        Err(BlobError::msg(format!("this function only deletes objects (storing {key})")))
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        Err(BlobError::msg(format!("this function only deletes objects (reading {key})")))
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        Err(BlobError::msg(format!("this function only deletes objects (reading {key})")))
    }
    async fn open_from(&self, key: &str, _: u64) -> Result<Option<BlobReader>, BlobError> {
        Err(BlobError::msg(format!("this function only deletes objects (reading {key})")))
    }
    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        self.0.delete(key).await
    }
    fn kind(&self) -> &'static str {
        self.0.kind()
    }
}

/// The blob port of a function that only reads whole objects (serving: the compiled
/// snapshots): gets go to the inner store, everything else refuses.
pub struct GetsOnly<B>(pub B);

#[async_trait]
impl<B: Blobs> Blobs for GetsOnly<B> {
    async fn put_file(&self, key: &str, _: &Path, _: &str) -> Result<u64, BlobError> {
        Err(BlobError::msg(format!("this function only reads objects (storing {key})")))
    }
    async fn put_bytes(&self, key: &str, _: Vec<u8>, _: &str) -> Result<(), BlobError> {
        Err(BlobError::msg(format!("this function only reads objects (storing {key})")))
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        self.0.get(key).await
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        Err(BlobError::msg(format!("this function only reads whole objects ({key})")))
    }
    async fn open_from(&self, key: &str, _: u64) -> Result<Option<BlobReader>, BlobError> {
        Err(BlobError::msg(format!("this function only reads whole objects ({key})")))
    }
    fn kind(&self) -> &'static str {
        self.0.kind()
    }
}

/// A streamed object body.
pub type BlobReader = Box<dyn tokio::io::AsyncRead + Send + Unpin>;

/// The S3 event of an object created under `key` (the `s3:ObjectCreated:Put` record shape
/// S3 sends to SQS), for the in-process blob stores that stand in for the bucket
/// notification.
pub fn object_created_event(bucket: &str, key: &str, size: u64) -> String {
    let encoded: String = percent_encoding::utf8_percent_encode(key, percent_encoding::NON_ALPHANUMERIC)
        .to_string()
        .replace("%2F", "/")
        .replace("%2D", "-")
        .replace("%2E", ".")
        .replace("%5F", "_");
    serde_json::json!({"Records": [{
        "eventSource": "aws:s3", "eventName": "ObjectCreated:Put",
        "s3": {"bucket": {"name": bucket}, "object": {"key": encoded, "size": size}},
    }]})
    .to_string()
}

/// Wraps an in-process blob store so that objects created under `prefix` send the S3 event
/// to a queue, as the bucket notification does on AWS (and on the emulator).
pub struct Notifying {
    pub inner: std::sync::Arc<dyn Blobs>,
    pub queue: std::sync::Arc<dyn crate::queue::Queue>,
    pub target: crate::queue::QueueName,
    pub prefix: &'static str,
    /// The bucket name its events carry (the worker accepts only its own bucket's).
    pub bucket: String,
}

impl Notifying {
    async fn notify(&self, key: &str, size: u64) -> Result<(), BlobError> {
        if key.starts_with(self.prefix) {
            self.queue
                .send(self.target, object_created_event(&self.bucket, key, size))
                .await
                .map_err(|e| BlobError::new("sending the object-created event", e))?;
        }
        Ok(())
    }
}

#[async_trait]
impl Blobs for Notifying {
    async fn put_file(&self, key: &str, path: &Path, content_type: &str) -> Result<u64, BlobError> {
        let n = self.inner.put_file(key, path, content_type).await?;
        self.notify(key, n).await?;
        Ok(n)
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), BlobError> {
        let n = bytes.len() as u64;
        self.inner.put_bytes(key, bytes, content_type).await?;
        self.notify(key, n).await
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        self.inner.get(key).await
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        self.inner.size(key).await
    }
    async fn open_from(&self, key: &str, start: u64) -> Result<Option<BlobReader>, BlobError> {
        self.inner.open_from(key, start).await
    }
    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        self.inner.delete(key).await
    }
    async fn mark_servable(&self, key: &str) -> Result<(), BlobError> {
        self.inner.mark_servable(key).await
    }
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
}

/// Keys are `/`-separated relative paths; nothing may climb out of the root.
pub fn check_key(key: &str) -> Result<(), BlobError> {
    let bad = key.is_empty()
        || key.starts_with('/')
        || key.split('/').any(|p| p.is_empty() || p == "." || p == "..")
        || key.contains('\\')
        || key.chars().any(char::is_control);
    if bad {
        Err(BlobError::msg(format!("invalid object key {key:?}")))
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
    BlobError::new("local blob directory", e)
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

    async fn open_from(&self, key: &str, start: u64) -> Result<Option<BlobReader>, BlobError> {
        use tokio::io::AsyncSeekExt;
        match tokio::fs::File::open(self.path_of(key)?).await {
            Ok(mut f) => {
                f.seek(std::io::SeekFrom::Start(start)).await.map_err(io)?;
                Ok(Some(Box::new(f)))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(e)),
        }
    }

    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        match tokio::fs::remove_file(self.path_of(key)?).await {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(e)),
            _ => Ok(()),
        }
    }

    fn kind(&self) -> &'static str {
        "local"
    }
}

/// Watches `<root>/<prefix>` for files placed there by hand (the local server's stand-in
/// for dropping an object into the bucket): a file whose size and modification time were
/// the same on two scans gets its S3 event sent, once per version of the file.
pub fn watch_dir(
    root: PathBuf,
    prefix: &'static str,
    bucket: String,
    queue: std::sync::Arc<dyn crate::queue::Queue>,
    target: crate::queue::QueueName,
) {
    tokio::spawn(async move {
        let mut seen: HashMap<String, (u64, u128, bool)> = HashMap::new();
        loop {
            let base = root.join(prefix.trim_end_matches('/'));
            let root2 = root.clone();
            let files = tokio::task::spawn_blocking(move || {
                let mut out = Vec::new();
                walk(&root2, &base, &mut out);
                out
            })
            .await
            .unwrap_or_default();
            for (key, size, mtime) in files {
                let e = seen.entry(key.clone()).or_insert((size, mtime, false));
                if (e.0, e.1) != (size, mtime) {
                    *e = (size, mtime, false);
                } else if !e.2 {
                    e.2 = true;
                    let mut ev: serde_json::Value = serde_json::from_str(&object_created_event(&bucket, &key, size)).unwrap_or_default();
                    ev["Records"][0]["s3"]["object"]["eTag"] = serde_json::json!(mtime.to_string());
                    if let Err(err) = queue.send(target, ev.to_string()).await {
                        tracing::warn!(key, error = %err, "could not queue a dropped file");
                    } else {
                        tracing::info!(key, size, "dropped file picked up");
                    }
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        }
    });
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, u64, u128)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_dir() {
            walk(root, &path, out);
        } else if meta.is_file() && path.extension().is_none_or(|x| x != "partial") {
            let Ok(rel) = path.strip_prefix(root) else { continue };
            let key = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/");
            let mtime = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
            if check_key(&key).is_ok() {
                out.push((key, meta.len(), mtime));
            }
        }
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
        self.0.lock().map_err(|_| BlobError::msg("poisoned"))?.insert(key.into(), b);
        Ok(n)
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, _ct: &str) -> Result<(), BlobError> {
        check_key(key)?;
        self.0.lock().map_err(|_| BlobError::msg("poisoned"))?.insert(key.into(), bytes);
        Ok(())
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        Ok(self.0.lock().map_err(|_| BlobError::msg("poisoned"))?.get(key).cloned())
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        Ok(self.0.lock().map_err(|_| BlobError::msg("poisoned"))?.get(key).map(|b| b.len() as u64))
    }
    async fn open_from(&self, key: &str, start: u64) -> Result<Option<BlobReader>, BlobError> {
        let map = self.0.lock().map_err(|_| BlobError::msg("poisoned"))?;
        Ok(map.get(key).map(|b| {
            let tail = b.get(start as usize..).unwrap_or_default().to_vec();
            Box::new(std::io::Cursor::new(tail)) as BlobReader
        }))
    }
    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        self.0.lock().map_err(|_| BlobError::msg("poisoned"))?.remove(key);
        Ok(())
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
        // An asset's object name, whatever its file name, is a safe key.
        let name = crate::model::asset::Asset::object_key("a", "i", "../../x.mp4");
        assert!(check_key(&name).is_ok(), "{name}");
    }

    #[tokio::test]
    async fn an_uploads_only_port_stores_a_file_and_reads_nothing() {
        // The console's ad form streams its video to a file, then to the bucket: its
        // function's port (`UploadsAndSnapshots(UploadsOnly(..))` on AWS) must store it.
        let dir = std::env::temp_dir().join(format!("uploads-only-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("clip.mp4");
        std::fs::write(&path, b"0123456789").unwrap();
        let port = UploadsAndSnapshots(UploadsOnly(MemoryBlobs::default()));
        assert_eq!(port.put_file("acct/assets/id/clip.mp4", &path, "video/mp4").await.unwrap(), 10);
        assert_eq!(port.0 .0.get("acct/assets/id/clip.mp4").await.unwrap(), Some(b"0123456789".to_vec()));
        assert!(port.get("acct/assets/id/clip.mp4").await.is_err(), "reads refuse");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
