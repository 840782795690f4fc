//! The reports (seed 002 §2.7) and their SVG charts. Units are rounded to whole requests;
//! a day's total is the sum of its rounded formats, so formats always add up.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value};

use super::request::{AD_FIELDS, CAMPAIGN_FIELDS, GOAL_FIELDS};
use super::simulate::{GoalForecast, Inventory, Series};
use crate::delivery::snapshot::AdFormat;
use crate::model::enums::FormatType;

fn side(series: &BTreeMap<AdFormat, Series>, days: &[String], day_samples: &[u32]) -> Value {
    let mut by_date = Map::new();
    let mut total = 0.0;
    for (d, key) in days.iter().enumerate() {
        let mut formats = Map::new();
        let mut day_total = 0.0;
        let (mut low, mut high) = (0.0, 0.0);
        for (f, s) in series {
            let v = s.value[d].round();
            let (l, h) = s.band(d, day_samples.get(d).copied().unwrap_or(0));
            let Some(name) = FormatType::of(*f) else { continue };
            formats.insert(name.as_str().into(), json!({"total": v}));
            day_total += v;
            low += l;
            high += h;
        }
        total += day_total;
        by_date.insert(key.clone(), json!({"total": day_total, "low": low.round(), "high": high.round(), "inventoryByFormat": formats}));
    }
    json!({"total": total, "inventoryByDate": by_date})
}

/// InventoryForecastResultBean, with a low/high band per day.
pub fn inventory(name: Option<&str>, job: &str, inv: &Inventory, days: &[String], source: &str) -> Value {
    json!({
        "totalInventory": side(&inv.total, days, &inv.day_samples),
        "unusedInventory": side(&inv.unused, days, &inv.day_samples),
        "name": name,
        "jobId": job,
        "trafficSource": source,
    })
}

const RULE_ARRAYS: &[&str] =
    &["locationRules", "tagAndPartnerRules", "categoryRules", "frequencyRules", "ipRules", "userAgentRules", "timeRules"];

/// A targeting object as echoed: every rule array present (empty when unset), templates
/// null when unset.
fn echo_targeting(t: Option<&Value>) -> Value {
    let t = t.and_then(Value::as_object);
    let rules = t.and_then(|t| t.get("targetingRules")).and_then(Value::as_object);
    let mut r = Map::new();
    for k in RULE_ARRAYS {
        r.insert(k.to_string(), rules.and_then(|r| r.get(*k)).cloned().filter(|v| !v.is_null()).unwrap_or_else(|| json!([])));
    }
    r.insert(
        "audienceRules".into(),
        rules.and_then(|r| r.get("audienceRules")).cloned().filter(|v| !v.is_null()).unwrap_or_else(|| json!({})),
    );
    json!({
        "targetingTemplates": t.and_then(|t| t.get("targetingTemplates")).cloned().unwrap_or(Value::Null),
        "targetingRules": r,
        "parentOverrides": t.and_then(|t| t.get("parentOverrides")).cloned().unwrap_or(Value::Null),
    })
}

fn pick(o: Option<&Map<String, Value>>, keys: &[&str]) -> Map<String, Value> {
    keys.iter().map(|k| (k.to_string(), o.and_then(|o| o.get(*k)).cloned().unwrap_or(Value::Null))).collect()
}

/// Names of the booked goals and campaigns, for competing goals.
pub struct Names {
    pub goals: HashMap<String, (Option<String>, String, u8)>,
    pub campaigns: HashMap<String, String>,
}

/// One proposed goal's results.
fn goal_result(
    g: &GoalForecast,
    target: Option<f64>,
    days: &[String],
    day_samples: &[u32],
    competing: &[(String, f64)],
    names: &Names,
) -> Value {
    let delivered = g.delivered.total().round();
    let mut by_date = Map::new();
    for (d, key) in days.iter().enumerate() {
        let (l, h) = g.delivered.band(d, day_samples.get(d).copied().unwrap_or(0));
        by_date.insert(key.clone(), json!({"units": g.delivered.value[d].round(), "low": l.round(), "high": h.round()}));
    }
    let competing: Vec<Value> = competing
        .iter()
        .map(|(id, units)| {
            let (name, campaign, priority) = names.goals.get(id).cloned().unwrap_or((None, String::new(), 0));
            json!({"goalId": id, "goalName": name, "campaignId": campaign, "campaignName": names.campaigns.get(&campaign),
                "priority": priority, "units": units.round()})
        })
        .collect();
    json!({
        "forecastedUnits": delivered,
        "target": target,
        "shareOfTarget": target.filter(|t| *t > 0.0).map(|t| ((delivered / t) * 10_000.0).round() / 100.0),
        "matchedUnits": g.matched.round(),
        "possibleUnits": g.possible.round(),
        "availableUnits": g.available.round(),
        "deliveryByDate": by_date,
        "competingGoals": competing,
    })
}

/// FeasibilityForecastResultBean: the submitted campaign echoed (unset values null, every
/// rule array present), each goal followed by its forecast.
#[allow(clippy::too_many_arguments)]
pub fn campaign(
    echo: &Value,
    job: &str,
    results: &[GoalForecast],
    targets: &[Option<f64>],
    days: &[String],
    day_samples: &[u32],
    competing: &[Vec<(String, f64)>],
    names: &Names,
    source: &str,
) -> Value {
    let c = echo.as_object();
    let scalar: Vec<&str> = CAMPAIGN_FIELDS.iter().copied().filter(|f| *f != "targeting" && *f != "goals").collect();
    let mut out = pick(c, &scalar);
    out.insert("targeting".into(), echo_targeting(c.and_then(|c| c.get("targeting"))));
    let goals = c.and_then(|c| c.get("goals")).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut gout = Vec::new();
    for (i, g) in goals.iter().enumerate() {
        let go = g.as_object();
        let scalar: Vec<&str> = GOAL_FIELDS.iter().copied().filter(|f| *f != "targeting" && *f != "ads").collect();
        let mut e = pick(go, &scalar);
        e.insert("targeting".into(), echo_targeting(go.and_then(|g| g.get("targeting"))));
        let ads: Vec<Value> = go
            .and_then(|g| g.get("ads"))
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|ad| Value::Object(pick(ad.as_object(), AD_FIELDS))).collect())
            .unwrap_or_default();
        e.insert("ads".into(), Value::Array(ads));
        if let Some(r) = results.get(i) {
            let comp = competing.get(i).map(Vec::as_slice).unwrap_or(&[]);
            e.insert("forecast".into(), goal_result(r, targets.get(i).copied().flatten(), days, day_samples, comp, names));
        }
        gout.push(Value::Object(e));
    }
    out.insert("goals".into(), Value::Array(gout));
    out.insert("jobId".into(), json!(job));
    out.insert("trafficSource".into(), json!(source));
    Value::Object(out)
}

/// The report without competing goals (`exclude-competing-goals=true`).
pub fn without_competing(mut report: Value) -> Value {
    if let Some(goals) = report.get_mut("goals").and_then(Value::as_array_mut) {
        for g in goals {
            if let Some(f) = g.get_mut("forecast").and_then(Value::as_object_mut) {
                f.remove("competingGoals");
            }
        }
    }
    report
}

// ---- SVG charts ----

const W: f64 = 760.0;
const H: f64 = 320.0;
const PAD: f64 = 48.0;
const COLORS: &[&str] = &["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn frame(title: &str, max: f64, days: usize, body: &str, legend: &[(String, &str)]) -> String {
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"11\">\
         <title>{}</title><rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\
         <text x=\"{PAD}\" y=\"20\" font-size=\"14\">{}</text>\
         <line x1=\"{PAD}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/><line x1=\"{PAD}\" y1=\"30\" x2=\"{PAD}\" y2=\"{}\" stroke=\"#333\"/>\
         <text x=\"4\" y=\"36\">{}</text><text x=\"4\" y=\"{}\">0</text><text x=\"{PAD}\" y=\"{}\">day 1</text><text x=\"{}\" y=\"{}\">day {days}</text>",
        esc(title),
        esc(title),
        H - PAD,
        W - 10.0,
        H - PAD,
        H - PAD,
        max.round(),
        H - PAD,
        H - PAD + 16.0,
        W - 60.0,
        H - PAD + 16.0
    );
    s.push_str(body);
    for (i, (name, color)) in legend.iter().enumerate() {
        let x = PAD + 10.0 + i as f64 * 130.0;
        s.push_str(&format!(
            "<rect x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{color}\"/><text x=\"{}\" y=\"{}\">{}</text>",
            H - 18.0,
            x + 14.0,
            H - 9.0,
            esc(name)
        ));
    }
    s.push_str("</svg>");
    s
}

fn y(v: f64, max: f64) -> f64 {
    (H - PAD) - (v / max.max(1.0)) * (H - PAD - 30.0)
}

/// Inventory by format per day, stacked bars (from an inventory report).
pub fn inventory_svg(report: &Value) -> String {
    let by_date = report["totalInventory"]["inventoryByDate"].as_object().cloned().unwrap_or_default();
    let days: Vec<&Value> = by_date.values().collect();
    let mut formats: Vec<String> = Vec::new();
    for d in &days {
        for k in d["inventoryByFormat"].as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()).unwrap_or_default() {
            if !formats.contains(&k) {
                formats.push(k);
            }
        }
    }
    let max = days.iter().map(|d| d["total"].as_f64().unwrap_or(0.0)).fold(0.0, f64::max);
    let bw = (W - PAD - 10.0) / days.len().max(1) as f64;
    let mut body = String::new();
    for (d, day) in days.iter().enumerate() {
        let mut acc = 0.0;
        for (i, f) in formats.iter().enumerate() {
            let v = day["inventoryByFormat"][f]["total"].as_f64().unwrap_or(0.0);
            let (top, bottom) = (y(acc + v, max), y(acc, max));
            body.push_str(&format!(
                "<rect x=\"{:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"/>",
                PAD + d as f64 * bw,
                (bw - 1.0).max(0.5),
                bottom - top,
                COLORS[i % COLORS.len()]
            ));
            acc += v;
        }
    }
    let legend: Vec<(String, &str)> = formats.iter().enumerate().map(|(i, f)| (f.clone(), COLORS[i % COLORS.len()])).collect();
    let title = format!("Inventory by format per day - {}", report["name"].as_str().unwrap_or("forecast"));
    frame(&title, max, days.len(), &body, &legend)
}

/// Each proposed goal's cumulative delivery against its target, with the band (from a
/// campaign report).
pub fn campaign_svg(report: &Value) -> String {
    let goals = report["goals"].as_array().cloned().unwrap_or_default();
    let series: Vec<(Vec<[f64; 3]>, Option<f64>)> = goals
        .iter()
        .map(|g| {
            let f = &g["forecast"];
            let mut acc = [0.0; 3];
            let points = f["deliveryByDate"]
                .as_object()
                .map(|o| {
                    o.values()
                        .map(|v| {
                            for (k, name) in ["units", "low", "high"].iter().enumerate() {
                                acc[k] += v[*name].as_f64().unwrap_or(0.0);
                            }
                            acc
                        })
                        .collect()
                })
                .unwrap_or_default();
            (points, f["target"].as_f64())
        })
        .collect();
    let days = series.iter().map(|s| s.0.len()).max().unwrap_or(0);
    let max = series.iter().map(|(p, t)| p.last().map_or(0.0, |l| l[2]).max(t.unwrap_or(0.0))).fold(0.0, f64::max);
    let x = |d: usize| PAD + (d as f64 + 1.0) * (W - PAD - 10.0) / days.max(1) as f64;
    let mut body = String::new();
    for (i, (points, target)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut band: Vec<String> = points.iter().enumerate().map(|(d, p)| format!("{:.1},{:.1}", x(d), y(p[2], max))).collect();
        band.extend(points.iter().enumerate().rev().map(|(d, p)| format!("{:.1},{:.1}", x(d), y(p[1], max))));
        body.push_str(&format!("<polygon points=\"{}\" fill=\"{color}\" fill-opacity=\"0.2\"/>", band.join(" ")));
        let line: Vec<String> = points.iter().enumerate().map(|(d, p)| format!("{:.1},{:.1}", x(d), y(p[0], max))).collect();
        body.push_str(&format!("<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"/>", line.join(" ")));
        if let Some(t) = target {
            body.push_str(&format!(
                "<line x1=\"{PAD}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{color}\" stroke-dasharray=\"4 3\"/>",
                y(*t, max),
                W - 10.0,
                y(*t, max)
            ));
        }
    }
    let legend: Vec<(String, &str)> =
        goals.iter().enumerate().map(|(i, g)| (g["name"].as_str().unwrap_or("goal").to_string(), COLORS[i % COLORS.len()])).collect();
    let title = format!("Forecast delivery against target - {}", report["name"].as_str().unwrap_or("campaign"));
    frame(&title, max, days, &body, &legend)
}
