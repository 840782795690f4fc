//! Bulk edits (`POST /v1/goals/bulk`, `/v1/ads/bulk`): the body `{ids, set}` and the rules
//! a `set` applies to each record. All or nothing: every record's errors are collected,
//! each named `<kind>s[<id>].<field>`, and nothing is written unless there are none.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use crate::domain_error::{DomainError, FieldError};
use crate::limits::MAX_TRANSACT_ACTIONS;
use crate::model::ad::Ad;
use crate::model::enums::CapKind;
use crate::model::goal::{Cap, Goal};
use crate::rule::Rule;

/// The most records one bulk request names. Each record and its change record are two of a
/// transaction's 100 writes; a goal's campaign whose flight moves (a start or end in `set`)
/// and an ad's goal (its ad summary) take one more each: see [`check_size`].
pub const MAX_IDS: usize = MAX_TRANSACT_ACTIONS / 2;

crate::wire_schema::bounded_list!(
    /// The records a bulk edit changes.
    BulkIds, crate::wire_schema::Id, 1, MAX_IDS
);
crate::wire_schema::bounded_int!(
    /// A goal's priority.
    Priority, 1, 10
);

/// The rule of a bulk body's ids (their count is the schema's): each a record id, once.
fn check_ids(ids: &[String], errors: &mut Vec<FieldError>) {
    for (i, s) in ids.iter().enumerate() {
        if !crate::ids::plausible_id(s) {
            errors.push(FieldError::new(format!("ids[{i}]"), Rule::Format, format!("ids[{i}] is a record id")));
        } else if ids[..i].contains(s) {
            errors.push(FieldError::new(format!("ids[{i}]"), Rule::Single, format!("ids[{i}]: {s} is given twice")));
        }
    }
}

/// The body of `POST /v1/goals/bulk`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalsBulk {
    /// The goals to change, each once.
    #[schema(value_type = BulkIds, inline)]
    pub ids: Vec<String>,
    /// The fields to change: at least one.
    pub set: GoalSet,
}

/// A cap a goals bulk edit sets.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = BulkCap)]
#[serde(deny_unknown_fields)]
pub struct CapSet {
    /// The cap's type; it must apply to each goal's type.
    #[serde(rename = "type")]
    pub kind: CapKind,
    /// A positive number.
    pub value: f64,
}

/// What a goals bulk edit sets.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = BulkGoalSet)]
#[serde(deny_unknown_fields)]
pub struct GoalSet {
    /// The goals' start.
    pub start: Option<DateTime<Utc>>,
    /// The goals' end; `null`: none.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub end: Option<Option<DateTime<Utc>>>,
    /// `null`: the campaign's.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<Priority>, inline)]
    pub priority: Option<Option<u8>>,
    /// The goals' caps in place of theirs; `null` or `[]`: none.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<Vec<CapSet>>)]
    pub caps: Option<Option<Vec<CapSet>>>,
    /// Whether the goals serve.
    pub enabled: Option<bool>,
}

impl GoalSet {
    /// Whether the goals' flights (and so their campaigns) move.
    pub fn moves_flights(&self) -> bool {
        self.start.is_some() || self.end.is_some()
    }
}

/// `{ids, set: {start, end, priority, caps, enabled}}`.
pub fn parse_goals(v: &Value) -> Result<(Vec<String>, GoalSet), DomainError> {
    let body = crate::json::read(v, |b: &mut GoalsBulk, errors| b.check(errors)).map_err(DomainError::Validation)?;
    Ok((body.ids, body.set))
}

impl GoalsBulk {
    /// A goals bulk edit's rules, whichever wire or form it came from: goals each named
    /// once, positive caps, and something to set.
    pub fn check(&self, errors: &mut Vec<FieldError>) {
        check_ids(&self.ids, errors);
        for (i, c) in self.set.caps.iter().flatten().flatten().enumerate() {
            if c.value <= 0.0 {
                errors.push(FieldError::new(
                    format!("set.caps[{i}].value"),
                    Rule::Range,
                    format!("set.caps[{i}].value is a positive number"),
                ));
            }
        }
        if !crate::json::faulted(errors, "ids") {
            if self.ids.is_empty() {
                errors.push(FieldError::new("ids", Rule::Required, "ids names at least one goal"));
            } else if self.ids.len() > MAX_IDS {
                errors.push(FieldError::new("ids", Rule::MaxItems, format!("ids names at most {MAX_IDS} goals (got {})", self.ids.len())));
            }
        }
        if self.set == GoalSet::default() {
            errors.push(FieldError::new("set", Rule::Required, "set names at least one of start, end, priority, caps, enabled"));
        }
    }
}

/// Days a duplicate's dates move, at most either way.
pub const MAX_SHIFT_DAYS: i64 = 3_660;

crate::wire_schema::bounded_int!(
    /// Days a duplicate's dates move.
    ShiftDays, -MAX_SHIFT_DAYS, MAX_SHIFT_DAYS
);

/// The body of `POST /v1/campaigns/{id}/duplicate`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DuplicateBody {
    /// The copy's name; default the original's followed by " (copy)".
    #[schema(value_type = Option<crate::wire_schema::OptionalName>, inline)]
    pub name: Option<String>,
    /// Days every date moves; default 0.
    #[serde(default)]
    #[schema(value_type = Option<ShiftDays>, inline)]
    pub shift_days: i64,
}

/// Parses a duplicate body: every field error at once.
pub fn parse_duplicate(v: &Value) -> Result<DuplicateBody, DomainError> {
    crate::json::read(v, |b: &mut DuplicateBody, errors| b.check(errors)).map_err(DomainError::Validation)
}

impl DuplicateBody {
    /// A duplicate's bounds (the schema's, for a body that did not come through it): the
    /// copy's name and the days every date moves.
    pub fn check(&self, errors: &mut Vec<FieldError>) {
        let max = crate::limits::NAME_MAX;
        if self.name.as_ref().is_some_and(|n| n.chars().count() > max) && !crate::json::faulted(errors, "name") {
            errors.push(FieldError::new("name", Rule::MaxLength, format!("name is longer than {max} characters")));
        }
        if !(-MAX_SHIFT_DAYS..=MAX_SHIFT_DAYS).contains(&self.shift_days) && !crate::json::faulted(errors, "shiftDays") {
            errors.push(FieldError::new(
                "shiftDays",
                Rule::Range,
                format!("shiftDays must be between {} and {MAX_SHIFT_DAYS} (got {})", -MAX_SHIFT_DAYS, self.shift_days),
            ));
        }
    }

    /// A typed body (a console form's) when its rules pass.
    pub fn checked(self) -> Result<DuplicateBody, DomainError> {
        crate::domain_error::checked(self, Vec::new(), DuplicateBody::check)
    }
}

/// A goal with `set` applied, or its errors (each field named `goals[<id>].<field>`). The
/// rules are the goal's own: end after start, a started goal's start, a cap's type.
pub fn apply_goal(g: &Goal, set: &GoalSet, now: DateTime<Utc>) -> Result<Goal, Vec<FieldError>> {
    let at = |f: &str| format!("goals[{}].{f}", g.id);
    let mut errors = Vec::new();
    let mut next = g.clone();
    if let Some(s) = set.start {
        if let Err(e) = crate::model::goal::check_start_update(g, s, now) {
            let msg = e.to_string().replace("goalBean/start", &format!("goal {}'s start", g.id));
            errors.push(FieldError::new(at("start"), Rule::StartRule, msg));
        }
        next.start = s;
    }
    if let Some(e) = set.end {
        next.end = e;
    }
    if next.end.is_some_and(|e| e <= next.start) {
        errors.push(FieldError::new(
            at("end"),
            Rule::AfterStart,
            format!("goal {}'s end must be after its start ({})", g.id, next.start.to_rfc3339()),
        ));
    }
    if let Some(p) = set.priority {
        next.priority = p;
    }
    if let Some(caps) = &set.caps {
        next.caps.clear();
        for CapSet { kind: k, value } in caps.iter().flatten() {
            if !k.applies_to(g.kind) {
                errors.push(FieldError::new(
                    at("caps"),
                    Rule::CapType,
                    format!("a {k} does not apply to goal {} (a {} goal)", g.id, g.kind),
                ));
            } else if next.caps.iter().any(|c| c.kind == *k) {
                errors.push(FieldError::new(at("caps"), Rule::Single, format!("{k} is given twice")));
            } else {
                next.caps.push(Cap { kind: *k, value: *value });
            }
        }
    }
    if let Some(e) = set.enabled {
        next.enabled = e;
    }
    next.modified = now;
    if errors.is_empty() {
        Ok(next)
    } else {
        Err(errors)
    }
}

/// The body of `POST /v1/ads/bulk`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdsBulk {
    /// The ads to change, each once.
    #[schema(value_type = BulkIds, inline)]
    pub ids: Vec<String>,
    /// The fields to change: at least one.
    pub set: AdSet,
}

crate::wire_schema::bounded_number!(
    /// An ad's weight in its goal.
    Weight, 0, 100
);

/// What an ads bulk edit sets (`null` removes a weight or a date: the goal's then apply).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = BulkAdSet)]
#[serde(deny_unknown_fields)]
pub struct AdSet {
    /// Whether the ads serve.
    pub enabled: Option<bool>,
    /// `null`: an even share.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<Weight>, inline)]
    pub weight: Option<Option<f64>>,
    /// `null`: the goal's.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub start: Option<Option<DateTime<Utc>>>,
    /// `null`: the goal's.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub end: Option<Option<DateTime<Utc>>>,
}

/// `{ids, set: {enabled, weight, start, end}}`.
pub fn parse_ads(v: &Value) -> Result<(Vec<String>, AdSet), DomainError> {
    let body = crate::json::read(v, |b: &mut AdsBulk, errors| {
        check_ids(&b.ids, errors);
        if b.set == AdSet::default() {
            errors.push(FieldError::new("set", Rule::Required, "set names at least one of enabled, weight, start, end"));
        }
    })
    .map_err(DomainError::Validation)?;
    Ok((body.ids, body.set))
}

/// An ad with `set` applied (its rules within its goal are checked with the goal's other
/// ads as the whole edit leaves them: `model::ad::check_in_goal`).
pub fn apply_ad(a: &Ad, set: &AdSet, now: DateTime<Utc>) -> Ad {
    let mut next = a.clone();
    if let Some(e) = set.enabled {
        next.enabled = e;
    }
    if let Some(w) = set.weight {
        next.weight = w;
    }
    if let Some(s) = set.start {
        next.start = s;
    }
    if let Some(e) = set.end {
        next.end = e;
    }
    next.modified = now;
    next
}

/// Refuses an edit over one transaction: `records` records with their change records,
/// plus `parents` records they keep in step (campaign flights, goals' ad summaries).
pub fn check_size(kind: &str, records: usize, parents: usize) -> Result<(), DomainError> {
    let writes = 2 * records + parents;
    if writes > MAX_TRANSACT_ACTIONS {
        return Err(DomainError::field(
            "ids",
            Rule::Range,
            format!(
                "{records} {kind}s with their change records and the {parents} records they keep in step are {writes} writes, over the \
                 {MAX_TRANSACT_ACTIONS} of one transaction: send at most {} ids",
                (MAX_TRANSACT_ACTIONS - parents) / 2
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_are_checked_field_by_field() {
        let (ids, set) =
            parse_goals(&json!({"ids": ["a", "b"], "set": {"end": "2030-01-01T00:00:00Z", "priority": 3, "enabled": false}})).unwrap();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!((set.priority, set.enabled, set.moves_flights()), (Some(Some(3)), Some(false), true));
        let bad = |v: Value| match parse_goals(&v) {
            Err(DomainError::Validation(e)) => e.into_iter().map(|e| (e.field, e.rule)).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(bad(json!({"ids": [], "set": {"enabled": true}})), [("ids".to_string(), Rule::Required)]);
        assert_eq!(bad(json!({"ids": ["a", "a"], "set": {"enabled": true}})), [("ids[1]".to_string(), Rule::Single)]);
        assert_eq!(
            bad(json!({"ids": ["a"], "set": {"priority": 11, "name": "x"}})).into_iter().map(|(f, _)| f).collect::<Vec<_>>(),
            ["set.name", "set.priority"]
        );
        assert_eq!(bad(json!({"ids": ["a"], "set": {}})), [("set".to_string(), Rule::Required)]);
        let too_many: Vec<String> = (0..=MAX_IDS).map(|i| format!("g{i}")).collect();
        assert_eq!(bad(json!({"ids": too_many, "set": {"enabled": true}})), [("ids".to_string(), Rule::MaxItems)]);
        assert!(parse_ads(&json!({"ids": ["a"], "set": {"weight": 101}})).is_err());
        assert!(parse_ads(&json!({"ids": ["a"], "set": {"weight": null, "start": null}})).is_ok());
    }

    #[test]
    fn a_transaction_holds_each_record_its_change_and_their_parents() {
        assert!(check_size("goal", 50, 0).is_ok());
        assert!(check_size("goal", 49, 2).is_ok());
        assert!(check_size("goal", 50, 1).is_err());
    }
}
