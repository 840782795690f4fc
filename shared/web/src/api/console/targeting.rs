//! Targeting rules on a campaign's or goal's page: read in words, the categories edited as
//! checkboxes (a typed command of the rules use case), and the whole rules bean as XML
//! typed by the person for the rest (checked as `PUT .../rules` checks it).

use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use maud::html;

use super::error::{ConsoleError, ConsoleResult};
use super::form::{self, Problems, Spec};
use super::{page, redirect, ConsoleForm, ConsoleUser};
use crate::api::Within;
use crate::model::account::Account;
use crate::model::enums::{RuleType, VariableType};
use crate::model::rules::{words, Parent};
use crate::state::AppState;
use crate::usecases::{reference, rules, UseCaseError};
use crate::xml::XmlOut;

/// The rules of `id` as one sentence, with the names of the categories and partners.
pub async fn sentence(st: &AppState, a: &Account, parent: Parent, id: &str) -> ConsoleResult<String> {
    let r = rules::read(st, &a.id, parent, id).await?;
    let names = names(st, a).await?;
    Ok(words::sentence(&r, &|rid: &str| names.iter().find(|(i, _)| i == rid).map(|(_, n)| n.clone()).unwrap_or_else(|| rid.to_string())))
}

async fn names(st: &AppState, a: &Account) -> ConsoleResult<Vec<(String, String)>> {
    let cats = reference::categories(st, &a.id).await?;
    let partners = reference::partners(st, &a.id).await?;
    Ok(cats.into_iter().map(|c| (c.id, c.name)).chain(partners.into_iter().map(|p| (p.id, p.name))).collect())
}

fn parent_of(kind: &str) -> Option<(Parent, &'static str)> {
    match kind {
        "campaigns" => Some((Parent::Campaign, "campaigns")),
        "goals" => Some((Parent::Goal, "goals")),
        _ => None,
    }
}

/// The two forms' fields: the rules bean typed by the person is shown at its text area.
const SPECS: &[Spec] = &[Spec { name: "rules-xml", label: "Rules (XML)", api: &["rulesBean"] }];

fn parent_or_404(kind: &str) -> ConsoleResult<(Parent, &'static str)> {
    parent_of(kind).ok_or_else(|| ConsoleError::from(UseCaseError::not_found("page", kind)))
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path((kind, id)): Path<(String, String)>) -> ConsoleResult {
    let (parent, kind) = parent_or_404(&kind)?;
    render(&st, &user, parent, kind, &id, None, Problems::default()).await
}

async fn render(
    st: &AppState,
    user: &ConsoleUser,
    parent: Parent,
    kind: &str,
    id: &str,
    xml: Option<String>,
    p: Problems,
) -> ConsoleResult {
    let a = &user.account;
    let r = rules::read(st, &a.id, parent, id).await?;
    let cats = reference::categories(st, &a.id).await?;
    let said = sentence(st, a, parent, id).await.unwrap_or_default();
    let has = |cid: &str, rt: RuleType| {
        r.content.iter().any(|c| c.variable_type == VariableType::Site && c.resource_id == cid && c.rule_type == rt)
    };
    let xml = xml.unwrap_or_else(|| {
        let mut o = XmlOut::new();
        r.write(&mut o);
        o.finish()
    });
    let back = format!("/console/{kind}/{id}");
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let body = html! {
        p { a href=(back) { "← Back" } }
        h1 { "Targeting" }
        p { (said) }
        (form::summary(&p))
        @if user.writes() {
            h2 { "Categories" }
            form method="post" action=(form::action(user, &format!("{back}/targeting"))) {
                (form::csrf(user))
                input type="hidden" name="mode" value="categories";
                table {
                    thead { tr { th scope="col" { "Category" } th scope="col" { "Only these (any of)" } th scope="col" { "Never these" } } }
                    tbody {
                        @for c in &cats {
                            tr {
                                td { (c.name) }
                                td { input type="checkbox" name="include" value=(c.id) checked[has(&c.id, RuleType::AtLeastOneOf)] aria-label={ "Only " (c.name) }; }
                                td { input type="checkbox" name="exclude" value=(c.id) checked[has(&c.id, RuleType::NoneOf)] aria-label={ "Never " (c.name) }; }
                            }
                        }
                    }
                }
                button type="submit" { "Save categories" }
            }
            h2 { "All rules as XML" }
            form method="post" action=(form::action(user, &format!("{back}/targeting"))) {
                (form::csrf(user))
                input type="hidden" name="mode" value="xml";
                label for="rules-xml" { "Rules (XML)" }
                span.hint id="rules-xml-hint" { "The rules bean of the XML interface: content, frequency caps, locations, time, IP, user agent, audience and custom parameters." }
                textarea #rules-xml name="xml" aria-describedby="rules-xml-hint" spellcheck="false" { (xml) }
                button type="submit" { "Save rules" }
            }
        }
    };
    Ok(page::with_status(page::page("Targeting", Some(user), body), status))
}

/// The two forms' fields (checkboxes repeat).
#[derive(serde::Deserialize, Default)]
pub struct RulesForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    mode: String,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    xml: String,
}

pub async fn save(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path((kind, id)): Path<(String, String)>,
    ConsoleForm(f): ConsoleForm<RulesForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let (parent, kind) = parent_or_404(&kind)?;
    let a = &user.account;
    let saved = if f.mode == "xml" {
        match crate::xml::parse(f.xml.as_bytes()) {
            Ok(doc) => rules::replace(&st, &a.id, parent, &id, &doc).await,
            Err(e) => Err(e.into()),
        }
    } else {
        rules::set_categories(&st, &a.id, parent, &id, &f.include, &f.exclude).await
    };
    match saved {
        Ok(()) => Ok(redirect(&format!("/console/{kind}/{id}?saved=1"))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            render(&st, &user, parent, kind, &id, (f.mode == "xml").then_some(f.xml), p).await
        }
    }
}
