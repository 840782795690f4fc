//! Bulk edits (`POST /v1/goals/bulk`, `/v1/ads/bulk`): the body `{ids, set}` and the rules
//! a `set` applies to each record. All or nothing: every record's errors are collected,
//! each named `<kind>s[<id>].<field>`, and nothing is written unless there are none.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::domain_error::{DomainError, FieldError};
use crate::json::ObjReader;
use crate::limits::MAX_TRANSACT_ACTIONS;
use crate::model::ad::Ad;
use crate::model::enums::CapKind;
use crate::model::goal::{Cap, Goal};
use crate::rule::Rule;

/// The most records one bulk request names. Each record and its change record are two of a
/// transaction's 100 writes; a goal's campaign whose flight moves (a start or end in `set`)
/// and an ad's goal (its ad summary) take one more each: see [`check_size`].
pub const MAX_IDS: usize = MAX_TRANSACT_ACTIONS / 2;

/// A bulk body's ids: 1 to [`MAX_IDS`], each once.
fn ids(r: &mut ObjReader<'_>) -> Vec<String> {
    let Some(list) = r.array_opt("ids") else {
        if !r.present("ids") {
            r.err("ids", Rule::Required, "ids is required: the records to change");
        }
        return vec![];
    };
    if list.is_empty() || list.len() > MAX_IDS {
        r.err("ids", Rule::Range, format!("ids holds 1 to {MAX_IDS} ids (got {})", list.len()));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, v) in list.iter().enumerate() {
        match v.as_str() {
            Some(s) if crate::ids::plausible_id(s) && !out.iter().any(|o| o == s) => out.push(s.to_string()),
            Some(s) if out.iter().any(|o| o == s) => r.err(&format!("ids[{i}]"), Rule::Single, format!("ids[{i}]: {s} is given twice")),
            _ => r.err(&format!("ids[{i}]"), Rule::Format, format!("ids[{i}] is a record id")),
        }
    }
    out
}

/// An optional date that `null` removes: `None` absent, `Some(None)` null.
fn date_or_null(r: &mut ObjReader<'_>, name: &str) -> Option<Option<DateTime<Utc>>> {
    if r.is_null(name) {
        return Some(None);
    }
    r.date_time_opt(name).map(Some)
}

/// What a goals bulk edit sets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoalSet {
    pub start: Option<DateTime<Utc>>,
    pub end: Option<Option<DateTime<Utc>>>,
    pub priority: Option<Option<u8>>,
    pub caps: Option<Vec<(Option<CapKind>, f64)>>,
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
    let mut r = ObjReader::new(v, "", &["ids", "set"]);
    let ids = ids(&mut r);
    let mut set = GoalSet::default();
    match r.get("set") {
        None => r.err("set", Rule::Required, "set is required: the fields to change (start, end, priority, caps, enabled)"),
        Some(s) => {
            let mut sr = ObjReader::new(s, "set", &["start", "end", "priority", "caps", "enabled"]);
            set.start = sr.date_time_opt("start");
            set.end = date_or_null(&mut sr, "end");
            set.priority = if sr.is_null("priority") { Some(None) } else { sr.int_opt("priority", 1, 10).map(|p| Some(p as u8)) };
            set.enabled = sr.bool_opt("enabled");
            if sr.is_null("caps") {
                set.caps = Some(vec![]);
            } else if let Some(list) = sr.array_opt("caps") {
                let mut caps = Vec::new();
                for (i, c) in list.iter().enumerate() {
                    let mut cr = ObjReader::new(c, &format!("set.caps[{i}]"), &["type", "value"]);
                    let kind = cr.one_of("type", CapKind::ALL);
                    match cr.f64_opt("value") {
                        Some(v) if v > 0.0 => caps.push((kind, v)),
                        _ => cr.err("value", Rule::Range, format!("set.caps[{i}].value is a positive number")),
                    }
                    sr.errors.append(&mut cr.errors);
                }
                set.caps = Some(caps);
            }
            if sr.errors.is_empty() && set == GoalSet::default() {
                sr.errors.push(FieldError::new("set", Rule::Required, "set names at least one of start, end, priority, caps, enabled"));
            }
            r.errors.append(&mut sr.errors);
        }
    }
    if r.errors.is_empty() {
        Ok((ids, set))
    } else {
        Err(DomainError::Validation(r.errors))
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
        for (kind, value) in caps {
            let Some(k) = kind else { continue };
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

/// What an ads bulk edit sets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdSet {
    pub enabled: Option<bool>,
    pub weight: Option<Option<f64>>,
    pub start: Option<Option<DateTime<Utc>>>,
    pub end: Option<Option<DateTime<Utc>>>,
}

/// `{ids, set: {enabled, weight, start, end}}` (`null` removes a weight or a date: the
/// goal's then apply).
pub fn parse_ads(v: &Value) -> Result<(Vec<String>, AdSet), DomainError> {
    let mut r = ObjReader::new(v, "", &["ids", "set"]);
    let ids = ids(&mut r);
    let mut set = AdSet::default();
    match r.get("set") {
        None => r.err("set", Rule::Required, "set is required: the fields to change (enabled, weight, start, end)"),
        Some(s) => {
            let mut sr = ObjReader::new(s, "set", &["enabled", "weight", "start", "end"]);
            set.enabled = sr.bool_opt("enabled");
            set.weight = if sr.is_null("weight") {
                Some(None)
            } else {
                match sr.f64_opt("weight") {
                    Some(w) if (0.0..=100.0).contains(&w) => Some(Some(w)),
                    Some(w) => {
                        sr.err("weight", Rule::Range, format!("set.weight is 0 to 100 (got {w})"));
                        None
                    }
                    None => None,
                }
            };
            set.start = date_or_null(&mut sr, "start");
            set.end = date_or_null(&mut sr, "end");
            if sr.errors.is_empty() && set == AdSet::default() {
                sr.errors.push(FieldError::new("set", Rule::Required, "set names at least one of enabled, weight, start, end"));
            }
            r.errors.append(&mut sr.errors);
        }
    }
    if r.errors.is_empty() {
        Ok((ids, set))
    } else {
        Err(DomainError::Validation(r.errors))
    }
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
        assert_eq!(bad(json!({"ids": [], "set": {"enabled": true}})), [("ids".to_string(), Rule::Range)]);
        assert_eq!(bad(json!({"ids": ["a", "a"], "set": {"enabled": true}})), [("ids[1]".to_string(), Rule::Single)]);
        assert_eq!(
            bad(json!({"ids": ["a"], "set": {"priority": 11, "name": "x"}})).into_iter().map(|(f, _)| f).collect::<Vec<_>>(),
            ["set.name", "set.priority"]
        );
        assert_eq!(bad(json!({"ids": ["a"], "set": {}})), [("set".to_string(), Rule::Required)]);
        let too_many: Vec<String> = (0..=MAX_IDS).map(|i| format!("g{i}")).collect();
        assert_eq!(bad(json!({"ids": too_many, "set": {"enabled": true}})), [("ids".to_string(), Rule::Range)]);
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
