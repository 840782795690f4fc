//! A small OpenID provider for the tests (docs/single-sign-on.md, "Tests"), on a loopback
//! port: discovery, its keys (a P-256 key made at start), `authorize` (signs the configured
//! person in at once and sends the browser back with a code) and `token` (checks the code,
//! the PKCE verifier and the client secret, and answers an ES256 ID token).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use axum::extract::{Form, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use serde_json::json;

pub const CLIENT_ID: &str = "console-tests";
pub const CLIENT_SECRET: &str = "a client secret of the tests";
const KID: &str = "test-key-1";

/// Who the provider signs in, and with which groups.
#[derive(Debug, Clone)]
pub struct Person {
    pub email: String,
    pub name: String,
    pub groups: Vec<String>,
}

struct Grant {
    nonce: String,
    challenge: String,
    redirect_uri: String,
    person: Person,
}

struct Inner {
    issuer: String,
    pkcs8: Vec<u8>,
    jwk: serde_json::Value,
    person: Mutex<Person>,
    codes: Mutex<HashMap<String, Grant>>,
    /// A nonce to answer in place of the request's (a forged token).
    forged_nonce: Mutex<Option<String>>,
}

/// The provider, listening.
#[derive(Clone)]
pub struct Provider {
    pub issuer: String,
    inner: Arc<Inner>,
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

impl Provider {
    /// Starts a provider on a loopback port, signing in `person`.
    pub async fn start(person: Person) -> Provider {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("a key").as_ref().to_vec();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8).expect("the key");
        // The public key: 0x04, then x and y (32 bytes each).
        let public = pair.public_key().as_ref().to_vec();
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": b64(&public[1..33]), "y": b64(&public[33..65]), "kid": KID, "alg": "ES256", "use": "sig"});
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let issuer = format!("http://{}", listener.local_addr().expect("addr"));
        let inner = Arc::new(Inner {
            issuer: issuer.clone(),
            pkcs8,
            jwk,
            person: Mutex::new(person),
            codes: Mutex::new(HashMap::new()),
            forged_nonce: Mutex::new(None),
        });
        let app = Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/jwks", get(jwks))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(inner.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Provider { issuer, inner }
    }

    /// Signs in another person from now on.
    pub fn sign_in_as(&self, person: Person) {
        *self.inner.person.lock().unwrap() = person;
    }

    /// Answers ID tokens with this nonce from now on (`None`: the request's).
    pub fn forge_nonce(&self, nonce: Option<&str>) {
        *self.inner.forged_nonce.lock().unwrap() = nonce.map(str::to_string);
    }

    /// What the provider's `authorize` answers to `url` (the browser's visit): where it
    /// sends the browser back.
    pub async fn visit(&self, url: &str) -> String {
        let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
        let q: HashMap<String, String> = serde_urlencoded::from_str(query).expect("a query");
        match authorize_with(&self.inner, &q) {
            Ok(to) => to,
            Err(e) => panic!("the provider refused the sign-in: {e}"),
        }
    }
}

async fn discovery(State(p): State<Arc<Inner>>) -> Json<serde_json::Value> {
    Json(json!({
        "issuer": p.issuer,
        "authorization_endpoint": format!("{}/authorize", p.issuer),
        "token_endpoint": format!("{}/token", p.issuer),
        "jwks_uri": format!("{}/jwks", p.issuer),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES256"],
        "code_challenge_methods_supported": ["S256"],
    }))
}

async fn jwks(State(p): State<Arc<Inner>>) -> Json<serde_json::Value> {
    Json(json!({ "keys": [p.jwk] }))
}

fn authorize_with(p: &Inner, q: &HashMap<String, String>) -> Result<String, String> {
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    if get("client_id") != CLIENT_ID || get("response_type") != "code" || get("code_challenge_method") != "S256" {
        return Err(format!("a request not of the code flow with PKCE: {q:?}"));
    }
    let code = uuid::Uuid::new_v4().simple().to_string();
    let person = p.person.lock().unwrap().clone();
    let redirect_uri = get("redirect_uri");
    p.codes
        .lock()
        .unwrap()
        .insert(code.clone(), Grant { nonce: get("nonce"), challenge: get("code_challenge"), redirect_uri: redirect_uri.clone(), person });
    let state = percent_encoding::utf8_percent_encode(&get("state"), percent_encoding::NON_ALPHANUMERIC).to_string();
    Ok(format!("{redirect_uri}?code={code}&state={state}"))
}

async fn authorize(State(p): State<Arc<Inner>>, Query(q): Query<HashMap<String, String>>) -> Response {
    match authorize_with(&p, &q) {
        Ok(to) => (StatusCode::SEE_OTHER, [(header::LOCATION, to)]).into_response(),
        Err(e) => (StatusCode::BAD_REQUEST, e).into_response(),
    }
}

async fn token(State(p): State<Arc<Inner>>, Form(f): Form<HashMap<String, String>>) -> Response {
    use sha2::Digest;
    let get = |k: &str| f.get(k).cloned().unwrap_or_default();
    let refuse = |why: &str| (StatusCode::BAD_REQUEST, Json(json!({"error": "invalid_grant", "error_description": why}))).into_response();
    if get("grant_type") != "authorization_code" || get("client_id") != CLIENT_ID || get("client_secret") != CLIENT_SECRET {
        return refuse("client");
    }
    let Some(grant) = p.codes.lock().unwrap().remove(&get("code")) else { return refuse("code") };
    if grant.redirect_uri != get("redirect_uri") || b64(&sha2::Sha256::digest(get("code_verifier").as_bytes())) != grant.challenge {
        return refuse("redirect_uri or code_verifier");
    }
    let now = chrono::Utc::now().timestamp();
    let nonce = p.forged_nonce.lock().unwrap().clone().unwrap_or(grant.nonce);
    let claims = json!({
        "iss": p.issuer, "aud": CLIENT_ID, "sub": grant.person.email, "iat": now, "exp": now + 300,
        "email": grant.person.email, "email_verified": true, "name": grant.person.name, "groups": grant.person.groups, "nonce": nonce,
    });
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some(KID.to_string());
    let id_token = jsonwebtoken::encode(&header, &claims, &jsonwebtoken::EncodingKey::from_ec_der(&p.pkcs8)).expect("signed");
    Json(json!({"access_token": "unused", "token_type": "Bearer", "id_token": id_token, "expires_in": 300})).into_response()
}
