//! Targeting rules on a campaign's or goal's page: read in words, the categories edited as
//! checkboxes, and the whole rules bean as XML for the rest (both saved through the rules
//! use case, as `PUT .../rules` would).

use axum::extract::{Form, Path};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use maud::html;

use super::form::{self, Problems};
use super::{page, redirect, ConsoleUser};
use crate::api::Within;
use crate::model::account::Account;
use crate::model::enums::{RuleType, VariableType};
use crate::model::rules::{words, Parent, ResourceRule, Rules};
use crate::state::AppState;
use crate::usecases::{reference, rules};
use crate::xml::XmlOut;

/// The rules of `id` as one sentence, with the names of the categories and partners.
pub async fn sentence(st: &AppState, a: &Account, parent: Parent, id: &str) -> Result<String, Response> {
    let r = rules::read(st, &a.id, parent, id).await.map_err(form::fail)?;
    let names = names(st, a).await?;
    Ok(words::sentence(&r, &|rid: &str| names.iter().find(|(i, _)| i == rid).map(|(_, n)| n.clone()).unwrap_or_else(|| rid.to_string())))
}

async fn names(st: &AppState, a: &Account) -> Result<Vec<(String, String)>, Response> {
    let cats = reference::categories(st, &a.id).await.map_err(form::fail)?;
    let partners = reference::partners(st, &a.id).await.map_err(form::fail)?;
    Ok(cats.into_iter().map(|c| (c.id, c.name)).chain(partners.into_iter().map(|p| (p.id, p.name))).collect())
}

fn parent_of(kind: &str) -> Option<(Parent, &'static str)> {
    match kind {
        "campaigns" => Some((Parent::Campaign, "campaigns")),
        "goals" => Some((Parent::Goal, "goals")),
        _ => None,
    }
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path((kind, id)): Path<(String, String)>) -> Response {
    let Some((parent, kind)) = parent_of(&kind) else { return form::fail(crate::usecases::UseCaseError::not_found("page", kind)) };
    render(&st, &user, parent, kind, &id, None, Problems::default()).await
}

async fn render(st: &AppState, user: &ConsoleUser, parent: Parent, kind: &str, id: &str, xml: Option<String>, p: Problems) -> Response {
    let a = &user.account;
    let r = match rules::read(st, &a.id, parent, id).await {
        Ok(r) => r,
        Err(e) => return form::fail(e),
    };
    let cats = match reference::categories(st, &a.id).await {
        Ok(c) => c,
        Err(e) => return form::fail(e),
    };
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
        (form::summary(&p, &[]))
        @if user.writes() {
            h2 { "Categories" }
            form method="post" action={ (back) "/targeting" } {
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
            form method="post" action={ (back) "/targeting" } {
                (form::csrf(user))
                input type="hidden" name="mode" value="xml";
                label for="rules-xml" { "Rules (XML)" }
                span.hint id="rules-xml-hint" { "The rules bean of the XML interface: content, frequency caps, locations, time, IP, user agent, audience and custom parameters." }
                textarea #rules-xml name="xml" aria-describedby="rules-xml-hint" spellcheck="false" { (xml) }
                button type="submit" { "Save rules" }
            }
        }
    };
    page::with_status(page::page("Targeting", Some(user), body), status)
}

/// The two forms' fields (checkboxes repeat).
#[derive(Default)]
struct RulesForm {
    csrf: String,
    mode: String,
    include: Vec<String>,
    exclude: Vec<String>,
    xml: String,
}

pub async fn save(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path((kind, id)): Path<(String, String)>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let mut f = RulesForm::default();
    for (k, v) in pairs {
        match k.as_str() {
            "csrf" => f.csrf = v,
            "mode" => f.mode = v,
            "include" => f.include.push(v),
            "exclude" => f.exclude.push(v),
            "xml" => f.xml = v,
            _ => {}
        }
    }
    if let Err(r) = form::guard(&user, &headers, &f.csrf) {
        return r;
    }
    let Some((parent, kind)) = parent_of(&kind) else { return form::fail(crate::usecases::UseCaseError::not_found("page", kind)) };
    let a = &user.account;
    let doc = if f.mode == "xml" {
        match crate::xml::parse(f.xml.as_bytes()) {
            Ok(el) => el,
            Err(e) => return render(&st, &user, parent, kind, &id, Some(f.xml), form::problems(e.into()).unwrap_or_default()).await,
        }
    } else {
        let mut r: Rules = match rules::read(&st, &a.id, parent, &id).await {
            Ok(r) => r,
            Err(e) => return form::fail(e),
        };
        r.content.retain(|c| c.variable_type != VariableType::Site);
        let rule = |rid: &String, rt| ResourceRule { resource_id: rid.clone(), rule_type: rt, variable_type: VariableType::Site };
        r.content.extend(f.include.iter().map(|c| rule(c, RuleType::AtLeastOneOf)));
        r.content.extend(f.exclude.iter().filter(|c| !f.include.contains(c)).map(|c| rule(c, RuleType::NoneOf)));
        let mut o = XmlOut::new();
        r.write(&mut o);
        super::bean::written(&o.finish())
    };
    match rules::replace(&st, &a.id, parent, &id, &doc).await {
        Ok(()) => redirect(&format!("/console/{kind}/{id}?saved=1")),
        Err(e) => match form::problems(e) {
            Ok(p) => render(&st, &user, parent, kind, &id, (f.mode == "xml").then_some(f.xml), p).await,
            Err(r) => r,
        },
    }
}
