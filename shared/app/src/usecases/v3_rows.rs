//! What the /v3 lists filter and sort on: light rows decoded from the stored records
//! (without their child lists), the filters, and the sort orders, as pure functions.

use crate::wire_enum::wire_enum;
use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{DateTime, Utc};

/// What filtering and sorting read of a campaign: decoded without its goal list, so a
/// query over thousands of campaigns pays for the page it shows, not for every record.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CampaignRow<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    enabled: bool,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    archived_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    deleted_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    start: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    end: Option<DateTime<Utc>>,
    #[serde(default)]
    priority: Option<u8>,
}

impl CampaignRow<'_> {
    pub fn state(&self) -> crate::model::enums::CampaignState {
        crate::model::campaign::state_of(self.archived_at.is_some(), self.enabled)
    }
}

/// What filtering and sorting read of a goal (its ad summaries are skipped).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GoalRow<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    campaign_id: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    goal_value: Option<f64>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    start: DateTime<Utc>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    end: Option<DateTime<Utc>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default)]
    priority: Option<u8>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    deleted_at: Option<DateTime<Utc>>,
}

/// A precomputed sort key (no allocation in the comparator).
#[derive(PartialEq, PartialOrd)]
enum SortKey {
    Num(f64),
    Text(String),
}

/// The filters of `GET /v3/campaigns`.
#[derive(Debug, Default)]
pub struct CampaignFilter {
    pub include_deleted: bool,
    pub states: Vec<crate::model::enums::CampaignState>,
    /// Lower-case substring of the name.
    pub name: Option<String>,
    pub ids: Vec<String>,
    pub started_before: Option<DateTime<Utc>>,
    pub started_after: Option<DateTime<Utc>>,
    pub ended_before: Option<DateTime<Utc>>,
    pub ended_after: Option<DateTime<Utc>>,
}

impl CampaignFilter {
    /// No filter: every live campaign (the page the name index holds).
    pub fn is_none(&self) -> bool {
        let CampaignFilter { include_deleted, states, name, ids, started_before, started_after, ended_before, ended_after } = self;
        !include_deleted
            && states.is_empty()
            && name.is_none()
            && ids.is_empty()
            && [started_before, started_after, ended_before, ended_after].iter().all(|d| d.is_none())
    }
}

/// The campaigns the filter keeps, by name (case-insensitive) then id: indexes into `rows`.
pub fn select_campaigns(rows: &[CampaignRow], f: &CampaignFilter) -> Vec<usize> {
    let mut picked: Vec<(usize, String)> = rows
        .iter()
        .enumerate()
        .filter(|(_, c)| f.include_deleted || c.deleted_at.is_none())
        .filter(|(_, c)| f.states.is_empty() || f.states.contains(&c.state()))
        .filter(|(_, c)| f.name.as_ref().is_none_or(|n| c.name.to_lowercase().contains(n)))
        .filter(|(_, c)| f.ids.is_empty() || f.ids.iter().any(|i| i == &c.id))
        .filter(|(_, c)| {
            f.started_before.is_none_or(|d| c.start.is_some_and(|s| s < d))
                && f.started_after.is_none_or(|d| c.start.is_some_and(|s| s > d))
        })
        .filter(|(_, c)| {
            f.ended_before.is_none_or(|d| c.end.is_some_and(|e| e < d)) && f.ended_after.is_none_or(|d| c.end.is_some_and(|e| e > d))
        })
        .map(|(i, c)| (i, c.name.to_lowercase()))
        .collect();
    picked.sort_by(|(i, x), (j, y)| x.cmp(y).then(rows[*i].id.cmp(&rows[*j].id)));
    picked.into_iter().map(|(i, _)| i).collect()
}

wire_enum! {
    /// The order of `GET /v3/goals` (`sorting=`).
    Sorting {
        Priority = "priority",
        Type = "type",
        Booked = "booked",
        Start = "start",
        End = "end",
        GoalName = "goalName",
        CampaignName = "campaignName",
    }
}

/// The filters and order of `GET /v3/goals`.
#[derive(Debug)]
pub struct GoalFilter {
    pub include_deleted_goals: bool,
    pub include_deleted_campaigns: bool,
    pub states: Vec<crate::model::enums::CampaignState>,
    /// Lower-case substrings of the goal's and the campaign's names.
    pub goal_name: Option<String>,
    pub campaign_name: Option<String>,
    pub started_before: Option<DateTime<Utc>>,
    pub started_after: Option<DateTime<Utc>>,
    pub ended_before: Option<DateTime<Utc>>,
    pub ended_after: Option<DateTime<Utc>>,
    pub sorting: Sorting,
    pub descending: bool,
    /// The account's priority, for goals and campaigns that set none.
    pub global_priority: u8,
}

impl GoalFilter {
    /// Every live goal of a live campaign by goal name (the page the name index holds).
    pub fn by_name_only(&self) -> bool {
        let GoalFilter {
            include_deleted_goals,
            include_deleted_campaigns,
            states,
            goal_name,
            campaign_name,
            started_before,
            started_after,
            ended_before,
            ended_after,
            sorting,
            descending: _,
            global_priority: _,
        } = self;
        !include_deleted_goals
            && !include_deleted_campaigns
            && states.is_empty()
            && goal_name.is_none()
            && campaign_name.is_none()
            && [started_before, started_after, ended_before, ended_after].iter().all(|d| d.is_none())
            && *sorting == Sorting::GoalName
    }
}

/// The goals the filter keeps, in its order (ties by goal id): (goal, campaign) indexes
/// into `goals` and `campaigns`. A goal whose campaign is not among `campaigns` is left out.
pub fn select_goals(goals: &[GoalRow], campaigns: &[CampaignRow], f: &GoalFilter) -> Vec<(usize, usize)> {
    let by_id: HashMap<&str, usize> = campaigns.iter().enumerate().map(|(i, c)| (c.id.as_ref(), i)).collect();
    // Campaign names sort once; a goal sorts by its campaign's rank.
    let mut rank = vec![0usize; campaigns.len()];
    if f.sorting == Sorting::CampaignName {
        let lower: Vec<String> = campaigns.iter().map(|c| c.name.to_lowercase()).collect();
        let mut by_name: Vec<usize> = (0..campaigns.len()).collect();
        by_name.sort_by(|x, y| lower[*x].cmp(&lower[*y]));
        for (r, ci) in by_name.iter().enumerate() {
            rank[*ci] = r;
        }
    }
    let mut picked: Vec<(usize, usize, SortKey)> = goals
        .iter()
        .enumerate()
        .filter_map(|(gi, g)| by_id.get(g.campaign_id.as_ref()).map(|ci| (gi, *ci)))
        .filter(|(gi, ci)| {
            let (g, c) = (&goals[*gi], &campaigns[*ci]);
            (f.include_deleted_goals || g.deleted_at.is_none())
                && (f.include_deleted_campaigns || c.deleted_at.is_none())
                && (f.states.is_empty() || f.states.contains(&c.state()))
                && f.goal_name.as_ref().is_none_or(|n| g.name.as_deref().unwrap_or("").to_lowercase().contains(n))
                && f.campaign_name.as_ref().is_none_or(|n| c.name.to_lowercase().contains(n))
                && f.started_before.is_none_or(|d| g.start < d)
                && f.started_after.is_none_or(|d| g.start > d)
                && f.ended_before.is_none_or(|d| g.end.is_some_and(|e| e < d))
                && f.ended_after.is_none_or(|d| g.end.is_some_and(|e| e > d))
        })
        .map(|(gi, ci)| {
            let (g, c) = (&goals[gi], &campaigns[ci]);
            let key = match f.sorting {
                Sorting::Priority => SortKey::Num(f64::from(g.priority.or(c.priority).unwrap_or(f.global_priority))),
                Sorting::Type => SortKey::Text(g.kind.to_string()),
                Sorting::Booked => SortKey::Num(g.goal_value.unwrap_or(0.0)),
                Sorting::Start => SortKey::Num(g.start.timestamp_millis() as f64),
                Sorting::End => SortKey::Num(g.end.map_or(f64::MAX, |e| e.timestamp_millis() as f64)),
                Sorting::CampaignName => SortKey::Num(rank[ci] as f64),
                Sorting::GoalName => SortKey::Text(g.name.as_deref().unwrap_or("").to_lowercase()),
            };
            (gi, ci, key)
        })
        .collect();
    picked.sort_by(|(gx, _, kx), (gy, _, ky)| {
        let ord = kx.partial_cmp(ky).unwrap_or(std::cmp::Ordering::Equal);
        let ord = if f.descending { ord.reverse() } else { ord };
        ord.then(goals[*gx].id.cmp(&goals[*gy].id))
    });
    picked.into_iter().map(|(gi, ci, _)| (gi, ci)).collect()
}

/// Page `number` (from 1) of `size` of `all`.
pub fn page<T: Clone>(all: &[T], size: usize, number: usize) -> Vec<T> {
    all.iter().skip(offset(size, number)).take(size).cloned().collect()
}

/// How many records come before page `number` (from 1) of `size`.
pub fn offset(size: usize, number: usize) -> usize {
    number.saturating_sub(1).saturating_mul(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaigns() -> Vec<CampaignRow<'static>> {
        let json = r#"[
            {"id":"c1","name":"beta","enabled":true,"start":"2030-01-01T00:00:00Z","end":"2030-02-01T00:00:00Z","priority":3},
            {"id":"c2","name":"Alpha","enabled":false},
            {"id":"c3","name":"alpha","enabled":true,"archivedAt":"2029-01-01T00:00:00Z"},
            {"id":"c4","name":"gone","enabled":true,"deletedAt":"2029-01-01T00:00:00Z"}
        ]"#;
        serde_json::from_str(json).unwrap()
    }

    fn goals() -> Vec<GoalRow<'static>> {
        let json = r#"[
            {"id":"g1","campaignId":"c1","type":"IMPRESSION","goalValue":500,"start":"2030-01-02T00:00:00Z","name":"Zed"},
            {"id":"g2","campaignId":"c2","type":"RTB","start":"2030-01-01T00:00:00Z","name":"amber","priority":9},
            {"id":"g3","campaignId":"c1","type":"SHARE_OF_VOICE","goalValue":0.5,"start":"2030-01-03T00:00:00Z","end":"2030-01-04T00:00:00Z"},
            {"id":"g4","campaignId":"c4","type":"RTB","start":"2030-01-01T00:00:00Z","name":"of a deleted campaign"},
            {"id":"g5","campaignId":"nope","type":"RTB","start":"2030-01-01T00:00:00Z"}
        ]"#;
        serde_json::from_str(json).unwrap()
    }

    fn ids<T>(rows: &[T], picked: &[usize], id: impl Fn(&T) -> &str) -> Vec<String> {
        picked.iter().map(|i| id(&rows[*i]).to_string()).collect()
    }

    #[test]
    fn campaigns_filter_and_sort_by_name_then_id() {
        let rows = campaigns();
        let all = select_campaigns(&rows, &CampaignFilter::default());
        assert_eq!(ids(&rows, &all, |c| &c.id), ["c2", "c3", "c1"], "deleted left out; case-insensitive name, then id");
        let f = CampaignFilter {
            include_deleted: true,
            states: vec![crate::model::enums::CampaignState::Enabled],
            ..CampaignFilter::default()
        };
        assert_eq!(ids(&rows, &select_campaigns(&rows, &f), |c| &c.id), ["c1", "c4"]);
        let f = CampaignFilter {
            name: Some("alp".into()),
            states: vec![crate::model::enums::CampaignState::Archived],
            ..CampaignFilter::default()
        };
        assert_eq!(ids(&rows, &select_campaigns(&rows, &f), |c| &c.id), ["c3"]);
        let d = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        let f = CampaignFilter { started_after: Some(d("2029-12-31T00:00:00Z")), ..CampaignFilter::default() };
        assert_eq!(ids(&rows, &select_campaigns(&rows, &f), |c| &c.id), ["c1"], "no start: not after anything");
    }

    fn filter(sorting: Sorting, descending: bool) -> GoalFilter {
        GoalFilter {
            include_deleted_goals: false,
            include_deleted_campaigns: false,
            states: vec![],
            goal_name: None,
            campaign_name: None,
            started_before: None,
            started_after: None,
            ended_before: None,
            ended_after: None,
            sorting,
            descending,
            global_priority: 5,
        }
    }

    #[test]
    fn goals_sort_orders() {
        let (g, c) = (goals(), campaigns());
        let order = |f: GoalFilter| select_goals(&g, &c, &f).iter().map(|(gi, _)| g[*gi].id.to_string()).collect::<Vec<_>>();
        // Unnamed goals sort first by name; the deleted campaign's goal and the orphan are out.
        assert_eq!(order(filter(Sorting::GoalName, false)), ["g3", "g2", "g1"]);
        // Priority: the goal's own, else its campaign's, else the account's.
        assert_eq!(order(filter(Sorting::Priority, false)), ["g1", "g3", "g2"]);
        assert_eq!(order(filter(Sorting::Priority, true)), ["g2", "g1", "g3"]);
        // No end sorts last; campaign names rank once.
        assert_eq!(order(filter(Sorting::End, false)), ["g3", "g1", "g2"]);
        assert_eq!(order(filter(Sorting::CampaignName, false)), ["g2", "g1", "g3"]);
        assert_eq!(order(filter(Sorting::Booked, true)), ["g1", "g3", "g2"]);
        let mut f = filter(Sorting::Start, false);
        f.include_deleted_campaigns = true;
        assert_eq!(order(f), ["g2", "g4", "g1", "g3"]);
    }

    #[test]
    fn goals_filters() {
        let (g, c) = (goals(), campaigns());
        let mut f = filter(Sorting::GoalName, false);
        f.campaign_name = Some("bet".into());
        assert_eq!(select_goals(&g, &c, &f).len(), 2);
        f.goal_name = Some("ze".into());
        assert_eq!(select_goals(&g, &c, &f), vec![(0, 0)]);
        let mut f = filter(Sorting::GoalName, false);
        f.states = vec![crate::model::enums::CampaignState::Disabled];
        assert_eq!(select_goals(&g, &c, &f), vec![(1, 1)]);
    }
}
