use super::*;

#[test]
fn the_committed_document_is_the_generated_one() {
    let generated = json() + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
        std::fs::write(path, &generated).unwrap();
        return;
    }
    assert!(
        generated == crate::api::docs_page::DOCUMENT,
        "docs/openapi.json is not the document the handlers describe: rewrite it with \
         `UPDATE_OPENAPI=1 cargo test -p shared --lib openapi` and commit it"
    );
}

#[test]
fn the_document_is_openapi_3_1_with_every_operation_answering_errors() {
    let doc = document();
    let v: serde_json::Value = serde_json::from_str(&json()).unwrap();
    assert_eq!(v["openapi"], "3.1.0");
    assert_eq!(v["servers"][0]["url"], "/", "the document names its server (the origin it is served from)");
    assert!(!doc.paths.paths.is_empty());
    let mut ids = std::collections::HashSet::new();
    let mut bad = Vec::new();
    for (path, item) in &v["paths"].as_object().unwrap().clone() {
        for (method, op) in item.as_object().unwrap() {
            if !["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                continue;
            }
            assert!(op["responses"]["default"].is_object(), "{method} {path} has no error response");
            let id = op["operationId"].as_str().unwrap_or_default().to_string();
            assert!(id.contains('.') && ids.insert(id.clone()), "{method} {path}: operationId {id} is not unique");
            if op["description"].as_str().is_none_or(|d| d.trim().is_empty()) {
                bad.push(format!("{method} {path}: no description (its utoipa::path, or openapi/operations.rs)"));
            }
            let summary = op["summary"].as_str().unwrap_or_default();
            if summary.trim().is_empty() || summary.len() > 80 || summary.contains('\n') {
                bad.push(format!("{method} {path}: {summary:?}"));
            }
            for p in op["parameters"].as_array().into_iter().flatten() {
                if p["description"].as_str().is_none_or(|d| d.trim().is_empty()) {
                    bad.push(format!("{method} {path}: parameter {} has no description", p["name"]));
                }
            }
            let public =
                path.starts_with("/v1/adrequest") || path.starts_with("/v1/track") || path == "/openapi.json" || path.starts_with("/docs");
            assert_eq!(op["security"].as_array().unwrap().is_empty(), public, "{method} {path} security");
        }
    }
    assert!(
        bad.is_empty(),
        "operations without a one-line summary of at most 80 characters, or parameters without a description: {bad:#?}"
    );
}

#[test]
fn every_route_of_every_group_is_in_the_document() {
    let doc = document();
    let mut missing = Vec::new();
    // The console's routes are HTML pages for people (docs/console.md), not API operations
    // (its administration pages are served by the access group's function).
    for (name, group) in api::groups::ALL {
        for p in group().paths().into_iter().filter(|p| !p.starts_with("/console")) {
            if !doc.paths.paths.contains_key(p) {
                missing.push(format!("{name}: {p}"));
            }
        }
    }
    assert!(missing.is_empty(), "routes without an OpenAPI operation: {missing:#?}");
}

#[test]
fn no_two_schemas_share_a_name() {
    // The document names each schema after its type: two `ToSchema` types of one name in
    // different modules would silently describe one of them with the other's shape.
    let mut names: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    // Every crate of shared/ (the schemas come from the domain and the web).
    let mut dirs: Vec<std::path::PathBuf> = ["domain", "ports", "app", "web"]
        .iter()
        .map(|c| std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join(c).join("src"))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let mut derives = false;
            for line in text.lines().map(str::trim) {
                if line.starts_with("#[derive(") && line.contains("ToSchema") {
                    derives = true;
                } else if derives
                    && (line.starts_with("pub struct ") || line.starts_with("pub enum ") || line.starts_with("pub(super) struct "))
                {
                    let name: String =
                        line.split_whitespace().nth(2).unwrap_or_default().chars().take_while(|c| c.is_alphanumeric()).collect();
                    names.entry(name).or_default().push(path.display().to_string());
                    derives = false;
                } else if !line.starts_with("#[") && !line.starts_with("///") {
                    derives = false;
                }
            }
        }
    }
    assert!(names.len() > 30, "found only {} schema types", names.len());
    let clashes: Vec<_> = names.iter().filter(|(_, files)| files.len() > 1).collect();
    assert!(clashes.is_empty(), "schema names used by two types: {clashes:?}");
}

#[test]
fn every_request_body_has_an_example() {
    let v: serde_json::Value = serde_json::from_str(&json()).unwrap();
    let mut missing = Vec::new();
    for (path, item) in v["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(content) = op["requestBody"]["content"].as_object() else { continue };
            for (media, c) in content {
                if c.get("example").is_none() && c.get("examples").is_none() {
                    missing.push(format!("{method} {path} ({media})"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "request bodies without an example: {missing:#?}");
}

#[test]
fn every_property_is_described_and_every_closed_set_is_an_enum() {
    let v: serde_json::Value = serde_json::from_str(&json()).unwrap();
    let schemas = v["components"]["schemas"].as_object().unwrap();
    let mut undescribed = Vec::new();
    for (name, s) in schemas {
        for (prop, p) in s["properties"].as_object().into_iter().flatten() {
            if p["description"].as_str().is_none_or(|d| d.trim().is_empty()) {
                undescribed.push(format!("{name}.{prop}"));
            }
        }
    }
    assert!(undescribed.is_empty(), "properties without a description (a doc comment, or openapi/glossary.rs): {undescribed:#?}");
    for (schema, prop, values) in shapes::enums() {
        let p = &schemas[schema]["properties"][prop];
        assert!(p.is_object(), "the enum table names {schema}.{prop}, which the document does not have");
        let listed: Vec<String> = p["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{schema}.{prop}: {p}"))
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        assert_eq!(listed, values, "{schema}.{prop}");
    }
    // The v3 goal types as the server writes them.
    assert!(schemas["GoalOut"]["properties"]["type"]["enum"].as_array().unwrap().iter().any(|x| x == "shareOfVoice"));
}

#[test]
fn every_schema_reference_resolves() {
    // A type named only by a parameter is not collected by utoipa: its `$ref` would dangle
    // (openapi-spec-validator refuses the document).
    let text = json();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let schemas = v["components"]["schemas"].as_object().unwrap();
    let mut dangling = std::collections::BTreeSet::new();
    for part in text.split("\"$ref\": \"#/components/schemas/").skip(1) {
        let name = part.split('"').next().unwrap_or_default();
        if !schemas.contains_key(name) {
            dangling.insert(name.to_string());
        }
    }
    assert!(dangling.is_empty(), "references to schemas the document does not define: {dangling:?}");
}

#[test]
fn a_list_of_links_or_objects_accepts_an_empty_list() {
    // `ads: []` of a goal without ads is both a list of links and a list of ads.
    let v: serde_json::Value = serde_json::from_str(&json()).unwrap();
    let children = &v["components"]["schemas"]["Children_AdOut"];
    assert!(children["anyOf"].is_array() && children.get("oneOf").is_none(), "{children}");
}

type Reader = fn(&serde_json::Value) -> Vec<crate::domain_error::FieldError>;

fn reader<T: serde::de::DeserializeOwned + utoipa::ToSchema + 'static>(v: &serde_json::Value) -> Vec<crate::domain_error::FieldError> {
    crate::json::read::<T>(v, |_, _| {}).err().unwrap_or_default()
}

/// Every JSON request body, by its schema's name in the document, and its reader.
fn request_bodies() -> Vec<(&'static str, Reader)> {
    use crate::forecast::request_body as fb;
    use crate::model::*;
    vec![
        ("StitcherWrite", reader::<stitcher::StitcherInput>),
        ("DemandPartnerWrite", reader::<demand_partner::DemandPartnerInput>),
        ("MarketplaceWrite", reader::<marketplace::MarketplaceInput>),
        ("TemplateWrite", reader::<template_write::TemplateInput>),
        ("AssetFromUrl", reader::<asset_write::AssetUrlInput>),
        ("RankingWrite", reader::<policy::RankingInput>),
        ("GoalsBulk", reader::<bulk::GoalsBulk>),
        ("AdsBulk", reader::<bulk::AdsBulk>),
        ("DuplicateBody", reader::<bulk::DuplicateBody>),
        ("AdWrite", reader::<ad_write::AdInput>),
        ("AdPatch", reader::<ad_write::AdPatch>),
        ("RulesView", reader::<rules_view::RulesView>),
        ("CampaignForecastBody", reader::<fb::CampaignForecastBody>),
        ("InventoryForecastBody", reader::<fb::InventoryForecastBody>),
    ]
}

/// The bound of every top-level property a request body's schema states in the committed
/// document is the one its reader enforces: one past it is refused naming the field and
/// the rule, and the bound itself is not refused for that rule.
#[test]
fn every_bound_the_document_states_is_the_one_the_service_checks() {
    let doc: serde_json::Value = serde_json::from_str(include_str!("../../../../docs/openapi.json")).unwrap();
    let schemas = &doc["components"]["schemas"];
    let mut examples = std::collections::BTreeMap::new();
    for op in doc["paths"].as_object().unwrap().values().flat_map(|p| p.as_object().unwrap().values()) {
        let content = &op["requestBody"]["content"]["application/json"];
        if let Some(name) = content["schema"]["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) {
            examples.insert(name.to_string(), content["example"].clone());
        }
    }
    let mut checked = 0;
    for (name, read) in request_bodies() {
        let schema = &schemas[name];
        assert!(schema.is_object(), "{name} is not in the document");
        let base = examples.get(name).cloned().unwrap_or_else(|| serde_json::json!({}));
        for (prop, p) in schema["properties"].as_object().into_iter().flatten() {
            // An optional property's bounds are on its non-null form.
            let forms = p["oneOf"].as_array().cloned().unwrap_or_else(|| vec![p.clone()]);
            let Some(p) = forms.into_iter().find(|f| f["type"] != "null") else { continue };
            let mut cases: Vec<(serde_json::Value, serde_json::Value, &str)> = Vec::new();
            if let Some(n) = p["maxLength"].as_u64() {
                cases.push((serde_json::json!("a".repeat(n as usize + 1)), serde_json::json!("a".repeat(n as usize)), "maxLength"));
            }
            if let Some(n) = p["maxItems"].as_u64() {
                cases.push((serde_json::json!(vec!["a"; n as usize + 1]), serde_json::Value::Null, "maxItems"));
            }
            // An integer bound is tried with integers, a number bound with numbers.
            let number = |n: f64| if n.fract() == 0.0 { serde_json::json!(n as i64) } else { serde_json::json!(n) };
            if let Some(n) = p["maximum"].as_f64() {
                cases.push((number(n + 1.0), number(n), "range"));
            }
            if let Some(n) = p["minimum"].as_f64() {
                cases.push((number(n - 1.0), number(n), "range"));
            }
            for (past, at, rule) in cases {
                let faults = |v: serde_json::Value| {
                    let mut body = base.clone();
                    body[prop] = v;
                    read(&body).iter().map(|e| format!("{} {}", e.field, e.rule)).collect::<Vec<_>>()
                };
                let wanted = format!("{prop} {rule}");
                let got = faults(past.clone());
                assert!(got.contains(&wanted), "{name}.{prop} = {past}: {got:?}");
                if !at.is_null() {
                    let got = faults(at.clone());
                    assert!(!got.contains(&wanted), "{name}.{prop} = {at} is within the document's bound: {got:?}");
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} bounds checked");
    assert!(checked > 40, "{checked} bounds checked");
}
