//! A goal's pacing as an SVG chart (`GET /v3/goals/{id}/pacing.svg`, docs/reports.md): the
//! plan curve, what was delivered by each day's end, the projection from today with its
//! band, the target labelled and the shortfall or overage at the end; dates on the x axis,
//! round ticks with compact numbers (the forecast charts' frame).

use super::frame::{compact, frame, ticks, Plot, COLORS, HALO, LEFT, RIGHT, TOP, W};
use crate::forecast::projection::{PacingDay, Projection};
use quick_xml::escape::escape;

const PLAN: &str = "#333333";

fn points(p: &Plot, days: &[PacingDay], v: fn(&PacingDay) -> Option<f64>) -> String {
    days.iter().enumerate().filter_map(|(d, day)| v(day).map(|y| format!("{:.1},{:.1}", p.x(d), p.y(y)))).collect::<Vec<_>>().join(" ")
}

/// A series as a line, or as a dot when it has one point (a line of one point is invisible).
fn series(p: &Plot, days: &[PacingDay], v: fn(&PacingDay) -> Option<f64>, class: &str, color: &str, style: &str) -> String {
    let pts = points(p, days, v);
    match pts.split_once(',') {
        Some((x, y)) if !pts.contains(' ') => format!("<circle class=\"{class}\" cx=\"{x}\" cy=\"{y}\" r=\"3.5\" fill=\"{color}\"/>"),
        _ => format!("<polyline class=\"{class}\" points=\"{pts}\" fill=\"none\" stroke=\"{color}\" {style}/>"),
    }
}

/// A goal as a chart's title names it: by its name and its campaign's (its id when it has
/// no name), quoted so a name never reads as a number.
pub fn goal_title(name: Option<&str>, id: &str, campaign: &str) -> String {
    match name {
        Some(n) => format!("goal “{n}” of campaign “{campaign}”"),
        None => format!("goal {id} of campaign “{campaign}”"),
    }
}

/// `title`: the goal as a person names it (`goal “Morning” of campaign “Winter”`).
pub fn pacing_svg(title: &str, days: &[PacingDay], projection: Option<&Projection>, target: Option<f64>) -> String {
    let max = days.iter().flat_map(|d| [d.plan, d.delivered, d.expected, d.high]).flatten().chain(target).fold(0.0, f64::max);
    let (top, step) = ticks(max);
    let p = Plot { top, days: days.len() };
    let (delivered, projected) = (COLORS[0], COLORS[1]);
    let mut body = String::new();
    // The band: high forwards, low backwards, over the projected days.
    let future: Vec<(usize, &PacingDay)> = days.iter().enumerate().filter(|(_, d)| d.expected.is_some()).collect();
    if !future.is_empty() {
        let mut band: Vec<String> = future.iter().map(|(i, d)| format!("{:.1},{:.1}", p.x(*i), p.y(d.high.unwrap_or(0.0)))).collect();
        band.extend(future.iter().rev().map(|(i, d)| format!("{:.1},{:.1}", p.x(*i), p.y(d.low.unwrap_or(0.0)))));
        body.push_str(&format!("<polygon class=\"band\" points=\"{}\" fill=\"{projected}\" fill-opacity=\"0.2\"/>", band.join(" ")));
    }
    body.push_str(&series(&p, days, |d| d.delivered, "delivered", delivered, "stroke-width=\"2.5\""));
    body.push_str(&series(&p, days, |d| d.expected, "expected", projected, "stroke-width=\"2\" stroke-dasharray=\"2 3\""));
    // The plan last, thin and dashed, over the wider lines: on pace, the delivered and
    // projected lines run along it and would hide it; its dashes show over them.
    body.push_str(&series(&p, days, |d| d.plan, "plan", PLAN, "stroke-width=\"1.5\" stroke-dasharray=\"6 4\""));
    if let Some(t) = target {
        let ty = p.y(t);
        body.push_str(&format!(
            "<line x1=\"{LEFT}\" y1=\"{ty:.1}\" x2=\"{:.1}\" y2=\"{ty:.1}\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\
             <text class=\"target\" x=\"{:.1}\" y=\"{:.1}\" {HALO}>target {}</text>",
            W - RIGHT,
            LEFT + 6.0,
            // Above its line, or under it when the line runs at the top of the plot (the
            // title is above the plot).
            if ty - 4.0 - 11.0 < TOP + 4.0 { ty + 14.0 } else { ty - 4.0 },
            compact(t)
        ));
    }
    if let (Some(pr), Some((last, day))) = (projection, future.last()) {
        let label = match (pr.shortfall, pr.overage) {
            (Some(s), _) => format!("expected {}: shortfall {}", compact(pr.expected), compact(s)),
            (_, Some(o)) => format!("expected {}: over by {}", compact(pr.expected), compact(o)),
            _ => format!("expected {}", compact(pr.expected)),
        };
        let fill = if pr.shortfall.is_some() { "#c0392b" } else { "#2e7d32" };
        // Under the line's end, or above it when that would reach the date labels.
        let y = p.y(day.expected.unwrap_or(0.0));
        let y = if y + 14.0 > p.y(0.0) - 4.0 { y - 6.0 } else { y + 14.0 };
        body.push_str(&format!(
            "<text class=\"gap\" x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"end\" fill=\"{fill}\" {HALO}>{}</text>",
            p.x(*last) - 4.0,
            escape(&label)
        ));
    }
    let keys: Vec<String> = days.iter().map(|d| d.date.to_string()).collect();
    let keys: Vec<&String> = keys.iter().collect();
    let legend = [("plan".to_string(), PLAN), ("delivered".to_string(), delivered), ("projected (band)".to_string(), projected)];
    frame(&format!("Pacing of {title}"), "impressions, cumulative", &p, step, &keys, &body, &legend)
}
