//! Seed files: accounts, API keys and reference data, loaded by the admin command and the
//! local server into whichever store is configured. Format: docs/seed-file.md.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::ids::{hash_key, new_api_key, plausible_id};
use crate::keys;
use crate::model::account::*;
use crate::repo;
use crate::store::{Cond, Store, StoreError};

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SeedFile {
    pub accounts: Vec<SeedAccount>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SeedAccount {
    pub id: String,
    pub name: String,
    /// Keys to install; none: the admin command generates one and prints it.
    #[serde(default)]
    pub api_keys: Vec<String>,
    /// The name change history shows for these keys (`keyName`); default `seeded`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_name: Option<String>,
    #[serde(default = "utc")]
    pub time_zone: String,
    #[serde(default = "five")]
    pub global_priority: u8,
    #[serde(default)]
    pub global_frontload: u8,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub features: Features,
    #[serde(default)]
    pub ad_formats: Vec<String>,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default)]
    pub categories: Vec<Category>,
    #[serde(default)]
    pub content_partners: Vec<ContentPartner>,
    #[serde(default)]
    pub banner_areas: Vec<BannerArea>,
    #[serde(default)]
    pub device_containers: Vec<DeviceContainer>,
    #[serde(default)]
    pub audience_providers: Vec<AudienceProvider>,
    #[serde(default)]
    pub custom_parameters: Vec<CustomParameter>,
    #[serde(default)]
    pub traffic_profile: Option<crate::model::account::TrafficProfile>,
}

fn utc() -> String {
    "UTC".into()
}
fn five() -> u8 {
    5
}

/// Whether the local server may seed the demo accounts (their API keys are in the
/// repository) into the configured store: always into the embedded or in-memory store; into
/// DynamoDB only when the endpoint is an emulator on this machine (`AWS_ENDPOINT_URL` on
/// loopback, or a `localstack` host), or when `SEED_DEMO=1` says so explicitly. A real
/// table gets accounts only from a seed file the operator names.
pub fn demo_seed_allowed(cfg: &crate::settings::StoreConfig, endpoint: Option<&str>, forced: bool) -> bool {
    use crate::settings::StoreConfig;
    if forced {
        return true;
    }
    match cfg {
        StoreConfig::Embedded(_) | StoreConfig::Memory => true,
        StoreConfig::DynamoDb { .. } => endpoint.is_some_and(|e| {
            let host = e.split("://").nth(1).unwrap_or(e).split(['/', '?']).next().unwrap_or("");
            let host = match host.rsplit_once(':') {
                Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
                _ => host,
            };
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host == "localhost" || host == "localstack" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }),
    }
}

/// The API keys of `file` that are public: the demo seed's (they are in the repository).
pub fn public_keys_in(file: &SeedFile) -> Vec<String> {
    let Ok(demo) = SeedFile::parse(DEMO_SEED) else { return Vec::new() };
    let public: std::collections::HashSet<&String> = demo.accounts.iter().flat_map(|a| &a.api_keys).collect();
    file.accounts.iter().flat_map(|a| &a.api_keys).filter(|k| public.contains(k)).cloned().collect()
}

pub use crate::model::zone::zone_table;

impl SeedAccount {
    pub fn account(&self) -> Account {
        Account {
            id: self.id.clone().into(),
            name: self.name.clone(),
            time_zone: self.time_zone.clone(),
            zone: zone_table(&self.time_zone),
            global_priority: self.global_priority,
            global_frontload: self.global_frontload,
            region: self.region.clone(),
            features: self.features.clone(),
            ad_formats: self.ad_formats.clone(),
            limits: self.limits.clone(),
            traffic_profile: self.traffic_profile.clone(),
        }
    }

    /// Every rule a seed must satisfy; all problems are reported together.
    pub fn validate(&self) -> Vec<String> {
        let mut e = Vec::new();
        let at = |m: String| format!("account {}: {m}", self.id);
        if self.api_key_name.as_deref().is_some_and(|n| n.trim().is_empty() || n.chars().count() > crate::limits::NAME_MAX) {
            e.push(at(format!("apiKeyName is 1 to {} characters", crate::limits::NAME_MAX)));
        }
        if let Some(p) = &self.traffic_profile {
            if p.requests_per_day > 10_000_000_000 {
                e.push(at("trafficProfile.requestsPerDay is at most 10,000,000,000".into()));
            }
            if !(p.hourly_shares.is_empty() || p.hourly_shares.len() == 24) || p.hourly_shares.iter().any(|s| !s.is_finite() || *s < 0.0) {
                e.push(at("trafficProfile.hourlyShares holds 24 non-negative numbers (or is left out)".into()));
            }
            for (name, m) in [
                ("formatShares", &p.format_shares),
                ("categoryShares", &p.category_shares),
                ("deviceContainerShares", &p.device_container_shares),
            ] {
                if m.values().any(|s| !s.is_finite() || *s < 0.0) || m.values().sum::<f64>() > 1.0001 {
                    e.push(at(format!("trafficProfile.{name}: shares from 0 to 1 that add up to at most 1")));
                }
            }
            if p.tag_shares.values().any(|s| !s.is_finite() || !(0.0..=1.0).contains(s)) {
                e.push(at("trafficProfile.tagShares: each a probability from 0 to 1".into()));
            }
        }
        if !plausible_id(&self.id) {
            e.push(at(format!("id must be 1-{} letters, digits, '-' or '_'", crate::limits::MAX_ID_LEN)));
        }
        if self.name.trim().is_empty() {
            e.push(at("name is required".into()));
        }
        if self.time_zone.parse::<chrono_tz::Tz>().is_err() {
            e.push(at(format!("timeZone {:?} is not an IANA time zone", self.time_zone)));
        }
        if !(1..=10).contains(&self.global_priority) {
            e.push(at("globalPriority must be 1 to 10".into()));
        }
        if self.global_frontload > 100 || !self.global_frontload.is_multiple_of(10) {
            e.push(at("globalFrontload must be 0 to 100 in steps of 10".into()));
        }
        if let Some(r) = &self.region {
            if r != "eu" && r != "asia" {
                e.push(at("region must be eu or asia".into()));
            }
        }
        for f in &self.ad_formats {
            if !AD_FORMATS.contains(&f.as_str()) {
                e.push(at(format!("adFormats: unknown format {f:?} (known: {})", AD_FORMATS.join(", "))));
            }
        }
        for k in &self.api_keys {
            if k.len() < 16 || !k.chars().all(|c| c.is_ascii_graphic()) {
                e.push(at("apiKeys must be at least 16 printable ASCII characters".into()));
            }
        }
        let mut ids = |kind: &str, list: Vec<&String>| {
            let mut seen = HashSet::new();
            for id in list {
                if !plausible_id(id) {
                    e.push(at(format!("{kind} id {id:?} is not a valid id")));
                }
                if !seen.insert(id.clone()) {
                    e.push(at(format!("{kind} id {id} appears twice")));
                }
            }
        };
        ids("category", self.categories.iter().map(|c| &c.id).collect());
        ids("content partner", self.content_partners.iter().map(|c| &c.id).collect());
        ids("banner area", self.banner_areas.iter().map(|c| &c.id).collect());
        ids("device container", self.device_containers.iter().map(|c| &c.id).collect());
        ids("audience provider", self.audience_providers.iter().map(|c| &c.id).collect());
        if !self.categories.is_empty() {
            let roots = self.categories.iter().filter(|c| c.parents.is_empty()).count();
            if roots != 1 {
                e.push(at(format!("categories must form one tree with exactly one root (found {roots} roots)")));
            }
            let known: HashSet<&String> = self.categories.iter().map(|c| &c.id).collect();
            for c in &self.categories {
                for p in &c.parents {
                    if !known.contains(p) || p == &c.id {
                        e.push(at(format!("category {} names unknown parent {p}", c.id)));
                    }
                }
            }
        }
        if self.audience_providers.len() as u32 > self.limits.audience_provider_integrations {
            e.push(at(format!(
                "{} audience providers exceed the limit of {} integrations",
                self.audience_providers.len(),
                self.limits.audience_provider_integrations
            )));
        }
        for p in &self.audience_providers {
            let mut keys = HashSet::new();
            for s in &p.segmentations {
                if !keys.insert(&s.key) {
                    e.push(at(format!("provider {}: segmentation key {} appears twice", p.id, s.key)));
                }
                let mut seg_keys = HashSet::new();
                for g in &s.segments {
                    if !seg_keys.insert(&g.key) {
                        e.push(at(format!("provider {}: segment key {} appears twice in {}", p.id, g.key, s.key)));
                    }
                }
            }
        }
        for p in &self.custom_parameters {
            if p.name.is_empty() || !p.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                e.push(at(format!("custom parameter name {:?} must be letters, digits, '_' or '-'", p.name)));
            }
        }
        e
    }
}

impl SeedFile {
    pub fn parse(text: &str) -> Result<SeedFile, String> {
        let f: SeedFile = serde_json::from_str(text).map_err(|e| format!("seed file: {e}"))?;
        let errors: Vec<String> = f.accounts.iter().flat_map(SeedAccount::validate).collect();
        if errors.is_empty() {
            Ok(f)
        } else {
            Err(errors.join("\n"))
        }
    }
}

/// What seeding an account produced: the keys installed (generated ones included).
#[derive(Debug, Clone)]
pub struct Seeded {
    pub account_id: String,
    pub name: String,
    pub api_keys: Vec<String>,
}

/// Upserts every account of the file: settings, keys, reference data. Re-running it is
/// safe; a key already held by another account is refused.
pub async fn apply(store: &dyn Store, file: &SeedFile) -> Result<Vec<Seeded>, String> {
    apply_with(store, file, &|| {}).await
}

/// `apply`, calling `tick` after each record written (the admin command's progress bar;
/// `seed_plan::record_count` is the total).
pub async fn apply_with(store: &dyn Store, file: &SeedFile, tick: &(dyn Fn() + Send + Sync)) -> Result<Vec<Seeded>, String> {
    let mut out = Vec::new();
    for a in &file.accounts {
        out.push(apply_account(store, a, tick).await.map_err(|e| format!("account {}: {e}", a.id))?);
    }
    Ok(out)
}

async fn apply_account(store: &dyn Store, a: &SeedAccount, tick: &(dyn Fn() + Send + Sync)) -> Result<Seeded, StoreError> {
    let id = &a.id;
    let acct = a.account();
    store.put(repo::item(keys::account(id), &acct, 1).map_err(inv)?, Cond::None).await?;
    // The delivery engine's copy (the serving function reads no other account record).
    repo::accounts::write_delivery_copy(store, &acct).await.map_err(|e| StoreError::Invalid(e.to_string()))?;
    tick();
    let mut api_keys = a.api_keys.clone();
    // No keys in the file: one is generated for an account that has none (an exported
    // file, which never holds keys, re-imports without adding one).
    if api_keys.is_empty() && repo::accounts::list_keys(store, id).await.map_err(|e| StoreError::Invalid(e.to_string()))?.is_empty() {
        api_keys.push(new_api_key());
    }
    for k in &api_keys {
        let hash = hash_key(k);
        if let Some(existing) = store.get(&keys::api_key(&hash)).await? {
            let rec: KeyRecord = serde_json::from_str(&existing.body).map_err(inv)?;
            if rec.account_id != *id {
                return Err(StoreError::Invalid("an API key of the seed belongs to another account".into()));
            }
            if existing.gsi1.is_none() {
                // A key stored before keys were listed by account: give it its index entry.
                let mut item = repo::accounts::key_item(&hash, &rec).map_err(inv)?;
                item.version = existing.version + 1;
                store.put(item, Cond::Version(existing.version)).await?;
                tick();
            }
            repo::access::adopt_key(store, id, &hash, &rec).await.map_err(|e| StoreError::Invalid(e.to_string()))?;
            continue;
        }
        let label = a.api_key_name.clone().unwrap_or_else(|| "seeded".into());
        let rec = KeyRecord {
            account_id: id.clone(),
            label: Some(label),
            created: Some(chrono::Utc::now()),
            role: Some(crate::model::access::Role::Admin),
        };
        store.put(repo::accounts::key_item(&hash, &rec).map_err(inv)?, Cond::NotExists).await?;
        repo::access::adopt_key(store, id, &hash, &rec).await.map_err(|e| StoreError::Invalid(e.to_string()))?;
        tick();
    }
    for c in &a.categories {
        store.put(repo::item(keys::record(id, keys::CATEGORY, &c.id), c, 1).map_err(inv)?, Cond::None).await?;
        tick();
    }
    for c in &a.content_partners {
        store.put(repo::item(keys::record(id, keys::PARTNER, &c.id), c, 1).map_err(inv)?, Cond::None).await?;
        tick();
    }
    for c in &a.banner_areas {
        store.put(repo::item(keys::record(id, keys::BANNER, &c.id), c, 1).map_err(inv)?, Cond::None).await?;
        tick();
    }
    for c in &a.device_containers {
        store.put(repo::item(keys::record(id, keys::DEVICE, &c.id), c, 1).map_err(inv)?, Cond::None).await?;
        tick();
    }
    for c in &a.audience_providers {
        store.put(repo::item(keys::record(id, keys::PROVIDER, &c.id), c, 1).map_err(inv)?, Cond::None).await?;
        tick();
    }
    for c in &a.custom_parameters {
        store.put(repo::item(keys::record(id, keys::ACP, &c.name), c, 1).map_err(inv)?, Cond::None).await?;
        tick();
    }
    // The /v3 name indexes of an account seeded before they existed.
    repo::reindex::ensure(store, id).await.map_err(|e| StoreError::Invalid(e.to_string()))?;
    // Time zone and priorities feed the delivery engine's snapshot.
    crate::repo::delivery::changed(store, id).await;
    Ok(Seeded { account_id: id.clone(), name: a.name.clone(), api_keys })
}

fn inv<E: std::fmt::Display>(e: E) -> StoreError {
    StoreError::Invalid(e.to_string())
}

/// The demo seed the local server loads on first start (two accounts).
pub const DEMO_SEED: &str = include_str!("../../../infra/seed/demo.json");

#[cfg(test)]
mod tests {

    #[test]
    fn demo_keys_only_reach_local_stores() {
        use crate::settings::StoreConfig;
        let dynamo = StoreConfig::DynamoDb { table: "t".into(), create: false };
        assert!(demo_seed_allowed(&StoreConfig::Memory, None, false));
        assert!(demo_seed_allowed(&StoreConfig::Embedded("x".into()), Some("https://dynamodb.eu-west-1.amazonaws.com"), false));
        assert!(!demo_seed_allowed(&dynamo, None, false), "AWS itself");
        assert!(!demo_seed_allowed(&dynamo, Some("https://dynamodb.eu-west-1.amazonaws.com"), false));
        assert!(!demo_seed_allowed(&dynamo, Some("http://10.0.0.5:4566"), false));
        assert!(!demo_seed_allowed(&dynamo, Some("http://127.example.com:4566"), false));
        for local in ["http://127.0.0.1:5000", "http://localhost:4566", "http://localstack:4566", "http://[::1]:4566/"] {
            assert!(demo_seed_allowed(&dynamo, Some(local), false), "{local}");
        }
        assert!(demo_seed_allowed(&dynamo, None, true), "SEED_DEMO=1");
        let demo = SeedFile::parse(DEMO_SEED).unwrap();
        assert!(!public_keys_in(&demo).is_empty(), "the demo seed's keys are public");
        let own = SeedFile {
            accounts: demo
                .accounts
                .iter()
                .map(|a| SeedAccount { api_keys: vec!["own-key-0123456789abcdef".into()], ..a.clone() })
                .collect(),
        };
        assert!(public_keys_in(&own).is_empty());
    }

    #[test]
    fn zone_tables_match_the_tz_database() {
        use chrono::{Offset, TimeZone};
        let z = zone_table("Europe/Stockholm");
        // 2026: CEST from 29 March 01:00 UTC to 25 October 01:00 UTC.
        assert!(z.transitions.contains(&(1_774_746_000, 7200)) && z.transitions.contains(&(1_792_890_000, 3600)));
        // Every hour of 2020-2030 agrees with chrono-tz, for zones with and without DST.
        for name in ["Europe/Stockholm", "Asia/Singapore", "America/New_York", "Australia/Lord_Howe", "UTC"] {
            let z = zone_table(name);
            let tz: chrono_tz::Tz = name.parse().unwrap();
            for t in (1_577_836_800i64..1_893_456_000).step_by(3600) {
                let d = chrono::DateTime::from_timestamp(t, 0).unwrap();
                assert_eq!(z.offset_at(t), tz.offset_from_utc_datetime(&d.naive_utc()).fix().local_minus_utc(), "{name} at {d}");
            }
        }
        assert_eq!(zone_table("Nowhere/Atlantis"), crate::model::zone::Zone::fixed(0));
    }
    use super::*;

    #[test]
    fn demo_seed_is_valid() {
        let f = SeedFile::parse(DEMO_SEED).unwrap();
        assert_eq!(f.accounts.len(), 2);
        let a = &f.accounts[0];
        assert!(a.features.insertion_policy);
        for fmt in ["preroll", "midroll", "postroll"] {
            assert!(a.ad_formats.iter().any(|f| f == fmt));
        }
        assert!(!a.categories.is_empty() && !a.content_partners.is_empty() && !a.banner_areas.is_empty());
        assert!(!a.device_containers.is_empty() && !a.audience_providers.is_empty() && !a.custom_parameters.is_empty());
    }

    #[test]
    fn bad_seeds_are_refused_with_every_reason() {
        let text = r#"{"accounts":[{"id":"x/y","name":"","timeZone":"Mars/Base","globalPriority":0,"globalFrontload":15,
            "categories":[{"id":"a","name":"A"},{"id":"b","name":"B"}]}]}"#;
        let e = SeedFile::parse(text).unwrap_err();
        for part in ["id must be", "name is required", "timeZone", "globalPriority", "globalFrontload", "exactly one root"] {
            assert!(e.contains(part), "{part} missing in {e}");
        }
        assert!(SeedFile::parse(r#"{"accounts":[{"id":"a","name":"A","unknown":1}]}"#).is_err());
    }
}
