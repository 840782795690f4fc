//! A tracking event (docs/delivery.md): a signed link of a served document, verified and
//! within its age, becomes an event on the events queue (counted once by the events worker).

use crate::delivery::tracking::{Token, MAX_AGE_SECS};
use crate::error::{AppError, AppResult};
use crate::jobs::Event;
use crate::queue::QueueName;
use crate::state::AppState;

/// A tracking link as received: the event of the path, its `/v3` counter, the token and
/// the signature of the query.
pub struct Track<'a> {
    pub event: &'a str,
    pub counter: &'a str,
    pub token: &'a Token,
    pub signature: &'a str,
}

/// Verifies the link (403 when forged or expired) and queues the event.
pub async fn track(st: &AppState, cmd: Track<'_>) -> AppResult<()> {
    let Track { event, counter, token, signature: sig } = cmd;
    if !token.verify(st.settings.tracking_secret.as_bytes(), event, sig) {
        return Err(AppError::Forbidden("the tracking link's signature does not match: links cannot be changed or made up".into()));
    }
    let now = st.clock.now().timestamp();
    if now.saturating_sub(token.issued) > MAX_AGE_SECS || token.issued > now.saturating_add(300) {
        return Err(AppError::Forbidden(format!(
            "the tracking link has expired: events are accepted for {} hours after serving",
            MAX_AGE_SECS / 3600
        )));
    }
    let e = Event {
        account: token.account.clone(),
        campaign: token.campaign.clone(),
        goal: token.goal.clone(),
        ad: token.ad.clone(),
        impression: token.impression.clone(),
        counter: counter.to_string(),
        delivered: token.delivered == counter,
        viewer: token.viewer.clone(),
        at: now,
    };
    let body = serde_json::to_string(&e).map_err(AppError::internal)?;
    st.queue.send(QueueName::Events, body).await?;
    Ok(())
}
