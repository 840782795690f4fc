//! campaignBean (seed 001 §2.1, §3).

use crate::rule::Rule;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::enums::{CampaignGoalType, CampaignState, CampaignStatus, ClientType};

use super::account::Account;
use super::common::*;
use crate::domain_error::{DomainError, FieldError};
use crate::limits::MAX_ID_LEN;
use crate::xml::{BeanReader, Element, XmlOut};

/// Live goals a campaign may hold (each is ~120 bytes of the campaign's record).
pub const MAX_GOALS: usize = 500;
/// Deleted goals the campaign keeps listing (`/v3 includeDeletedGoals`).
pub const MAX_DELETED_GOALS_KEPT: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Campaign {
    pub id: String,
    pub name: String,
    pub advertiser_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agency_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brand_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub enabled: bool,
    pub exclusive: bool,
    /// Set only when the campaign overrides the account's global frontload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front_load_factor: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_type: Option<CampaignGoalType>,
    pub include_in_forecast: bool,
    /// Set only when the campaign overrides the account's global priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    pub vast_enabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub archived_at: Option<DateTime<Utc>>,
    /// `yyyy-mm` of `archived_at` in the account's time zone (the archived list's month).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_month: Option<String>,
    /// Tombstone: deleted campaigns stay for the /v3 queries (`includeDeletedCampaigns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub deleted_at: Option<DateTime<Utc>>,
    /// The campaign's goals and their flights, kept with every goal write.
    #[serde(default)]
    pub goals: Vec<GoalFlight>,
    /// Derived from the goals: earliest goal start, latest goal end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub start: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub end: Option<DateTime<Utc>>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub created: DateTime<Utc>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub modified: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GoalFlight {
    pub id: String,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub start: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub end: Option<DateTime<Utc>>,
    #[serde(default)]
    pub deleted: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CampaignInput {
    pub id: Option<String>,
    pub name: String,
    pub advertiser_id: String,
    pub agency_id: Option<String>,
    pub brand_id: Option<String>,
    pub budget: Option<f64>,
    pub custom_id: Option<String>,
    pub description: Option<String>,
    pub enabled: bool,
    pub exclusive: bool,
    pub front_load_factor: Option<u8>,
    pub goal_total: Option<f64>,
    pub goal_type: Option<CampaignGoalType>,
    pub include_in_forecast: bool,
    pub priority: Option<u8>,
    pub vast_enabled: bool,
    pub status: Option<CampaignStatus>,
}

const FIELDS: &[&str] = &[
    "advertiserId",
    "agencyId",
    "brandId",
    "budget",
    "cpmHigh",
    "cpmLow",
    "customId",
    "description",
    "enabled",
    "start",
    "end",
    "exclusive",
    "frontLoadFactor",
    "goalTotal",
    "goalType",
    "id",
    "includeInForecast",
    "name",
    "priority",
    "status",
    "vastEnabled",
];

/// Frontload factors are 0 to 100 in steps of 10.
pub fn read_frontload(r: &mut BeanReader, name: &str) -> Option<u8> {
    let v = r.int(name, 0, 100)?;
    if v % 10 != 0 {
        r.err(name, Rule::Step, format!("{} must be one of 0, 10, 20, ..., 100 (got {v})", r.at(name)));
        return None;
    }
    Some(v as u8)
}

pub fn parse_bean(el: &Element) -> Result<CampaignInput, DomainError> {
    let mut r = BeanReader::new(el, "campaignBean", FIELDS, &[]);
    let id = r.text("id");
    let name = r.required_max("name", crate::limits::RECORD_NAME_MAX);
    let advertiser_id = r.required_max("advertiserId", MAX_ID_LEN);
    let agency_id = r.text_max("agencyId", MAX_ID_LEN);
    let brand_id = r.text_max("brandId", MAX_ID_LEN);
    let budget = r.value_number("budget", 0.0);
    // cpmHigh, cpmLow, start, end: accepted and ignored (§2.1).
    let custom_id = r.text_max("customId", SHORT_MAX);
    let description = r.text_max("description", TEXT_MAX);
    let enabled = r.bool("enabled").unwrap_or(false);
    let exclusive = r.bool("exclusive").unwrap_or(false);
    let front_load_factor = read_frontload(&mut r, "frontLoadFactor");
    let goal_total = r.number("goalTotal", 0.0);
    let goal_type = r.one_of("goalType", CampaignGoalType::ALL);
    let include_in_forecast = r.bool("includeInForecast").unwrap_or(true);
    let priority = r.int("priority", 1, 10).map(|p| p as u8);
    let status = r.one_of("status", CampaignStatus::ALL);
    let vast_enabled = r.bool("vastEnabled").unwrap_or(false);
    match (name, advertiser_id) {
        (Some(name), Some(advertiser_id)) => CampaignInput {
            id,
            name,
            advertiser_id,
            agency_id,
            brand_id,
            budget,
            custom_id,
            description,
            enabled,
            exclusive,
            front_load_factor,
            goal_total,
            goal_type,
            include_in_forecast,
            priority,
            vast_enabled,
            status,
        }
        .checked_after(r.errors),
        _ => Err(DomainError::Validation(r.errors)),
    }
}

impl CampaignInput {
    /// The campaign's rules over a typed input, whichever wire or form it came from: a
    /// name and an advertiser, within their bounds, a description within its bound and a
    /// priority of 1 to 10. A field that already has an error is not faulted again.
    pub fn check(&self, errors: &mut Vec<FieldError>) {
        let faulted = |errors: &Vec<FieldError>, f: &str| errors.iter().any(|e| e.field == format!("campaignBean/{f}"));
        let bounded = |errors: &mut Vec<FieldError>, f: &str, v: &str, max: usize, required: bool| {
            if faulted(errors, f) {
            } else if required && v.trim().is_empty() {
                errors.push(FieldError::new(format!("campaignBean/{f}"), Rule::Required, format!("campaignBean/{f} is required")));
            } else if v.chars().count() > max {
                errors.push(FieldError::new(
                    format!("campaignBean/{f}"),
                    Rule::MaxLength,
                    format!("campaignBean/{f} is longer than {max} characters"),
                ));
            }
        };
        bounded(errors, "name", &self.name, crate::limits::RECORD_NAME_MAX, true);
        bounded(errors, "advertiserId", &self.advertiser_id, MAX_ID_LEN, true);
        bounded(errors, "description", self.description.as_deref().unwrap_or(""), TEXT_MAX, false);
        if let Some(p) = self.priority.filter(|p| !PRIORITY.contains(p)) {
            if !faulted(errors, "priority") {
                let (lo, hi) = (PRIORITY.start(), PRIORITY.end());
                errors.push(FieldError::new(
                    "campaignBean/priority",
                    Rule::Range,
                    format!("campaignBean/priority must be between {lo} and {hi} (got {p})"),
                ));
            }
        }
    }

    /// The input when its rules pass (with the wire's reading errors, `errors`).
    fn checked_after(self, errors: Vec<FieldError>) -> Result<CampaignInput, DomainError> {
        crate::domain_error::checked(self, errors, CampaignInput::check)
    }

    /// A typed input (a console form's) when its rules pass.
    pub fn checked(self) -> Result<CampaignInput, DomainError> {
        self.checked_after(Vec::new())
    }

    /// The stored campaign as the input that would write it again unchanged: a form changes
    /// the fields it shows and keeps the rest, what it inherits staying inherited.
    pub fn of(c: &Campaign) -> CampaignInput {
        CampaignInput {
            id: Some(c.id.clone()),
            name: c.name.clone(),
            advertiser_id: c.advertiser_id.clone(),
            agency_id: c.agency_id.clone(),
            brand_id: c.brand_id.clone(),
            budget: c.budget,
            custom_id: c.custom_id.clone(),
            description: c.description.clone(),
            enabled: c.enabled,
            exclusive: c.exclusive,
            front_load_factor: c.front_load_factor,
            goal_total: c.goal_total,
            goal_type: c.goal_type,
            include_in_forecast: c.include_in_forecast,
            priority: c.priority,
            vast_enabled: c.vast_enabled,
            status: None,
        }
    }
}

impl Campaign {
    pub fn from_input(id: String, i: &CampaignInput, now: DateTime<Utc>) -> Campaign {
        Campaign {
            id,
            name: i.name.clone(),
            advertiser_id: i.advertiser_id.clone(),
            agency_id: i.agency_id.clone(),
            brand_id: i.brand_id.clone(),
            budget: i.budget,
            custom_id: i.custom_id.clone(),
            description: i.description.clone(),
            enabled: i.enabled,
            exclusive: i.exclusive,
            front_load_factor: i.front_load_factor,
            goal_total: i.goal_total,
            goal_type: i.goal_type,
            include_in_forecast: i.include_in_forecast,
            priority: i.priority,
            vast_enabled: i.vast_enabled,
            archived_at: None,
            archive_month: None,
            deleted_at: None,
            goals: vec![],
            start: None,
            end: None,
            created: now,
            modified: now,
        }
    }

    /// Full replace of the writable fields (PUT); derived and lifecycle fields are kept.
    pub fn replace(&mut self, i: &CampaignInput, now: DateTime<Utc>) {
        let keep = self.clone();
        *self = Campaign::from_input(keep.id.clone(), i, now);
        self.archived_at = keep.archived_at;
        self.archive_month = keep.archive_month;
        self.deleted_at = keep.deleted_at;
        self.goals = keep.goals;
        self.start = keep.start;
        self.end = keep.end;
        self.created = keep.created;
    }

    /// Records a goal's flight (new, changed or deleted) and derives start and end again:
    /// the earliest start and the latest end of the live goals (no end while one has none).
    pub fn set_goal(&mut self, flight: GoalFlight) {
        match self.goals.iter_mut().find(|g| g.id == flight.id) {
            Some(g) => *g = flight,
            None => self.goals.push(flight),
        }
        // The record stays bounded (DynamoDB's 400 KB item): of the deleted goals, the last
        // created MAX_DELETED_GOALS_KEPT stay listed (`/v3 includeDeletedGoals`).
        let mut extra = self.goals.iter().filter(|g| g.deleted).count().saturating_sub(MAX_DELETED_GOALS_KEPT);
        self.goals.retain(|g| {
            let drop = extra > 0 && g.deleted;
            extra -= usize::from(drop);
            !drop
        });
        let live: Vec<&GoalFlight> = self.goals.iter().filter(|g| !g.deleted).collect();
        self.start = live.iter().map(|g| g.start).min();
        self.end = if live.iter().any(|g| g.end.is_none()) { None } else { live.iter().filter_map(|g| g.end).max() };
    }

    /// Whether one more goal fits ([`MAX_GOALS`] live goals a campaign).
    pub fn has_room_for_a_goal(&self) -> bool {
        self.goals.iter().filter(|g| !g.deleted).count() < MAX_GOALS
    }

    pub fn live_goal_ids(&self) -> Vec<String> {
        self.goals.iter().filter(|g| !g.deleted).map(|g| g.id.clone()).collect()
    }

    pub fn is_archived(&self) -> bool {
        self.archived_at.is_some()
    }

    /// ARCHIVED when archived; otherwise derived from the goals' flight (§2.1, §3):
    /// UPCOMING before the first goal starts (or with no goals), ACTIVE while running,
    /// RECENT once the last goal has ended.
    pub fn status(&self, now: DateTime<Utc>) -> CampaignStatus {
        if self.is_archived() {
            return CampaignStatus::Archived;
        }
        match (self.start, self.end) {
            (Some(s), _) if now < s => CampaignStatus::Upcoming,
            (Some(_), Some(e)) if now >= e => CampaignStatus::Recent,
            (Some(_), _) => CampaignStatus::Active,
            (None, _) => CampaignStatus::Upcoming,
        }
    }

    /// Archives the campaign now, in the month of the account's time zone (the archived list).
    pub fn archive(&mut self, a: &Account, now: DateTime<Utc>) {
        use chrono::Datelike;
        let local = now.with_timezone(a.tz());
        self.archived_at = Some(now);
        self.archive_month = Some(format!("{:04}-{:02}", local.year(), local.month()));
    }

    /// Whether a bean's `status` archives the campaign: only ARCHIVED can be set, and an
    /// archived campaign stays archived (§2.1, §3); sending the current status changes nothing.
    pub fn status_move(&self, status: Option<CampaignStatus>, now: DateTime<Utc>) -> Result<bool, DomainError> {
        match status {
            None => Ok(false),
            Some(CampaignStatus::Archived) => Ok(!self.is_archived()),
            Some(s) if self.is_archived() => Err(DomainError::field(
                "campaignBean/status",
                Rule::Archived,
                format!("campaignBean/status: the campaign is archived and cannot be set back to {s}"),
            )),
            Some(s) if s == self.status(now) => Ok(false),
            Some(s) => Err(DomainError::field(
                "campaignBean/status",
                Rule::ReadOnly,
                format!("campaignBean/status {s} is derived from the goals' flight and cannot be set; only ARCHIVED can be set"),
            )),
        }
    }

    /// A new campaign from a bean: its status may only archive it (`status_move`).
    pub fn created(id: String, i: &CampaignInput, a: &Account, now: DateTime<Utc>) -> Result<Campaign, DomainError> {
        let mut c = Campaign::from_input(id, i, now);
        if c.status_move(i.status, now)? {
            c.archive(a, now);
        }
        Ok(c)
    }

    /// This campaign replaced by a bean; a status of ARCHIVED archives it now.
    pub fn updated(&self, i: &CampaignInput, a: &Account, now: DateTime<Utc>) -> Result<Campaign, DomainError> {
        let archive_now = self.status_move(i.status, now)?;
        let mut c = self.clone();
        c.replace(i, now);
        if archive_now {
            c.archive(a, now);
        }
        Ok(c)
    }

    /// `enabled`, `disabled` or `archived` (the `state` filter).
    pub fn state(&self) -> CampaignState {
        state_of(self.is_archived(), self.enabled)
    }

    pub fn effective_priority(&self, a: &Account) -> u8 {
        self.priority.unwrap_or(a.global_priority)
    }

    pub fn effective_frontload(&self, a: &Account) -> u8 {
        self.front_load_factor.unwrap_or(a.global_frontload)
    }

    /// The clients the campaign names, each with its role's field and the type it must
    /// have: `advertiserId` an ADVERTISER, `agencyId` an AGENCY, `brandId` a BRAND.
    pub fn client_roles(&self) -> Vec<(&'static str, ClientType, &str)> {
        let mut out = vec![("advertiserId", ClientType::Advertiser, self.advertiser_id.as_str())];
        if let Some(x) = &self.agency_id {
            out.push(("agencyId", ClientType::Agency, x.as_str()));
        }
        if let Some(x) = &self.brand_id {
            out.push(("brandId", ClientType::Brand, x.as_str()));
        }
        out
    }

    pub fn client_ids(&self) -> Vec<String> {
        let mut v = vec![self.advertiser_id.clone()];
        v.extend(self.agency_id.clone());
        v.extend(self.brand_id.clone());
        v
    }

    pub fn write(&self, o: &mut XmlOut, a: &Account, now: DateTime<Utc>) {
        let ts = |d: DateTime<Utc>| d.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        o.open("campaignBean").leaf("advertiserId", &self.advertiser_id);
        o.leaf_opt("agencyId", self.agency_id.as_ref()).leaf_opt("brandId", self.brand_id.as_ref());
        o.value_opt("budget", self.budget);
        o.leaf_opt("customId", self.custom_id.as_ref()).leaf_opt("description", self.description.as_ref());
        o.leaf("enabled", self.enabled);
        o.leaf_opt("end", self.end.map(ts));
        o.leaf("exclusive", self.exclusive).leaf("frontLoadFactor", self.effective_frontload(a));
        o.leaf_opt("goalTotal", self.goal_total).leaf_opt("goalType", self.goal_type.as_ref());
        o.leaf("id", &self.id).leaf("includeInForecast", self.include_in_forecast).leaf("name", &self.name);
        o.leaf("priority", self.effective_priority(a));
        o.leaf_opt("start", self.start.map(ts));
        o.leaf("status", self.status(now)).leaf("vastEnabled", self.vast_enabled);
        o.close("campaignBean");
    }
}

/// A campaign's state for the `/v3` `campaign.state` filter: `archived` once archived,
/// else `enabled` or `disabled` (the one rule the records and the light list rows use).
pub fn state_of(archived: bool, enabled: bool) -> CampaignState {
    if archived {
        CampaignState::Archived
    } else if enabled {
        CampaignState::Enabled
    } else {
        CampaignState::Disabled
    }
}

/// The rule of a campaign's client references: each names a client of the account with the
/// role's type. `missing` are the roles (field, type, id) that name none.
pub fn unknown_clients(missing: &[(&str, ClientType, &str)]) -> DomainError {
    DomainError::Validation(
        missing
            .iter()
            .map(|(field, kind, id)| {
                crate::domain_error::FieldError::new(
                    format!("campaignBean/{field}"),
                    Rule::Reference,
                    format!("campaignBean/{field}: no {kind} client with id {id} in this account"),
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::parse;
    use chrono::TimeZone;

    fn rules(xml: &str) -> Vec<String> {
        crate::domain_error::rule_list(parse_bean(&parse(xml.as_bytes()).unwrap()))
    }

    fn bean(extra: &str) -> String {
        format!("<campaignBean><name>C</name><advertiserId>a1</advertiserId>{extra}</campaignBean>")
    }

    #[test]
    fn defaults() {
        let i = parse_bean(&parse(bean("").as_bytes()).unwrap()).unwrap();
        assert!(!i.enabled && !i.exclusive && !i.vast_enabled && i.include_in_forecast);
        assert_eq!((i.priority, i.front_load_factor, i.status), (None, None, None));
    }

    #[test]
    fn required_fields() {
        assert_eq!(rules("<campaignBean/>"), vec!["campaignBean/name required", "campaignBean/advertiserId required"]);
    }

    #[test]
    fn ranges_and_enumerations() {
        assert_eq!(rules(&bean("<priority>0</priority>")), vec!["campaignBean/priority range"]);
        assert_eq!(rules(&bean("<priority>11</priority>")), vec!["campaignBean/priority range"]);
        assert!(rules(&bean("<priority>10</priority><frontLoadFactor>100</frontLoadFactor>")).is_empty());
        assert_eq!(rules(&bean("<frontLoadFactor>15</frontLoadFactor>")), vec!["campaignBean/frontLoadFactor step"]);
        assert_eq!(rules(&bean("<frontLoadFactor>110</frontLoadFactor>")), vec!["campaignBean/frontLoadFactor range"]);
        assert_eq!(rules(&bean("<goalType>CPM</goalType>")), vec!["campaignBean/goalType enum"]);
        assert_eq!(rules(&bean("<status>DELETED</status>")), vec!["campaignBean/status enum"]);
        assert_eq!(rules(&bean("<budget><value>-1</value></budget>")), vec!["campaignBean/budget/value range"]);
        assert_eq!(rules(&bean("<enabled>yes</enabled>")), vec!["campaignBean/enabled boolean"]);
        assert_eq!(rules(&bean(&format!("<customId>{}</customId>", "x".repeat(256)))), vec!["campaignBean/customId maxLength"]);
    }

    #[test]
    fn ignored_fields_are_accepted() {
        assert!(rules(&bean("<cpmHigh><value>3</value></cpmHigh><cpmLow><value>1</value></cpmLow><start>x</start><end>y</end>")).is_empty());
    }

    #[test]
    fn derived_status() {
        let now = Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap();
        let i = parse_bean(&parse(bean("").as_bytes()).unwrap()).unwrap();
        let mut c = Campaign::from_input("c".into(), &i, now);
        assert_eq!(c.status(now).as_str(), "UPCOMING");
        c.start = Some(now - chrono::Duration::days(1));
        c.end = Some(now + chrono::Duration::days(1));
        assert_eq!(c.status(now).as_str(), "ACTIVE");
        c.end = Some(now);
        assert_eq!(c.status(now).as_str(), "RECENT");
        c.start = Some(now + chrono::Duration::hours(1));
        c.end = Some(now + chrono::Duration::days(1));
        assert_eq!(c.status(now).as_str(), "UPCOMING");
        c.archived_at = Some(now);
        assert_eq!(c.status(now).as_str(), "ARCHIVED");
        assert_eq!(c.state(), CampaignState::Archived);
    }

    #[test]
    fn flight_follows_the_live_goals() {
        let now = Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap();
        let d = chrono::Duration::days;
        let i = parse_bean(&parse(bean("").as_bytes()).unwrap()).unwrap();
        let mut c = Campaign::from_input("c".into(), &i, now);
        c.set_goal(GoalFlight { id: "a".into(), start: now + d(1), end: Some(now + d(5)), deleted: false });
        c.set_goal(GoalFlight { id: "b".into(), start: now - d(1), end: Some(now + d(2)), deleted: false });
        assert_eq!((c.start, c.end), (Some(now - d(1)), Some(now + d(5))));
        assert_eq!(c.status(now).as_str(), "ACTIVE");
        c.set_goal(GoalFlight { id: "b".into(), start: now - d(1), end: Some(now + d(2)), deleted: true });
        assert_eq!((c.start, c.end), (Some(now + d(1)), Some(now + d(5))));
        assert_eq!(c.status(now).as_str(), "UPCOMING");
        c.set_goal(GoalFlight { id: "z".into(), start: now - d(9), end: None, deleted: false });
        assert_eq!((c.start, c.end), (Some(now - d(9)), None));
        assert_eq!(c.live_goal_ids(), vec!["a".to_string(), "z".to_string()]);
        c.set_goal(GoalFlight { id: "a".into(), start: now - d(9), end: Some(now - d(8)), deleted: true });
        c.set_goal(GoalFlight { id: "z".into(), start: now - d(9), end: Some(now - d(1)), deleted: false });
        assert_eq!(c.status(now).as_str(), "RECENT");
    }

    #[test]
    fn the_goal_list_stays_bounded_through_create_delete_cycles() {
        let now = Utc.with_ymd_and_hms(2026, 6, 15, 12, 0, 0).unwrap();
        let i = parse_bean(&parse(bean("").as_bytes()).unwrap()).unwrap();
        let mut c = Campaign::from_input("c".into(), &i, now);
        c.set_goal(GoalFlight { id: "live".into(), start: now, end: None, deleted: false });
        for n in 0..5000 {
            let id = format!("g{n}");
            c.set_goal(GoalFlight { id: id.clone(), start: now, end: None, deleted: false });
            c.set_goal(GoalFlight { id, start: now, end: None, deleted: true });
        }
        assert_eq!(c.goals.len(), 1 + MAX_DELETED_GOALS_KEPT);
        assert_eq!(c.live_goal_ids(), vec!["live".to_string()]);
        assert_eq!(c.goals.last().map(|g| g.id.as_str()), Some("g4999"), "the last created stay");
        assert!(serde_json::to_string(&c).unwrap().len() < 60_000);
        for n in 1..MAX_GOALS {
            c.set_goal(GoalFlight { id: format!("l{n}"), start: now, end: None, deleted: false });
        }
        assert!(!c.has_room_for_a_goal());
        let full = serde_json::to_string(&c).unwrap().len();
        assert!(full < crate::limits::MAX_ITEM_BYTES / 3, "{full} bytes with every goal");
    }
}
