//! A goal's pacing as an SVG chart (`GET /v3/goals/{id}/pacing.svg`, docs/reports.md): the
//! plan curve, what was delivered by each day's end, the projection from today with its
//! band, the target labelled and the shortfall or overage at the end; dates on the x axis,
//! round ticks with compact numbers (the forecast charts' frame).

use maud::{html, Markup};

use super::frame::{at, compact, frame, halo_text, points, ticks, Plot, COLORS, LEFT, RIGHT, TOP, W};
use crate::forecast::projection::{PacingDay, Projection};

const PLAN: &str = "#333333";

/// A series as a line, or as a dot when it has one point (a line of one point is invisible);
/// `dashes`: its `stroke-dasharray`, when dashed.
fn series(
    p: &Plot,
    days: &[PacingDay],
    v: fn(&PacingDay) -> Option<f64>,
    class: &str,
    color: &str,
    width: &str,
    dashes: Option<&str>,
) -> Markup {
    let pts: Vec<(f64, f64)> = days.iter().enumerate().filter_map(|(d, day)| v(day).map(|y| (p.x(d), p.y(y)))).collect();
    html! {
        @match pts.as_slice() {
            [(x, y)] => { circle class=(class) cx=(at(*x)) cy=(at(*y)) r="3.5" fill=(color) {} }
            _ => { polyline class=(class) points=(points(pts.iter().copied())) fill="none" stroke=(color) stroke-width=(width) stroke-dasharray=[dashes] {} }
        }
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
    // The band: high forwards, low backwards, over the projected days.
    let future: Vec<(usize, &PacingDay)> = days.iter().enumerate().filter(|(_, d)| d.expected.is_some()).collect();
    let band = future
        .iter()
        .map(|(i, d)| (p.x(*i), p.y(d.high.unwrap_or(0.0))))
        .chain(future.iter().rev().map(|(i, d)| (p.x(*i), p.y(d.low.unwrap_or(0.0)))));
    let band = points(band);
    let gap = match (projection, future.last()) {
        (Some(pr), Some((last, day))) => {
            let label = match (pr.shortfall, pr.overage) {
                (Some(s), _) => format!("expected {}: shortfall {}", compact(pr.expected), compact(s)),
                (_, Some(o)) => format!("expected {}: over by {}", compact(pr.expected), compact(o)),
                _ => format!("expected {}", compact(pr.expected)),
            };
            let fill = if pr.shortfall.is_some() { "#c0392b" } else { "#2e7d32" };
            // Under the line's end, or above it when that would reach the date labels.
            let y = p.y(day.expected.unwrap_or(0.0));
            let y = if y + 14.0 > p.y(0.0) - 4.0 { y - 6.0 } else { y + 14.0 };
            Some(halo_text("gap", p.x(*last) - 4.0, y, "end", fill, &label))
        }
        _ => None,
    };
    let body = html! {
        @if !future.is_empty() { polygon.band points=(band) fill=(projected) fill-opacity="0.2" {} }
        (series(&p, days, |d| d.delivered, "delivered", delivered, "2.5", None))
        (series(&p, days, |d| d.expected, "expected", projected, "2", Some("2 3")))
        // The plan last, thin and dashed, over the wider lines: on pace, the delivered and
        // projected lines run along it and would hide it; its dashes show over them.
        (series(&p, days, |d| d.plan, "plan", PLAN, "1.5", Some("6 4")))
        @if let Some(t) = target {
            @let ty = p.y(t);
            line x1=(LEFT) y1=(at(ty)) x2=(at(W - RIGHT)) y2=(at(ty)) stroke="#333" stroke-dasharray="4 3" {}
            // Above its line, or under it when the line runs at the top of the plot (the
            // title is above the plot).
            (halo_text("target", LEFT + 6.0, if ty - 4.0 - 11.0 < TOP + 4.0 { ty + 14.0 } else { ty - 4.0 }, "start", "black", &format!("target {}", compact(t))))
        }
        @if let Some(g) = gap { (g) }
    };
    let keys: Vec<String> = days.iter().map(|d| d.date.to_string()).collect();
    let keys: Vec<&String> = keys.iter().collect();
    let legend = [("plan".to_string(), PLAN), ("delivered".to_string(), delivered), ("projected (band)".to_string(), projected)];
    frame(&format!("Pacing of {title}"), "impressions, cumulative", &p, step, &keys, body, &legend)
}
