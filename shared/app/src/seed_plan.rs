//! The admin command's reference-data tools (docs/seed-file.md): export an account as a
//! seed file, and the dry run of an import — what seeding a file would create, change or
//! leave as it is, read from the store, nothing written.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::ids::hash_key;
use crate::keys;
use crate::model::account::{Account, AudienceProvider, BannerArea, Category, ContentPartner, CustomParameter, DeviceContainer};
use crate::repo::reference::{self, Kind};
use crate::seed::{SeedAccount, SeedFile};
use crate::store::Store;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// An account as a seed file account: settings, traffic profile and every reference record.
/// API keys are not exported (only their hashes are stored).
pub async fn export_account(store: &dyn Store, id: &str) -> Result<SeedAccount, String> {
    let a: Account = crate::repo::accounts::get(store, id).await.map_err(|e| e.to_string())?.ok_or_else(|| format!("no account {id}"))?;
    Ok(SeedAccount {
        id: a.id.to_string(),
        name: a.name.clone(),
        api_keys: Vec::new(),
        api_key_name: None,
        time_zone: a.time_zone.clone(),
        global_priority: a.global_priority,
        global_frontload: a.global_frontload,
        region: a.region.clone(),
        features: a.features.clone(),
        ad_formats: a.ad_formats.clone(),
        limits: a.limits.clone(),
        categories: reference::all(store, id, Kind::Category).await.map_err(err)?,
        content_partners: reference::all(store, id, Kind::ContentPartner).await.map_err(err)?,
        banner_areas: reference::all(store, id, Kind::BannerArea).await.map_err(err)?,
        device_containers: reference::all(store, id, Kind::DeviceContainer).await.map_err(err)?,
        audience_providers: reference::all(store, id, Kind::AudienceProvider).await.map_err(err)?,
        custom_parameters: reference::all(store, id, Kind::CustomParameter).await.map_err(err)?,
        traffic_profile: a.traffic_profile.clone(),
    })
}

/// What an import would do to one kind of records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    pub new: usize,
    pub changed: usize,
    pub same: usize,
}

/// The dry run of one account.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub account: String,
    /// `new`, `changed` or `same` (settings, time zone, limits, traffic profile).
    pub settings: &'static str,
    pub new_keys: usize,
    pub records: Vec<(&'static str, Counts)>,
}

impl Plan {
    /// One line per account: `demo-alpha: account same; 0 new keys; categories 1 new, 0 changed, 4 same; …`.
    pub fn line(&self) -> String {
        let kinds: Vec<String> =
            self.records.iter().map(|(k, c)| format!("{k} {} new, {} changed, {} same", c.new, c.changed, c.same)).collect();
        format!("{}: account {}; {} new key(s); {}", self.account, self.settings, self.new_keys, kinds.join("; "))
    }

    pub fn writes(&self) -> usize {
        usize::from(self.settings != "same") + self.new_keys + self.records.iter().map(|(_, c)| c.new + c.changed).sum::<usize>()
    }
}

async fn compare<T: Serialize + DeserializeOwned>(
    store: &dyn Store,
    account: &str,
    kind: Kind,
    wanted: &[(String, &T)],
) -> Result<Counts, String> {
    let mut c = Counts::default();
    let stored: Vec<serde_json::Value> = reference::all(store, account, kind).await.map_err(err)?;
    for (id, w) in wanted {
        let w = serde_json::to_value(w).map_err(err)?;
        let key_field = if kind == Kind::CustomParameter { "name" } else { "id" };
        match stored.iter().find(|s| s.get(key_field).and_then(|v| v.as_str()) == Some(id.as_str())) {
            None => c.new += 1,
            Some(s) if *s == w => c.same += 1,
            Some(_) => c.changed += 1,
        }
    }
    Ok(c)
}

fn ids<T>(list: &[T], id: impl Fn(&T) -> &String) -> Vec<(String, &T)> {
    list.iter().map(|x| (id(x).clone(), x)).collect()
}

/// What seeding `file` would do, account by account, without writing anything.
pub async fn plan(store: &dyn Store, file: &SeedFile) -> Result<Vec<Plan>, String> {
    let mut out = Vec::new();
    for a in &file.accounts {
        let stored: Option<Account> = crate::repo::accounts::get(store, &a.id).await.map_err(|e| e.to_string())?;
        let mut wanted = a.account();
        let settings = match &stored {
            None => "new",
            Some(s) => {
                wanted.zone = s.zone.clone();
                if *s == wanted {
                    "same"
                } else {
                    "changed"
                }
            }
        };
        let mut new_keys = 0;
        for k in &a.api_keys {
            if store.get(&keys::api_key(&hash_key(k))).await.map_err(err)?.is_none() {
                new_keys += 1;
            }
        }
        if a.api_keys.is_empty() && crate::repo::accounts::list_keys(store, &a.id).await.map_err(|e| e.to_string())?.is_empty() {
            new_keys = 1;
        }
        let records = vec![
            ("categories", compare::<Category>(store, &a.id, Kind::Category, &ids(&a.categories, |c| &c.id)).await?),
            ("contentPartners", compare::<ContentPartner>(store, &a.id, Kind::ContentPartner, &ids(&a.content_partners, |c| &c.id)).await?),
            ("bannerAreas", compare::<BannerArea>(store, &a.id, Kind::BannerArea, &ids(&a.banner_areas, |c| &c.id)).await?),
            (
                "deviceContainers",
                compare::<DeviceContainer>(store, &a.id, Kind::DeviceContainer, &ids(&a.device_containers, |c| &c.id)).await?,
            ),
            (
                "audienceProviders",
                compare::<AudienceProvider>(store, &a.id, Kind::AudienceProvider, &ids(&a.audience_providers, |c| &c.id)).await?,
            ),
            (
                "customParameters",
                compare::<CustomParameter>(store, &a.id, Kind::CustomParameter, &ids(&a.custom_parameters, |c| &c.name)).await?,
            ),
        ];
        out.push(Plan { account: a.id.clone(), settings, new_keys, records });
    }
    Ok(out)
}

/// The number of records seeding `file` writes (the progress bar's length).
pub fn record_count(file: &SeedFile) -> usize {
    file.accounts
        .iter()
        .map(|a| {
            1 + a.api_keys.len().max(1)
                + a.categories.len()
                + a.content_partners.len()
                + a.banner_areas.len()
                + a.device_containers.len()
                + a.audience_providers.len()
                + a.custom_parameters.len()
        })
        .sum()
}
