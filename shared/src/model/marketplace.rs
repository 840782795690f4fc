//! Marketplaces (docs/programmatic.md, "Records"): which demand partners a programmatic
//! goal asks, under which auction, floors, deals and blocks. That its partners are the
//! account's is checked when it is written (`usecases::demand`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::demand_partner::currency;
use crate::domain_error::FieldError;
use crate::json::{Ignored, ObjReader};
use crate::rule::Rule;
use crate::wire_enum::wire_enum;

/// Marketplaces an account has at most.
pub const MAX_MARKETPLACES: usize = 20;
/// Partners a marketplace asks at most.
pub const MAX_MARKETPLACE_PARTNERS: usize = 10;
/// Deals of a marketplace, seats of a deal, blocked domains and categories: at most.
pub const MAX_DEALS: usize = 10;
pub const MAX_SEATS: usize = 10;
pub const MAX_BLOCKED: usize = 50;
/// A deal or seat id, at most.
pub const DEAL_ID_MAX: usize = 64;
/// A blocked domain, at most (longer names than this are not advertisers' domains).
pub const DOMAIN_MAX: usize = 128;
/// An IAB category id, at most.
pub const CATEGORY_MAX: usize = 16;
/// The highest floor or deal price (CPM).
pub const MAX_CPM: f64 = 1000.0;

wire_enum! {
    /// How the clearing price is set (OpenRTB `at`: 1, 2, 3).
    AuctionType { FirstPrice = "FIRST_PRICE", SecondPrice = "SECOND_PRICE", FixedPrice = "FIXED_PRICE" }
}

impl AuctionType {
    /// OpenRTB's `at`.
    pub fn at(self) -> u8 {
        match self {
            AuctionType::FirstPrice => 1,
            AuctionType::SecondPrice => 2,
            AuctionType::FixedPrice => 3,
        }
    }
}

/// A private-marketplace deal: its id, its floor (a fixed-price deal's price) and the
/// buyer seats allowed (none: any seat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deal {
    /// 1 to 64 visible characters, unique in the marketplace.
    pub id: String,
    /// 0 to 1,000 (CPM, the marketplace's currency).
    pub floor_cpm: f64,
    /// 0 to 10 buyer seat ids (OpenRTB `wseat`), tokens of at most 64 characters.
    #[serde(default)]
    pub seats: Vec<String>,
}

/// A marketplace as stored and shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Marketplace {
    pub id: String,
    pub name: String,
    /// The partners asked, in this order (ties go to the earlier).
    pub demand_partner_ids: Vec<String>,
    /// FIRST_PRICE, SECOND_PRICE or FIXED_PRICE (OpenRTB `at` 1, 2, 3).
    #[schema(value_type = String, example = "SECOND_PRICE")]
    pub auction_type: AuctionType,
    /// The floor (CPM) of bids without a deal.
    pub floor_cpm: f64,
    /// ISO 4217: bids must be in it.
    pub currency: String,
    /// The private-marketplace deals (`imp.pmp`).
    #[serde(default)]
    pub deals: Vec<Deal>,
    /// Only bids on a deal may win.
    pub private_auction: bool,
    /// Advertiser domains refused (`badv`).
    #[serde(default)]
    pub blocked_domains: Vec<String>,
    /// IAB content categories refused (`bcat`).
    #[serde(default)]
    pub blocked_categories: Vec<String>,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// The body of `POST /v1/marketplaces` and `PUT /v1/marketplaces/{id}`.
#[derive(Debug, Clone, PartialEq, utoipa::ToSchema)]
#[schema(as = MarketplaceWrite)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MarketplaceInput {
    /// Only on PUT: must equal the path's id.
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub id: Option<String>,
    #[schema(value_type = crate::wire_schema::RecordName, inline)]
    pub name: String,
    /// 1 to 10 of the account's demand partner ids, no repeats.
    #[schema(min_items = 1, max_items = 10)]
    pub demand_partner_ids: Vec<String>,
    /// FIRST_PRICE, SECOND_PRICE or FIXED_PRICE (OpenRTB `at` 1, 2, 3).
    #[schema(value_type = String, example = "SECOND_PRICE")]
    pub auction_type: AuctionType,
    /// 0 to 1,000 (CPM), at most 4 decimals; default 0.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 1000)]
    pub floor_cpm: f64,
    /// ISO 4217; default USD. Bids must be in it.
    #[schema(value_type = Option<String>, pattern = "^[A-Z]{3}$")]
    pub currency: String,
    /// 0 to 10 deals (a FIXED_PRICE marketplace needs one).
    #[schema(value_type = Option<Vec<Deal>>, max_items = 10)]
    pub deals: Vec<Deal>,
    /// Only bids on a deal may win (needs a deal); default false.
    #[schema(value_type = Option<bool>)]
    pub private_auction: bool,
    /// 0 to 50 advertiser domains (`badv`).
    #[schema(value_type = Option<Vec<String>>, max_items = 50)]
    pub blocked_domains: Vec<String>,
    /// 0 to 50 IAB content category ids (`bcat`).
    #[schema(value_type = Option<Vec<String>>, max_items = 50)]
    pub blocked_categories: Vec<String>,
    #[schema(value_type = Option<String>)]
    pub created: Ignored,
    #[schema(value_type = Option<String>)]
    pub modified: Ignored,
}

/// What a marketplace body may hold.
pub const MARKETPLACE_FIELDS: &[&str] = &[
    "id",
    "name",
    "demandPartnerIds",
    "auctionType",
    "floorCpm",
    "currency",
    "deals",
    "privateAuction",
    "blockedDomains",
    "blockedCategories",
    "created",
    "modified",
];

/// A CPM: 0 to `MAX_CPM`, at most four decimals.
fn cpm(r: &mut ObjReader<'_>, field: &str) -> Option<f64> {
    let v = r.f64_opt(field)?;
    if !(0.0..=MAX_CPM).contains(&v) {
        r.err(field, Rule::Range, format!("{} must be between 0 and {MAX_CPM} (got {v})", r.at(field)));
        return None;
    }
    if ((v * 10_000.0).round() - v * 10_000.0).abs() > 1e-6 {
        r.err(field, Rule::Step, format!("{} has at most 4 decimals", r.at(field)));
        return None;
    }
    Some(v)
}

/// Whether `s` is a token: letters, digits and `-._~:@+` (no character JSON escapes).
fn token(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~:@+".contains(&b))
}

/// A list of tokens: at most `max_items`, each 1 to `max_len` characters (after `norm`),
/// no repeats.
fn strings(r: &mut ObjReader<'_>, field: &str, max_items: usize, max_len: usize, norm: fn(&str) -> String) -> Vec<String> {
    let Some(list) = r.array_opt(field) else { return Vec::new() };
    if list.len() > max_items {
        r.err(field, Rule::MaxItems, format!("{} holds at most {max_items} values", r.at(field)));
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let at = format!("{}[{i}]", r.at(field));
        match v.as_str().map(norm) {
            Some(s) if s.is_empty() || s.len() > max_len || !token(&s) => {
                r.errors.push(FieldError::new(at.clone(), Rule::Format, format!("{at} is 1 to {max_len} letters, digits and -._~:@+")))
            }
            Some(s) if out.contains(&s) => r.errors.push(FieldError::new(at.clone(), Rule::Unique, format!("{at} repeats {s:?}"))),
            Some(s) => out.push(s),
            None => r.errors.push(FieldError::new(at.clone(), Rule::Type, format!("{at} must be a string"))),
        }
    }
    out
}

fn deals(r: &mut ObjReader<'_>) -> Vec<Deal> {
    let Some(list) = r.array_opt("deals") else { return Vec::new() };
    if list.len() > MAX_DEALS {
        r.err("deals", Rule::MaxItems, format!("deals holds at most {MAX_DEALS} deals"));
        return Vec::new();
    }
    let mut out: Vec<Deal> = Vec::new();
    for (i, d) in list.iter().enumerate() {
        let mut dr = ObjReader::new(d, &format!("deals[{i}]"), &["id", "floorCpm", "seats"]);
        let id = dr.str_req("id", DEAL_ID_MAX);
        if id.as_deref().is_some_and(|id| !token(id)) {
            dr.err("id", Rule::Format, format!("deals[{i}].id is letters, digits and -._~:@+"));
        }
        if id.as_ref().is_some_and(|id| out.iter().any(|d| &d.id == id)) {
            dr.err("id", Rule::Unique, format!("deals[{i}].id repeats another deal's"));
        }
        let floor = cpm(&mut dr, "floorCpm").unwrap_or(0.0);
        let seats = strings(&mut dr, "seats", MAX_SEATS, DEAL_ID_MAX, str::to_string);
        let ok = dr.errors.is_empty();
        r.errors.append(&mut dr.errors);
        if let (Some(id), true) = (id, ok) {
            out.push(Deal { id, floor_cpm: floor, seats });
        }
    }
    out
}

/// Parses a create (`path_id` None) or a replace body, every error at once.
pub fn parse_write(v: &Value, path_id: Option<&str>) -> Result<MarketplaceInput, Vec<FieldError>> {
    let mut r = ObjReader::new(v, "", MARKETPLACE_FIELDS);
    let name = r.record_name();
    let id = r.record_id(path_id);
    if !r.present("demandPartnerIds") {
        r.err("demandPartnerIds", Rule::Required, "demandPartnerIds is required: the partners the marketplace asks");
    }
    let partners = strings(&mut r, "demandPartnerIds", MAX_MARKETPLACE_PARTNERS, crate::limits::MAX_ID_LEN, str::to_string);
    if r.present("demandPartnerIds") && partners.is_empty() && !r.errors.iter().any(|e| e.field.starts_with("demandPartnerIds")) {
        r.err("demandPartnerIds", Rule::Required, format!("demandPartnerIds holds 1 to {MAX_MARKETPLACE_PARTNERS} partner ids"));
    }
    let auction = match r.one_of("auctionType", AuctionType::ALL) {
        None if !r.present("auctionType") => {
            r.err("auctionType", Rule::Required, "auctionType is required: FIRST_PRICE, SECOND_PRICE or FIXED_PRICE");
            None
        }
        a => a,
    };
    let floor = cpm(&mut r, "floorCpm").unwrap_or(0.0);
    let currency = currency(&mut r, "currency");
    let deals = deals(&mut r);
    let private = r.bool_opt("privateAuction").unwrap_or(false);
    if deals.is_empty() && !r.errors.iter().any(|e| e.field.starts_with("deals")) {
        if auction == Some(AuctionType::FixedPrice) {
            r.err("deals", Rule::Required, "a FIXED_PRICE marketplace needs a deal: its floorCpm is the price");
        } else if private {
            r.err("privateAuction", Rule::Required, "a private auction needs a deal: only deals may bid in it");
        }
    }
    let domains = strings(&mut r, "blockedDomains", MAX_BLOCKED, DOMAIN_MAX, |s| s.trim().trim_end_matches('.').to_ascii_lowercase());
    let categories = strings(&mut r, "blockedCategories", MAX_BLOCKED, CATEGORY_MAX, |s| s.trim().to_string());
    match (name, auction) {
        (Some(name), Some(auction_type)) if r.errors.is_empty() => Ok(MarketplaceInput {
            id,
            name,
            demand_partner_ids: partners,
            auction_type,
            floor_cpm: floor,
            currency,
            deals,
            private_auction: private,
            blocked_domains: domains,
            blocked_categories: categories,
            created: Ignored,
            modified: Ignored,
        }),
        _ => Err(r.errors),
    }
}

impl Marketplace {
    /// A marketplace from a body: `created` kept from `prev` when replacing.
    pub fn from_input(id: String, i: MarketplaceInput, created: DateTime<Utc>, now: DateTime<Utc>) -> Marketplace {
        Marketplace {
            id,
            name: i.name,
            demand_partner_ids: i.demand_partner_ids,
            auction_type: i.auction_type,
            floor_cpm: i.floor_cpm,
            currency: i.currency,
            deals: i.deals,
            private_auction: i.private_auction,
            blocked_domains: i.blocked_domains,
            blocked_categories: i.blocked_categories,
            created,
            modified: now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value) -> Vec<String> {
        parse_write(&v, None).err().unwrap_or_default().iter().map(|e| format!("{} {}", e.field, e.rule)).collect()
    }

    #[test]
    fn bodies_are_checked_field_by_field() {
        let ok = parse_write(
            &json!({"name": "Open", "demandPartnerIds": ["p1"], "auctionType": "SECOND_PRICE", "floorCpm": 2.5,
                    "blockedDomains": ["Bad.Example."], "deals": [{"id": "d-1", "floorCpm": 9, "seats": ["s1"]}]}),
            None,
        )
        .unwrap();
        assert_eq!((ok.auction_type.at(), ok.floor_cpm, ok.currency.as_str()), (2, 2.5, "USD"));
        assert_eq!(ok.blocked_domains, ["bad.example"]);
        assert_eq!(rules(json!({})), ["name required", "demandPartnerIds required", "auctionType required"]);
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": ["p", "p"], "auctionType": "DUTCH", "floorCpm": 1.00001})),
            ["demandPartnerIds[1] unique", "auctionType enum", "floorCpm step"]
        );
        assert_eq!(rules(json!({"name": "x", "demandPartnerIds": ["p"], "auctionType": "FIXED_PRICE"})), ["deals required"]);
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": ["p"], "auctionType": "FIRST_PRICE", "privateAuction": true})),
            ["privateAuction required"]
        );
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": [], "auctionType": "FIRST_PRICE",
                         "deals": [{"id": "a", "floorCpm": 1}, {"id": "a", "floorCpm": -1}, {"id": "b c"}]})),
            ["demandPartnerIds required", "deals[1].id unique", "deals[1].floorCpm range", "deals[2].id format"]
        );
    }
}
