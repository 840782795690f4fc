//! The delivery counters and the `/v3` metrics as closed sets (stored and sent as their
//! names, unchanged).

use crate::wire_enum::wire_enum;

wire_enum! {
    /// A delivery counter (the `/v3` metric and report names, stored unchanged on the metric
    /// records and report cells): the counted playback events and `delivered`, the goal's own
    /// kind of event (docs/queries.md).
    Counter {
        Impression = "impression",
        ClickThrough = "clickThrough",
        Start = "start",
        FirstQuartile = "firstQuartile",
        Midpoint = "midpoint",
        ThirdQuartile = "thirdQuartile",
        Complete = "complete",
        Delivered = "delivered",
        ServerInitiated = "serverInitiated",
        /// A programmatic goal's revenue: the clearing CPMs of its valid impressions / 1,000,
        /// in micros of the marketplace's currency (docs/programmatic.md).
        RevenueMicros = "revenueMicros",
        /// Programmatic goals' auctions (counted at serving, docs/programmatic.md).
        Auctions = "auctions",
        /// Bid requests sent, bids received, no-bids, timeouts, errors (transport, HTTP,
        /// unreadable answers), bids refused by a rule, auctions won.
        BidRequests = "bidRequests",
        Bids = "bids",
        NoBids = "noBids",
        Timeouts = "timeouts",
        Errors = "errors",
        InvalidBids = "invalidBids",
        Wins = "wins",
    }
}

impl Counter {
    /// The playback events a tracking link counts, in the order a document lists them.
    pub const EVENTS: &'static [Counter] = &[
        Counter::Impression,
        Counter::Start,
        Counter::FirstQuartile,
        Counter::Midpoint,
        Counter::ThirdQuartile,
        Counter::Complete,
        Counter::ClickThrough,
    ];
    /// The counters of a report row and a CSV, in their column order.
    pub const REPORTED: &'static [Counter] = &[
        Counter::Impression,
        Counter::Start,
        Counter::FirstQuartile,
        Counter::Midpoint,
        Counter::ThirdQuartile,
        Counter::Complete,
        Counter::ClickThrough,
        Counter::Delivered,
        Counter::ServerInitiated,
    ];

    /// The auction counters (docs/programmatic.md, "Counting the auctions").
    pub const AUCTION: &'static [Counter] = &[
        Counter::Auctions,
        Counter::BidRequests,
        Counter::Bids,
        Counter::NoBids,
        Counter::Timeouts,
        Counter::Errors,
        Counter::InvalidBids,
        Counter::Wins,
    ];

    /// The event's name in a tracking URL (`/v1/track/<event>`): the counter's, but `click`.
    pub fn event_name(self) -> &'static str {
        match self {
            Counter::ClickThrough => "click",
            Counter::Impression
            | Counter::Start
            | Counter::FirstQuartile
            | Counter::Midpoint
            | Counter::ThirdQuartile
            | Counter::Complete
            | Counter::Delivered
            | Counter::ServerInitiated
            | Counter::RevenueMicros
            | Counter::Auctions
            | Counter::BidRequests
            | Counter::Bids
            | Counter::NoBids
            | Counter::Timeouts
            | Counter::Errors
            | Counter::InvalidBids
            | Counter::Wins => self.as_str(),
        }
    }

    /// The counter of a tracking URL's event name (`None`: not a counted event).
    pub fn of_event(name: &str) -> Option<Counter> {
        Counter::EVENTS.iter().copied().find(|c| c.event_name() == name)
    }
}

wire_enum! {
    /// What a `/v3` metrics list may name: the counters, the rates and eCPM computed from
    /// them, and the invalid traffic apart (docs/queries.md).
    Metric {
        Impression = "impression",
        ClickThrough = "clickThrough",
        Start = "start",
        FirstQuartile = "firstQuartile",
        Midpoint = "midpoint",
        ThirdQuartile = "thirdQuartile",
        Complete = "complete",
        Delivered = "delivered",
        ServerInitiated = "serverInitiated",
        Revenue = "revenue",
        Ctr = "ctr",
        CompletionRate = "completionRate",
        Ecpm = "ecpm",
        Invalid = "invalid",
    }
}

impl Metric {
    /// A campaign's metrics (no delivered kind, rates or eCPM: its goals differ in both).
    pub const CAMPAIGN: &'static [Metric] = &[
        Metric::Impression,
        Metric::ClickThrough,
        Metric::Start,
        Metric::FirstQuartile,
        Metric::Midpoint,
        Metric::ThirdQuartile,
        Metric::Complete,
        Metric::ServerInitiated,
        Metric::Revenue,
        Metric::Invalid,
    ];
    /// An ad's metrics.
    pub const AD: &'static [Metric] = &[
        Metric::Impression,
        Metric::ClickThrough,
        Metric::Start,
        Metric::FirstQuartile,
        Metric::Midpoint,
        Metric::ThirdQuartile,
        Metric::Complete,
        Metric::Delivered,
        Metric::ServerInitiated,
        Metric::Invalid,
    ];
    /// A goal's metrics: every one.
    pub const GOAL: &'static [Metric] = Metric::ALL;

    /// The counter a metric shows as it is (`None`: computed, or the invalid traffic).
    pub fn counter(self) -> Option<Counter> {
        match self {
            Metric::Impression => Some(Counter::Impression),
            Metric::ClickThrough => Some(Counter::ClickThrough),
            Metric::Start => Some(Counter::Start),
            Metric::FirstQuartile => Some(Counter::FirstQuartile),
            Metric::Midpoint => Some(Counter::Midpoint),
            Metric::ThirdQuartile => Some(Counter::ThirdQuartile),
            Metric::Complete => Some(Counter::Complete),
            Metric::Delivered => Some(Counter::Delivered),
            Metric::ServerInitiated => Some(Counter::ServerInitiated),
            Metric::Revenue | Metric::Ctr | Metric::CompletionRate | Metric::Ecpm | Metric::Invalid => None,
        }
    }
}
