use super::*;

#[test]
fn the_committed_document_is_the_generated_one() {
    let generated = json() + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/openapi.json");
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
    for (name, group) in api::groups::ALL {
        for p in group().paths {
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
    let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
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

/// The object properties a request type shows in the document.
fn properties<T: utoipa::PartialSchema>() -> Vec<String> {
    use utoipa::openapi::schema::Schema;
    match T::schema() {
        RefOr::T(Schema::Object(o)) => {
            let mut v: Vec<String> = o.properties.keys().cloned().collect();
            v.sort();
            v
        }
        _ => panic!("not an object schema"),
    }
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Each request type is what its parser fills; its parser refuses fields not in its list,
/// so the two lists must be one.
#[test]
fn every_request_type_lists_exactly_what_its_parser_accepts() {
    use crate::forecast::request as fr;
    use crate::forecast::request_body as fb;
    assert_eq!(properties::<crate::model::contact::Association>(), sorted(crate::model::contact::ASSOCIATE_FIELDS));
    assert_eq!(properties::<fb::ParentOverrides>(), sorted(<crate::model::enums::ParentOverride as crate::model::enums::WireEnum>::NAMES));
}
