//! MediaConvert's job events (docs/media.md, "Engines"): the EventBridge "MediaConvert Job
//! State Change" event as SQS delivers it to the asset worker, read into a `Completion`,
//! and the renditions of a completed job. Pure serde and the blob port (no SDK), so it is
//! built everywhere; tested with recorded events (tests/api/mediaconvert.rs).

use serde::Deserialize;

use super::engine::Made;
use super::ladder::{Container, Spec};
use crate::blobs::{BlobError, Blobs};
use crate::model::asset::{Asset, Probe, Still};

/// The base name of every output (MediaConvert names a file destination + base + modifier).
pub const BASE: &str = "v";

/// One output file a completed job wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub key: String,
    pub width: u32,
    pub height: u32,
}

/// A job's end, read from its EventBridge event.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub account: String,
    pub asset: String,
    pub job_id: String,
    /// The files written, or the job's error.
    pub result: Result<Vec<Written>, String>,
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "detail-type")]
    detail_type: String,
    source: String,
    detail: Detail,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Detail {
    job_id: String,
    status: String,
    #[serde(default)]
    user_metadata: std::collections::HashMap<String, String>,
    #[serde(default)]
    output_group_details: Vec<GroupDetail>,
    error_message: Option<String>,
    error_code: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GroupDetail {
    #[serde(default)]
    output_details: Vec<OutputDetail>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OutputDetail {
    #[serde(default)]
    output_file_paths: Vec<String>,
    video_details: Option<VideoDetail>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VideoDetail {
    width_in_px: u32,
    height_in_px: u32,
}

/// Reads an assets-queue message as a MediaConvert job state change: `None` when it is not
/// one (an `AssetJob`); `Some(Err)` when it is one this service cannot use (no asset in its
/// metadata, a state other than COMPLETE or ERROR, a file outside the bucket).
pub fn parse_event(body: &str, bucket: &str) -> Option<Result<Completion, String>> {
    let e: Event = serde_json::from_str(body).ok()?;
    if e.source != "aws.mediaconvert" || e.detail_type != "MediaConvert Job State Change" {
        return None;
    }
    let d = e.detail;
    let meta = |k: &str| d.user_metadata.get(k).cloned().ok_or_else(|| format!("job {} has no {k} in its user metadata", d.job_id));
    Some((|| {
        let (account, asset) = (meta("account")?, meta("asset")?);
        let result = match d.status.as_str() {
            "COMPLETE" => {
                let prefix = format!("s3://{bucket}/{}", Asset::renditions_prefix(&account, &asset));
                let mut files = Vec::new();
                for o in d.output_group_details.iter().flat_map(|g| &g.output_details) {
                    let (Some(path), Some(v)) = (o.output_file_paths.first(), &o.video_details) else { continue };
                    if !path.starts_with(&prefix) {
                        return Err(format!("job {} wrote {path}, outside the asset's prefix", d.job_id));
                    }
                    let key = path.trim_start_matches(&format!("s3://{bucket}/")).to_string();
                    files.push(Written { key, width: v.width_in_px, height: v.height_in_px });
                }
                Ok(files)
            }
            "ERROR" => {
                // The service's message may name bucket paths: it goes to the log, and the
                // asset gets the documented reason with the error code.
                let code = d.error_code.unwrap_or(0);
                tracing::warn!(job = %d.job_id, code, message = d.error_message.as_deref().unwrap_or(""), "MediaConvert job failed");
                Err(format!("the transcoding service could not make the renditions (MediaConvert error {code})"))
            }
            other => return Err(format!("job {} is {other}: not an end state", d.job_id)),
        };
        Ok(Completion { account, asset, job_id: d.job_id.clone(), result })
    })())
}

/// The renditions and the still of a completed job's files (sizes from the bucket,
/// bitrates measured from them), best first.
pub async fn made(files: &[Written], probe: &Probe, blobs: &dyn Blobs) -> Result<Made, BlobError> {
    let mut renditions = Vec::new();
    let mut still = None;
    for f in files {
        let container = match f.key.rsplit_once('.').map(|(_, e)| e) {
            Some("mp4") => Container::Mp4,
            Some("webm") => Container::WebM,
            Some("jpg") => {
                still = Some(Still { key: f.key.clone(), width: f.width, height: f.height });
                continue;
            }
            _ => continue,
        };
        let size = blobs.size(&f.key).await?.ok_or_else(|| BlobError::msg(format!("the rendition {} is not in the bucket", f.key)))?;
        let spec = Spec { container, width: f.width, height: f.height, video_kbps: 0 };
        renditions.push(super::local::rendition(&spec, f.key.clone(), size, probe.duration_ms));
    }
    renditions.sort_by_key(|r| (r.mime != "video/mp4", std::cmp::Reverse(r.height)));
    Ok(Made { renditions, still })
}
