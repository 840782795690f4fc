//! The reports as SVG charts (`GET .../chart.svg`), drawn from the typed reports.

use super::report_schema::{CampaignReport, InventoryReport};

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

/// Inventory by format per day, stacked bars.
pub fn inventory_svg(report: &InventoryReport) -> String {
    let days: Vec<_> = report.total_inventory.inventory_by_date.values().collect();
    let mut formats = Vec::new();
    for d in &days {
        for f in d.inventory_by_format.keys() {
            if !formats.contains(f) {
                formats.push(*f);
            }
        }
    }
    let max = days.iter().map(|d| d.total).fold(0.0, f64::max);
    let bw = (W - PAD - 10.0) / days.len().max(1) as f64;
    let mut body = String::new();
    for (d, day) in days.iter().enumerate() {
        let mut acc = 0.0;
        for (i, f) in formats.iter().enumerate() {
            let v = day.inventory_by_format.get(f).map_or(0.0, |t| t.total);
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
    let legend: Vec<(String, &str)> = formats.iter().enumerate().map(|(i, f)| (f.as_str().to_string(), COLORS[i % COLORS.len()])).collect();
    let title = format!("Inventory by format per day - {}", report.name.as_deref().unwrap_or("forecast"));
    frame(&title, max, days.len(), &body, &legend)
}

/// Each proposed goal's cumulative delivery against its target, with the band.
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
        report.goals.iter().enumerate().map(|(i, g)| (g.name.clone().unwrap_or_else(|| "goal".into()), COLORS[i % COLORS.len()])).collect();
    let title = format!("Forecast delivery against target - {}", report.name.as_deref().unwrap_or("campaign"));
    frame(&title, max, days, &body, &legend)
}
