//! The /v3 query strings: every parameter known, every value checked, field errors
//! collected; the expand/embed/metrics options of each resource.

use crate::rule::Rule;
use chrono::{DateTime, Utc};

use crate::api::error::{AppError, AppResult, FieldError};
use crate::api::{paging, query_pairs, single};
use crate::model::enums::{Metric, WireEnum};

pub fn href(kind: &str, id: &str) -> String {
    format!("/v3/{kind}/{id}")
}
/// The query string, checked: every parameter known, every value valid.
pub struct Params {
    pairs: Vec<(String, String)>,
    pub errors: Vec<FieldError>,
}

impl Params {
    pub fn new(raw: Option<&str>, known: &[&str]) -> AppResult<Params> {
        let pairs = query_pairs(raw)?;
        let mut errors = Vec::new();
        for (k, _) in &pairs {
            if !known.contains(&k.as_str()) {
                errors.push(FieldError::new(
                    k.clone(),
                    Rule::Unknown,
                    format!("unknown query parameter {k} (known: {})", known.join(", ")),
                ));
            }
        }
        Ok(Params { pairs, errors })
    }
    pub fn all(&self, name: &str) -> Vec<String> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .flat_map(|(_, v)| v.split(',').map(|s| s.trim().to_string()))
            .filter(|s| !s.is_empty())
            .collect()
    }
    pub fn one(&mut self, name: &str) -> Option<String> {
        match single(&self.pairs, name) {
            Ok(v) => v.map(str::to_string),
            Err(crate::domain_error::DomainError::Validation(mut e)) => {
                self.errors.append(&mut e);
                None
            }
            Err(_) => None,
        }
    }
    pub fn values_in(&mut self, name: &str, allowed: &[&str]) -> Vec<String> {
        let vals = self.all(name);
        for v in &vals {
            if !allowed.contains(&v.as_str()) {
                self.errors.push(FieldError::new(name, Rule::Enum, format!("{name} must be one of {} (got {v:?})", allowed.join(", "))));
            }
        }
        vals
    }
    /// The values of a closed set (repeatable or comma-separated); each one of its names.
    pub fn enums<T: WireEnum>(&mut self, name: &str) -> Vec<T> {
        let mut out = Vec::new();
        for v in self.all(name) {
            match T::parse(&v) {
                Some(t) => out.push(t),
                None => self.errors.push(FieldError::new(
                    name,
                    Rule::Enum,
                    format!("{name} must be one of {} (got {v:?})", T::NAMES.join(", ")),
                )),
            }
        }
        out
    }

    /// The one value of a closed set, or `default` when absent.
    pub fn one_enum<T: WireEnum>(&mut self, name: &str, default: T) -> T {
        match self.one(name) {
            None => default,
            Some(v) => T::parse(&v).unwrap_or_else(|| {
                self.errors.push(FieldError::new(name, Rule::Enum, format!("{name} must be one of {} (got {v:?})", T::NAMES.join(", "))));
                default
            }),
        }
    }

    pub fn date(&mut self, name: &str) -> Option<DateTime<Utc>> {
        let v = self.one(name)?;
        match DateTime::parse_from_rfc3339(&v) {
            Ok(d) => Some(d.with_timezone(&Utc)),
            Err(_) => {
                self.errors.push(FieldError::new(name, Rule::DateTime, format!("{name} must be an ISO-8601 date-time (got {v:?})")));
                None
            }
        }
    }
    pub fn flag(&mut self, name: &str) -> bool {
        match self.one(name).as_deref() {
            None => false,
            Some("" | "true") => true,
            Some("false") => false,
            Some(v) => {
                self.errors.push(FieldError::new(name, Rule::Boolean, format!("{name} is a flag: true, false or no value (got {v:?})")));
                false
            }
        }
    }
    pub fn paging(&mut self) -> (usize, usize) {
        match paging(&self.pairs) {
            Ok(p) => p,
            Err(AppError::Validation(mut e)) => {
                self.errors.append(&mut e);
                (10, 1)
            }
            Err(_) => (10, 1),
        }
    }
    pub fn finish(self) -> AppResult<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(AppError::Validation(self.errors))
        }
    }
}

/// The metrics `metrics=` names, each one of the level's (`allowed`); none named: all of
/// them.
fn metric_names(p: &mut Params, allowed: &[Metric]) -> Vec<Metric> {
    let mut out = Vec::new();
    for v in p.all("metrics") {
        match Metric::parse(&v).filter(|m| allowed.contains(m)) {
            Some(m) => out.push(m),
            None => {
                let names: Vec<&str> = allowed.iter().map(|m| m.as_str()).collect();
                p.errors.push(FieldError::new("metrics", Rule::Enum, format!("metrics must be one of {} (got {v:?})", names.join(", "))));
            }
        }
    }
    if out.is_empty() {
        allowed.to_vec()
    } else {
        out
    }
}

pub struct CampaignOpts {
    pub expand_goals: bool,
    pub expand_ads: bool,
    pub metrics: Option<Vec<Metric>>,
    pub include_deleted_goals: bool,
}

pub fn campaign_opts(p: &mut Params) -> CampaignOpts {
    let expand = p.values_in("expand", &["goals", "ads"]);
    let expand_goals = expand.iter().any(|e| e == "goals");
    let expand_ads = expand.iter().any(|e| e == "ads");
    if expand_ads && !expand_goals {
        p.errors.push(FieldError::new("expand", Rule::Expand, "expand=ads needs expand=goals on campaigns"));
    }
    let embed = p.values_in("embed", &["metrics"]);
    let names = metric_names(p, Metric::CAMPAIGN);
    let metrics = embed.iter().any(|e| e == "metrics").then_some(names);
    CampaignOpts { expand_goals, expand_ads, metrics, include_deleted_goals: p.flag("includeDeletedGoals") }
}

pub struct GoalOpts {
    pub expand_ads: bool,
    pub metrics: Option<Vec<Metric>>,
    pub projections: bool,
}

pub fn goal_opts(p: &mut Params) -> GoalOpts {
    let expand = p.values_in("expand", &["ads"]);
    let embed = p.values_in("embed", &["metrics", "projections"]);
    let names = metric_names(p, Metric::GOAL);
    GoalOpts {
        expand_ads: !expand.is_empty(),
        metrics: embed.iter().any(|e| e == "metrics").then_some(names),
        projections: embed.iter().any(|e| e == "projections"),
    }
}

pub fn ad_metrics_names(p: &mut Params) -> Option<Vec<Metric>> {
    let embed = p.values_in("embed", &["metrics"]);
    let names = metric_names(p, Metric::AD);
    embed.iter().any(|e| e == "metrics").then_some(names)
}
