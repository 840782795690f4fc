//! ISO 4217 currency codes (the active ones), for prices a bidder and a marketplace agree on.

/// The active ISO 4217 alphabetic codes.
const CODES: &str = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG";

/// The currency when none is given.
pub const DEFAULT: &str = "USD";

/// The default currency, for `#[serde(default = "currency::default")]`.
pub fn default() -> String {
    DEFAULT.to_string()
}

/// Whether `code` is an active ISO 4217 code (three capital letters).
pub fn known(code: &str) -> bool {
    code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase()) && CODES.split(' ').any(|c| c == code)
}

#[cfg(test)]
mod tests {
    #[test]
    fn codes_are_iso_4217() {
        assert!(super::known("USD") && super::known("EUR") && super::known("JPY"));
        assert!(!super::known("usd") && !super::known("XXX") && !super::known("US") && !super::known("USDT"));
    }
}
