//! What an ad request tells the bidders beyond the decision's inputs (docs/programmatic.md,
//! "The bid request"): the page or app, the player's size and formats, and the privacy
//! signals, passed on as sent (never interpreted here).

use crate::domain_error::FieldError;
use crate::rule::Rule;

/// The longest `url`, `gdpr_consent` and `gpp` values (the other parameters: 256).
pub const LONG_VALUE_MAX: usize = 2048;
/// `gpp_sid` values and `mimes` at most.
pub const MAX_LIST: usize = 10;
/// Player sizes up to 8K.
pub const MAX_PIXELS: u32 = 8192;

/// The parameters that may be longer than 256 characters.
pub const LONG_PARAMS: &[&str] = &["url", "gdpr_consent", "gpp"];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Signals {
    /// `url`: the page the player is on (web).
    pub page: Option<String>,
    /// `bundle`: the app (then the bid request has `app`, not `site`).
    pub bundle: Option<String>,
    /// `w`, `h`: the player's size.
    pub w: Option<u32>,
    pub h: Option<u32>,
    /// `mimes`: what the player plays (default video/mp4, video/webm).
    pub mimes: Vec<String>,
    /// `gdpr`: 0 or 1.
    pub gdpr: Option<u8>,
    /// `gdpr_consent`: the TCF consent string.
    pub consent: Option<String>,
    pub gpp: Option<String>,
    pub gpp_sid: Vec<u32>,
    /// `us_privacy`: the four-character CCPA string.
    pub us_privacy: Option<String>,
}

/// Reads the signals from an ad request's parameters; every error at once.
pub fn read(pairs: &[(String, String)]) -> Result<Signals, Vec<FieldError>> {
    let mut errors = Vec::new();
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty());
    let mut err = |f: &str, rule: Rule, m: String| errors.push(FieldError::new(f, rule, m));
    let mut s = Signals::default();
    for (k, v) in pairs {
        if LONG_PARAMS.contains(&k.as_str()) && v.len() > LONG_VALUE_MAX {
            err(k, Rule::MaxLength, format!("{k} is at most {LONG_VALUE_MAX} characters"));
        }
    }
    s.page = get("url").map(str::to_string);
    if s.page.as_deref().is_some_and(|u| !(u.starts_with("https://") || u.starts_with("http://"))) {
        err("url", Rule::Url, "url is the page's http(s) URL".into());
    }
    s.bundle = get("bundle").map(str::to_string);
    let mut px = |name: &str| match get(name).map(|v| v.parse::<u32>()) {
        None => None,
        Some(Ok(n)) if (1..=MAX_PIXELS).contains(&n) => Some(n),
        Some(_) => {
            err(name, Rule::Range, format!("{name} is the player's size in pixels, 1 to {MAX_PIXELS}"));
            None
        }
    };
    s.w = px("w");
    s.h = px("h");
    s.mimes = get("mimes").map(|m| m.split(',').filter(|x| !x.is_empty()).map(str::to_string).collect()).unwrap_or_default();
    if s.mimes.len() > MAX_LIST || s.mimes.iter().any(|m| !m.contains('/') || m.len() > 64) {
        err("mimes", Rule::Format, format!("mimes is at most {MAX_LIST} comma-separated MIME types (video/mp4)"));
    }
    s.gdpr = match get("gdpr") {
        None => None,
        Some("0") => Some(0),
        Some("1") => Some(1),
        Some(_) => {
            err("gdpr", Rule::Enum, "gdpr is 0 or 1".into());
            None
        }
    };
    s.consent = get("gdpr_consent").map(str::to_string);
    s.gpp = get("gpp").map(str::to_string);
    match get("gpp_sid").map(|v| v.split(',').map(|x| x.trim().parse::<u32>()).collect::<Result<Vec<u32>, _>>()) {
        None => {}
        Some(Ok(ids)) if ids.len() <= MAX_LIST => s.gpp_sid = ids,
        Some(_) => err("gpp_sid", Rule::Format, format!("gpp_sid is at most {MAX_LIST} comma-separated section ids")),
    }
    s.us_privacy = get("us_privacy").map(str::to_string);
    if s.us_privacy.as_deref().is_some_and(|u| u.len() != 4 || !u.is_ascii()) {
        err("us_privacy", Rule::Format, "us_privacy is the four-character US Privacy string (1YNN)".into());
    }
    if errors.is_empty() {
        Ok(s)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(String, String)> {
        q.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn signals_are_read_and_bounded() {
        let s = read(&pairs("url=https://news.example/a&w=640&h=360&gdpr=1&gdpr_consent=CPx&gpp=DBA&gpp_sid=2,6&us_privacy=1YNN")).unwrap();
        assert_eq!(
            (s.w, s.h, s.gdpr, s.gpp_sid.clone(), s.us_privacy.as_deref()),
            (Some(640), Some(360), Some(1), vec![2, 6], Some("1YNN"))
        );
        let e = read(&pairs("url=ftp://x&w=0&gdpr=2&gpp_sid=a&us_privacy=1&mimes=mp4")).unwrap_err();
        let fields: Vec<&str> = e.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["url", "w", "mimes", "gdpr", "gpp_sid", "us_privacy"]);
    }
}
