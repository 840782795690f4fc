//! The OpenRTB substitution macros of a bid's notice URLs (`nurl`, `burl`, `lurl`) and
//! its markup: replaced once, when the auction has cleared, with percent-safe values.

/// What the macros stand for.
pub struct Values<'a> {
    pub auction_id: &'a str,
    pub bid_id: &'a str,
    pub imp_id: &'a str,
    pub seat_id: &'a str,
    pub ad_id: &'a str,
    pub currency: &'a str,
    /// The clearing price in micros (a decimal CPM in the URL); `None` for a loser.
    pub price_micros: Option<i64>,
    /// The OpenRTB 2.6 loss reason (`lurl`; 0 for the winner).
    pub loss: u16,
}

/// A CPM in micros as the decimal `${AUCTION_PRICE}` is (`4.01`, `12`, `0.000001`).
pub fn price(micros: i64) -> String {
    let whole = micros / 1_000_000;
    let frac = (micros % 1_000_000).abs();
    if frac == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{}", format!("{frac:06}").trim_end_matches('0'))
    }
}

/// Keeps only characters safe in a URL's query (ids a bidder chose may hold anything).
fn safe(v: &str) -> String {
    v.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `url` with every macro replaced.
pub fn substitute(url: &str, v: &Values<'_>) -> String {
    let price = v.price_micros.map(price).unwrap_or_default();
    [
        ("${AUCTION_PRICE}", price),
        ("${AUCTION_ID}", safe(v.auction_id)),
        ("${AUCTION_BID_ID}", safe(v.bid_id)),
        ("${AUCTION_IMP_ID}", safe(v.imp_id)),
        ("${AUCTION_SEAT_ID}", safe(v.seat_id)),
        ("${AUCTION_AD_ID}", safe(v.ad_id)),
        ("${AUCTION_CURRENCY}", safe(v.currency)),
        ("${AUCTION_LOSS}", v.loss.to_string()),
        ("${AUCTION_MIN_TO_WIN}", String::new()),
    ]
    .iter()
    .fold(url.to_string(), |u, (m, val)| u.replace(m, val))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_are_replaced_with_safe_values() {
        let v = Values {
            auction_id: "a1",
            bid_id: "b 1",
            imp_id: "1",
            seat_id: "s&x",
            ad_id: "cr-9",
            currency: "USD",
            price_micros: Some(4_010_000),
            loss: 0,
        };
        let u = substitute("https://dsp.example/b?p=${AUCTION_PRICE}&a=${AUCTION_ID}&b=${AUCTION_BID_ID}&i=${AUCTION_IMP_ID}&s=${AUCTION_SEAT_ID}&ad=${AUCTION_AD_ID}&c=${AUCTION_CURRENCY}&l=${AUCTION_LOSS}", &v);
        assert_eq!(u, "https://dsp.example/b?p=4.01&a=a1&b=b%201&i=1&s=s%26x&ad=cr-9&c=USD&l=0");
        assert_eq!((price(12_000_000), price(1), price(7_500_000)), ("12".to_string(), "0.000001".to_string(), "7.5".to_string()));
    }
}
