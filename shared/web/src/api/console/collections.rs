//! Demand (ADMIN): demand partners, marketplaces with their deals, and stitchers as forms
//! over the API's JSON collections. A form's fields become the body `POST` or `PUT` reads
//! (`JsonCollection::parse`), and the same use cases run (`usecases::collection`). A
//! write-only header (a partner's auth header, a stitcher's secret header) shows as "set" or
//! "not set"; its value is never sent to the browser: the form's value field is always
//! empty, left empty it is kept, and a checkbox removes it. Partners and marketplaces are
//! served by the demand function, stitchers by the stitchers function (the only ones that
//! read those records' secrets).

use crate::api::Access;
use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde_json::{json, Map, Value};

use super::error::ConsoleResult;
use super::form::{self, Field, Problems, Select};
use super::{page, redirect, ConsoleForm, ConsoleUser};
use crate::api::collection::JsonCollection;
use crate::api::Within;
use crate::model::demand_partner::DemandPartner;
use crate::model::marketplace::Marketplace;
use crate::model::stitcher::Stitcher;
use crate::state::AppState;
use crate::usecases::collection as uc;

/// How a form field is shown and read.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Text,
    Number,
    Bool,
    /// Values separated by commas, spaces or lines (an array of strings).
    List,
    Choice(&'static [&'static str]),
    /// The account's demand partners as checkboxes (an array of ids).
    Partners,
    /// One deal a line: `id floor-CPM seat seat ...`.
    Deals,
    /// A write-only `{name, value}` header: shown as set or not set.
    Secret,
}

/// A field: its label, its key in the API's body, how it is shown, whether the list shows it.
pub struct Spec {
    label: &'static str,
    key: &'static str,
    kind: Kind,
    listed: bool,
}

const fn f(label: &'static str, key: &'static str, kind: Kind, listed: bool) -> Spec {
    Spec { label, key, kind, listed }
}

/// A collection as the console shows it.
pub trait Shown: JsonCollection {
    /// `demand partner`
    const NOUN: &'static str;
    /// The collection's pages (`/console/demand/partners`).
    const BASE: &'static str;
    /// Where the collection is listed.
    const BACK: &'static str;
    fn fields() -> &'static [Spec];
}

impl Shown for DemandPartner {
    const NOUN: &'static str = "demand partner";
    const BASE: &'static str = "/console/demand/partners";
    const BACK: &'static str = "/console/demand";
    fn fields() -> &'static [Spec] {
        const F: &[Spec] = &[
            f("Name", "name", Kind::Text, true),
            f("Endpoint", "endpoint", Kind::Text, true),
            f("Timeout (ms)", "timeoutMs", Kind::Number, true),
            f("Currency", "currency", Kind::Text, true),
            f("Enabled", "enabled", Kind::Bool, true),
            f("Auth header", "authHeader", Kind::Secret, true),
        ];
        F
    }
}

impl Shown for Marketplace {
    const NOUN: &'static str = "marketplace";
    const BASE: &'static str = "/console/demand/marketplaces";
    const BACK: &'static str = "/console/demand";
    fn fields() -> &'static [Spec] {
        const F: &[Spec] = &[
            f("Name", "name", Kind::Text, true),
            f("Demand partners", "demandPartnerIds", Kind::Partners, true),
            f("Auction type", "auctionType", Kind::Choice(&["FIRST_PRICE", "SECOND_PRICE", "FIXED_PRICE"]), true),
            f("Floor CPM", "floorCpm", Kind::Number, true),
            f("Currency", "currency", Kind::Text, true),
            f("Deals", "deals", Kind::Deals, true),
            f("Private auction", "privateAuction", Kind::Bool, false),
            f("Blocked domains", "blockedDomains", Kind::List, false),
            f("Blocked categories", "blockedCategories", Kind::List, false),
        ];
        F
    }
}

impl Shown for Stitcher {
    const NOUN: &'static str = "stitcher";
    const BASE: &'static str = "/console/stitchers";
    const BACK: &'static str = "/console/stitchers";
    fn fields() -> &'static [Spec] {
        const F: &[Spec] = &[
            f("Name", "name", Kind::Text, true),
            f("Source address ranges", "sourceCidrs", Kind::List, true),
            f("Secret header", "secretHeader", Kind::Secret, true),
        ];
        F
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// A stored value as its form field's text.
fn text_of(v: Option<&Value>, kind: Kind) -> String {
    match (v, kind) {
        (Some(Value::String(s)), _) => s.clone(),
        (Some(Value::Number(n)), _) => n.to_string(),
        (Some(Value::Array(items)), Kind::Deals) => items
            .iter()
            .map(|d| {
                let seats: Vec<&str> = d["seats"].as_array().map(|s| s.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
                format!("{} {} {}", d["id"].as_str().unwrap_or(""), d["floorCpm"], seats.join(" ")).trim_end().to_string()
            })
            .collect::<Vec<_>>()
            .join("\n"),
        (Some(Value::Array(items)), _) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "),
        (Some(Value::Bool(b)), _) => b.to_string(),
        _ => String::new(),
    }
}

/// The form's pairs as the API's body.
fn body_of<R: Shown>(pairs: &[(String, String)], creating: bool) -> Value {
    let one = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.trim().to_string()).unwrap_or_default();
    let mut out = Map::new();
    for s in R::fields() {
        let v = one(s.key);
        let value = match s.kind {
            Kind::Text | Kind::Choice(_) if v.is_empty() => continue,
            Kind::Text | Kind::Choice(_) => json!(v),
            Kind::Number if v.is_empty() => continue,
            Kind::Number => v.parse::<i64>().map(|n| json!(n)).or_else(|_| v.parse::<f64>().map(|x| json!(x))).unwrap_or_else(|_| json!(v)),
            Kind::Bool => json!(pairs.iter().any(|(n, _)| n == s.key)),
            Kind::List => json!(v.split([',', ' ', '\n', '\r']).filter(|x| !x.is_empty()).collect::<Vec<_>>()),
            Kind::Partners => json!(pairs.iter().filter(|(n, _)| n == s.key).map(|(_, v)| v.as_str()).collect::<Vec<_>>()),
            Kind::Deals => Value::Array(
                v.lines()
                    .map(str::split_whitespace)
                    .filter_map(|mut w| {
                        let id = w.next()?;
                        let floor = w.next().map(|x| x.parse::<f64>().map(|n| json!(n)).unwrap_or_else(|_| json!(x))).unwrap_or(json!(0));
                        Some(json!({ "id": id, "floorCpm": floor, "seats": w.collect::<Vec<_>>() }))
                    })
                    .collect(),
            ),
            Kind::Secret => {
                let (name, value) = (one(&format!("{}.name", s.key)), one(&format!("{}.value", s.key)));
                if !value.is_empty() || !name.is_empty() && creating {
                    json!({ "name": name, "value": value })
                } else if pairs.iter().any(|(n, _)| *n == format!("{}.remove", s.key)) {
                    Value::Null
                } else {
                    continue;
                }
            }
        };
        out.insert(s.key.to_string(), value);
    }
    Value::Object(out)
}

/// The form's field values back as a record's JSON (a refused form keeps the input).
fn echo<R: Shown>(pairs: &[(String, String)], stored: Option<&Value>) -> Value {
    let mut v = body_of::<R>(pairs, true);
    for s in R::fields().iter().filter(|s| s.kind == Kind::Secret) {
        let set = stored.and_then(|r| r.get(format!("{}Set", s.key))).cloned().unwrap_or(json!(false));
        v[format!("{}Set", s.key)] = set;
    }
    v
}

fn field_markup(s: &Spec, rec: &Value, partners: &[(String, String)], p: &Problems) -> Markup {
    let value = text_of(rec.get(s.key), s.kind);
    match s.kind {
        Kind::Text | Kind::Number => Field {
            label: s.label,
            name: s.key,
            kind: if s.kind == Kind::Number { "number" } else { "text" },
            value: &value,
            required: s.key == "name",
            hint: None,
        }
        .render(p),
        Kind::Choice(options) => {
            let opts: Vec<(String, String)> = options.iter().map(|o| (o.to_string(), o.replace('_', " ").to_lowercase())).collect();
            Select { label: s.label, name: s.key, options: &opts, selected: &value, hint: None }.render(p)
        }
        Kind::Bool => html! {
            div.field { label { input type="checkbox" name=(s.key) value="true" checked[rec.get(s.key) == Some(&json!(true))]; " " (s.label) } }
        },
        Kind::List | Kind::Deals => {
            let errors = p.at(s.key);
            let hint = if s.kind == Kind::Deals {
                "One deal a line: its id, its floor CPM, then its buyer seats, separated by spaces."
            } else {
                "Separated by commas or lines."
            };
            html! {
                div.field {
                    label for=(s.key) { (s.label) }
                    span.hint id={ (s.key) "-hint" } { (hint) }
                    textarea id=(s.key) name=(s.key) rows="3" aria-invalid=[(!errors.is_empty()).then_some("true")] aria-describedby={ (s.key) "-hint" @if !errors.is_empty() { " " (s.key) "-error" } } { (value) }
                    @if !errors.is_empty() { span.field-error id={ (s.key) "-error" } { @for e in &errors { (e) " " } } }
                }
            }
        }
        Kind::Partners => {
            let chosen: Vec<&str> =
                rec.get(s.key).and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            let errors = p.at(s.key);
            html! {
                fieldset aria-invalid=[(!errors.is_empty()).then_some("true")] {
                    legend { (s.label) }
                    @if partners.is_empty() { p { "No demand partners yet: add one first." } }
                    @for (id, name) in partners {
                        label { input type="checkbox" name=(s.key) value=(id) checked[chosen.contains(&id.as_str())]; " " (name) }
                    }
                    @if !errors.is_empty() { span.field-error { @for e in &errors { (e) " " } } }
                }
            }
        }
        Kind::Secret => {
            let set = rec.get(format!("{}Set", s.key)) == Some(&json!(true));
            let errors = p.at(s.key);
            html! {
                fieldset aria-invalid=[(!errors.is_empty()).then_some("true")] {
                    legend { (s.label) }
                    p { (s.label) " is " strong { @if set { "set" } @else { "not set" } } ". Its value is never shown; leave the value empty to keep it." }
                    label for={ (s.key) ".name" } { "Header name" }
                    input id={ (s.key) ".name" } name={ (s.key) ".name" } type="text" autocomplete="off";
                    label for={ (s.key) ".value" } { "Header value" }
                    input id={ (s.key) ".value" } name={ (s.key) ".value" } type="password" autocomplete="new-password" value="";
                    @if set { label { input type="checkbox" name={ (s.key) ".remove" } value="true"; " Remove the header" } }
                    @if !errors.is_empty() { span.field-error { @for e in &errors { (e) " " } } }
                }
            }
        }
    }
}

async fn partner_options(st: &AppState, user: &ConsoleUser) -> ConsoleResult<Vec<(String, String)>> {
    let all = uc::list::<DemandPartner>(st, &user.account.id).await?;
    Ok(all.into_iter().map(|e| (e.record.id.clone(), e.record.name.clone())).collect())
}

/// The form page of a new record (`id` None) or a stored one.
async fn form_page<R: Shown>(
    st: &AppState,
    user: &ConsoleUser,
    id: Option<&str>,
    rec: &Value,
    version: Option<u64>,
    p: &Problems,
) -> ConsoleResult {
    let partners = if R::fields().iter().any(|s| s.kind == Kind::Partners) { partner_options(st, user).await? } else { Vec::new() };
    let title = match id {
        Some(_) => format!("{} {}", capitalised(R::NOUN), text_of(rec.get("name"), Kind::Text)),
        None => format!("New {}", R::NOUN),
    };
    let action = id.map_or_else(|| R::BASE.to_string(), |i| format!("{}/{i}", R::BASE));
    let body = html! {
        p { a href=(R::BACK) { "← Back" } }
        h1 { (title) }
        (form::summary(p))
        form.stack method="post" action=(form::action(user, &action)) {
            (form::csrf(user))
            @if let Some(v) = version { input type="hidden" name="version" value=(v); }
            @for s in R::fields() { (field_markup(s, rec, &partners, p)) }
            button type="submit" { "Save" }
        }
    };
    let page = page::page(&title, Some(user), body);
    Ok(if p.is_empty() { page.into_response() } else { page::with_status(page, axum::http::StatusCode::UNPROCESSABLE_ENTITY) })
}

/// The records as a table, linked to their forms.
async fn table<R: Shown>(st: &AppState, user: &ConsoleUser) -> ConsoleResult<Markup> {
    let all = uc::list::<R>(st, &user.account.id).await?;
    let rows: Vec<(String, Value)> =
        all.into_iter().map(|e| (e.record.id().to_string(), serde_json::to_value(R::view(e.record)).unwrap_or_default())).collect();
    let cols: Vec<&Spec> = R::fields().iter().filter(|s| s.listed).collect();
    Ok(html! {
        p { a.button href={ (R::BASE) "/new" } { "New " (R::NOUN) } }
        @if rows.is_empty() { p { "None yet." } }
        @else {
            table {
                thead { tr { @for s in &cols { th scope="col" { (s.label) } } } }
                tbody { @for (id, v) in &rows {
                    tr { @for (i, s) in cols.iter().enumerate() {
                        td {
                            @let text = match s.kind {
                                Kind::Secret => if v.get(format!("{}Set", s.key)) == Some(&json!(true)) { "set".to_string() } else { "not set".to_string() },
                                Kind::Deals => v.get(s.key).and_then(Value::as_array).map_or(0, Vec::len).to_string(),
                                Kind::Partners => v.get(s.key).and_then(Value::as_array).map_or(0, Vec::len).to_string(),
                                _ => text_of(v.get(s.key), s.kind),
                            };
                            @if i == 0 { a href={ (R::BASE) "/" (id) } { (text) } } @else { (text) }
                        }
                    } }
                } }
            }
        }
    })
}

pub async fn demand(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    let partners = table::<DemandPartner>(&st, &user).await?;
    let markets = table::<Marketplace>(&st, &user).await?;
    let body = html! {
        h1 { "Demand" }
        p { "The OpenRTB bidders programmatic goals are filled from, and the marketplaces that ask them. Server-side ad insertion: " a href="/console/stitchers" { "Stitchers" } "." }
        h2 { "Demand partners" }
        (partners)
        h2 { "Marketplaces" }
        (markets)
    };
    Ok(page::page("Demand", Some(&user), body).into_response())
}

pub async fn stitchers(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    let list = table::<Stitcher>(&st, &user).await?;
    let body = html! {
        h1 { "Stitchers" }
        p { "The server-side ad insertion services whose calls are counted as server-initiated impressions." }
        (list)
    };
    Ok(page::page("Stitchers", Some(&user), body).into_response())
}

pub async fn new_form<R: Shown>(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    form_page::<R>(&st, &user, None, &json!({ "enabled": true }), None, &Problems::default()).await
}

pub async fn edit<R: Shown>(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    let e = uc::get::<R>(&st, &user.account.id, &id).await?;
    let version = e.version;
    let v = serde_json::to_value(R::view(e.record)).unwrap_or_default();
    form_page::<R>(&st, &user, Some(&id), &v, Some(version), &Problems::default()).await
}

/// The form's fields by name, each field's errors shown at it.
fn specs<R: Shown>() -> Vec<form::Spec> {
    R::fields().iter().map(|s| form::Spec { name: s.key, label: s.label, api: std::slice::from_ref(&s.key) }).collect()
}

/// The value of the form's field `name`.
fn field<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

pub async fn create<R: Shown>(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    ConsoleForm(pairs): ConsoleForm<Vec<(String, String)>>,
) -> ConsoleResult {
    form::guard(&user, &headers, field(&pairs, "csrf").unwrap_or(""))?;
    let body = body_of::<R>(&pairs, true);
    match uc::create::<R>(&st, &user.account.id, R::parse(&st, &body, None)).await {
        Ok(_) => Ok(redirect(R::BACK)),
        Err(e) => {
            let p = form::problems(e, &specs::<R>())?;
            form_page::<R>(&st, &user, None, &echo::<R>(&pairs, None), None, &p).await
        }
    }
}

/// Saves the form over the stored record at the form's version: a newer version, or a form
/// without one, is refused and nothing is overwritten.
pub async fn replace<R: Shown>(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(pairs): ConsoleForm<Vec<(String, String)>>,
) -> ConsoleResult {
    form::guard(&user, &headers, field(&pairs, "csrf").unwrap_or(""))?;
    let stored = || async {
        uc::get::<R>(&st, &user.account.id, &id).await.ok().map(|e| serde_json::to_value(R::view(e.record)).unwrap_or_default())
    };
    let Some(version) = form::version(field(&pairs, "version").unwrap_or("")) else {
        let echoed = echo::<R>(&pairs, stored().await.as_ref());
        return form_page::<R>(&st, &user, Some(&id), &echoed, None, &Problems::no_version()).await;
    };
    let body = body_of::<R>(&pairs, false);
    match uc::replace::<R>(&st, &user.account.id, &id, R::parse(&st, &body, Some(&id)), Some(version)).await {
        Ok(_) => Ok(redirect(R::BACK)),
        Err(e) => {
            let p = form::problems(e, &specs::<R>())?;
            form_page::<R>(&st, &user, Some(&id), &echo::<R>(&pairs, stored().await.as_ref()), Some(version), &p).await
        }
    }
}

/// The demand function's pages (partners and marketplaces).
pub fn demand_router() -> crate::api::Routes {
    use axum::routing::get;
    crate::api::Routes::console_reading()
        .route("/console/demand", Access::ADMIN, get(demand))
        .route("/console/demand/partners", Access::ADMIN, axum::routing::post(create::<DemandPartner>))
        .route("/console/demand/partners/new", Access::ADMIN, get(new_form::<DemandPartner>))
        .route("/console/demand/partners/{id}", Access::ADMIN, get(edit::<DemandPartner>).post(replace::<DemandPartner>))
        .route("/console/demand/marketplaces", Access::ADMIN, axum::routing::post(create::<Marketplace>))
        .route("/console/demand/marketplaces/new", Access::ADMIN, get(new_form::<Marketplace>))
        .route("/console/demand/marketplaces/{id}", Access::ADMIN, get(edit::<Marketplace>).post(replace::<Marketplace>))
}

/// The stitchers function's pages.
pub fn stitchers_router() -> crate::api::Routes {
    use axum::routing::get;
    crate::api::Routes::console_reading()
        .route("/console/stitchers", Access::ADMIN, get(stitchers).post(create::<Stitcher>))
        .route("/console/stitchers/new", Access::ADMIN, get(new_form::<Stitcher>))
        .route("/console/stitchers/{id}", Access::ADMIN, get(edit::<Stitcher>).post(replace::<Stitcher>))
}
