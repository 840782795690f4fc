//! Why a bid did not win (docs/programmatic.md, "Bids"): the rule that refused it, or that
//! another bid was higher; each with its OpenRTB 2.6 loss reason code.

use crate::wire_enum::wire_enum;

wire_enum! {
    /// Why a bid did not win: invalid (it never competed), or lost. The names are the
    /// report's `invalid_<name>` columns and the inspector's; `code` is OpenRTB 2.6's loss
    /// reason sent in the `lurl`.
    Loss {
        InvalidResponse = "invalidResponse",
        MissingPrice = "missingPrice",
        Currency = "currency",
        InvalidDeal = "invalidDeal",
        NotInDeal = "notInDeal",
        BelowDealFloor = "belowDealFloor",
        BelowFloor = "belowFloor",
        BlockedAdvertiser = "blockedAdvertiser",
        BlockedCategory = "blockedCategory",
        MissingMarkup = "missingMarkup",
        BadCreative = "badCreative",
        LostToHigherBid = "lostToHigherBid",
        Expired = "expired",
    }
}

impl Loss {
    /// The reasons a bid is invalid (it never competed).
    pub const INVALID: &'static [Loss] = &[
        Loss::InvalidResponse,
        Loss::MissingPrice,
        Loss::Currency,
        Loss::InvalidDeal,
        Loss::NotInDeal,
        Loss::BelowDealFloor,
        Loss::BelowFloor,
        Loss::BlockedAdvertiser,
        Loss::BlockedCategory,
        Loss::MissingMarkup,
        Loss::BadCreative,
    ];

    /// The stored counter of bids refused by this rule (`invalidBid_<rule>`).
    pub fn stored(self) -> &'static str {
        match self {
            Loss::InvalidResponse => "invalidBid_invalidResponse",
            Loss::MissingPrice => "invalidBid_missingPrice",
            Loss::Currency => "invalidBid_currency",
            Loss::InvalidDeal => "invalidBid_invalidDeal",
            Loss::NotInDeal => "invalidBid_notInDeal",
            Loss::BelowDealFloor => "invalidBid_belowDealFloor",
            Loss::BelowFloor => "invalidBid_belowFloor",
            Loss::BlockedAdvertiser => "invalidBid_blockedAdvertiser",
            Loss::BlockedCategory => "invalidBid_blockedCategory",
            Loss::MissingMarkup => "invalidBid_missingMarkup",
            Loss::BadCreative => "invalidBid_badCreative",
            Loss::LostToHigherBid => "invalidBid_lostToHigherBid",
            Loss::Expired => "invalidBid_expired",
        }
    }

    /// OpenRTB 2.6 loss reason code.
    pub fn code(self) -> u16 {
        match self {
            Loss::InvalidResponse | Loss::Currency => 3,
            Loss::InvalidDeal => 4,
            Loss::MissingMarkup => 7,
            Loss::MissingPrice => 9,
            Loss::BelowFloor => 100,
            Loss::BelowDealFloor => 101,
            Loss::LostToHigherBid => 102,
            Loss::BadCreative => 204,
            Loss::BlockedAdvertiser => 205,
            Loss::BlockedCategory => 209,
            Loss::NotInDeal => 213,
            Loss::Expired => 2,
        }
    }
}
