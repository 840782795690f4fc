use serde::Deserialize;
use serde_json::json;

use super::*;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[expect(dead_code, reason = "filled by serde: the tests check the read, not these values")]
struct Inner {
    #[schema(value_type = crate::wire_schema::Url, inline)]
    url: String,
    kind: crate::model::enums::TrackerEvent,
}

crate::wire_schema::bounded_list!(
    /// Inner objects.
    Inners, Inner, 0, 2
);

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[expect(dead_code, reason = "filled by serde: the tests check the read, not every value")]
struct Outer {
    #[schema(value_type = crate::wire_schema::RecordName, inline)]
    name: String,
    #[schema(minimum = 1, maximum = 10)]
    priority: Option<u8>,
    when: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(default)]
    #[schema(value_type = Option<Inners>, inline)]
    inner: Vec<Inner>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    note: Option<Option<String>>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    shown: Ignored,
}

fn faults_of(v: Value) -> Vec<String> {
    faults(read::<Outer>(&v, |o, errors| {
        if o.name.starts_with('x') {
            errors.push(FieldError::new("name", Rule::Format, "no x"));
        }
        if o.priority == Some(3) {
            errors.push(FieldError::new("priority", Rule::Step, "not 3"));
        }
    }))
}

#[test]
fn every_breach_of_the_schema_is_reported_at_once_with_its_path() {
    let v = json!({"name": 5, "priority": 11, "when": "yesterday", "extra": 1,
                   "inner": [{"url": "https://a.example/", "kind": "NOPE"}, {"url": 7, "other": true}]});
    assert_eq!(
        faults_of(v),
        [
            "extra unknown",
            "inner[0].kind enum",
            "inner[1].kind required",
            "inner[1].other unknown",
            "inner[1].url type",
            "name type",
            "priority range",
            "when dateTime"
        ]
    );
    assert_eq!(faults_of(json!({})), ["name required"]);
    assert_eq!(faults_of(json!({"name": null})), ["name required"]);
    assert_eq!(faults_of(json!({"name": ""})), ["name required"]);
    assert_eq!(faults_of(json!([1])), ["body type"]);
    let many = json!([{"url": "u", "kind": "IMPRESSION"}, {"url": "u", "kind": "IMPRESSION"}, {"url": "u", "kind": "IMPRESSION"}]);
    assert_eq!(faults_of(json!({"name": "n", "inner": many})), ["inner maxItems"]);
    assert_eq!(faults_of(json!({"name": "n".repeat(crate::limits::RECORD_NAME_MAX + 1)})), ["name maxLength"]);
}

#[test]
fn rules_run_on_the_filled_type_and_never_fault_a_field_twice() {
    // An unknown field is taken out, so the rules still run.
    assert_eq!(faults_of(json!({"name": "xy", "priority": 3, "extra": 1})), ["extra unknown", "name format", "priority step"]);
    // A value serde cannot fill (an enum outside its set) leaves the schema's faults alone.
    assert_eq!(faults_of(json!({"name": "xy", "inner": [{"url": "u", "kind": "NOPE"}]})), ["inner[0].kind enum"]);
    // A field the schema faulted is not faulted again by a rule.
    assert_eq!(faults_of(json!({"name": "x".repeat(300)})), ["name maxLength"]);
    let ok = read::<Outer>(&json!({"name": "n", "note": null, "shown": "2026-01-01"}), |_, _| {}).unwrap();
    assert_eq!((ok.note, ok.inner.len(), ok.shown), (Some(None), 0, Ignored));
    assert_eq!(read::<Outer>(&json!({"name": "n"}), |_, _| {}).unwrap().note, None);
}

#[test]
fn a_fault_inside_a_part_is_found_by_its_prefix() {
    let errors = vec![FieldError::new("timeRules[0].toMinute", Rule::Range, "")];
    assert!(faulted(&errors, "timeRules[0]") && faulted(&errors, "timeRules") && !faulted(&errors, "timeRules[1]"));
    assert!(!faulted(&errors, "time"));
}
