//! Ad serving and tracking (docs/delivery.md): `GET /v1/adrequest` (the exported VAST URL,
//! and general ad requests) answers VAST 2.0, VAST 3.0 or VMAP 1.0; `GET /v1/track/{event}`
//! takes the signed playback events of the served documents. No API key: players call
//! them; the account is in the URL, the tracking links are signed.

use crate::api::Access;
use crate::api::Within;
use crate::ids::AccountId;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::api::client_addr::{self, Caller};
use crate::api::error::{AppError, AppResult};
use crate::api::{query_pairs, single, Routes};
use crate::delivery::request::AdRequest;
use crate::delivery::snapshot::AdFormat;
use crate::delivery::tracking::Token;
use crate::delivery::vast::ResponseType;
use crate::model::enums::Counter;
use crate::state::AppState;
use crate::usecases::ad_request::{self, ServeAd};
use crate::usecases::tracking::{self, Track};

/// Bounds of an ad request's lists (docs/delivery.md).
pub const MAX_TAGS: usize = 50;
pub const MAX_LOCATIONS: usize = 20;
pub const MAX_ACP: usize = 20;
pub const MAX_VALUE: usize = 256;
/// A parameter name (`acp.<name>` included) is at most this long.
pub const MAX_NAME: usize = 64;
pub const MAX_BREAK_NUMBER: u32 = 100;

/// The ad request in the OpenAPI document (no API key).
#[derive(utoipa::OpenApi)]
#[openapi(paths(ad_request), tags((name = "serving", description = "Ad requests: the exported VAST URL (docs/delivery.md)")))]
pub struct ServingDoc;

/// The tracking links in the OpenAPI document (no API key; links are signed).
#[derive(utoipa::OpenApi)]
#[openapi(paths(track), tags((name = "tracking", description = "Signed tracking links of served documents")))]
pub struct TrackingDoc;

const VAST_EXAMPLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<VAST version="3.0"><Ad id="ad-1"><InLine><AdSystem>video-ad-campaigns</AdSystem><AdTitle>Spring spot</AdTitle>
<Impression><![CDATA[https://api.example/v1/track/impression?a=...&s=...]]></Impression>
<Creatives><Creative><Linear><Duration>00:00:15.040</Duration><TrackingEvents>
<Tracking event="start"><![CDATA[https://api.example/v1/track/start?a=...&s=...]]></Tracking></TrackingEvents>
<VideoClicks><ClickThrough><![CDATA[https://api.example/v1/track/clickThrough?a=...&s=...]]></ClickThrough></VideoClicks>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="1280" height="720" bitrate="2911" codec="avc1.640028,mp4a.40.2" scalable="true" maintainAspectRatio="true"><![CDATA[https://media.example/acc/assets/a1/r/720p.mp4]]></MediaFile>
<MediaFile delivery="progressive" type="video/webm" width="1280" height="720" bitrate="2860" codec="vp09.00.40.08,opus" scalable="true" maintainAspectRatio="true"><![CDATA[https://media.example/acc/assets/a1/r/720p.webm]]></MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad></VAST>"#;

pub fn serving_router() -> Routes {
    Routes::new().route("/v1/adrequest", Access::Public, get(ad_request))
}

pub fn tracking_router() -> Routes {
    Routes::new().route("/v1/track/{event}", Access::Public, get(track))
}

/// A comma-separated list parameter (repeats add up), at most `max` values.
pub(crate) fn list_param(pairs: &[(String, String)], name: &str, max: usize) -> AppResult<Vec<String>> {
    let out: Vec<String> =
        pairs.iter().filter(|(k, _)| k == name).flat_map(|(_, v)| v.split(',')).filter(|v| !v.is_empty()).map(str::to_string).collect();
    if out.len() > max {
        return Err(AppError::field(name, Rule::MaxItems, format!("{name} holds at most {max} values (got {})", out.len())));
    }
    Ok(out)
}

fn user_agent(headers: &HeaderMap) -> &str {
    headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// Reads an ad request's parameters (docs/delivery.md has the list). The viewer's address
/// and User-Agent are the caller's (`client_addr`); the `ip` and `ua` parameters replace
/// them only when `caller.trusted` (a trusted proxy, or the inspector, which explains a
/// request the ad-ops user describes): anyone else's are checked and then ignored.
pub fn read_request(
    pairs: &[(String, String)],
    headers: &HeaderMap,
    caller: Caller,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<(AccountId, ResponseType, Option<AdFormat>, AdRequest)> {
    for (k, v) in pairs {
        if k.len() > MAX_NAME {
            let shown: String = k.chars().take(24).collect();
            return Err(AppError::field(
                format!("{shown}…"),
                Rule::MaxLength,
                format!("a parameter name is at most {MAX_NAME} characters (got {} starting {shown:?})", k.len()),
            ));
        }
        if v.len() > MAX_VALUE && k != "ua" && !crate::demand::signals::LONG_PARAMS.contains(&k.as_str()) {
            return Err(AppError::field(k.clone(), Rule::MaxLength, format!("{k} is at most {MAX_VALUE} characters")));
        }
    }
    let account = single(pairs, "account")?
        .filter(|a| !a.is_empty())
        .ok_or_else(|| AppError::field("account", Rule::Required, "account is required: the exported VAST URL carries it"))?;
    let rt = match single(pairs, "rt")? {
        None => ResponseType::Vast(crate::delivery::vast::Version::V3),
        Some(v) => ResponseType::parse(v).ok_or_else(|| {
            AppError::field("rt", Rule::Enum, format!("rt must be one of vast_2_0, vast_2_0_1, vast_3_0, vast_4_2, vmap_1_0 (got {v:?})"))
        })?,
    };
    let format = match single(pairs, "format")? {
        None => None,
        Some(f) => Some(AdFormat::parse_served(f).ok_or_else(|| {
            AppError::field("format", Rule::Enum, format!("format must be one of preroll, midroll, postroll, pause (got {f:?})"))
        })?),
    };
    let break_number = match single(pairs, "bn")? {
        None => 1,
        Some(b) => b.parse::<u32>().ok().filter(|n| (1..=MAX_BREAK_NUMBER).contains(n)).ok_or_else(|| {
            AppError::field("bn", Rule::Range, format!("bn is the mid-roll break number, 1 to {MAX_BREAK_NUMBER} (got {b:?})"))
        })?,
    };
    let seed = match single(pairs, "seed")? {
        Some(s) => s
            .parse::<u64>()
            .map_err(|_| AppError::field("seed", Rule::Integer, format!("seed must be an unsigned 64-bit integer (got {s:?})")))?,
        None => crate::ids::fast_u64(),
    };
    let own_ip = caller.addr.and_then(|a| match a {
        std::net::IpAddr::V4(v4) => Some(v4),
        std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped(),
    });
    let ip = match single(pairs, "ip")? {
        Some(ip) => {
            let said = ip.parse().map_err(|_| AppError::field("ip", Rule::Ipv4, format!("ip must be an IPv4 address (got {ip:?})")))?;
            if caller.trusted {
                Some(said)
            } else {
                own_ip
            }
        }
        None => own_ip,
    };
    let acp: Vec<(String, String)> = pairs.iter().filter_map(|(k, v)| k.strip_prefix("acp.").map(|n| (n.to_string(), v.clone()))).collect();
    if acp.len() > MAX_ACP {
        return Err(AppError::field("acp", Rule::MaxItems, format!("at most {MAX_ACP} acp.* parameters")));
    }
    let mut r = AdRequest::new(format.unwrap_or(AdFormat::Preroll), now, seed);
    r.break_number = break_number;
    r.category = single(pairs, "category")?.map(str::to_string);
    r.partner = single(pairs, "contentPartner")?.map(str::to_string);
    r.tags = list_param(pairs, "tags", MAX_TAGS)?;
    r.locations = list_param(pairs, "loc", MAX_LOCATIONS)?;
    r.device_container = single(pairs, "dc")?.map(str::to_string);
    r.viewer = single(pairs, "pid")?.filter(|p| !p.is_empty()).map(str::to_string);
    r.user_agent = match (single(pairs, "ua")?, &caller.device_agent) {
        (Some(ua), _) if caller.trusted => ua.chars().take(1024).collect(),
        (_, Some(device)) => device.clone(),
        _ => user_agent(headers).chars().take(1024).collect(),
    };
    r.ip = ip;
    r.acp = acp;
    r.forced_ad = single(pairs, "ad")?.map(str::to_string);
    Ok((AccountId::from(account), rt, format, r))
}

/// The caller as `device_if_stitcher` sees it, for an ad request (its `account` parameter).
async fn from_stitcher(st: &AppState, pairs: &[(String, String)], headers: &HeaderMap, caller: Caller) -> AppResult<Caller> {
    Ok(match single(pairs, "account")? {
        Some(account) if !account.is_empty() => device_if_stitcher(st, &AccountId::from(account), headers, caller).await,
        _ => caller,
    })
}

/// A call from one of the account's registered stitchers speaks for its viewer
/// (`X-Device-IP`, `X-Device-User-Agent`); anyone else's such headers are ignored. Only a
/// call carrying one of them is looked at (no other call costs a read).
async fn device_if_stitcher(st: &AppState, account: &AccountId, headers: &HeaderMap, caller: Caller) -> Caller {
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
    if header("x-device-ip").is_none() && header("x-device-user-agent").is_none() {
        return caller;
    }
    if crate::usecases::stitchers::is_stitcher(st, account, caller.addr, header).await {
        caller.for_device(headers)
    } else {
        caller
    }
}

fn xml_response(body: String) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/xml; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        body,
    )
        .into_response()
}

/// The parameters an ad request reads (besides `acp.<name>`, the account's custom
/// parameters): what the inspector, which takes the same request, accepts.
pub const AD_REQUEST_PARAMS: &[&str] = &[
    "account",
    "rt",
    "format",
    "bn",
    "ad",
    "category",
    "contentPartner",
    "tags",
    "loc",
    "dc",
    "pid",
    "ua",
    "ip",
    "seed",
    "url",
    "bundle",
    "w",
    "h",
    "mimes",
    "gdpr",
    "gdpr_consent",
    "gpp",
    "gpp_sid",
    "us_privacy",
    "rnd",
    "debug",
];

#[utoipa::path(get, path = "/v1/adrequest", tag = "serving", summary = "Request ads: the exported VAST URL (VAST 2/3/4.2, VMAP)",
    params(
        ("account" = String, Query, description = "The account (the exported URL carries it)"),
        ("rt" = Option<String>, Query, description = "vast_2_0, vast_2_0_1, vast_3_0 (default), vast_4_2 (UniversalAdId, AdServingId, the master as Mezzanine), vmap_1_0"),
        ("format" = Option<String>, Query, description = "preroll (default), midroll, postroll, pause"),
        ("bn" = Option<u32>, Query, minimum = 1, maximum = 100, description = "The mid-roll break number"),
        ("ad" = Option<String>, Query, description = "Serve this ad when eligible (the exported URL)"),
        ("category" = Option<String>, Query), ("contentPartner" = Option<String>, Query),
        ("tags" = Option<String>, Query, description = "Comma-separated, at most 50"),
        ("loc" = Option<String>, Query, description = "Location ids, comma-separated, at most 20"),
        ("dc" = Option<String>, Query, description = "Device container"),
        ("pid" = Option<String>, Query, description = "The viewer (frequency caps, audience segments)"),
        ("ua" = Option<String>, Query, description = "User agent, believed from a trusted proxy only (default and otherwise: the header)"),
        ("ip" = Option<String>, Query, description = "IPv4, believed from a trusted proxy only (default and otherwise: the caller's address)"),
        ("seed" = Option<u64>, Query, description = "Makes the decision reproducible"),
        ("url" = Option<String>, Query, description = "The page the player is on (bid requests' site.page), at most 2,048 characters"),
        ("bundle" = Option<String>, Query, description = "The app's bundle id (bid requests then carry app instead of site)"),
        ("w" = Option<u32>, Query, description = "The player's width in pixels (1 to 8192)"),
        ("h" = Option<u32>, Query, description = "The player's height in pixels (1 to 8192)"),
        ("mimes" = Option<String>, Query, description = "What the player plays, comma-separated (default video/mp4,video/webm)"),
        ("gdpr" = Option<u8>, Query, description = "0 or 1: passed to bidders as regs.gdpr"),
        ("gdpr_consent" = Option<String>, Query, description = "The TCF consent string (user.ext.consent), at most 2,048 characters"),
        ("gpp" = Option<String>, Query, description = "The GPP string (regs.gpp), at most 2,048 characters"),
        ("gpp_sid" = Option<String>, Query, description = "GPP section ids, comma-separated (regs.gpp_sid)"),
        ("us_privacy" = Option<String>, Query, description = "The US Privacy string (regs.us_privacy), four characters"),
        ("rnd" = Option<String>, Query, description = "Cache buster (ignored)"),
        ("debug" = Option<String>, Query, description = "1: 307 to /v3/inspect with the same query (the decision explained; needs the account's API key)"),
    ),
    responses((status = 200, description = "A VAST or VMAP document (an empty <VAST> when no ad is eligible)",
        content_type = "application/xml", body = String, example = json!(VAST_EXAMPLE)),
        (status = 307, description = "debug=1: to /v3/inspect with the same query", headers(("Location" = String)))))]
async fn ad_request(Within(st): Within, req: axum::extract::Request) -> AppResult<Response> {
    // The request itself (not a `HeaderMap` extractor, which copies every header).
    let pairs = query_pairs(req.uri().query())?;
    // The debug switch: the same request, explained, for the account's own API key.
    if matches!(single(&pairs, "debug")?, Some("1" | "true")) {
        let location = format!("/v3/inspect?{}", req.uri().query().unwrap_or(""));
        return Ok(
            (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, location.as_str()), (header::CACHE_CONTROL, "no-store")]).into_response()
        );
    }
    let now = st.clock.now();
    let caller =
        from_stitcher(&st, &pairs, req.headers(), client_addr::caller(req.headers(), req.extensions(), &st.settings.trusted_proxies))
            .await?;
    let device_ip = caller.addr;
    let (account, rt, format, request) = read_request(&pairs, req.headers(), caller, now)?;
    let signals = crate::demand::signals::read(&pairs).map_err(AppError::Validation)?;
    // The address the invalid-traffic rules judge (a trusted proxy's `ip=`, else the caller's).
    let device_ip = request.ip.map(std::net::IpAddr::V4).or(device_ip);
    tracing::Span::current().record("account", account.as_str());
    let body = ad_request::serve(&st, ServeAd { account: &account, rt, format, request, signals, device_ip }).await?;
    Ok(xml_response(body))
}

#[utoipa::path(get, path = "/v1/track/{event}", tag = "tracking", summary = "Count a playback event (a served document's signed link)",
    params(("event" = String, Path, description = "impression, start, firstQuartile, midpoint, thirdQuartile, complete, clickThrough, ..."),
        ("a" = String, Query, description = "Account"), ("c" = String, Query, description = "Campaign"), ("g" = String, Query, description = "Goal"),
        ("ad" = String, Query), ("i" = String, Query, description = "Impression id"), ("v" = Option<String>, Query, description = "Viewer"),
        ("ts" = i64, Query, description = "Served at (Unix seconds); links expire"), ("d" = String, Query, description = "Delivered ad format"),
        ("u" = Option<String>, Query, description = "Click destination (clickThrough)"),
        ("k" = Option<String>, Query, description = "The id of the key the link is signed with (keys rotate)"),
        ("s" = String, Query, description = "HMAC-SHA256 signature of all the above but k")),
    responses((status = 204, description = "Counted (once per impression and event)"),
        (status = 302, description = "clickThrough: to the signed destination", headers(("Location" = String)))))]
async fn track(Within(st): Within, Path(event): Path<String>, RawQuery(q): RawQuery, req: axum::extract::Request) -> AppResult<Response> {
    let headers = req.headers();
    let caller = client_addr::caller(headers, req.extensions(), &st.settings.trusted_proxies);
    let counter = Counter::of_event(&event).ok_or_else(|| AppError::NoRoute(format!("/v1/track/{event}")))?;
    let pairs = query_pairs(q.as_deref())?;
    let (token, sig) = Token::from_pairs(&pairs).ok_or_else(|| {
        AppError::field("query", Rule::Required, "a tracking link carries a, c, g, ad, i, ts, d and s; use the links of a served document")
    })?;
    tracing::Span::current().record("account", token.account.as_str());
    let caller = device_if_stitcher(&st, &AccountId::from(token.account.as_str()), headers, caller).await;
    let ua = caller.device_agent.as_deref().unwrap_or_else(|| user_agent(headers));
    let track = Track { event: &event, counter, token: &token, signature: &sig, user_agent: ua, ip: caller.addr, server: caller.stitcher };
    tracking::track(&st, track).await?;
    let cors = (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    Ok(match (&token.click, event.as_str()) {
        (Some(dest), "click") => {
            (StatusCode::FOUND, [(header::LOCATION, dest.as_str()), cors, (header::CACHE_CONTROL, "no-store")]).into_response()
        }
        _ => (StatusCode::NO_CONTENT, [cors, (header::CACHE_CONTROL, "no-store")]).into_response(),
    })
}
