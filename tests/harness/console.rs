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

/// The `version` field of a page's edit form (the record's version it was read at).
pub fn version_of(body: &str) -> String {
    let field = "name=\"version\" value=\"";
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
        self.console_sign_in_from(email, password, None).await
    }

    /// The same from the address `from` (each request from another address otherwise).
    pub async fn console_sign_in_from(&self, email: &str, password: &str, from: Option<&str>) -> (Res, Option<String>) {
        let mut page_headers = vec![("host", CONSOLE_HOST)];
        page_headers.extend(from.map(|a| (crate::PEER, a)));
        let page = self.send_with_headers("GET", "/console/sign-in", None, None, "", &page_headers).await;
        let cookie = set_cookie(&page, "o_csrf").unwrap_or_default();
        let body = form(&[("email", email), ("password", password), ("csrf", &csrf_of(&page.body))]);
        let cookies = format!("o_csrf={cookie}");
        let mut headers = vec![("host", CONSOLE_HOST), ("origin", CONSOLE_ORIGIN), ("cookie", cookies.as_str())];
        headers.extend(from.map(|a| (crate::PEER, a)));
        let r = self.send_with_headers("POST", "/console/sign-in", None, Some("application/x-www-form-urlencoded"), &body, &headers).await;
        let session = set_cookie(&r, "o_session");
        (r, session)
    }
}

/// A signed-in browser: its session cookie and the token its pages' forms carry.
pub struct Browser<'a> {
    pub app: &'a TestApp,
    pub session: String,
    pub csrf: String,
}

impl<'a> Browser<'a> {
    /// Signs in as `email` (303 expected) and reads the forms' token off the home page.
    pub async fn sign_in(app: &'a TestApp, email: &str, password: &str) -> Browser<'a> {
        let (r, session) = app.console_sign_in(email, password).await;
        assert_eq!(r.status, 303, "signed in as {email}: {}", r.body);
        let mut b = Browser { app, session: session.expect("a session cookie"), csrf: String::new() };
        let home = b.get("/console/").await;
        home.expect(200);
        b.csrf = csrf_of(&home.body);
        b
    }

    fn cookie(&self) -> String {
        format!("o_session={}", self.session)
    }

    pub async fn get(&self, path: &str) -> Res {
        let cookie = self.cookie();
        self.app.send_with_headers("GET", path, None, None, "", &[("host", CONSOLE_HOST), ("cookie", &cookie)]).await
    }

    /// Posts a form from the console's own page (its origin, its token added to the
    /// action's query string and to the form, as the page's forms carry it).
    pub async fn post(&self, path: &str, pairs: &[(&str, &str)]) -> Res {
        let mut all = pairs.to_vec();
        all.push(("csrf", &self.csrf));
        let sep = if path.contains('?') { '&' } else { '?' };
        self.post_raw(&format!("{path}{sep}csrf={}", self.csrf), &form(&all), CONSOLE_ORIGIN).await
    }

    /// Posts a form body as is, from `origin`.
    pub async fn post_raw(&self, path: &str, body: &str, origin: &str) -> Res {
        let cookie = self.cookie();
        let headers = [("host", CONSOLE_HOST), ("origin", origin), ("cookie", cookie.as_str())];
        self.app.send_with_headers("POST", path, None, Some("application/x-www-form-urlencoded"), body, &headers).await
    }

    /// Posts a multipart form with one file (`file`: field, file name, bytes).
    /// The form's token goes in the action's query string, as the ad form's page puts it.
    pub async fn post_multipart(&self, path: &str, pairs: &[(&str, &str)], file: (&str, &str, &[u8])) -> Res {
        let boundary = "----console-test-boundary-7d1c2f7e";
        let mut body = Vec::new();
        for (k, v) in pairs {
            body.extend(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n").as_bytes());
        }
        let (field, name, bytes) = file;
        body.extend(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\nContent-Type: video/mp4\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend(bytes);
        body.extend(format!("\r\n--{boundary}--\r\n").as_bytes());
        let cookie = self.cookie();
        let headers = [("host", CONSOLE_HOST), ("origin", CONSOLE_ORIGIN), ("cookie", cookie.as_str())];
        let path = format!("{path}?csrf={}", self.csrf);
        self.app.send_bytes_with_headers("POST", &path, &format!("multipart/form-data; boundary={boundary}"), &body, &headers).await
    }
}

/// Where a 303 sends the browser.
pub fn location(r: &Res) -> String {
    assert_eq!(r.status, 303, "a redirect: {}", r.body);
    r.header("location").unwrap_or("").to_string()
}

/// A multipart ad form whose fields come in the order given, then a video of `chunks`
/// chunks of 64 KB streamed as they are pulled (counted in `pulled`).
pub fn ad_form(fields: &[(&str, &str)], chunks: usize, pulled: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> axum::body::Body {
    use std::sync::atomic::Ordering;
    const CHUNK: usize = 64 * 1024;
    let mut head = String::new();
    for (k, v) in fields {
        head.push_str(&format!("--XBOUNDARY\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"));
    }
    head.push_str(
        "--XBOUNDARY\r\nContent-Disposition: form-data; name=\"video\"; filename=\"spot.mp4\"\r\nContent-Type: video/mp4\r\n\r\n",
    );
    let parts = std::iter::once(axum::body::Bytes::from(head))
        .chain((0..chunks).map(move |_| {
            pulled.fetch_add(CHUNK, Ordering::Relaxed);
            axum::body::Bytes::from(vec![b'x'; CHUNK])
        }))
        .chain(std::iter::once(axum::body::Bytes::from_static(b"\r\n--XBOUNDARY--\r\n")));
    axum::body::Body::from_stream(futures_util::stream::iter(parts.map(Ok::<_, std::io::Error>)))
}
