//! An account's stitchers: one record holding all of them (`repo::collection`), read by
//! the serving and tracking functions with one GetItem.

use super::collection::Member;
use crate::keys;
use crate::model::stitcher::{Stitcher, MAX_STITCHERS};
use crate::store::Key;

pub use super::collection::all;

impl Member for Stitcher {
    const KIND: &'static str = "stitcher";
    const PLURAL: &'static str = "stitchers";
    const MAX: usize = MAX_STITCHERS;
    // The serving and tracking functions keep their own short cache (usecases::stitchers).
    const SERVED: bool = false;
    fn id(&self) -> &str {
        &self.id
    }
    fn key(account: &str) -> Key {
        keys::stitchers(account)
    }
}
