//! A bid's markup (`adm`): VAST 2, 3 or 4 read with the service's own bounded XML reader,
//! kept only as far as this service serves it again inside its own document
//! (docs/programmatic.md, "Serving the winner"): an InLine linear creative's media files,
//! length, click and the bidder's own trackers, or a Wrapper's tag URI and trackers.

use crate::xml::Element;

/// A bid's markup, at most (bytes).
pub const MAX_ADM_BYTES: usize = 64 * 1024;
/// The most media files, impression, tracking and click-tracking URLs kept from a markup.
pub const MAX_MEDIA_FILES: usize = 10;
pub const MAX_TRACKERS: usize = 20;

/// The tracking events kept from a bidder's markup (VAST 2.0-4.2 linear events).
const EVENTS: &[&str] = &[
    "creativeView",
    "start",
    "firstQuartile",
    "midpoint",
    "thirdQuartile",
    "complete",
    "mute",
    "unmute",
    "pause",
    "resume",
    "rewind",
    "fullscreen",
    "exitFullscreen",
    "skip",
    "closeLinear",
    "close",
];

/// One rendition of the bidder's creative.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaFile {
    pub url: String,
    pub mime: String,
    pub delivery: String,
    pub width: u32,
    pub height: u32,
    pub bitrate: Option<u32>,
    pub codec: Option<String>,
}

/// The bidder's trackers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trackers {
    pub impressions: Vec<String>,
    /// (event, url)
    pub events: Vec<(String, String)>,
    pub click_tracking: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Markup {
    Inline {
        title: Option<String>,
        /// `HH:MM:SS` or `HH:MM:SS.mmm`.
        duration: String,
        media: Vec<MediaFile>,
        click_through: Option<String>,
        trackers: Trackers,
    },
    Wrapper {
        tag_uri: String,
        trackers: Trackers,
    },
}

impl Markup {
    pub fn trackers(&self) -> &Trackers {
        match self {
            Markup::Inline { trackers, .. } | Markup::Wrapper { trackers, .. } => trackers,
        }
    }

    /// The length in whole seconds (a Wrapper's is unknown).
    pub fn seconds(&self) -> Option<u32> {
        let Markup::Inline { duration, .. } = self else { return None };
        let mut parts = duration.split(['.']).next()?.split(':').map(|p| p.parse::<u32>().ok());
        let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
        Some(h * 3600 + m * 60 + s)
    }
}

/// A URL this service writes into its document: http(s), at most `URL_MAX`, no spaces.
fn url(e: &Element) -> Option<String> {
    let v = e.value()?;
    let lower = v.get(..8).unwrap_or(v).to_ascii_lowercase();
    let ok = (lower.starts_with("https://") || lower.starts_with("http://"))
        && v.len() <= crate::limits::URL_MAX
        && !v.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then(|| v.to_string())
}

fn is_duration(d: &str) -> bool {
    let (hms, ms) = d.split_once('.').unwrap_or((d, "000"));
    let p: Vec<&str> = hms.split(':').collect();
    p.len() == 3
        && p.iter().all(|x| x.len() == 2 && x.bytes().all(|b| b.is_ascii_digit()))
        && ms.len() <= 3
        && ms.bytes().all(|b| b.is_ascii_digit())
}

fn trackers(ad: &Element, linear: Option<&Element>) -> Trackers {
    let mut t =
        Trackers { impressions: ad.children_named("Impression").filter_map(url).take(MAX_TRACKERS).collect(), ..Trackers::default() };
    if let Some(l) = linear {
        if let Some(te) = l.child("TrackingEvents") {
            t.events = te
                .children_named("Tracking")
                .filter_map(|e| Some((e.attr("event").filter(|ev| EVENTS.contains(ev))?.to_string(), url(e)?)))
                .take(MAX_TRACKERS)
                .collect();
        }
        if let Some(vc) = l.child("VideoClicks") {
            t.click_tracking = vc.children_named("ClickTracking").filter_map(url).take(MAX_TRACKERS).collect();
        }
    }
    t
}

/// The first linear creative of an InLine or Wrapper.
fn linear(ad: &Element) -> Option<&Element> {
    ad.child("Creatives")?.children_named("Creative").find_map(|c| c.child("Linear"))
}

fn media_file(e: &Element) -> Option<MediaFile> {
    let num = |a: &str| e.attr(a).and_then(|v| v.trim().parse::<u32>().ok());
    let mime = e.attr("type")?.trim().to_ascii_lowercase();
    if !mime.starts_with("video/") && mime != "application/x-mpegurl" && mime != "application/dash+xml" {
        return None;
    }
    Some(MediaFile {
        url: url(e)?,
        mime,
        delivery: match e.attr("delivery").map(str::trim) {
            Some("streaming") => "streaming".into(),
            _ => "progressive".into(),
        },
        width: num("width")?,
        height: num("height")?,
        bitrate: num("bitrate"),
        codec: e.attr("codec").map(str::trim).filter(|c| c.len() <= 64 && c.bytes().all(|b| b.is_ascii_graphic())).map(str::to_string),
    })
}

/// Reads a bid's markup; the error says which rule it breaks.
pub fn parse(adm: &str) -> Result<Markup, String> {
    if adm.len() > MAX_ADM_BYTES {
        return Err(format!("the markup is larger than {MAX_ADM_BYTES} bytes"));
    }
    let root = crate::xml::parse(adm.as_bytes()).map_err(|e| format!("the markup is not XML: {e}"))?;
    if root.name != "VAST" {
        return Err(format!("the markup's root is <{}>, not <VAST>", root.name));
    }
    if !root.attr("version").is_some_and(|v| ["2", "3", "4"].iter().any(|p| v.trim().starts_with(p))) {
        return Err("the markup is not VAST 2, 3 or 4 (its version attribute)".into());
    }
    let ad = root.child("Ad").ok_or("the markup has no <Ad>")?;
    if let Some(inline) = ad.child("InLine") {
        let lin = linear(inline).ok_or("the InLine has no Linear creative")?;
        let duration =
            lin.child("Duration").and_then(Element::value).filter(|d| is_duration(d)).ok_or("the Linear has no valid Duration")?;
        let media: Vec<MediaFile> = lin
            .child("MediaFiles")
            .map(|m| m.children_named("MediaFile").filter_map(media_file).take(MAX_MEDIA_FILES).collect())
            .unwrap_or_default();
        if media.is_empty() {
            return Err("the Linear has no http(s) video MediaFile with its type, width and height".into());
        }
        let click_through = lin.child("VideoClicks").and_then(|v| v.child("ClickThrough")).and_then(url);
        return Ok(Markup::Inline {
            title: inline.child("AdTitle").and_then(Element::value).map(|t| t.chars().take(crate::limits::NAME_MAX).collect()),
            duration: duration.to_string(),
            media,
            click_through,
            trackers: trackers(inline, Some(lin)),
        });
    }
    if let Some(w) = ad.child("Wrapper") {
        let tag_uri = w.child("VASTAdTagURI").and_then(url).ok_or("the Wrapper has no http(s) VASTAdTagURI")?;
        return Ok(Markup::Wrapper { tag_uri, trackers: trackers(w, linear(w)) });
    }
    Err("the <Ad> is neither InLine nor Wrapper".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const INLINE: &str = r#"<?xml version="1.0"?><VAST version="4.2" xmlns="http://www.iab.com/VAST"><Ad id="a1"><InLine>
      <AdSystem>dsp</AdSystem><Impression><![CDATA[https://dsp.example/imp?x=1&y=2]]></Impression><AdTitle>Spring</AdTitle>
      <Creatives><Creative><Linear><Duration>00:00:15.000</Duration>
        <TrackingEvents><Tracking event="start">https://dsp.example/start</Tracking><Tracking event="progress" offset="5">https://dsp.example/p</Tracking></TrackingEvents>
        <VideoClicks><ClickThrough>https://brand.example/</ClickThrough><ClickTracking>https://dsp.example/click</ClickTracking></VideoClicks>
        <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360" bitrate="800">https://cdn.example/a.mp4</MediaFile>
          <MediaFile type="video/mp4" width="640" height="360">file:///etc/passwd</MediaFile></MediaFiles>
      </Linear></Creative></Creatives></InLine></Ad></VAST>"#;

    #[test]
    fn an_inline_keeps_what_is_served_again() {
        let m = parse(INLINE).unwrap();
        let Markup::Inline { title, duration, media, click_through, trackers } = &m else { panic!("{m:?}") };
        assert_eq!((title.as_deref(), duration.as_str(), m.seconds()), (Some("Spring"), "00:00:15.000", Some(15)));
        assert_eq!(media.len(), 1, "only http(s) media: {media:?}");
        assert_eq!((media[0].width, media[0].bitrate), (640, Some(800)));
        assert_eq!(click_through.as_deref(), Some("https://brand.example/"));
        assert_eq!(trackers.impressions, ["https://dsp.example/imp?x=1&y=2"]);
        assert_eq!(trackers.events, [("start".to_string(), "https://dsp.example/start".to_string())], "progress needs an offset: left out");
        assert_eq!(trackers.click_tracking, ["https://dsp.example/click"]);
    }

    #[test]
    fn markup_that_cannot_be_served_is_refused() {
        let wrapper = r#"<VAST version="3.0"><Ad><Wrapper><AdSystem>x</AdSystem><VASTAdTagURI>https://dsp.example/vast</VASTAdTagURI><Impression>https://dsp.example/i</Impression></Wrapper></Ad></VAST>"#;
        assert!(matches!(parse(wrapper), Ok(Markup::Wrapper { .. })));
        for bad in [
            "not xml",
            "<html/>",
            r#"<VAST version="1.0"><Ad><InLine/></Ad></VAST>"#,
            r#"<VAST version="3.0"></VAST>"#,
            r#"<VAST version="3.0"><Ad><InLine><Creatives><Creative><Linear><Duration>15</Duration></Linear></Creative></Creatives></InLine></Ad></VAST>"#,
            r#"<!DOCTYPE x [<!ENTITY a "b">]><VAST version="3.0"/>"#,
            r#"<VAST version="3.0"><Ad><Wrapper><VASTAdTagURI>javascript:alert(1)</VASTAdTagURI></Wrapper></Ad></VAST>"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse(&format!("<VAST version=\"3.0\">{}</VAST>", " ".repeat(MAX_ADM_BYTES))).is_err());
    }
}
