//! Records, their rules, and their wire shapes.

pub mod account;
pub mod ad;
pub mod ad_write;
pub mod asset;
pub mod asset_write;
pub mod audience;
pub mod campaign;
pub mod client;
pub mod common;
pub mod contact;
pub mod counter;
pub mod creative;
pub mod enums;
pub mod goal;
pub mod inflate;
pub mod notification;
pub mod policy;
pub mod rules;
pub mod rules_view;
pub mod stitcher;
pub mod template;
pub mod template_write;
pub mod zone;
