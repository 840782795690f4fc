//! S3 adapter (aws-sdk-s3). Path-style addressing when an endpoint override is set (moto,
//! LocalStack), since virtual-host names do not resolve there.

use std::path::Path;

use async_trait::async_trait;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;

use super::{check_key, BlobError, Blobs};

pub struct S3Blobs {
    client: Client,
    bucket: String,
}

fn err<E: std::error::Error + Send + Sync + 'static>(e: E) -> BlobError {
    BlobError::unavailable("s3", Some(crate::cause::Cause::new(e)))
}

impl S3Blobs {
    /// Client from the environment (`AWS_ENDPOINT_URL`, `AWS_REGION`, credentials chain).
    pub async fn from_env(bucket: impl Into<String>) -> Self {
        Self::new(&aws_config::load_from_env().await, bucket)
    }

    /// Path-style addressing when an endpoint is overridden (emulators: no DNS per bucket).
    pub fn new(conf: &aws_config::SdkConfig, bucket: impl Into<String>) -> Self {
        let mut b = aws_sdk_s3::config::Builder::from(conf);
        if std::env::var("AWS_ENDPOINT_URL").is_ok() || std::env::var("AWS_ENDPOINT_URL_S3").is_ok() {
            b = b.force_path_style(true);
        }
        S3Blobs { client: Client::from_conf(b.build()), bucket: bucket.into() }
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// Creates the bucket when missing (emulators, tests; on AWS the template owns it).
    pub async fn create_bucket_if_missing(&self) -> Result<(), BlobError> {
        if self.client.head_bucket().bucket(&self.bucket).send().await.is_ok() {
            return Ok(());
        }
        let mut create = self.client.create_bucket().bucket(&self.bucket);
        // Outside us-east-1 S3 wants the bucket's region named (moto and LocalStack too).
        let region = self.client.config().region().map(|r| r.as_ref().to_string()).unwrap_or_default();
        if !region.is_empty() && region != "us-east-1" {
            let conf = aws_sdk_s3::types::CreateBucketConfiguration::builder()
                .location_constraint(aws_sdk_s3::types::BucketLocationConstraint::from(region.as_str()))
                .build();
            create = create.create_bucket_configuration(conf);
        }
        match create.send().await {
            Ok(_) => Ok(()),
            Err(e) => {
                let code = e.as_service_error().map(|s| s.meta().code().unwrap_or("").to_string()).unwrap_or_default();
                if code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
                    Ok(())
                } else {
                    let why = aws_sdk_s3::error::DisplayErrorContext(&e).to_string();
                    Err(BlobError::unavailable(format!("s3: creating bucket {} in {region}: {why}", self.bucket), None))
                }
            }
        }
    }
}

impl S3Blobs {
    /// Sends `s3:ObjectCreated:*` events of keys under `prefix` to the queue (emulators,
    /// tests and the local server over AWS services; on AWS the template declares it).
    pub async fn notify_queue(&self, queue_arn: &str, prefix: &str) -> Result<(), BlobError> {
        use aws_sdk_s3::types::{
            Event, FilterRule, FilterRuleName, NotificationConfiguration, NotificationConfigurationFilter, QueueConfiguration, S3KeyFilter,
        };
        let filter = NotificationConfigurationFilter::builder()
            .key(S3KeyFilter::builder().filter_rules(FilterRule::builder().name(FilterRuleName::Prefix).value(prefix).build()).build())
            .build();
        let qc = QueueConfiguration::builder().queue_arn(queue_arn).events(Event::S3ObjectCreated).filter(filter).build().map_err(err)?;
        self.client
            .put_bucket_notification_configuration()
            .bucket(&self.bucket)
            .notification_configuration(NotificationConfiguration::builder().queue_configurations(qc).build())
            .send()
            .await
            .map_err(err)?;
        Ok(())
    }
}

#[async_trait]
impl Blobs for S3Blobs {
    async fn mark_servable(&self, key: &str) -> Result<(), BlobError> {
        check_key(key)?;
        let tag = aws_sdk_s3::types::Tag::builder().key(super::SERVABLE_TAG).value("true").build().map_err(err)?;
        let tagging = aws_sdk_s3::types::Tagging::builder().tag_set(tag).build().map_err(err)?;
        self.client.put_object_tagging().bucket(&self.bucket).key(key).tagging(tagging).send().await.map_err(err)?;
        Ok(())
    }

    async fn put_file(&self, key: &str, path: &Path, content_type: &str) -> Result<u64, BlobError> {
        check_key(key)?;
        let size = tokio::fs::metadata(path).await.map_err(err)?.len();
        let body = ByteStream::from_path(path).await.map_err(err)?;
        self.client.put_object().bucket(&self.bucket).key(key).content_type(content_type).body(body).send().await.map_err(err)?;
        Ok(size)
    }

    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), BlobError> {
        check_key(key)?;
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type(content_type)
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map_err(err)?;
        Ok(())
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        match self.client.get_object().bucket(&self.bucket).key(key).send().await {
            Ok(out) => Ok(Some(out.body.collect().await.map_err(err)?.into_bytes().to_vec())),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
            Err(e) => Err(err(e)),
        }
    }

    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        match self.client.head_object().bucket(&self.bucket).key(key).send().await {
            Ok(out) => Ok(Some(out.content_length().unwrap_or(0).max(0) as u64)),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found()) => Ok(None),
            Err(e) => Err(err(e)),
        }
    }

    async fn open_from(&self, key: &str, start: u64) -> Result<Option<super::BlobReader>, BlobError> {
        let mut req = self.client.get_object().bucket(&self.bucket).key(key);
        if start > 0 {
            req = req.range(format!("bytes={start}-"));
        }
        match req.send().await {
            Ok(out) => Ok(Some(Box::new(out.body.into_async_read()))),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
            // A range starting at the end of the object.
            Err(e) if e.raw_response().is_some_and(|r| r.status().as_u16() == 416) => Ok(Some(Box::new(std::io::Cursor::new(Vec::new())))),
            Err(e) => Err(err(e)),
        }
    }

    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        check_key(key)?;
        // S3 answers 204 whether or not the object existed (a delete marker when versioned).
        self.client.delete_object().bucket(&self.bucket).key(key).send().await.map_err(err)?;
        Ok(())
    }

    fn kind(&self) -> &'static str {
        "s3"
    }
}
