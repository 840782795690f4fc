//! Campaign and goal rules (seed 001 §2.6): read, and replace with a rules bean checked
//! against the account's references as it is read (every error in one answer).

use super::UseCaseResult;
use crate::domain_error::{matches_path, DomainError};
use crate::ids::AccountId;
use crate::model::enums::{RuleType, VariableType};
use crate::model::rules::{parse_bean, Parent, ResourceRule, Rules};
use crate::repo;
use crate::state::AppState;
use crate::xml::{expect_root, Element};

/// The parent (campaign or goal) is the account's: 404 otherwise.
async fn existing(st: &AppState, account: &AccountId, parent: Parent, id: &str) -> UseCaseResult<()> {
    match parent {
        Parent::Campaign => {
            repo::campaigns::load(st.store.as_ref(), account, id).await?;
        }
        Parent::Goal => {
            repo::goals::load(st.store.as_ref(), account, id).await?;
        }
    }
    Ok(())
}

pub async fn read(st: &AppState, account: &AccountId, parent: Parent, id: &str) -> UseCaseResult<Rules> {
    existing(st, account, parent, id).await?;
    Ok(repo::rules::read(st.store.as_ref(), account, parent, id).await?)
}

/// Replaces the parent's rules with the bean `doc` (its `parentId`, when sent, is the path's).
pub async fn replace(st: &AppState, account: &AccountId, parent: Parent, id: &str, doc: &Element) -> UseCaseResult<()> {
    existing(st, account, parent, id).await?;
    let known = repo::rules::known(st.store.as_ref(), account).await?;
    let mut rules = parse_bean(expect_root(doc, "rulesBean")?, parent, &known)?;
    if !rules.parent_id.is_empty() {
        if let Some(e) = matches_path("rulesBean/parentId", &rules.parent_id, id) {
            return Err(DomainError::Validation(vec![e]).into());
        }
    }
    rules.parent_id = id.to_string();
    repo::rules::update(st.store.as_ref(), account, parent, id, |r| {
        *r = rules.clone();
        Ok(())
    })
    .await?;
    Ok(())
}

/// Sets the parent's category rules (the console's checkboxes): `include` as "at least one
/// of", `exclude` as "none of" (a category in both is included); every other rule stays.
/// Each category must be the account's (the rules bean's own check).
pub async fn set_categories(
    st: &AppState,
    account: &AccountId,
    parent: Parent,
    id: &str,
    include: &[String],
    exclude: &[String],
) -> UseCaseResult<()> {
    existing(st, account, parent, id).await?;
    let known = repo::rules::known(st.store.as_ref(), account).await?;
    let mut errors = Vec::new();
    for (i, c) in include.iter().chain(exclude).enumerate() {
        if let Err((rule, message)) = crate::model::rules::check::category_ref(&known, c) {
            errors.push(crate::domain_error::FieldError::new(format!("categories[{i}]"), rule, message));
        }
    }
    if !errors.is_empty() {
        return Err(DomainError::Validation(errors).into());
    }
    let rule = |rid: &String, rule_type| ResourceRule { resource_id: rid.clone(), rule_type, variable_type: VariableType::Site };
    let wanted: Vec<ResourceRule> = include
        .iter()
        .map(|c| rule(c, RuleType::AtLeastOneOf))
        .chain(exclude.iter().filter(|c| !include.contains(c)).map(|c| rule(c, RuleType::NoneOf)))
        .collect();
    repo::rules::update(st.store.as_ref(), account, parent, id, |r| {
        r.content.retain(|c| c.variable_type != VariableType::Site);
        r.content.extend(wanted.iter().cloned());
        Ok(())
    })
    .await?;
    Ok(())
}
