//! Why a goal or an ad does not take a request: the closed set of reasons the decision
//! checks in order (`decide::Env`), and why a record is not in the snapshot at all
//! (`snapshot::compile`). The inspector (docs/inspector.md) shows them with their codes;
//! the decision itself only asks whether there is one.

use super::targeting::Refusal;

/// A cap a goal has reached (seed 001 §2.2), as the goal's `caps` list names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapReached {
    Total,
    Daily,
    Hourly,
    DailyEvent,
    HourlyEvent,
}

impl CapReached {
    pub fn as_str(self) -> &'static str {
        match self {
            CapReached::Total => "TOTAL_CAP",
            CapReached::Daily => "DAILY_CAP",
            CapReached::Hourly => "HOURLY_CAP",
            CapReached::DailyEvent => "DAILY_EVENT_CAP",
            CapReached::HourlyEvent => "HOURLY_EVENT_CAP",
        }
    }
}

/// Why pacing holds a goal back now, if it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Its target is delivered.
    TargetReached,
    /// It is ahead of its plan (the ideal curve an hour from now).
    AheadOfPlan,
}

/// The first rule that keeps a goal from a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalExcluded {
    NotStarted,
    Ended,
    /// A mid-roll request for a break the goal does not list.
    MidrollBreak,
    Cap(CapReached),
    Paced(Held),
    /// A frequency cap is reached for this viewer.
    FrequencyCap,
    /// The goal has frequency caps and the request names no viewer (`pid`).
    NoViewer,
    Targeting(Refusal),
    /// Its auction had no valid bid for this break (docs/programmatic.md).
    NoBid,
}

impl GoalExcluded {
    /// A stable code (the inspector's `reason.code`).
    pub fn code(self) -> String {
        match self {
            GoalExcluded::NotStarted => "FLIGHT_NOT_STARTED".into(),
            GoalExcluded::Ended => "FLIGHT_ENDED".into(),
            GoalExcluded::MidrollBreak => "MIDROLL_BREAK".into(),
            GoalExcluded::Cap(c) => format!("CAP_REACHED:{}", c.as_str()),
            GoalExcluded::Paced(Held::TargetReached) => "TARGET_REACHED".into(),
            GoalExcluded::Paced(Held::AheadOfPlan) => "PACING_AHEAD_OF_PLAN".into(),
            GoalExcluded::FrequencyCap => "FREQUENCY_CAP".into(),
            GoalExcluded::NoViewer => "FREQUENCY_CAP_NO_VIEWER".into(),
            GoalExcluded::Targeting(r) => format!("TARGETING:{}:{}", r.level.as_str(), r.dimension.as_str()),
            GoalExcluded::NoBid => "NO_VALID_BID".into(),
        }
    }

    pub fn message(self) -> String {
        match self {
            GoalExcluded::NotStarted => "the goal's flight has not started".into(),
            GoalExcluded::Ended => "the goal's flight has ended".into(),
            GoalExcluded::MidrollBreak => "the goal does not serve this mid-roll break (midrollBreaks)".into(),
            GoalExcluded::Cap(c) => format!("the goal's {} is reached", c.as_str()),
            GoalExcluded::Paced(Held::TargetReached) => "the goal has delivered its target".into(),
            GoalExcluded::Paced(Held::AheadOfPlan) => {
                "pacing holds the goal back: it is ahead of its plan (the front-load curve an hour from now)".into()
            }
            GoalExcluded::FrequencyCap => "a frequency cap is reached for this viewer".into(),
            GoalExcluded::NoViewer => "the goal has frequency caps and the request names no viewer (pid)".into(),
            GoalExcluded::Targeting(r) => format!("the {}'s {} rules refuse the request", r.level.as_str(), r.dimension.as_str()),
            GoalExcluded::NoBid => "the goal's auction had no valid bid: the break went to the next candidate".into(),
        }
    }
}

/// The first rule that keeps one ad of an eligible goal out of the break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdExcluded {
    /// The ad is of another format than the break asked for.
    Format,
    NotStarted,
    Ended,
    /// The ad's device containers do not include the request's (`dc`).
    DeviceContainer,
    /// The insertion policy turns standard spots off.
    StandardSpotsOff,
    /// A time-limited break and an ad of unknown length.
    NoDuration,
    /// Longer than the break's time limit.
    TooLong,
}

impl AdExcluded {
    pub fn code(self) -> &'static str {
        match self {
            AdExcluded::Format => "FORMAT",
            AdExcluded::NotStarted => "AD_NOT_STARTED",
            AdExcluded::Ended => "AD_ENDED",
            AdExcluded::DeviceContainer => "DEVICE_CONTAINER",
            AdExcluded::StandardSpotsOff => "POLICY_STANDARD_SPOTS_OFF",
            AdExcluded::NoDuration => "POLICY_TIME_LIMIT_NO_DURATION",
            AdExcluded::TooLong => "POLICY_TIME_LIMIT",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            AdExcluded::Format => "the ad is of another format than the break",
            AdExcluded::NotStarted => "the ad's start is later",
            AdExcluded::Ended => "the ad's end has passed",
            AdExcluded::DeviceContainer => "the ad's device containers do not include the request's (dc)",
            AdExcluded::StandardSpotsOff => "the insertion policy turns standard spots off",
            AdExcluded::NoDuration => "the break has a time limit and the ad's length is unknown (estimatedAdDuration)",
            AdExcluded::TooLong => "the ad is longer than the break's time limit",
        }
    }
}

/// Why a stored record is not in the snapshot (it never takes a request).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LeftOut {
    CampaignDisabled,
    CampaignArchived,
    /// A goal whose campaign does not deliver (disabled, archived or missing).
    CampaignNotDelivering,
    GoalDisabled,
    AdDisabled,
    /// A placeholder creative: nothing to play.
    Placeholder,
    /// The ad's goal does not deliver.
    GoalNotDelivering,
    /// No playable media: the asset's state, or what is missing.
    NoMedia(String),
    /// An RTB goal without a marketplace, or a programmatic goal whose marketplace is gone.
    NoMarketplace,
}

impl LeftOut {
    pub fn code(&self) -> &'static str {
        match self {
            LeftOut::CampaignDisabled => "CAMPAIGN_DISABLED",
            LeftOut::CampaignArchived => "CAMPAIGN_ARCHIVED",
            LeftOut::CampaignNotDelivering => "CAMPAIGN_NOT_DELIVERING",
            LeftOut::GoalDisabled => "GOAL_DISABLED",
            LeftOut::AdDisabled => "AD_DISABLED",
            LeftOut::Placeholder => "PLACEHOLDER",
            LeftOut::GoalNotDelivering => "GOAL_NOT_DELIVERING",
            LeftOut::NoMedia(_) => "MEDIA_NOT_READY",
            LeftOut::NoMarketplace => "NO_MARKETPLACE",
        }
    }

    pub fn message(&self) -> String {
        match self {
            LeftOut::CampaignDisabled => "the campaign is disabled".into(),
            LeftOut::CampaignArchived => "the campaign is archived".into(),
            LeftOut::CampaignNotDelivering => "the goal's campaign does not deliver".into(),
            LeftOut::GoalDisabled => "the goal is disabled".into(),
            LeftOut::AdDisabled => "the ad is disabled".into(),
            LeftOut::Placeholder => "the ad's creative is a placeholder: nothing to play".into(),
            LeftOut::GoalNotDelivering => "the ad's goal does not deliver".into(),
            LeftOut::NoMedia(why) => format!("no playable media: {why}"),
            LeftOut::NoMarketplace => "the goal is filled from a marketplace (marketplaceId) and has none of the account's".into(),
        }
    }
}

/// A record left out of the snapshot, and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LeftOutRecord {
    /// `campaign`, `goal` or `ad`.
    pub kind: &'static str,
    pub id: String,
    pub reason: LeftOut,
}

/// A left-out record read back from the compiled form: its kind is one of the three names.
impl<'de> serde::Deserialize<'de> for LeftOutRecord {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Stored {
            kind: String,
            id: String,
            reason: LeftOut,
        }
        let s = Stored::deserialize(d)?;
        let kind = ["campaign", "goal", "ad"]
            .into_iter()
            .find(|k| *k == s.kind)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown record kind {:?}", s.kind)))?;
        Ok(LeftOutRecord { kind, id: s.id, reason: s.reason })
    }
}

impl LeftOutRecord {
    pub fn approx_bytes(&self) -> usize {
        self.id.capacity() + 64 + if let LeftOut::NoMedia(s) = &self.reason { s.capacity() } else { 0 }
    }
}
