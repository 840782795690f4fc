//! The OpenAPI 3.1 document of the whole HTTP API (docs/openapi.md), generated from the
//! handlers' `#[utoipa::path]` attributes and the wire types' `ToSchema` derives: each API
//! module lists its operations in a `Doc`, merged here, then the conventions every
//! operation shares are added in one place (the API key, the error body, Idempotency-Key).
//! It is committed as `docs/openapi.json`, which every entry point serves at `/openapi.json`;
//! the test command runs schemathesis against the local server with it
//! (`scripts/schemathesis.sh`).

use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{Content, ObjectBuilder, OpenApi as Document, Ref, RefOr, Required, ResponseBuilder, Schema, Type};
use utoipa::OpenApi;

use crate::api;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Video advertising campaigns API",
        version = "1.0.0",
        description = "Campaigns, goals, ads, targeting, insertion policies, forecasts and audience data. \
JSON interfaces: /v0, /v1, /v3, /api/2.0. XML interfaces (/api/1.0, /api/1.0.cpvext) are described with \
XML bodies and examples. Every operation except the ad request and tracking links needs the account's \
API key in X-O-API-KEY. Errors: the status, a type, a message and, for validation, one entry per field \
and rule (docs/api.md)."
    ),
    servers((url = "/", description = "The origin this document is served from: the local server, or the API Gateway URL of a deployed stack")),
    components(schemas(crate::api::error::ErrorBody, crate::api::error::FieldError))
)]
struct Root;

/// The path prefixes answered in XML (errors included).
fn is_xml(path: &str) -> bool {
    api::is_xml_path(path)
}

/// Operations anyone may call (the account is in the URL, links are signed).
fn is_public(path: &str) -> bool {
    path.starts_with("/v1/adrequest") || path.starts_with("/v1/track/") || path == "/openapi.json" || path.starts_with("/docs")
}

/// The whole document.
pub fn document() -> Document {
    let mut doc = Root::openapi();
    for part in api::docs() {
        doc.merge(part);
    }
    conventions(&mut doc);
    shapes::apply(&mut doc);
    doc
}

/// The document as JSON: what `docs/openapi.json` holds, which `GET /openapi.json` serves
/// (api/docs_page.rs). The functions serve the committed file, so none of them links the
/// document's generation; `the_committed_document_is_the_generated_one` keeps the two equal
/// (`UPDATE_OPENAPI=1 cargo test -p shared --lib openapi` rewrites the file).
pub fn json() -> String {
    document().to_pretty_json().unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn error_response(xml: bool) -> RefOr<utoipa::openapi::Response> {
    let content = if xml {
        let example = "<error><status>400</status><type>ValidationError</type><message>1 field is invalid</message>\
<errors><fieldError><field>clientBean/name</field><rule>required</rule><message>name is required</message></fieldError></errors></error>";
        (
            "application/xml",
            Content::builder().schema(Some(ObjectBuilder::new().schema_type(Type::String))).example(Some(example.into())).build(),
        )
    } else {
        ("application/json", Content::new(Some(Ref::from_schema_name("ErrorBody"))))
    };
    ResponseBuilder::new()
        .description("An error: 400 invalid input (one entry per field and rule), 401 unknown or missing API key, 404 not found in this account, 405, 406, 409 conflict, 412 If-Match failed, 413 too large, 415, 422 Idempotency-Key reused with another body, 429, 503 retry later (Retry-After).")
        .content(content.0, content.1)
        .build()
        .into()
}

/// What the parameters many operations share mean, said once: filled in where an
/// operation's own attribute gives no description.
fn common_parameter(name: &str, path: &str) -> Option<&'static str> {
    Some(match name {
        "id" if path.contains("/forecast/") => "The forecast job's id (the Location of its create)",
        "id" => "The record's id (404 when it is not in the caller's account)",
        "ad_id" => "The ad's id",
        "kind" => "campaign or inventory: the kind of the forecast job",
        "pageSize" => "Records per page (the bounds are in the schema)",
        "pageNumber" => "The page, from 1 (past the last page: an empty page)",
        "includeDeletedGoals" => "true: deleted goals are shown too (as tombstones, `deleted: true`)",
        "includeDeletedCampaigns" => "true: deleted campaigns are shown too (as tombstones, `deleted: true`)",
        "goalId" => "A goal of the account: only what concerns it",
        "campaignId" => "A campaign of the account: only what concerns it",
        "providerId" => "The audience provider (GET /v1/audience/provider lists them)",
        "If-Match" => "The ETag of a GET of this record: refused with 412 when it changed since",
        "Content-Encoding" => "gzip, or none",
        "region" => "eu or asia: must be the region this address serves",
        "created.after" | "ads.created.after" => "Only those created after this date-time (ISO 8601)",
        "created.before" | "ads.created.before" => "Only those created up to this date-time (ISO 8601)",
        "campaigns.started.before" | "goals.started.before" => "Only those whose start is before this date-time",
        "campaigns.started.after" | "goals.started.after" => "Only those whose start is after this date-time",
        "campaigns.ended.before" | "goals.ended.before" => "Only those whose end is before this date-time",
        "campaigns.ended.after" | "goals.ended.after" => "Only those whose end is after this date-time",
        "goal.name" => "Goals whose name contains this (case-insensitive)",
        "campaign.name" => "Only those of campaigns whose name contains this (case-insensitive)",
        "campaign.id" => "Only the goals of this campaign",
        "goal.id" => "Only the ads of this goal",
        "exclude-competing-goals" => "true: the report without the competing goals' share",
        "category" => "The content category (reference data: /v0/categories)",
        "contentPartner" => "The content partner (reference data: /v0/content-partners)",
        "ad" => "The ad's id",
        _ => return None,
    })
}

/// 403 `Forbidden`: the caller's role does not allow the operation.
fn forbidden_response(xml: bool) -> RefOr<utoipa::openapi::Response> {
    let message = "this call needs the TRAFFICKER role (or one above it)";
    let content = if xml {
        let example = format!("<error><status>403</status><type>Forbidden</type><message>{message}</message></error>");
        (
            "application/xml",
            Content::builder().schema(Some(ObjectBuilder::new().schema_type(Type::String))).example(Some(example.into())).build(),
        )
    } else {
        let example = serde_json::json!({"status": 403, "type": "Forbidden", "message": message, "errors": []});
        ("application/json", Content::builder().schema(Some(Ref::from_schema_name("ErrorBody"))).example(Some(example)).build())
    };
    ResponseBuilder::new()
        .description(
            "The caller's role does not allow this (type Forbidden; the message names the role it needs: VIEWER reads, \
             TRAFFICKER writes the trafficking records, ADMIN users, keys, demand and stitchers)",
        )
        .content(content.0, content.1)
        .into()
}

/// Adds what every operation shares: the API key (all but the public ones), the error
/// responses, and Idempotency-Key on every POST.
fn conventions(doc: &mut Document) {
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "apiKey",
        SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
            "X-O-API-KEY",
            "The account's API key, with its role: VIEWER reads, TRAFFICKER also writes the trafficking records, ADMIN also \
             users, keys, demand and stitchers (docs/people-and-roles.md). A console session's cookie (o_session) is taken too.",
        ))),
    );
    for (path, item) in doc.paths.paths.iter_mut() {
        let public = is_public(path);
        let xml = is_xml(path);
        let ops: [(&str, &mut Option<Operation>); 5] = [
            ("get", &mut item.get),
            ("post", &mut item.post),
            ("put", &mut item.put),
            ("patch", &mut item.patch),
            ("delete", &mut item.delete),
        ];
        for (method, op) in ops {
            let Some(op) = op.as_mut() else { continue };
            // Handlers of different groups share names (create, list): qualify by the tag.
            if let (Some(tag), Some(id)) = (op.tags.as_ref().and_then(|t| t.first()), op.operation_id.as_ref()) {
                op.operation_id = Some(format!("{tag}.{id}"));
            }
            if public {
                op.security = Some(Vec::new());
            } else {
                op.security = Some(vec![SecurityRequirement::new("apiKey", Vec::<String>::new())]);
            }
            op.responses.responses.entry("default".into()).or_insert_with(|| error_response(xml));
            if !public {
                op.responses.responses.entry("403".into()).or_insert_with(|| forbidden_response(xml));
            }
            if op.description.as_deref().is_none_or(str::is_empty) {
                op.description = operations::describe(method, path).map(str::to_string);
            }
            for p in op.parameters.iter_mut().flatten() {
                if p.description.as_deref().is_none_or(str::is_empty) {
                    p.description = common_parameter(&p.name, path).map(str::to_string);
                }
            }
            if method == "post" {
                let p = ParameterBuilder::new()
                    .name("Idempotency-Key")
                    .parameter_in(ParameterIn::Header)
                    .required(Required::False)
                    .description(Some(
                        "Replays the first successful answer for the same key and body (24 h); another body with the key: 422.",
                    ))
                    .schema(Some(Schema::Object(
                        ObjectBuilder::new()
                            .schema_type(Type::String)
                            .min_length(Some(1))
                            .max_length(Some(crate::limits::IDEMPOTENCY_KEY_MAX))
                            .pattern(Some("^[!-~]+$"))
                            .build(),
                    )))
                    .build();
                op.parameters.get_or_insert_with(Vec::new).push(p);
            }
        }
    }
}

mod glossary;
mod operations;
mod shapes;

#[cfg(test)]
mod tests;
