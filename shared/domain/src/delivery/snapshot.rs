//! The compiled delivery state of one account: what the decision reads, built from the
//! stored records when campaign data changes (`compile` is pure; `load.rs` reads the
//! records). Goals are grouped by ad format and ordered by class (sponsor, share of
//! voice, then priority levels, highest first), so a decision walks only the goals that
//! can fill the break it is asked for.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

pub use super::freq::{window_secs, FreqCap, Scope};
use super::id_key::{id_map, id_prefix, IdMap};
use super::programmatic::Fill;
use super::request::AdRequest;
pub use super::symbols::{AdFormat, Interner, Sym, UNKNOWN};
use super::targeting::{Ignore, Level, Targeting};
use super::verdict::{LeftOut, LeftOutRecord};
use crate::model::account::{Account, Category};
use crate::model::ad::Ad;
use crate::model::asset::Asset;
use crate::model::campaign::Campaign;
use crate::model::enums::{CapKind, Counter, GoalType, GoalVariant, ShowWhen, TrackerEvent};
use crate::model::goal::Goal;
use crate::model::policy::Policy;
use crate::model::rules::{Owner, Parent, Rules};
use crate::model::zone::Zone;

/// A goal's impression and event caps (seed 001 §2.2).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Caps {
    pub total: Option<f64>,
    pub daily: Option<f64>,
    pub hourly: Option<f64>,
    pub daily_event: Option<f64>,
    pub hourly_event: Option<f64>,
}

/// Which counter a goal's delivery is counted in.
pub fn delivered_counter(t: GoalType) -> Counter {
    match t {
        GoalType::FirstQuartile => Counter::FirstQuartile,
        GoalType::SecondQuartile => Counter::Midpoint,
        GoalType::ThirdQuartile => Counter::ThirdQuartile,
        GoalType::Complete => Counter::Complete,
        GoalType::ClickThrough => Counter::ClickThrough,
        GoalType::ShareOfVoice | GoalType::Impression | GoalType::UnlimitedImpression | GoalType::Rtb => Counter::Impression,
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GoalEntry {
    pub id: String,
    pub name: Option<String>,
    pub campaign_id: String,
    pub kind: GoalType,
    pub sponsor: bool,
    /// Share of voice (0-1) of a SHARE_OF_VOICE goal; 0 otherwise.
    pub sov: f64,
    pub priority: u8,
    pub frontload: u8,
    pub start: i64,
    pub end: Option<i64>,
    /// The goal value to pace towards (impression and event goals), `None`: no target.
    pub target: Option<f64>,
    pub caps: Caps,
    pub midroll_breaks: Vec<u32>,
    pub targeting: Targeting,
    pub freq: Vec<FreqCap>,
    /// Ads of each format (indices into `Snapshot::ads`), with their weight shares (§2.3).
    pub ads: [Vec<(u32, f64)>; 4],
    /// Its own ads, an auction, or nothing (docs/programmatic.md).
    pub fill: super::programmatic::Fill,
}

impl GoalEntry {
    /// The decision order of goals, lower first: sponsor (bumper) goals, then share of
    /// voice, then priority 10 → 1. The serving order and the forecast's competition.
    pub fn rank(&self) -> (u8, u8) {
        let class = if self.sponsor {
            0
        } else if self.sov > 0.0 {
            1
        } else {
            2
        };
        (class, 10u8.saturating_sub(self.priority))
    }
}

pub use super::media::{Media, MediaFile};

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct AdEntry {
    pub id: String,
    pub goal: u32,
    pub name: String,
    pub description: Option<String>,
    pub format: AdFormat,
    pub start: i64,
    pub end: Option<i64>,
    pub device_containers: Option<Vec<Sym>>,
    pub duration: Option<u32>,
    pub media: Media,
    pub click: Option<String>,
    /// External trackers: (event, url).
    pub trackers: Vec<(TrackerEvent, String)>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PolicyEntry {
    pub id: String,
    pub tags: Vec<Sym>,
    pub categories: Vec<Sym>,
    /// Kept as its stored JSON in the compiled form (the record omits empty fields, which
    /// a schema-less binary form cannot tell).
    #[serde(with = "as_json")]
    pub policy: Policy,
}

/// The compiled state of one account.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    pub account: String,
    /// The delivery version the records were read at.
    pub version: u64,
    pub built: DateTime<Utc>,
    pub zone: Zone,
    pub syms: Interner,
    /// Category → itself and its ancestors (a rule on a parent covers its children).
    pub lineage: HashMap<Sym, Vec<Sym>>,
    /// The campaigns' targeting levels (a goal's is `Targeting::campaign`); the campaigns
    /// without a rule share one empty level.
    pub campaigns: Vec<Level>,
    pub goals: Vec<GoalEntry>,
    /// Per format: goal indices in decision order (sponsor, share of voice, then by priority).
    pub order: [Vec<u32>; 4],
    /// Per format: where each priority level starts in `order` (non-SOV, non-sponsor part).
    pub levels: [Vec<(usize, usize)>; 4],
    pub ads: Vec<AdEntry>,
    /// Rebuilt from `ads` and `goals` when a compiled form is read (`Snapshot::reindex`).
    #[serde(skip)]
    pub ad_index: HashMap<String, u32>,
    #[serde(skip)]
    pub goal_index: HashMap<String, u32>,
    pub policies: Vec<PolicyEntry>,
    /// Whether any decision can depend on the viewer's record (frequency caps, audience
    /// rules, a policy's minimum time between ads or "after first unique" skip button):
    /// when not, a server does not read it.
    pub needs_viewer: bool,
    /// The stored campaigns, goals and ads that take no request, and why (the inspector's).
    pub left_out: Vec<LeftOutRecord>,
    /// The account's content partners and device containers (reference data): the values
    /// a report keeps (docs/reports.md).
    pub partners: std::collections::HashSet<String>,
    pub device_containers: std::collections::HashSet<String>,
    /// The account's demand partners and marketplaces (docs/programmatic.md).
    pub demand: super::programmatic::Demand,
}

/// The stored records a snapshot is compiled from (`repo::snapshot_load` reads them).
#[derive(Debug, Default, Clone)]
pub struct Input {
    pub account: Option<Account>,
    pub version: u64,
    pub campaigns: Vec<Campaign>,
    pub goals: Vec<Goal>,
    pub ads: Vec<Ad>,
    pub assets: HashMap<String, Asset>,
    /// Rules by owner (a campaign or a goal), in the store's order (by owner), so that the
    /// compile reads them in the goals' order; an owner listed twice takes its last.
    pub rules: Vec<(Owner, Rules)>,
    /// Linked templates' rules by owner.
    pub linked: HashMap<Owner, Vec<Rules>>,
    pub categories: Vec<Category>,
    /// The ids of the account's content partners and device containers.
    pub partners: Vec<String>,
    pub device_containers: Vec<String>,
    /// Policies in ranked order, highest first.
    pub policies: Vec<Policy>,
    /// Where the bucket's objects are served from (`MEDIA_BASE_URL`).
    pub media_base: String,
    /// The account's demand partners and marketplaces.
    pub demand_partners: Vec<crate::model::demand_partner::DemandPartner>,
    pub marketplaces: Vec<crate::model::marketplace::Marketplace>,
}

/// One goal's ads of one format with their explicit weights.
type WeightList = Vec<(u32, Option<f64>)>;

pub use crate::model::ad::weight_shares;

fn caps_of(g: &Goal) -> Caps {
    let mut c = Caps::default();
    for cap in &g.caps {
        let slot = match cap.kind {
            CapKind::TotalCap => &mut c.total,
            CapKind::DailyCap => &mut c.daily,
            CapKind::HourlyCap => &mut c.hourly,
            CapKind::DailyEventCap => &mut c.daily_event,
            CapKind::HourlyEventCap => &mut c.hourly_event,
        };
        *slot = Some(cap.value);
    }
    c
}

/// Compiles an account's records into the decision's state.
pub fn compile(input: Input, built: DateTime<Utc>) -> Snapshot {
    let mut s = compile_unindexed(input, built);
    s.reindex();
    s
}

/// [`compile`] without the id indexes (`ad_index`, `goal_index`): what the compile worker
/// encodes, since the compiled form leaves them out and every reader rebuilds them
/// (`Snapshot::reindex`).
pub fn compile_unindexed(input: Input, built: DateTime<Utc>) -> Snapshot {
    let account = input.account.unwrap_or_else(|| Account {
        id: Default::default(),
        name: String::new(),
        time_zone: "UTC".into(),
        zone: Zone::default(),
        global_priority: 5,
        global_frontload: 0,
        region: None,
        features: Default::default(),
        ad_formats: Vec::new(),
        limits: Default::default(),
        traffic_profile: None,
    });
    let mut syms = Interner::default();
    // An owner's own rules and its linked templates' rules, borrowed (no copy per goal): a
    // campaign's by id, the goals' joined to them in one pass (`join`) below.
    let no_rules = Rules::default();
    let mut campaign_rules: IdMap<&str, (&Rules, &[Rules])> = id_map(input.campaigns.len());
    let (mut goal_own, mut goal_linked) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
    for ((parent, id), r) in &input.rules {
        match parent {
            Parent::Campaign => campaign_rules.entry(id).or_insert((&no_rules, &[])).0 = r,
            Parent::Goal => {
                goal_own.0.push(id.as_str());
                goal_own.1.push(r);
            }
        }
    }
    for ((parent, id), r) in &input.linked {
        match parent {
            Parent::Campaign => campaign_rules.entry(id).or_insert((&no_rules, &[])).1 = r,
            Parent::Goal => {
                goal_linked.0.push(id.as_str());
                goal_linked.1.push(r.as_slice());
            }
        }
    }

    // Category lineage (parents are followed up to 16 levels; cycles stop there).
    let parents: HashMap<&str, &Vec<String>> = input.categories.iter().map(|c| (c.id.as_str(), &c.parents)).collect();
    let mut lineage = HashMap::new();
    for c in &input.categories {
        let mut line = vec![syms.intern(&c.id)];
        let mut frontier: Vec<&str> = parents.get(c.id.as_str()).map(|p| p.iter().map(String::as_str).collect()).unwrap_or_default();
        for _ in 0..16 {
            let mut next = Vec::new();
            for p in frontier {
                let s = syms.intern(p);
                if !line.contains(&s) {
                    line.push(s);
                    next.extend(parents.get(p).map(|v| v.iter().map(String::as_str).collect::<Vec<_>>()).unwrap_or_default());
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        lineage.insert(line[0], line);
    }

    // Campaigns that can deliver: enabled, not archived or deleted.
    // A delivering campaign's slot, record and rule sources (its goals' frequency caps
    // read them), by id.
    let mut campaign_index: IdMap<&str, (u32, &Campaign, &Rules, &[Rules])> = id_map(input.campaigns.len());
    let mut campaigns = Vec::new();
    // The level every campaign without a rule shares (most have none; a level is 480 bytes).
    let mut no_rule: Option<usize> = None;
    let mut left_out = Vec::new();
    for c in input.campaigns.iter().filter(|c| c.deleted_at.is_none()) {
        let why = if !c.enabled {
            Some(LeftOut::CampaignDisabled)
        } else if c.is_archived() {
            Some(LeftOut::CampaignArchived)
        } else {
            None
        };
        if let Some(reason) = why {
            left_out.push(LeftOutRecord { kind: "campaign", id: c.id.clone(), reason });
            continue;
        }
        let (own, links) = campaign_rules.get(c.id.as_str()).copied().unwrap_or((&no_rules, &[]));
        let mut all: Vec<&Rules> = vec![own];
        all.extend(links.iter());
        let level = Level::compile(&all, &mut syms);
        let slot = if level.is_empty() {
            *no_rule.get_or_insert_with(|| {
                campaigns.push(level);
                campaigns.len() - 1
            })
        } else {
            campaigns.push(level);
            campaigns.len() - 1
        };
        campaign_index.insert(c.id.as_str(), (slot as u32, c, own, links));
    }

    let demand = super::programmatic::Demand::compile(&input.demand_partners, &input.marketplaces);
    let mut goals = Vec::with_capacity(input.goals.len());
    // Each goal's campaign and rule sources, in a pass of their own (the campaigns are few;
    // the goals' rules are joined, `join`).
    let ids = || input.goals.iter().map(|g| g.id.as_str());
    let own_at = super::join::positions(goal_own.0.into_iter(), ids());
    let linked_at = super::join::positions(goal_linked.0.into_iter(), ids());
    let goal_refs: Vec<_> = input
        .goals
        .iter()
        .zip(own_at.into_iter().zip(linked_at))
        .map(|(g, (own, linked))| {
            let own = own.map_or(&no_rules, |i| goal_own.1[i as usize]);
            let linked = linked.map_or(&[][..], |i| goal_linked.1[i as usize]);
            (campaign_index.get(g.campaign_id.as_str()).copied(), (own, linked))
        })
        .collect();
    // The records are the compile's own: strings move into the entries, not copied.
    for (g, (campaign, (own, links))) in input.goals.into_iter().zip(goal_refs) {
        if g.deleted_at.is_some() {
            continue;
        }
        let Some((ci, c, crules, clinks)) = campaign else {
            left_out.push(LeftOutRecord { kind: "goal", id: g.id, reason: LeftOut::CampaignNotDelivering });
            continue;
        };
        if !g.enabled {
            left_out.push(LeftOutRecord { kind: "goal", id: g.id, reason: LeftOut::GoalDisabled });
            continue;
        }
        let fill = demand.fill_of(&g);
        if fill == Fill::Nothing {
            left_out.push(LeftOutRecord { kind: "goal", id: g.id, reason: LeftOut::NoMarketplace });
            continue;
        }
        let mut all: Vec<&Rules> = vec![own];
        all.extend(links.iter());
        let level = Level::compile(&all, &mut syms);
        let ignore = Ignore::of(own);
        let mut freq = Vec::new();
        for r in std::iter::once(own).chain(links) {
            FreqCap::append(&mut freq, r, Scope::Goal(&g.id));
        }
        if !own.ignore_parent_frequency_rules {
            for r in std::iter::once(crules).chain(clinks) {
                FreqCap::append(&mut freq, r, Scope::Campaign(&c.id));
            }
        }
        let target = g.pacing_target();
        goals.push(GoalEntry {
            caps: caps_of(&g),
            campaign_id: c.id.clone(),
            kind: g.kind,
            sponsor: g.variant == GoalVariant::Bumper,
            sov: if g.kind == GoalType::ShareOfVoice { g.goal_value.unwrap_or(0.0).clamp(0.0, 1.0) } else { 0.0 },
            priority: g.effective_priority(c, &account),
            frontload: g.effective_frontload(c, &account),
            id: g.id,
            name: g.name,
            start: g.start.timestamp(),
            end: g.end.map(|e| e.timestamp()),
            target,
            midroll_breaks: g.midroll_breaks,
            targeting: Targeting::new(ci, level, ignore),
            freq,
            ads: Default::default(),
            fill,
        });
    }

    // Ads: enabled, with something to play, in a goal that can deliver.
    let mut ads = Vec::with_capacity(input.ads.len());
    // The goals' flights, compact (an ad reads its goal's; the entries are large).
    let flights: Vec<(i64, Option<i64>)> = goals.iter().map(|g| (g.start, g.end)).collect();
    // Each served ad's (goal, format, ad, weight), in input order; grouped by goal below.
    let mut links: Vec<(u32, u8, u32, Option<f64>)> = Vec::with_capacity(input.ads.len());
    // Each ad's goal, joined in a pass of its own (`join`: partitioned past the cache).
    let ad_goals = super::join::positions(goals.iter().map(|g| g.id.as_str()), input.ads.iter().map(|ad| ad.goal_id.as_str()));
    for (ad, ad_goal) in input.ads.into_iter().zip(ad_goals) {
        let mut leave = |reason| left_out.push(LeftOutRecord { kind: "ad", id: ad.id.clone(), reason });
        if !ad.enabled {
            leave(LeftOut::AdDisabled);
            continue;
        }
        let Some(gi) = ad_goal else {
            leave(LeftOut::GoalNotDelivering);
            continue;
        };
        let format = ad.creative.format();
        if format.slot().is_none() {
            leave(LeftOut::Placeholder);
            continue;
        }
        let Some(media) = super::media::media_of(&ad, &input.assets, &input.media_base) else {
            leave(LeftOut::NoMedia(super::media::why_no_media(&ad, &input.assets)));
            continue;
        };
        let (g_start, g_end) = flights[gi as usize];
        let start = ad.start.map_or(g_start, |s| s.timestamp().max(g_start));
        let end = match (ad.end.map(|e| e.timestamp()), g_end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let idx = ads.len() as u32;
        links.push((gi, format.index() as u8, idx, ad.weight));
        ads.push(AdEntry {
            device_containers: ad.device_containers.as_ref().map(|d| d.iter().map(|s| syms.intern(s)).collect()),
            // The probe's length for a video; `estimatedAdDuration` for IPTV and third-party ads.
            duration: media.seconds().or(ad.creative.estimated_ad_duration),
            id: ad.id,
            goal: gi,
            name: ad.name,
            description: ad.description,
            format,
            start,
            end,
            media,
            click: ad.creative.click_destination_uri,
            // Validated on write: a stored tracker names one of the events.
            trackers: ad.external_trackers.into_iter().map(|t| (t.event, t.url)).collect(),
        });
    }
    // Per goal and format, the ads with their explicit weights, in input order: the links
    // grouped by goal with a counting sort (linear, and each goal's lists built in turn).
    let mut starts = vec![0usize; goals.len() + 1];
    for l in &links {
        starts[l.0 as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut grouped: Vec<(u8, u32, Option<f64>)> = vec![(0, 0, None); links.len()];
    let mut next = starts.clone();
    for (gi, f, idx, w) in links {
        grouped[next[gi as usize]] = (f, idx, w);
        next[gi as usize] += 1;
    }
    for (gi, goal) in goals.iter_mut().enumerate() {
        let of_goal = &grouped[starts[gi]..starts[gi + 1]];
        for (f, slot) in goal.ads.iter_mut().enumerate() {
            let list: WeightList = of_goal.iter().filter(|(lf, _, _)| usize::from(*lf) == f).map(|(_, i, w)| (*i, *w)).collect();
            if !list.is_empty() {
                let shares = weight_shares(&list.iter().map(|(_, w)| *w).collect::<Vec<_>>());
                *slot = list.iter().map(|(i, _)| *i).zip(shares).collect();
            }
        }
    }

    // The decision order (`GoalEntry::rank`, id for a stable order), sorted once; each
    // format keeps the goals that take part in it, in that order.
    // Sorted as compact keys (the rank and the id's first 16 bytes), not by reaching into
    // the entries at every comparison; ids sharing those 16 bytes are then ordered whole.
    let mut keyed: Vec<((u8, u8), u128, u32)> = goals.iter().enumerate().map(|(i, g)| (g.rank(), id_prefix(&g.id), i as u32)).collect();
    keyed.sort_unstable();
    for tied in keyed.chunk_by_mut(|x, y| (x.0, x.1) == (y.0, y.1)) {
        if tied.len() > 1 {
            tied.sort_by(|x, y| goals[x.2 as usize].id.cmp(&goals[y.2 as usize].id));
        }
    }
    let ranked: Vec<u32> = keyed.into_iter().map(|k| k.2).collect();
    // What the order reads of each goal, compact (it reads them in rank order, and the
    // entries are large): the formats it takes part in, whether it is of the priority
    // levels (neither sponsor nor share of voice), and its priority.
    let parts: Vec<(u8, bool, u8)> = goals
        .iter()
        .map(|g| {
            // A goal takes part with its own ads, or (programmatic) in every linear break.
            let takes = |f: AdFormat| match g.fill {
                Fill::Ads => !g.ads[f.index()].is_empty(),
                Fill::Auction { .. } => f.insertion_point().is_some(),
                Fill::Nothing => false,
            };
            let formats = AdFormat::SERVED.into_iter().filter(|f| takes(*f)).fold(0u8, |m, f| m | 1 << f.index());
            (formats, !g.sponsor && g.sov == 0.0, g.priority)
        })
        .collect();
    let mut order: [Vec<u32>; 4] = Default::default();
    let mut levels: [Vec<(usize, usize)>; 4] = Default::default();
    for f in AdFormat::SERVED {
        let with_ads: Vec<u32> = ranked.iter().copied().filter(|i| parts[*i as usize].0 & 1 << f.index() != 0).collect();
        let mut lv = Vec::new();
        let mut i = with_ads.iter().position(|g| parts[*g as usize].1).unwrap_or(with_ads.len());
        while i < with_ads.len() {
            let p = parts[with_ads[i] as usize].2;
            let j = i + with_ads[i..].iter().take_while(|g| parts[**g as usize].2 == p).count();
            lv.push((i, j));
            i = j;
        }
        order[f.index()] = with_ads;
        levels[f.index()] = lv;
    }

    let policies: Vec<PolicyEntry> = input
        .policies
        .into_iter()
        .map(|p| PolicyEntry {
            id: p.id.clone().unwrap_or_default(),
            tags: p.tag_rule.one_of.iter().map(|t| syms.intern(t)).collect(),
            categories: p.category_rule.one_of.iter().map(|c| syms.intern(c)).collect(),
            policy: p,
        })
        .collect();

    let needs_viewer = goals.iter().any(|g| !g.freq.is_empty() || g.targeting.needs_audience(&campaigns[g.targeting.campaign as usize]))
        || policies.iter().any(|p| {
            let g = &p.policy.global_settings;
            g.minimum_time_between_ads > 0 || g.skip_button.show_when() == ShowWhen::AfterFirstUnique
        });
    Snapshot {
        account: account.id.to_string(),
        version: input.version,
        built,
        zone: account.zone.clone(),
        syms,
        lineage,
        campaigns,
        goals,
        order,
        levels,
        ads,
        ad_index: HashMap::new(),
        goal_index: HashMap::new(),
        needs_viewer,
        policies,
        left_out,
        partners: input.partners.into_iter().collect(),
        device_containers: input.device_containers.into_iter().collect(),
        demand,
    }
}

/// A report dimension as a link carries it: the value when the account knows it, `~` when
/// it does not (so a caller cannot make up report rows), none when the request sent none.
pub const OTHER: &str = "~";

impl Snapshot {
    /// The request's category, content partner and device container as reports keep them.
    pub fn report_dims<'a>(&self, r: &'a AdRequest) -> super::tracking::RequestDims<'a> {
        let keep = |v: &'a Option<String>, known: &dyn Fn(&str) -> bool| v.as_deref().map(|v| if known(v) { v } else { OTHER });
        super::tracking::RequestDims {
            category: keep(&r.category, &|c| self.lineage.contains_key(&self.syms.get(c))),
            partner: keep(&r.partner, &|p| self.partners.contains(p)),
            device_container: keep(&r.device_container, &|d| self.device_containers.contains(d)),
        }
    }
}

/// A field kept as its JSON text (a record whose serde form omits empty fields, which a
/// schema-less binary form cannot tell apart).
mod as_json {
    pub fn serialize<T: serde::Serialize, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&serde_json::to_string(v).map_err(serde::ser::Error::custom)?)
    }

    pub fn deserialize<'de, T: serde::de::DeserializeOwned, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let text: String = serde::Deserialize::deserialize(d)?;
        serde_json::from_str(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_follow_section_2_3() {
        // Two proportional ads plus one at 50: 25, 25, 50.
        assert_eq!(weight_shares(&[None, None, Some(50.0)]), vec![25.0, 25.0, 50.0]);
        // No explicit weights: equal shares.
        assert_eq!(weight_shares(&[None, None]), vec![50.0, 50.0]);
        // Explicit weights over 100: proportional ads get nothing.
        assert_eq!(weight_shares(&[Some(80.0), Some(40.0), None]), vec![80.0, 40.0, 0.0]);
    }
}
