//! The keys tracking links are signed with (docs/traffic-quality.md §2). Every link names
//! its key (`k=<id>`); the first key signs, every key verifies, so a secret rotates by
//! putting a new key first and removing the old one once its links have expired (24 h).
//! On AWS the keys live in Secrets Manager (`TRACKING_SECRETS_ARN`), read at cold start;
//! locally `TRACKING_SECRETS` (`id:secret,id:secret`), `TRACKING_SECRET` (one key, id `1`)
//! or a random key of the process.

use super::tracking::{SigningKey, Token};

/// Bounds of a key set: ids are short link parameters, secrets long enough to sign with.
pub const MAX_KEYS: usize = 8;
pub const MIN_SECRET_LEN: usize = 16;
pub const MAX_ID_LEN: usize = 16;

#[derive(Clone)]
pub struct TrackingKeys {
    /// Id and prepared key, the signing one first.
    keys: Vec<(String, SigningKey)>,
}

impl std::fmt::Debug for TrackingKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secrets.
        f.debug_struct("TrackingKeys").field("ids", &self.keys.iter().map(|(id, _)| id).collect::<Vec<_>>()).finish()
    }
}

#[derive(serde::Deserialize)]
struct KeyJson {
    id: String,
    secret: String,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum SecretJson {
    Many { keys: Vec<KeyJson> },
    One(KeyJson),
}

impl TrackingKeys {
    /// One key with id `1` (the `TRACKING_SECRET` form).
    pub fn single(secret: &str) -> TrackingKeys {
        TrackingKeys { keys: vec![("1".into(), SigningKey::new(secret.as_bytes()))] }
    }

    /// `id:secret,id:secret` (first signs), or the Secrets Manager JSON:
    /// `{"id":"k1","secret":"…"}` or `{"keys":[{"id":"k2","secret":"…"},{"id":"k1",…}]}`.
    pub fn parse(s: &str) -> Result<TrackingKeys, String> {
        let s = s.trim();
        let keys: Vec<(String, String)> = if s.starts_with('{') {
            match serde_json::from_str::<SecretJson>(s).map_err(|e| format!("tracking keys: not the expected JSON ({e})"))? {
                SecretJson::Many { keys } => keys.into_iter().map(|k| (k.id, k.secret)).collect(),
                SecretJson::One(k) => vec![(k.id, k.secret)],
            }
        } else {
            s.split(',')
                .map(|p| p.split_once(':').map(|(i, k)| (i.trim().to_string(), k.trim().to_string())))
                .collect::<Option<_>>()
                .ok_or("tracking keys: each key is id:secret, separated by commas")?
        };
        if keys.is_empty() || keys.len() > MAX_KEYS {
            return Err(format!("tracking keys: 1 to {MAX_KEYS} keys"));
        }
        for (id, secret) in &keys {
            if id.is_empty() || id.len() > MAX_ID_LEN || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
                return Err(format!("tracking keys: an id is 1 to {MAX_ID_LEN} letters, digits, '-' or '_' (got {id:?})"));
            }
            if secret.len() < MIN_SECRET_LEN {
                return Err(format!("tracking keys: key {id:?} is shorter than {MIN_SECRET_LEN} characters"));
            }
        }
        Ok(TrackingKeys { keys: keys.into_iter().map(|(i, k)| (i, SigningKey::new(k.as_bytes()))).collect() })
    }

    /// The key new links are signed with: its id and prepared key.
    pub fn signing(&self) -> (&str, &SigningKey) {
        let (id, k) = &self.keys[0];
        (id, k)
    }

    /// The key a signed URL names by `id`.
    pub fn by_id(&self, id: &str) -> Option<&SigningKey> {
        self.keys.iter().find(|(i, _)| i == id).map(|(_, k)| k)
    }

    /// Whether `sig` is the token's signature for `event` under the key the link names
    /// (links issued before key ids name none: every key is tried).
    pub fn verify(&self, token: &Token, event: &str, sig: &str) -> bool {
        match &token.key {
            Some(id) => self.keys.iter().find(|(i, _)| i == id).is_some_and(|(_, k)| token.verify(k, event, sig)),
            None => self.keys.iter().any(|(_, k)| token.verify(k, event, sig)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(key: Option<&str>) -> Token {
        Token {
            account: "acc".into(),
            campaign: "c".into(),
            goal: "g".into(),
            ad: "ad".into(),
            impression: "i".into(),
            viewer: None,
            issued: 1_800_000_000,
            delivered: "impression".into(),
            click: None,
            key: key.map(str::to_string),
            dims: None,
        }
    }

    #[test]
    fn rotation_keeps_old_links_verifying() {
        let old = TrackingKeys::parse("k1:0123456789abcdef0123").unwrap();
        let (id, key) = old.signing();
        let t = token(Some(id));
        let sig = t.sign(key, "impression");
        let rotated =
            TrackingKeys::parse(r#"{"keys":[{"id":"k2","secret":"fedcba9876543210fedc"},{"id":"k1","secret":"0123456789abcdef0123"}]}"#)
                .unwrap();
        assert_eq!(rotated.signing().0, "k2");
        assert!(rotated.verify(&t, "impression", &sig), "a link of the old key verifies after the rotation");
        let retired = TrackingKeys::parse("k2:fedcba9876543210fedc").unwrap();
        assert!(!retired.verify(&t, "impression", &sig), "and no more once the old key is removed");
        // A link naming another key than the one it was signed with fails.
        assert!(!rotated.verify(&token(Some("k2")), "impression", &sig));
        // Links without a key id (issued before ids) try every key.
        assert!(rotated.verify(&token(None), "impression", &sig));
    }

    #[test]
    fn bad_key_sets_are_refused() {
        assert!(TrackingKeys::parse("").is_err());
        assert!(TrackingKeys::parse("k1:short").unwrap_err().contains("shorter"));
        assert!(TrackingKeys::parse("k 1:0123456789abcdef0123").is_err());
        assert!(TrackingKeys::parse(r#"{"id":"k1","secret":"0123456789abcdef0123"}"#).is_ok());
        assert!(format!("{:?}", TrackingKeys::parse("k1:0123456789abcdef0123").unwrap()).contains("k1"));
        assert!(!format!("{:?}", TrackingKeys::parse("k1:0123456789abcdef0123").unwrap()).contains("0123456789"));
    }
}
