//! A tracking event (docs/delivery.md, docs/traffic-quality.md): a signed link of a served
//! document becomes an event on the events queue, counted once by the events worker. What
//! the call itself shows is judged here: a crawler or non-browser User-Agent, or a link past
//! its age, is sent as invalid (counted apart, never as a valid event); a forged link is
//! refused and counts nothing.

use std::net::IpAddr;

use super::{UseCaseError, UseCaseResult};
use crate::delivery::ivt::{self, Reason};
use crate::delivery::tracking::{Token, MAX_AGE_SECS};
use crate::jobs::Event;
use crate::model::enums::Counter;
use crate::queue::QueueName;
use crate::state::AppState;

/// A tracking link as received: the event of the path, its `/v3` counter, the token, the
/// signature of the query, and the caller's User-Agent and address.
pub struct Track<'a> {
    pub event: &'a str,
    pub counter: Counter,
    pub token: &'a Token,
    pub signature: &'a str,
    pub user_agent: &'a str,
    pub ip: Option<IpAddr>,
    /// The call came from a registered stitcher (server-initiated; its device's values are
    /// `user_agent` and `ip`).
    pub server: bool,
}

/// Verifies the link (403 when forged or expired) and queues the event.
pub async fn track(st: &AppState, cmd: Track<'_>) -> UseCaseResult<()> {
    let Track { event, counter, token, signature: sig, user_agent, ip, server } = cmd;
    if !st.settings.tracking_keys.verify(token, event, sig) {
        return Err(UseCaseError::Forbidden("the tracking link's signature does not match: links cannot be changed or made up".into()));
    }
    let now = st.clock.now().timestamp();
    // A preview's link: answered, never queued (it counts nowhere), refused once expired.
    if let Some(until) = crate::delivery::preview::preview_until(&token.impression) {
        if now > until {
            return Err(UseCaseError::Forbidden("the preview link has expired; ask for a new preview".into()));
        }
        return Ok(());
    }
    let expired = now.saturating_sub(token.issued) > MAX_AGE_SECS || token.issued > now.saturating_add(300);
    let verdict = if expired { Some(Reason::Expired) } else { ivt::classify_agent(user_agent) };
    let e = Event {
        account: token.account.clone(),
        campaign: token.campaign.clone(),
        goal: token.goal.clone(),
        ad: token.ad.clone(),
        impression: token.impression.clone(),
        counter,
        delivered: Counter::parse(&token.delivered) == Some(counter),
        viewer: token.viewer.clone(),
        at: now,
        id: crate::ids::new_id(),
        invalid: verdict.map(|r| r.as_str().to_string()),
        // No address known (never so behind API Gateway or on the local server): the
        // address rules count it under a bucket of its own, never exempt.
        block: Some(ip.map_or_else(|| ivt::UNKNOWN_BLOCK.to_string(), ivt::block_of)),
        dims: token.dims.clone(),
        server,
        message: 0,
    };
    let body = serde_json::to_string(&e).map_err(UseCaseError::internal)?;
    st.queue.send(QueueName::Events, body).await?;
    if expired {
        return Err(UseCaseError::Forbidden(format!(
            "the tracking link has expired: events are accepted for {} hours after serving",
            MAX_AGE_SECS / 3600
        )));
    }
    Ok(())
}
