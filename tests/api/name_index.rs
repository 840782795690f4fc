//! The /v3 pages sorted by name come from the name indexes (docs/publisher-scale.md,
//! section 4): the same pages, counts and order as the filtered read of every record, through
//! renames, deletions, a deleted campaign's goals, a bulk edit and a revert.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, TestApp};
use web::store::Query;

fn ids(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap().to_string()).collect()
}

/// Every page of `path` (the index) and of `path` with `filter` (a filter that keeps every
/// record, so the records are read and sorted), page size 3: the same ids and totals.
async fn same_pages(app: &TestApp, what: &str, path: &str, filter: &str) -> Vec<String> {
    let mut all = Vec::new();
    for n in 1..=6 {
        let sep = if path.contains('?') { '&' } else { '?' };
        let indexed = app.get(&format!("{path}{sep}pageSize=3&pageNumber={n}")).await.json();
        let read = app.get(&format!("{path}{sep}pageSize=3&pageNumber={n}&{filter}")).await.json();
        assert_eq!(ids(&indexed[what]), ids(&read[what]), "{path} page {n}: {indexed} against {read}");
        assert_eq!(indexed["pagination"], read["pagination"], "{path} page {n}");
        all.extend(ids(&indexed[what]));
    }
    all
}

fn name_of(v: &Value, id: &str) -> String {
    v.as_array().unwrap().iter().find(|x| x["id"] == id).map(|x| x["name"].as_str().unwrap_or("").to_lowercase()).unwrap_or_default()
}

async fn rename(app: &TestApp, path: &str, bean: &str, from: &str, to: &str) {
    let body = app.get(path).await.body;
    let inner = body.split(&format!("<{bean}>")).nth(1).and_then(|s| s.split(&format!("</{bean}>")).next()).unwrap();
    let renamed = inner.replace(&format!("<name>{from}</name>"), &format!("<name>{to}</name>"));
    assert_ne!(renamed, inner, "{path} has the name {from}");
    app.put_xml(path, &format!("<{bean}>{renamed}</{bean}>")).await.expect(204);
}

both_stores! {
    async fn pages_sorted_by_name_match_the_read_of_every_record(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let mut campaigns = Vec::new();
        for name in ["beta", "Alpha", "alpha", "Gamma", "delta"] {
            campaigns.push(app.campaign(name, &adv).await);
        }
        // Goals with equal names (in any case), an unnamed one, across the campaigns.
        let mut goals = Vec::new();
        for (i, name) in ["Zed", "amber", "Amber", "amber", "", "mid", "Mid", "zulu", "amber", "kilo"].iter().enumerate() {
            let extra = if name.is_empty() { String::new() } else { format!("<name>{name}</name>") };
            goals.push(app.goal(&campaigns[i % 5], "IMPRESSION", 1, Some(20), &extra).await);
        }
        rename(&app, &format!("/api/1.0.cpvext/goal/by_goal_id;id={}", goals[0]), "goalBean", "Zed", "aardvark").await;
        rename(&app, &format!("/api/1.0/campaign/by_campaign_id;id={}", campaigns[3]), "campaignBean", "Gamma", "Aaa").await;
        app.delete(&format!("/api/1.0.cpvext/goal/by_goal_id;id={}", goals[5])).await.expect(204);
        // A deleted campaign with two live goals (1 and 6): its goals leave the pages.
        app.delete(&format!("/api/1.0/campaign/by_campaign_id;id={}", campaigns[1])).await.expect(204);
        // A bulk edit and a revert write goals and campaigns too.
        app.post_json("/v1/goals/bulk", &json!({"ids": [goals[2].clone(), goals[3].clone()], "set": {"priority": 8}})).await.expect(200);

        let all_states = "campaign.state=enabled,disabled,archived";
        let shown = same_pages(&app, "campaigns", "/v3/campaigns", all_states).await;
        assert_eq!(shown.len(), 4);
        let v = app.get("/v3/campaigns?pageSize=10").await.json();
        let names: Vec<String> = shown.iter().map(|id| name_of(&v["campaigns"], id)).collect();
        assert_eq!(names, ["aaa", "alpha", "beta", "delta"]);

        let every = "goals.started.after=2000-01-01T00:00:00Z";
        for order in ["", "?sortingOrder=descending", "?sorting=goalName&sortingOrder=ascending"] {
            let shown = same_pages(&app, "goals", &format!("/v3/goals{order}"), every).await;
            assert_eq!(shown.len(), 7, "{order}: ten goals, one deleted, two in a deleted campaign");
            assert!(!shown.contains(&goals[1]) && !shown.contains(&goals[6]) && !shown.contains(&goals[5]));
        }
        let v = app.get("/v3/goals?pageSize=10").await.json();
        assert_eq!(v["goals"][0]["id"], goals[4], "the unnamed goal first");
        assert_eq!(v["goals"][1]["id"], goals[0], "renamed to aardvark");

        // The index holds the live goals (those of the deleted campaign too); the counts.
        let entries = app.store.query(Query::gsi2(web::keys::goals_by_name(&app.a.id))).await.unwrap().items;
        assert_eq!(entries.len(), 9);
        let counts = web::repo::name_index::counts(app.store.as_ref(), &app.a.id).await.unwrap().unwrap();
        assert_eq!((counts.campaigns, counts.goals, counts.hidden), (4, 9, 2));

        // Reverting the campaign's rename moves it back in the index.
        let change = app.get(&format!("/v1/changes?recordId={}&limit=1", campaigns[3])).await.json();
        let id = change["changes"][0]["id"].as_str().unwrap().to_string();
        app.post_json(&format!("/v1/changes/{id}/revert"), &Value::Null).await.expect(200);
        let shown = same_pages(&app, "campaigns", "/v3/campaigns", all_states).await;
        let v = app.get("/v3/campaigns?pageSize=10").await.json();
        let names: Vec<String> = shown.iter().map(|id| name_of(&v["campaigns"], id)).collect();
        assert_eq!(names, ["alpha", "beta", "delta", "gamma"]);
    }

    async fn an_account_written_before_the_indexes_is_read_whole_until_reindexed(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        for name in ["b", "a", "c"] {
            let c = app.campaign(name, &adv).await;
            app.goal(&c, "IMPRESSION", 1, Some(20), &format!("<name>{name}</name>")).await;
        }
        // As an older version stored it: no counts, no index entries.
        let key = web::keys::name_counts(&app.a.id);
        app.store.delete(&key, web::store::Cond::None).await.unwrap();
        let v = app.get("/v3/goals").await.json();
        assert_eq!(v["pagination"]["totalCount"], 3);
        assert_eq!(v["goals"][0]["name"], "a");
        let n = web::repo::reindex::rebuild(app.store.as_ref(), &app.a.id).await.unwrap();
        assert_eq!((n.campaigns, n.goals, n.hidden), (3, 3, 0));
        let v = app.get("/v3/campaigns?pageNumber=1&pageSize=2").await.json();
        assert_eq!(v["pagination"]["totalCount"], 3);
        assert_eq!(v["campaigns"][1]["name"], "b");
    }
}
