//! Marketplaces (docs/programmatic.md, "Records"): which demand partners a programmatic
//! goal asks, under which auction, floors, deals and blocks. That its partners are the
//! account's is checked when it is written (`usecases::demand`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain_error::FieldError;
use crate::json::Ignored;
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
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Deal {
    /// Letters, digits and `-._~:@+`, unique in the marketplace.
    #[schema(value_type = DealId, inline)]
    pub id: String,
    /// CPM, in the marketplace's currency, at most 4 decimals; default 0.
    #[serde(default)]
    #[schema(value_type = Option<Cpm>, inline)]
    pub floor_cpm: f64,
    /// Buyer seat ids (OpenRTB `wseat`), tokens.
    #[serde(default)]
    #[schema(value_type = Option<Seats>, inline)]
    pub seats: Vec<String>,
}

crate::wire_schema::bounded_string!(
    /// A deal or seat id.
    DealId, 1, DEAL_ID_MAX
);
crate::wire_schema::bounded_number!(
    /// A floor or deal price (CPM).
    Cpm, 0, MAX_CPM
);
crate::wire_schema::bounded_list!(
    /// A deal's buyer seats.
    Seats, DealId, 0, MAX_SEATS
);
crate::wire_schema::bounded_list!(
    /// The partners a marketplace asks.
    PartnerIds, crate::wire_schema::Id, 1, MAX_MARKETPLACE_PARTNERS
);
crate::wire_schema::bounded_list!(
    /// A marketplace's deals.
    Deals, Deal, 0, MAX_DEALS
);
crate::wire_schema::bounded_string!(
    /// An advertiser's domain.
    Domain, 1, DOMAIN_MAX
);
crate::wire_schema::bounded_string!(
    /// An IAB content category id.
    Category, 1, CATEGORY_MAX
);
crate::wire_schema::bounded_list!(
    /// Blocked advertiser domains.
    Domains, Domain, 0, MAX_BLOCKED
);
crate::wire_schema::bounded_list!(
    /// Blocked content categories.
    Categories, Category, 0, MAX_BLOCKED
);

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
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = MarketplaceWrite)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MarketplaceInput {
    /// Only on PUT: must equal the path's id.
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub id: Option<String>,
    #[schema(value_type = crate::wire_schema::RecordName, inline)]
    pub name: String,
    /// The account's demand partner ids, no repeats.
    #[schema(value_type = PartnerIds, inline)]
    pub demand_partner_ids: Vec<String>,
    /// FIRST_PRICE, SECOND_PRICE or FIXED_PRICE (OpenRTB `at` 1, 2, 3).
    #[schema(example = "SECOND_PRICE")]
    pub auction_type: AuctionType,
    /// At most 4 decimals; default 0.
    #[serde(default)]
    #[schema(value_type = Option<Cpm>, inline)]
    pub floor_cpm: f64,
    /// ISO 4217; default USD. Bids must be in it.
    #[serde(default = "super::currency::default")]
    #[schema(value_type = Option<String>, pattern = "^[A-Z]{3}$")]
    pub currency: String,
    /// A FIXED_PRICE marketplace needs one.
    #[serde(default)]
    #[schema(value_type = Option<Deals>, inline)]
    pub deals: Vec<Deal>,
    /// Only bids on a deal may win (needs a deal); default false.
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub private_auction: bool,
    /// Advertiser domains (`badv`).
    #[serde(default)]
    #[schema(value_type = Option<Domains>, inline)]
    pub blocked_domains: Vec<String>,
    /// IAB content category ids (`bcat`).
    #[serde(default)]
    #[schema(value_type = Option<Categories>, inline)]
    pub blocked_categories: Vec<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub created: Ignored,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub modified: Ignored,
}

/// The rule of a price: at most four decimals (its range is the schema's `Cpm`).
fn cpm(v: f64, field: &str, errors: &mut Vec<FieldError>) {
    if ((v * 10_000.0).round() - v * 10_000.0).abs() > 1e-6 {
        errors.push(FieldError::new(field, Rule::Step, format!("{field} has at most 4 decimals")));
    }
}

/// Whether `s` is a token: letters, digits and `-._~:@+` (no character JSON escapes).
fn token(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~:@+".contains(&b))
}

/// The rules of a list of tokens (their lengths and count are the schema's): after `norm`,
/// each a token and none repeated.
fn tokens(list: &mut [String], field: &str, norm: fn(&str) -> String, errors: &mut Vec<FieldError>) {
    for i in 0..list.len() {
        list[i] = norm(&list[i]);
        let at = format!("{field}[{i}]");
        if list[i].is_empty() || !token(&list[i]) {
            errors.push(FieldError::new(at.clone(), Rule::Format, format!("{at} is letters, digits and -._~:@+")));
        } else if list[..i].contains(&list[i]) {
            errors.push(FieldError::new(at.clone(), Rule::Unique, format!("{at} repeats {:?}", list[i])));
        }
    }
}

/// Parses a create (`path_id` None) or a replace body, every error at once.
pub fn parse_write(v: &Value, path_id: Option<&str>) -> Result<MarketplaceInput, Vec<FieldError>> {
    crate::json::read(v, |b: &mut MarketplaceInput, errors| {
        crate::json::record_name(&mut b.name, errors);
        crate::json::record_id(b.id.as_deref(), path_id, errors);
        tokens(&mut b.demand_partner_ids, "demandPartnerIds", str::to_string, errors);
        cpm(b.floor_cpm, "floorCpm", errors);
        super::demand_partner::check_currency(&b.currency, "currency", errors);
        for (i, d) in b.deals.iter_mut().enumerate() {
            if !token(&d.id) {
                errors.push(FieldError::new(
                    format!("deals[{i}].id"),
                    Rule::Format,
                    format!("deals[{i}].id is letters, digits and -._~:@+"),
                ));
            }
            cpm(d.floor_cpm, &format!("deals[{i}].floorCpm"), errors);
            tokens(&mut d.seats, &format!("deals[{i}].seats"), str::to_string, errors);
        }
        for i in 1..b.deals.len() {
            if b.deals[..i].iter().any(|d| d.id == b.deals[i].id) {
                errors.push(FieldError::new(format!("deals[{i}].id"), Rule::Unique, format!("deals[{i}].id repeats another deal's")));
            }
        }
        if b.deals.is_empty() && b.auction_type == AuctionType::FixedPrice {
            errors.push(FieldError::new("deals", Rule::Required, "a FIXED_PRICE marketplace needs a deal: its floorCpm is the price"));
        } else if b.deals.is_empty() && b.private_auction {
            errors.push(FieldError::new("privateAuction", Rule::Required, "a private auction needs a deal: only deals may bid in it"));
        }
        tokens(&mut b.blocked_domains, "blockedDomains", |s| s.trim().trim_end_matches('.').to_ascii_lowercase(), errors);
        tokens(&mut b.blocked_categories, "blockedCategories", |s| s.trim().to_string(), errors);
    })
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
        crate::json::faults(parse_write(&v, None))
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
        assert_eq!(rules(json!({})), ["auctionType required", "demandPartnerIds required", "name required"]);
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": ["p", "p"], "auctionType": "SECOND_PRICE", "floorCpm": 1.00001})),
            ["demandPartnerIds[1] unique", "floorCpm step"]
        );
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": ["p"], "auctionType": "DUTCH", "floorCpm": -1})),
            ["auctionType enum", "floorCpm range"]
        );
        assert_eq!(rules(json!({"name": "x", "demandPartnerIds": ["p"], "auctionType": "FIXED_PRICE"})), ["deals required"]);
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": ["p"], "auctionType": "FIRST_PRICE", "privateAuction": true})),
            ["privateAuction required"]
        );
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": [], "auctionType": "FIRST_PRICE",
                         "deals": [{"id": "a", "floorCpm": 1}, {"id": "a", "floorCpm": -1}, {"id": "b c"}]})),
            ["deals[1].floorCpm range", "deals[1].id unique", "deals[2].id format", "demandPartnerIds required"]
        );
        assert_eq!(
            rules(json!({"name": "x", "demandPartnerIds": ["p"], "auctionType": "FIRST_PRICE",
                         "deals": [{"id": "a", "floorCpm": 1}, {"id": "a", "floorCpm": 2}, {"id": "b c"}]})),
            ["deals[1].id unique", "deals[2].id format"]
        );
    }
}
