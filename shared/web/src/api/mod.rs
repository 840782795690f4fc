//! The HTTP layer: one router per resource group (`routes`), the extractors (`auth`,
//! `extract`) and response helpers (`respond`) the handlers share. A handler imports what it
//! uses by name.

pub mod access;
pub mod ads;
pub mod assets;
pub mod audience;
pub mod auth;
pub mod body_limit;
pub mod bulk;
pub mod campaigns;
pub mod changes;
pub mod client_addr;
pub mod clients;
mod collection;
pub mod console;
pub mod contacts;
pub mod csv_out;
pub mod demand;
pub mod docs_page;
pub mod error;
pub mod extract;
pub mod forecasts;
pub mod gate;
pub mod goals;
pub mod idempotency;
pub mod known_params;
pub mod media;
pub mod paging;
pub mod policies;
pub mod preview;
pub mod queries;
pub mod reference;
pub mod respond;
pub mod roles;
pub mod routes;
pub mod rules;
pub mod serving;
pub mod stitchers;
pub mod templates;
pub mod xml_examples;

pub use auth::{Auth, Within, API_KEY_HEADER};
pub(crate) use extract::{content_type, media_type};
pub use extract::{if_match, paging, query_pairs, single, FormPairs, JsonBody, JsonBytes, Matrix, Selector, XmlBody, MAX_BODY};
pub use respond::{check_body_id, no_content, reject_id_on_create, text_response, with_etag, xml_response};
pub use roles::{Access, Admitted, Declared, Surface};
pub use routes::{app, app_per_group, docs, finish, finish_public, groups, is_xml_path, Routes};
