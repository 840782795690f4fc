//! Asset objects live as long as their records (docs/security.md): an asset never linked
//! to an ad expires by DynamoDB's TTL; the table's stream brings the removed record (old
//! image) here and its objects are deleted from the bucket. Only removals made by the
//! DynamoDB service itself (TTL) count; the event source filters for them too. Locally the
//! embedded store's own sweep (over the store port) hands its expired assets to the same
//! deletion.

use aws_lambda_events::dynamodb::{Event, EventRecord};
use aws_lambda_events::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};

use crate::blobs::Blobs;
use crate::repo::assets::{self, Expired};
use crate::state::AppState;

/// The expired asset a stream record removed by TTL names (`None`: another change, a
/// user's delete, another record, or an image without the key and body).
pub fn expired(r: &EventRecord) -> Option<Expired> {
    let by_ttl = r.event_name == "REMOVE"
        && r.user_identity.as_ref().is_some_and(|u| u.type_ == "Service" && u.principal_id == "dynamodb.amazonaws.com");
    if !by_ttl {
        return None;
    }
    let old = &r.change.old_image;
    let text = |name: &str| match old.get(name) {
        Some(serde_dynamo::AttributeValue::S(s)) => Some(s.as_str()),
        _ => None,
    };
    assets::expired(text("pk")?, text("body")?)
}

/// Deletes an expired asset's objects; `false` when one could not be deleted (retried).
async fn delete_objects(blobs: &dyn Blobs, e: &Expired) -> bool {
    let mut ok = true;
    for key in e.objects() {
        match blobs.delete(&key).await {
            Ok(()) => tracing::info!(key, "object of an expired asset deleted"),
            Err(err) => {
                tracing::warn!(key, error = %err, "could not delete an expired asset's object; will retry");
                ok = false;
            }
        }
    }
    ok
}

/// Handles one batch of DynamoDB stream records; answers the records to retry
/// (`ReportBatchItemFailures`, by sequence number).
pub async fn handle(blobs: &dyn Blobs, event: &Event) -> DynamoDbEventResponse {
    let mut out = DynamoDbEventResponse::default();
    for r in &event.records {
        let Some(e) = expired(r) else { continue };
        if !delete_objects(blobs, &e).await {
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = r.change.sequence_number.clone();
            out.batch_item_failures.push(failure);
        }
    }
    out
}

/// The embedded store's TTL (local server): every `every`, expired items are removed and
/// the expired assets' objects leave the bucket too.
pub fn sweep_embedded(st: AppState, every: std::time::Duration) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            if let Err(e) = sweep_once(&st).await {
                tracing::warn!(error = %e, "expired items not swept; next time");
            }
        }
    });
}

/// One sweep: returns how many expired assets were removed (their objects deleted, or
/// logged when they could not be).
pub async fn sweep_once(st: &AppState) -> crate::repo::RepoResult<usize> {
    let expired = assets::sweep_expired(st.store.as_ref(), st.clock.now().timestamp()).await?;
    for e in &expired {
        delete_objects(st.blobs.as_ref(), e).await;
    }
    if !expired.is_empty() {
        tracing::info!(removed = expired.len(), "expired assets swept");
    }
    Ok(expired.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn record(event: &str, identity: Value, pk: &str, object_key: &str) -> EventRecord {
        let body = json!({"id": "x", "name": "a.mp4", "source": "url", "status": "READY", "objectKey": object_key, "linked": false,
            "created": "2026-01-01T00:00:00Z", "modified": "2026-01-01T00:00:00Z"});
        serde_json::from_value(json!({"awsRegion": "eu-west-1", "eventID": "1", "eventName": event, "userIdentity": identity,
            "dynamodb": {"SequenceNumber": "1", "SizeBytes": 100,
            "OldImage": {"pk": {"S": pk}, "sk": {"S": "x"}, "body": {"S": body.to_string()}}}}))
        .unwrap()
    }

    fn objects(r: &EventRecord) -> Vec<String> {
        expired(r).map(|e| e.objects()).unwrap_or_default()
    }

    #[test]
    fn only_ttl_removals_of_assets_name_an_object() {
        let ttl = json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"});
        assert_eq!(objects(&record("REMOVE", ttl.clone(), "A#a1#ASSET", "a1/assets/x/a.mp4")), vec!["a1/assets/x/a.mp4".to_string()]);
        assert_eq!(objects(&record("REMOVE", Value::Null, "A#a1#ASSET", "a1/assets/x/a.mp4")), Vec::<String>::new(), "a user's delete");
        assert_eq!(objects(&record("MODIFY", ttl.clone(), "A#a1#ASSET", "a1/assets/x/a.mp4")), Vec::<String>::new());
        assert_eq!(objects(&record("REMOVE", ttl.clone(), "A#a1#AD", "a1/assets/x/a.mp4")), Vec::<String>::new());
        assert_eq!(objects(&record("REMOVE", ttl, "A#a1#ASSET", "a2/assets/x/a.mp4")), Vec::<String>::new(), "another account's object");
    }
}
