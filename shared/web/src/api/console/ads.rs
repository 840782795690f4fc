//! A new ad with a video from the person's disk (a plain multipart form; the script shows
//! the upload's progress), and the ad's page: the transcode's progress until the ad can
//! serve (or why it failed), the preview player, and the VAST URL with a copy button.

use super::error::{ConsoleError, ConsoleResult};
use axum::extract::{Multipart, Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde_json::json;

use super::form::{self, Field, Problems, Spec};
use super::{page, redirect, ConsoleUser};
use crate::api::Within;
use crate::domain_error::FieldError;
use crate::model::ad_write::parse_write;
use crate::model::asset::{Asset, AssetStatus};
use crate::model::asset_write::check_upload_name;
use crate::rule::Rule;
use crate::state::AppState;
use crate::usecases::assets::{self, CreateAsset};
use crate::usecases::vast_export::{self, VastTarget};
use crate::usecases::{ads, reference};

/// The ad form's fields as typed.
#[derive(Default)]
struct AdForm {
    name: String,
    click: String,
}

/// The ad form's fields, with the API fields whose errors each shows.
const SPECS: &[Spec] = &[
    Spec { name: "name", label: "Name", api: &["name"] },
    Spec { name: "video", label: "Video", api: &["video", "creative.assetId"] },
    Spec { name: "click", label: "Click-through URL", api: &["creative.clickDestinationUri"] },
];

fn ad_form(user: &ConsoleUser, goal: &str, f: &AdForm, p: &Problems) -> Markup {
    let video_errors = p.at("video");
    html! {
        (form::summary(p))
        form.stack method="post" action={ "/console/goals/" (goal) "/ads?csrf=" (user.csrf) } enctype="multipart/form-data" data-upload novalidate {
            (Field { label: "Name", name: "name", kind: "text", value: &f.name, required: true, hint: None }.render(p))
            div.field {
                label for="video" { "Video" }
                span.hint id="video-hint" { "An MP4, MOV or WebM master; it is transcoded for every player" }
                input #video type="file" name="video" accept="video/*" required aria-describedby="video-hint"
                    aria-invalid=[(!video_errors.is_empty()).then_some("true")];
                @if !video_errors.is_empty() { span.field-error { @for e in &video_errors { (e) " " } } }
            }
            (Field { label: "Click-through URL", name: "click", kind: "url", value: &f.click, required: true, hint: None }.render(p))
            button type="submit" { "Save" }
            p { progress hidden value="0" max="1" aria-label="Upload progress" {} span data-upload-status role="status" {} }
        }
    }
}

pub async fn new_form(Within(st): Within, user: ConsoleUser, Path(goal): Path<String>) -> ConsoleResult {
    new_page(&st, &user, &goal, &AdForm::default(), &Problems::default()).await
}

async fn new_page(st: &AppState, user: &ConsoleUser, goal: &str, f: &AdForm, p: &Problems) -> ConsoleResult {
    if !user.writes() {
        return Err(ConsoleError::Forbidden("Creating an ad needs the TRAFFICKER role.".into()));
    }
    let (g, c) = crate::usecases::goals::get(st, &user.account.id, goal).await?;
    let name = g.value.name.clone().unwrap_or_else(|| format!("Goal {}", g.value.id));
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let body = html! {
        p { a href={ "/console/goals/" (goal) } { "← " (c.value.name) ": " (name) } }
        h1 { "New ad" }
        (ad_form(user, goal, f, p))
    };
    Ok(page::with_status(page::page("New ad", Some(user), body), status))
}

/// The ad as the API creates it: a standard pre-roll of the uploaded video.
fn ad_body(f: &AdForm, goal: &str, asset: &str) -> serde_json::Value {
    json!({"name": f.name.trim(), "goalId": goal, "enabled": true,
        "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": asset, "clickDestinationUri": f.click.trim()}})
}

/// The longest text field of the ad form read (a name, a URL, the token).
const TEXT_FIELD_MAX: usize = 16 * 1024;

/// An upload on the local disk, removed when dropped (stored or refused).
struct TempUpload(std::path::PathBuf);

impl Drop for TempUpload {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A field the form could not be read from: past the body's bound 413, else 400.
fn unread(e: axum::extract::multipart::MultipartError, max: usize) -> ConsoleError {
    use crate::api::error::AppError;
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ConsoleError::Service(AppError::PayloadTooLarge(max))
    } else {
        ConsoleError::Service(AppError::Malformed(format!("the form could not be read: {e}")))
    }
}

/// A text field, read up to `TEXT_FIELD_MAX` bytes (past it: 413, the rest unread).
async fn text_of(field: &mut axum::extract::multipart::Field<'_>, max: usize) -> ConsoleResult<String> {
    let mut bytes = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(|e| unread(e, max))? {
        if bytes.len() + chunk.len() > TEXT_FIELD_MAX {
            return Err(ConsoleError::Service(crate::api::error::AppError::PayloadTooLarge(TEXT_FIELD_MAX)));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The ad form's token, in its action's query string: checked before a byte of the body
/// is read.
#[derive(serde::Deserialize, Default)]
pub struct UploadToken {
    #[serde(default)]
    csrf: String,
}

/// Stores the video as an asset, then creates the ad linking it (which starts the
/// transcode). The role (the route's) and the form's token (in the action's query string)
/// are checked before a byte of the body is read; the file streams to a temporary file
/// chunk by chunk, bounded whether the body declared a length or not. The other fields are
/// checked before the upload is stored.
pub async fn create(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(goal): Path<String>,
    Query(token): Query<UploadToken>,
    mut parts: Multipart,
) -> ConsoleResult {
    use tokio::io::AsyncWriteExt;
    form::guard(&user, &headers, &token.csrf)?;
    let mut f = AdForm::default();
    let mut video: Option<(String, TempUpload)> = None;
    let max = st.settings.upload_max_bytes;
    while let Some(mut field) = parts.next_field().await.map_err(|e| unread(e, max))? {
        let name = field.name().unwrap_or("").to_string();
        if name != "video" {
            let text = text_of(&mut field, max).await?;
            match name.as_str() {
                "name" => f.name = text,
                "click" => f.click = text,
                _ => {}
            }
            continue;
        }
        let file = field.file_name().unwrap_or("").to_string();
        let tmp = TempUpload(std::env::temp_dir().join(format!("console-upload-{}", crate::ids::new_id())));
        let stored = |e: std::io::Error| {
            ConsoleError::Service(crate::api::error::AppError::internal(crate::cause::Cause::msg(format!(
                "the upload could not be kept: {e}"
            ))))
        };
        let mut out = tokio::fs::File::create(&tmp.0).await.map_err(stored)?;
        let mut total = 0usize;
        while let Some(chunk) = field.chunk().await.map_err(|e| unread(e, max))? {
            total += chunk.len();
            if total > max {
                return Err(ConsoleError::Service(crate::api::error::AppError::PayloadTooLarge(max)));
            }
            out.write_all(&chunk).await.map_err(stored)?;
        }
        out.flush().await.map_err(stored)?;
        if total > 0 {
            video = Some((file, tmp));
        }
    }
    // The fields first (with a stand-in asset), so nothing is stored for a refused form.
    let mut errors = parse_write(&ad_body(&f, &goal, "00000000-0000-0000-0000-000000000000")).err().unwrap_or_default();
    let file = match &video {
        None => {
            errors.push(FieldError::new("video", Rule::Required, "Choose a video file to upload."));
            None
        }
        Some((file, _)) => match check_upload_name(Some(file)) {
            Ok(n) => Some(n),
            Err(e) => {
                errors.push(FieldError::new("video", e.rule, e.message));
                None
            }
        },
    };
    if !errors.is_empty() {
        return new_page(&st, &user, &goal, &f, &Problems::of_fields(errors, SPECS)).await;
    }
    let (Some(file), Some((_, upload))) = (file, video) else { return new_page(&st, &user, &goal, &f, &Problems::default()).await };
    let a = &user.account;
    let made = async {
        let asset = assets::create(&st, &a.id, CreateAsset::UploadedFile { name: file, path: upload.0.clone() }).await?;
        let input = parse_write(&ad_body(&f, &goal, &asset.id)).map_err(crate::usecases::UseCaseError::validation)?;
        ads::create(&st, &a.id, input).await
    };
    match made.await {
        Ok(shown) => Ok(redirect(&format!("/console/ads/{}", shown.ad.id))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            new_page(&st, &user, &goal, &f, &p).await
        }
    }
}

/// Where an ad's media stands, in words: (words, share done 0-1, done).
fn media_state(asset: Option<&Asset>) -> (String, f64, bool) {
    match asset.map(|x| (x.status, x)) {
        None => ("The ad has no video.".into(), 0.0, true),
        Some((AssetStatus::Pending, _)) => ("Received; checking the file (1 of 3).".into(), 0.15, false),
        Some((AssetStatus::Downloading, _)) => ("Downloading the file (1 of 3).".into(), 0.15, false),
        Some((AssetStatus::Ready, _)) => ("Checked; waiting to transcode (2 of 3).".into(), 0.4, false),
        Some((AssetStatus::Transcoding, _)) => ("Transcoding for every player (3 of 3).".into(), 0.7, false),
        Some((AssetStatus::Transcoded, x)) => {
            (format!("Playable: {} rendition{} ready.", x.renditions.len(), if x.renditions.len() == 1 { "" } else { "s" }), 1.0, true)
        }
        Some((AssetStatus::Failed, x)) => {
            (format!("The video cannot be used: {}", x.failure_reason.as_deref().unwrap_or("the transcode failed")), 1.0, true)
        }
    }
}

async fn asset_of(st: &AppState, user: &ConsoleUser, ad: &crate::model::ad::Ad) -> Option<Asset> {
    let id = ad.creative.asset_id.as_deref()?;
    assets::get(st, &user.account.id, id).await.ok().map(|v| v.value)
}

/// The media's state for the page's script: `{words, progress, done}`.
pub async fn status(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    let shown = ads::get(&st, &user.account.id, &id).await?;
    let (words, progress, done) = media_state(asset_of(&st, &user, &shown.ad).await.as_ref());
    Ok(page::progress(&words, progress, done))
}

#[derive(serde::Deserialize, Default)]
pub struct AdQuery {
    #[serde(default)]
    category: String,
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>, Query(q): Query<AdQuery>) -> ConsoleResult {
    let a = &user.account;
    let shown = ads::get(&st, &a.id, &id).await?;
    let ad = &shown.ad;
    let asset = asset_of(&st, &user, ad).await;
    let (words, progress, done) = media_state(asset.as_ref());
    let playable = asset.as_ref().is_some_and(|x| x.status == AssetStatus::Transcoded);
    let cats = reference::categories(&st, &a.id).await.unwrap_or_default();
    let category = cats.iter().find(|c| c.id == q.category).or(cats.first());
    let vast = match category {
        Some(c) if playable => {
            vast_export::export(&st, &a.id, &id, VastTarget::Category, &c.id, crate::model::enums::ResponseTypeName::Vast42)
                .await
                .ok()
                .map(|e| e.url)
        }
        _ => None,
    };
    let media = asset.as_ref().and_then(|x| x.renditions.first()).map(|r| format!("{}/{}", st.settings.media_base_url, r.key));
    let goal_name = shown.goal.name.clone().unwrap_or_else(|| format!("Goal {}", shown.goal.id));
    let body = html! {
        p { a href={ "/console/goals/" (shown.goal.id) } { "← " (goal_name) } }
        h1 { (ad.name) }
        dl {
            dt { "Serving" } dd { @if ad.enabled { "Enabled" } @else { "Disabled" } }
            dt { "Click-through URL" } dd { (ad.creative.click_destination_uri.as_deref().unwrap_or("—")) }
            dt { "Video" } dd { (asset.as_ref().map(|x| x.name.as_str()).unwrap_or("—")) }
        }
        h2 { "Media" }
        div data-poll=[(!done).then(|| format!("/console/ads/{id}/status"))] {
            p role="status" aria-live="polite" { span data-poll-text { (words) } }
            @if !done { progress value=(progress) max="1" aria-label="Transcode progress" { (format!("{:.0} %", progress * 100.0)) } p.hint { "Reload the page to see the progress; it updates by itself where scripts run." } }
        }
        @if let Some(src) = media.filter(|_| playable) {
            h2 { "Preview" }
            video controls preload="metadata" src=(src) aria-label={ "Preview of " (ad.name) } {}
        }
        @if playable {
            h2 { "VAST URL" }
            form.filters method="get" action={ "/console/ads/" (id) } {
                div { label for="category" { "Category" } select #category name="category" { @for c in &cats { option value=(c.id) selected[category.is_some_and(|x| x.id == c.id)] { (c.name) } } } }
                button.secondary type="submit" { "Show URL" }
            }
            @if let Some(url) = &vast {
                code.url #vast-url { (url) }
                button.secondary type="button" data-copy="vast-url" hidden { "Copy VAST URL" }
            } @else { p { "The account has no category to export the ad for." } }
        }
    };
    let mut res = page::page(&ad.name, Some(&user), body).into_response();
    page::allow_media(&mut res, &st.settings.media_base_url);
    Ok(res)
}
