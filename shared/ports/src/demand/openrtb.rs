//! The OpenRTB 2.6 objects this service sends and reads (the video subset): a bid request
//! for one video impression, and the bid response. Fields this service does not use are
//! not read; absent optional fields are not sent.

use serde::{Deserialize, Serialize};

fn is_zero(v: &u8) -> bool {
    *v == 0
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BidRequest {
    pub id: String,
    pub imp: Vec<Imp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<Site>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app: Option<App>,
    pub device: Device,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<User>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regs: Option<Regs>,
    pub source: Source,
    pub tmax: u32,
    pub cur: Vec<String>,
    pub at: u8,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bcat: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub badv: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub test: u8,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Imp {
    pub id: String,
    pub video: Video,
    pub bidfloor: f64,
    pub bidfloorcur: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pmp: Option<Pmp>,
    /// 1: the creative must be served over https.
    pub secure: u8,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Video {
    pub mimes: Vec<String>,
    pub minduration: u32,
    pub maxduration: u32,
    /// 0 pre-roll, -1 mid-roll, -2 post-roll.
    pub startdelay: i32,
    /// VAST 2.0, 3.0, 4.0-4.2 and their wrappers (OpenRTB `protocols`).
    pub protocols: Vec<u8>,
    /// 1: instream.
    pub plcmt: u8,
    /// 1: linear.
    pub linearity: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipafter: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub w: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h: Option<u32>,
    /// Pod fields (2.6), for a break of more than one ad.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub podid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slotinpod: Option<i8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maxseq: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poddur: Option<u32>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Pmp {
    pub private_auction: u8,
    pub deals: Vec<DealOffer>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DealOffer {
    pub id: String,
    pub bidfloor: f64,
    pub bidfloorcur: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wseat: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<u8>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Publisher {
    pub id: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Producer {
    pub id: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Content {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cat: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<Producer>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Site {
    pub id: String,
    pub publisher: Publisher,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    pub content: Content,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct App {
    pub id: String,
    pub bundle: String,
    pub publisher: Publisher,
    pub content: Content,
}

#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Device {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ua: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ipv6: Option<String>,
    /// OpenRTB device type (AdCOM): 1 mobile/tablet, 2 PC, 3 connected TV, 4 phone, 5 tablet, 7 set-top box.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devicetype: Option<u8>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UserExt {
    pub consent: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct User {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ext: Option<UserExt>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Regs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gdpr: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpp: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gpp_sid: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub us_privacy: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SchainNode {
    pub asi: String,
    pub sid: String,
    pub hp: u8,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SupplyChain {
    pub complete: u8,
    pub ver: String,
    pub nodes: Vec<SchainNode>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Source {
    pub tid: String,
    pub schain: SupplyChain,
}

/// A bid response (what this service reads of it).
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
pub struct BidResponse {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub seatbid: Vec<SeatBid>,
    #[serde(default)]
    pub cur: Option<String>,
    #[serde(default)]
    pub bidid: Option<String>,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
pub struct SeatBid {
    #[serde(default)]
    pub bid: Vec<Bid>,
    #[serde(default)]
    pub seat: Option<String>,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
pub struct Bid {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub impid: String,
    #[serde(default)]
    pub price: f64,
    #[serde(default)]
    pub adm: Option<String>,
    #[serde(default)]
    pub nurl: Option<String>,
    #[serde(default)]
    pub burl: Option<String>,
    #[serde(default)]
    pub lurl: Option<String>,
    #[serde(default)]
    pub adomain: Vec<String>,
    #[serde(default)]
    pub cat: Vec<String>,
    #[serde(default)]
    pub crid: Option<String>,
    #[serde(default)]
    pub adid: Option<String>,
    #[serde(default)]
    pub dealid: Option<String>,
}
