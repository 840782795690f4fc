//! The validation rules a 400 names (`FieldError::rule`): one closed set, its wire names
//! stable tokens clients match on, each with what it means. docs/api.md's rules table is
//! this list (`Rule::table`, printed by `admin rules-table`; a test holds the two together).

use crate::wire_enum::wire_enum;

wire_enum! {
    /// The rule a field breaks.
    Rule {
        Required = "required",
        MaxLength = "maxLength",
        MinLength = "minLength",
        MaxItems = "maxItems",
        MaxCount = "maxCount",
        MaxAds = "maxAds",
        Enum = "enum",
        Range = "range",
        Step = "step",
        Ipv4 = "ipv4",
        Positive = "positive",
        Integer = "integer",
        Number = "number",
        Boolean = "boolean",
        Date = "date",
        DateTime = "dateTime",
        Format = "format",
        Id = "id",
        Url = "url",
        Extension = "extension",
        Unknown = "unknown",
        Single = "single",
        NoText = "noText",
        Root = "root",
        Type = "type",
        NotForType = "notForType",
        Reference = "reference",
        Provider = "provider",
        MatchesPath = "matchesPath",
        MatchesAccount = "matchesAccount",
        ReadOnly = "readOnly",
        Immutable = "immutable",
        NotOnCreate = "notOnCreate",
        Archived = "archived",
        AfterStart = "afterStart",
        StartRule = "startRule",
        WithinGoal = "withinGoal",
        AtLeastOneDayAhead = "atLeastOneDayAhead",
        MaxDaysAhead = "maxDaysAhead",
        Window = "window",
        Unique = "unique",
        WeightSum = "weightSum",
        CapType = "capType",
        Event = "event",
        Media = "media",
        AtLeastTwoTags = "atLeastTwoTags",
        NotAllowed = "notAllowed",
        Unsupported = "unsupported",
        FormatNotEnabled = "formatNotEnabled",
        Exclusive = "exclusive",
        Permutation = "permutation",
        Expand = "expand",
        NotBeforeFrom = "notBeforeFrom",
        MaxDays = "maxDays",
        MaxRows = "maxRows",
        MaxCells = "maxCells",
        Etag = "etag",
        Region = "region",
        Gzip = "gzip",
        InflateRatio = "inflateRatio",
        InflatedSize = "inflatedSize",
        Ambiguous = "ambiguous",
        Reused = "reused",
        Omitted = "omitted",
        Credential = "credential",
    }
}

impl Rule {
    /// What the field breaks, as docs/api.md says it.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Required => "is missing or empty",
            Rule::MaxLength => "is longer than its bound (the message gives it)",
            Rule::MinLength => "is shorter than its bound (the message gives it)",
            Rule::MaxItems => "has more values than its bound (a list parameter, caps, trackers, …)",
            Rule::MaxCount => "has more entries than its bound",
            Rule::MaxAds => "would give a goal more ads than the account's limit",
            Rule::Enum => "is not one of the listed values",
            Rule::Range => "is a number out of its range (paging, priority, frontload, break number, limit, …)",
            Rule::Step => "is not a multiple of its step",
            Rule::Ipv4 => "(an ad request's `ip`) is not an IPv4 address",
            Rule::Positive => "must be a positive number",
            Rule::Integer => "is not an integer",
            Rule::Number => "is not a number",
            Rule::Boolean => "is not a boolean",
            Rule::Date => "is not `yyyy-MM-ddTHH:mm:ss.sssZ` (or epoch milliseconds where allowed), or a report's `YYYY-MM-DD`",
            Rule::DateTime => "is not an ISO-8601 date-time",
            Rule::Format => "breaks its format (e-mail, phone, IP matcher, time of day, …)",
            Rule::Id => "is not an id (letters, digits, `-` and `_`, at most 64)",
            Rule::Url => "is not an absolute http(s) URL",
            Rule::Extension => "(an asset's `name`) does not end in a video extension",
            Rule::Unknown => "is not part of the bean or body, or is a query or matrix parameter the operation does not take",
            Rule::Single => "is given twice (an element or a parameter)",
            Rule::NoText => "an XML element that must hold only text holds elements",
            Rule::Root => "the XML body's root element is not the bean the operation takes",
            Rule::Type => "has the wrong JSON type, or names a type that does not fit (e.g. a creative type for the insertion point)",
            Rule::NotForType => "a creative field the creative's type does not have",
            Rule::Reference => "names a record that does not exist in the account, or one of the wrong kind",
            Rule::Provider => "(an audience rule's `segmentId`) names another provider than the rule's",
            Rule::MatchesPath => "differs from the id in the path",
            Rule::MatchesAccount => "(a template's `siteId`) is not the caller's account",
            Rule::ReadOnly => "may not be set by a client",
            Rule::Immutable => "may not change after create",
            Rule::NotOnCreate => "may not be given on create",
            Rule::Archived => "the record is archived and cannot change",
            Rule::AfterStart => "an end is not after its start",
            Rule::StartRule => "the start of an upcoming goal can only be moved to a future time, of a running one not at all",
            Rule::WithinGoal => "an ad's start or end is outside its goal's flight",
            Rule::AtLeastOneDayAhead => "a forecast's start is not at least one day ahead",
            Rule::MaxDaysAhead => "a forecast's start is too far ahead",
            Rule::Window => "a time restriction's window is empty or inverted",
            Rule::Unique => "a value given twice where each must be unique (a mid-roll break number, a dimension)",
            Rule::WeightSum => "the explicit weights of a goal's ads add up to more than 100",
            Rule::CapType => "a cap that does not apply to the goal's type, or one given twice",
            Rule::Event => "an external tracker's event is not one of the creative type's events",
            Rule::Media => "links an asset whose processing FAILED (its reason named)",
            Rule::AtLeastTwoTags => "an AT_LEAST_ONE_OF tag rule names one tag (use ALL_OF)",
            Rule::NotAllowed => "a rule or field not allowed here (another kind's rules)",
            Rule::Unsupported => "a field only for some goal types or interfaces",
            Rule::FormatNotEnabled => "an insertion policy switches on a format the account does not have",
            Rule::Exclusive => "two fields that exclude each other are both given",
            Rule::Permutation => "a reorder does not list each record exactly once",
            Rule::Expand => "an `/v3` expansion that does not apply to the resource",
            Rule::NotBeforeFrom => "(a report's `to`) is before its `from`",
            Rule::MaxDays => {
                "(a report's `to`) the range covers more days than the granularity allows (93 by hour, 366 by day or in total)"
            }
            Rule::MaxRows => "(a report's `groupBy`) the report would have more than 5,000 rows",
            Rule::MaxCells => "(a report's `from`) one day of the range has more than 10,000 report cells: ask for fewer days",
            Rule::Etag => "`If-Match` is not an ETag this API returned",
            Rule::Region => "an audience upload reached the wrong region's address",
            Rule::Gzip => "(an audience upload sent as gzip) the file does not decompress",
            Rule::InflateRatio => "(an audience upload sent as gzip) the file inflates more than a data file does (413)",
            Rule::InflatedSize => "(an audience upload sent as gzip) the file inflates past the upload limit (413)",
            Rule::Ambiguous => "a key fingerprint prefix matches more than one key",
            Rule::Reused => "(`Idempotency-Key`, 422) the key was used with another request",
            Rule::Omitted => "never shown: counts an error past the 100 a response lists",
            Rule::Credential => "(a password change's `currentPassword`) is not the signed-in person's own password",
        }
    }

    /// docs/api.md's rules table: one row per rule, in this list's order.
    pub fn table() -> String {
        let mut out = String::from("| rule | the field … |\n|---|---|\n");
        for r in Rule::ALL.iter().filter(|r| **r != Rule::Omitted) {
            out.push_str(&format!("| `{}` | {} |\n", r.as_str(), r.describe()));
        }
        out
    }
}

impl PartialEq<&str> for Rule {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
