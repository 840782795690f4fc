//! The reports as SVG charts (`GET .../chart.svg`), drawn from the typed reports: dates on
//! the x axis (the report's days, local midnights of the account's zone), a y axis with
//! round ticks, gridlines and compact numbers (500k, 1.2M), the low-high band of every
//! series that has one, and the targets labelled with the shortfall or overage.

use maud::{html, Markup};

use crate::forecast::report_schema::{CampaignReport, InventoryReport};

pub(crate) const W: f64 = 760.0;
pub(crate) const H: f64 = 340.0;
pub(crate) const LEFT: f64 = 56.0;
pub(crate) const RIGHT: f64 = 24.0;
pub(crate) const TOP: f64 = 34.0;
const BOTTOM: f64 = 64.0;
pub(crate) const COLORS: &[&str] = &["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2"];
/// A partly covered day's bar is at least this share of a full day's width.
const MIN_PARTIAL_BAR: f64 = 0.4;
/// At most this many date labels on the x axis (the first and the last always).
const MAX_DATE_LABELS: usize = 8;

/// A number as a planner reads it: 950, 58.2k, 500k, 1.2M, 3B.
pub fn compact(v: f64) -> String {
    let a = v.abs();
    let (x, unit) = if a >= 1e9 {
        (v / 1e9, "B")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        return format!("{}", v.round());
    };
    let s = if x.abs() >= 100.0 { format!("{:.0}", x) } else { format!("{:.1}", x) };
    format!("{}{unit}", s.strip_suffix(".0").unwrap_or(&s))
}

/// Round y-axis ticks for values up to `max`: (the axis top, the step), 3-6 steps.
pub fn ticks(max: f64) -> (f64, f64) {
    if max <= 0.0 || !max.is_finite() {
        return (1.0, 0.25);
    }
    let raw = max / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    ((max / step).ceil() * step, step)
}

/// A report day's key (`2026-12-01T00:00:00+01:00`) as an axis label (`Dec 1`); a partly
/// covered edge day says how much of it the window has (`Dec 4 (1 h)`).
fn date_label(key: &str) -> String {
    let (key, part) = match key.split_once(' ') {
        Some((k, p)) => (k, format!(" {p}")),
        None => (key, String::new()),
    };
    match chrono::NaiveDate::parse_from_str(key.get(..10).unwrap_or(key), "%Y-%m-%d") {
        Ok(d) => format!("{}{part}", d.format("%b %-d")),
        Err(_) => format!("{key}{part}"),
    }
}

/// The first date label: with its year (`Dec 1, 2026`), so a chart says which year it is.
fn date_label_with_year(key: &str) -> String {
    let plain = date_label(key);
    match chrono::NaiveDate::parse_from_str(key.get(..10).unwrap_or(key), "%Y-%m-%d") {
        Ok(d) => match plain.split_once(' ').map(|(m, rest)| (m, rest.split_once(' '))) {
            Some((m, Some((day, part)))) => format!("{m} {day}, {} {part}", d.format("%Y")),
            _ => format!("{plain}, {}", d.format("%Y")),
        },
        Err(_) => plain,
    }
}

/// A day's label key: its report key, with its hours when the window covers part of it.
fn label_key(key: &str, hours: Option<u32>) -> String {
    match hours {
        Some(h) => format!("{key} ({h} h)"),
        None => key.to_string(),
    }
}

/// The plot: maps values and day indices to the canvas.
pub(crate) struct Plot {
    pub(crate) top: f64,
    pub(crate) days: usize,
}

impl Plot {
    pub(crate) fn y(&self, v: f64) -> f64 {
        (H - BOTTOM) - (v / self.top.max(1e-9)) * (H - BOTTOM - TOP)
    }

    pub(crate) fn slot(&self) -> f64 {
        (W - LEFT - RIGHT) / self.days.max(1) as f64
    }

    /// The centre of day `d`.
    pub(crate) fn x(&self, d: usize) -> f64 {
        LEFT + (d as f64 + 0.5) * self.slot()
    }
}

/// A text's width at the charts' 11 px sans-serif, about (for label spacing).
fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * 6.3
}

/// A coordinate as the charts write it: one decimal.
pub(crate) fn at(v: f64) -> String {
    format!("{v:.1}")
}

/// Points of a polyline or polygon (`x,y x,y ...`).
pub(crate) fn points(pts: impl IntoIterator<Item = (f64, f64)>) -> String {
    pts.into_iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")
}

/// A label that stays readable over lines and bars: a white halo under its glyphs
/// (`paint-order="stroke" stroke="white" stroke-width="3" stroke-linejoin="round"`).
pub(crate) fn halo_text(class: &str, x: f64, y: f64, anchor: &str, fill: &str, label: &str) -> Markup {
    html! {
        text class=(class) x=(at(x)) y=(at(y)) text-anchor=(anchor) fill=(fill) paint-order="stroke" stroke="white" stroke-width="3" stroke-linejoin="round" { (label) }
    }
}

/// The frame: title, gridlines with y labels and the y axis's unit, axes, date labels
/// (never overlapping, never past the canvas), legend. Written with maud: every text and
/// attribute is escaped by construction.
pub(crate) fn frame(title: &str, unit: &str, p: &Plot, step: f64, keys: &[&String], body: Markup, legend: &[(String, &str)]) -> String {
    let mut grid = Vec::new();
    let mut v = 0.0;
    while v <= p.top + step / 2.0 {
        grid.push((p.y(v), compact(v)));
        v += step;
    }
    let n = keys.len();
    let every = n.div_ceil(MAX_DATE_LABELS).max(1);
    // Each label's span on the x axis: centred on its day, the first kept right of
    // the y axis (nothing left of it), the last inside the canvas; a regular label too close
    // to the last one gives way to it. The first label carries the year.
    let span = |d: usize, text: &str| {
        let w = text_width(text);
        let left = (p.x(d) - w / 2.0).max(LEFT).min(W - 2.0 - w);
        (left, left + w)
    };
    let label = |d: usize, k: &str| if d == 0 { date_label_with_year(k) } else { date_label(k) };
    let last = keys.last().map(|k| span(n - 1, &label(n - 1, k)));
    let mut right_edge = f64::MIN;
    let mut dates = Vec::new();
    for (d, k) in keys.iter().enumerate() {
        if d % every != 0 && d + 1 != n {
            continue;
        }
        let text = label(d, k);
        let (l, r) = span(d, &text);
        if d + 1 != n && (l < right_edge + 6.0 || last.is_some_and(|(ll, _)| r + 6.0 > ll)) {
            continue;
        }
        right_edge = r;
        dates.push((l, text));
    }
    let bottom = H - BOTTOM;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(W) height=(H) viewBox={ "0 0 " (W) " " (H) } font-family="sans-serif" font-size="11" {
            title { (title) }
            rect width=(W) height=(H) fill="white" {}
            text x=(LEFT) y="20" font-size="14" { (title) }
            @for (y, label) in &grid {
                line.grid x1=(LEFT) y1=(at(*y)) x2=(at(W - RIGHT)) y2=(at(*y)) stroke="#e3e3e3" {}
                text x=(at(LEFT - 6.0)) y=(at(y + 4.0)) text-anchor="end" { (label) }
            }
            // The axes under the series: a series at zero is drawn over the x axis, not hidden by it.
            line x1=(LEFT) y1=(bottom) x2=(W - RIGHT) y2=(bottom) stroke="#333" {}
            line x1=(LEFT) y1=(TOP) x2=(LEFT) y2=(bottom) stroke="#333" {}
            (body)
            text.unit transform="rotate(-90)" x=(at(-(TOP + bottom) / 2.0)) y="12" text-anchor="middle" { (unit) }
            @for (l, text) in &dates {
                text.date x=(at(*l)) y=(at(bottom + 16.0)) text-anchor="start" { (text) }
            }
            @for (i, (name, color)) in legend.iter().enumerate() {
                @let x = LEFT + i as f64 * 150.0;
                rect x=(x) y=(at(H - 24.0)) width="10" height="10" fill=(color) {}
                text x=(at(x + 14.0)) y=(at(H - 15.0)) { (name) }
            }
        }
    }
    .into_string()
}

/// Inventory by format per day, stacked bars, with each day's low-high range.
pub fn inventory_svg(report: &InventoryReport) -> String {
    let by_date = &report.total_inventory.inventory_by_date;
    let labels: Vec<String> = by_date.iter().map(|(k, d)| label_key(k, d.hours)).collect();
    let keys: Vec<&String> = labels.iter().collect();
    let days: Vec<_> = by_date.values().collect();
    let mut formats = Vec::new();
    for d in &days {
        for f in d.inventory_by_format.keys() {
            if !formats.contains(f) {
                formats.push(*f);
            }
        }
    }
    let max = days.iter().map(|d| d.high.max(d.total)).fold(0.0, f64::max);
    let (top, step) = ticks(max);
    let p = Plot { top, days: days.len() };
    let full = (p.slot() - 2.0).max(0.5);
    // Each day: its bar's left edge and width, whether it is a partial day, its stacked
    // segments (top, height, colour) and its whisker.
    struct Day {
        x: f64,
        width: f64,
        partial: bool,
        segments: Vec<(f64, f64, &'static str)>,
        whisker: (f64, f64, f64),
    }
    let bars: Vec<Day> = days
        .iter()
        .enumerate()
        .map(|(d, day)| {
            // A partly covered edge day is as narrow as its share of a day, so its smaller
            // total does not read as a collapse (never under 40 % of a full bar, so a
            // 1-hour day is no sliver; lighter, and its label says its hours).
            let share = f64::from(day.hours.unwrap_or(24).min(24)) / 24.0;
            let width = full * share.max(MIN_PARTIAL_BAR);
            let mut acc = 0.0;
            let segments = formats
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let v = day.inventory_by_format.get(f).map_or(0.0, |t| t.total);
                    let (top, bottom) = (p.y(acc + v), p.y(acc));
                    acc += v;
                    (top, bottom - top, COLORS[i % COLORS.len()])
                })
                .collect();
            Day { x: p.x(d) - width / 2.0, width, partial: share < 1.0, segments, whisker: (p.x(d), p.y(day.low), p.y(day.high)) }
        })
        .collect();
    let body = html! {
        @for day in &bars {
            @for (top, height, color) in &day.segments {
                rect x=(at(day.x)) y=(at(*top)) width=(at(day.width)) height=(at(*height)) fill=(color) fill-opacity=[day.partial.then_some("0.55")] {}
            }
            // The day's range: a whisker from low to high.
            line.band x1=(at(day.whisker.0)) y1=(at(day.whisker.1)) x2=(at(day.whisker.0)) y2=(at(day.whisker.2)) stroke="#333" stroke-width="1.2" {}
        }
    };
    let mut legend: Vec<(String, &str)> =
        formats.iter().enumerate().map(|(i, f)| (f.as_str().to_string(), COLORS[i % COLORS.len()])).collect();
    legend.push(("range (low - high)".into(), "#333"));
    let title = format!("Inventory by format per day - {}", report.name.as_deref().unwrap_or("forecast"));
    frame(&title, "ad opportunities per day", &p, step, &keys, body, &legend)
}

/// Each proposed goal's cumulative delivery against its target, with the band, the target
/// labelled and the shortfall or overage at the end.
pub fn campaign_svg(report: &CampaignReport) -> String {
    let series: Vec<(Vec<[f64; 3]>, Option<f64>)> = report
        .goals
        .iter()
        .map(|g| {
            let mut acc = [0.0; 3];
            let points = g
                .forecast
                .delivery_by_date
                .values()
                .map(|v| {
                    acc[0] += v.units;
                    acc[1] += v.low;
                    acc[2] += v.high;
                    acc
                })
                .collect();
            (points, g.forecast.target)
        })
        .collect();
    let labels: Vec<String> = report
        .goals
        .iter()
        .max_by_key(|g| g.forecast.delivery_by_date.len())
        .map(|g| g.forecast.delivery_by_date.iter().map(|(k, d)| label_key(k, d.hours)).collect())
        .unwrap_or_default();
    let keys: Vec<&String> = labels.iter().collect();
    let max = series.iter().map(|(p, t)| p.last().map_or(0.0, |l| l[2]).max(t.unwrap_or(0.0))).fold(0.0, f64::max);
    let (top, step) = ticks(max);
    let p = Plot { top, days: keys.len() };
    let body = html! {
        @for (i, (pts, target)) in series.iter().enumerate() {
            @let color = COLORS[i % COLORS.len()];
            @let band = pts.iter().enumerate().map(|(d, v)| (p.x(d), p.y(v[2]))).chain(pts.iter().enumerate().rev().map(|(d, v)| (p.x(d), p.y(v[1]))));
            polygon.band points=(points(band)) fill=(color) fill-opacity="0.2" {}
            polyline points=(points(pts.iter().enumerate().map(|(d, v)| (p.x(d), p.y(v[0]))))) fill="none" stroke=(color) stroke-width="2" {}
            @if let [only] = pts.as_slice() {
                circle cx=(at(p.x(0))) cy=(at(p.y(only[0]))) r="3" fill=(color) {}
            }
            @if let Some(t) = target {
                @let ty = p.y(*t);
                // The target's label sits at the left end of its line, above it, on a halo:
                // the cumulative lines start low, so they cross it at the right if anywhere.
                line x1=(LEFT) y1=(at(ty)) x2=(at(W - RIGHT)) y2=(at(ty)) stroke=(color) stroke-dasharray="4 3" {}
                (halo_text("target", LEFT + 6.0, ty - 4.0 - 12.0 * i as f64, "start", color, &format!("target {}", compact(*t))))
                @if let Some(last) = pts.last() {
                    @let (x, y) = (p.x(pts.len() - 1), p.y(last[0]));
                    @let gap = t - last[0];
                    @let (label, fill) = if gap > 0.5 { (format!("shortfall {}", compact(gap)), "#c0392b") } else { (format!("over by {}", compact(-gap)), "#2e7d32") };
                    // Under the line's end for a shortfall, above it for an overage, and above
                    // it whenever under would reach the date labels (a zero forecast ends on the axis).
                    @let ly = if gap > 0.5 && y + 14.0 <= p.y(0.0) - 4.0 { y + 14.0 } else { y - 6.0 };
                    (halo_text("gap", x - 4.0, ly, "end", fill, &label))
                }
            }
        }
    };
    // Each goal named as a goal ("goal “20k”"), so a name never reads as a number.
    let legend: Vec<(String, &str)> = report
        .goals
        .iter()
        .enumerate()
        .map(|(i, g)| (g.name.as_ref().map_or_else(|| format!("goal {}", i + 1), |n| format!("goal “{n}”")), COLORS[i % COLORS.len()]))
        .collect();
    let title = format!("Forecast delivery against target - {}", report.name.as_deref().unwrap_or("campaign"));
    frame(&title, "impressions, cumulative", &p, step, &keys, body, &legend)
}

#[cfg(test)]
mod tests;
