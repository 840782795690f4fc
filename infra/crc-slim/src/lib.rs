//! The CRCs the AWS SDK's flexible checksums compute (`aws-smithy-checksums`: S3 puts and
//! the validation of S3 gets): CRC-32 (ISO-HDLC), CRC-32C (iSCSI) and CRC-64/NVME, with the
//! API subset it calls (`CrcAlgorithm`, `Digest::new/update/finalize`, `checksum`).
//!
//! All three are reflected CRCs with all-ones init and xor-out, so one table-driven engine
//! serves them: slice-by-8 over 8-byte words, a byte at a time for the rest. The tables are
//! built at compile time (16 KB per algorithm).

/// The algorithms of the AWS SDK's checksums.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CrcAlgorithm {
    /// CRC-32 as in zlib, Ethernet, S3's `CRC32`.
    Crc32IsoHdlc,
    /// CRC-32C (Castagnoli), S3's `CRC32C`.
    Crc32Iscsi,
    /// CRC-64/NVME, S3's `CRC64NVME`.
    Crc64Nvme,
}

/// Reflected polynomials.
const POLY_CRC32: u64 = 0xEDB8_8320;
const POLY_CRC32C: u64 = 0x82F6_3B78;
const POLY_CRC64_NVME: u64 = 0x9A6C_9329_AC4B_C9B5;

type Tables = [[u64; 256]; 8];

const fn tables(poly: u64) -> Tables {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u64;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ poly } else { c >> 1 };
            bit += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        k += 1;
    }
    t
}

static CRC32: Tables = tables(POLY_CRC32);
static CRC32C: Tables = tables(POLY_CRC32C);
static CRC64_NVME: Tables = tables(POLY_CRC64_NVME);

impl CrcAlgorithm {
    fn tables(self) -> &'static Tables {
        match self {
            CrcAlgorithm::Crc32IsoHdlc => &CRC32,
            CrcAlgorithm::Crc32Iscsi => &CRC32C,
            CrcAlgorithm::Crc64Nvme => &CRC64_NVME,
        }
    }

    /// All ones in the algorithm's width (its init and xor-out).
    fn ones(self) -> u64 {
        match self {
            CrcAlgorithm::Crc32IsoHdlc | CrcAlgorithm::Crc32Iscsi => 0xFFFF_FFFF,
            CrcAlgorithm::Crc64Nvme => u64::MAX,
        }
    }
}

fn update(t: &Tables, mut crc: u64, data: &[u8]) -> u64 {
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let v = u64::from_le_bytes(b) ^ crc;
        crc = t[7][(v & 0xff) as usize]
            ^ t[6][((v >> 8) & 0xff) as usize]
            ^ t[5][((v >> 16) & 0xff) as usize]
            ^ t[4][((v >> 24) & 0xff) as usize]
            ^ t[3][((v >> 32) & 0xff) as usize]
            ^ t[2][((v >> 40) & 0xff) as usize]
            ^ t[1][((v >> 48) & 0xff) as usize]
            ^ t[0][(v >> 56) as usize];
    }
    for &byte in words.remainder() {
        crc = t[0][((crc ^ u64::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

/// A running checksum.
#[derive(Debug, Clone)]
pub struct Digest {
    algorithm: CrcAlgorithm,
    state: u64,
}

impl Digest {
    pub fn new(algorithm: CrcAlgorithm) -> Digest {
        Digest { algorithm, state: algorithm.ones() }
    }

    pub fn update(&mut self, data: &[u8]) {
        self.state = update(self.algorithm.tables(), self.state, data);
    }

    /// The checksum of what was given so far (the digest can go on).
    pub fn finalize(&self) -> u64 {
        self.state ^ self.algorithm.ones()
    }

    pub fn reset(&mut self) {
        self.state = self.algorithm.ones();
    }
}

/// The checksum of `data`.
pub fn checksum(algorithm: CrcAlgorithm, data: &[u8]) -> u64 {
    let mut d = Digest::new(algorithm);
    d.update(data);
    d.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue's check values: the CRC of "123456789".
    #[test]
    fn check_values() {
        assert_eq!(checksum(CrcAlgorithm::Crc32IsoHdlc, b"123456789"), 0xCBF4_3926);
        assert_eq!(checksum(CrcAlgorithm::Crc32Iscsi, b"123456789"), 0xE306_9283);
        assert_eq!(checksum(CrcAlgorithm::Crc64Nvme, b"123456789"), 0xAE8B_1486_0A79_9888);
    }

    /// A byte at a time, the textbook way: what slice-by-8 must agree with.
    fn bitwise(poly: u64, ones: u64, data: &[u8]) -> u64 {
        let mut crc = ones;
        for &b in data {
            crc ^= u64::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ poly } else { crc >> 1 };
            }
        }
        crc ^ ones
    }

    #[test]
    fn slices_and_pieces_agree_with_the_bitwise_definition() {
        // A fixed pseudo-random buffer (xorshift), every length from 0 to 100, and in pieces.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let data: Vec<u8> = (0..1000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for (alg, poly) in
            [(CrcAlgorithm::Crc32IsoHdlc, POLY_CRC32), (CrcAlgorithm::Crc32Iscsi, POLY_CRC32C), (CrcAlgorithm::Crc64Nvme, POLY_CRC64_NVME)]
        {
            for n in 0..100 {
                assert_eq!(checksum(alg, &data[..n]), bitwise(poly, alg.ones(), &data[..n]), "{alg:?} over {n} bytes");
            }
            let mut d = Digest::new(alg);
            for piece in data.chunks(13) {
                d.update(piece);
            }
            assert_eq!(d.finalize(), bitwise(poly, alg.ones(), &data), "{alg:?} in pieces");
            d.reset();
            assert_eq!(d.finalize(), 0);
        }
    }

    /// The SDK's S3 checksums of "Hello world" (base64 of the big-endian bytes in its tests).
    #[test]
    fn the_sdk_s_values() {
        assert_eq!(checksum(CrcAlgorithm::Crc32IsoHdlc, b"Hello world") as u32, 0x8BD6_9E52);
        assert_eq!(checksum(CrcAlgorithm::Crc32Iscsi, b"Hello world") as u32, 0x72B5_1F78);
    }
}
