//! Key builders: the one place the key scheme of docs/store.md is spelled out.

use crate::model::rules::Parent;
use crate::store::Key;

pub fn api_key(hash: &str) -> Key {
    Key::new(format!("KEY#{hash}"), "KEY")
}
/// GSI1 partition of an account's API keys (sort key: the key's hash).
pub fn account_keys(a: &str) -> String {
    format!("A#{a}#KEYS")
}
/// The account record, in a partition of its own: `A#<a>` would prefix every partition
/// of the account, so no IAM `LeadingKeys` pattern could grant it alone
/// (docs/people-and-roles.md, "Keys").
pub fn account(a: &str) -> Key {
    Key::new(format!("ACCOUNT#{a}"), "ACCOUNT")
}
/// Where the account record was kept before (`admin migrate-identity` moves it).
pub fn legacy_account(a: &str) -> Key {
    Key::new(format!("A#{a}"), "ACCOUNT")
}
/// The account's directory of API keys and users (`repo::access`).
pub fn access(a: &str) -> Key {
    Key::new(partition(a, "ACCESS"), "ACCESS")
}
/// When a key was last used (the hour), apart from the key's record: the functions that
/// authenticate write this, never the key records (docs/people-and-roles.md).
pub fn key_use(hash: &str) -> Key {
    Key::new(format!("KEYUSE#{hash}"), "USE")
}
/// The accounts with a user of this (lowercased) email: the sign-in form names none.
pub fn email(e: &str) -> Key {
    Key::new(format!("EMAIL#{e}"), "EMAIL")
}
/// An account's OpenID client secret (docs/single-sign-on.md): a partition of its own, so
/// only the functions that write it (access) or send it (console) may read it.
pub fn sso_secret(a: &str) -> Key {
    Key::new(partition(a, "SSO"), "SECRET".to_string())
}
/// A single sign-on under way (docs/single-sign-on.md), by the SHA-256 of its `state`.
pub fn sso_state(hash: &str) -> Key {
    Key::new(format!("SSO#{hash}"), "-".to_string())
}
/// A console session, by the SHA-256 of its cookie.
pub fn session(hash: &str) -> Key {
    Key::new(format!("SESSION#{hash}"), "SESSION")
}
/// The failed sign-ins of one email (by its SHA-256) in an account.
pub fn sign_in_failures(a: &str, email_hash: &str) -> Key {
    Key::new(partition(a, "SIGNIN"), email_hash.to_string())
}
/// What every partition of an account's records starts with (`A#<a>#`).
pub fn account_prefix(a: &str) -> String {
    format!("A#{a}#")
}
/// Partition of one record type of an account, e.g. `A#<a>#CLIENT`.
pub fn partition(a: &str, kind: &str) -> String {
    format!("A#{a}#{kind}")
}
pub fn record(a: &str, kind: &str, id: &str) -> Key {
    Key::new(partition(a, kind), id)
}

pub const CLIENT: &str = "CLIENT";
pub const CONTACT: &str = "CONTACT";
pub const CAMPAIGN: &str = "CAMPAIGN";
pub const GOAL: &str = "GOAL";
pub const CATEGORY: &str = "CATEGORY";
pub const PARTNER: &str = "PARTNER";
pub const BANNER: &str = "BANNER";
pub const DEVICE: &str = "DEVICE";
pub const PROVIDER: &str = "PROVIDER";
pub const ACP: &str = "ACP";

/// GSI1 partition of the contacts associated with a client.
pub fn client_contacts(a: &str, client: &str) -> String {
    format!("A#{a}#CLIENT#{client}#CONTACTS")
}
/// GSI1 partition of the campaigns archived in a month (`yyyy-mm`).
pub fn archived_month(a: &str, month: &str) -> String {
    format!("A#{a}#ARCHIVED#{month}")
}
pub const RULES: &str = "RULES";
pub const AD: &str = "AD";
pub const ASSET: &str = "ASSET";

/// The account whose asset partition (`A#<a>#ASSET`) this is, if it is one.
pub fn assets_account(pk: &str) -> Option<&str> {
    pk.strip_prefix("A#")?.strip_suffix(ASSET)?.strip_suffix('#')
}

/// GSI2 partition of the account's ads ordered by creation (`/v1/ads`).
pub fn ads_by_created(a: &str) -> String {
    format!("A#{a}#ADS_BY_CREATED")
}

pub const POLICY: &str = "POLICY";

/// The account's insertion-policy ranking (one record, highest first). Its own partition:
/// IAM scopes a function's writes by partition (template.yaml), and the account partition
/// holds the account record.
/// The one record of an account's stitchers (`repo::stitchers`).
pub fn stitchers(a: &str) -> crate::store::Key {
    crate::store::Key::new(partition(a, "STITCHER"), "ALL")
}
/// The record of an account's demand partners (`repo::demand`).
pub fn demand_partners(a: &str) -> crate::store::Key {
    crate::store::Key::new(partition(a, "DEMAND"), "PARTNERS")
}
/// The record of an account's marketplaces (`repo::demand`).
pub fn marketplaces(a: &str) -> crate::store::Key {
    crate::store::Key::new(partition(a, "DEMAND"), "MARKETPLACES")
}
/// The item of an account's write-only secrets of kind `sk` (`repo::secrets`), in a
/// partition only the functions that send them may read (docs/security.md, "Secrets").
pub fn secrets(a: &str, sk: &str) -> crate::store::Key {
    crate::store::Key::new(partition(a, "SECRETS"), sk.to_string())
}
/// A won auction's record, by the impression it served (`repo::notices`).
pub fn win(a: &str, impression: &str) -> crate::store::Key {
    crate::store::Key::new(partition(a, "WIN"), impression.to_string())
}
/// A fired notice's once-only marker (`repo::notices`).
pub fn notice_marker(a: &str, about: &str, kind: &str, partner: &str) -> crate::store::Key {
    crate::store::Key::new(partition(a, "NOTICE"), format!("{about}#{kind}#{partner}"))
}
pub fn policy_ranking(a: &str) -> crate::store::Key {
    crate::store::Key::new(partition(a, "POLICYRANK"), "RANKING")
}

pub const BATCH: &str = "BATCH";

/// GSI1 partition of a provider's batches, newest last (`created` + id as sort key).
pub fn provider_batches(a: &str, provider: &str) -> String {
    format!("A#{a}#BATCHES#{provider}")
}

/// A provider's one-batch-per-day slot.
pub fn batch_day(a: &str, provider: &str, day: &str) -> Key {
    Key::new(format!("A#{a}#BATCHDAY"), format!("{provider}#{day}"))
}

/// One viewer's data from one provider: a query on the partition reads every provider's.
pub fn viewer(a: &str, pid: &str, provider: &str) -> Key {
    Key::new(viewer_partition(a, pid), provider)
}
pub fn viewer_partition(a: &str, pid: &str) -> String {
    format!("A#{a}#VIEWER#{pid}")
}

pub const TEMPLATE: &str = "TEMPLATE";

/// GSI2 partition of the account's live campaigns by name (`/v3/campaigns`; sort key
/// `repo::name_index::sort_key`).
pub fn campaigns_by_name(a: &str) -> String {
    format!("A#{a}#CAMPAIGN_BY_NAME")
}
/// GSI2 partition of the account's live goals by name (`/v3/goals`).
pub fn goals_by_name(a: &str) -> String {
    format!("A#{a}#GOAL_BY_NAME")
}
/// GSI1 partition of the deleted campaigns that still hold live goals (their goals stay in
/// the goal name index; a page skips them).
pub fn campaigns_hiding(a: &str) -> String {
    format!("A#{a}#CAMPAIGN_HIDING")
}
/// GSI1 partition of the campaigns that can serve: neither archived nor deleted (what a
/// snapshot is compiled from; an account's history stays out of it).
pub fn open_campaigns(a: &str) -> String {
    format!("A#{a}#CAMPAIGN_OPEN")
}
/// The name indexes' live counts (counters `campaigns`, `goals`, `hidden`, and `indexed`
/// once the indexes are complete; `repo::name_index`).
pub fn name_counts(a: &str) -> Key {
    Key::new(partition(a, "NAMES"), "COUNT")
}

/// The account's count of targeting templates (counter `n`, for the limit).
pub fn template_count(a: &str) -> Key {
    Key::new(partition(a, "TEMPLATECOUNT"), "COUNT")
}

/// The links of one template: `sk` is `CAMPAIGN#<id>` or `GOAL#<id>`.
pub fn template_links(a: &str, template: &str) -> String {
    format!("A#{a}#TLINK#{template}")
}

/// GSI1 partition of the templates linked to one campaign or goal (`kind` CAMPAIGN|GOAL).
pub fn linked_templates(a: &str, kind: &str, target: &str) -> String {
    format!("A#{a}#TLINKS#{kind}#{target}")
}

/// The sort key naming a campaign or a goal (rules, template links): `CAMPAIGN#<id>`, `GOAL#<id>`.
pub fn owner_sk(parent: Parent, id: &str) -> String {
    let kind = match parent {
        Parent::Campaign => CAMPAIGN,
        Parent::Goal => GOAL,
    };
    format!("{kind}#{id}")
}

/// The campaign or goal a rules or template-link sort key names.
pub fn rules_owner(sk: &str) -> Option<(Parent, String)> {
    let (kind, id) = sk.split_once('#')?;
    match kind {
        CAMPAIGN => Some((Parent::Campaign, id.to_string())),
        GOAL => Some((Parent::Goal, id.to_string())),
        _ => None,
    }
}

/// The rules of a campaign or a goal.
pub fn rules(a: &str, parent: Parent, id: &str) -> Key {
    Key::new(partition(a, RULES), owner_sk(parent, id))
}

/// Prefix of the metric counter partitions of one level (`AD`, `GOAL`, `CAMPAIGN`).
pub fn metrics_prefix(a: &str, level: &str) -> String {
    format!("A#{a}#METRICS#{level}#")
}

/// One shard of one record's metric counters (`sk` is the shard number).
pub fn metrics(a: &str, level: &str, id: &str, shard: u32) -> Key {
    Key::new(format!("{}{id}", metrics_prefix(a, level)), shard.to_string())
}

/// A forecast job (`A#<a>#FORECAST / <jobId>`).
pub fn forecast_job(a: &str, id: &str) -> Key {
    record(a, "FORECAST", id)
}
/// GSI1 partition of the account's forecast jobs ordered by creation (the console's list).
pub fn forecasts_by_created(a: &str) -> String {
    format!("A#{a}#FORECAST_BY_CREATED")
}
/// A forecast job's report (`A#<a>#FORECASTREPORT / <jobId>`).
pub fn forecast_report(a: &str, id: &str) -> Key {
    record(a, "FORECASTREPORT", id)
}
/// The partition of one local day's traffic samples (`A#<a>#TRAFFIC#<yyyy-mm-dd>`).
pub fn traffic_day(a: &str, day: chrono::NaiveDate) -> String {
    format!("A#{a}#TRAFFIC#{day}")
}
/// A traffic sample's sort key: its local hour first, so a day reads in hour order.
pub fn traffic_sample(hour: u32, id: &str) -> String {
    format!("{hour:02}#{id}")
}
/// The local hour of a traffic sample's sort key.
pub fn traffic_sample_hour(sk: &str) -> Option<u32> {
    sk.get(..2).and_then(|h| h.parse().ok())
}

/// The sort key of an account's delivery version counter (`A#<a>#DELIVERY / VERSION`).
pub const DELIVERY_VERSION_SK: &str = "VERSION";
/// The sort-key prefix of a goal's pace record (`A#<a>#DELIVERY / PACE#<goal>`).
pub const PACE_PREFIX: &str = "PACE#";
/// The sort key of a viewer's frequency state (`A#<a>#VIEWER#<pid> / FREQ`).
pub const FREQ_SK: &str = "FREQ";

/// The partition of the delivery engine's records: the version and every pace record.
pub fn delivery_partition(a: &str) -> String {
    partition(a, "DELIVERY")
}
/// The account record's copy the delivery engine reads (`A#<a>#DELIVERY / ACCOUNT`): the
/// serving function may read only delivery partitions, never `A#<a>` (docs/store.md).
pub fn delivery_account(a: &str) -> Key {
    Key::new(delivery_partition(a), "ACCOUNT")
}
pub fn delivery_version(a: &str) -> Key {
    Key::new(delivery_partition(a), DELIVERY_VERSION_SK)
}
/// What the account's records carry for the delivery engine (`A#<a>#DELIVERY / INDEXES`,
/// counter `open` once every campaign carries the open campaigns' index key).
pub fn delivery_indexes(a: &str) -> Key {
    Key::new(delivery_partition(a), "INDEXES")
}
/// The account of a delivery partition key (`A#<a>#DELIVERY`).
pub fn account_of_delivery(pk: &str) -> Option<&str> {
    pk.strip_prefix("A#")?.strip_suffix("#DELIVERY")
}
/// The pointer to the account's compiled snapshot (`A#<a>#DELIVERY / COMPILED`).
pub const COMPILED_SK: &str = "COMPILED";
pub fn delivery_compiled(a: &str) -> Key {
    Key::new(delivery_partition(a), COMPILED_SK)
}
/// The bucket object of an account's compiled snapshot at one delivery version.
pub fn compiled_object(a: &str, version: u64) -> String {
    format!("{COMPILED_PREFIX}{a}/{version}.bin")
}
/// Where compiled snapshots are kept in the bucket (template.yaml grants this prefix).
pub const COMPILED_PREFIX: &str = "snapshots/";
pub fn pace(a: &str, goal: &str) -> Key {
    Key::new(delivery_partition(a), format!("{PACE_PREFIX}{goal}"))
}
/// A pace record's GSI1 entry: `A#<a>#PACE_CHANGED` / `<wall-clock ms, 13 digits>#<goal>`,
/// moved by every write of the record, so a serving process reads the records changed
/// since its last read (docs/publisher-scale.md, "Pace records").
pub fn pace_changed(a: &str, goal: &str, at_ms: i64) -> (String, String) {
    (pace_changes(a), format!("{}#{goal}", pace_changed_from(at_ms)))
}
/// The GSI1 partition of an account's pace records by time of change.
pub fn pace_changes(a: &str) -> String {
    partition(a, "PACE_CHANGED")
}
/// The lowest GSI1 sort key of the pace records changed at or after `at_ms`.
pub fn pace_changed_from(at_ms: i64) -> String {
    format!("{:013}", at_ms.max(0))
}
pub fn freq(a: &str, viewer: &str) -> Key {
    Key::new(viewer_partition(a, viewer), FREQ_SK)
}
/// An event counted once (`A#<a>#EVENT#<impression> / <event>`).
pub fn event_marker(a: &str, impression: &str, event: &str) -> Key {
    Key::new(format!("A#{a}#EVENT#{impression}"), event)
}
/// Impressions of a viewer or address block in one minute (`A#<a>#RATE#<subject> /
/// M#<minute>`; the invalid-traffic rate rule, TTL minutes).
pub fn rate(a: &str, subject: &str, minute: i64) -> Key {
    Key::new(format!("A#{a}#RATE#{subject}"), format!("M#{minute}"))
}
/// What a viewer or address block spent of a goal (`A#<a>#SPEND#<subject> / G#<goal>`; the
/// per-goal protection, kept until the goal's end).
pub fn spend(a: &str, subject: &str, goal: &str) -> Key {
    Key::new(format!("A#{a}#SPEND#{subject}"), format!("G#{goal}"))
}
/// An idempotency record (`A#<a>#IDEMP / <hash of the key>`).
pub fn idempotency(a: &str, key_hash: &str) -> Key {
    Key::new(partition(a, "IDEMP"), key_hash)
}

#[cfg(test)]
mod tests {
    use crate::store::embedded::shards::{is_sharded, is_viewer_partition};

    /// The embedded store's viewer shards recognise these keys by their shape (the store
    /// does not depend on this module): a provider's viewer record is sharded, the
    /// frequency record stays in the main file, other partitions are not viewers'.
    #[test]
    fn the_embedded_stores_shards_know_the_viewer_keys() {
        let v = super::viewer("acct", "pid-1", "provider-9");
        assert!(is_sharded(&v.pk, &v.sk));
        let f = super::freq("acct", "pid-1");
        assert_eq!(f.pk, v.pk);
        assert!(!is_sharded(&f.pk, &f.sk) && is_viewer_partition(&f.pk));
        let pace = super::pace("acct", "goal-1");
        assert!(!is_viewer_partition(&pace.pk));
    }
}
