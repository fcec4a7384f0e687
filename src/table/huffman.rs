//! Canonical, length-limited Huffman codes and the little-endian bit streams they are written to.
//!
//! A code is stored as one length per symbol (0: unused). Codes are assigned canonically
//! (shorter first, then by symbol) and written least significant bit first, so a reader
//! decodes a symbol with one lookup of [`MAX_CODE_BITS`] peeked bits.

/// Longest code; decoding tables have `1 << MAX_CODE_BITS` entries. Nine bits keep both of a
/// section's tables in 2 KiB, so random probes across many tables find them in the L1 cache;
/// over every 5-men WDL section it costs 1% against 11-bit codes.
pub const MAX_CODE_BITS: u32 = 9;

/// Code lengths (at most `max_bits`) of an optimal-or-nearly prefix code for `freqs`.
/// Symbols with frequency 0 get length 0; a single used symbol gets length 1.
pub fn code_lengths(freqs: &[u64], max_bits: u32) -> Vec<u8> {
    let mut freqs: Vec<u64> = freqs.to_vec();
    loop {
        let lengths = unlimited_lengths(&freqs);
        if lengths.iter().all(|&l| u32::from(l) <= max_bits) {
            return lengths;
        }
        // Flatten the distribution until the longest code fits.
        for f in freqs.iter_mut().filter(|f| **f > 0) {
            *f = (*f >> 1) + 1;
        }
    }
}

/// Huffman code lengths without a limit.
fn unlimited_lengths(freqs: &[u64]) -> Vec<u8> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut lengths = vec![0u8; freqs.len()];
    let used: Vec<usize> = (0..freqs.len()).filter(|&s| freqs[s] > 0).collect();
    match used.len() {
        0 => return lengths,
        1 => {
            lengths[used[0]] = 1;
            return lengths;
        }
        _ => {}
    }
    // Nodes: leaves 0..n, then internal nodes; parent links give the depths.
    let mut parent: Vec<usize> = vec![usize::MAX; used.len()];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = used
        .iter()
        .enumerate()
        .map(|(node, &s)| Reverse((freqs[s], node)))
        .collect();
    while heap.len() > 1 {
        let Reverse((fa, a)) = heap.pop().expect("two nodes");
        let Reverse((fb, b)) = heap.pop().expect("two nodes");
        let node = parent.len();
        parent.push(usize::MAX);
        parent[a] = node;
        parent[b] = node;
        heap.push(Reverse((fa + fb, node)));
    }
    for (leaf, &s) in used.iter().enumerate() {
        let (mut depth, mut n) = (0u8, leaf);
        while parent[n] != usize::MAX {
            n = parent[n];
            depth = depth.saturating_add(1);
        }
        lengths[s] = depth;
    }
    lengths
}

/// Canonical codes (most significant bit first) for `lengths`; `None` if the lengths do not
/// form a prefix code (oversubscribed or longer than [`MAX_CODE_BITS`]).
fn canonical_codes(lengths: &[u8]) -> Option<Vec<u32>> {
    let mut count = [0u32; MAX_CODE_BITS as usize + 1];
    for &l in lengths {
        if u32::from(l) > MAX_CODE_BITS {
            return None;
        }
        count[l as usize] += 1;
    }
    count[0] = 0;
    let mut next = [0u32; MAX_CODE_BITS as usize + 2];
    let mut code = 0u32;
    for bits in 1..=MAX_CODE_BITS as usize {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
        if code + count[bits] > 1 << bits {
            return None;
        }
    }
    Some(
        lengths
            .iter()
            .map(|&l| {
                if l == 0 {
                    0
                } else {
                    let c = next[l as usize];
                    next[l as usize] += 1;
                    c
                }
            })
            .collect(),
    )
}

/// `code`'s lowest `bits` bits in reverse order.
fn reverse(code: u32, bits: u8) -> u32 {
    code.reverse_bits() >> (32 - u32::from(bits))
}

/// Writes symbols of one code.
pub struct Encoder {
    /// Per symbol: bit-reversed code and its length.
    codes: Vec<(u32, u8)>,
}

impl Encoder {
    /// The encoder for `lengths` (which [`code_lengths`] made; panics on an invalid code).
    pub fn new(lengths: &[u8]) -> Encoder {
        let codes = canonical_codes(lengths).expect("a valid code");
        Encoder {
            codes: codes
                .iter()
                .zip(lengths)
                .map(|(&c, &l)| (if l == 0 { 0 } else { reverse(c, l) }, l))
                .collect(),
        }
    }

    /// Length of `symbol`'s code (0: it has none).
    pub fn bits(&self, symbol: usize) -> u32 {
        u32::from(self.codes[symbol].1)
    }

    /// Writes `symbol`, which must have a code.
    pub fn put(&self, out: &mut BitWriter, symbol: usize) {
        let (code, len) = self.codes[symbol];
        assert!(len > 0, "symbol {symbol} has no code");
        out.put(u64::from(code), u32::from(len));
    }
}

/// Reads symbols of one code with a single table lookup each.
#[derive(Clone)]
pub struct Decoder {
    /// Indexed by the next [`MAX_CODE_BITS`] bits: symbol << 4 | length (length 0: no code);
    /// two bytes an entry keep a table in a few KiB of cache.
    table: Vec<u16>,
}

impl Decoder {
    /// The decoder for `lengths`; `None` if they are not a prefix code.
    pub fn new(lengths: &[u8]) -> Option<Decoder> {
        let codes = canonical_codes(lengths)?;
        if lengths.len() > 1 << 12 {
            return None;
        }
        let mut table = vec![0u16; 1 << MAX_CODE_BITS];
        for (symbol, (&code, &len)) in codes.iter().zip(lengths).enumerate() {
            if len == 0 {
                continue;
            }
            let first = reverse(code, len) as usize;
            let entry = ((symbol as u16) << 4) | u16::from(len);
            for slot in table.iter_mut().skip(first).step_by(1 << len) {
                *slot = entry;
            }
        }
        Some(Decoder { table })
    }

    /// The next symbol, or `None` if the bits are no code (the table decoder reads the
    /// entries instead, see `lzh`).
    #[cfg(test)]
    pub fn get(&self, input: &mut BitReader) -> Option<usize> {
        let entry = self.table[(input.window() & ((1 << MAX_CODE_BITS) - 1)) as usize];
        let len = u32::from(entry & 0xF);
        if len == 0 {
            return None;
        }
        input.consume(len);
        Some(usize::from(entry >> 4))
    }

    /// The symbol and code length (0: no symbol has this code) of every [`MAX_CODE_BITS`]-bit
    /// window, indexed by the window as [`BitReader::window`] shows it.
    pub fn entries(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.table
            .iter()
            .map(|&e| (usize::from(e >> 4), u32::from(e & 0xF)))
    }
}

/// Collects bits least significant first.
#[derive(Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    count: u32,
}

impl BitWriter {
    /// Appends the low `bits` bits of `value` (`bits` <= 32).
    pub fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits <= 32 && value < (1 << bits));
        self.acc |= value << self.count;
        self.count += bits;
        while self.count >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.count -= 8;
        }
    }

    /// The bytes written, the last one padded with zero bits.
    pub fn finish(mut self) -> Vec<u8> {
        if self.count > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

/// Reads bits least significant first; reading past the end yields zero bits and is reported
/// by [`BitReader::overrun`].
pub struct BitReader<'a> {
    bytes: &'a [u8],
    /// Next byte to load into `acc`.
    next: usize,
    acc: u64,
    count: u32,
    /// Zero bits loaded past the end.
    padding: u32,
}

impl<'a> BitReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> BitReader<'a> {
        let mut r = BitReader {
            bytes,
            next: 0,
            acc: 0,
            count: 0,
            padding: 0,
        };
        r.refill();
        r
    }

    #[inline]
    fn refill(&mut self) {
        if self.next + 8 <= self.bytes.len() {
            let word = u64::from_le_bytes(
                self.bytes[self.next..self.next + 8]
                    .try_into()
                    .expect("8 bytes"),
            );
            self.acc |= word << self.count;
            let taken = (63 - self.count) / 8;
            self.next += taken as usize;
            self.count += taken * 8;
        } else {
            while self.count <= 56 {
                let byte = match self.bytes.get(self.next) {
                    Some(&b) => b,
                    None => {
                        self.padding += 8;
                        0
                    }
                };
                self.acc |= u64::from(byte) << self.count;
                self.next += 1;
                self.count += 8;
            }
        }
    }

    /// Reads `bits` bits (<= 32).
    #[cfg(test)]
    pub fn get(&mut self, bits: u32) -> u64 {
        let v = self.window() & ((1u64 << bits) - 1);
        self.consume(bits);
        v
    }

    /// The next [`BitReader::WINDOW_BITS`] or more bits, least significant first (zeros past
    /// the end), without consuming them.
    #[inline(always)]
    pub fn window(&mut self) -> u64 {
        if self.count < Self::WINDOW_BITS {
            self.refill();
        }
        self.acc
    }

    /// Bits [`BitReader::window`] always shows.
    pub(crate) const WINDOW_BITS: u32 = 56;

    /// Consumes `bits` (at most [`BitReader::WINDOW_BITS`]) after a [`BitReader::window`].
    #[inline(always)]
    pub fn consume(&mut self, bits: u32) {
        debug_assert!(bits <= self.count);
        self.acc >>= bits;
        self.count -= bits;
    }

    /// Whether more bits were consumed than the input holds.
    pub fn overrun(&self) -> bool {
        self.padding > self.count
    }

    /// Whether everything but the last byte's padding was consumed.
    pub fn exhausted(&self) -> bool {
        let consumed = (8 * self.next) as u64 - u64::from(self.count);
        let total = 8 * self.bytes.len() as u64;
        consumed <= total && total - consumed < 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_respect_the_limit_and_form_a_prefix_code() {
        // Fibonacci frequencies make the deepest possible tree.
        let mut freqs = vec![1u64, 1];
        while freqs.len() < 30 {
            let n = freqs.len();
            freqs.push(freqs[n - 1] + freqs[n - 2]);
        }
        let unlimited = unlimited_lengths(&freqs);
        assert!(unlimited.iter().any(|&l| u32::from(l) > MAX_CODE_BITS));
        let lengths = code_lengths(&freqs, MAX_CODE_BITS);
        assert!(
            lengths
                .iter()
                .all(|&l| (1..=MAX_CODE_BITS as u8).contains(&l))
        );
        let kraft: f64 = lengths.iter().map(|&l| 0.5f64.powi(i32::from(l))).sum();
        assert!(kraft <= 1.0 + 1e-12);
    }

    #[test]
    fn symbols_and_raw_bits_round_trip() {
        let freqs = [50u64, 0, 3, 9, 1, 1, 0, 200];
        let lengths = code_lengths(&freqs, MAX_CODE_BITS);
        assert_eq!(lengths[1], 0);
        let enc = Encoder::new(&lengths);
        let dec = Decoder::new(&lengths).unwrap();
        let message: Vec<usize> = (0..1000).map(|i| [0, 2, 3, 4, 5, 7][i * 7 % 6]).collect();
        let mut w = BitWriter::default();
        for (i, &s) in message.iter().enumerate() {
            enc.put(&mut w, s);
            w.put(i as u64 % 32, 5);
        }
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes);
        for (i, &s) in message.iter().enumerate() {
            assert_eq!(dec.get(&mut r), Some(s));
            assert_eq!(r.get(5), i as u64 % 32);
        }
        assert!(!r.overrun());
        r.get(16);
        assert!(r.overrun());
    }

    #[test]
    fn a_single_symbol_still_takes_a_bit_and_bad_lengths_are_refused() {
        let lengths = code_lengths(&[0, 7, 0], MAX_CODE_BITS);
        assert_eq!(lengths, vec![0, 1, 0]);
        let dec = Decoder::new(&lengths).unwrap();
        let mut r = BitReader::new(&[0b10]);
        assert_eq!(dec.get(&mut r), Some(1));
        assert_eq!(dec.get(&mut r), None, "the unused half of the code space");
        assert!(Decoder::new(&[1, 1, 1]).is_none(), "oversubscribed");
        assert!(Decoder::new(&[12]).is_none(), "too long");
    }
}
