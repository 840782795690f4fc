//! The served documents: VAST 2.0, 3.0 and 4.2 (one `<Ad>` per pick: InLine with Linear or
//! NonLinear creatives, or a Wrapper around a third-party ticket) and VMAP 1.0 (one
//! AdBreak per break, the VAST inline). An empty break is an empty `<VAST>`.
//!
//! The figures are the media's (docs/media.md): every rendition is a MediaFile with its
//! size, bitrate and codecs, `Duration` is the probe's length (`estimatedAdDuration`, or 30 s,
//! for IPTV and third-party ads), a pause ad's NonLinear is its still's size and image.

use super::decide::{Pick, Skip};
use super::snapshot::{AdEntry, AdFormat, Media, Snapshot};
use super::tracking::{LinkFields, RequestDims};
use crate::model::enums::{ResponseTypeName, TrackerEvent};
use crate::xml::XmlOut;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseType {
    Vast(Version),
    Vmap,
}

/// A VAST version the service writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    V2,
    V3,
    V4_2,
}

impl Version {
    fn label(self) -> &'static str {
        match self {
            Version::V2 => "2.0",
            Version::V3 => "3.0",
            Version::V4_2 => "4.2",
        }
    }
}

impl ResponseType {
    /// `rt` as the export writes it (any case): VAST_2_0, VAST_2_0_1, VAST_3_0, VAST_4_2,
    /// VMAP_1_0.
    pub fn parse(s: &str) -> Option<ResponseType> {
        ResponseTypeName::parse(&s.to_ascii_uppercase()).map(ResponseType::of)
    }

    /// The document a response type names.
    pub fn of(name: ResponseTypeName) -> ResponseType {
        match name {
            ResponseTypeName::Vast20 | ResponseTypeName::Vast201 => ResponseType::Vast(Version::V2),
            ResponseTypeName::Vast30 => ResponseType::Vast(Version::V3),
            ResponseTypeName::Vast42 => ResponseType::Vast(Version::V4_2),
            ResponseTypeName::Vmap10 => ResponseType::Vmap,
        }
    }

    pub fn content_type(self) -> &'static str {
        "application/xml; charset=utf-8"
    }
}

pub const DEFAULT_DURATION: u32 = 30;
/// The size a NonLinear declares when its media has none of its own (not an image).
pub const NON_LINEAR_DEFAULT_SIZE: (u32, u32) = (640, 360);
const AD_SYSTEM: &str = "adserver";

/// Where tracking links point and what signs them.
pub struct Links<'a> {
    pub base: &'a str,
    /// The signing key's id (`k` of every link) and key.
    pub key_id: &'a str,
    pub key: &'a super::tracking::SigningKey,
    pub viewer: Option<&'a str>,
    pub issued: i64,
    /// The request's report dimensions (`Snapshot::report_dims`).
    pub dims: RequestDims<'a>,
}

/// A pick with the impression id its tracking links carry (and, for a programmatic
/// goal's pick, the auction's winning ad).
pub struct Served<'a> {
    pub pick: &'a Pick,
    pub impression: String,
    pub won: Option<&'a super::programmatic::WonAd>,
}

fn hms(secs: u32) -> String {
    format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// `HH:MM:SS.mmm` (a probed length).
fn hms_ms(ms: u64) -> String {
    let secs = u32::try_from(ms / 1000).unwrap_or(u32::MAX);
    format!("{}.{:03}", hms(secs), ms % 1000)
}

fn skip_offset(s: Skip, duration: u32) -> String {
    if s.percent {
        format!("{}%", s.value.clamp(0, 100))
    } else {
        hms(s.value.clamp(0, i64::from(duration)) as u32)
    }
}

/// The VAST event name of an external tracker's event in `version` (`None`: not a
/// tracking event there).
fn vast_event(e: TrackerEvent, version: Version) -> Option<&'static str> {
    use TrackerEvent::*;
    let v3 = version >= Version::V3;
    Some(match e {
        // VAST 4 names the player's growing `playerExpand` and the creative's `adExpand`
        // (2.0 and 3.0: fullscreen, expand).
        Fullscreen if version >= Version::V4_2 => "playerExpand",
        Expand if version >= Version::V4_2 => "adExpand",
        AdStart => "start",
        AdFirstQuartile => "firstQuartile",
        AdMidpoint => "midpoint",
        AdThirdQuartile => "thirdQuartile",
        AdComplete => "complete",
        Mute => "mute",
        Unmute => "unmute",
        Pause => "pause",
        Resume => "resume",
        Rewind => "rewind",
        Fullscreen => "fullscreen",
        Expand => "expand",
        Close if v3 => "closeLinear",
        Close => "close",
        Skip if v3 => "skip",
        // VAST 2 has no skip event; impressions and clicks have their own elements.
        Skip | Impression | ClickThrough => return None,
    })
}

struct AdWriter<'a> {
    s: &'a Snapshot,
    links: &'a Links<'a>,
    /// VAST 3 and later (skip offsets, pods, `skip`/`closeLinear`, `codec`).
    v3: bool,
    version: Version,
    /// The shared query of the last served ad's links (impression id, query).
    common: std::cell::RefCell<(String, String)>,
}

impl AdWriter<'_> {
    /// `<name attrs…>` and the event's signed link, written straight into the document.
    fn link_leaf(&self, o: &mut XmlOut, name: &str, attrs: &[(&str, &str)], served: &Served<'_>, event: &str, click: Option<&str>) {
        // The parameters every link of this served ad shares, encoded once per ad.
        let mut cache = self.common.borrow_mut();
        if cache.0 != served.impression {
            *cache = (served.impression.clone(), self.fields(served, None).common_query("&amp;"));
        }
        let common = &cache.1;
        o.leaf_with(name, attrs, |buf| self.fields(served, click).write_url_xml(buf, self.links.base, event, self.links.key, common));
    }

    fn fields<'b>(&'b self, served: &'b Served<'_>, click: Option<&'b str>) -> LinkFields<'b> {
        // A programmatic ad's links name its demand partner as the ad, and carry its sale.
        let (ad, format, sale) = match served.won {
            Some(w) => (w.sale.partner.as_str(), w.format, Some(&w.sale)),
            None => {
                let ad = &self.s.ads[served.pick.ad as usize];
                (ad.id.as_str(), ad.format, None)
            }
        };
        let g = &self.s.goals[served.pick.goal as usize];
        LinkFields {
            account: &self.s.account,
            campaign: &g.campaign_id,
            goal: &g.id,
            ad,
            impression: &served.impression,
            viewer: self.links.viewer,
            issued: self.links.issued,
            delivered: super::snapshot::delivered_counter(g.kind).as_str(),
            click,
            key: Some(self.links.key_id),
            dims: Some(super::tracking::DimsRef {
                format: format.as_str(),
                category: self.links.dims.category,
                partner: self.links.dims.partner,
                device_container: self.links.dims.device_container,
                sale,
            }),
        }
    }

    fn tracking_events(&self, o: &mut XmlOut, served: &Served<'_>, ad: &AdEntry) {
        let theirs = ad.trackers.iter().filter_map(|(event, url)| Some((vast_event(*event, self.version)?, url.as_str())));
        self.tracking_events_with(o, served, theirs);
    }

    /// This service's five progress links, then `theirs` ((VAST event, url)).
    fn tracking_events_with<'u>(&self, o: &mut XmlOut, served: &Served<'_>, theirs: impl Iterator<Item = (&'u str, &'u str)>) {
        o.open("TrackingEvents");
        for e in ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"] {
            self.link_leaf(o, "Tracking", &[("event", e)], served, e, None);
        }
        for (e, url) in theirs {
            o.leaf_attrs("Tracking", &[("event", e)], url);
        }
        o.close("TrackingEvents");
    }

    /// The impressions; an InLine's carries an `id` (a Wrapper's Impression has none in
    /// VAST 2.0.1 and 3.0).
    fn impressions(&self, o: &mut XmlOut, served: &Served<'_>, ad: &AdEntry, inline: bool) {
        let attrs: &[(&str, &str)] = if inline { &[("id", "adserver")] } else { &[] };
        self.link_leaf(o, "Impression", attrs, served, "impression", None);
        for (_, url) in ad.trackers.iter().filter(|(e, _)| *e == TrackerEvent::Impression) {
            o.leaf("Impression", url);
        }
    }

    fn click_trackers(&self, o: &mut XmlOut, ad: &AdEntry, tag: &str) {
        for (_, url) in ad.trackers.iter().filter(|(e, _)| *e == TrackerEvent::ClickThrough) {
            o.leaf(tag, url);
        }
    }

    /// `<Ad id [sequence]>` (the sequence in a pod, from VAST 3).
    fn open_ad(&self, o: &mut XmlOut, id: &str, sequence: usize, pod: bool) {
        let seq = sequence.to_string();
        let mut attrs = vec![("id", id)];
        if self.v3 && pod {
            attrs.push(("sequence", seq.as_str()));
        }
        o.open_attrs("Ad", &attrs);
    }

    fn ad(&self, o: &mut XmlOut, served: &Served<'_>, sequence: usize, pod: bool) {
        if let Some(won) = served.won {
            return self.won_ad(o, served, won, sequence, pod);
        }
        let ad = &self.s.ads[served.pick.ad as usize];
        self.open_ad(o, &ad.id, sequence, pod);
        let duration = ad.duration.unwrap_or(DEFAULT_DURATION);
        let v4 = self.version >= Version::V4_2;
        match &ad.media {
            Media::ThirdParty { vast_uri } => {
                // VAST 2/3: the tag URI second; 4.x: last (after the common elements and Creatives).
                o.open("Wrapper").leaf("AdSystem", AD_SYSTEM);
                if !v4 {
                    o.leaf("VASTAdTagURI", vast_uri);
                }
                self.impressions(o, served, ad, false);
                o.open("Creatives").open("Creative").open("Linear");
                self.tracking_events(o, served, ad);
                o.open("VideoClicks");
                self.click_trackers(o, ad, "ClickTracking");
                o.close("VideoClicks").close("Linear").close("Creative").close("Creatives");
                if v4 {
                    o.leaf("VASTAdTagURI", vast_uri);
                }
                o.close("Wrapper");
            }
            media => {
                o.open("InLine").leaf("AdSystem", AD_SYSTEM);
                if v4 {
                    // VAST 4.x: the common elements (Impression) first, then AdServingId,
                    // AdTitle, Creatives, Description.
                    self.impressions(o, served, ad, true);
                    o.leaf("AdServingId", &served.impression).leaf("AdTitle", &ad.name);
                } else {
                    o.leaf("AdTitle", &ad.name);
                    if let Some(d) = &ad.description {
                        o.leaf("Description", d);
                    }
                    self.impressions(o, served, ad, true);
                }
                o.open("Creatives").open_attrs("Creative", &[("id", ad.id.as_str()), ("sequence", "1")]);
                if ad.format == AdFormat::Pause {
                    self.non_linear(o, served, ad, media);
                } else {
                    self.linear(o, served, ad, media, duration);
                }
                if v4 {
                    // Required in VAST 4.1+, after the creative: the ad's id in this ad server's registry.
                    o.leaf_attrs("UniversalAdId", &[("idRegistry", AD_SYSTEM)], &ad.id);
                }
                o.close("Creative").close("Creatives");
                if let Some(d) = ad.description.as_ref().filter(|_| v4) {
                    o.leaf("Description", d);
                }
                o.close("InLine");
            }
        }
        o.close("Ad");
    }

    /// `<Linear [skipoffset]>` with its children in the version's order: VAST 2/3
    /// Duration, TrackingEvents, VideoClicks, MediaFiles; VAST 4.x TrackingEvents, Duration,
    /// MediaFiles, VideoClicks.
    fn open_linear(&self, o: &mut XmlOut, skip: Option<Skip>, seconds: u32) {
        match skip.filter(|_| self.v3) {
            Some(s) => o.open_attrs("Linear", &[("skipoffset", skip_offset(s, seconds).as_str())]),
            None => o.open("Linear"),
        };
    }

    fn linear(&self, o: &mut XmlOut, served: &Served<'_>, ad: &AdEntry, media: &Media, duration: u32) {
        self.open_linear(o, served.pick.skip, duration);
        let length = match media {
            Media::Video { duration_ms, .. } => hms_ms(*duration_ms),
            Media::Image { .. } | Media::Iptv(_) | Media::ThirdParty { .. } => hms(duration),
        };
        let v4 = self.version >= Version::V4_2;
        if v4 {
            self.tracking_events(o, served, ad);
            o.leaf("Duration", &length);
            self.media_files(o, media);
        } else {
            o.leaf("Duration", &length);
            self.tracking_events(o, served, ad);
        }
        // VAST 4.2 lists the click trackers before the ClickThrough (2.0 and 3.0 after it).
        o.open("VideoClicks");
        if v4 {
            self.click_trackers(o, ad, "ClickTracking");
        }
        if let Some(dest) = &ad.click {
            self.link_leaf(o, "ClickThrough", &[("id", "adserver")], served, "click", Some(dest));
        }
        if !v4 {
            self.click_trackers(o, ad, "ClickTracking");
        }
        o.close("VideoClicks");
        if !v4 {
            self.media_files(o, media);
        }
        o.close("Linear");
    }

    fn media_files(&self, o: &mut XmlOut, media: &Media) {
        o.open("MediaFiles");
        match media {
            Media::Video { files, mezzanine, .. } => {
                for f in files {
                    self.media_file(o, f);
                }
                if self.version >= Version::V4_2 {
                    let (w, h) = (mezzanine.width.to_string(), mezzanine.height.to_string());
                    let attrs =
                        [("delivery", "progressive"), ("type", mezzanine.mime.as_str()), ("width", w.as_str()), ("height", h.as_str())];
                    o.leaf_attrs("Mezzanine", &attrs, &mezzanine.url);
                }
            }
            Media::Iptv(id) => {
                let attrs = [("delivery", "streaming"), ("type", "video/mp4"), ("width", "1920"), ("height", "1080")];
                o.leaf_attrs("MediaFile", &attrs, &format!("iptv:{id}"));
            }
            // Not written: a third-party ad is a Wrapper, a pause ad a NonLinear.
            Media::ThirdParty { .. } | Media::Image { .. } => {}
        }
        o.close("MediaFiles");
    }

    /// One rendition: its type, size and bitrate (and, from VAST 3, its codecs).
    fn media_file(&self, o: &mut XmlOut, f: &super::media::MediaFile) {
        let (w, h, kbps) = (f.width.to_string(), f.height.to_string(), f.kbps.to_string());
        let mut attrs = vec![
            ("delivery", "progressive"),
            ("type", f.mime.as_str()),
            ("width", w.as_str()),
            ("height", h.as_str()),
            ("bitrate", kbps.as_str()),
        ];
        if self.v3 && !f.codecs.is_empty() {
            attrs.push(("codec", f.codecs.as_str()));
        }
        attrs.push(("scalable", "true"));
        attrs.push(("maintainAspectRatio", "true"));
        o.leaf_attrs("MediaFile", &attrs, &f.url);
    }

    fn non_linear(&self, o: &mut XmlOut, served: &Served<'_>, ad: &AdEntry, media: &Media) {
        o.open("NonLinearAds");
        self.tracking_events(o, served, ad);
        let (w, h) = match media {
            Media::Image { width, height, .. } => (width.to_string(), height.to_string()),
            Media::Video { .. } | Media::Iptv(_) | Media::ThirdParty { .. } => {
                (NON_LINEAR_DEFAULT_SIZE.0.to_string(), NON_LINEAR_DEFAULT_SIZE.1.to_string())
            }
        };
        o.open_attrs("NonLinear", &[("width", w.as_str()), ("height", h.as_str())]);
        if let Media::Image { url, mime, .. } = media {
            o.leaf_attrs("StaticResource", &[("creativeType", mime.as_str())], url);
        }
        if let Some(dest) = &ad.click {
            self.link_leaf(o, "NonLinearClickThrough", &[], served, "click", Some(dest));
        }
        o.close("NonLinear").close("NonLinearAds");
    }
}

/// A `<VAST>` element (no XML declaration) for one break's picks.
/// Writes a `<VAST>` element into `o` (a document's root, or VMAP's `VASTAdData`).
fn write_vast(o: &mut XmlOut, s: &Snapshot, served: &[Served<'_>], version: Version, links: &Links<'_>) {
    if version >= Version::V4_2 {
        o.open_attrs("VAST", &[("version", version.label()), ("xmlns", "http://www.iab.com/VAST")]);
    } else {
        o.open_attrs("VAST", &[("version", version.label())]);
    }
    let w = AdWriter { s, links, v3: version >= Version::V3, version, common: Default::default() };
    for (i, sv) in served.iter().enumerate() {
        w.ad(o, sv, i + 1, served.len() > 1);
    }
    o.close("VAST");
}

const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";

/// A VAST 2.0, 3.0 or 4.2 document.
pub fn vast(s: &Snapshot, served: &[Served<'_>], version: Version, links: &Links<'_>) -> String {
    // Written in one buffer after the declaration (no copy of the document).
    let mut o = XmlOut::fragment();
    o.raw(DECLARATION);
    write_vast(&mut o, s, served, version, links);
    o.finish()
}

/// A VMAP 1.0 document: one AdBreak per break that has ads.
pub fn vmap(s: &Snapshot, breaks: &[(AdFormat, u32, Vec<Served<'_>>)], links: &Links<'_>) -> String {
    let mut o = XmlOut::fragment();
    o.raw(DECLARATION);
    o.open_attrs("vmap:VMAP", &[("xmlns:vmap", "http://www.iab.net/videosuite/vmap"), ("version", "1.0")]);
    for (i, (format, number, served)) in breaks.iter().enumerate() {
        if served.is_empty() {
            continue;
        }
        let (offset, id) = match format {
            AdFormat::Preroll => ("start".to_string(), "preroll".to_string()),
            AdFormat::Postroll => ("end".to_string(), "postroll".to_string()),
            AdFormat::Midroll => (format!("#{number}"), format!("midroll-{number}")),
            AdFormat::Pause => ("start".to_string(), "pause".to_string()),
            AdFormat::Placeholder => continue,
        };
        let kind = if *format == AdFormat::Pause { "nonlinear" } else { "linear" };
        o.open_attrs("vmap:AdBreak", &[("timeOffset", offset.as_str()), ("breakType", kind), ("breakId", id.as_str())]);
        // The AdSource id is an integer (VMAP 1.0 schema): the break's position.
        let source = (i + 1).to_string();
        o.open_attrs("vmap:AdSource", &[("id", source.as_str()), ("allowMultipleAds", "true"), ("followRedirects", "true")]);
        o.open("vmap:VASTAdData");
        write_vast(&mut o, s, served, Version::V3, links);
        o.close("vmap:VASTAdData");
        o.close("vmap:AdSource").close("vmap:AdBreak");
    }
    o.close("vmap:VMAP");
    o.finish()
}

#[path = "vast_won.rs"]
mod won;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::decide::Pick;
    use crate::delivery::snapshot::{compile, Input};
    use crate::delivery::synthetic::{self, ad, campaign, goal};
    use chrono::{Duration, Utc};

    fn snapshot() -> Snapshot {
        let now = Utc::now();
        let g = goal("g", "c", "IMPRESSION", 1e6, now - Duration::days(1), now + Duration::days(1));
        let mut third = ad("third", "g", "preroll", None, now);
        third.creative.kind = crate::model::enums::CreativeType::Thirdparty;
        third.creative.vast_uri = Some("https://partner.example/vast?x=1&y=2".into());
        let mut tracked = ad("tracked", "g", "midroll", None, now);
        tracked.external_trackers = vec![
            crate::model::creative::Tracker {
                id: "t1".into(),
                url: "https://t.example/skip".into(),
                event: crate::model::enums::TrackerEvent::Skip,
            },
            crate::model::creative::Tracker {
                id: "t2".into(),
                url: "https://t.example/click".into(),
                event: crate::model::enums::TrackerEvent::ClickThrough,
            },
        ];
        compile(
            Input {
                account: Some(synthetic::account("acc")),
                campaigns: vec![campaign("c", now)],
                goals: vec![g],
                ads: vec![third, tracked],
                ..Input::default()
            },
            now,
        )
    }

    fn doc(s: &Snapshot, ad: &str, v3: bool, skip: Option<Skip>) -> String {
        doc_in(s, ad, if v3 { Version::V3 } else { Version::V2 }, skip)
    }

    fn doc_in(s: &Snapshot, ad: &str, version: Version, skip: Option<Skip>) -> String {
        let pick = Pick { ad: s.ad_index[ad], goal: 0, skip };
        let links = Links {
            base: "https://api.example",
            key_id: "1",
            key: &super::super::tracking::SigningKey::new(b"k"),
            viewer: None,
            issued: 1,
            dims: Default::default(),
        };
        vast(s, &[Served { pick: &pick, impression: "imp-1".into(), won: None }], version, &links)
    }

    #[test]
    fn third_party_ads_are_wrappers_with_the_ticket() {
        let s = snapshot();
        let d = doc(&s, "third", true, None);
        assert!(
            d.contains("<Wrapper><AdSystem>adserver</AdSystem><VASTAdTagURI>https://partner.example/vast?x=1&amp;y=2</VASTAdTagURI>"),
            "{d}"
        );
        assert!(d.contains("/v1/track/impression?") && !d.contains("<InLine>"), "{d}");
        assert!(d.contains("<Impression>") && !d.contains("<Impression id="), "a Wrapper's Impression has no id: {d}");
    }

    #[test]
    fn skip_offsets_and_events_follow_the_version() {
        let s = snapshot();
        let skip = Some(Skip { value: 25, percent: true });
        let v3 = doc(&s, "tracked", true, skip);
        assert!(
            v3.contains("<Linear skipoffset=\"25%\">") && v3.contains("<Tracking event=\"skip\">https://t.example/skip</Tracking>"),
            "{v3}"
        );
        assert!(v3.contains("<ClickTracking>https://t.example/click</ClickTracking>"), "{v3}");
        let v2 = doc(&s, "tracked", false, skip);
        assert!(v2.contains("<VAST version=\"2.0\">") && v2.contains("<Linear>") && !v2.contains("event=\"skip\""), "{v2}");
        let secs = doc(&s, "tracked", true, Some(Skip { value: 5, percent: false }));
        assert!(secs.contains("skipoffset=\"00:00:05\""), "{secs}");
    }

    #[test]
    fn an_empty_break_is_an_empty_vast_and_vmap_leaves_it_out() {
        let s = snapshot();
        let links = Links {
            base: "https://api.example",
            key_id: "1",
            key: &super::super::tracking::SigningKey::new(b"k"),
            viewer: None,
            issued: 1,
            dims: Default::default(),
        };
        assert_eq!(vast(&s, &[], Version::V3, &links), "<?xml version=\"1.0\" encoding=\"UTF-8\"?><VAST version=\"3.0\"></VAST>");
        let m = vmap(&s, &[(AdFormat::Preroll, 1, Vec::new())], &links);
        assert!(m.ends_with("<vmap:VMAP xmlns:vmap=\"http://www.iab.net/videosuite/vmap\" version=\"1.0\"></vmap:VMAP>"), "{m}");
        assert_eq!(ResponseType::parse("vast_2_0_1"), Some(ResponseType::Vast(Version::V2)));
        assert_eq!(ResponseType::parse("VAST_4_2"), Some(ResponseType::Vast(Version::V4_2)));
        assert_eq!(ResponseType::parse("VAST_4_0"), None);
    }
}
