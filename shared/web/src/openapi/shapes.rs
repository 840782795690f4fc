//! What the document says of the schemas' properties, added in one place after the types'
//! own derives: a description for every property without a doc comment (`glossary`), and
//! the closed sets a string property takes as a schema `enum`, from the same constants the
//! server writes them from (a property whose type is itself a closed set has its enum from
//! its own schema already).

use utoipa::openapi::schema::{AnyOf, Object, Schema};
use utoipa::openapi::{OpenApi as Document, RefOr};

use super::glossary;
use crate::model::enums::{AdFormat, CapKind, GoalType, Granularity, InsertionPoint, PricingModel, WireEnum};

fn names<T: WireEnum>() -> Vec<String> {
    T::NAMES.iter().map(|s| s.to_string()).collect()
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The closed sets of string properties: (schema, property, values).
pub fn enums() -> Vec<(&'static str, &'static str, Vec<String>)> {
    let formats: Vec<String> = AdFormat::SERVED.iter().map(|f| f.as_str().to_string()).collect();
    vec![
        ("Change", "kind", strs(crate::model::change::KINDS)),
        ("CapOut", "capType", names::<CapKind>()),
        ("CreativeOut", "insertionPoint", names::<InsertionPoint>()),
        ("DeliveryReport", "granularity", names::<Granularity>()),
        ("InspectedAd", "format", formats.clone()),
        ("InspectedBreak", "format", formats),
        ("InspectedGoal", "outcome", strs(&["SERVED", "LOST", "EXCLUDED", "NO_AD_OF_FORMAT", "NO_AD_FITS"])),
        ("InspectedNotServing", "type", strs(&["campaign", "goal", "ad"])),
        ("GoalOut", "type", GoalType::ALL.iter().map(|t| crate::api::queries::goal_type_v3(t.as_str())).collect()),
        ("GoalOut", "goalMode", strs(&["normal", "sponsor"])),
        ("PricingOut", "pricingModel", PricingModel::ALL.iter().map(|p| p.as_str().to_lowercase()).collect()),
        ("TargetOut", "unit", strs(&["impression", "percent"])),
        ("OriginOut", "entity", strs(&["site", "goal"])),
        ("InventoryReport", "trafficSource", strs(&["recorded", "profile"])),
        ("CampaignReport", "trafficSource", strs(&["recorded", "profile"])),
        ("Marketplace", "auctionType", names::<crate::model::marketplace::AuctionType>()),
    ]
}

fn described(s: &RefOr<Schema>) -> bool {
    match s {
        RefOr::Ref(r) => !r.description.is_empty(),
        RefOr::T(Schema::Object(o)) => o.description.as_deref().is_some_and(|d| !d.is_empty()),
        RefOr::T(Schema::Array(a)) => a.description.as_deref().is_some_and(|d| !d.is_empty()),
        RefOr::T(Schema::OneOf(o)) => o.description.as_deref().is_some_and(|d| !d.is_empty()),
        RefOr::T(Schema::AllOf(o)) => o.description.as_deref().is_some_and(|d| !d.is_empty()),
        RefOr::T(Schema::AnyOf(o)) => o.description.as_deref().is_some_and(|d| !d.is_empty()),
        _ => true,
    }
}

fn describe(s: &mut RefOr<Schema>, text: &str) {
    if let RefOr::Ref(r) = s {
        r.description = text.to_string();
        return;
    }
    let text = Some(text.to_string());
    match s {
        RefOr::T(Schema::Object(o)) => o.description = text,
        RefOr::T(Schema::Array(a)) => a.description = text,
        RefOr::T(Schema::OneOf(o)) => o.description = text,
        RefOr::T(Schema::AllOf(o)) => o.description = text,
        RefOr::T(Schema::AnyOf(o)) => o.description = text,
        _ => {}
    }
}

fn properties(s: &mut RefOr<Schema>) -> Option<&mut std::collections::BTreeMap<String, RefOr<Schema>>> {
    match s {
        RefOr::T(Schema::Object(Object { properties, .. })) => Some(properties),
        _ => None,
    }
}

/// An untagged list of either links or objects (`Children`): an empty list is both, so the
/// alternatives are `anyOf`, not `oneOf` (which would refuse `[]`).
fn lists_any_of(schema: &mut RefOr<Schema>) {
    let RefOr::T(Schema::OneOf(one)) = schema else { return };
    if one.items.is_empty() || !one.items.iter().all(|i| matches!(i, RefOr::T(Schema::Array(_)))) {
        return;
    }
    let mut any = AnyOf::new();
    any.items = std::mem::take(&mut one.items);
    any.description = one.description.take();
    *schema = RefOr::T(Schema::AnyOf(any));
}

/// Adds the glossary's descriptions and the enums to the document's schemas.
pub fn apply(doc: &mut Document) {
    let Some(components) = doc.components.as_mut() else { return };
    for schema in components.schemas.values_mut() {
        lists_any_of(schema);
    }
    let table = enums();
    for (name, schema) in components.schemas.iter_mut() {
        let Some(props) = properties(schema) else { continue };
        for (prop, s) in props.iter_mut() {
            if !described(s) {
                if let Some(text) = glossary::describe(name, prop) {
                    describe(s, text);
                }
            }
            if let Some((_, _, values)) = table.iter().find(|(n, p, _)| n == name && p == prop) {
                if let RefOr::T(Schema::Object(o)) = s {
                    o.enum_values = Some(values.iter().map(|v| serde_json::Value::String(v.clone())).collect());
                }
            }
        }
    }
}
