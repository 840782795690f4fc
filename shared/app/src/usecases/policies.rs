//! Insertion policies (seed 000 §2.6, §4.11; docs/insertion-policies.md): one use case per
//! operation, each only for an account with the feature (403 otherwise). A policy is
//! checked against the account's categories before it is stored.

use std::collections::HashSet;

use super::{UseCaseError, UseCaseResult};
use crate::ids::new_id;
use crate::json::Keyed;
use crate::model::account::Account;
use crate::model::policy::{validate, Policy, Ranking};
use crate::repo;

use crate::repo::reference::Kind;
use crate::repo::Versioned;
use crate::rule::Rule;
use crate::state::AppState;

/// The account may use insertion policies.
pub fn require_feature(a: &Account) -> UseCaseResult<()> {
    if a.features.insertion_policy {
        Ok(())
    } else {
        Err(UseCaseError::Forbidden("the insertion-policy feature is not enabled for this account".into()))
    }
}

/// The policy's rules checked against the account (its categories, its limits).
async fn checked(st: &AppState, a: &Account, p: &Policy) -> UseCaseResult<()> {
    let cats: HashSet<String> = repo::reference::ids(st.store.as_ref(), &a.id, Kind::Category).await?.into_iter().collect();
    let errors = validate(p, a, &cats);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(UseCaseError::validation(errors))
    }
}

/// A new policy (last in the ranking); the service assigns its id.
pub async fn create(st: &AppState, a: &Account, mut p: Policy) -> UseCaseResult<Policy> {
    require_feature(a)?;
    checked(st, a, &p).await?;
    if p.id.is_some() {
        return Err(UseCaseError::field("id", Rule::NotOnCreate, "id is set only when replacing; the service assigns ids"));
    }
    let id = new_id();
    p.id = Some(id.clone());
    let max = a.limits.insertion_policies as usize;
    let quota = |has: usize| match has >= max {
        true => {
            Err(repo::RepoError::Refused(format!("the account has {has} of {max} allowed insertion policies; remove obsolete ones first")))
        }
        false => Ok(()),
    };
    repo::policies::create(st.store.as_ref(), &a.id, &id, &p, quota).await?;
    Ok(p)
}

/// `PUT`: the policy named by the body's id (404 first), replaced; the new version.
pub async fn replace(st: &AppState, a: &Account, cmd: Keyed<Policy>, expected: Option<u64>) -> UseCaseResult<(Policy, u64)> {
    require_feature(a)?;
    let cur = repo::policies::load(st.store.as_ref(), &a.id, &cmd.id).await?;
    let p = cmd.body?;
    checked(st, a, &p).await?;
    let version = repo::policies::replace(st.store.as_ref(), &a.id, cur, expected, &p).await?;
    Ok((p, version))
}

/// A page of policies in rank order, and how many there are.
pub async fn page(st: &AppState, a: &Account, size: usize, number: usize) -> UseCaseResult<(Vec<Policy>, usize)> {
    require_feature(a)?;
    Ok(repo::policies::page(st.store.as_ref(), &a.id, size, number).await?)
}

pub async fn get(st: &AppState, a: &Account, id: &str) -> UseCaseResult<Versioned<Policy>> {
    require_feature(a)?;
    Ok(repo::policies::load(st.store.as_ref(), &a.id, id).await?)
}

pub async fn remove(st: &AppState, a: &Account, id: &str) -> UseCaseResult<()> {
    require_feature(a)?;
    Ok(repo::policies::remove(st.store.as_ref(), &a.id, id).await?)
}

pub async fn ranking(st: &AppState, a: &Account) -> UseCaseResult<Ranking> {
    require_feature(a)?;
    Ok(repo::policies::ranking(st.store.as_ref(), &a.id).await?)
}

/// Every policy exactly once, highest rank first.
pub async fn set_ranking(st: &AppState, a: &Account, ids: Vec<String>) -> UseCaseResult<Ranking> {
    require_feature(a)?;
    Ok(repo::policies::set_ranking(st.store.as_ref(), &a.id, ids).await?)
}
