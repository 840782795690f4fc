//! The DynamoDB adapter's codec: items to and from attributes, condition and update
//! expressions, and the SDK's errors as the store port's (refused, no answer, failed).

use std::collections::HashMap;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::AttributeValue;

use super::super::*;

pub(super) type Attrs = HashMap<String, AttributeValue>;

pub(super) fn be<E: std::error::Error + Send + Sync + 'static>(e: E) -> StoreError {
    StoreError::backend("dynamodb", e)
}

pub(super) fn sdk_err<E, R>(e: SdkError<E, R>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    use aws_sdk_dynamodb::error::SdkError as E;
    match &e {
        // Refused before it was applied: safe to send again.
        E::ServiceError(_) if e.as_service_error().and_then(|s| s.code()).is_some_and(throttling_code) => {
            StoreError::Throttled(format!("dynamodb {}", e.as_service_error().and_then(|s| s.code()).unwrap_or("?")))
        }
        E::ConstructionFailure(_) => StoreError::backend("dynamodb request", e),
        // No answer, or the service's own failure: the outcome is unknown.
        E::TimeoutError(_) | E::DispatchFailure(_) | E::ResponseError(_) => StoreError::Unavailable(format!(
            "dynamodb at {} did not answer: {}",
            endpoint(),
            aws_sdk_dynamodb::error::DisplayErrorContext(&e)
        )),
        E::ServiceError(_)
            if e.as_service_error().and_then(|s| s.code()).is_some_and(|c| c == "InternalServerError" || c == "ServiceUnavailable") =>
        {
            StoreError::Unavailable(format!("dynamodb {}", e.as_service_error().and_then(|s| s.code()).unwrap_or("5xx")))
        }
        _ => match e.as_service_error() {
            Some(se) => StoreError::backend_msg(format!("dynamodb {}: {}", se.code().unwrap_or("?"), se.message().unwrap_or(""))),
            None => StoreError::backend("dynamodb request", e),
        },
    }
}

/// Where requests go, for the operator reading an outage's error: `AWS_ENDPOINT_URL_DYNAMODB`
/// or `AWS_ENDPOINT_URL` (moto, LocalStack), else the region's endpoint.
fn endpoint() -> String {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    var("AWS_ENDPOINT_URL_DYNAMODB").or_else(|| var("AWS_ENDPOINT_URL")).unwrap_or_else(|| {
        format!(
            "the regional endpoint ({})",
            var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION")).unwrap_or_else(|| "region not set".into())
        )
    })
}

/// DynamoDB's error codes for a request refused for capacity (nothing applied).
pub(super) fn throttling_code(code: &str) -> bool {
    matches!(code, "ProvisionedThroughputExceededException" | "RequestLimitExceeded" | "ThrottlingException" | "LimitExceededException")
}

pub(super) fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_string())
}

pub(super) fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub(super) fn counter_attr(name: &str) -> StoreResult<String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(StoreError::Invalid(format!("counter name {name:?}")));
    }
    Ok(format!("c_{name}"))
}

pub(super) fn key_attrs(k: &Key) -> Attrs {
    HashMap::from([("pk".to_string(), s(&k.pk)), ("sk".to_string(), s(&k.sk))])
}

/// A put as an update: sets the record's attributes, removes the optional ones it lacks,
/// and leaves counter attributes alone; a counter the item carries is set only where the
/// stored item has none (an item the put creates starts with them).
pub(super) fn put_update(item: &Item, e: &mut Expr) -> StoreResult<String> {
    let mut set = vec!["#u_body = :u_body".to_string(), "#u_ver = :u_ver".to_string()];
    let mut remove = Vec::new();
    e.names.insert("#u_body".into(), "body".into());
    e.names.insert("#u_ver".into(), "ver".into());
    e.values.insert(":u_body".into(), s(&item.body));
    e.values.insert(":u_ver".into(), n(item.version));
    for (attr, val) in [
        ("g1pk", item.gsi1.as_ref().map(|g| s(&g.0))),
        ("g1sk", item.gsi1.as_ref().map(|g| s(&g.1))),
        ("g2pk", item.gsi2.as_ref().map(|g| s(&g.0))),
        ("g2sk", item.gsi2.as_ref().map(|g| s(&g.1))),
        ("exp", item.expires_at.map(n)),
    ] {
        e.names.insert(format!("#u_{attr}"), attr.to_string());
        match val {
            Some(v) => {
                e.values.insert(format!(":u_{attr}"), v);
                set.push(format!("#u_{attr} = :u_{attr}"));
            }
            None => remove.push(format!("#u_{attr}")),
        }
    }
    for (i, (name, v)) in item.counters.iter().enumerate() {
        e.names.insert(format!("#u_c{i}"), counter_attr(name)?);
        e.values.insert(format!(":u_c{i}"), n(*v));
        set.push(format!("#u_c{i} = if_not_exists(#u_c{i}, :u_c{i})"));
    }
    let mut text = format!("SET {}", set.join(", "));
    if !remove.is_empty() {
        text.push_str(&format!(" REMOVE {}", remove.join(", ")));
    }
    Ok(text)
}

pub(super) fn get_s(m: &Attrs, k: &str) -> Option<String> {
    m.get(k).and_then(|v| v.as_s().ok()).cloned()
}

pub(super) fn get_n(m: &Attrs, k: &str) -> Option<i64> {
    m.get(k).and_then(|v| v.as_n().ok()).and_then(|x| x.parse::<i64>().ok())
}

pub(super) fn from_attrs(m: &Attrs) -> StoreResult<Item> {
    let pk = get_s(m, "pk").ok_or_else(|| StoreError::backend_msg("item without pk"))?;
    let sk = get_s(m, "sk").ok_or_else(|| StoreError::backend_msg("item without sk"))?;
    let pair = |a: &str, b: &str| match (get_s(m, a), get_s(m, b)) {
        (Some(x), Some(y)) => Some((x, y)),
        _ => None,
    };
    let counters = m
        .iter()
        .filter_map(|(k, v)| {
            let name = k.strip_prefix("c_")?;
            let val = v.as_n().ok()?.parse::<i64>().ok()?;
            Some((name.to_string(), val))
        })
        .collect();
    Ok(Item {
        gsi1: pair("g1pk", "g1sk"),
        gsi2: pair("g2pk", "g2sk"),
        version: get_n(m, "ver").unwrap_or(0).max(0) as u64,
        expires_at: get_n(m, "exp"),
        counters,
        body: get_s(m, "body").unwrap_or_default(),
        pk,
        sk,
    })
}

/// A condition expression with its names and values.
#[derive(Default)]
pub(super) struct Expr {
    pub(super) text: Option<String>,
    pub(super) names: HashMap<String, String>,
    pub(super) values: Attrs,
}

pub(super) fn cond_expr(cond: &Cond) -> StoreResult<Expr> {
    let mut e = Expr::default();
    let text = match cond {
        Cond::None => None,
        Cond::NotExists => Some("attribute_not_exists(pk)".to_string()),
        Cond::Exists => Some("attribute_exists(pk)".to_string()),
        Cond::Version(v) => {
            e.values.insert(":cver".into(), n(v));
            Some("ver = :cver".to_string())
        }
        Cond::CounterZero(c) => {
            e.names.insert("#cc".into(), counter_attr(c)?);
            e.values.insert(":czero".into(), n(0));
            Some("attribute_exists(pk) AND (attribute_not_exists(#cc) OR #cc = :czero)".to_string())
        }
        Cond::VersionAndCounterZero(v, c) => {
            e.names.insert("#cc".into(), counter_attr(c)?);
            e.values.insert(":czero".into(), n(0));
            e.values.insert(":cver".into(), n(v));
            Some("ver = :cver AND (attribute_not_exists(#cc) OR #cc = :czero)".to_string())
        }
        Cond::CounterBelow(c, limit) => {
            e.names.insert("#cc".into(), counter_attr(c)?);
            e.values.insert(":climit".into(), n(limit));
            Some("attribute_not_exists(#cc) OR #cc < :climit".to_string())
        }
        Cond::VersionBelow(v) => {
            e.values.insert(":cver".into(), n(v));
            Some("attribute_not_exists(pk) OR ver < :cver".to_string())
        }
    };
    e.text = text;
    Ok(e)
}

pub(super) fn opt_map<V>(m: HashMap<String, V>) -> Option<HashMap<String, V>> {
    if m.is_empty() {
        None
    } else {
        Some(m)
    }
}

/// The `ADD` update for counter deltas. It leaves `ver` alone: a record's version moves
/// with its body only (store/mod.rs, `Item::counters`).
pub(super) fn add_expr(deltas: &[(String, i64)], cond: &Cond) -> StoreResult<(Expr, String)> {
    if deltas.is_empty() {
        return Err(StoreError::Invalid("an add needs at least one counter".into()));
    }
    let mut e = cond_expr(cond)?;
    let mut parts = Vec::new();
    for (i, (name, d)) in deltas.iter().enumerate() {
        e.names.insert(format!("#a{i}"), counter_attr(name)?);
        e.values.insert(format!(":a{i}"), n(d));
        parts.push(format!("#a{i} :a{i}"));
    }
    Ok((e, format!("ADD {}", parts.join(", "))))
}
