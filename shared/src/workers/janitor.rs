//! Asset objects live as long as their records (docs/security.md): an asset never linked
//! to an ad expires by DynamoDB's TTL; the table's stream brings the removed record (old
//! image) here and its object is deleted from the bucket. Only removals made by the
//! DynamoDB service itself (TTL) count; the event source filters for them too.

use serde_json::{json, Value};

use crate::model::asset::Asset;
use crate::state::AppState;

/// Handles one batch of DynamoDB stream records; answers the records to retry
/// (`ReportBatchItemFailures`, by sequence number).
pub async fn handle(st: &AppState, event: &Value) -> Value {
    let mut failures = Vec::new();
    for r in event["Records"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let mut failed = false;
        for key in expired_objects(r) {
            match st.blobs.delete(&key).await {
                Ok(()) => tracing::info!(key, "object of an expired asset deleted"),
                Err(e) => {
                    tracing::warn!(key, error = %e, "could not delete an expired asset's object; will retry");
                    failed = true;
                }
            }
        }
        if failed {
            failures.push(json!({"itemIdentifier": r["dynamodb"]["SequenceNumber"]}));
        }
    }
    json!({"batchItemFailures": failures})
}

/// The embedded store's TTL (local server): every `every`, expired items are removed
/// (`EmbeddedStore::sweep_expired`) and the removed records go through `handle` as
/// DynamoDB's stream brings TTL removals, so expired assets' objects leave the bucket too.
pub fn sweep_embedded(store: std::sync::Arc<crate::store::embedded::EmbeddedStore>, st: AppState, every: std::time::Duration) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            if let Err(e) = sweep_once(&store, &st).await {
                tracing::warn!(error = %e, "expired items not swept; next time");
            }
        }
    });
}

/// One sweep: returns how many items were removed.
pub async fn sweep_once(store: &crate::store::embedded::EmbeddedStore, st: &AppState) -> Result<usize, crate::store::StoreError> {
    let removed = store.sweep_expired(st.clock.now().timestamp()).await?;
    let records: Vec<Value> = removed
        .iter()
        .enumerate()
        .map(|(i, item)| {
            json!({"eventName": "REMOVE", "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
                "dynamodb": {"SequenceNumber": i.to_string(),
                    "OldImage": {"pk": {"S": item.pk}, "sk": {"S": item.sk}, "body": {"S": item.body}}}})
        })
        .collect();
    if !records.is_empty() {
        handle(st, &json!({ "Records": records })).await;
        tracing::info!(removed = removed.len(), "expired items swept");
    }
    Ok(removed.len())
}

/// The objects of an asset record removed by TTL (an unlinked asset expired, or one
/// deleted through the API, which expires it at once): its master, renditions and still.
pub fn expired_objects(r: &Value) -> Vec<String> {
    let by_ttl = r["eventName"] == "REMOVE"
        && r["userIdentity"]["type"] == "Service"
        && r["userIdentity"]["principalId"] == "dynamodb.amazonaws.com";
    if !by_ttl {
        return Vec::new();
    }
    let old = &r["dynamodb"]["OldImage"];
    let Some(account) = old["pk"]["S"].as_str().and_then(|pk| pk.strip_prefix("A#")?.strip_suffix(&format!("#{}", crate::keys::ASSET)))
    else {
        return Vec::new();
    };
    let Some(asset) = old["body"]["S"].as_str().and_then(|b| serde_json::from_str::<Asset>(b).ok()) else { return Vec::new() };
    // Only the asset's own objects, under its account's prefix.
    let own = format!("{account}/assets/");
    asset
        .object_key
        .into_iter()
        .chain(asset.renditions.into_iter().map(|r| r.key))
        .chain(asset.still.map(|s| s.key))
        .filter(|k| k.starts_with(&own))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(event: &str, identity: Value, pk: &str, object_key: &str) -> Value {
        let body = json!({"id": "x", "name": "a.mp4", "source": "url", "status": "READY", "objectKey": object_key, "linked": false,
            "created": "2026-01-01T00:00:00Z", "modified": "2026-01-01T00:00:00Z"});
        json!({"eventName": event, "userIdentity": identity, "dynamodb": {"SequenceNumber": "1",
            "OldImage": {"pk": {"S": pk}, "sk": {"S": "x"}, "body": {"S": body.to_string()}}}})
    }

    #[test]
    fn only_ttl_removals_of_assets_name_an_object() {
        let ttl = json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"});
        assert_eq!(
            expired_objects(&record("REMOVE", ttl.clone(), "A#a1#ASSET", "a1/assets/x/a.mp4")),
            vec!["a1/assets/x/a.mp4".to_string()]
        );
        assert_eq!(
            expired_objects(&record("REMOVE", Value::Null, "A#a1#ASSET", "a1/assets/x/a.mp4")),
            Vec::<String>::new(),
            "a user's delete"
        );
        assert_eq!(expired_objects(&record("MODIFY", ttl.clone(), "A#a1#ASSET", "a1/assets/x/a.mp4")), Vec::<String>::new());
        assert_eq!(expired_objects(&record("REMOVE", ttl.clone(), "A#a1#AD", "a1/assets/x/a.mp4")), Vec::<String>::new());
        assert_eq!(
            expired_objects(&record("REMOVE", ttl, "A#a1#ASSET", "a2/assets/x/a.mp4")),
            Vec::<String>::new(),
            "another account's object"
        );
    }
}
