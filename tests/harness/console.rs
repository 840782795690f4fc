//! The console as a browser uses it: the sign-in page's token cookie and field, the form
//! posted from the page's origin, and the session cookie it answers with.

use crate::{Res, TestApp};

/// The host and origin the harness's browser requests come from.
pub const CONSOLE_HOST: &str = "console.test";
pub const CONSOLE_ORIGIN: &str = "http://console.test";

/// A `Set-Cookie` value of the answer.
pub fn set_cookie(r: &Res, name: &str) -> Option<String> {
    r.headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| c.strip_prefix(&format!("{name}=")))
        .map(|c| c.split(';').next().unwrap_or("").to_string())
}

/// The `csrf` field of a page's form.
pub fn csrf_of(body: &str) -> String {
    let field = "name=\"csrf\" value=\"";
    let at = body.find(field).map_or(body.len(), |i| i + field.len());
    body[at..].chars().take_while(|c| *c != '"').collect()
}

/// A form body, each value percent-encoded.
pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encoding::utf8_percent_encode(v, percent_encoding::NON_ALPHANUMERIC)))
        .collect::<Vec<_>>()
        .join("&")
}

impl TestApp {
    /// Opens the sign-in page and posts its form as a browser would: (the answer, the
    /// session cookie's value when it started one).
    pub async fn console_sign_in(&self, email: &str, password: &str) -> (Res, Option<String>) {
        let page = self.send_with_headers("GET", "/console/sign-in", None, None, "", &[("host", CONSOLE_HOST)]).await;
        let cookie = set_cookie(&page, "o_csrf").unwrap_or_default();
        let body = form(&[("email", email), ("password", password), ("csrf", &csrf_of(&page.body))]);
        let cookies = format!("o_csrf={cookie}");
        let headers = [("host", CONSOLE_HOST), ("origin", CONSOLE_ORIGIN), ("cookie", cookies.as_str())];
        let r = self.send_with_headers("POST", "/console/sign-in", None, Some("application/x-www-form-urlencoded"), &body, &headers).await;
        let session = set_cookie(&r, "o_session");
        (r, session)
    }
}
