//! Change history: what one request changed in one record (docs/operations-guide.md,
//! "Change history"). The record, the subject a stored key names, and the field-level diff
//! of two stored bodies. Pure: `repo::changes` writes them with the write they describe.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Change records expire after this many days (DynamoDB TTL; the embedded store sweeps).
pub const RETENTION_DAYS: i64 = 400;
/// A value whose JSON is longer than this is kept as changed, without its value.
pub const MAX_VALUE_CHARS: usize = 4_000;
/// A change keeps at most this many bytes of fields (under DynamoDB's 400 KB item limit);
/// past it the rest are left out and the change is marked `truncated`.
pub const MAX_FIELDS_BYTES: usize = 300_000;
/// Fields whose values are never shown (secrets: write-only on the API).
pub const WRITE_ONLY: &[&str] = &["secretHeader", "authHeader", "password"];
/// Fields a write derives rather than a client sets: never listed as changed.
const DERIVED: &[&str] = &["modified", "creativeModified", "created", "version"];

/// A kind's own derived fields: a campaign's goal flights and the dates they span, a
/// goal's ads (each listed by its own history).
fn derived(kind: &str, field: &str) -> bool {
    DERIVED.contains(&field)
        || match kind {
            "campaign" => matches!(field, "goals" | "start" | "end"),
            "goal" => field == "ads",
            _ => false,
        }
}

/// How the record moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Operation {
    Create,
    Update,
    Delete,
    Archive,
    Unarchive,
}

impl Operation {
    pub const ALL: [Operation; 5] = [Operation::Create, Operation::Update, Operation::Delete, Operation::Archive, Operation::Unarchive];
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Archive => "ARCHIVE",
            Operation::Unarchive => "UNARCHIVE",
        }
    }
}

/// One field the request changed. `old`/`new` are JSON null where the field was absent;
/// a write-only field has neither (`writeOnly`), a value too long to keep is `omitted`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    /// The field as stored (camelCase): `end`, `caps[0].impressions`, `rules.locations[SE].allowed` (items with an id by id).
    pub path: String,
    /// The value before the request (null: absent).
    #[serde(default)]
    pub old: Option<Value>,
    /// The value after the request (null: absent, or removed).
    #[serde(default)]
    pub new: Option<Value>,
    /// A write-only value (a secret): changed, never shown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub write_only: bool,
    /// A value longer than 4,000 characters of JSON: changed, not kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub omitted: bool,
}

/// One change of one record, as stored and as `/v1/changes` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The change's id: time-ordered (`<epoch ms>-<sequence>-<random>`).
    pub id: String,
    /// When the write was made (UTC).
    pub at: chrono::DateTime<chrono::Utc>,
    /// The request that made it (API Gateway's request id, or `x-request-id`).
    pub request_id: String,
    /// The API key's fingerprint (the first 12 characters of its hash), never the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// The API key's label, as the admin command or the seed file names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_name: Option<String>,
    /// Who made it: a user (their email) or an API key (its name). Changes made before
    /// people existed have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<super::access::Actor>,
    /// campaign, goal, ad, client, contact, template, policy, asset, stitcher, demandPartner or marketplace.
    pub kind: String,
    /// The changed record's id (a rules change is its campaign's or goal's).
    pub record_id: String,
    /// CREATE, UPDATE, DELETE, or a state move (ARCHIVE, UNARCHIVE).
    pub operation: Operation,
    /// What the request changed, field by field (a CREATE: what the record was made with; a DELETE: its last values).
    pub fields: Vec<FieldChange>,
    /// Some fields were left out (the change's size bound).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The record's stored version after the change (what a revert checks); none after a
    /// DELETE or for a record kept inside an account-wide item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    // The role the write needed: reverting it needs the same; a change recorded without
    // one needs ADMIN (described in the API document by openapi/glossary.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<super::access::Role>,
}

impl Change {
    /// The role a revert of this change needs: the role its write needed (ADMIN when the
    /// change does not say).
    pub fn revert_role(&self) -> super::access::Role {
        self.role.unwrap_or(super::access::Role::Admin)
    }
}

/// The kinds of record with history, in the order `/v1/changes?kind=` lists them.
pub const KINDS: &[&str] = &[
    "campaign",
    "goal",
    "ad",
    "client",
    "contact",
    "template",
    "policy",
    "asset",
    "stitcher",
    "demandPartner",
    "marketplace",
    "user",
    "apiKey",
    "signInSettings",
];

/// The kinds of the account's people (its directory): their changes are ADMIN's to read,
/// as users and keys are, and are never reverted (change the user or key instead).
pub const PEOPLE_KINDS: &[&str] = &["user", "apiKey", "signInSettings"];

/// What a stored item is, for history: its kind, and how its body is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// One record per item (`A#<a>#<KIND>`, sort key = id).
    Record { account: String, kind: &'static str, id: String },
    /// A campaign's or a goal's rules (`A#<a>#RULES`, `CAMPAIGN#<id>`): changes of that record, under `rules`.
    Rules { account: String, kind: &'static str, id: String },
    /// An account-wide item of records (`entries[].record`), each entry its own record.
    Collection { account: String, kind: &'static str },
    /// The account's users and keys (one item, `A#<a>#ACCESS`): a change a user or key.
    Directory { account: String },
}

/// The subject of a stored key, if its writes are history.
pub fn subject(pk: &str, sk: &str) -> Option<Subject> {
    let rest = pk.strip_prefix("A#")?;
    let (account, part) = rest.rsplit_once('#')?;
    let account = account.to_string();
    let record = |kind| Some(Subject::Record { account: account.clone(), kind, id: sk.to_string() });
    match (part, sk) {
        ("CAMPAIGN", _) => record("campaign"),
        ("GOAL", _) => record("goal"),
        ("AD", _) => record("ad"),
        ("CLIENT", _) => record("client"),
        ("CONTACT", _) => record("contact"),
        ("TEMPLATE", _) => record("template"),
        ("POLICY", _) => record("policy"),
        ("ASSET", _) => record("asset"),
        ("RULES", _) => {
            let (kind, id) = sk.split_once('#')?;
            let kind = match kind {
                "CAMPAIGN" => "campaign",
                "GOAL" => "goal",
                _ => return None,
            };
            Some(Subject::Rules { account, kind, id: id.to_string() })
        }
        ("STITCHER", "ALL") => Some(Subject::Collection { account, kind: "stitcher" }),
        ("DEMAND", "PARTNERS") => Some(Subject::Collection { account, kind: "demandPartner" }),
        ("DEMAND", "MARKETPLACES") => Some(Subject::Collection { account, kind: "marketplace" }),
        ("ACCESS", _) => Some(Subject::Directory { account }),
        _ => None,
    }
}

/// A record's move as one change (without id, time and author): `None` when nothing a
/// client sets changed. `old`/`new` are the stored bodies (`None`: absent).
pub struct Moved {
    pub kind: &'static str,
    pub record_id: String,
    pub operation: Operation,
    pub fields: Vec<FieldChange>,
    pub truncated: bool,
}

/// The changes one write makes to the item of `subject`.
pub fn moves(subject: &Subject, old: Option<&Value>, new: Option<&Value>) -> Vec<Moved> {
    match subject {
        Subject::Record { kind, id, .. } => one(kind, id, "", old, new).into_iter().collect(),
        Subject::Rules { kind, id, .. } => {
            // Rules are part of their record: creating or dropping them is an update of it.
            let empty = Value::Object(Map::new());
            let m = one(kind, id, "rules", Some(old.unwrap_or(&empty)), Some(new.unwrap_or(&empty)));
            m.into_iter().collect()
        }
        Subject::Collection { kind, .. } => {
            let (a, b) = (entries(old), entries(new));
            let mut ids: Vec<&String> = a.keys().chain(b.keys()).collect();
            ids.sort();
            ids.dedup();
            ids.into_iter().filter_map(|id| one(kind, id, "", a.get(id).copied(), b.get(id).copied())).collect()
        }
        Subject::Directory { .. } => {
            let (mut a, mut b) = (people(old), people(new));
            // The sign-in settings always exist (off until an ADMIN turns them on): a change
            // of them is an update, never a create.
            for m in [&mut a, &mut b] {
                m.entry(("signInSettings", "account".to_string())).or_insert_with(|| serde_json::json!({"requireTwoFactor": false}));
            }
            let mut ids: Vec<&(&'static str, String)> = a.keys().chain(b.keys()).collect();
            ids.sort();
            ids.dedup();
            ids.into_iter().filter_map(|k| one(k.0, &k.1, "", a.get(k), b.get(k))).collect()
        }
    }
}

/// What history keeps of a directory's users and keys, by (kind, id): never a secret. A
/// user's email, name, role and state, and that their password changed (a hash that moved,
/// shown as the write-only `password`); a key's name and role. Sessions, hashes and
/// bookkeeping are left out (a sign-in is no change).
fn people(body: Option<&Value>) -> std::collections::BTreeMap<(&'static str, String), Value> {
    let mut out = std::collections::BTreeMap::new();
    let list = |name: &str| body.and_then(|b| b.get(name)).and_then(Value::as_array).into_iter().flatten();
    let pick = |v: &Value, fields: &[&str]| -> Value {
        Value::Object(fields.iter().filter_map(|f| Some((f.to_string(), v.get(*f)?.clone()))).collect())
    };
    for u in list("users") {
        let Some(id) = u.get("id").and_then(Value::as_str) else { continue };
        let mut kept = pick(u, &["email", "name", "role", "disabled"]);
        if let Value::Object(m) = &mut kept {
            if let Some(h) = u.get("passwordHash") {
                m.insert("password".into(), h.clone());
            }
            // Whether two-factor sign-in is on (never its secret or recovery codes).
            let on = u.get("twoFactor").and_then(|t| t.get("confirmed")).and_then(Value::as_bool).unwrap_or(false);
            m.insert("twoFactor".into(), Value::Bool(on));
        }
        out.insert(("user", id.to_string()), kept);
    }
    for k in list("keys") {
        let Some(id) = k.get("id").and_then(Value::as_str) else { continue };
        out.insert(("apiKey", id.to_string()), pick(k, &["name", "role"]));
    }
    // The account's sign-in settings, one record of their own.
    if let Some(b) = body {
        let required = b.get("requireTwoFactor").and_then(Value::as_bool).unwrap_or(false);
        let mut settings = serde_json::json!({ "requireTwoFactor": required });
        // The provider's settings (its client secret is kept apart: only when it was set).
        if let (Some(sso), Value::Object(m)) = (b.get("singleSignOn"), &mut settings) {
            m.insert("singleSignOn".into(), sso.clone());
        }
        out.insert(("signInSettings", "account".to_string()), settings);
    }
    out
}

fn entries(body: Option<&Value>) -> std::collections::BTreeMap<String, &Value> {
    let list = body.and_then(|b| b.get("entries")).and_then(Value::as_array);
    list.into_iter().flatten().filter_map(|e| e.get("record")).filter_map(|r| Some((r.get("id")?.as_str()?.to_string(), r))).collect()
}

fn one(kind: &'static str, id: &str, prefix: &str, old: Option<&Value>, new: Option<&Value>) -> Option<Moved> {
    let deleted = |v: Option<&Value>| v.is_some_and(|v| v.get("deletedAt").is_some_and(|d| !d.is_null()));
    let archived = |v: Option<&Value>| v.is_some_and(|v| v.get("archivedAt").is_some_and(|d| !d.is_null()));
    let operation = match (old, new) {
        (None, None) => return None,
        (None, Some(_)) => Operation::Create,
        (Some(_), None) => Operation::Delete,
        _ if !deleted(old) && deleted(new) => Operation::Delete,
        _ if !archived(old) && archived(new) => Operation::Archive,
        _ if archived(old) && !archived(new) => Operation::Unarchive,
        _ => Operation::Update,
    };
    // A DELETE keeps the record's last values; a CREATE shows what it was made with.
    let (old, new) = match operation {
        Operation::Delete => (old, None),
        _ => (old, new),
    };
    let mut d = Diff { out: Vec::new(), bytes: 0, truncated: false };
    d.value(prefix, old, new, if prefix.is_empty() { kind } else { "" });
    if d.out.is_empty() && operation == Operation::Update {
        return None;
    }
    Some(Moved { kind, record_id: id.to_string(), operation, fields: d.out, truncated: d.truncated })
}

struct Diff {
    out: Vec<FieldChange>,
    bytes: usize,
    truncated: bool,
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

impl Diff {
    /// `top`: the kind of a record's own body (its derived fields are left out), or "".
    fn value(&mut self, path: &str, old: Option<&Value>, new: Option<&Value>, top: &str) {
        if old == new {
            return;
        }
        match (old, new) {
            (Some(Value::Object(a)), Some(Value::Object(b))) => self.object(path, Some(a), Some(b), top),
            (Some(Value::Object(a)), None) if path.is_empty() => self.object(path, Some(a), None, top),
            (None, Some(Value::Object(b))) if path.is_empty() => self.object(path, None, Some(b), top),
            (Some(Value::Array(a)), Some(Value::Array(b))) => self.array(path, a, b),
            _ => self.push(path, old, new),
        }
    }

    fn object(&mut self, path: &str, a: Option<&Map<String, Value>>, b: Option<&Map<String, Value>>, top: &str) {
        let mut keys: Vec<&String> = a.into_iter().flat_map(|m| m.keys()).chain(b.into_iter().flat_map(|m| m.keys())).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            if path.is_empty() && derived(top, k) {
                continue;
            }
            let (x, y) = (a.and_then(|m| m.get(k)), b.and_then(|m| m.get(k)));
            let p = join(path, k);
            if WRITE_ONLY.contains(&k.as_str()) {
                if x != y {
                    self.add(FieldChange { path: p, old: None, new: None, write_only: true, omitted: false });
                }
                continue;
            }
            self.value(&p, x, y, "");
        }
    }

    /// Items with an `id` are matched by id (`rules[<id>]`), others by position.
    fn array(&mut self, path: &str, a: &[Value], b: &[Value]) {
        let id = |v: &Value| v.get("id").and_then(Value::as_str).map(str::to_string);
        if !a.is_empty() || !b.is_empty() {
            if let (Some(x), Some(y)) = (a.iter().map(id).collect::<Option<Vec<_>>>(), b.iter().map(id).collect::<Option<Vec<_>>>()) {
                let mut ids: Vec<&String> = x.iter().chain(y.iter()).collect();
                ids.sort();
                ids.dedup();
                for i in ids {
                    let find = |list: &[Value], ids: &[String]| ids.iter().position(|j| j == i).and_then(|p| list.get(p).cloned());
                    let (o, n) = (find(a, &x), find(b, &y));
                    match (&o, &n) {
                        (Some(Value::Object(_)), Some(Value::Object(_))) => self.value(&format!("{path}[{i}]"), o.as_ref(), n.as_ref(), ""),
                        _ => self.push(&format!("{path}[{i}]"), o.as_ref(), n.as_ref()),
                    }
                }
                return;
            }
        }
        if a.len() == b.len() {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                self.value(&format!("{path}[{i}]"), Some(x), Some(y), "");
            }
        } else {
            self.push(path, Some(&Value::Array(a.to_vec())), Some(&Value::Array(b.to_vec())));
        }
    }

    fn push(&mut self, path: &str, old: Option<&Value>, new: Option<&Value>) {
        // An absent field and an empty or false one read the same (a record's defaults).
        let blank = |v: Option<&Value>| match v {
            None | Some(Value::Null) | Some(Value::Bool(false)) => true,
            Some(Value::Array(a)) => a.is_empty(),
            Some(Value::Object(o)) => o.is_empty(),
            _ => false,
        };
        if blank(old) && blank(new) {
            return;
        }
        let keep = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
        let (old, new) = (keep(old), keep(new));
        let long = |v: &Value| v.to_string().len() > MAX_VALUE_CHARS;
        let omitted = long(&old) || long(&new);
        let f = if omitted {
            FieldChange { path: path.to_string(), old: None, new: None, write_only: false, omitted: true }
        } else {
            FieldChange { path: path.to_string(), old: Some(old), new: Some(new), write_only: false, omitted: false }
        };
        self.add(f);
    }

    fn add(&mut self, f: FieldChange) {
        let size =
            f.path.len() + f.old.as_ref().map_or(0, |v| v.to_string().len()) + f.new.as_ref().map_or(0, |v| v.to_string().len()) + 40;
        if self.truncated || self.bytes + size > MAX_FIELDS_BYTES {
            self.truncated = true;
            return;
        }
        self.bytes += size;
        self.out.push(f);
    }
}

/// Puts the `old` values of `fields` back into `body` (a revert). `Err` names a field that
/// cannot be put back (write-only, omitted, or a path the body no longer has).
pub fn put_back(body: &mut Value, prefix: &str, fields: &[FieldChange]) -> Result<(), String> {
    for f in fields {
        if f.write_only || f.omitted {
            return Err(format!("{} was not kept (write-only or too long) and cannot be put back", f.path));
        }
        let path = match prefix {
            "" => f.path.as_str(),
            p => f.path.strip_prefix(p).map(|s| s.trim_start_matches('.')).unwrap_or(f.path.as_str()),
        };
        set(body, path, f.old.clone().unwrap_or(Value::Null)).map_err(|_| format!("{} is no longer in the record", f.path))?;
    }
    Ok(())
}

/// Sets `path` (`a.b[id].c`, `a[2]`) in `body`; a null removes an object's field.
fn set(body: &mut Value, path: &str, value: Value) -> Result<(), ()> {
    let (head, rest) = split(path);
    let (name, index) = match head.find('[') {
        Some(i) => (&head[..i], Some(head[i + 1..].trim_end_matches(']'))),
        None => (head, None),
    };
    let obj = body.as_object_mut().ok_or(())?;
    if index.is_none() && rest.is_empty() {
        if value.is_null() {
            obj.remove(name);
        } else {
            obj.insert(name.to_string(), value);
        }
        return Ok(());
    }
    let child = obj.get_mut(name).ok_or(())?;
    let target = match index {
        None => child,
        Some(ix) => {
            let list = child.as_array_mut().ok_or(())?;
            let pos = match ix.parse::<usize>() {
                Ok(p) if list.get(p).is_some_and(|v| v.get("id").is_none()) => Some(p),
                _ => list.iter().position(|v| v.get("id").and_then(Value::as_str) == Some(ix)),
            };
            match (pos, rest.is_empty()) {
                (Some(p), true) if value.is_null() => {
                    list.remove(p);
                    return Ok(());
                }
                (Some(p), true) => {
                    list[p] = value;
                    return Ok(());
                }
                (None, true) if !value.is_null() => {
                    list.push(value);
                    return Ok(());
                }
                (None, true) => return Ok(()),
                (Some(p), false) => &mut list[p],
                (None, false) => return Err(()),
            }
        }
    };
    set(target, rest, value)
}

/// The first segment of a path and the rest (`a.b[x].c` → `a`, `b[x].c`; `b[x.y].c` keeps
/// the id whole).
fn split(path: &str) -> (&str, &str) {
    let mut depth = 0;
    for (i, c) in path.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 && path[i + 1..].starts_with('[') {
                    return (&path[..=i], &path[i + 1..]);
                }
            }
            '.' if depth == 0 => return (&path[..i], &path[i + 1..]),
            _ => {}
        }
    }
    (path, "")
}

#[cfg(test)]
#[path = "change_tests.rs"]
mod tests;

/// Whether a change is of a record's rules (every field under `rules`).
pub fn of_rules(c: &Change) -> bool {
    !c.fields.is_empty() && c.fields.iter().all(|f| f.path == "rules" || f.path.starts_with("rules.") || f.path.starts_with("rules["))
}
