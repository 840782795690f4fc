//! The auction in the ad request (docs/programmatic.md): an RTB goal's break goes to the
//! best valid bid of its marketplace's partners, served inside this service's document and
//! counted like a direct ad; its notices carry the clearing price; no valid bid, or a
//! bidder past its deadline, gives the break to the next goal.

use std::time::{Duration, Instant};

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, Bidder, TestApp};

use crate::demand::{marketplace, partner};
use crate::serving::{ad, ad_ids, enabled_campaign, goal, link};

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/// An RTB goal of marketplace `m` at `priority` in a fresh enabled campaign.
pub(crate) async fn rtb_goal(app: &TestApp, m: &str, priority: u8) -> String {
    let c = enabled_campaign(app).await;
    goal(app, &c, "RTB", "1", 0, &format!("<marketplaceId>{m}</marketplaceId><priority>{priority}</priority>")).await
}

/// A house goal of priority 1 with one IPTV preroll ad: what a break falls back to.
async fn house_ad(app: &TestApp) -> String {
    let c = enabled_campaign(app).await;
    let g = goal(app, &c, "IMPRESSION", "100000", 0, "<priority>1</priority>").await;
    ad(app, &g, "preroll", json!({})).await
}

/// Polls a goal's `/v3` metrics until `counter` reaches `n`.
pub(crate) async fn wait_goal_metric(app: &TestApp, g: &str, counter: &str, n: f64) -> Value {
    api_tests::eventually(&format!("{counter} of goal {g} to reach {n}"), Duration::from_secs(120), || async {
        let m = app.get(&format!("/v3/goals/{g}?embed=metrics")).await.json()["metrics"].clone();
        (m[counter].as_f64() == Some(n)).then_some(m)
    })
    .await
}

fn query_of(q: &str, k: &str) -> Option<String> {
    q.split('&').find_map(|kv| kv.split_once('=').filter(|(n, _)| *n == k).map(|(_, v)| v.to_string()))
}

both_stores! {
    async fn an_rtb_goal_serves_the_winning_bid_and_bills_after_the_impression(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        let a = partner(&app, &bidder.endpoint("inline", "price=6&name=a"), json!({"name": "Alpha DSP",
            "authHeader": {"name": "Authorization", "value": "Bearer alpha-token"}})).await;
        let b = partner(&app, &bidder.endpoint("inline", "price=4&name=b"), json!({"name": "Beta DSP"})).await;
        let m = marketplace(&app, &[a.clone(), b], "SECOND_PRICE", 2.0, json!({"blockedCategories": ["IAB25"], "blockedDomains": ["rival.example"]})).await;
        let g = rtb_goal(&app, &m, 8).await;
        let doc = app
            .ad_request("format=preroll&pid=viewer-1&url=https://news.example/story&w=640&h=360&gdpr=1&gdpr_consent=CPtest&us_privacy=1YNN&gpp=DBA&gpp_sid=2,6")
            .await;
        doc.expect(200);
        assert_eq!(ad_ids(&doc.body), ["cr-a"], "{}", doc.body);
        assert!(doc.body.contains("<AdSystem>Alpha DSP</AdSystem>") && doc.body.contains(&format!("{}/clip.mp4", bidder.base)), "{}", doc.body);
        assert!(doc.body.contains("/notice/dsp-impression?n=a"), "the bidder's own impression tracker is kept: {}", doc.body);
        // The bid request each partner got.
        let reqs = bidder.requests();
        assert_eq!(reqs.len(), 2, "{reqs:?}");
        let r = &reqs[0];
        let imp = &r["imp"][0];
        assert_eq!((imp["id"].as_str(), imp["bidfloor"].as_f64(), imp["bidfloorcur"].as_str()), (Some("1"), Some(2.0), Some("USD")), "{r}");
        let v = &imp["video"];
        assert_eq!((v["startdelay"].as_i64(), v["plcmt"].as_u64(), v["linearity"].as_u64(), v["w"].as_u64(), v["h"].as_u64()),
            (Some(0), Some(1), Some(1), Some(640), Some(360)), "{v}");
        assert!(v["mimes"].as_array().unwrap().iter().any(|m| m == "video/mp4"), "{v}");
        assert_eq!((r["tmax"].as_u64(), r["at"].as_u64(), r["cur"][0].as_str()), (Some(150), Some(2), Some("USD")), "{r}");
        assert_eq!((r["bcat"][0].as_str(), r["badv"][0].as_str()), (Some("IAB25"), Some("rival.example")), "{r}");
        assert_eq!((r["site"]["page"].as_str(), r["site"]["domain"].as_str(), r["site"]["publisher"]["id"].as_str()),
            (Some("https://news.example/story"), Some("news.example"), Some(app.a.id.as_str())), "{r}");
        assert_eq!((r["regs"]["gdpr"].as_u64(), r["regs"]["us_privacy"].as_str(), r["regs"]["gpp"].as_str(), r["regs"]["gpp_sid"].clone(), r["user"]["ext"]["consent"].as_str()),
            (Some(1), Some("1YNN"), Some("DBA"), json!([2, 6]), Some("CPtest")), "{r}");
        let user = r["user"]["id"].as_str().unwrap_or("");
        assert!(user.len() == 64 && !user.contains("viewer-1"), "a hashed viewer id: {user}");
        assert_eq!((r["source"]["schain"]["complete"].as_u64(), r["source"]["schain"]["nodes"][0]["sid"].as_str()), (Some(1), Some(app.a.id.as_str())));
        assert!(r["device"]["ua"].as_str().is_some_and(|u| u.contains("Mozilla")) && r["device"]["ip"].is_string(), "{r}");
        let auth: Vec<String> = bidder.request_headers().iter().filter_map(|h| h.iter().find(|(k, _)| k == "authorization").map(|(_, v)| v.clone())).collect();
        assert_eq!(auth, ["Bearer alpha-token"], "only Alpha has an auth header");
        // The secret is not in the compiled snapshot other functions read from the bucket.
        let (_, pointer) = api_tests::eventually("the compiled snapshot", std::time::Duration::from_secs(120), || async {
            let (v, p) = web::repo::delivery::version_and_compiled(app.store.as_ref(), &app.a.id).await.expect("read");
            p.filter(|(c, _)| c.version == v).map(|p| (v, p))
        }).await;
        let bytes = app.state.blobs.get(&pointer.0.object).await.expect("get").expect("the compiled object");
        let inflated = web::delivery::compiled::decode(&bytes).map(|s| format!("{:?}", s.demand.bidders)).expect("decode");
        assert!(inflated.contains("auth: true") && !inflated.contains("alpha-token"), "{inflated}");
        // The loser hears at once why it lost (102: lost to a higher bid); the winner's nurl fires.
        let lurl = bidder.wait_notices("lurl", 1).await;
        assert_eq!(query_of(&lurl[0], "l").as_deref(), Some("102"), "{lurl:?}");
        let nurl = bidder.wait_notices("nurl", 1).await;
        assert_eq!(query_of(&nurl[0], "p").as_deref(), Some("4.01"), "second price: the second bid and 0.01: {nurl:?}");
        // No burl before the impression counts; then one, with every macro replaced.
        assert!(bidder.notices("burl").is_empty());
        app.fire(&link(&doc.body, "impression")).await.expect(204);
        let metrics = wait_goal_metric(&app, &g, "impression", 1.0).await;
        // Revenue: the clearing CPM / 1,000, on the goal and its campaign; eCPM from it.
        assert_eq!((metrics["revenue"].as_f64(), metrics["ecpm"].as_f64()), (Some(0.00401), Some(4.01)), "{metrics}");
        let goal_v3 = app.get(&format!("/v3/goals/{g}")).await.json();
        let c = goal_v3["campaign"]["id"].as_str().or(goal_v3["campaign"]["href"].as_str().and_then(|h| h.rsplit('/').next())).unwrap_or("").to_string();
        let cm = app.get(&format!("/v3/campaigns/{c}?embed=metrics")).await.json();
        assert_eq!(cm["metrics"]["revenue"].as_f64(), Some(0.00401), "{cm}");
        let burl = bidder.wait_notices("burl", 1).await;
        let q = &burl[0];
        assert_eq!(
            [query_of(q, "p"), query_of(q, "b"), query_of(q, "i"), query_of(q, "s"), query_of(q, "ad"), query_of(q, "c")],
            [Some("4.01".into()), Some("bid-a".into()), Some("1".into()), Some("seat-1".into()), Some("ad-a".into()), Some("USD".into())],
            "{q}"
        );
        assert_eq!(query_of(q, "a"), query_of(&nurl[0], "a"), "the same auction id");
        assert!(!q.contains("${"), "every macro replaced: {q}");
    }

    async fn no_valid_bid_or_a_hanging_bidder_gives_the_break_to_the_next_goal(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        let house = house_ad(&app).await;
        let hang = partner(&app, &bidder.endpoint("hang", ""), json!({"timeoutMs": 100})).await;
        let nobid = partner(&app, &bidder.endpoint("nobid", ""), json!({})).await;
        let m = marketplace(&app, &[hang, nobid], "FIRST_PRICE", 1.0, json!({})).await;
        rtb_goal(&app, &m, 9).await;
        let started = Instant::now();
        let doc = app.ad_request("format=preroll").await;
        let took = started.elapsed();
        assert_eq!(ad_ids(&doc.body), std::slice::from_ref(&house), "{}", doc.body);
        // The stub answers after 5 s; the partner's timeout is 100 ms. The bound leaves room for
        // this first request's snapshot load on a busy emulator (3.06 s seen with the browser
        // tests beside it), and still fails if the answer waited for the bidder.
        assert!(took < Duration::from_millis(4500), "the hanging bidder held the answer {took:?} (timeout 100 ms, the stub hangs 5 s)");
        assert_eq!(bidder.requests().len(), 2);
        // A crawler's ad request is never offered to a bidder (pre-bid invalid traffic).
        let bot = app.send_with_headers("GET", &format!("/v1/adrequest?account={}&format=preroll", app.a.id), None, None, "", &[("user-agent", GOOGLEBOT)]).await;
        assert_eq!(ad_ids(&bot.body), std::slice::from_ref(&house), "{}", bot.body);
        assert_eq!(bidder.requests().len(), 2, "no bid request for a crawler");
        // Nor is a live request without a User-Agent (a script's), as after the auction.
        let bare = app.send_with_headers("GET", &format!("/v1/adrequest?account={}&format=preroll", app.a.id), None, None, "", &[("user-agent", "")]).await;
        assert_eq!(ad_ids(&bare.body), std::slice::from_ref(&house), "{}", bare.body);
        assert_eq!(bidder.requests().len(), 2, "no bid request for an empty User-Agent");
        // The inspector, with no User-Agent described, still asks them.
        app.get("/v3/inspect?format=preroll").await.expect(200);
        assert_eq!(bidder.requests().len(), 4, "the inspector asks both partners");

        // Invalid bids: none competes; the house goal serves, and each loser hears its reason.
        let bidder = Bidder::in_process(&app);
        let modes = [("malformed", ""), ("wrongimp", "name=w"), ("inline", "price=0.5&name=low"), ("inline", "adomain=shop.rival.example&name=blocked"),
            ("inline", "cur=EUR&name=eur"), ("huge", ""), ("inline", "cat=IAB25&name=cat")];
        let mut ids = Vec::new();
        for (mode, q) in modes {
            ids.push(partner(&app, &bidder.endpoint(mode, q), json!({})).await);
        }
        let m = marketplace(&app, &ids, "SECOND_PRICE", 1.0, json!({"blockedDomains": ["rival.example"], "blockedCategories": ["IAB25"]})).await;
        rtb_goal(&app, &m, 10).await;
        let doc = app.ad_request("format=preroll").await;
        assert_eq!(ad_ids(&doc.body), [house], "{}", doc.body);
        let mut codes: Vec<String> = bidder.wait_notices("lurl", 5).await.iter().filter_map(|q| query_of(q, "l")).collect();
        codes.sort();
        assert_eq!(codes, ["100", "205", "209", "3", "3"], "below floor, blocked advertiser, blocked category, wrong impid, currency");
    }

    async fn the_clearing_price_follows_the_auction_type_and_crawlers_are_not_billed(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        // First price: the bid.
        let p = partner(&app, &bidder.endpoint("inline", "price=6&name=first"), json!({})).await;
        let m = marketplace(&app, &[p], "FIRST_PRICE", 1.0, json!({})).await;
        let g = rtb_goal(&app, &m, 10).await;
        let doc = app.ad_request("format=preroll").await;
        assert_eq!(ad_ids(&doc.body), ["cr-first"], "{}", doc.body);
        // A crawler's impression is invalid: no burl.
        app.fire_with(&link(&doc.body, "impression"), &[("user-agent", GOOGLEBOT)]).await.expect(204);
        let doc = app.ad_request("format=preroll").await;
        app.fire(&link(&doc.body, "impression")).await.expect(204);
        wait_goal_metric(&app, &g, "impression", 1.0).await;
        let burl = bidder.wait_notices("burl", 1).await;
        // Every queued notice sent: a second burl would be there now.
        app.settle().await;
        assert_eq!(bidder.notices("burl").len(), 1, "the crawler's impression is not billed: {burl:?}");
        assert_eq!(query_of(&burl[0], "p").as_deref(), Some("6"));
        // Fixed price: the deal's price, whatever the bid. (The first marketplace removed:
        // its goal then serves nothing.)
        app.delete(&format!("/v1/marketplaces/{m}")).await.expect(204);
        let bidder = Bidder::in_process(&app);
        let p = partner(&app, &bidder.endpoint("inline", "price=9&deal=pg-1&name=fixed"), json!({})).await;
        let m = marketplace(&app, &[p], "FIXED_PRICE", 1.0, json!({"deals": [{"id": "pg-1", "floorCpm": 7.5}]})).await;
        rtb_goal(&app, &m, 10).await;
        let doc = app.ad_request("format=preroll").await;
        assert_eq!(ad_ids(&doc.body), ["cr-fixed"], "{}", doc.body);
        let req = &bidder.requests()[0];
        assert_eq!((req["at"].as_u64(), req["imp"][0]["pmp"]["private_auction"].as_u64(), req["imp"][0]["pmp"]["deals"][0]["id"].as_str()),
            (Some(3), Some(1), Some("pg-1")), "{req}");
        app.fire(&link(&doc.body, "impression")).await.expect(204);
        let burl = bidder.wait_notices("burl", 1).await;
        assert_eq!(query_of(&burl[0], "p").as_deref(), Some("7.5"), "{burl:?}");
    }

    async fn bidder_text_with_characters_xml_forbids_leaves_the_document_well_formed(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        // The stub puts the name in its markup's Ad id and AdTitle, and in the bid's crid:
        // a character reference to U+0001, which no XML document may hold.
        let p = partner(&app, &bidder.endpoint("inline", "price=6&name=x%26%231%3By"), json!({})).await;
        let m = marketplace(&app, &[p], "FIRST_PRICE", 1.0, json!({})).await;
        rtb_goal(&app, &m, 10).await;
        for rt in ["vast_3_0", "vast_4_2", "vmap_1_0"] {
            let doc = app.ad_request(&format!("format=preroll&rt={rt}")).await.body;
            assert!(doc.contains("spot</AdTitle>"), "the bid won: {doc}");
            assert!(!doc.contains('\u{1}') && !doc.contains("&#1;"), "{rt}: {doc:?}");
            let mut lint = std::process::Command::new("xmllint")
                .args(["--noout", "-"])
                .stdin(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("xmllint runs (scripts/test.sh installs it)");
            std::io::Write::write_all(lint.stdin.as_mut().unwrap(), doc.as_bytes()).unwrap();
            let out = lint.wait_with_output().unwrap();
            assert!(out.status.success(), "{rt}: not well-formed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }

    async fn wrappers_and_nurl_markup_are_served_inside_this_services_document(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        let p = partner(&app, &bidder.endpoint("wrapper", "price=3&name=wrap"), json!({"name": "Wrap DSP"})).await;
        let m = marketplace(&app, &[p], "FIRST_PRICE", 1.0, json!({})).await;
        rtb_goal(&app, &m, 10).await;
        let doc = app.ad_request("format=preroll&rt=vast_4_2").await.body;
        assert!(doc.contains("<Wrapper><AdSystem>Wrap DSP</AdSystem><Impression>"), "{doc}");
        assert!(doc.contains(&format!("<VASTAdTagURI>{}/vast/wrap.xml</VASTAdTagURI></Wrapper>", bidder.base)), "VAST 4.2: the tag URI last: {doc}");
        app.delete(&format!("/v1/marketplaces/{m}")).await.expect(204);
        let bidder = Bidder::in_process(&app);
        let p = partner(&app, &bidder.endpoint("nurl", "price=3&name=late"), json!({})).await;
        let m = marketplace(&app, &[p], "FIRST_PRICE", 1.0, json!({})).await;
        rtb_goal(&app, &m, 10).await;
        let doc = app.ad_request("format=preroll").await.body;
        assert_eq!(ad_ids(&doc), ["cr-late"], "{doc}");
        assert_eq!(bidder.notices("nurl-adm").len(), 1, "the markup came from the nurl (the win notice)");
        assert_eq!(query_of(&bidder.notices("nurl-adm")[0], "p").as_deref(), Some("3"));
        app.settle().await;
        assert!(bidder.notices("nurl").is_empty(), "the nurl is not fired twice");
    }
}

fn report_range(app: &TestApp) -> String {
    let now = web::clock::Clock::now(app.clock.as_ref());
    let d = |days: i64| (now + chrono::Duration::days(days)).format("%Y-%m-%d").to_string();
    format!("from={}&to={}", d(-1), d(1))
}

both_stores! {
    async fn the_inspector_shows_the_auction_and_the_report_counts_it(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        let a = partner(&app, &bidder.endpoint("inline", "price=6&name=a"), json!({"name": "Alpha"})).await;
        let b = partner(&app, &bidder.endpoint("nobid", ""), json!({"name": "Beta"})).await;
        let c = partner(&app, &bidder.endpoint("inline", "price=0.5&name=c"), json!({"name": "Gamma"})).await;
        let m = marketplace(&app, &[a.clone(), b.clone(), c.clone()], "SECOND_PRICE", 1.0, json!({})).await;
        let g = rtb_goal(&app, &m, 10).await;
        // The inspector asks the bidders and shows the auction; nothing is notified or counted.
        let i = app.get("/v3/inspect?format=preroll").await;
        i.expect(200);
        let brk = &i.json()["breaks"][0];
        assert_eq!(brk["served"][0]["adId"].as_str(), Some("cr-a"), "{brk}");
        let auction = &brk["auctions"][0];
        assert_eq!((auction["goalId"].as_str(), auction["marketplaceId"].as_str(), auction["auctionType"].as_str()),
            (Some(g.as_str()), Some(m.as_str()), Some("SECOND_PRICE")), "{auction}");
        let status: Vec<(&str, &str)> = auction["partners"].as_array().unwrap().iter().map(|p| (p["name"].as_str().unwrap(), p["status"].as_str().unwrap())).collect();
        assert_eq!(status, [("Alpha", "BID"), ("Beta", "NO_BID"), ("Gamma", "BID")]);
        assert!(auction["partners"].as_array().unwrap().iter().all(|p| p["latencyMs"].is_u64()));
        let gamma = auction["bids"].as_array().unwrap().iter().find(|x| x["demandPartnerId"] == c.as_str()).unwrap();
        assert_eq!((gamma["valid"].as_bool(), gamma["rejected"]["code"].as_str(), gamma["price"].as_f64()), (Some(false), Some("belowFloor"), Some(0.5)), "{gamma}");
        assert_eq!((auction["winner"]["demandPartnerId"].as_str(), auction["winner"]["clearingPrice"].as_f64(), auction["winner"]["price"].as_f64()),
            (Some(a.as_str()), Some(1.01), Some(6.0)), "alone: the floor and 0.01: {auction}");
        app.settle().await;
        assert!(bidder.notices("lurl").is_empty() && bidder.notices("nurl").is_empty(), "the inspector sends no notice");
        let empty = app.get(&format!("/v3/reports/delivery?{}&granularity=total", report_range(&app))).await.json();
        assert_eq!(empty["rows"], json!([]), "the inspector counts no auction: {empty}");

        // Served: the report counts the auction by partner and marketplace, with revenue.
        let doc = app.ad_request("format=preroll").await.body;
        app.fire(&link(&doc, "impression")).await.expect(204);
        wait_goal_metric(&app, &g, "impression", 1.0).await;
        let q = format!("/v3/reports/delivery?{}&granularity=total&groupBy=demandPartner,marketplace", report_range(&app));
        // Every cell of the auction written (they are added one by one).
        let rows = api_tests::eventually("the auction's report cells", Duration::from_secs(120), || async {
            let rows = app.get(&q).await.json()["rows"].clone();
            rows.as_array().is_some_and(|r| r.iter().filter(|x| x["auctions"] == 1 || x["bidRequests"] == 1).count() == 4).then_some(rows)
        })
        .await;
        let row = |p: &str| rows.as_array().unwrap().iter().find(|r| r["demandPartner"] == p && r["marketplace"] == m.as_str()).cloned().unwrap_or(Value::Null);
        let (ra, rb, rc, rm) = (row(&a), row(&b), row(&c), row("-"));
        assert_eq!((rm["auctions"].as_i64(), rm["fillRate"].as_f64()), (Some(1), Some(0.0)), "{rows}");
        assert_eq!((ra["bidRequests"].as_i64(), ra["bids"].as_i64(), ra["wins"].as_i64(), ra["impression"].as_i64(), ra["revenue"].as_f64(), ra["eCPM"].as_f64(), ra["winRate"].as_f64()),
            (Some(1), Some(1), Some(1), Some(1), Some(0.00101), Some(1.01), Some(1.0)), "{rows}");
        assert_eq!((rb["noBids"].as_i64(), rb["bids"].as_i64()), (Some(1), Some(0)), "{rows}");
        assert_eq!((rc["invalidBids"].as_i64(), rc["invalidBidsByReason"]["belowFloor"].as_i64()), (Some(1), Some(1)), "{rows}");
        let csv = app.send_with_headers("GET", &format!("{q}&output=csv"), Some(&app.a.key), None, "", &[]).await.body;
        assert!(csv.lines().next().unwrap_or("").contains("demandPartner,marketplace") && csv.contains("revenue,eCPM,winRate,fillRate"), "{csv}");
    }
}

async fn notifications_of(app: &TestApp, campaign: &str) -> String {
    let r = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={campaign}")).await;
    r.expect(200);
    r.body
}

both_stores! {
    async fn a_programmatic_guaranteed_goal_is_paced_and_its_silent_buyer_is_named(app: TestApp) {
        let house = house_ad(&app).await;
        let bidder = Bidder::in_process(&app);
        // The deal's buyer bids; an open-market bid is refused (only deals in a PG goal).
        let buyer = partner(&app, &bidder.endpoint("inline", "price=20&deal=pg-7&name=pg"), json!({"name": "Buyer"})).await;
        let open = partner(&app, &bidder.endpoint("inline", "price=30&name=open"), json!({"name": "Open"})).await;
        let m = marketplace(&app, &[buyer, open], "FIXED_PRICE", 1.0, json!({"deals": [{"id": "pg-7", "floorCpm": 15}]})).await;
        let c = enabled_campaign(&app).await;
        let pg = goal(&app, &c, "IMPRESSION", "2", 0, &format!("<marketplaceId>{m}</marketplaceId><priority>10</priority>")).await;
        // Paced like any impression goal: served until its target is delivered, then held.
        let mut served = 0;
        for n in 0..6 {
            let doc = app.ad_request(&format!("format=preroll&pid=pg-{n}")).await.body;
            if ad_ids(&doc) != ["cr-pg"] {
                assert_eq!(ad_ids(&doc), std::slice::from_ref(&house), "{doc}");
                break;
            }
            app.fire(&link(&doc, "impression")).await.expect(204);
            served += 1;
            wait_goal_metric(&app, &pg, "impression", f64::from(served)).await;
        }
        assert!((1..=2).contains(&served), "paced to its target of 2: served {served}");
        let burl = bidder.wait_notices("burl", 1).await;
        assert_eq!(query_of(&burl[0], "p").as_deref(), Some("15"), "the deal's fixed price");
        let lurl = bidder.wait_notices("lurl", 1).await;
        assert_eq!(query_of(&lurl[0], "l").as_deref(), Some("213"), "not in a deal: {lurl:?}");
        let text = notifications_of(&app, &c).await;
        assert!(!text.contains("has no ads"), "a programmatic goal needs no ad: {text}");

        // A PG goal whose buyer stopped bidding: it under-delivers, and the deal is named.
        let quiet = Bidder::in_process(&app);
        let silent = partner(&app, &quiet.endpoint("nobid", ""), json!({"name": "Silent"})).await;
        let m2 = marketplace(&app, &[silent], "FIXED_PRICE", 1.0, json!({"deals": [{"id": "pg-quiet", "floorCpm": 12}]})).await;
        let c2 = enabled_campaign(&app).await;
        goal(&app, &c2, "IMPRESSION", "100000", 0, &format!("<marketplaceId>{m2}</marketplaceId><priority>10</priority>")).await;
        app.delete(&format!("/v1/marketplaces/{m}")).await.expect(204);
        let docs = app.ad_requests(&(0..12).map(|n| format!("format=preroll&pid=q-{n}")).collect::<Vec<_>>()).await;
        assert!(docs.iter().all(|d| ad_ids(&d.body) == [house.clone()]), "the house goal fills the breaks");
        let text = api_tests::eventually("the deal's notification", Duration::from_secs(120), || async {
            let text = notifications_of(&app, &c2).await;
            text.contains("pg-quiet").then_some(text)
        })
        .await;
        assert!(text.contains("deal pg-quiet sent no bid") && text.contains("WARNING"), "{text}");
        // The first campaign's goal lost its marketplace: it serves nothing, and says so.
        let text = notifications_of(&app, &c).await;
        assert!(text.contains("has none (marketplaceId)"), "{text}");
    }
}
