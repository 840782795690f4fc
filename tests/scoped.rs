//! The table permissions of `template.yaml`, enforced in the tests.
//!
//! Each function of the template may write only the partitions its policy names
//! (`dynamodb:LeadingKeys`, IAM `StringLike` patterns). The tests give every group's router
//! and every worker its own [`ScopedStore`] with the patterns read from the template, so
//! each HTTP test also proves the template lets the function do its work, and a write
//! outside its partitions (an API-key record, another group's records) fails the test.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use web::store::{Cond, Delegate, Item, Key, Page, Query, Store, StoreError, StoreResult, TxOp};

/// The write patterns of each function of `template.yaml`, by its package name (the
/// LogicalId -> package table of `infra/sam/Makefile`, which `sam build` builds from). A
/// function without a scoped write statement has none.
pub fn template_scopes() -> BTreeMap<String, Vec<String>> {
    scopes_of(false)
}

/// The read patterns of the functions whose reads are scoped too: a statement of read
/// actions only (GetItem, Query, BatchGetItem) with `dynamodb:LeadingKeys` (over the table,
/// and its indexes when the statement names them).
pub fn template_read_scopes() -> BTreeMap<String, Vec<String>> {
    scopes_of(true)
}

fn scopes_of(reads: bool) -> BTreeMap<String, Vec<String>> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let text = std::fs::read_to_string(format!("{root}/template.yaml")).expect("template.yaml");
    let make = std::fs::read_to_string(format!("{root}/infra/sam/Makefile")).expect("infra/sam/Makefile");
    let packages: BTreeMap<&str, &str> =
        make.split_whitespace().filter_map(|w| w.split_once('=')).filter(|(id, _)| id.ends_with("Function")).collect();
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut read_only = false;
    for line in text.lines() {
        let t = line.trim();
        if line.starts_with("  ") && !line.starts_with("   ") && t.ends_with(':') {
            current = packages.get(t.trim_end_matches(':')).map(|p| p.to_string());
            if let (Some(p), false) = (&current, reads) {
                out.entry(p.clone()).or_insert_with(Vec::new);
            }
        }
        if let Some(actions) = t.strip_prefix("Action:") {
            read_only =
                ["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "ConditionCheckItem"].iter().all(|w| !actions.contains(w));
        }
        if read_only != reads {
            continue;
        }
        if let (Some(name), Some(list)) = (&current, t.strip_prefix("dynamodb:LeadingKeys:")) {
            let patterns =
                list.trim().trim_start_matches('[').trim_end_matches(']').split(',').map(|p| p.trim().trim_matches('"').to_string());
            out.entry(name.clone()).or_insert_with(Vec::new).extend(patterns.filter(|p| !p.is_empty()));
        }
    }
    out
}

/// The template's block of the function built as `package` (its Properties).
pub fn text_of(template: &str, package: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let make = std::fs::read_to_string(format!("{root}/infra/sam/Makefile")).expect("infra/sam/Makefile");
    let id = make
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .find(|(id, p)| id.ends_with("Function") && *p == package)
        .map(|(id, _)| id)
        .unwrap_or_else(|| panic!("no function {package}"));
    let mut lines = template.lines().skip_while(|l| *l != format!("  {id}:"));
    let head = lines.next().unwrap_or_else(|| panic!("{id} is not in template.yaml"));
    let top = |l: &str| {
        l.starts_with("  ") && !l.starts_with("   ") && !l.trim_start().starts_with('#') || (!l.is_empty() && !l.starts_with(' '))
    };
    std::iter::once(head).chain(lines.take_while(|l| !top(l))).collect::<Vec<_>>().join("\n")
}

/// IAM `StringLike`: `*` matches any run of characters, `?` one.
pub fn like(pattern: &str, s: &str) -> bool {
    let (p, s) = (pattern.as_bytes(), s.as_bytes());
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < s.len() {
        if i < p.len() && (p[i] == b'?' || p[i] == s[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == b'*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(st) = star {
            i = st + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == b'*')
}

/// A partition's shape: ids become `*`, the scheme's upper-case words stay.
fn shape(pk: &str) -> String {
    let parts: Vec<&str> =
        pk.split('#').map(|p| if p.chars().all(|c| c.is_ascii_uppercase() || c == '_') && !p.is_empty() { p } else { "*" }).collect();
    parts.join("#")
}

/// A store that refuses writes outside a function's partitions, as IAM would (and reads,
/// for a function whose reads are scoped).
pub struct ScopedStore {
    pub inner: Arc<dyn Store>,
    pub function: String,
    pub patterns: Vec<String>,
    /// `None`: the function may read the whole table.
    pub reads: Option<Vec<String>>,
}

impl ScopedStore {
    pub fn wrap(inner: Arc<dyn Store>, function: &str, scopes: &BTreeMap<String, Vec<String>>) -> Arc<dyn Store> {
        let patterns = scopes.get(function).cloned().unwrap_or_else(|| panic!("template.yaml has no function built as {function}"));
        let reads = template_read_scopes().get(function).cloned();
        Arc::new(ScopedStore { inner, function: function.to_string(), patterns, reads })
    }

    fn check_read<'a>(&self, keys: impl IntoIterator<Item = &'a str>) -> StoreResult<()> {
        if std::env::var_os("SCOPE_RECORD").is_some() {
            for pk in keys {
                eprintln!("SCOPE-READ {} {}", self.function, shape(pk));
            }
            return Ok(());
        }
        let Some(reads) = &self.reads else { return Ok(()) };
        for pk in keys {
            if !reads.iter().any(|p| like(p, pk)) {
                let msg = format!("AccessDenied: template.yaml does not let {} read partition {pk} (allowed: {reads:?})", self.function);
                eprintln!("{msg}");
                return Err(StoreError::backend_msg(msg));
            }
        }
        Ok(())
    }

    fn check<'a>(&self, keys: impl IntoIterator<Item = &'a str>) -> StoreResult<()> {
        let record = std::env::var_os("SCOPE_RECORD").is_some();
        for pk in keys {
            if record {
                eprintln!("SCOPE {} {}", self.function, shape(pk));
                continue;
            }
            if !self.patterns.iter().any(|p| like(p, pk)) {
                let msg = format!(
                    "AccessDenied: template.yaml does not let {} write partition {pk} (allowed: {:?})",
                    self.function, self.patterns
                );
                eprintln!("{msg}");
                return Err(StoreError::backend_msg(msg));
            }
        }
        Ok(())
    }
}

#[async_trait]
impl Delegate for ScopedStore {
    fn inner(&self) -> &dyn Store {
        self.inner.as_ref()
    }
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        self.check_read([key.pk.as_str()])?;
        self.inner.get(key).await
    }
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        self.check([item.pk.as_str()])?;
        self.inner.put(item, cond).await
    }
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        self.check([key.pk.as_str()])?;
        self.inner.delete(key, cond).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        // A GSI's partition key is not the table's: IAM's LeadingKeys does not cover it.
        // IAM's LeadingKeys holds an index's partition key too (the statement names the
        // table's indexes as a resource when the function queries one).
        self.check_read([q.pk.as_str()])?;
        self.inner.query(q).await
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        self.check_read(keys.iter().map(|k| k.pk.as_str()))?;
        self.inner.batch_get(keys).await
    }
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        // A condition check is a write action in IAM (dynamodb:ConditionCheckItem) too.
        let keys: Vec<Key> = ops.iter().map(TxOp::key).collect();
        self.check(keys.iter().map(|k| k.pk.as_str()))?;
        self.inner.transact(ops).await
    }
    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        self.check(puts.iter().map(|i| i.pk.as_str()).chain(deletes.iter().map(|k| k.pk.as_str())))?;
        self.inner.batch_write(puts, deletes).await
    }
    async fn put_newer(&self, items: Vec<Item>) -> StoreResult<()> {
        self.check(items.iter().map(|i| i.pk.as_str()))?;
        self.inner.put_newer(items).await
    }
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        self.check([key.pk.as_str()])?;
        self.inner.add(key, deltas, cond).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_functions_that_sign_or_check_links_hold_their_keys() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let template = std::fs::read_to_string(format!("{root}/template.yaml")).expect("template.yaml");
        // Every function's package, as infra/sam/Makefile names them.
        let make = std::fs::read_to_string(format!("{root}/infra/sam/Makefile")).expect("infra/sam/Makefile");
        let packages: Vec<&str> =
            make.split_whitespace().filter_map(|w| w.split_once('=')).filter(|(id, _)| id.ends_with("Function")).map(|(_, p)| p).collect();
        assert!(packages.len() > 20, "{packages:?}");
        let holders = |secret: &str| -> Vec<&str> {
            let mut held: Vec<&str> =
                packages.iter().copied().filter(|f| text_of(&template, f).contains(&format!("!Ref {secret}"))).collect();
            held.sort_unstable();
            held
        };
        // Tracking links carry revenue: signed by serving, checked by tracking, nobody else.
        assert_eq!(holders("TrackingKeys"), ["serving", "tracking"]);
        // Preview links: signed by queries, checked by serving.
        assert_eq!(holders("PreviewKeys"), ["queries", "serving"]);
    }

    #[test]
    fn string_like() {
        assert!(like("A#*#CLIENT", "A#acc-1#CLIENT"));
        assert!(like("A#*#CLIENT*", "A#acc-1#CLIENT#c1#CONTACTS"));
        assert!(!like("A#*#CLIENT", "A#acc-1#CLIENTS"));
        assert!(!like("A#*", "KEY#abc"));
        assert!(like("A#?", "A#x") && !like("A#?", "A#xy"));
    }

    #[test]
    fn every_function_names_its_partitions_and_none_writes_api_keys() {
        let scopes = template_scopes();
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).unwrap();
        assert!(!text.contains("DynamoDBCrudPolicy"), "a function with write access to the whole table");
        // sam build builds every function through infra/sam/Makefile (BuildMethod makefile).
        let functions = text.matches("Type: AWS::Serverless::Function").count();
        assert_eq!(scopes.len(), functions, "every function of template.yaml has a package in infra/sam/Makefile");
        assert_eq!(text.matches("Metadata: { BuildMethod: makefile, WorkingDirectory: ./ }").count(), functions);
        for (name, _) in web::api::groups::ALL {
            let writes = scopes.get(*name).unwrap_or_else(|| panic!("{name} is not in template.yaml"));
            let read_only = matches!(*name, "queries" | "reference" | "docs" | "tracking");
            // (stitchers writes its one record and idempotency answers; every function that
            // takes API keys notes their last use, `KEYUSE#*`, and nothing of the key records
            // but the access function, which makes and revokes them)
            let own: Vec<&String> = writes.iter().filter(|w| *w != "KEYUSE#*").collect();
            assert_eq!(own.is_empty(), read_only, "{name}: {writes:?}");
            assert!(*name == "access" || !writes.iter().any(|w| like(w, "KEY#0123abcd")), "{name} writes API keys: {writes:?}");
        }
        assert_eq!(scopes["audience-worker"], ["A#*#BATCH", "A#*#BATCHDAY", "A#*#VIEWER#*"]);
        // The serving function reads only delivery partitions: no API keys, no
        // account record, contacts, clients or idempotency answers.
        let reads = &template_read_scopes()["serving"];
        for pk in ["KEY#0123abcd", "A#acc", "A#acc#KEYS", "A#acc#CONTACT", "A#acc#CLIENT", "A#acc#IDEMP", "A#acc#METRICS#AD#x"] {
            assert!(!reads.iter().any(|p| like(p, pk)), "serving may read {pk}");
        }
        assert!(reads.iter().any(|p| like(p, "A#acc#DELIVERY")));
        // Least privilege: the functions that authenticate nobody read only the
        // partitions they need, never API keys, account records, contacts, clients or
        // idempotency answers; only the API-key functions read key-hash records (auth).
        let all_reads = template_read_scopes();
        for f in ["serving", "tracking", "events-worker", "forecast-worker", "audience-worker", "asset-worker"] {
            let reads = all_reads.get(f).unwrap_or_else(|| panic!("{f} has no scoped reads"));
            assert!(!text_of(&text, f).contains("DynamoDBReadPolicy"), "{f} may read the whole table");
            for pk in ["KEY#0123abcd", "A#acc", "A#acc#CONTACT", "A#acc#CLIENT", "A#acc#IDEMP", "A#acc#KEYS"] {
                assert!(!reads.iter().any(|p| like(p, pk)), "{f} may read {pk}");
            }
        }
        assert_eq!(all_reads["tracking"], ["A#*#STITCHER"], "tracking reads the account's stitchers only");
        for f in ["docs", "asset-janitor"] {
            let block = text_of(&text, f);
            assert!(
                !block.contains("DynamoDBReadPolicy") && !block.contains("dynamodb:GetItem") && !block.contains("dynamodb:Query"),
                "{f} reads the table"
            );
        }
        assert_eq!(all_reads["asset-worker"], ["A#*#ASSET"]);
        // Every group that creates records keeps idempotency keys (api/idempotency.rs).
        for name in [
            "clients",
            "contacts",
            "campaigns",
            "goals",
            "assets",
            "ads",
            "insertion-policy",
            "audience",
            "targeting-template",
            "stitchers",
            "demand",
            "operations",
        ] {
            assert!(scopes[name].iter().any(|p| p == "A#*#IDEMP"), "{name}");
            // Audience batches are a worker's jobs, not records with history.
            assert!(
                name == "audience" || scopes[name].iter().any(|p| p == "A#*#CHANGE"),
                "{name} writes records, and their change history"
            );
        }
        // Only the access function (users and keys, ADMIN) writes API-key records.
        for (name, patterns) in &scopes {
            assert_eq!(patterns.iter().any(|p| like(p, "KEY#0123abcd")), name == "access", "{name} may write API-key records");
        }
    }

    #[tokio::test]
    async fn writes_outside_the_partitions_are_refused() {
        let store = crate::store(crate::Backend::Embedded).await;
        let scoped = ScopedStore::wrap(store.clone(), "clients", &template_scopes());
        let item = |pk: &str| Item { pk: pk.into(), sk: "x".into(), body: "{}".into(), ..Item::default() };
        scoped.put(item("A#acc#CLIENT"), Cond::None).await.unwrap();
        for pk in ["KEY#abc", "A#acc", "A#acc#CAMPAIGN"] {
            assert!(scoped.put(item(pk), Cond::None).await.is_err(), "{pk}");
            assert!(scoped.transact(vec![TxOp::Put(item("A#acc#CLIENT"), Cond::None), TxOp::Put(item(pk), Cond::None)]).await.is_err());
            assert!(store.get(&Key::new(pk, "x")).await.unwrap().is_none(), "{pk} was written");
        }
    }
}
