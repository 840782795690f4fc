//! Creative preview (docs/operations-guide.md, "Show me the ad"): a signed, expiring link
//! to a document with exactly one ad, whatever its enabled flag, flight, targeting, caps or
//! pacing, and a player page an advertiser can open without a key.
//!
//! Nothing a preview does counts: its tracking links carry an impression id that marks
//! them (`pv-<expiry>-<id>`, signed like every link, so it cannot be added or removed),
//! the tracking call answers them without queueing anything, and the events worker drops
//! any that reach it, before every counter, pace, frequency, spend or revenue record.

use chrono::{DateTime, Utc};

use super::link_keys::TrackingKeys;
use super::snapshot::Input;

/// How long a preview link (and its document's tracking links) works.
pub const TTL_SECS: i64 = 7 * 24 * 3600;
/// What every preview impression id starts with.
const PREFIX: &str = "pv-";

/// A preview of one ad of one account, until `expires` (epoch seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub account: String,
    pub ad: String,
    pub expires: i64,
}

fn message(g: &Grant) -> String {
    format!("preview|{}|{}|{}", g.account, g.ad, g.expires)
}

impl Grant {
    /// The URL path segment: `<account>.<ad>.<expires>.<key id>.<signature>`.
    pub fn token(&self, keys: &TrackingKeys) -> String {
        let (kid, key) = keys.signing();
        format!("{}.{}.{}.{kid}.{}", self.account, self.ad, self.expires, key.sign_text(&message(self)))
    }

    /// A token read back: `None` when malformed or forged (its expiry is the caller's).
    pub fn read(token: &str, keys: &TrackingKeys) -> Option<Grant> {
        let mut parts = token.split('.');
        let (account, ad, expires, kid, sig) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || ![account, ad, kid].iter().all(|p| crate::ids::plausible_id(p)) {
            return None;
        }
        let g = Grant { account: account.to_string(), ad: ad.to_string(), expires: expires.parse().ok()? };
        keys.by_id(kid)?.verify_text(&message(&g), sig).then_some(g)
    }

    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        now.timestamp() > self.expires
    }

    /// A new impression id for this preview's document.
    pub fn impression(&self) -> String {
        format!("{PREFIX}{}-{}", self.expires, crate::ids::fast_id())
    }
}

/// Whether an impression id is a preview's, and until when its links work.
pub fn preview_until(impression: &str) -> Option<i64> {
    impression.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

/// The account's records as a preview serves them: the one ad, enabled, its goal and
/// campaign enabled and flying, no rules or templates (no targeting, caps or pacing), and
/// none of the ad's own third-party trackers (a preview reports to nobody).
pub fn prepared(mut input: Input, ad: &str) -> Input {
    input.ads.retain(|a| a.id == ad);
    let Some(a) = input.ads.first_mut() else { return input };
    a.enabled = true;
    a.start = None;
    a.end = None;
    a.external_trackers.clear();
    a.device_containers = None;
    let goal = a.goal_id.clone();
    input.goals.retain(|g| g.id == goal);
    let campaign = input.goals.first().map(|g| g.campaign_id.clone()).unwrap_or_default();
    for g in &mut input.goals {
        g.enabled = true;
        g.deleted_at = None;
        g.end = None;
        g.marketplace_id = None;
    }
    input.campaigns.retain(|c| c.id == campaign);
    for c in &mut input.campaigns {
        c.enabled = true;
        c.archived_at = None;
        c.archive_month = None;
        c.deleted_at = None;
    }
    input.rules.clear();
    input.linked.clear();
    input.policies.clear();
    input.demand_partners.clear();
    input.marketplaces.clear();
    input
}

/// The scheme, host and port of a URL (`https://cdn.example`), for the page's CSP.
fn origin(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let end = rest.find('/').map_or(url.len(), |i| url.len() - rest.len() + i);
    Some(&url[..end])
}

/// The player page's Content-Security-Policy: its own script, the document and tracking
/// calls to the service, media from the media origin, nothing else.
pub fn csp(service_base: &str, media_base: &str) -> String {
    let service = origin(service_base).unwrap_or("'self'");
    let media = origin(media_base).unwrap_or("'self'");
    format!(
        "default-src 'none'; script-src 'self'; connect-src 'self' {service}; media-src 'self' {media} blob:; img-src 'self'; \
         style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
}

/// The player page: static (nothing from the request in it); `player.js` fetches the
/// document beside it (`vast.xml`).
pub const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ad preview</title><link rel="stylesheet" href="../player.css"></head>
<body><main><p class="note">Preview: nothing this player does is counted or billed.</p>
<h1 id="t">Ad preview</h1>
<video id="v" controls muted playsinline width="640" height="360"></video>
<p id="s" class="status"></p></main>
<script src="../player.js"></script></body></html>
"#;

pub const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2rem;color:#222}video{max-width:100%;background:#000}\
.note{color:#555}.status{color:#a00}.done{color:#2e7d32}";

/// The page's script: the document's first playable linear MediaFile, its impression and
/// quartile tracking fired as a player would, `window.result` for automated checks.
pub const SCRIPT: &str = r#"(async () => {
  const r = { ended: false, fired: [] };
  const say = (m) => { document.getElementById('s').textContent = m; };
  try {
    const res = await fetch('vast.xml', { credentials: 'omit', cache: 'no-store' });
    if (!res.ok) throw new Error(res.status === 410 ? 'This preview link has expired.' : 'This preview is not available (' + res.status + ').');
    const doc = new DOMParser().parseFromString(await res.text(), 'application/xml');
    const v = document.getElementById('v');
    const title = doc.querySelector('AdTitle');
    if (title) document.getElementById('t').textContent = title.textContent.trim();
    const files = [...doc.querySelectorAll('Linear MediaFile')].filter((m) => v.canPlayType(m.getAttribute('type') || '') !== '');
    if (!files.length) throw new Error('No media of this ad plays in this browser.');
    files.sort((a, b) => (+b.getAttribute('width') || 0) - (+a.getAttribute('width') || 0));
    const ping = (u) => fetch(u.trim(), { mode: 'no-cors', credentials: 'omit', keepalive: true }).catch(() => {});
    const fire = (name) => {
      doc.querySelectorAll('Linear Tracking[event="' + name + '"]').forEach((t) => ping(t.textContent));
      r.fired.push(name);
    };
    const marks = [['firstQuartile', 0.25], ['midpoint', 0.5], ['thirdQuartile', 0.75]];
    let started = false;
    v.addEventListener('playing', () => {
      if (started) return;
      started = true;
      doc.querySelectorAll('Impression').forEach((i) => ping(i.textContent));
      fire('start');
    });
    v.addEventListener('timeupdate', () => {
      for (const [name, at] of marks) {
        if (!r.fired.includes(name) && v.duration && v.currentTime >= at * v.duration) fire(name);
      }
    });
    v.addEventListener('ended', () => {
      for (const [name] of marks) if (!r.fired.includes(name)) fire(name);
      fire('complete');
      r.ended = true;
      r.src = v.currentSrc;
      r.duration = v.duration;
      say('Played to the end (' + v.duration.toFixed(1) + ' s); nothing was counted.');
      document.getElementById('s').className = 'done';
      window.result = r;
    });
    v.addEventListener('error', () => { r.error = 'the media could not be played'; say(r.error); window.result = r; });
    v.src = files[0].textContent.trim();
    await v.play();
  } catch (e) {
    r.error = String(e.message || e);
    say(r.error);
    window.result = r;
  }
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_signed_and_marked_impressions_carry_their_expiry() {
        let keys = TrackingKeys::single("a-secret-long-enough-for-the-tests");
        let g = Grant { account: "acc-1".into(), ad: "ad-2".into(), expires: 1_800_000_000 };
        let t = g.token(&keys);
        assert_eq!(Grant::read(&t, &keys), Some(g.clone()));
        assert_eq!(Grant::read(&t.replace("ad-2", "ad-3"), &keys), None, "the ad cannot change");
        assert_eq!(Grant::read(&t.replace("1800000000", "1900000000"), &keys), None, "nor the expiry");
        assert_eq!(Grant::read(&t, &TrackingKeys::single("another-secret-long-enough-here")), None);
        assert_eq!(Grant::read("a.b", &keys), None);
        assert_eq!(preview_until(&g.impression()), Some(1_800_000_000));
        assert_eq!(preview_until(&crate::ids::fast_id()), None);
    }

    #[test]
    fn the_page_allows_only_the_service_and_the_media() {
        let c = csp("http://127.0.0.1:3000", "https://cdn.example/media");
        assert!(c.contains("connect-src 'self' http://127.0.0.1:3000;") && c.contains("media-src 'self' https://cdn.example blob:;"));
        assert!(c.starts_with("default-src 'none'") && !c.contains("unsafe"));
        assert!(!PAGE.contains("{") && !PAGE.contains("<script>"), "the page is static; its script is a file");
    }
}
