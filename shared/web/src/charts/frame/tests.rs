use super::*;

#[test]
fn numbers_read_as_a_planner_reads_them() {
    assert_eq!(compact(58153.0), "58.2k");
    assert_eq!(compact(500_000.0), "500k");
    assert_eq!(compact(1_200_000.0), "1.2M");
    assert_eq!(compact(950.0), "950");
    assert_eq!(compact(0.0), "0");
    assert_eq!(ticks(58153.0), (60000.0, 10000.0));
    assert_eq!(ticks(1_000_000.0), (1_000_000.0, 200_000.0));
    assert_eq!(date_label("2026-12-01T00:00:00+01:00"), "Dec 1");
    assert_eq!(date_label(&label_key("2026-12-04T00:00:00+01:00", Some(1))), "Dec 4 (1 h)");
}

#[test]
fn a_partly_covered_last_day_is_narrow_and_labelled_not_a_collapse() {
    let mut r = inventory(4);
    for side in [&mut r.total_inventory, &mut r.unused_inventory] {
        if let Some(last) = side.inventory_by_date.values_mut().last() {
            last.hours = Some(1);
            last.total /= 24.0;
        }
    }
    let svg = inventory_svg(&r);
    assert!(svg.contains(">Dec 4 (1 h)<"), "{svg}");
    let widths: Vec<f64> = svg
        .split("<rect x=")
        .skip(1)
        .filter_map(|r| r.split("width=\"").nth(1)?.split('"').next()?.parse().ok())
        .filter(|w: &f64| *w != 10.0)
        .collect();
    let (full, last) = (widths[0], widths[widths.len() - 1]);
    assert!((last - full * MIN_PARTIAL_BAR).abs() < 0.2, "the 1-hour day is narrower, but no sliver: {widths:?}");
    assert!(svg.contains("fill-opacity=\"0.55\""), "and lighter");
}

fn inventory(days: usize) -> InventoryReport {
    let first = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
    let by_date: serde_json::Map<String, serde_json::Value> = (0..days)
        .map(|d| {
            let key = format!("{}T00:00:00+01:00", first + chrono::Duration::days(d as i64));
            let total = 40_000.0 + 1_000.0 * d as f64;
            (
                key,
                serde_json::json!({"total": total, "low": total * 0.9, "high": total * 1.1,
                "inventoryByFormat": {"PREROLL": {"total": total * 0.75}, "MIDROLL": {"total": total * 0.25}}}),
            )
        })
        .collect();
    serde_json::from_value(serde_json::json!({
        "totalInventory": {"total": 1.0, "inventoryByDate": by_date.clone()},
        "unusedInventory": {"total": 1.0, "inventoryByDate": by_date},
        "name": "Sports", "jobId": "j", "trafficSource": "estimate"}))
    .expect("an inventory report")
}

#[test]
fn the_inventory_chart_has_dates_round_ticks_gridlines_and_bands() {
    let svg = inventory_svg(&inventory(29));
    assert!(svg.contains(">Dec 1, 2026<") && svg.contains(">Dec 29<"), "first (with its year) and last dates: {svg}");
    assert!(!svg.contains("day 1"), "no day numbers");
    assert!(svg.matches("class=\"date\"").count() <= MAX_DATE_LABELS + 1);
    assert!(svg.contains(">80k<") && svg.contains(">20k<"), "round, compact y labels");
    assert!(svg.matches("class=\"grid\"").count() >= 4, "gridlines");
    assert_eq!(svg.matches("class=\"band\"").count(), 29, "a low-high range per day");
    assert!(svg.contains("PREROLL") && svg.contains("range (low - high)"));
}

fn campaign(units_per_day: f64, target: f64) -> CampaignReport {
    let days: serde_json::Map<String, serde_json::Value> = (0..7)
        .map(|d| {
            (
                format!("2026-12-{:02}T00:00:00Z", d + 1),
                serde_json::json!({"units": units_per_day, "low": units_per_day * 0.8, "high": units_per_day * 1.2}),
            )
        })
        .collect();
    let targeting = serde_json::json!({"targetingTemplates": null, "targetingRules": {}, "parentOverrides": {}});
    serde_json::from_value(serde_json::json!({
        "advertiser": null, "agency": null, "brand": null, "customId": null, "name": "Spring", "frontload": null, "priority": null,
        "targeting": targeting, "jobId": "j", "trafficSource": "estimate",
        "goals": [{"customId": null, "name": "News", "startDate": "2026-12-01", "endDate": "2026-12-08", "priority": null, "frontload": null,
            "targeting": targeting, "variant": "NORMAL", "positionRestriction": null, "deliveryGoal": {"type": "IMPRESSION", "value": target},
            "ads": [], "sequence": null, "dailyCap": null, "marketplaceId": null,
            "forecast": {"forecastedUnits": units_per_day * 7.0, "target": target, "shareOfTarget": null, "matchedUnits": 0.0,
                "possibleUnits": 0.0, "availableUnits": 0.0, "deliveryByDate": days}}]}))
    .expect("a campaign report")
}

#[test]
fn the_campaign_chart_labels_the_target_and_the_shortfall() {
    let short = campaign_svg(&campaign(100_000.0, 1_000_000.0));
    assert!(short.contains(">target 1M<"), "{short}");
    assert!(short.contains(">shortfall 300k<"), "{short}");
    assert!(short.contains(">Dec 1, 2026<") && short.contains(">Dec 7<"));
    assert!(short.contains("class=\"band\""));
    let over = campaign_svg(&campaign(200_000.0, 1_000_000.0));
    assert!(over.contains(">over by 400k<"), "{over}");
}

/// The date labels drawn: (left edge, right edge, text).
fn date_labels(svg: &str) -> Vec<(f64, f64, String)> {
    svg.split("<text class=\"date\" x=\"")
        .skip(1)
        .map(|t| {
            let x: f64 = t.split('"').next().unwrap().parse().unwrap();
            let text = t.split('>').nth(1).unwrap().split('<').next().unwrap().to_string();
            (x, x + text_width(&text), text)
        })
        .collect()
}

#[test]
fn date_labels_never_overlap_or_leave_the_canvas_and_the_y_axis_names_its_unit() {
    for days in [2, 7, 29, 31, 60, 100, 366] {
        let mut r = inventory(days);
        if let Some(last) = r.total_inventory.inventory_by_date.values_mut().last() {
            last.hours = Some(1);
        }
        let svg = inventory_svg(&r);
        let labels = date_labels(&svg);
        assert!(labels.len() >= 2.min(days) && labels.len() <= MAX_DATE_LABELS + 1, "{days}: {labels:?}");
        assert!(labels.last().unwrap().2.ends_with("(1 h)"), "the last day is always labelled: {labels:?}");
        for pair in labels.windows(2) {
            assert!(pair[0].1 + 6.0 <= pair[1].0, "{days} days: {} and {} overlap", pair[0].2, pair[1].2);
        }
        assert!(
            labels.iter().all(|(l, r, _)| *l >= LEFT && *r <= W),
            "{days} days: a label starts left of the y axis or leaves the canvas: {labels:?}"
        );
        assert!(labels[0].2.contains(", 2026"), "the first label names the year: {labels:?}");
        assert!(svg.contains("class=\"unit\"") && svg.contains(">ad opportunities per day<"), "the y axis's unit");
    }
}

#[test]
fn a_one_day_series_is_a_dot_and_labels_have_a_halo() {
    let day = crate::forecast::projection::PacingDay {
        date: chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
        plan: Some(100.0),
        delivered: Some(40.0),
        expected: None,
        low: None,
        high: None,
    };
    let svg = crate::charts::pacing::pacing_svg("Spring pre-rolls", &[day], None, Some(1000.0));
    assert!(svg.contains("<title>Pacing of Spring pre-rolls</title>"), "titled by the goal");
    assert!(svg.contains("<circle class=\"delivered\""), "a single point is drawn: {svg}");
    assert!(svg.contains(">impressions, cumulative<"));
    assert!(
        svg.contains("class=\"target\"")
            && svg.split("class=\"target\"").nth(1).unwrap().split('>').next().unwrap().contains("paint-order")
    );
}

#[test]
fn names_in_a_chart_are_escaped_by_construction() {
    let mut r = campaign(0.0, 20_000.0);
    r.name = Some("<script>alert(1)</script> & \"co\"".into());
    let svg = campaign_svg(&r);
    assert!(!svg.contains("<script>"), "{svg}");
    assert!(
        svg.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;")
            || svg.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"co\""),
        "{svg}"
    );
    let pacing = crate::charts::pacing::pacing_svg("goal “<b>”", &[], None, None);
    assert!(!pacing.contains("<b>") && pacing.contains("&lt;b&gt;"), "{pacing}");
}

#[test]
fn a_zero_forecast_shows_its_line_over_the_axis_and_its_shortfall_clear_of_the_dates() {
    let svg = campaign_svg(&campaign(0.0, 20_000.0));
    // The series comes after the axes, so it is drawn over them.
    let axis = svg.find("stroke=\"#333\"></line><line").expect("the axes");
    let series = svg.find("<polyline").expect("the series");
    assert!(axis < series, "the zero line is drawn over the x axis");
    // The shortfall's label sits above the axis, clear of the date labels under it.
    let gap_y: f64 = svg.split("class=\"gap\"").nth(1).unwrap().split("y=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    assert!(gap_y < H - BOTTOM - 2.0, "the shortfall label is above the x axis: {gap_y}");
    assert!(svg.contains(">shortfall 20k<"));
}

#[test]
fn a_goal_named_like_a_number_reads_as_a_goal() {
    let mut r = campaign(1000.0, 20_000.0);
    r.goals[0].name = Some("20k".into());
    let svg = campaign_svg(&r);
    assert!(svg.contains(">goal “20k”<"), "{svg}");
    assert_eq!(crate::charts::pacing::goal_title(Some("Morning"), "g1", "Winter"), "goal “Morning” of campaign “Winter”");
}

#[test]
fn on_pace_the_plan_is_drawn_over_the_projection_and_the_target_clear_of_the_title() {
    let days: Vec<crate::forecast::projection::PacingDay> = (1..=5)
        .map(|d| crate::forecast::projection::PacingDay {
            date: chrono::NaiveDate::from_ymd_opt(2026, 12, d).unwrap(),
            plan: Some(200.0 * f64::from(d)),
            delivered: (d <= 2).then(|| 200.0 * f64::from(d)),
            expected: (d >= 2).then(|| 200.0 * f64::from(d)),
            low: (d >= 2).then(|| 180.0 * f64::from(d)),
            high: (d >= 2).then(|| 220.0 * f64::from(d)),
        })
        .collect();
    let svg = crate::charts::pacing::pacing_svg("goal “Morning” of campaign “Winter”", &days, None, Some(1000.0));
    let plan = svg.find("class=\"plan\"").expect("the plan");
    let expected = svg.find("class=\"expected\"").expect("the projection");
    assert!(expected < plan, "the plan is drawn last, over the delivered and projected lines");
    let target_y: f64 =
        svg.split("class=\"target\"").nth(1).unwrap().split("y=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    assert!(target_y > TOP + 12.0, "the target's label is clear of the title: {target_y}");
    assert!(svg.contains("<title>Pacing of goal “Morning” of campaign “Winter”</title>"));
}
