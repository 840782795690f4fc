//! The console's part 2 through HTTP as a browser sends it: what needs attention on the
//! home page, Reports (chart, table, CSV), a goal's pacing by day, Forecasts (a proposed
//! goal run to its chart), Demand and Stitchers (write-only headers never on a page).

use api_tests::{both_stores, location};

use crate::console::{campaign, person};
use crate::reports::{local_now, serve_and_fire};
use crate::serving::{ad, enabled_campaign, goal};

/// The cells of each body row of the table with `id`, as text.
fn table_rows(html: &str, id: &str) -> Vec<Vec<String>> {
    let Some(start) = html.find(&format!("<table id=\"{id}\"")) else { return Vec::new() };
    let table = &html[start..start + html[start..].find("</table>").unwrap_or(0)];
    let body = table.split("<tbody>").nth(1).unwrap_or("");
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let inner = &cell[cell.find('>').map_or(0, |i| i + 1)..cell.find("</td>").unwrap_or(cell.len())];
                    let mut text = String::new();
                    let mut in_tag = false;
                    for ch in inner.chars() {
                        match ch {
                            '<' => in_tag = true,
                            '>' => in_tag = false,
                            c if !in_tag => text.push(c),
                            _ => {}
                        }
                    }
                    text.replace(',', "")
                })
                .collect()
        })
        .collect()
}

both_stores! {
    async fn the_home_page_lists_a_goal_that_serves_nothing(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "5000", 0, "<name>Adless</name>").await;
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let home = api_tests::eventually("the goal on the home page", std::time::Duration::from_secs(60), || async {
            let r = b.get("/console/").await;
            (r.status == 200 && r.body.contains(&format!("/console/goals/{g}\""))).then_some(r)
        })
        .await;
        assert!(home.body.contains("What needs attention") && home.body.contains("Serving nothing"), "{}", home.body);
        assert!(home.body.contains("no ad with playable media"), "{}", home.body);
    }

    async fn a_report_s_table_and_csv_have_the_same_rows_and_its_chart_draws_them(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "100000", 0, "").await;
        let pre = ad(&app, &g, "preroll", api_tests::serde_json::json!({})).await;
        for i in 0..3 {
            serve_and_fire(&app, &format!("format=preroll&pid=p{i}"), &pre, &[], None).await;
        }
        app.wait_metric(&pre, "impression", 3).await;
        let b = person(&app, "ann@a.example", "VIEWER").await;
        let zone = app.get("/v3/reports/delivery?from=2026-01-01&to=2026-01-01").await.json()["timeZone"].as_str().unwrap_or("UTC").to_string();
        let (today, _) = local_now(&app, &zone);
        let from = today - api_tests::chrono::Duration::days(6);
        let q = format!("from={from}&to={today}&groupBy=ad&granularity=day");
        let page = b.get(&format!("/console/reports?{q}")).await;
        page.expect(200);
        for label in ["<label for=\"from\">From</label>", "<label for=\"to\">To</label>", "<label for=\"groupBy\">Group by</label>", ">Run</button>", ">Download CSV</a>"] {
            assert!(page.body.contains(label), "{label}: {}", page.body);
        }
        let table = table_rows(&page.body, "report");
        let csv = b.get(&format!("/v3/reports/delivery?{q}&output=csv")).await;
        csv.expect(200);
        let lines: Vec<Vec<String>> = csv.body.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
        let head = &lines[0];
        let col = |n: &str| head.iter().position(|h| h == n).unwrap_or_else(|| panic!("{n} in {head:?}"));
        assert_eq!(table.len(), lines.len() - 1, "one table row per CSV row: {table:?} {lines:?}");
        for (t, l) in table.iter().zip(&lines[1..]) {
            // Date, ad, impressions, server-initiated, starts, completes, clicks, CTR, completion rate, invalid.
            assert_eq!((&t[0], &t[1], &t[2], &t[3], &t[9]), (&l[col("date")], &l[col("ad")], &l[col("impression")], &l[col("serverInitiated")], &l[col("invalid")]));
        }
        assert!(table.iter().any(|t| t[1] == pre && t[2] == "3"), "{table:?}");
        let chart = b.get(&format!("/console/reports/chart.svg?{q}")).await;
        chart.expect(200);
        assert_eq!(chart.header("content-type"), Some("image/svg+xml"));
        assert!(chart.body.contains("class=\"player\"") && chart.body.contains("invalid events"), "{}", chart.body);
        // A bad date: named next to its field, nothing run.
        let bad = b.get(&format!("/console/reports?from=2026-13-01&to={today}")).await;
        bad.expect(422);
        assert!(bad.body.contains("id=\"from\"") && bad.body.contains("aria-invalid=\"true\"") && bad.body.contains("from must be a date"), "{}", bad.body);
    }

    async fn a_goal_s_pacing_shows_its_chart_and_its_days(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "70000", 0, "<name>Morning</name>").await;
        let b = person(&app, "ann@a.example", "VIEWER").await;
        let goal_page = b.get(&format!("/console/goals/{g}")).await;
        goal_page.expect(200);
        assert!(goal_page.body.contains(&format!("src=\"/v3/goals/{g}/pacing.svg\"")), "{}", goal_page.body);
        let page = b.get(&format!("/console/goals/{g}/pacing")).await;
        page.expect(200);
        assert!(page.body.contains("<h1>Pacing of Morning</h1>") && page.body.contains("Expected by the end"), "{}", page.body);
        let days = table_rows(&page.body, "pacing");
        assert!(days.len() >= 10, "the flight's days: {days:?}");
        let svg = b.get(&format!("/v3/goals/{g}/pacing.svg")).await;
        svg.expect(200);
        assert!(svg.body.contains("Morning"), "the session reads the chart");
    }

    async fn a_viewer_runs_a_forecast_as_the_api_lets_them(app: TestApp) {
        // A forecast is a read: the API lets a VIEWER run one, and so does the console.
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Spring").await;
        let v = person(&app, "vic@a.example", "VIEWER").await;
        let page = v.get(&format!("/console/forecasts?campaign={c}")).await;
        page.expect(200);
        assert!(page.body.contains("Run forecast") && page.body.contains("Run campaign forecast"), "{}", page.body);
        let (today, _) = local_now(&app, "Europe/Stockholm");
        let start = (today + api_tests::chrono::Duration::days(2)).to_string();
        let end = (today + api_tests::chrono::Duration::days(9)).to_string();
        let dc = format!("{}-dc-desktop", app.a.id);
        let r = v.post("/console/forecasts", &[("campaign", &c), ("name", "Proposed"), ("start", &start), ("end", &end), ("kind", "IMPRESSION"),
            ("value", "20000"), ("format", "preroll_standard"), ("device", &dc), ("category", "")]).await;
        r.expect(303);
    }

    async fn a_proposed_goal_forecast_runs_to_its_chart_and_stays_listed(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Spring").await;
        let form = b.get(&format!("/console/forecasts?campaign={c}")).await;
        form.expect(200);
        assert!(form.body.contains("Forecast a proposed goal of Spring"), "{}", form.body);
        let (today, _) = local_now(&app, "Europe/Stockholm");
        let start = (today + api_tests::chrono::Duration::days(2)).to_string();
        let end = (today + api_tests::chrono::Duration::days(9)).to_string();
        let dc = format!("{}-dc-desktop", app.a.id);
        let fields = |value: &'static str| {
            vec![("campaign", c.clone()), ("name", "Proposed".to_string()), ("start", start.clone()), ("end", end.clone()), ("kind", "IMPRESSION".into()),
                ("value", value.to_string()), ("format", "preroll_standard".into()), ("device", dc.clone()), ("category", String::new())]
        };
        let bad: Vec<(&str, String)> = fields("-5");
        let bad_pairs: Vec<(&str, &str)> = bad.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let refused = b.post("/console/forecasts", &bad_pairs).await;
        refused.expect(422);
        assert!(refused.body.contains("aria-invalid=\"true\""), "{}", refused.body);
        let good = fields("20000");
        let pairs: Vec<(&str, &str)> = good.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = b.post("/console/forecasts", &pairs).await;
        r.expect(303);
        let job_page = location(&r);
        assert!(job_page.starts_with("/console/forecasts/"), "{job_page}");
        let done = api_tests::eventually("the forecast's chart", std::time::Duration::from_secs(120), || async {
            let p = b.get(&job_page).await;
            (p.status == 200 && p.body.contains("/chart.svg")).then_some(p)
        })
        .await;
        assert!(done.body.contains("Expected") && done.body.contains("expected delivery by day"), "{}", done.body);
        let id = job_page.rsplit('/').next().unwrap_or("");
        let status = b.get(&format!("/console/forecasts/{id}/status")).await;
        assert_eq!(status.json()["done"], true);
        let chart = b.get(&format!("/api/2.0/forecast/report/campaign/{id}/chart.svg")).await;
        chart.expect(200);
        let list = b.get("/console/forecasts").await;
        assert!(list.body.contains(&format!("/console/forecasts/{id}\"")), "{}", list.body);
        // The running campaign forecast: its goal proposed again, for what it has left.
        let empty = b.post("/console/forecasts/campaign", &[("campaign", c.as_str())]).await;
        empty.expect(422);
        assert!(empty.body.contains("nothing of the campaign can be forecast"), "{}", empty.body);
        let in_a_week = (today + api_tests::chrono::Duration::days(7)).to_string();
        let g = crate::console::goal(&b, &c, "Spring goal", &format!("{start}T00:00"), &format!("{in_a_week}T00:00")).await;
        ad(&app, &g, "preroll", api_tests::serde_json::json!({})).await;
        let r = b.post("/console/forecasts/campaign", &[("campaign", c.as_str())]).await;
        r.expect(303);
        let job_page = location(&r);
        let job = job_page.rsplit('/').next().unwrap_or("").to_string();
        api_tests::eventually("the campaign forecast's chart", std::time::Duration::from_secs(120), || async {
            let p = b.get(&job_page).await;
            (p.status == 200 && p.body.contains("/chart.svg") && p.body.contains("<h1>Spring</h1>")).then_some(p)
        })
        .await;
        let report = app.get(&format!("/api/2.0/forecast/report/campaign/{job}")).await.json();
        assert_eq!(report["goals"][0]["customId"], g.as_str(), "{report}");
        assert_eq!(report["goals"][0]["deliveryGoal"]["value"], 10000.0, "{report}");
        let bad = app.post_json("/api/2.0/forecast/campaign", &api_tests::serde_json::json!({"campaign": {"replacesCampaignId": "no-such-campaign",
            "goals": [{"name": "G", "startDate": format!("{start}T00:00:00.000Z"), "endDate": format!("{end}T00:00:00.000Z"), "variant": "NORMAL",
            "deliveryGoal": {"type": "IMPRESSION", "value": 1000}, "ads": [{"name": "A", "format": "preroll_standard", "deviceContainers": [dc]}]}]}})).await;
        bad.expect(400);
        assert!(bad.body.contains("campaign.replacesCampaignId"), "{}", bad.body);
    }

    async fn demand_forms_never_send_a_secret_header_to_the_page(app: TestApp) {
        let admin = person(&app, "ada@a.example", "ADMIN").await;
        let secret = "Bearer a-very-secret-token-123";
        let r = admin.post("/console/demand/partners", &[("name", "Acme DSP"), ("endpoint", "http://127.0.0.1:9/openrtb2"), ("timeoutMs", "150"),
            ("currency", "USD"), ("enabled", "true"), ("authHeader.name", "Authorization"), ("authHeader.value", secret)]).await;
        r.expect(303);
        let page = admin.get("/console/demand").await;
        page.expect(200);
        assert!(page.body.contains("Acme DSP") && page.body.contains("<td>set</td>") && !page.body.contains(secret), "{}", page.body);
        let partners = app.get("/v1/demand-partners").await.json();
        let id = partners["demandPartners"][0]["id"].as_str().unwrap_or("").to_string();
        let edit = admin.get(&format!("/console/demand/partners/{id}")).await;
        edit.expect(200);
        assert!(!edit.body.contains(secret) && edit.body.contains("Auth header is <strong>set</strong>"), "{}", edit.body);
        // Saved with the value left empty: kept.
        let v = api_tests::version_of(&edit.body);
        admin.post(&format!("/console/demand/partners/{id}"), &[("name", "Acme DSP 2"), ("endpoint", "http://127.0.0.1:9/openrtb2"), ("timeoutMs", "150"),
            ("currency", "USD"), ("enabled", "true"), ("authHeader.name", ""), ("authHeader.value", ""), ("version", &v)]).await.expect(303);
        let after = app.get(&format!("/v1/demand-partners/{id}")).await.json();
        assert_eq!((after["name"].as_str(), after["authHeaderSet"].as_bool()), (Some("Acme DSP 2"), Some(true)));
        // A marketplace with the partner and a deal.
        let m = admin.post("/console/demand/marketplaces", &[("name", "Premium"), ("demandPartnerIds", &id), ("auctionType", "SECOND_PRICE"),
            ("floorCpm", "4.5"), ("currency", "USD"), ("deals", "acme-q4 12 seat-7")]).await;
        m.expect(303);
        let markets = app.get("/v1/marketplaces").await.json();
        assert_eq!(markets["marketplaces"][0]["deals"][0]["id"], "acme-q4");
        // A refused field: named, input kept.
        let bad = admin.post("/console/demand/partners", &[("name", "Bad"), ("endpoint", "ftp://x"), ("timeoutMs", "150")]).await;
        bad.expect(422);
        assert!(bad.body.contains("id=\"endpoint\"") && bad.body.contains("aria-invalid=\"true\""), "{}", bad.body);
        // A stitcher's secret header likewise.
        admin.post("/console/stitchers", &[("name", "Tailor"), ("sourceCidrs", "203.0.113.0/24"), ("secretHeader.name", "x-stitcher-key"),
            ("secretHeader.value", "stitcher-secret-0123456789")]).await.expect(303);
        let st = admin.get("/console/stitchers").await;
        assert!(st.body.contains("Tailor") && !st.body.contains("stitcher-secret-0123456789"), "{}", st.body);
        // Not for a trafficker.
        let t = person(&app, "tom@a.example", "TRAFFICKER").await;
        t.get("/console/demand").await.expect(403);
        assert!(!t.get("/console/").await.body.contains("href=\"/console/demand\""));
    }

    async fn an_audience_batch_shows_its_progress_until_done(app: TestApp) {
        let p = format!("providerId={}-ap-dmp", app.a.id);
        let r = app.upload_batch(&p, b"v1|age=18-24|gender=f\nv2|age=nope\n".to_vec(), false).await;
        r.expect(202);
        let id = r.json()["batchId"].as_str().unwrap_or("").to_string();
        let b = person(&app, "vic@a.example", "VIEWER").await;
        let list = b.get("/console/audiences").await;
        list.expect(200);
        assert!(list.body.contains(&format!("/console/audiences/batches/{id}\"")), "{}", list.body);
        let done = api_tests::eventually("the batch done", std::time::Duration::from_secs(60), || async {
            let s = b.get(&format!("/console/audiences/batches/{id}/status")).await;
            (s.status == 200 && s.json()["done"] == true).then_some(s)
        })
        .await;
        assert!(done.json()["words"].as_str().unwrap_or("").starts_with("Done"), "{}", done.body);
        let page = b.get(&format!("/console/audiences/batches/{id}")).await;
        page.expect(200);
        assert!(page.body.contains("Pairs no segment matched") && page.body.contains("age=nope"), "{}", page.body);
        b.get("/console/audiences/batches/not-a-batch").await.expect(404);
    }
}
