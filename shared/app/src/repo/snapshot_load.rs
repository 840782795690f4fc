//! What a snapshot is compiled from, read from the store: the account's records within the
//! memory bound (`load`), one ad's records for a preview (`of_ad`), and a generated
//! account's records as items (`items`, the benchmarks and `admin seed-synthetic`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::RepoResult;
use crate::delivery::snapshot::Input;
use crate::keys;
use crate::model::account::Category;
use crate::model::ad::Ad;
use crate::model::asset::Asset;
use crate::model::campaign::Campaign;
use crate::model::goal::Goal;
use crate::model::rules::Parent;
use crate::model::rules::Rules;
use crate::model::template::Template;
use crate::repo::{self, reference::Kind};
use crate::store::{Key, Query, Store};

/// The most stored goals and ads a snapshot is compiled from (`Settings::delivery_max_goals`,
/// `delivery_max_ads`; `limits::SNAPSHOT_MAX_GOALS`, `SNAPSHOT_MAX_ADS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub goals: usize,
    pub ads: usize,
}

/// The records of one partition, decoded a page at a time; past `max` the read stops and
/// the account is refused (what a serving process holds stays bounded).
async fn bounded<T: serde::de::DeserializeOwned>(
    store: &dyn Store,
    account: &str,
    kind: &str,
    max: usize,
    setting: &str,
) -> RepoResult<Vec<T>> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.query(Query::partition(keys::partition(account, kind)).after(cursor)).await?;
        if out.len() + page.items.len() > max {
            let what = if kind == keys::GOAL { "goals" } else { "ads" };
            tracing::error!(account, what, max, "account past the serving bound; its snapshot is not compiled");
            return Err(super::RepoError::Refused(format!(
                "account {account} has more than {max} {what} stored, the most one serving process compiles a snapshot from \
                 ({setting}); archived and deleted records count until they are removed: remove some, or raise {setting} \
                 with the serving function's memory"
            )));
        }
        for item in page.items {
            out.push(repo::decode::<T>(item)?.value);
        }
        match page.next {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}

/// What can serve at `now`: the open campaigns (neither archived nor deleted), their goals
/// that are not deleted and have not ended, those goals' ads, and the rules of both. An
/// account's history (archived campaigns, deleted and ended goals) is never read, and the
/// bound applies to what can serve alone: past it the account is refused
/// (`RepoError::Refused`) before the goals are read.
async fn servable(
    store: &dyn Store,
    account: &str,
    bound: Bound,
    now: DateTime<Utc>,
) -> RepoResult<(Vec<Campaign>, Vec<Goal>, Vec<Ad>, Vec<Key>)> {
    let campaigns = repo::campaigns::open(store, account).await?;
    let live: Vec<String> = campaigns
        .iter()
        .flat_map(|c| c.goals.iter().filter(|g| !g.deleted && g.end.is_none_or(|e| e > now)).map(|g| g.id.clone()))
        .collect();
    if live.len() > bound.goals {
        return Err(past_bound(account, "live goals", live.len(), bound.goals, "DELIVERY_MAX_GOALS"));
    }
    let goals: Vec<Goal> = repo::goals::by_ids(store, account, &live).await?.into_iter().filter(|g| g.deleted_at.is_none()).collect();
    let ad_ids: Vec<String> = goals.iter().flat_map(|g| g.ads.iter().map(|a| a.id.clone())).collect();
    if ad_ids.len() > bound.ads {
        return Err(past_bound(account, "ads in live goals", ad_ids.len(), bound.ads, "DELIVERY_MAX_ADS"));
    }
    let ads = repo::ads::by_ids(store, account, &ad_ids).await?;
    let rule_keys = goals
        .iter()
        .map(|g| keys::rules(account, Parent::Goal, &g.id))
        .chain(campaigns.iter().map(|c| keys::rules(account, Parent::Campaign, &c.id)))
        .collect();
    Ok((campaigns, goals, ads, rule_keys))
}

/// The refusal of an account with more than `max` of `what` (`setting` raises it).
fn past_bound(account: &str, what: &str, n: usize, max: usize, setting: &str) -> super::RepoError {
    tracing::error!(account, what, n, max, "account past the serving bound; its snapshot is not compiled");
    super::RepoError::Refused(format!(
        "account {account} has {n} {what}, more than the {max} one serving process compiles a snapshot from ({setting}): \
         the snapshot compiled last is served meanwhile; archive ended campaigns or end some goals, or raise {setting} \
         with the serving function's memory"
    ))
}

/// Reads what a snapshot is compiled from at `now`: account, what can serve (campaigns,
/// goals, ads: [`servable`]), their assets, rules, linked templates, categories and the
/// ranked policies. An account past `bound` is refused (`RepoError::Refused`) before the
/// rest is read. An account written before the open campaigns' index is read whole until
/// `reindex::rebuild` has run.
pub async fn load(store: &dyn Store, account: &str, version: u64, media_base: &str, bound: Bound, now: DateTime<Utc>) -> RepoResult<Input> {
    let Some(acc) = repo::accounts::for_delivery(store, account).await? else {
        // No such account: an empty snapshot (the caller answers 404), nothing else read.
        return Ok(Input { version, ..Input::default() });
    };
    let acc = Some(acc);
    let (campaigns, goals, ads, rule_keys) = if repo::name_index::open_indexed(store, account).await? {
        let (c, g, a, k) = servable(store, account, bound, now).await?;
        (c, g, a, Some(k))
    } else {
        let goals: Vec<Goal> = bounded(store, account, keys::GOAL, bound.goals, "DELIVERY_MAX_GOALS").await?;
        let ads: Vec<Ad> = bounded(store, account, keys::AD, bound.ads, "DELIVERY_MAX_ADS").await?;
        (repo::campaigns::all(store, account).await?, goals, ads, None)
    };
    let asset_keys: Vec<Key> = {
        let mut ids: Vec<&String> = ads.iter().filter(|a| a.enabled).filter_map(|a| a.creative.asset_id.as_ref()).collect();
        ids.sort();
        ids.dedup();
        ids.into_iter().map(|id| keys::record(account, keys::ASSET, id)).collect()
    };
    let mut assets = HashMap::new();
    for chunk in asset_keys.chunks(100) {
        for item in store.batch_get(chunk).await? {
            let a = repo::decode::<Asset>(item)?.value;
            assets.insert(a.id.clone(), a);
        }
    }
    let rule_items = match rule_keys {
        Some(k) => store.batch_get(&k).await?,
        None => repo::all_items(store, Query::partition(keys::partition(account, keys::RULES))).await?,
    };
    let mut rules = Vec::new();
    for item in rule_items {
        let Some(owner) = keys::rules_owner(&item.sk) else { continue };
        rules.push((owner, repo::decode::<Rules>(item)?.value));
    }
    let mut linked: HashMap<crate::model::rules::Owner, Vec<Rules>> = HashMap::new();
    for t in repo::templates::all(store, account).await? {
        let t: Template = t;
        for link in repo::all_items(store, Query::partition(keys::template_links(account, &t.id))).await? {
            if let Some(owner) = keys::rules_owner(&link.sk) {
                linked.entry(owner).or_default().push(t.rules.clone());
            }
        }
    }
    let categories: Vec<Category> = repo::reference::all(store, account, Kind::Category).await?;
    let partners = repo::reference::ids(store, account, Kind::ContentPartner).await?;
    let device_containers = repo::reference::ids(store, account, Kind::DeviceContainer).await?;
    let (policies, _) = repo::policies::page(store, account, 10_000, 1).await?;
    let demand_partners = repo::collection::all(store, account).await?.into_iter().map(|e| e.record).collect();
    let marketplaces = repo::collection::all(store, account).await?.into_iter().map(|e| e.record).collect();
    Ok(Input {
        account: acc,
        version,
        campaigns,
        goals,
        ads,
        assets,
        rules,
        linked,
        categories,
        partners,
        device_containers,
        policies,
        media_base: media_base.to_string(),
        demand_partners,
        marketplaces,
    })
}

/// The generated account's records as stored items of account `account` (campaigns,
/// goals, ads, rules, categories), with their index keys, for the benchmarks and `admin
/// seed-synthetic`.
pub fn items(account: &str, input: &Input) -> RepoResult<Vec<crate::store::Item>> {
    use super::item;
    let mut out = Vec::new();
    for c in &input.campaigns {
        let k = keys::record(account, keys::CAMPAIGN, &c.id);
        out.push(super::campaigns::item(account, c, crate::store::Item { pk: k.pk, sk: k.sk, version: 1, ..Default::default() })?);
    }
    for g in &input.goals {
        out.push(super::goals::stored_item(account, g, crate::store::Item { version: 1, ..Default::default() })?);
    }
    for a in &input.ads {
        let mut it = item(keys::record(account, keys::AD, &a.id), a, 1)?;
        it.gsi2 =
            Some((keys::ads_by_created(account), format!("{}#{}", a.created.to_rfc3339_opts(chrono::SecondsFormat::Micros, true), a.id)));
        out.push(it);
    }
    for ((parent, id), r) in &input.rules {
        out.push(item(keys::rules(account, *parent, id), r, 1)?);
    }
    for c in &input.categories {
        out.push(item(keys::record(account, keys::CATEGORY, &c.id), c, 1)?);
    }
    Ok(out)
}

/// What a preview of one ad is compiled from: the account, the ad (a live one), its goal,
/// its campaign and its asset; `None` when the ad is not the account's.
pub async fn of_ad(
    store: &dyn Store,
    account: &str,
    ad: &str,
    media_base: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> RepoResult<Option<Input>> {
    let Some(acc) = repo::accounts::for_delivery(store, account).await? else { return Ok(None) };
    let (ad, goal) = match repo::ads::load_live(store, account, ad).await {
        Ok((a, g)) => (a.value, g.value),
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(campaign) = repo::campaigns::get_any(store, account, &goal.campaign_id).await? else { return Ok(None) };
    let mut assets = HashMap::new();
    if let Some(id) = &ad.creative.asset_id {
        match repo::assets::load(store, account, id, now).await {
            Ok(a) => {
                assets.insert(a.value.id.clone(), a.value);
            }
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(Input {
        account: Some(acc),
        campaigns: vec![campaign],
        goals: vec![goal],
        ads: vec![ad],
        assets,
        media_base: media_base.to_string(),
        ..Input::default()
    }))
}
