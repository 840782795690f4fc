//! VAST URL export (seed 000 §4.10, docs/queries.md): the ad-request URL a player or a
//! third-party ad server calls for one ad, targeted at a category or a content partner.

use super::{UseCaseError, UseCaseResult};
use crate::ids::AccountId;
use crate::model::ad::Ad;
use crate::model::enums::ResponseTypeName;
use crate::repo;
use crate::repo::reference::Kind;
use crate::state::AppState;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// What a VAST URL export targets (the path segment of `/v3/ads/{id}/vasturl/{target}/{id}`).
    VastTarget { Category = "category", ContentPartner = "content-partner" }
}

impl VastTarget {
    /// The ad request's query parameter that carries the target.
    pub fn param(self) -> &'static str {
        match self {
            VastTarget::Category => "category",
            VastTarget::ContentPartner => "contentPartner",
        }
    }
}

/// The token the caller replaces with a random number (cache busting).
pub const RANDOM_TOKEN: &str = "[RANDOM_NUMBER]";

/// Everything but RFC 3986's unreserved characters is encoded.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, QUERY_VALUE).to_string()
}

/// The ad request URL for this ad: account, ad, the targeted category or content partner,
/// format, the response type, and the random-number token.
pub fn build_vast_url(base: &str, account: &AccountId, ad: &Ad, target: (VastTarget, &str), rt: ResponseTypeName) -> String {
    format!(
        "{base}/v1/adrequest?account={}&ad={}&{}={}&format={}&rt={}&rnd={RANDOM_TOKEN}",
        encode(account),
        encode(&ad.id),
        target.0.param(),
        encode(target.1),
        encode(ad.creative.format().as_str()),
        rt.as_str().to_ascii_lowercase()
    )
}

/// What the export answers: the ad's format and its URL.
pub struct Exported {
    pub format: &'static str,
    pub url: String,
}

/// The URL of the account's live ad `ad_id` for target `id` (which must be the account's).
pub async fn export(
    st: &AppState,
    account: &AccountId,
    ad_id: &str,
    target: VastTarget,
    id: &str,
    rt: ResponseTypeName,
) -> UseCaseResult<Exported> {
    let ad = repo::ads::load_live(st.store.as_ref(), account, ad_id).await?.0.value;
    let (kind, what) = match target {
        VastTarget::Category => (Kind::Category, "category"),
        VastTarget::ContentPartner => (Kind::ContentPartner, "content partner"),
    };
    if !repo::reference::exists(st.store.as_ref(), account, kind, id).await? {
        return Err(UseCaseError::not_found(what, id));
    }
    let url = build_vast_url(&st.settings.ad_request_base_url, account, &ad, (target, id), rt);
    Ok(Exported { format: ad.creative.format().as_str(), url })
}
