//! Campaign and goal rules: one record per parent, `A#<a>#RULES / CAMPAIGN#<id>|GOAL#<id>`.

use super::RepoResult;
use crate::keys;
use crate::model::account::{AudienceProvider, Category, ContentPartner, CustomParameter};
use crate::model::rules::{Known, Parent, Rules};
use crate::store::{Cond, Store, TxOp};

use super::reference::{self, Kind};

/// The rules of a parent, or its empty rule set.
pub async fn read(store: &dyn Store, account: &str, parent: Parent, id: &str) -> RepoResult<Rules> {
    Ok(super::get::<Rules>(store, &keys::rules(account, parent, id)).await?.map(|v| v.value).unwrap_or_else(|| Rules::empty(id)))
}

/// Changes a parent's rules with a conditional write (re-read and re-applied on a lost race).
pub async fn update(
    store: &dyn Store,
    account: &str,
    parent: Parent,
    id: &str,
    change: impl Fn(&mut Rules) -> RepoResult<()>,
) -> RepoResult<()> {
    let key = keys::rules(account, parent, id);
    let mut tries = super::Attempts::new("rules", id, None);
    loop {
        let cur = store.get(&key).await?;
        tries.check(cur.as_ref().map_or(0, |c| c.version))?;
        let (mut rules, version, cond) = match &cur {
            Some(c) => (super::decode::<Rules>(c.clone())?.value, c.version + 1, Cond::Version(c.version)),
            None => (Rules::empty(id), 1, Cond::NotExists),
        };
        change(&mut rules)?;
        rules.parent_id = id.to_string();
        let ops = vec![TxOp::Put(super::item(key.clone(), &rules, version)?, cond)];
        if tries.commit(store, ops).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
        }
    }
}

/// The account's reference data that rules may name.
pub async fn known(store: &dyn Store, account: &str) -> RepoResult<Known> {
    let cats: Vec<Category> = reference::all(store, account, Kind::Category).await?;
    let partners: Vec<ContentPartner> = reference::all(store, account, Kind::ContentPartner).await?;
    let acps: Vec<CustomParameter> = reference::all(store, account, Kind::CustomParameter).await?;
    let providers: Vec<AudienceProvider> = reference::all(store, account, Kind::AudienceProvider).await?;
    Ok(Known {
        categories: cats.into_iter().map(|c| c.id).collect(),
        partners: partners.into_iter().map(|c| c.id).collect(),
        custom_parameters: acps.into_iter().map(|c| c.name).collect(),
        providers: providers
            .into_iter()
            .map(|p| {
                let sgs = p.segmentations.iter().map(|s| (s.id.clone(), s.segments.iter().map(|g| g.id.clone()).collect())).collect();
                (p.id, sgs)
            })
            .collect(),
    })
}
