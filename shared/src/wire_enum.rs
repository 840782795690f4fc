//! The trait of a closed set of wire strings (the enums of `model::enums`): a leaf module,
//! so the XML and JSON readers can parse any of them without depending on the model.

pub trait WireEnum: Sized + Copy + 'static {
    /// Every value's string, in the seeds' order (error messages list them).
    const NAMES: &'static [&'static str];
    fn parse(s: &str) -> Option<Self>;
    fn as_str(self) -> &'static str;
}
