//! What a served ad plays (docs/media.md, "The documents"): the renditions of a transcoded
//! asset with their true sizes, bitrates and length, a pause ad's still, an IPTV creative
//! or a third-party ticket. An ad whose media is not ready has none, and is not served.

use std::collections::HashMap;

use crate::model::ad::Ad;
use crate::model::asset::{Asset, AssetStatus};
use crate::model::enums::CreativeType;

/// One playable file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MediaFile {
    pub url: String,
    pub mime: String,
    /// RFC 6381 codecs (VAST 3 and 4 `codec`); empty when unknown.
    pub codecs: String,
    pub width: u32,
    pub height: u32,
    /// kb/s.
    pub kbps: u64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Media {
    /// A transcoded video: its renditions (best first), its length, and the master (VAST
    /// 4.2's `Mezzanine`, boxed: read by VAST 4.2 only, and inline it doubled every ad's
    /// entry in the snapshot).
    Video { files: Vec<MediaFile>, duration_ms: u64, mezzanine: Box<MediaFile> },
    /// A pause ad's image (the still of its asset).
    Image { url: String, mime: String, width: u32, height: u32 },
    /// An IPTV platform's creative id.
    Iptv(String),
    /// A third-party VAST ticket (served as a Wrapper).
    ThirdParty { vast_uri: String },
}

impl Media {
    /// The length to declare, whole seconds rounded up (time-based breaks), when known.
    pub fn seconds(&self) -> Option<u32> {
        match self {
            Media::Video { duration_ms, .. } => u32::try_from(duration_ms.div_ceil(1000)).ok(),
            Media::Image { .. } | Media::Iptv(_) | Media::ThirdParty { .. } => None,
        }
    }

    /// Rough heap size (the snapshot's).
    pub fn approx_bytes(&self) -> usize {
        let s = |x: &String| x.capacity() + 24;
        let f = |m: &MediaFile| s(&m.url) + s(&m.mime) + s(&m.codecs) + 24;
        match self {
            Media::Video { files, mezzanine, .. } => files.iter().map(f).sum::<usize>() + f(mezzanine),
            Media::Image { url, mime, .. } => s(url) + s(mime),
            Media::Iptv(v) => s(v),
            Media::ThirdParty { vast_uri } => s(vast_uri),
        }
    }
}

fn url(base: &str, key: &str) -> String {
    format!("{}/{key}", base.trim_end_matches('/'))
}

/// The media of an asset that is TRANSCODED (`None` otherwise).
fn video(a: &Asset, base: &str) -> Option<Media> {
    if a.status != AssetStatus::Transcoded || a.renditions.is_empty() {
        return None;
    }
    let probe = a.probe.as_ref()?;
    let files = a
        .renditions
        .iter()
        .map(|r| MediaFile {
            url: url(base, &r.key),
            mime: r.mime.clone(),
            codecs: r.codecs.clone(),
            width: r.width,
            height: r.height,
            kbps: r.bitrate.div_ceil(1000),
        })
        .collect();
    let mezzanine = Box::new(MediaFile {
        url: url(base, a.object_key.as_deref()?),
        mime: a.content_type.clone().unwrap_or_else(|| "video/mp4".into()),
        codecs: String::new(),
        width: probe.width,
        height: probe.height,
        kbps: probe.bitrate.div_ceil(1000),
    });
    Some(Media::Video { files, duration_ms: probe.duration_ms, mezzanine })
}

fn image(a: &Asset, base: &str) -> Option<Media> {
    if a.status != AssetStatus::Transcoded {
        return None;
    }
    let still = a.still.as_ref()?;
    Some(Media::Image { url: url(base, &still.key), mime: "image/jpeg".into(), width: still.width, height: still.height })
}

/// What `ad` plays, when it can play now.
pub fn media_of(ad: &Ad, assets: &HashMap<String, Asset>, base: &str) -> Option<Media> {
    let asset = || assets.get(ad.creative.asset_id.as_deref()?);
    match ad.creative.kind {
        CreativeType::Standard => video(asset()?, base),
        CreativeType::Pause => image(asset()?, base),
        CreativeType::Iptv => ad.creative.video_creative_id.clone().map(Media::Iptv),
        CreativeType::Thirdparty => ad.creative.vast_uri.clone().map(|vast_uri| Media::ThirdParty { vast_uri }),
        // Nothing to play yet.
        CreativeType::Placeholder | CreativeType::SpotPlaceholder | CreativeType::PausePlaceholder | CreativeType::IptvPlaceholder => None,
    }
}

/// Why `ad` has no media now (`media_of` gave none): the inspector's words.
pub fn why_no_media(ad: &Ad, assets: &HashMap<String, Asset>) -> String {
    let needs_asset = matches!(ad.creative.kind, CreativeType::Standard | CreativeType::Pause);
    if !needs_asset {
        return match ad.creative.kind {
            CreativeType::Iptv => "the IPTV creative has no videoCreativeId".into(),
            CreativeType::Thirdparty => "the third-party creative has no vastUri".into(),
            CreativeType::Placeholder | CreativeType::SpotPlaceholder | CreativeType::PausePlaceholder | CreativeType::IptvPlaceholder => {
                "the creative is a placeholder".into()
            }
            CreativeType::Standard | CreativeType::Pause => "the creative needs an asset".into(),
        };
    }
    let Some(id) = ad.creative.asset_id.as_deref() else { return "the creative names no asset (assetId)".into() };
    match assets.get(id) {
        None => format!("asset {id} is not in this account"),
        Some(a) if a.status == AssetStatus::Transcoded => format!("asset {id} is TRANSCODED but has no renditions or still"),
        Some(a) => match &a.failure_reason {
            Some(f) => format!("asset {id} is {}: {f}", crate::wire_enum::WireEnum::as_str(a.status)),
            None => format!("asset {id} is {}", crate::wire_enum::WireEnum::as_str(a.status)),
        },
    }
}
