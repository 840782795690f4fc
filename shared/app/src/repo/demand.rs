//! An account's demand partners and marketplaces (docs/programmatic.md, "Records"): one
//! item each (`repo::collection`), read with the delivery snapshot; a change bumps the
//! delivery version.

use super::collection::Member;
use crate::keys;
use crate::model::demand_partner::{DemandPartner, MAX_PARTNERS};
use crate::model::marketplace::{Marketplace, MAX_MARKETPLACES};
use crate::model::write_only_header::SecretHeader;
use crate::store::Key;

/// The sort key of the partners' auth headers (`repo::secrets`).
pub const PARTNER_SECRETS: &str = "DEMAND_PARTNERS";

impl Member for DemandPartner {
    const KIND: &'static str = "demand partner";
    const PLURAL: &'static str = "demand partners";
    const MAX: usize = MAX_PARTNERS;
    const SERVED: bool = true;
    const SECRETS: Option<&'static str> = Some(PARTNER_SECRETS);
    fn id(&self) -> &str {
        &self.id
    }
    fn key(account: &str) -> Key {
        keys::demand_partners(account)
    }
    fn secret_slot(&mut self) -> Option<&mut Option<SecretHeader>> {
        Some(&mut self.auth_header)
    }
}

impl Member for Marketplace {
    const KIND: &'static str = "marketplace";
    const PLURAL: &'static str = "marketplaces";
    const MAX: usize = MAX_MARKETPLACES;
    const SERVED: bool = true;
    fn id(&self) -> &str {
        &self.id
    }
    fn key(account: &str) -> Key {
        keys::marketplaces(account)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::demand_partner::AUTH_VALUE_MAX;
    use crate::model::marketplace::*;
    use crate::model::write_only_header::{SecretHeader, HEADER_NAME_MAX};
    use crate::repo::collection::Entry;
    use crate::store::{Item, MAX_ITEM_BYTES};
    use chrono::Utc;

    fn size<T: Member>(list: Vec<T>) -> usize {
        let entries: Vec<Entry<T>> = list.into_iter().map(|record| Entry { version: u64::MAX, record }).collect();
        let body = serde_json::json!({ "entries": entries }).to_string();
        let k = T::key(&"a".repeat(crate::limits::MAX_ID_LEN));
        Item { pk: k.pk, sk: k.sk, body, ..Item::default() }.size()
    }

    #[test]
    fn every_record_fits_an_item() {
        let now = Utc::now();
        let id = || "i".repeat(crate::limits::MAX_ID_LEN);
        // Names count characters: the widest UTF-8 character is 4 bytes (JSON keeps it raw).
        let name = "\u{10348}".repeat(crate::limits::RECORD_NAME_MAX);
        let partner = DemandPartner {
            id: id(),
            name: name.clone(),
            endpoint: format!("https://{}", "e".repeat(crate::limits::URL_MAX - 8)),
            enabled: true,
            timeout_ms: 1000,
            currency: "USD".into(),
            auth_header: Some(SecretHeader { name: "n".repeat(HEADER_NAME_MAX), value: "\"".repeat(AUTH_VALUE_MAX) }),
            created: now,
            modified: now,
        };
        // Deal ids, seats, domains and categories are tokens (no character JSON escapes).
        let deal = Deal { id: "d".repeat(DEAL_ID_MAX), floor_cpm: 999.9999, seats: vec!["s".repeat(DEAL_ID_MAX); MAX_SEATS] };
        let market = Marketplace {
            id: id(),
            name,
            demand_partner_ids: vec![id(); MAX_MARKETPLACE_PARTNERS],
            auction_type: AuctionType::SecondPrice,
            floor_cpm: 999.9999,
            currency: "USD".into(),
            deals: vec![deal; MAX_DEALS],
            private_auction: true,
            blocked_domains: vec!["d".repeat(DOMAIN_MAX); MAX_BLOCKED],
            blocked_categories: vec!["c".repeat(CATEGORY_MAX); MAX_BLOCKED],
            created: now,
            modified: now,
        };
        let (p, m) = (size(vec![partner; MAX_PARTNERS]), size(vec![market; MAX_MARKETPLACES]));
        assert!(p < MAX_ITEM_BYTES && m < MAX_ITEM_BYTES, "partners {p} B, marketplaces {m} B");
    }
}
