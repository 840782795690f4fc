//! DynamoDB adapter (aws-sdk-dynamodb). The endpoint comes from the SDK configuration, so
//! `AWS_ENDPOINT_URL` points it at moto or LocalStack.

use std::collections::HashMap;
use std::time::Duration;

/// BatchWriteItem requests one `batch_write` keeps in flight.
const BATCH_WRITE_CONCURRENCY: usize = 16;

use async_trait::async_trait;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, ConditionCheck, Delete, GlobalSecondaryIndex, KeySchemaElement, KeyType, KeysAndAttributes,
    Projection, ProjectionType, ReturnValue, ScalarAttributeType, TimeToLiveSpecification, TransactWriteItem, Update,
};
use aws_sdk_dynamodb::Client;

use super::*;

pub const GSI1_NAME: &str = "gsi1";
pub const GSI2_NAME: &str = "gsi2";

mod codec;
use codec::*;

pub struct DynamoStore {
    client: Client,
    table: String,
    trips: RoundTrips,
}

impl DynamoStore {
    /// One BatchWriteItem of ≤ 25 requests, retrying unprocessed items with backoff.
    /// One BatchWriteItem of up to 25 requests; unprocessed items (DynamoDB's partial
    /// result under load) are sent again with jittered backoff, a bounded number of times.
    async fn batch_write_25(&self, mut pending: Vec<aws_sdk_dynamodb::types::WriteRequest>) -> StoreResult<()> {
        let backoff = Backoff::STORE;
        for attempt in 0..backoff.attempts {
            self.trips.inc();
            let out = self.client.batch_write_item().request_items(&self.table, pending.clone()).send().await.map_err(sdk_err)?;
            match out.unprocessed_items().and_then(|u| u.get(&self.table)) {
                Some(rest) if !rest.is_empty() => {
                    pending = rest.clone();
                    tokio::time::sleep(backoff.delay(attempt)).await;
                }
                _ => return Ok(()),
            }
        }
        // Those left were never applied.
        Err(StoreError::Throttled(format!("batch write: {} items unprocessed after retries", pending.len())))
    }
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        DynamoStore { client, table: table.into(), trips: RoundTrips::default() }
    }

    /// Client from the environment (`AWS_ENDPOINT_URL`, `AWS_REGION`, credentials chain).
    pub async fn from_env(table: impl Into<String>) -> Self {
        let conf = aws_config::load_from_env().await;
        Self::new(Client::new(&conf), table)
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// Creates the table with its GSIs and TTL when it does not exist (emulators, tests;
    /// on AWS the SAM template owns the table).
    pub async fn create_table_if_missing(&self) -> StoreResult<()> {
        let exists = self.client.describe_table().table_name(&self.table).send().await;
        if exists.is_ok() {
            return Ok(());
        }
        let ks = |name: &str, t: KeyType| KeySchemaElement::builder().attribute_name(name).key_type(t).build().map_err(be);
        let ad =
            |name: &str| AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().map_err(be);
        let gsi = |name: &str, h: &str, r: &str| -> StoreResult<GlobalSecondaryIndex> {
            GlobalSecondaryIndex::builder()
                .index_name(name)
                .key_schema(ks(h, KeyType::Hash)?)
                .key_schema(ks(r, KeyType::Range)?)
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .map_err(be)
        };
        let created = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest)
            .key_schema(ks("pk", KeyType::Hash)?)
            .key_schema(ks("sk", KeyType::Range)?)
            .attribute_definitions(ad("pk")?)
            .attribute_definitions(ad("sk")?)
            .attribute_definitions(ad("g1pk")?)
            .attribute_definitions(ad("g1sk")?)
            .attribute_definitions(ad("g2pk")?)
            .attribute_definitions(ad("g2sk")?)
            .global_secondary_indexes(gsi(GSI1_NAME, "g1pk", "g1sk")?)
            .global_secondary_indexes(gsi(GSI2_NAME, "g2pk", "g2sk")?)
            .send()
            .await;
        if let Err(e) = created {
            // A concurrent creator won: fine.
            if e.as_service_error().and_then(|x| x.code()) != Some("ResourceInUseException") {
                return Err(sdk_err(e));
            }
        }
        for _ in 0..100 {
            let d = self.client.describe_table().table_name(&self.table).send().await.map_err(sdk_err)?;
            let active = d.table().and_then(|t| t.table_status()).map(|s| s.as_str() == "ACTIVE").unwrap_or(false);
            if active {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let ttl = TimeToLiveSpecification::builder().attribute_name("exp").enabled(true).build().map_err(be)?;
        // TTL may already be set by a concurrent creator; ignore that error.
        let _ = self.client.update_time_to_live().table_name(&self.table).time_to_live_specification(ttl).send().await;
        Ok(())
    }
}

#[async_trait]
impl Store for DynamoStore {
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        check_key(key)?;
        self.trips.inc();
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk_err)?;
        out.item().map(from_attrs).transpose()
    }

    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        check_item(&item)?;
        self.trips.inc();
        let mut e = cond_expr(&cond)?;
        let update = put_update(&item, &mut e)?;
        let r = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(&item.key())))
            .update_expression(update)
            .set_condition_expression(e.text)
            .set_expression_attribute_names(opt_map(e.names))
            .set_expression_attribute_values(opt_map(e.values))
            .send()
            .await;
        match r {
            Ok(_) => Ok(()),
            Err(err) if err.as_service_error().is_some_and(|x| x.is_conditional_check_failed_exception()) => {
                Err(StoreError::ConditionFailed)
            }
            Err(err) => Err(sdk_err(err)),
        }
    }

    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        check_key(key)?;
        self.trips.inc();
        let e = cond_expr(&cond)?;
        let r = self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .set_condition_expression(e.text)
            .set_expression_attribute_names(opt_map(e.names))
            .set_expression_attribute_values(opt_map(e.values))
            .send()
            .await;
        match r {
            Ok(_) => Ok(()),
            Err(err) if err.as_service_error().is_some_and(|x| x.is_conditional_check_failed_exception()) => {
                Err(StoreError::ConditionFailed)
            }
            Err(err) => Err(sdk_err(err)),
        }
    }

    async fn query(&self, q: Query) -> StoreResult<Page> {
        check_query(&q)?;
        let (index, hk, rk) = match q.index {
            Index::Primary => (None, "pk", "sk"),
            Index::Gsi1 => (Some(GSI1_NAME), "g1pk", "g1sk"),
            Index::Gsi2 => (Some(GSI2_NAME), "g2pk", "g2sk"),
        };
        let mut names = HashMap::from([("#h".to_string(), hk.to_string())]);
        let mut values: Attrs = HashMap::from([(":h".to_string(), s(&q.pk))]);
        let sk_part = match &q.sk {
            SkCond::All => None,
            SkCond::Eq(v) => Some(("#r = :r1".to_string(), vec![v])),
            SkCond::BeginsWith(v) => Some(("begins_with(#r, :r1)".to_string(), vec![v])),
            SkCond::Between(a, b) => Some(("#r BETWEEN :r1 AND :r2".to_string(), vec![a, b])),
            SkCond::Gt(v) => Some(("#r > :r1".to_string(), vec![v])),
            SkCond::Lt(v) => Some(("#r < :r1".to_string(), vec![v])),
        };
        let mut key_cond = "#h = :h".to_string();
        if let Some((text, vals)) = sk_part {
            names.insert("#r".into(), rk.into());
            for (i, v) in vals.into_iter().enumerate() {
                values.insert(format!(":r{}", i + 1), s(v));
            }
            key_cond = format!("{key_cond} AND {text}");
        }
        let mut start: Option<Attrs> = q.start_after.as_ref().map(|c| {
            let mut m = key_attrs(&Key::new(c.pk.clone(), c.sk.clone()));
            if let Some((a, b)) = &c.index_key {
                m.insert(hk.into(), s(a));
                m.insert(rk.into(), s(b));
            }
            m
        });
        let limit = q.limit.unwrap_or(usize::MAX);
        let mut items = Vec::new();
        loop {
            self.trips.inc();
            let remaining = limit - items.len();
            let mut req = self
                .client
                .query()
                .table_name(&self.table)
                .set_index_name(index.map(str::to_string))
                .key_condition_expression(&key_cond)
                .set_expression_attribute_names(Some(names.clone()))
                .set_expression_attribute_values(Some(values.clone()))
                .scan_index_forward(q.forward)
                .set_exclusive_start_key(start.take());
            if index.is_none() {
                req = req.consistent_read(true);
            }
            if q.keys_only {
                req = req.projection_expression("pk, sk, g1pk, g1sk, g2pk, g2sk");
            }
            if remaining < 1000 {
                req = req.limit(remaining as i32);
            }
            let out = req.send().await.map_err(sdk_err)?;
            for m in out.items() {
                items.push(from_attrs(m)?);
            }
            let lek = out.last_evaluated_key().cloned();
            match lek {
                Some(k) if items.len() < limit => start = Some(k),
                Some(k) => {
                    let next = Cursor {
                        pk: get_s(&k, "pk").unwrap_or_default(),
                        sk: get_s(&k, "sk").unwrap_or_default(),
                        index_key: match (get_s(&k, hk), get_s(&k, rk)) {
                            (Some(a), Some(b)) if index.is_some() => Some((a, b)),
                            _ => None,
                        },
                    };
                    return Ok(Page { items, next: Some(next) });
                }
                None => return Ok(Page { items, next: None }),
            }
        }
    }

    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        check_keys(keys)?;
        let mut uniq: Vec<&Key> = keys.iter().collect();
        uniq.sort();
        uniq.dedup();
        let mut out = Vec::with_capacity(uniq.len());
        for chunk in uniq.chunks(100) {
            let mut pending = KeysAndAttributes::builder()
                .set_keys(Some(chunk.iter().map(|k| key_attrs(k)).collect()))
                .consistent_read(true)
                .build()
                .map_err(be)?;
            let backoff = Backoff::STORE;
            for attempt in 0..backoff.attempts {
                self.trips.inc();
                let res = self.client.batch_get_item().request_items(&self.table, pending.clone()).send().await.map_err(sdk_err)?;
                if let Some(found) = res.responses().and_then(|r| r.get(&self.table)) {
                    for m in found {
                        out.push(from_attrs(m)?);
                    }
                }
                match res.unprocessed_keys().and_then(|u| u.get(&self.table)) {
                    Some(rest) if !rest.keys().is_empty() => {
                        pending = rest.clone();
                        if attempt + 1 == backoff.attempts {
                            return Err(StoreError::Throttled("batch get: unprocessed keys after retries".into()));
                        }
                        tokio::time::sleep(backoff.delay(attempt)).await;
                    }
                    _ => break,
                }
            }
        }
        Ok(out)
    }

    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        check_transaction(&ops)?;
        let mut items = Vec::with_capacity(ops.len());
        for op in &ops {
            let w = match op {
                TxOp::Put(item, c) => {
                    let mut e = cond_expr(c)?;
                    let update = put_update(item, &mut e)?;
                    let u = Update::builder()
                        .table_name(&self.table)
                        .set_key(Some(key_attrs(&item.key())))
                        .update_expression(update)
                        .set_condition_expression(e.text)
                        .set_expression_attribute_names(opt_map(e.names))
                        .set_expression_attribute_values(opt_map(e.values))
                        .build()
                        .map_err(be)?;
                    TransactWriteItem::builder().update(u).build()
                }
                TxOp::Delete(k, c) => {
                    let e = cond_expr(c)?;
                    let d = Delete::builder()
                        .table_name(&self.table)
                        .set_key(Some(key_attrs(k)))
                        .set_condition_expression(e.text)
                        .set_expression_attribute_names(opt_map(e.names))
                        .set_expression_attribute_values(opt_map(e.values))
                        .build()
                        .map_err(be)?;
                    TransactWriteItem::builder().delete(d).build()
                }
                TxOp::Check(k, c) => {
                    let e = cond_expr(c)?;
                    let text = e.text.ok_or_else(|| StoreError::Invalid("condition check without a condition".into()))?;
                    let cc = ConditionCheck::builder()
                        .table_name(&self.table)
                        .set_key(Some(key_attrs(k)))
                        .condition_expression(text)
                        .set_expression_attribute_names(opt_map(e.names))
                        .set_expression_attribute_values(opt_map(e.values))
                        .build()
                        .map_err(be)?;
                    TransactWriteItem::builder().condition_check(cc).build()
                }
                TxOp::Add(k, deltas, c) => {
                    let (e, update) = add_expr(deltas, c)?;
                    let u = Update::builder()
                        .table_name(&self.table)
                        .set_key(Some(key_attrs(k)))
                        .update_expression(update)
                        .set_condition_expression(e.text)
                        .set_expression_attribute_names(opt_map(e.names))
                        .set_expression_attribute_values(opt_map(e.values))
                        .build()
                        .map_err(be)?;
                    TransactWriteItem::builder().update(u).build()
                }
            };
            items.push(w);
        }
        self.trips.inc();
        let r = self.client.transact_write_items().set_transact_items(Some(items)).send().await;
        match r {
            Ok(_) => Ok(()),
            Err(err) => {
                if let Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(tc)) =
                    err.as_service_error()
                {
                    let reasons = tc.cancellation_reasons();
                    let index = reasons.iter().position(|r| r.code() == Some("ConditionalCheckFailed"));
                    if index.is_some() {
                        return Err(StoreError::TransactionCanceled { index });
                    }
                    // A conflict with another transaction is a lost race the caller retries;
                    // any other reason (validation, capacity) is a failure, not a race.
                    let codes: Vec<&str> = reasons.iter().filter_map(|r| r.code()).filter(|c| *c != "None").collect();
                    if codes.iter().all(|c| *c == "TransactionConflict") {
                        return Err(StoreError::TransactionCanceled { index: None });
                    }
                    // Cancelled for capacity: nothing was applied; send it again.
                    if codes.iter().all(|c| *c == "ThrottlingError" || *c == "ProvisionedThroughputExceeded" || *c == "TransactionConflict")
                    {
                        return Err(StoreError::Throttled(format!("transaction cancelled: {}", codes.join(", "))));
                    }
                    return Err(StoreError::backend_msg(format!("transaction cancelled: {}", codes.join(", "))));
                }
                Err(sdk_err(err))
            }
        }
    }

    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
        puts.iter().try_for_each(check_item)?;
        check_keys(&deletes)?;
        use futures_util::stream::{self, TryStreamExt};
        let mut requests: Vec<WriteRequest> = Vec::with_capacity(puts.len() + deletes.len());
        for item in &puts {
            let mut attrs = key_attrs(&item.key());
            attrs.insert("ver".into(), n(item.version));
            attrs.insert("body".into(), s(&item.body));
            for (a, b, v) in [("g1pk", "g1sk", &item.gsi1), ("g2pk", "g2sk", &item.gsi2)] {
                if let Some((x, y)) = v {
                    attrs.insert(a.into(), s(x));
                    attrs.insert(b.into(), s(y));
                }
            }
            if let Some(e) = item.expires_at {
                attrs.insert("exp".into(), n(e));
            }
            let put = PutRequest::builder().set_item(Some(attrs)).build().map_err(be)?;
            requests.push(WriteRequest::builder().put_request(put).build());
        }
        for k in &deletes {
            let del = DeleteRequest::builder().set_key(Some(key_attrs(k))).build().map_err(be)?;
            requests.push(WriteRequest::builder().delete_request(del).build());
        }
        // BatchWriteItem takes 25 requests; up to BATCH_WRITE_CONCURRENCY of them in flight.
        let chunks: Vec<Vec<WriteRequest>> = requests.chunks(25).map(<[WriteRequest]>::to_vec).collect();
        stream::iter(chunks.into_iter().map(Ok)).try_for_each_concurrent(BATCH_WRITE_CONCURRENCY, |chunk| self.batch_write_25(chunk)).await
    }

    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        check_key(key)?;
        self.trips.inc();
        let (e, update) = add_expr(deltas, &cond)?;
        let r = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key_attrs(key)))
            .update_expression(update)
            .set_condition_expression(e.text)
            .set_expression_attribute_names(opt_map(e.names))
            .set_expression_attribute_values(opt_map(e.values))
            .return_values(ReturnValue::AllNew)
            .send()
            .await;
        match r {
            Ok(out) => match out.attributes() {
                Some(m) => from_attrs(m),
                None => Err(StoreError::backend_msg("update returned no attributes")),
            },
            Err(err) if err.as_service_error().is_some_and(|x| x.is_conditional_check_failed_exception()) => {
                Err(StoreError::ConditionFailed)
            }
            Err(err) => Err(sdk_err(err)),
        }
    }

    fn round_trips(&self) -> u64 {
        self.trips.get()
    }

    fn kind(&self) -> &'static str {
        "dynamodb"
    }
}
