//! A delivery report as an SVG chart (the console's Reports page): per day or hour, the
//! valid impressions as stacked bars, those the player fired and those a stitcher fired
//! (server-initiated) apart, and the invalid events as a line of their own; the forecast
//! charts' frame (dates of the account's zone, round ticks, compact numbers).

use maud::html;

use super::frame::{at, frame, points, ticks, Plot, COLORS};

const INVALID: &str = "#c0392b";

/// One bucket of the chart: its key (`2026-11-20`, or `2026-11-20 13:00` by hour) and its
/// counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    pub key: String,
    pub player: f64,
    pub server: f64,
    pub invalid: f64,
}

/// `title` names the report (its range and grouping).
pub fn delivery_svg(title: &str, buckets: &[Bucket]) -> String {
    let max = buckets.iter().map(|b| (b.player + b.server).max(b.invalid)).fold(0.0, f64::max);
    // Counts: whole steps (a few events would otherwise give 0.5 steps and repeated labels).
    let (top, step) = ticks(max.max(6.0));
    let p = Plot { top, days: buckets.len() };
    let bw = (p.slot() - 2.0).max(0.5);
    let invalid: Vec<(f64, f64)> = buckets.iter().enumerate().map(|(d, b)| (p.x(d), p.y(b.invalid))).collect();
    let body = html! {
        @for (d, b) in buckets.iter().enumerate() {
            @for (class, from, v, color) in [("player", 0.0, b.player, COLORS[0]), ("server", b.player, b.server, COLORS[1])] {
                @if v > 0.0 {
                    @let (t, bottom) = (p.y(from + v), p.y(from));
                    rect class=(class) x=(at(p.x(d) - bw / 2.0)) y=(at(t)) width=(at(bw)) height=(at(bottom - t)) fill=(color) {}
                }
            }
        }
        @match invalid.as_slice() {
            [] => {}
            [(x, y)] => { circle.invalid cx=(at(*x)) cy=(at(*y)) r="3.5" fill=(INVALID) {} }
            _ => { polyline.invalid points=(points(invalid.iter().copied())) fill="none" stroke=(INVALID) stroke-width="2" {} }
        }
    };
    let keys: Vec<&String> = buckets.iter().map(|b| &b.key).collect();
    let legend = [
        ("player impressions".to_string(), COLORS[0]),
        ("server-initiated".to_string(), COLORS[1]),
        ("invalid events".to_string(), INVALID),
    ];
    frame(title, "events", &p, step, &keys, body, &legend)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(key: &str, player: f64, server: f64, invalid: f64) -> Bucket {
        Bucket { key: key.into(), player, server, invalid }
    }

    #[test]
    fn bars_stack_player_and_server_impressions_and_invalid_is_a_line_apart() {
        let svg = delivery_svg("Delivery", &[b("2026-11-20", 800.0, 200.0, 50.0), b("2026-11-21", 1000.0, 0.0, 10.0)]);
        assert_eq!(svg.matches("class=\"player\"").count(), 2);
        assert_eq!(svg.matches("class=\"server\"").count(), 1, "a zero server-initiated count draws no bar");
        assert_eq!(svg.matches("class=\"invalid\"").count(), 1);
        assert!(svg.contains("Nov 20, 2026"), "the first date label carries the year: {svg}");
        assert!(svg.contains("invalid events"));
    }

    #[test]
    fn one_bucket_draws_its_invalid_count_as_a_dot_and_nothing_is_empty() {
        let svg = delivery_svg("Delivery", &[b("2026-11-20", 0.0, 0.0, 3.0)]);
        assert!(svg.contains("<circle class=\"invalid\""));
        assert!(delivery_svg("Delivery", &[]).starts_with("<svg"));
    }
}
