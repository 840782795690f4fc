//! Records created through the API, as a client would (clients, campaigns, goals), and the
//! account settings only the admin command can change.

use crate::TestApp;

impl TestApp {
    pub async fn client(&self, name: &str, kind: &str) -> String {
        self.create_xml("/api/1.0/client", &format!("<clientBean><name>{name}</name><type>{kind}</type></clientBean>")).await
    }

    pub async fn campaign(&self, name: &str, advertiser: &str) -> String {
        self.create_xml(
            "/api/1.0/campaign",
            &format!("<campaignBean><name>{name}</name><advertiserId>{advertiser}</advertiserId></campaignBean>"),
        )
        .await
    }
    /// A goal through the API: `type`, `goalValue`, start/end offsets in days from now.
    pub async fn goal(&self, campaign: &str, kind: &str, start_days: i64, end_days: Option<i64>, extra: &str) -> String {
        let now = web::clock::Clock::now(self.clock.as_ref());
        let ts = |d: i64| (now + chrono::Duration::days(d)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let value = if kind == "SHARE_OF_VOICE" { "0.5" } else { "100000" };
        let end = end_days.map(|d| format!("<end>{}</end>", ts(d))).unwrap_or_default();
        self.create_xml(
            "/api/1.0.cpvext/goal",
            &format!(
                "<goalBean><campaignId>{campaign}</campaignId><type>{kind}</type><variant>NORMAL</variant><goalValue>{value}</goalValue>\
                 <start>{}</start>{end}{extra}</goalBean>",
                ts(start_days)
            ),
        )
        .await
    }

    /// An enabled campaign (with its advertiser) and an impression goal flying from now for
    /// ten days: (campaign, goal).
    pub async fn live_goal(&self) -> (String, String) {
        let adv = self.client("Adv", "ADVERTISER").await;
        let c = self
            .create_xml(
                "/api/1.0/campaign",
                &format!("<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><enabled>true</enabled></campaignBean>"),
            )
            .await;
        let g = self.goal(&c, "IMPRESSION", 0, Some(10), "").await;
        (c, g)
    }

    /// An advertiser and a campaign for it.
    pub async fn advertiser_campaign(&self) -> (String, String) {
        let adv = self.client("Adv", "ADVERTISER").await;
        let c = self.campaign("C", &adv).await;
        (adv, c)
    }

    /// Changes an account's settings in the store (what the admin command would do).
    pub async fn set_account(&self, id: &str, change: impl FnOnce(&mut web::model::account::Account)) {
        let key = web::keys::account(id);
        let cur = web::repo::get::<web::model::account::Account>(self.store.as_ref(), &key).await.unwrap().unwrap();
        let mut a = cur.value.clone();
        change(&mut a);
        self.store.put(web::repo::next(&cur.item, &a).unwrap(), web::store::Cond::Version(cur.version())).await.unwrap();
        web::repo::accounts::write_delivery_copy(self.store.as_ref(), &a).await.unwrap();
    }
}
