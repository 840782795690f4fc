//! Targeting templates (seed 002 §2.1-§2.3, §4.1; docs/targeting-templates.md): one use
//! case per operation. A template's rules apply to the campaigns and goals it is linked to
//! (and follow its edits); importing copies them once.

use crate::ids::AccountId;
use serde_json::Value;

use super::UseCaseResult;
use crate::domain_error::DomainError;
use crate::model::account::{Account, AudienceProvider, CustomParameter};
use crate::model::rules::{Parent, Rules};
use crate::model::template::{self, Template};
use crate::model::template_write::TemplateInput;
use crate::repo;
use crate::repo::reference::Kind;
use crate::repo::Versioned;
use crate::state::AppState;

/// A campaign or a goal a template is linked to (or imported into), as the query names it.
pub type Target = (Parent, String);

/// How many templates the account has against its limit.
pub struct Usage {
    pub active: i64,
    pub max: u32,
}

impl Usage {
    pub fn reached(&self) -> bool {
        self.active >= i64::from(self.max)
    }

    /// What the account is told when it is at its limit.
    pub fn message(&self) -> String {
        format!(
            "You are using {} of {} allowed targeting templates. Remove obsolete templates before creating new ones.",
            self.active, self.max
        )
    }
}

/// What a create came to.
pub enum Created {
    Done(Box<Template>),
    /// The account is at its limit.
    AtLimit(Usage),
}

pub async fn usage(st: &AppState, a: &Account) -> UseCaseResult<Usage> {
    Ok(Usage { active: repo::templates::count(st.store.as_ref(), &a.id).await?, max: a.limits.targeting_templates })
}

/// The target checked to be the account's campaign or goal (404 otherwise).
async fn existing(st: &AppState, account: &AccountId, target: Target) -> UseCaseResult<Target> {
    match target.0 {
        Parent::Campaign => {
            repo::campaigns::load(st.store.as_ref(), account, &target.1).await?;
        }
        Parent::Goal => {
            repo::goals::load(st.store.as_ref(), account, &target.1).await?;
        }
    }
    Ok(target)
}

/// The account's templates by name (case-insensitive), then id; with a target, only those
/// linked to it.
pub async fn list(st: &AppState, account: &AccountId, target: Option<Target>) -> UseCaseResult<Vec<Template>> {
    let mut templates = match target {
        None => repo::templates::all(st.store.as_ref(), account).await?,
        Some(t) => {
            let (parent, id) = existing(st, account, t).await?;
            repo::templates::linked_to(st.store.as_ref(), account, parent, &id).await?
        }
    };
    templates.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(templates)
}

pub async fn get(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Versioned<Template>> {
    Ok(repo::templates::load(st.store.as_ref(), account, id).await?)
}

/// A new, empty template, unless the account is at its limit.
pub async fn create(st: &AppState, a: &Account, input: TemplateInput) -> UseCaseResult<Created> {
    let max = a.limits.targeting_templates;
    let id = crate::ids::new_id();
    let t = Template { rules: Rules::empty(&id), id, name: input.name, site_id: a.id.to_string(), created: st.clock.now() };
    Ok(match repo::templates::create(st.store.as_ref(), &a.id, &t, max).await? {
        repo::templates::Created::Done => {
            tracing::info!(template = %t.id, "targeting template created");
            Created::Done(Box::new(t))
        }
        repo::templates::Created::AtLimit(active) => Created::AtLimit(Usage { active, max }),
    })
}

/// Renames template `id` (only the name changes): 404 first, then the body's errors.
pub async fn update(
    st: &AppState,
    account: &AccountId,
    id: &str,
    expected: Option<u64>,
    input: Result<TemplateInput, DomainError>,
) -> UseCaseResult<()> {
    let cur = repo::templates::load(st.store.as_ref(), account, id).await?;
    let name = input?.name;
    repo::templates::update(st.store.as_ref(), account, cur, expected, |t| {
        t.name = name.clone();
        Ok(())
    })
    .await?;
    Ok(())
}

/// Deletes a template; its links go with it.
pub async fn remove(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    repo::templates::remove(st.store.as_ref(), account, id).await?;
    tracing::info!(template = %id, "targeting template deleted and unlinked");
    Ok(())
}

/// A template's rules and the names they are shown with (the account's audience providers
/// and custom parameters).
pub struct TemplateRules {
    pub rules: Rules,
    pub providers: Vec<String>,
    pub custom_parameters: Vec<String>,
}

pub async fn rules(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<TemplateRules> {
    let t = repo::templates::load(st.store.as_ref(), account, id).await?;
    let providers: Vec<AudienceProvider> = repo::reference::all(st.store.as_ref(), account, Kind::AudienceProvider).await?;
    let acps: Vec<CustomParameter> = repo::reference::all(st.store.as_ref(), account, Kind::CustomParameter).await?;
    Ok(TemplateRules {
        rules: t.value.rules,
        providers: providers.into_iter().map(|p| p.id).collect(),
        custom_parameters: acps.into_iter().map(|c| c.name).collect(),
    })
}

/// Replaces a template's rules with the body (every bean checked against the account's
/// references as it is read, so every error comes in one answer).
pub async fn put_rules(st: &AppState, account: &AccountId, id: &str, body: &Value) -> UseCaseResult<()> {
    let cur = repo::templates::load(st.store.as_ref(), account, id).await?;
    let known = repo::rules::known(st.store.as_ref(), account).await?;
    let rules = template::parse_rules(body, &known, id)?;
    repo::templates::update(st.store.as_ref(), account, cur, None, |t| {
        t.rules = rules.clone();
        Ok(())
    })
    .await?;
    Ok(())
}

/// Copies a template's rules into the target's rules.
pub async fn import(st: &AppState, account: &AccountId, id: &str, target: Result<Target, DomainError>) -> UseCaseResult<()> {
    let t = repo::templates::load(st.store.as_ref(), account, id).await?;
    let (parent, target_id) = existing(st, account, target?).await?;
    repo::rules::update(st.store.as_ref(), account, parent, &target_id, |r| Ok(r.merge(&t.value.rules, parent)?)).await?;
    tracing::info!(template = %id, target = %target_id, "template rules imported");
    Ok(())
}

/// Links a template to the target (also when already linked).
pub async fn link(st: &AppState, account: &AccountId, id: &str, target: Result<Target, DomainError>) -> UseCaseResult<()> {
    repo::templates::load(st.store.as_ref(), account, id).await?;
    let (parent, target_id) = existing(st, account, target?).await?;
    Ok(repo::templates::link(st.store.as_ref(), account, id, parent, &target_id).await?)
}

/// Removes a template's link to the target (also when there was none).
pub async fn unlink(st: &AppState, account: &AccountId, id: &str, target: Result<Target, DomainError>) -> UseCaseResult<()> {
    repo::templates::load(st.store.as_ref(), account, id).await?;
    let (parent, target_id) = existing(st, account, target?).await?;
    Ok(repo::templates::unlink(st.store.as_ref(), account, id, parent, &target_id).await?)
}
