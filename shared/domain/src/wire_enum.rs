//! The trait of a closed set of wire strings (the enums of `model::enums`): a leaf module,
//! so the XML and JSON readers can parse any of them without depending on the model.

pub trait WireEnum: Sized + Copy + 'static {
    /// Every value's string, in the seeds' order (error messages list them).
    const NAMES: &'static [&'static str];
    fn parse(s: &str) -> Option<Self>;
    fn as_str(self) -> &'static str;
}

/// A closed set of wire strings: the enum with serde renames, `ALL`, `as_str`, `parse`, its
/// `WireEnum` impl, its OpenAPI schema (a string enum from the same list) and `Display`.
#[macro_export]
#[doc(hidden)]
macro_rules! __wire_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $s:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $s)] $variant),+
        }

        impl $name {
            #[allow(dead_code)]
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The seeds' string of this value.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $s),+
                }
            }

            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $($s => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::wire_enum::WireEnum for $name {
            const NAMES: &'static [&'static str] = &[$($s),+];
            fn parse(s: &str) -> Option<$name> {
                $name::parse(s)
            }
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }

        // The OpenAPI schema: a string, one of the wire names (utoipa's derive cannot read
        // the renames through this macro, so the schema is built from the same list).
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some(<$name as $crate::wire_enum::WireEnum>::NAMES.iter().copied()))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(stringify!($name))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// The macro under its name, for `use crate::wire_enum::wire_enum` in every crate.
pub use crate::__wire_enum as wire_enum;
