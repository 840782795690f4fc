//! A won auction's ad in the served document (docs/programmatic.md, "Serving the winner"):
//! the bidder's InLine merged into this service's InLine (its media files, length, click
//! and trackers, after this service's signed links), or its Wrapper's tag URI inside this
//! service's Wrapper. The element order is each version's schema's.

use super::{AdWriter, Served, Version};
use crate::delivery::markup::{Markup, MediaFile, Trackers};
use crate::delivery::programmatic::WonAd;
use crate::xml::XmlOut;

/// The events VAST 2.0 does not have (the markup's others it has).
const NOT_IN_V2: &[&str] = &["skip", "closeLinear", "exitFullscreen"];

/// A bidder markup's event (VAST 2.0/3.0 names) as `version` names it (`None`: it has none).
fn won_event(name: &str, version: Version) -> Option<&str> {
    match (name, version) {
        (e, Version::V2) if NOT_IN_V2.contains(&e) => None,
        ("fullscreen", Version::V4_2) => Some("playerExpand"),
        ("exitFullscreen", Version::V4_2) => Some("playerCollapse"),
        ("expand", Version::V4_2) => Some("adExpand"),
        ("collapse", Version::V4_2) => Some("adCollapse"),
        (e, _) => Some(e),
    }
}

impl AdWriter<'_> {
    pub(super) fn won_ad(&self, o: &mut XmlOut, served: &Served<'_>, won: &WonAd, sequence: usize, pod: bool) {
        self.open_ad(o, &won.ad_id, sequence, pod);
        let v4 = self.version >= Version::V4_2;
        let t = won.markup.trackers();
        match &won.markup {
            Markup::Wrapper { tag_uri, .. } => {
                o.open("Wrapper").leaf("AdSystem", &won.system);
                if !v4 {
                    o.leaf("VASTAdTagURI", tag_uri);
                }
                self.won_impressions(o, served, t, false);
                o.open("Creatives").open("Creative").open("Linear");
                self.won_events(o, served, t);
                self.won_clicks(o, served, None, t);
                o.close("Linear").close("Creative").close("Creatives");
                if v4 {
                    o.leaf("VASTAdTagURI", tag_uri);
                }
                o.close("Wrapper");
            }
            Markup::Inline { title, duration, media, click_through, .. } => {
                let title = title.as_deref().unwrap_or("Programmatic ad");
                o.open("InLine").leaf("AdSystem", &won.system);
                if v4 {
                    self.won_impressions(o, served, t, true);
                    o.leaf("AdServingId", &served.impression).leaf("AdTitle", title);
                } else {
                    o.leaf("AdTitle", title);
                    self.won_impressions(o, served, t, true);
                }
                o.open("Creatives").open_attrs("Creative", &[("id", won.ad_id.as_str()), ("sequence", "1")]);
                self.open_linear(o, served.pick.skip, won.markup.seconds().unwrap_or(super::DEFAULT_DURATION));
                if v4 {
                    self.won_events(o, served, t);
                    o.leaf("Duration", duration);
                    self.won_media(o, media);
                    self.won_clicks(o, served, click_through.as_deref(), t);
                } else {
                    o.leaf("Duration", duration);
                    self.won_events(o, served, t);
                    self.won_clicks(o, served, click_through.as_deref(), t);
                    self.won_media(o, media);
                }
                o.close("Linear");
                if v4 {
                    o.leaf_attrs("UniversalAdId", &[("idRegistry", won.system.as_str())], &won.ad_id);
                }
                o.close("Creative").close("Creatives").close("InLine");
            }
        }
        o.close("Ad");
    }

    /// This service's impression, then the bidder's.
    fn won_impressions(&self, o: &mut XmlOut, served: &Served<'_>, t: &Trackers, inline: bool) {
        let attrs: &[(&str, &str)] = if inline { &[("id", "adserver")] } else { &[] };
        self.link_leaf(o, "Impression", attrs, served, "impression", None);
        for url in &t.impressions {
            o.leaf("Impression", url);
        }
    }

    fn won_events(&self, o: &mut XmlOut, served: &Served<'_>, t: &Trackers) {
        let theirs = t.events.iter().filter_map(|(e, u)| Some((won_event(e, self.version)?, u.as_str())));
        self.tracking_events_with(o, served, theirs);
    }

    /// The click through this service's signed click link (when the bidder has one), then
    /// the bidder's click trackers.
    fn won_clicks(&self, o: &mut XmlOut, served: &Served<'_>, through: Option<&str>, t: &Trackers) {
        // VAST 4.2 lists the click trackers before the ClickThrough (2.0 and 3.0 after it).
        let v4 = self.version >= Version::V4_2;
        o.open("VideoClicks");
        if v4 {
            for url in &t.click_tracking {
                o.leaf("ClickTracking", url);
            }
        }
        if let Some(dest) = through {
            self.link_leaf(o, "ClickThrough", &[("id", "adserver")], served, "click", Some(dest));
        }
        if !v4 {
            for url in &t.click_tracking {
                o.leaf("ClickTracking", url);
            }
        }
        o.close("VideoClicks");
    }

    fn won_media(&self, o: &mut XmlOut, media: &[MediaFile]) {
        o.open("MediaFiles");
        for f in media {
            let (w, h) = (f.width.to_string(), f.height.to_string());
            let kbps = f.bitrate.map(|b| b.to_string());
            let mut attrs =
                vec![("delivery", f.delivery.as_str()), ("type", f.mime.as_str()), ("width", w.as_str()), ("height", h.as_str())];
            if let Some(k) = &kbps {
                attrs.push(("bitrate", k.as_str()));
            }
            if let Some(c) = f.codec.as_deref().filter(|_| self.v3) {
                attrs.push(("codec", c));
            }
            o.leaf_attrs("MediaFile", &attrs, &f.url);
        }
        o.close("MediaFiles");
    }
}
