//! Audiences: the account's audience providers and their data batches, newest first, with
//! each batch's progress (it updates itself where JavaScript is on; `Reload` where it is
//! off), the rows refused and why. Uploads stay with the API (`POST /v1/audience/batch`, or
//! the bucket's drop folder: docs/audience.md). Served by the audience function.

use super::error::ConsoleResult;
use crate::api::Access;
use axum::extract::Path;
use axum::response::IntoResponse;
use maud::{html, Markup};

use super::form;
use super::{page, ConsoleUser};
use crate::api::Within;
use crate::model::audience::Batch;
use crate::model::enums::BatchStatus;
use crate::usecases::audience as uc;

/// Batches the page lists (the newest).
pub const LISTED: usize = 50;

fn done(b: &Batch) -> bool {
    matches!(b.status, BatchStatus::Finished | BatchStatus::Cancelled)
}

fn words(b: &Batch) -> String {
    match b.status {
        BatchStatus::Uploaded => "Waiting: uploaded, not picked up yet.".into(),
        BatchStatus::Processing => format!("Processing: {} % done.", b.percentage()),
        BatchStatus::Finished => format!(
            "Done: {} rows with segments no provider key matched, {} rows refused.",
            b.stats.rows_with_invalid_segments, b.stats.invalid_rows
        ),
        BatchStatus::Cancelled => format!("Cancelled{}", b.message.as_deref().map(|m| format!(": {m}")).unwrap_or_else(|| ".".into())),
    }
}

fn progress(b: &Batch) -> Markup {
    html! {
        div data-poll=[(!done(b)).then(|| format!("/console/audiences/batches/{}/status", b.id))] {
            span data-poll-text { (words(b)) }
            @if !done(b) { " " progress max="100" value=(b.percentage()) aria-label={ "Progress of batch " (b.id) } { (b.percentage()) " %" } }
        }
    }
}

pub async fn list(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    let a = &user.account;
    let (providers, batches) = match (uc::providers(&st, &a.id).await, uc::batches(&st, &a.id, None).await) {
        (Ok(p), Ok(b)) => (p, b),
        (Err(e), _) | (_, Err(e)) => return Err(e.into()),
    };
    let name_of = |id: &str| providers.iter().find(|p| p.id == id).map_or_else(|| id.to_string(), |p| p.name.clone());
    let body = html! {
        h1 { "Audiences" }
        p { "The audience providers of the account and the data batches uploaded for them (by the API or the bucket's drop folder), newest first. Times in " (form::zone_name(a)) "." }
        h2 { "Providers" }
        @if providers.is_empty() { p { "No audience providers." } }
        @else { ul { @for p in &providers { li { (p.name) " (" (p.segmentations.len()) " segmentations)" } } } }
        h2 { "Batches" }
        @if batches.is_empty() { p { "No batches yet." } }
        @else {
            @if batches.len() > LISTED { p role="status" { "The newest " (LISTED) " of " (batches.len()) "." } }
            table {
                thead { tr { th scope="col" { "Uploaded" } th scope="col" { "Provider" } th scope="col" { "Source" } th scope="col" { "Progress" } } }
                tbody { @for b in batches.iter().take(LISTED) {
                    tr {
                        td { a href={ "/console/audiences/batches/" (b.id) } { (form::local(a, b.created)) } }
                        td { (name_of(&b.provider_id)) }
                        td { (b.source.as_str()) }
                        td { (progress(b)) }
                    }
                } }
            }
            @if batches.iter().take(LISTED).any(|b| !done(b)) { p { a href="/console/audiences" { "Reload" } " to see the progress now." } }
        }
    };
    Ok(page::page("Audiences", Some(&user), body).into_response())
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    let a = &user.account;
    let b = uc::batch(&st, &a.id, &id).await?;
    let invalid = &b.stats.invalid_segments;
    let body = html! {
        p { a href="/console/audiences" { "← Audiences" } }
        h1 { "Batch of " (form::local(a, b.created)) }
        dl {
            dt { "Provider" } dd { (b.provider_id) }
            dt { "Source" } dd { (b.source.as_str()) }
            dt { "Size" } dd { (form::number(b.total_bytes as f64)) " bytes" }
            dt { "Progress" } dd { (progress(&b)) }
        }
        @if !done(&b) { p { a href={ "/console/audiences/batches/" (b.id) } { "Reload" } " to see the progress now." } }
        @if !invalid.is_empty() {
            h2 { "Pairs no segment matched" }
            ul { @for s in invalid.iter().take(100) { li { code { (s) } } } }
            @if invalid.len() > 100 { p { (invalid.len() - 100) " more in " code { "GET /v1/audience/batch/" (b.id) } "." } }
        }
    };
    Ok(page::page("Audience batch", Some(&user), body).into_response())
}

/// The batch's state for the page's script (`data-poll`).
pub async fn status(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    let b = uc::batch(&st, &user.account.id, &id).await?;
    Ok(page::progress(&words(&b), b.percentage() as f64, done(&b)))
}

/// The audience function's pages.
pub fn router() -> crate::api::Routes {
    use axum::routing::get;
    crate::api::Routes::console_reading()
        .route("/console/audiences", Access::RECORDS, get(list))
        .route("/console/audiences/batches/{id}", Access::RECORDS, get(show))
        .route("/console/audiences/batches/{id}/status", Access::RECORDS, get(status))
}
