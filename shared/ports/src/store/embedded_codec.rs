//! The embedded store's record form (`store::embedded`): an item's header and body as the
//! bytes of one redb value, and back.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::super::{Item, StoreError, StoreResult};

/// The stored form: `0x01`, the header's length (u32 LE), the header (JSON, small), then
/// the body's bytes as they are — the body (itself JSON) is not escaped into the header, so
/// reading a record parses it once. Records of the first format (one JSON object starting
/// with `{`) are still read.
#[derive(Serialize, Deserialize)]
struct Stored {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    g1: Option<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    g2: Option<(String, String)>,
    v: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exp: Option<i64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    c: BTreeMap<String, i64>,
    /// Only in the first format.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    b: String,
}

pub(super) const FRAMED: u8 = 1;
const BINARY: u8 = 2;

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Binary layout (format 2): tag, version u64, expiry (flag + i64), two optional GSI key
/// pairs (flag + length-prefixed strings), counters (count, then name + i64 each), body.
pub(super) fn encode(item: &Item) -> StoreResult<Vec<u8>> {
    let mut out = Vec::with_capacity(64 + item.body.len());
    out.push(BINARY);
    out.extend_from_slice(&item.version.to_le_bytes());
    match item.expires_at {
        Some(e) => {
            out.push(1);
            out.extend_from_slice(&e.to_le_bytes());
        }
        None => out.push(0),
    }
    for g in [&item.gsi1, &item.gsi2] {
        match g {
            Some((a, b)) => {
                out.push(1);
                put_str(&mut out, a);
                put_str(&mut out, b);
            }
            None => out.push(0),
        }
    }
    out.extend_from_slice(&(item.counters.len() as u32).to_le_bytes());
    for (name, v) in &item.counters {
        put_str(&mut out, name);
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(item.body.as_bytes());
    Ok(out)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes)
    }
    fn i64(&mut self) -> Option<i64> {
        self.take(8).and_then(|b| b.try_into().ok()).map(i64::from_le_bytes)
    }
    fn string(&mut self) -> Option<String> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok().map(str::to_string)
    }
}

fn decode_binary(pk: &str, sk: &str, bytes: &[u8]) -> Option<Item> {
    let mut r = Reader(bytes.get(1..)?);
    let version = r.u64()?;
    let expires_at = if r.u8()? == 1 { Some(r.i64()?) } else { None };
    let mut gsis = [None, None];
    for g in gsis.iter_mut() {
        if r.u8()? == 1 {
            *g = Some((r.string()?, r.string()?));
        }
    }
    let n = r.u32()? as usize;
    let mut counters = BTreeMap::new();
    for _ in 0..n {
        let name = r.string()?;
        counters.insert(name, r.i64()?);
    }
    let body = std::str::from_utf8(r.0).ok()?.to_string();
    let [gsi1, gsi2] = gsis;
    Some(Item { pk: pk.into(), sk: sk.into(), gsi1, gsi2, version, expires_at, counters, body })
}

pub(super) fn decode(pk: &str, sk: &str, bytes: &[u8]) -> StoreResult<Item> {
    let corrupt = |e: String| StoreError::backend_msg(format!("corrupt item {pk}/{sk}: {e}"));
    if bytes.first() == Some(&BINARY) {
        return decode_binary(pk, sk, bytes).ok_or_else(|| corrupt("truncated record".into()));
    }
    let (s, body): (Stored, String) = match bytes.first() {
        Some(&FRAMED) if bytes.len() >= 5 => {
            let len = u32::from_le_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]) as usize;
            let header = bytes.get(5..5 + len).ok_or_else(|| corrupt("short header".into()))?;
            let s: Stored = serde_json::from_slice(header).map_err(|e| corrupt(e.to_string()))?;
            let body = std::str::from_utf8(&bytes[5 + len..]).map_err(|e| corrupt(e.to_string()))?.to_string();
            (s, body)
        }
        _ => {
            let mut s: Stored = serde_json::from_slice(bytes).map_err(|e| corrupt(e.to_string()))?;
            let body = std::mem::take(&mut s.b);
            (s, body)
        }
    };
    Ok(Item { pk: pk.into(), sk: sk.into(), gsi1: s.g1, gsi2: s.g2, version: s.v, expires_at: s.exp, counters: s.c, body })
}
