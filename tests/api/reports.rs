//! Delivery reports (docs/reports.md): served ads carry the request's
//! category, content partner and device container in their signed links, the events
//! worker adds each counted event to its report cell, and `GET /v3/reports/delivery` sums
//! the cells by local day or hour and by dimension, as JSON or CSV.

use api_tests::chrono::{Duration, NaiveDate};
use api_tests::serde_json::Value;
use api_tests::{both_stores, TestApp};

use crate::serving::{ad, ad_ids, enabled_campaign, goal, link};

const CURL: &str = "curl/8.5.0";

/// The account's local date and hour now (the report cuts days in its zone).
pub(crate) fn local_now(app: &TestApp, zone: &str) -> (NaiveDate, u32) {
    use api_tests::chrono::Timelike;
    use web::clock::Clock;
    let tz: api_tests::chrono_tz::Tz = zone.parse().expect("zone");
    let local = app.clock.now().with_timezone(&tz);
    (local.date_naive(), local.hour())
}

/// Serves one ad for `query` and fires its impression (and `more` events) as `ua`.
pub(crate) async fn serve_and_fire(app: &TestApp, query: &str, expect_ad: &str, more: &[&str], ua: Option<&str>) {
    let doc = app.ad_request(query).await.body;
    assert_eq!(ad_ids(&doc), vec![expect_ad.to_string()], "{query}: {doc}");
    for event in std::iter::once(&"impression").chain(more) {
        let l = link(&doc, event);
        let r = match ua {
            Some(ua) => app.fire_with(&l, &[("user-agent", ua)]).await,
            None => app.fire(&l).await,
        };
        r.expect(204);
    }
}

fn rows(r: &Value) -> Vec<Value> {
    r["rows"].as_array().cloned().unwrap_or_default()
}

fn row<'a>(rows: &'a [Value], pairs: &[(&str, &str)]) -> &'a Value {
    rows.iter()
        .find(|r| pairs.iter().all(|(k, v)| r[*k].as_str() == Some(*v)))
        .unwrap_or_else(|| panic!("no row with {pairs:?} in {rows:?}"))
}

both_stores! {
    async fn delivery_is_reported_by_day_hour_and_dimension_as_json_and_csv(app: TestApp) {
        let a = app.a.id.clone();
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "100000", 0, "").await;
        let pre = ad(&app, &g, "preroll", api_tests::serde_json::json!({})).await;
        let mid = ad(&app, &g, "midroll", api_tests::serde_json::json!({})).await;
        let known = format!("category={a}-cat-sports&contentPartner={a}-cp-studio&dc={a}-dc-desktop");
        for i in 0..3 {
            serve_and_fire(&app, &format!("format=preroll&{known}&pid=r{i}"), &pre, &[], None).await;
        }
        // A category and partner the account does not know: kept as `~`, not as sent.
        serve_and_fire(&app, "format=preroll&category=made-up&contentPartner=nobody&pid=r3", &pre, &["start", "complete"], None).await;
        for i in 0..2 {
            serve_and_fire(&app, &format!("format=midroll&pid=m{i}"), &mid, &[], None).await;
        }
        // A non-browser caller: invalid traffic, apart from the valid counts.
        serve_and_fire(&app, &format!("format=preroll&{known}&pid=bot"), &pre, &[], Some(CURL)).await;
        app.wait_metric(&pre, "impression", 4).await;
        // The start and complete of r3 may be counted after its impression (a later batch,
        // or a retry while they wait for it): the rows below read them too.
        app.wait_metric(&pre, "start", 1).await;
        app.wait_metric(&pre, "complete", 1).await;
        app.wait_metric(&mid, "impression", 2).await;
        app.wait_metric_at(&pre, "/invalid/nonBrowser", 1).await;

        let probe = app.get("/v3/reports/delivery?from=2026-01-01&to=2026-01-01").await.json();
        let zone = probe["timeZone"].as_str().expect("timeZone").to_string();
        let (today, hour) = local_now(&app, &zone);
        let range = format!("from={today}&to={today}");

        // By day, ad and category.
        let r = app.get(&format!("/v3/reports/delivery?{range}&groupBy=ad,category")).await;
        r.expect(200);
        let body = r.json();
        assert_eq!((body["granularity"].as_str(), body["groupBy"].clone()), (Some("day"), api_tests::serde_json::json!(["ad", "category"])));
        let list = rows(&body);
        assert_eq!(list.len(), 3, "{list:?}");
        let sports = row(&list, &[("ad", &pre), ("category", &format!("{a}-cat-sports"))]);
        assert_eq!(sports["date"], today.to_string());
        assert_eq!((sports["impression"].as_i64(), sports["delivered"].as_i64(), sports["invalid"].as_i64()), (Some(3), Some(3), Some(1)));
        assert_eq!(sports["invalidByReason"]["nonBrowser"], 1);
        let other = row(&list, &[("ad", &pre), ("category", "~")]);
        assert_eq!((other["impression"].as_i64(), other["start"].as_i64(), other["complete"].as_i64()), (Some(1), Some(1), Some(1)));
        assert_eq!(other["completionRate"], 1.0);
        assert_eq!(row(&list, &[("ad", &mid), ("category", "-")])["impression"], 2);

        // By hour, partner and device container: the local hour of the account's zone.
        let list = rows(&app.get(&format!("/v3/reports/delivery?{range}&granularity=hour&groupBy=contentPartner,deviceContainer")).await.json());
        assert!(list.iter().all(|r| r["hour"] == hour), "{list:?}");
        let studio = row(&list, &[("contentPartner", &format!("{a}-cp-studio")), ("deviceContainer", &format!("{a}-dc-desktop"))]);
        assert_eq!(studio["impression"], 3);
        assert_eq!(row(&list, &[("contentPartner", "~"), ("deviceContainer", "-")])["impression"], 1);
        assert_eq!(row(&list, &[("contentPartner", "-"), ("deviceContainer", "-")])["impression"], 2);

        // By format; in total for the goal.
        let list = rows(&app.get(&format!("/v3/reports/delivery?{range}&groupBy=format")).await.json());
        assert_eq!((row(&list, &[("format", "preroll")])["impression"].as_i64(), row(&list, &[("format", "midroll")])["impression"].as_i64()), (Some(4), Some(2)));
        let list = rows(&app.get(&format!("/v3/reports/delivery?{range}&granularity=total&goalId={g}")).await.json());
        assert_eq!(list.len(), 1);
        assert!(list[0].get("date").is_none());
        assert_eq!((list[0]["impression"].as_i64(), list[0]["invalid"].as_i64()), (Some(6), Some(1)));

        // CSV: the same figures, a header naming the columns, asked by parameter or Accept.
        let r = app.get(&format!("/v3/reports/delivery?{range}&groupBy=campaign&output=csv")).await;
        r.expect(200);
        assert!(r.header("content-type").is_some_and(|t| t.starts_with("text/csv")), "{:?}", r.headers);
        assert!(r.header("content-disposition").is_some_and(|d| d.contains(&format!("delivery-{today}-{today}.csv"))));
        let lines: Vec<&str> = r.body.lines().collect();
        assert!(lines[0].starts_with("date,campaign,impression,start,firstQuartile,midpoint,thirdQuartile,complete,clickThrough,delivered,serverInitiated,ctr,completionRate,invalid,invalid.crawler,invalid.nonBrowser"), "{}", lines[0]);
        assert_eq!(lines.len(), 2, "{}", r.body);
        assert!(lines[1].starts_with(&format!("{today},{c},6,1,0,0,0,1,0,6,0,0,1,1,0,1")), "{}", lines[1]);
        let by_accept = app.send_with_headers("GET", &format!("/v3/reports/delivery?{range}&groupBy=campaign"), Some(&app.a.key), None, "", &[("accept", "text/csv")]).await;
        assert_eq!(by_accept.body, r.body);

        // The next local day is a row of its own.
        app.advance(Duration::days(1));
        serve_and_fire(&app, "format=midroll&pid=m-next", &mid, &[], None).await;
        app.wait_metric(&mid, "impression", 3).await;
        let next = today + Duration::days(1);
        let list = rows(&app.get(&format!("/v3/reports/delivery?from={today}&to={next}&adId={mid}")).await.json());
        assert_eq!(list.iter().map(|r| (r["date"].as_str().unwrap_or("").to_string(), r["impression"].as_i64())).collect::<Vec<_>>(),
            vec![(today.to_string(), Some(2)), (next.to_string(), Some(1))]);

        // Another account sees none of it.
        let theirs = app.get_as(&app.b.key, &format!("/v3/reports/delivery?{range}")).await.json();
        assert_eq!(rows(&theirs), Vec::<Value>::new());
    }

    async fn report_parameters_are_checked_and_bounded(app: TestApp) {
        let bad = |q: &'static str, field: &'static str, rule: &'static str| (q, field, rule);
        for (q, field, rule) in [
            bad("to=2026-01-01", "from", "required"),
            bad("from=2026-01-02&to=2026-01-01", "to", "notBeforeFrom"),
            bad("from=2026-01-01&to=2026-4-1", "to", "date"),
            bad("from=2026-01-01&to=2026-04-04&granularity=hour", "to", "maxDays"),
            bad("from=2026-01-01&to=2027-01-02", "to", "maxDays"),
            bad("from=2026-01-01&to=2026-01-01&groupBy=ad,site", "groupBy", "enum"),
            bad("from=2026-01-01&to=2026-01-01&groupBy=ad,ad", "groupBy", "unique"),
            bad("from=2026-01-01&to=2026-01-01&granularity=week", "granularity", "enum"),
            bad("from=2026-01-01&to=2026-01-01&output=xlsx", "output", "enum"),
            bad("from=2026-01-01&to=2026-01-01&adId=a%23b", "adId", "id"),
            bad("from=2026-01-01&to=2026-01-01&sort=date", "sort", "unknown"),
        ] {
            let r = app.get(&format!("/v3/reports/delivery?{q}")).await;
            r.expect(400);
            let errors = r.json()["errors"].clone();
            assert!(
                errors.as_array().is_some_and(|e| e.iter().any(|x| x["field"] == field && x["rule"] == rule)),
                "{q}: {errors}"
            );
        }
        // A quarter by hour and a year by day are fine; no key is 401.
        app.get("/v3/reports/delivery?from=2026-01-01&to=2026-04-03&granularity=hour").await.expect(200);
        app.get("/v3/reports/delivery?from=2026-01-01&to=2027-01-01").await.expect(200);
        app.send("GET", "/v3/reports/delivery?from=2026-01-01&to=2026-01-01", None, None, "").await.expect(401);
    }
}
