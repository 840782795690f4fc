//! Counting tracking events (docs/traffic-quality.md): the events of a batch, grouped by
//! account, each group judged by the counting rules (`delivery::counting`) over what
//! `repo::events` read, and written in one transaction with its once-only markers, the
//! metric counters, report cells, pace, frequency, rate and spend records. A group that
//! lost a race is read and judged again (the repository's attempt loop); nothing is added
//! unless its marker is written in the same transaction.
//!
//! Failures are per message: a group that fails (or an event that waits for its
//! impression) reports only its own messages for redelivery.

use crate::ids::AccountId;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::UseCaseResult;
use crate::delivery::counting::{self, Event, GoalLimits, Verdict};
use crate::delivery::freq::Scope;
use crate::delivery::ivt::{spend_limit, GOAL_DAILY_SHARE, GOAL_TOTAL_SHARE};
use crate::delivery::pacing::local_day_hour;
use crate::model::enums::Counter;
use crate::model::zone::Zone;
use crate::repo::events::{self as repo, Commit, Counted, ACTIONS_PER_EVENT};
use crate::repo::Attempts;
use crate::state::AppState;

/// Events per transaction: within DynamoDB's 100 actions.
pub const GROUP: usize = 100 / ACTIONS_PER_EVENT;

/// What an account's events need besides the records: its zone and goals' limits.
struct AccountCtx {
    zone: Zone,
    goals: HashMap<String, GoalLimits>,
}

/// What a batch came to: events written, and the messages to deliver again.
#[derive(Debug, Default)]
pub struct Outcome {
    pub counted: usize,
    pub failed: BTreeSet<usize>,
}

/// Counts events (any accounts, each tagged with its message).
pub async fn count(st: &AppState, events: Vec<Event>) -> Outcome {
    // The same tracking call twice in one batch (a duplicated message) counts once.
    let mut seen = HashSet::new();
    let mut by_account: BTreeMap<String, Vec<Event>> = BTreeMap::new();
    // A preview's events count nowhere (docs/operations-guide.md): dropped before any record.
    for e in events.into_iter().filter(|e| crate::delivery::preview::preview_until(&e.impression).is_none()) {
        if seen.insert((e.account.clone(), e.impression.clone(), e.counter, e.id.clone())) {
            by_account.entry(e.account.clone()).or_default().push(e);
        }
    }
    let mut out = Outcome::default();
    for (account, events) in by_account {
        let account = AccountId::from(account);
        let ctx = match account_ctx(st, &account).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, account = account.as_str(), "account not readable; its events come back");
                out.failed.extend(events.iter().map(|e| e.message));
                continue;
            }
        };
        for group in events.chunks(GROUP) {
            match count_group(st, &account, group, &ctx).await {
                Ok((n, wait)) => {
                    out.counted += n;
                    out.failed.extend(wait);
                }
                Err(e) => {
                    tracing::warn!(error = %e, account = account.as_str(), "an event group was not counted; its messages come back");
                    out.failed.extend(group.iter().map(|e| e.message));
                }
            }
        }
    }
    out
}

async fn account_ctx(st: &AppState, account: &AccountId) -> UseCaseResult<AccountCtx> {
    let (snapshot, _) = st.delivery.current(&st.store, &st.blobs, account, &st.settings, st.clock.now()).await?;
    let goals = snapshot
        .goals
        .iter()
        .map(|g| {
            let limits = GoalLimits {
                total: spend_limit(g.caps.total, GOAL_TOTAL_SHARE),
                daily: spend_limit(g.caps.daily, GOAL_DAILY_SHARE),
                end: g.end,
            };
            (g.id.clone(), limits)
        })
        .collect();
    Ok(AccountCtx { zone: snapshot.zone.clone(), goals })
}

/// One group of one account's events: judged and written in one transaction. Returns how
/// many were counted and the messages of events waiting for their impression.
async fn count_group(st: &AppState, account: &AccountId, group: &[Event], ctx: &AccountCtx) -> UseCaseResult<(usize, BTreeSet<usize>)> {
    let store = st.store.as_ref();
    let now = st.clock.now().timestamp();
    let limits = |e: &Event| ctx.goals.get(&e.goal).copied().unwrap_or_default();
    let local_day = |e: &Event| local_day_hour(e.at, ctx.zone.offset_at(e.at)).0;
    let offset_at = |at: i64| ctx.zone.offset_at(at);
    let wanted = counting::wanted(group);
    let mut tries = Attempts::worker("event group", account);
    loop {
        tries.next_worker_try().await?;
        let seen = repo::seen(store, account, &wanted).await?;
        let (verdicts, tallies) = counting::judge(group, &seen, now, &limits, &local_day);
        let billed = billable(group, &verdicts, &seen);
        let wait: BTreeSet<usize> = group.iter().zip(&verdicts).filter(|(_, v)| **v == Verdict::Wait).map(|(e, _)| e.message).collect();
        let counted: Vec<Counted<'_>> = group
            .iter()
            .zip(verdicts)
            .filter_map(|(event, v)| match v {
                Verdict::Count { reason, marker } => Some(Counted { event, reason, marker }),
                Verdict::Skip | Verdict::Wait => None,
            })
            .collect();
        if counted.is_empty() {
            bill(st, account, &billed).await;
            return Ok((0, wait));
        }
        let (paces, freqs) = pace_and_freq(st, account, &counted, ctx).await?;
        let n = counted.len();
        let commit = Commit { account, now, counted, tallies, paces, freqs, offset_at: &offset_at };
        if repo::commit(store, &commit, &tries).await? {
            bill(st, account, &billed).await;
            return Ok((n, wait));
        }
        tracing::debug!(account = account.as_str(), "an event group lost a race; judged again");
    }
}

/// The valid programmatic impressions of a group: counted now, or counted before (a
/// redelivery whose billing notice may not have been queued; the notices worker fires a
/// notice once).
fn billable<'a>(group: &'a [Event], verdicts: &[Verdict], seen: &counting::Seen) -> Vec<&'a Event> {
    group
        .iter()
        .zip(verdicts)
        .filter(|(e, _)| e.is_impression() && e.dims.as_ref().is_some_and(|d| d.sale.is_some()))
        .filter(|(e, v)| match v {
            Verdict::Count { reason, .. } => reason.is_none(),
            Verdict::Skip => seen
                .markers
                .get(&counting::MarkerId::of(&e.impression, Counter::Impression))
                .is_some_and(|m| m.call == e.id && m.reason.is_none()),
            Verdict::Wait => false,
        })
        .map(|(e, _)| e)
        .collect()
}

/// Queues the billing notice (`burl`) of each valid programmatic impression, from its
/// auction's win record (docs/programmatic.md, "Win records and notices").
async fn bill(st: &AppState, account: &AccountId, impressions: &[&Event]) {
    for e in impressions {
        match crate::repo::notices::win(st.store.as_ref(), account, &e.impression).await {
            Ok(Some(win)) => {
                if let Some(url) = win.burl {
                    let n = crate::jobs::Notice {
                        account: account.to_string(),
                        about: e.impression.clone(),
                        kind: "burl".into(),
                        partner: win.partner,
                        url,
                    };
                    super::bid_notices::queue(st, n).await;
                }
            }
            Ok(None) => {
                tracing::info!(impression = %e.impression, "no win record for a programmatic impression (expired): no billing notice")
            }
            Err(err) => tracing::warn!(error = %err, impression = %e.impression, "the win record was not read: no billing notice"),
        }
    }
}

type Paces = Vec<(String, crate::delivery::pacing::Pace, u64)>;
type Freqs = Vec<(String, crate::delivery::freq::FreqState, u64)>;

/// The pace records of the goals with valid deliveries and the frequency states of the
/// viewers with valid impressions, as the group leaves them.
async fn pace_and_freq(st: &AppState, account: &AccountId, counted: &[Counted<'_>], ctx: &AccountCtx) -> UseCaseResult<(Paces, Freqs)> {
    let mut by_goal: BTreeMap<&str, Vec<&Event>> = BTreeMap::new();
    let mut by_viewer: BTreeMap<&str, Vec<&Event>> = BTreeMap::new();
    for e in counted.iter().filter(|c| c.reason.is_none()).map(|c| c.event) {
        if e.is_impression() || e.delivered {
            by_goal.entry(e.goal.as_str()).or_default().push(e);
        }
        if let (Some(v), true) = (&e.viewer, e.is_impression()) {
            by_viewer.entry(v.as_str()).or_default().push(e);
        }
    }
    if by_goal.is_empty() && by_viewer.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let goals: Vec<&str> = by_goal.keys().copied().collect();
    let viewers: Vec<&str> = by_viewer.keys().copied().collect();
    let (mut paces, mut freqs) = repo::paces_and_freqs(st.store.as_ref(), account, &goals, &viewers).await?;
    let mut pace_out = Vec::new();
    for (g, evs) in by_goal {
        let (mut pace, version) = paces.remove(g).unwrap_or_default();
        for e in evs {
            let (day, hour) = local_day_hour(e.at, ctx.zone.offset_at(e.at));
            pace.add(day, hour, u64::from(e.counter == Counter::Impression), u64::from(e.delivered));
        }
        pace_out.push((g.to_string(), pace, version));
    }
    let mut freq_out = Vec::new();
    for (v, evs) in by_viewer {
        let (mut freq, version) = freqs.remove(v).unwrap_or_default();
        for e in evs {
            freq.record(&[Scope::Campaign(&e.campaign).key(), Scope::Goal(&e.goal).key()], e.at);
        }
        freq_out.push((v.to_string(), freq, version));
    }
    Ok((pace_out, freq_out))
}
