//! The schemas of bounded request fields, built from the named limits (`limits.rs`): a
//! request type's field says `#[schema(value_type = wire_schema::RecordName, inline)]` and
//! its parser reads it with the same constant (`r.str_req("name", RECORD_NAME_MAX)`), so
//! the OpenAPI document and the parser cannot disagree on a bound. These types are schema
//! markers only; no value is ever of them.

use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

use crate::limits::{MAX_ID_LEN, NAME_MAX, RECORD_NAME_MAX, SHORT_MAX, TEXT_MAX, URL_MAX};

pub(crate) fn string(min: usize, max: usize) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::Type(Type::String)).min_length((min > 0).then_some(min)).max_length(Some(max))
}

/// A string of `min..=max` characters.
macro_rules! bounded_string {
    ($(#[$doc:meta])* $name:ident, $min:expr, $max:expr) => {
        $(#[$doc])*
        pub struct $name;
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                $crate::wire_schema::string($min, $max).into()
            }
        }
        impl utoipa::ToSchema for $name {}
    };
}
pub(crate) use bounded_string;

/// A `$kind` (`Integer`, `Number`) of `min..=max`.
macro_rules! bounded_range {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $min:expr, $max:expr) => {
        $(#[$doc])*
        pub struct $name;
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::SchemaType::Type(utoipa::openapi::schema::Type::$kind))
                    .minimum(Some($min as f64))
                    .maximum(Some($max as f64))
                    .into()
            }
        }
        impl utoipa::ToSchema for $name {}
    };
}
pub(crate) use bounded_range;

/// An integer of `min..=max`.
macro_rules! bounded_int {
    ($(#[$doc:meta])* $name:ident, $min:expr, $max:expr) => {
        $crate::wire_schema::bounded_range!($(#[$doc])* $name, Integer, $min, $max);
    };
}
pub(crate) use bounded_int;

/// A number of `min..=max`.
macro_rules! bounded_number {
    ($(#[$doc:meta])* $name:ident, $min:expr, $max:expr) => {
        $crate::wire_schema::bounded_range!($(#[$doc])* $name, Number, $min, $max);
    };
}
pub(crate) use bounded_number;

/// A list of at most `max` items of `$item`'s schema.
macro_rules! bounded_list {
    ($(#[$doc:meta])* $name:ident, $item:ty, $min:expr, $max:expr) => {
        $(#[$doc])*
        pub struct $name;
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ArrayBuilder::new()
                    .items(<$item as utoipa::PartialSchema>::schema())
                    .min_items(($min > 0).then_some($min))
                    .max_items(Some($max))
                    .into()
            }
        }
        impl utoipa::ToSchema for $name {
            fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
                <$item as utoipa::ToSchema>::schemas(schemas);
            }
        }
    };
}
pub(crate) use bounded_list;

bounded_string!(
    /// An id: at most `MAX_ID_LEN` characters.
    Id, 0, MAX_ID_LEN
);
bounded_string!(
    /// The name of a campaign, a client or an ad.
    RecordName, 1, RECORD_NAME_MAX
);
bounded_string!(
    /// The name of a goal, a template, a policy, a forecast or a file.
    Name, 1, NAME_MAX
);
bounded_string!(
    /// An optional name of a goal, a template, a policy, a forecast or a file.
    OptionalName, 0, NAME_MAX
);
bounded_string!(
    /// An HTTP header's name.
    HeaderName, 1, crate::limits::HEADER_NAME_MAX
);
bounded_string!(
    /// The value of a targeting rule: a tag, a segment id, a custom parameter's value.
    RuleValue, 1, crate::limits::RULE_VALUE_MAX
);
bounded_string!(
    /// An IP matcher: `a.b.c.d`, `a.b.c.d-e` or `a.b.c.*`.
    IpMatcher, 1, crate::limits::IP_MATCHER_MAX
);
bounded_string!(
    /// Short text: custom ids, contact names.
    Short, 0, SHORT_MAX
);
bounded_string!(
    /// Free text: descriptions.
    Text, 0, TEXT_MAX
);
bounded_string!(
    /// An http(s) URL.
    Url, 0, URL_MAX
);

/// An address range in CIDR notation (`203.0.113.0/24`, `2001:db8::/32`) or one address.
pub struct CidrText;
impl utoipa::PartialSchema for CidrText {
    fn schema() -> RefOr<Schema> {
        string(1, crate::limits::ENUM_NAME_MAX).format(Some(utoipa::openapi::SchemaFormat::Custom("cidr".into()))).into()
    }
}
impl utoipa::ToSchema for CidrText {}
