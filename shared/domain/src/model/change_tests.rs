use super::*;
use serde_json::json;

fn fields(m: &[Moved]) -> Vec<(String, Option<Value>, Option<Value>)> {
    m.iter().flat_map(|m| m.fields.iter().map(|f| (f.path.clone(), f.old.clone(), f.new.clone()))).collect()
}

#[test]
fn keys_name_their_subjects() {
    assert_eq!(subject("A#acc#GOAL", "g1"), Some(Subject::Record { account: "acc".into(), kind: "goal", id: "g1".into() }));
    assert_eq!(subject("A#acc#RULES", "CAMPAIGN#c1"), Some(Subject::Rules { account: "acc".into(), kind: "campaign", id: "c1".into() }));
    assert_eq!(subject("A#acc#DEMAND", "PARTNERS"), Some(Subject::Collection { account: "acc".into(), kind: "demandPartner" }));
    assert_eq!(subject("A#acc#IDEMP", "x"), None);
    assert_eq!(subject("A#acc#DELIVERY", "VERSION"), None);
    assert_eq!(subject("KEY#abc", "KEY"), None);
}

#[test]
fn an_update_lists_what_changed_and_not_what_a_write_derives() {
    let s = subject("A#a#GOAL", "g").unwrap();
    let old = json!({"id": "g", "start": "2026-01-01", "priority": 3, "modified": "t1", "caps": [{"impressions": 3}]});
    let new = json!({"id": "g", "start": "2026-02-01", "priority": 3, "modified": "t2", "caps": [{"impressions": 4}]});
    let m = moves(&s, Some(&old), Some(&new));
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].operation, Operation::Update);
    assert_eq!(
        fields(&m),
        vec![
            ("caps[0].impressions".into(), Some(json!(3)), Some(json!(4))),
            ("start".into(), Some(json!("2026-01-01")), Some(json!("2026-02-01")))
        ]
    );
    assert!(moves(
        &s,
        Some(&old),
        Some(&json!({"id": "g", "start": "2026-01-01", "priority": 3, "modified": "t9", "caps": [{"impressions": 3}]}))
    )
    .is_empty());
}

#[test]
fn items_with_ids_are_diffed_by_id_and_secrets_never_shown() {
    let s = subject("A#a#RULES", "GOAL#g").unwrap();
    let old = json!({"locations": [{"id": "US", "allowed": true}, {"id": "DE", "allowed": true}]});
    let new = json!({"locations": [{"id": "DE", "allowed": false}, {"id": "FR", "allowed": true}]});
    let f = fields(&moves(&s, Some(&old), Some(&new)));
    assert_eq!(
        f,
        vec![
            ("rules.locations[DE].allowed".into(), Some(json!(true)), Some(json!(false))),
            ("rules.locations[FR]".into(), Some(Value::Null), Some(json!({"id": "FR", "allowed": true}))),
            ("rules.locations[US]".into(), Some(json!({"id": "US", "allowed": true})), Some(Value::Null)),
        ]
    );
    let s = subject("A#a#STITCHER", "ALL").unwrap();
    let old = json!({"entries": [{"version": 1, "record": {"id": "s1", "name": "a", "secretHeader": {"name": "x", "value": "s3cret-1"}}}]});
    let new = json!({"entries": [{"version": 2, "record": {"id": "s1", "name": "a", "secretHeader": {"name": "x", "value": "s3cret-2"}}}]});
    let m = moves(&s, Some(&old), Some(&new));
    assert_eq!(m[0].record_id, "s1");
    assert_eq!(m[0].fields, vec![FieldChange { path: "secretHeader".into(), old: None, new: None, write_only: true, omitted: false }]);
    assert!(!serde_json::to_string(&m[0].fields).unwrap().contains("s3cret"));
}

#[test]
fn state_moves_are_named() {
    let s = subject("A#a#CAMPAIGN", "c").unwrap();
    let live = json!({"id": "c", "name": "n", "goals": [{"id": "g"}]});
    let archived = json!({"id": "c", "name": "n", "archivedAt": "t", "goals": [{"id": "g"}]});
    let deleted = json!({"id": "c", "name": "n", "deletedAt": "t"});
    assert_eq!(moves(&s, Some(&live), Some(&archived))[0].operation, Operation::Archive);
    assert_eq!(moves(&s, Some(&archived), Some(&live))[0].operation, Operation::Unarchive);
    let d = &moves(&s, Some(&live), Some(&deleted))[0];
    assert_eq!(d.operation, Operation::Delete);
    assert!(d.fields.iter().any(|f| f.path == "name" && f.old == Some(json!("n")) && f.new == Some(Value::Null)));
    assert!(!d.fields.iter().any(|f| f.path == "goals"), "a campaign's goal flights are its goals' history");
    let c = &moves(&s, None, Some(&live))[0];
    assert_eq!(c.operation, Operation::Create);
}

#[test]
fn a_diff_is_bounded() {
    let s = subject("A#a#AD", "x").unwrap();
    let long = "x".repeat(MAX_VALUE_CHARS + 1);
    let m = moves(&s, Some(&json!({"a": 1})), Some(&json!({"a": long})));
    assert!(m[0].fields[0].omitted && m[0].fields[0].old.is_none());
    let many: Map<String, Value> = (0..2_000).map(|i| (format!("f{i}"), json!("y".repeat(1_000)))).collect();
    let m = moves(&s, None, Some(&Value::Object(many)));
    assert!(m[0].truncated);
    assert!(serde_json::to_string(&m[0].fields).unwrap().len() < MAX_FIELDS_BYTES + 10_000);
}

#[test]
fn old_values_are_put_back() {
    let s = subject("A#a#RULES", "GOAL#g").unwrap();
    let old = json!({"n": 1, "locations": [{"id": "US", "allowed": true}], "days": ["MO"]});
    let new = json!({"n": 2, "locations": [{"id": "US", "allowed": false}, {"id": "FR", "allowed": true}], "days": ["TU"], "extra": 1});
    let m = moves(&s, Some(&old), Some(&new));
    let mut body = new.clone();
    put_back(&mut body, "rules", &m[0].fields).unwrap();
    assert_eq!(body, old);
    let mut gone = json!({"n": 2});
    assert!(put_back(&mut gone, "rules", &m[0].fields).is_err());
}
