//! Forecast jobs, their reports and the traffic samples they read (docs/forecasts.md):
//! - `A#<a>#FORECAST / <jobId>`: the job (versioned; TTL 14 days after it ends), in GSI1
//!   `A#<a>#FORECAST_BY_CREATED / <created>#<jobId>` (the newest first: the console's list);
//! - `A#<a>#FORECASTREPORT / <jobId>`: the report, gzip + base64 (TTL 14 days);
//! - `A#<a>#TRAFFIC#<yyyy-mm-dd> / <hh>#<id>`: a sampled ad request (TTL 15 days).

use std::io::{Read, Write};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use super::{RepoError, RepoResult};
use crate::forecast::report_schema::Report;
use crate::forecast::request::{CampaignForecast, InventoryForecast};
use crate::forecast::traffic::{Sample, KEEP_DAYS};
use crate::keys;
use crate::limits::MAX_ID_LEN;
use crate::model::enums::{ForecastKind, ForecastStatus};
use crate::store::{Cond, Item, Key, Query, Store, TxOp};

pub const KEEP_REPORT_DAYS: i64 = 14;

/// A job's validated request: the kind is the variant (stored as the request's fields
/// alone, as before these types: the two kinds' required fields tell them apart).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ForecastRequest {
    Inventory(InventoryForecast),
    Campaign(CampaignForecast),
}

impl ForecastRequest {
    pub fn kind(&self) -> ForecastKind {
        match self {
            ForecastRequest::Inventory(_) => ForecastKind::Inventory,
            ForecastRequest::Campaign(_) => ForecastKind::Campaign,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    pub id: String,
    pub account: String,
    pub kind: ForecastKind,
    pub status: ForecastStatus,
    pub progress: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub request: ForecastRequest,
    pub created: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<DateTime<Utc>>,
}

/// A forecast job's state.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus<'a> {
    pub job_id: &'a str,
    /// campaign or inventory.
    #[serde(rename = "type")]
    pub kind: ForecastKind,
    pub status: ForecastStatus,
    pub progress_percentage: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'a str>,
}

impl Job {
    /// A new job, QUEUED.
    pub fn queued(id: String, account: &str, request: ForecastRequest, now: DateTime<Utc>) -> Job {
        Job {
            id,
            account: account.to_string(),
            kind: request.kind(),
            status: ForecastStatus::Queued,
            progress: 0,
            message: None,
            request,
            created: now,
            finished: None,
        }
    }

    /// The status body (`GET /api/2.0/forecast/job/{id}`).
    pub fn status(&self) -> JobStatus<'_> {
        JobStatus {
            job_id: &self.id,
            kind: self.kind,
            status: self.status,
            progress_percentage: self.progress,
            message: self.message.as_deref(),
        }
    }

    pub fn report_path(&self) -> String {
        format!("/api/2.0/forecast/report/{}/{}", self.kind, self.id)
    }
}

fn job_item(j: &Job, version: u64) -> RepoResult<Item> {
    let mut item = super::item(keys::forecast_job(&j.account, &j.id), j, version)?;
    let created = j.created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    item.gsi1 = Some((keys::forecasts_by_created(&j.account), format!("{created}#{}", j.id)));
    let base = j.finished.unwrap_or(j.created);
    item.expires_at = Some((base + Duration::days(KEEP_REPORT_DAYS)).timestamp());
    Ok(item)
}

pub async fn create(store: &dyn Store, j: &Job) -> RepoResult<()> {
    store.put(job_item(j, 1)?, Cond::NotExists).await?;
    Ok(())
}

/// The job, unless it is unknown, expired at `now` or another account's (all: `None`).
pub async fn get(store: &dyn Store, account: &str, id: &str, now: DateTime<Utc>) -> RepoResult<Option<super::Versioned<Job>>> {
    if id.len() > MAX_ID_LEN {
        return Ok(None);
    }
    let found = super::get::<Job>(store, &keys::forecast_job(account, id)).await?;
    Ok(found.filter(|j| j.item.expires_at.is_none_or(|e| e > now.timestamp())))
}

pub async fn load(store: &dyn Store, account: &str, id: &str, now: DateTime<Utc>) -> RepoResult<super::Versioned<Job>> {
    get(store, account, id, now).await?.ok_or_else(|| RepoError::not_found("forecast job", id))
}

/// Jobs the console lists (the newest; older ones are reached by their id until they expire).
pub const RECENT: usize = 25;

/// The account's newest jobs, newest first (expired ones left out).
pub async fn recent(store: &dyn Store, account: &str, now: DateTime<Utc>) -> RepoResult<Vec<Job>> {
    let page = store.query(Query::gsi1(keys::forecasts_by_created(account)).backward().limit(RECENT)).await?;
    let mut out = Vec::with_capacity(page.items.len());
    for item in page.items {
        if item.expires_at.is_none_or(|e| e > now.timestamp()) {
            out.push(super::decode::<Job>(item)?.value);
        }
    }
    Ok(out)
}

/// What a change of a job found.
#[derive(Debug)]
pub enum Changed {
    /// The change is written; the job as it is now.
    Now(Job),
    /// The job had ended (FINISHED, FAILED, CANCELLED): nothing written; the job as it is.
    Ended(Job),
}

/// Changes a job unless it ended (then nothing is written).
pub async fn update(store: &dyn Store, account: &str, id: &str, now: DateTime<Utc>, change: impl Fn(&mut Job)) -> RepoResult<Changed> {
    let mut tries = super::Attempts::worker("forecast job", id);
    loop {
        let cur = load(store, account, id, now).await?;
        if cur.value.status.is_final() {
            return Ok(Changed::Ended(cur.value));
        }
        tries.check(cur.version())?;
        let mut next = cur.value.clone();
        change(&mut next);
        if tries.commit(store, vec![TxOp::Put(job_item(&next, cur.version() + 1)?, Cond::Version(cur.version()))]).await? {
            return Ok(Changed::Now(next));
        }
    }
}

fn pack(report: &Report) -> RepoResult<String> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(serde_json::to_string(report)?.as_bytes()).map_err(RepoError::internal)?;
    let bytes = e.finish().map_err(RepoError::internal)?;
    Ok(base64(&bytes))
}

fn unpack(text: &str) -> RepoResult<Report> {
    let bytes = unbase64(text).ok_or_else(|| RepoError::internal(crate::cause::Cause::msg("corrupt report")))?;
    let mut out = String::new();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut out).map_err(RepoError::internal)?;
    serde_json::from_str(&out).map_err(RepoError::internal)
}

/// Writes the report and marks the job finished, together; `false` when the job ended
/// meanwhile (cancelled): nothing is written.
pub async fn finish(store: &dyn Store, account: &str, id: &str, report: &Report, now: DateTime<Utc>) -> RepoResult<bool> {
    let body = pack(report)?;
    let mut tries = super::Attempts::worker("forecast job", id);
    loop {
        let cur = load(store, account, id, now).await?;
        if cur.value.status.is_final() {
            return Ok(false);
        }
        tries.check(cur.version())?;
        let mut j = cur.value.clone();
        j.status = ForecastStatus::Finished;
        j.progress = 100;
        j.finished = Some(now);
        let k = keys::forecast_report(account, id);
        let report_item = Item {
            pk: k.pk,
            sk: k.sk,
            version: 1,
            expires_at: Some((now + Duration::days(KEEP_REPORT_DAYS)).timestamp()),
            body: body.clone(),
            ..Item::default()
        };
        let ops = vec![TxOp::Put(job_item(&j, cur.version() + 1)?, Cond::Version(cur.version())), TxOp::Put(report_item, Cond::None)];
        if tries.commit(store, ops).await? {
            return Ok(true);
        }
    }
}

pub async fn report(store: &dyn Store, account: &str, id: &str) -> RepoResult<Option<Report>> {
    match store.get(&keys::forecast_report(account, id)).await? {
        Some(item) => Ok(Some(unpack(&item.body)?)),
        None => Ok(None),
    }
}

/// Records a sampled ad request (local date and hour of the account).
pub async fn record_sample(store: &dyn Store, account: &str, day: NaiveDate, hour: u32, s: &Sample, now: DateTime<Utc>) -> RepoResult<()> {
    store.put(sample_item(account, day, hour, s, now)?, Cond::None).await?;
    Ok(())
}

/// The stored record of a traffic sample (the serving path batches them: `SampleSink`).
pub fn sample_item(account: &str, day: NaiveDate, hour: u32, s: &Sample, now: DateTime<Utc>) -> RepoResult<Item> {
    let key = Key::new(keys::traffic_day(account, day), keys::traffic_sample(hour, &crate::ids::new_id()));
    let mut item = super::item(key, s, 1)?;
    item.expires_at = Some((now + Duration::days(KEEP_DAYS)).timestamp());
    Ok(item)
}

/// A day's samples with their local hours, in key order.
pub async fn samples_of_day(store: &dyn Store, account: &str, day: NaiveDate) -> RepoResult<Vec<(u32, Sample)>> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.query(Query::partition(keys::traffic_day(account, day)).after(cursor)).await?;
        for item in page.items {
            let hour = keys::traffic_sample_hour(&item.sk).unwrap_or(0);
            out.push((hour, super::decode::<Sample>(item)?.value));
        }
        match page.next {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let val = |c: u8| B64.iter().position(|x| *x == c).map(|p| p as u32);
    for chunk in s.as_bytes().chunks(4) {
        if chunk.len() != 4 {
            return None;
        }
        let pads = chunk.iter().filter(|c| **c == b'=').count();
        let mut n = 0u32;
        for c in chunk {
            n = (n << 6) | if *c == b'=' { 0 } else { val(*c)? };
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pads]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_pack_and_unpack() {
        use crate::forecast::report_schema::{InventoryReport, InventorySide};
        for n in [0usize, 1, 2, 3, 4, 100] {
            let side = InventorySide { total: n as f64, inventory_by_date: Default::default() };
            let v = Report::Inventory(InventoryReport {
                total_inventory: side.clone(),
                unused_inventory: side,
                name: Some("a".repeat(n)),
                job_id: "j".into(),
                traffic_source: "samples".into(),
                programmatic_basis: Vec::new(),
            });
            assert_eq!(unpack(&pack(&v).unwrap()).unwrap(), v);
        }
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(unbase64("TQ==").unwrap(), b"M");
    }
}
