//! The on-disk layout: magic, versions, the header and its sections (every version still
//! read), the one-byte DTM form, and the checks a header must pass before anything else is read.

use super::*;
use crate::value::{
    MAX_DISTANCE, Rule, STORED_DRAW, STORED_ILLEGAL, STORED_RULE_LOSS, STORED_RULE_WIN,
    rule_of_stored, stored_rule_loss, stored_rule_win,
};
use bincode::{Decode, Encode};
use serde::Serialize;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// First bytes of every table file.
pub const MAGIC: &[u8; 8] = b"CANJUTB\x1a";
/// Where the header's length (u32, little-endian) sits in a file, after [`MAGIC`].
pub(crate) const HEADER_LENGTH_AT: std::ops::Range<usize> = 8..12;
/// Where the header's checksum ([`header_checksum`], u64, little-endian) sits in a file.
pub(crate) const HEADER_CHECKSUM_AT: std::ops::Range<usize> = 12..20;
/// Where the header starts in a file.
pub(crate) const HEADER_START: usize = 20;

/// The checksum a file stores of its header's bytes.
pub(crate) fn header_checksum(head: &[u8]) -> u64 {
    xxh3_64(head)
}
/// Version of the file layout written; readers accept it and [`OLDEST_READABLE_VERSION`].
///
/// Format 8 has format 7's layout; what changed is the meaning of the rule set `asian`,
/// which from format 8 is the 棋例's rules against perpetual check and perpetual chase.
/// Before it, `asian` was the perpetual-check rule alone, so an older header's `asian` is
/// read as [`CHECK_RULES`] and such a file is never taken for today's `asian`.
///
/// Format 9 may store the distances of one side to move only ([`Header::dtm_side`]): the
/// other side's follow by a one-ply search over the stored side (`crate::probe`), and its WDL
/// codes tell results by the rule apart, as a table without distances does.
///
/// Format 10 writes the DTM section as [`Codec::ZstdBare`]: frames without the magic number,
/// dictionary id, content size and checksum each zstd frame carried (13 of their 18 bytes a
/// frame besides the data), checked by chunk sums as the WDL section is. A section of
/// format 9 ([`Codec::ZstdHalves`]) is still a valid format-10 section.
///
/// Format 11 folds the results by the perpetual-check rule into wins and losses in the WDL
/// codes of the side whose distances a search gives ([`RuleCodes::ButCheck`]): the search
/// tells them from mates (a win by mate has a move to a loss by mate, a win by the rule none;
/// a loss by mate has only moves to wins by mate), and the other rules' results, far fewer,
/// keep their codes. Every set up to 5 men: WDL sections 33.5 -> 28.8 MB.
///
/// Format 12 compresses the header ([`COMPRESSED_HEADER_VERSION`]): after the version, the
/// rest of format 11's header is one zstd frame. The block lists, the statistics' repeated
/// labels and the codes' lengths compress well: every set up to 5 men, headers 3.08 ->
/// 1.82 MB.
pub const FORMAT_VERSION: u32 = 12;
/// The first format that may hold [`Codec::ZstdBare`] sections.
pub const BARE_FRAMES_VERSION: u32 = 10;
/// The first format whose searched side's WDL codes fold the perpetual-check rule's results
/// into wins and losses ([`RuleCodes::ButCheck`]).
pub const FOLDED_CHECK_VERSION: u32 = 11;
/// The first format whose header, past its version, is one zstd frame ([`encode_header`]).
pub const COMPRESSED_HEADER_VERSION: u32 = 12;
/// The zstd level a header of up to [`HEADER_LARGE`] bytes is compressed at: headers are
/// small and written once.
const HEADER_ZSTD_LEVEL: i32 = 19;
/// The zstd level of a larger header (a set of 8 or more men: KRNKRAB's is 8 MB), whose
/// compressor then takes about 10 MiB instead of level 19's 81 MiB, beside a writer that
/// may be at its peak; the bytes differ little (every 5-men header at level 9: 3.5% more).
const HEADER_ZSTD_LEVEL_LARGE: i32 = 9;
/// Past this many bytes a header is compressed at [`HEADER_ZSTD_LEVEL_LARGE`].
const HEADER_LARGE: usize = 1 << 20;
/// Oldest layout still read (3: WDL in zstd frames, no dictionaries; 4: with dictionaries;
/// 5: WDL blocks of one stream and any size, payload right after the header; 6: the DTM
/// section always present, WDL codes 0 to 2; 7: DTM as halves, `--wdl-only`; 8: `asian` with the
/// chase rule).
pub const OLDEST_READABLE_VERSION: u32 = 3;
/// From format 6 the payload starts at a multiple of this many bytes from the file's start, so
/// every WDL block is one cache line of the memory map.
pub const PAYLOAD_ALIGN: usize = 64;
/// The rule-set name an `asian` table of format 7 or earlier is read under: the
/// perpetual-check rule alone, today's `check`.
pub const CHECK_RULES: &str = "check";
/// The first format whose `asian` includes the chase rule.
pub const CHASE_RULE_VERSION: u32 = 8;
/// The first format whose headers hold the WDL code lengths packed
/// ([`lzh::pack_code_lengths`]) and the DTM section's block offsets as the start and each
/// block's length (`lengths_of_offsets`), which take fewer bytes; a [`Header`] in memory
/// holds them unpacked.
pub const PACKED_CODES_VERSION: u32 = 9;

/// Offsets `[start, end of block 0, end of block 1, ...]` as `[start, length of block 0,
/// ...]`, as headers store them from [`PACKED_CODES_VERSION`].
pub(super) fn lengths_of_offsets(offsets: &[u64]) -> Vec<u64> {
    let first = offsets.first().copied().into_iter();
    first
        .chain(offsets.windows(2).map(|w| w[1].saturating_sub(w[0])))
        .collect()
}

/// The offsets `lengths_of_offsets` turned into lengths, or `None` if they overflow.
pub(super) fn offsets_of_lengths(lengths: &[u64]) -> Option<Vec<u64>> {
    let mut at = 0u64;
    lengths
        .iter()
        .map(|&l| {
            at = at.checked_add(l)?;
            Some(at)
        })
        .collect()
}
/// Version of the position <-> index scheme (crate::index).
pub const INDEX_VERSION: u32 = 1;
/// Positions per DTM block (2 KiB before compression when distances fit in a byte).
///
/// A probe that misses the cache decompresses one block, so the block size sets the probe
/// time: 32,768-position blocks took 49 us a probe on the ten largest 5-men tables for 0.519
/// bits a position over all 5-men sets; these take 7.5-10 us for 0.787 bits
/// (`cargo bench --bench probe`). (WDL blocks are cut at 64 bytes instead: see `lzh`.)
pub const DTM_BLOCK: u32 = 1 << 11;
/// File extension of table files.
pub const EXTENSION: &str = "ctb";
/// Largest header a reader accepts (a corrupted length must not make it allocate gigabytes).
pub(super) const MAX_HEADER: u32 = 64 << 20;
/// Win/draw/loss counts and the longest win for one side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq, Encode, Decode, Serialize)]
pub struct SideStats {
    /// Legal positions as a player counts them (both mirror images, like pieces unordered).
    pub positions: u64,
    /// Positions the side to move wins.
    pub win: u64,
    /// Drawn positions.
    pub draw: u64,
    /// Positions the side to move loses.
    pub loss: u64,
    /// Longest win in plies (0 if there is no win).
    pub longest_win: u16,
    /// One position with the longest win.
    pub longest_win_fen: Option<String>,
    /// Longest loss in plies.
    pub longest_loss: u16,
    /// One position with the longest loss.
    pub longest_loss_fen: Option<String>,
    /// Wins decided by the perpetual-check rule (included in `win`; draws under `plain`).
    pub rule_win: u64,
    /// Losses decided by the perpetual-check rule (included in `loss`).
    pub rule_loss: u64,
    /// One position won by the rule.
    pub rule_win_fen: Option<String>,
    /// One position lost by the rule.
    pub rule_loss_fen: Option<String>,
    /// The results by the rule per [`Rule`], in the order of [`Rule::ALL`] (their sums are
    /// `rule_win` and `rule_loss`).
    pub by_rule: [RuleStats; 3],
}

/// The results one repetition rule decided, for one side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq, Encode, Decode, Serialize)]
pub struct RuleStats {
    /// The rule's label ([`Rule::label`]).
    pub rule: String,
    /// Positions the side to move wins by it.
    pub win: u64,
    /// Positions the side to move loses by it.
    pub loss: u64,
    /// One position won by it.
    pub win_fen: Option<String>,
    /// One position lost by it.
    pub loss_fen: Option<String>,
}

impl RuleStats {
    /// No results by `rule`.
    pub fn none(rule: Rule) -> RuleStats {
        RuleStats {
            rule: rule.label().to_string(),
            ..RuleStats::default()
        }
    }
}

/// [`SideStats`] as formats 3 to 7 stored them: without the counts per rule.
#[derive(Decode)]
pub(super) struct SideStatsV7 {
    positions: u64,
    win: u64,
    draw: u64,
    loss: u64,
    longest_win: u16,
    longest_win_fen: Option<String>,
    longest_loss: u16,
    longest_loss_fen: Option<String>,
    rule_win: u64,
    rule_loss: u64,
    rule_win_fen: Option<String>,
    rule_loss_fen: Option<String>,
}

impl From<SideStatsV7> for SideStats {
    /// Before format 8 every result by the rule was the perpetual-check rule's.
    fn from(s: SideStatsV7) -> Self {
        let check = RuleStats {
            win: s.rule_win,
            loss: s.rule_loss,
            win_fen: s.rule_win_fen.clone(),
            loss_fen: s.rule_loss_fen.clone(),
            ..RuleStats::none(Rule::PerpetualCheck)
        };
        SideStats {
            positions: s.positions,
            win: s.win,
            draw: s.draw,
            loss: s.loss,
            longest_win: s.longest_win,
            longest_win_fen: s.longest_win_fen,
            longest_loss: s.longest_loss,
            longest_loss_fen: s.longest_loss_fen,
            rule_win: s.rule_win,
            rule_loss: s.rule_loss,
            rule_win_fen: s.rule_win_fen,
            rule_loss_fen: s.rule_loss_fen,
            by_rule: [
                check,
                RuleStats::none(Rule::PerpetualChase),
                RuleStats::none(Rule::Mixed),
            ],
        }
    }
}

/// Where one section's blocks lie.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct Section {
    /// Positions per block.
    pub block_values: u32,
    /// Bytes per value before packing: 0 for 2-bit WDL, 1 or 2 for DTM.
    pub value_bytes: u8,
    /// Offsets of the blocks from the start of the payload, red to move first, then black;
    /// one more entry than blocks (the end).
    pub offsets: Vec<u64>,
    /// xxh3-64 of the section's bytes.
    pub checksum: u64,
    /// zstd dictionary every block of the section was compressed with (empty: none).
    pub dictionary: Vec<u8>,
    /// How the blocks are compressed.
    pub codec: Codec,
    /// [`Codec::Lzh`]: the section's Huffman code lengths (empty otherwise).
    pub codes: Vec<u8>,
    /// [`Codec::Lzh`]: values held by each block, red to move first (blocks end where a side
    /// ends); `offsets` then holds only the section's start and end.
    pub block_counts: Vec<u32>,
    /// [`Codec::Lzh`] in format 5: bytes of each block (blocks of one stream, any size).
    pub block_sizes: Vec<u32>,
    /// [`Codec::Lzh`] from format 6: bytes of the first stream of each block (blocks of
    /// [`lzh::BLOCK_BYTES`] holding two streams; see [`lzh::Layout::Paired`]).
    pub block_splits: Vec<u8>,
    /// [`Codec::Lzh`] and [`Codec::ZstdBare`]: xxh3-64 of each [`CHECK_CHUNK`] bytes of the
    /// section (the last may be shorter), checked the first time a probe reads from the chunk.
    pub chunk_sums: Vec<u64>,
}

/// Bytes of a [`Codec::Lzh`] or [`Codec::ZstdBare`] section covered by one checksum.
pub const CHECK_CHUNK: usize = 16 << 10;

/// Block compression of a section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Encode, Decode)]
pub enum Codec {
    /// Each block a zstd frame with its content checksum (DTM distances up to format 6; WDL
    /// before format 5, 2-bit values four to a byte).
    Zstd,
    /// Each block LZ77 tokens with codes shared by the section (WDL from format 5, one value
    /// per slot; from format 6 in blocks of one cache line holding two streams); see `lzh`.
    Lzh,
    /// DTM from format 7: zstd frames of *halves*, the distance relative to what the WDL
    /// section already says (`half_of`): a win in `n` plies is stored as `(n + 1) / 2`, a
    /// loss in `n` as `n / 2`, a result by the rule as `rule_half`; draws and slots without
    /// a legal position repeat the value before them, as they need none.
    ZstdHalves,
    /// DTM from format 10: [`Codec::ZstdHalves`]'s halves in zstd frames of the magicless
    /// format, without dictionary id, content size or checksum (the reader knows the
    /// dictionary and each block's length); the section's chunk sums check the bytes instead.
    ZstdBare,
}

impl Codec {
    /// True if the blocks hold halves ([`Codec::ZstdHalves`], [`Codec::ZstdBare`]).
    pub fn holds_halves(self) -> bool {
        matches!(self, Codec::ZstdHalves | Codec::ZstdBare)
    }

    /// True if each block is a zstd frame.
    pub fn is_zstd(self) -> bool {
        self != Codec::Lzh
    }
}

/// A section as version 4 stored it (always zstd).
#[derive(Decode)]
pub(super) struct SectionV4 {
    block_values: u32,
    value_bytes: u8,
    offsets: Vec<u64>,
    checksum: u64,
    dictionary: Vec<u8>,
}

impl From<SectionV4> for Section {
    fn from(s: SectionV4) -> Self {
        SectionV5 {
            block_values: s.block_values,
            value_bytes: s.value_bytes,
            offsets: s.offsets,
            checksum: s.checksum,
            dictionary: s.dictionary,
            codec: Codec::Zstd,
            codes: vec![],
            block_counts: vec![],
            block_sizes: vec![],
            chunk_sums: vec![],
        }
        .into()
    }
}

/// A section as version 5 stored it (WDL blocks of one stream, any size).
#[derive(Decode)]
pub(super) struct SectionV5 {
    block_values: u32,
    value_bytes: u8,
    offsets: Vec<u64>,
    checksum: u64,
    dictionary: Vec<u8>,
    codec: Codec,
    codes: Vec<u8>,
    block_counts: Vec<u32>,
    block_sizes: Vec<u32>,
    chunk_sums: Vec<u64>,
}

impl From<SectionV5> for Section {
    fn from(s: SectionV5) -> Self {
        Section {
            block_values: s.block_values,
            value_bytes: s.value_bytes,
            offsets: s.offsets,
            checksum: s.checksum,
            dictionary: s.dictionary,
            codec: s.codec,
            codes: s.codes,
            block_counts: s.block_counts,
            block_sizes: s.block_sizes,
            block_splits: vec![],
            chunk_sums: s.chunk_sums,
        }
    }
}

/// A section as version 3 stored it (version 4 without a dictionary).
#[derive(Decode)]
pub(super) struct SectionV3 {
    block_values: u32,
    value_bytes: u8,
    offsets: Vec<u64>,
    checksum: u64,
}

impl From<SectionV3> for Section {
    fn from(s: SectionV3) -> Self {
        SectionV4 {
            block_values: s.block_values,
            value_bytes: s.value_bytes,
            offsets: s.offsets,
            checksum: s.checksum,
            dictionary: vec![],
        }
        .into()
    }
}

/// A header as versions 3 to 6 stored it: today's fields, with sections of layout `S` and a
/// DTM section always present.
#[derive(Decode)]
pub(super) struct OldHeader<S> {
    format_version: u32,
    rules: String,
    material: String,
    index_version: u32,
    slots: u64,
    wdl: S,
    dtm: S,
    stats: [SideStatsV7; 2],
}

impl<S: Into<Section>> From<OldHeader<S>> for Header {
    fn from(h: OldHeader<S>) -> Self {
        Header {
            format_version: h.format_version,
            rules: h.rules,
            material: h.material,
            index_version: h.index_version,
            slots: h.slots,
            wdl: h.wdl.into(),
            dtm: Some(h.dtm.into()),
            dtm_side: None,
            stats: h.stats.map(SideStats::from),
        }
    }
}

/// A header as versions 7 and 8 stored it: today's fields but the side whose distances are
/// stored (both sides' always), with statistics of layout `St` (7: [`SideStatsV7`], without
/// the counts per rule; 8: [`SideStats`]).
#[derive(Decode)]
pub(super) struct HeaderV8<St> {
    format_version: u32,
    rules: String,
    material: String,
    index_version: u32,
    slots: u64,
    wdl: Section,
    dtm: Option<Section>,
    stats: [St; 2],
}

impl<St: Into<SideStats>> From<HeaderV8<St>> for Header {
    fn from(h: HeaderV8<St>) -> Self {
        Header {
            format_version: h.format_version,
            rules: h.rules,
            material: h.material,
            index_version: h.index_version,
            slots: h.slots,
            wdl: h.wdl,
            dtm: h.dtm,
            dtm_side: None,
            stats: h.stats.map(Into::into),
        }
    }
}

/// Everything a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct Header {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Rule set name (`plain`).
    pub rules: String,
    /// Material in the canonical colouring the table is stored in (ASCII name).
    pub material: String,
    /// [`INDEX_VERSION`] of the writer.
    pub index_version: u32,
    /// Slots per side to move.
    pub slots: u64,
    /// Win/draw/loss section.
    pub wdl: Section,
    /// Distance-to-mate section; `None` for a table generated with `--wdl-only`, whose WDL
    /// section then also tells results by the rule apart ([`WDL_RULE_LOSS`],
    /// [`WDL_RULE_WIN`]).
    pub dtm: Option<Section>,
    /// The one side to move (0 red, 1 black) whose distances the DTM section holds, or
    /// `None` if it holds both (always before format 9). The other side's distances follow
    /// from the stored side's by a one-ply search, and its WDL codes tell results by the rule
    /// apart ([`WDL_RULE_LOSS`], [`WDL_RULE_WIN`]).
    pub dtm_side: Option<u8>,
    /// Statistics per side to move (red, black).
    pub stats: [SideStats; 2],
}

impl Header {
    /// True if the table stores distances to mate (it was not generated with `--wdl-only`).
    pub fn holds_distances(&self) -> bool {
        self.dtm.is_some()
    }

    /// True if the DTM section holds the distances of `side` (0 red, 1 black) to move.
    pub fn stores_distances_of(&self, side: usize) -> bool {
        self.holds_distances() && self.dtm_side.is_none_or(|s| usize::from(s) == side)
    }

    /// Which results by a repetition rule `side`'s WDL codes tell apart from wins and
    /// losses by mate.
    pub fn rule_codes_of(&self, side: usize) -> RuleCodes {
        if !self.holds_distances() {
            RuleCodes::Every
        } else if self.stores_distances_of(side) {
            RuleCodes::None
        } else if self.format_version >= FOLDED_CHECK_VERSION {
            RuleCodes::ButCheck
        } else {
            RuleCodes::Every
        }
    }

    /// Sides to move the DTM section holds blocks for (0 without one).
    pub fn dtm_sides(&self) -> u64 {
        match (&self.dtm, self.dtm_side) {
            (None, _) => 0,
            (Some(_), Some(_)) => 1,
            (Some(_), None) => 2,
        }
    }

    /// Where the stored sections end in the payload.
    fn stored_end(&self) -> u64 {
        let last = self.dtm.as_ref().unwrap_or(&self.wdl);
        last.offsets.last().copied().unwrap_or(0)
    }
}

/// WDL code of a loss (a loss by the rule too, in a table with distances).
pub const WDL_LOSS: u8 = 0;
/// WDL code of a draw.
pub const WDL_DRAW: u8 = 1;
/// WDL code of a win (a win by the rule too, in a table with distances).
pub const WDL_WIN: u8 = 2;
/// WDL code of a loss by the perpetual-check rule, in a table without distances; the other
/// rules' losses are 5 and 7 ([`wdl_rule_code`]).
pub const WDL_RULE_LOSS: u8 = 3;
/// WDL code of a win by the perpetual-check rule, in a table without distances; the other
/// rules' wins are 6 and 8.
pub const WDL_RULE_WIN: u8 = 4;
/// The largest WDL code.
pub const WDL_LARGEST_CODE: u8 = 8;

/// The WDL code of a result by `rule` in a table without distances: 3 + 2 * rule + win.
pub const fn wdl_rule_code(win: bool, rule: Rule) -> u8 {
    WDL_RULE_LOSS + 2 * rule as u8 + win as u8
}

/// For a WDL code of a result by the rule (3 to 8), whether it is a win and by which rule.
pub fn rule_of_wdl_code(code: u8) -> Option<(bool, Rule)> {
    (WDL_RULE_LOSS..=WDL_LARGEST_CODE).contains(&code).then(|| {
        (
            (code - WDL_RULE_LOSS) % 2 == 1,
            Rule::ALL[usize::from(code - WDL_RULE_LOSS) / 2],
        )
    })
}

/// One-byte DTM form: distances below 0xFD as they are, then rule loss, rule win, draw.
#[inline]
pub(super) fn dtm_byte(v: u16) -> u8 {
    match v {
        STORED_DRAW => 0xFF,
        STORED_RULE_WIN => 0xFE,
        STORED_RULE_LOSS => 0xFD,
        n => n as u8,
    }
}

#[inline]
pub(super) fn dtm_from_byte(b: u8) -> u16 {
    match b {
        0xFF => STORED_DRAW,
        0xFE => STORED_RULE_WIN,
        0xFD => STORED_RULE_LOSS,
        n => n as u16,
    }
}

/// The half stored for a stored value in a [`Codec::ZstdHalves`] section of `value_bytes`
/// bytes a value; `None` for a draw or an unused slot, which need none. (Public for the
/// measurement aids in `examples/`.)
#[doc(hidden)]
#[inline]
pub fn half_of(v: u16, value_bytes: u8) -> Option<u16> {
    match v {
        STORED_DRAW | STORED_ILLEGAL => None,
        v if rule_of_stored(v).is_some() => {
            rule_of_stored(v).map(|(_, rule)| rule_half(value_bytes, rule))
        }
        n if n % 2 == 1 => Some(n.div_ceil(2)),
        n => Some(n / 2),
    }
}

/// The half that marks a result by `rule`: the largest value of the width for the
/// perpetual-check rule, one less for perpetual chase, two less for mixed attacks.
#[inline]
pub(super) fn rule_half(value_bytes: u8, rule: Rule) -> u16 {
    let top: u16 = if value_bytes == 1 { 0xFF } else { 0xFFFF };
    top - rule as u16
}

/// The largest half of a distance in a section of `value_bytes` bytes a value whose rule
/// marks are `rule_half`'s (format 8 on).
pub(super) const fn largest_distance_half(value_bytes: u8) -> u16 {
    if value_bytes == 1 { 0xFC } else { 0xFFFC }
}

/// The stored value of a slot whose half is `h` and whose WDL code is `code` (for a corrupted
/// half, the unused-slot marker, which every reader refuses). With `kinds` (format 8 on) the
/// three largest halves mark results by each [`Rule`]; before, only the largest, by the
/// perpetual-check rule.
#[inline]
pub(super) fn stored_of_half(h: u16, code: u8, value_bytes: u8, kinds: bool) -> u16 {
    let rules: &[Rule] = if kinds { &Rule::ALL } else { &Rule::ALL[..1] };
    let rule = rules.iter().find(|&&r| h == rule_half(value_bytes, r));
    match (code, rule) {
        (WDL_DRAW, _) => STORED_DRAW,
        (WDL_WIN, Some(&r)) => stored_rule_win(r),
        (WDL_LOSS, Some(&r)) => stored_rule_loss(r),
        (WDL_WIN, None) => distance_or_illegal((2 * u32::from(h)).checked_sub(1)),
        (WDL_LOSS, None) => distance_or_illegal(Some(2 * u32::from(h))),
        _ => STORED_ILLEGAL,
    }
}

/// `d` as a stored distance, or the unused-slot marker if it is none or too long.
#[inline]
fn distance_or_illegal(d: Option<u32>) -> u16 {
    d.filter(|&d| d <= u32::from(MAX_DISTANCE))
        .map_or(STORED_ILLEGAL, |d| d as u16)
}

/// True if section `s` is laid out for `slots` slots a side and `sides` sides to move.
pub(super) fn check_section(s: &Section, slots: u64, sides: u64) -> bool {
    if s.block_values == 0 || s.value_bytes > 2 || s.offsets.is_empty() {
        return false;
    }
    if s.codec == Codec::Lzh {
        return s.value_bytes == 0
            && s.dictionary.is_empty()
            && s.offsets.len() == 2
            && s.offsets[0] <= s.offsets[1]
            && s.chunk_sums.len()
                == ((s.offsets[1] - s.offsets[0]) as usize).div_ceil(CHECK_CHUNK)
            && lzh::BlockIndex::new(s, slots).is_some();
    }
    if !s.codes.is_empty()
        || !s.block_counts.is_empty()
        || !s.block_sizes.is_empty()
        || !s.block_splits.is_empty()
        || (s.codec != Codec::ZstdBare && !s.chunk_sums.is_empty())
    {
        return false;
    }
    if s.codec == Codec::ZstdBare
        && s.chunk_sums.len() as u64
            != (s.offsets.last().expect("not empty") - s.offsets[0]).div_ceil(CHECK_CHUNK as u64)
    {
        return false;
    }
    // Checked: a crafted header may claim any slot count.
    let Some(blocks) = slots.div_ceil(s.block_values as u64).checked_mul(sides) else {
        return false;
    };
    s.offsets.len() as u64 == blocks.saturating_add(1) && s.offsets.windows(2).all(|w| w[0] <= w[1])
}

/// Which results by a repetition rule one side's WDL codes tell apart from wins and losses
/// by mate ([`Header::rule_codes_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleCodes {
    /// None (codes 0 to 2): the side whose distances are stored, which say the rest.
    None,
    /// Every rule's (codes 3 to 8, [`wdl_rule_code`]): a table without distances, and
    /// before format 11 the side whose distances a search gives.
    Every,
    /// Every rule's but the perpetual-check rule's (codes 5 to 8), whose results are wins
    /// and losses (codes 0 and 2) told from mates by the search that gives the side's
    /// distances: that side from format 11 ([`FOLDED_CHECK_VERSION`]).
    ButCheck,
}

impl RuleCodes {
    /// True if the codes tell `rule`'s results apart from wins and losses by mate.
    pub fn tell(self, rule: Rule) -> bool {
        match self {
            RuleCodes::None => false,
            RuleCodes::Every => true,
            RuleCodes::ButCheck => rule != Rule::PerpetualCheck,
        }
    }

    /// The code `code` stands as under these codes, from a code of [`RuleCodes::Every`].
    pub fn recode(self, code: u8) -> u8 {
        match rule_of_wdl_code(code) {
            Some((win, rule)) if !self.tell(rule) => [WDL_LOSS, WDL_WIN][usize::from(win)],
            _ => code,
        }
    }
}

/// True if the sections' codecs are those format `version` writes: WDL in zstd frames before
/// format 5, [`Codec::Lzh`] from it; DTM distances in zstd frames before format 7, halves
/// ([`Codec::ZstdHalves`]) from it, bare frames of halves ([`Codec::ZstdBare`]) from format
/// 10 (which also keeps format 9's sections, as `repack` leaves them), or no DTM section
/// (format 7 on).
fn codecs_fit_version(header: &Header, version: u32) -> bool {
    let wdl = if version >= 5 {
        Codec::Lzh
    } else {
        Codec::Zstd
    };
    let dtm_fits = |codec| match codec {
        Codec::Zstd => version < 7,
        Codec::ZstdHalves => version >= 7,
        Codec::ZstdBare => version >= BARE_FRAMES_VERSION,
        Codec::Lzh => false,
    };
    header.wdl.codec == wdl
        && match &header.dtm {
            Some(section) => dtm_fits(section.codec),
            None => version >= 7,
        }
}

/// The bytes of `header` as a file of [`FORMAT_VERSION`] stores it (what follows the magic,
/// the length and the checksum): its version, then one zstd frame of the bincode of the
/// whole header ([`COMPRESSED_HEADER_VERSION`]), whose code lengths and DTM offsets are
/// packed ([`PACKED_CODES_VERSION`]).
pub fn encode_header(header: &Header) -> Vec<u8> {
    let whole = encode_header_uncompressed(header);
    if header.format_version < COMPRESSED_HEADER_VERSION {
        return whole;
    }
    let mut head = bincode::encode_to_vec(header.format_version, bincode::config::standard())
        .expect("a version encodes");
    let level = if whole.len() <= HEADER_LARGE {
        HEADER_ZSTD_LEVEL
    } else {
        HEADER_ZSTD_LEVEL_LARGE
    };
    head.extend(zstd::bulk::compress(&whole, level).expect("zstd compresses"));
    head
}

/// The bincode of `header` as formats [`PACKED_CODES_VERSION`] to 11 store it, with the code
/// lengths and DTM offsets packed.
fn encode_header_uncompressed(header: &Header) -> Vec<u8> {
    let on_disk = Header {
        wdl: Section {
            codes: lzh::pack_code_lengths(&header.wdl.codes),
            ..header.wdl.clone()
        },
        dtm: header.dtm.as_ref().map(|dtm| Section {
            offsets: lengths_of_offsets(&dtm.offsets),
            ..dtm.clone()
        }),
        ..header.clone()
    };
    bincode::encode_to_vec(&on_disk, bincode::config::standard()).expect("a header encodes")
}

/// The bincode of a header from its zstd frame ([`COMPRESSED_HEADER_VERSION`]), or `None` if
/// the frame is damaged, is followed by other bytes, or does not say a size up to
/// [`MAX_HEADER`] (a crafted size must not make the reader allocate gigabytes).
fn inflate_header(frame: &[u8]) -> Option<Vec<u8>> {
    use zstd::zstd_safe::{find_frame_compressed_size, get_frame_content_size};
    let size = get_frame_content_size(frame).ok()??;
    if size > u64::from(MAX_HEADER) || find_frame_compressed_size(frame).ok()? != frame.len() {
        return None;
    }
    let bytes = zstd::bulk::decompress(frame, size as usize).ok()?;
    (bytes.len() as u64 == size).then_some(bytes)
}

/// Reads and checks the header of a table held in `bytes`; returns it and the payload offset.
pub fn parse_header(path: &Path, bytes: &[u8]) -> Result<(Header, usize), TableError> {
    if bytes.len() >= 8 && &bytes[..8] != MAGIC {
        return Err(TableError::BadMagic(path.into()));
    }
    if bytes.len() < HEADER_START {
        return Err(TableError::Truncated(path.into()));
    }
    let len = u32::from_le_bytes(bytes[HEADER_LENGTH_AT].try_into().expect("4 bytes"));
    let sum = u64::from_le_bytes(bytes[HEADER_CHECKSUM_AT].try_into().expect("8 bytes"));
    if len > MAX_HEADER {
        return Err(TableError::CorruptHeader {
            path: path.into(),
            check: "its length is past the limit",
        });
    }
    let end = HEADER_START + len as usize;
    if bytes.len() < end {
        return Err(TableError::Truncated(path.into()));
    }
    let head = &bytes[HEADER_START..end];
    if header_checksum(head) != sum {
        return Err(TableError::CorruptHeader {
            path: path.into(),
            check: "checksum mismatch",
        });
    }
    let config = bincode::config::standard().with_limit::<{ 64 << 20 }>();
    let corrupt = |_| TableError::CorruptHeader {
        path: path.into(),
        check: "its version does not decode",
    };
    // The version comes first in every layout; it says how to read the rest.
    let (version, version_bytes): (u32, usize) =
        bincode::decode_from_slice(head, config).map_err(corrupt)?;
    // Only a version this reader knows is inflated: any other is refused below by its number.
    let inflated;
    let head = if version == COMPRESSED_HEADER_VERSION {
        inflated = inflate_header(&head[version_bytes..]).ok_or(TableError::CorruptHeader {
            path: path.into(),
            check: "its zstd frame does not decompress",
        })?;
        inflated.as_slice()
    } else {
        head
    };
    /// Decodes a header stored as `H`.
    fn decode<H: Decode<()> + Into<Header>>(head: &[u8]) -> Option<(Header, usize)> {
        let config = bincode::config::standard().with_limit::<{ 64 << 20 }>();
        let (h, used): (H, usize) = bincode::decode_from_slice(head, config).ok()?;
        Some((h.into(), used))
    }
    let decoded = match version {
        OLDEST_READABLE_VERSION => decode::<OldHeader<SectionV3>>(head),
        4 => decode::<OldHeader<SectionV4>>(head),
        5 => decode::<OldHeader<SectionV5>>(head),
        6 => decode::<OldHeader<Section>>(head),
        7 => decode::<HeaderV8<SideStatsV7>>(head),
        8 => decode::<HeaderV8<SideStats>>(head),
        PACKED_CODES_VERSION | BARE_FRAMES_VERSION | FOLDED_CHECK_VERSION => decode::<Header>(head),
        COMPRESSED_HEADER_VERSION => {
            decode::<Header>(head).filter(|(h, _)| h.format_version == COMPRESSED_HEADER_VERSION)
        }
        _ => {
            return Err(TableError::Version {
                path: path.into(),
                found: version,
                index: 0,
            });
        }
    };
    let (mut header, used) = decoded.ok_or_else(|| TableError::CorruptHeader {
        path: path.into(),
        check: "it does not decode",
    })?;
    if version >= PACKED_CODES_VERSION {
        if let Some(dtm) = header.dtm.as_mut() {
            dtm.offsets =
                offsets_of_lengths(&dtm.offsets).ok_or_else(|| TableError::CorruptHeader {
                    path: path.into(),
                    check: "the DTM section's block lengths",
                })?;
        }
        header.wdl.codes = lzh::unpack_code_lengths(&header.wdl.codes).ok_or_else(|| {
            TableError::CorruptHeader {
                path: path.into(),
                check: "the WDL section's packed code lengths",
            }
        })?;
    }
    if version < CHASE_RULE_VERSION && header.rules == "asian" {
        header.rules = CHECK_RULES.into();
    }
    if used != head.len() {
        return Err(TableError::CorruptHeader {
            path: path.into(),
            check: "bytes after its end",
        });
    }
    if header.index_version != INDEX_VERSION {
        return Err(TableError::Version {
            path: path.into(),
            found: header.format_version,
            index: header.index_version,
        });
    }
    // From format 6 the payload starts on a line boundary; the bytes before it are zeros.
    let start = if version >= 6 {
        end.next_multiple_of(PAYLOAD_ALIGN)
    } else {
        end
    };
    if bytes.len() < start {
        return Err(TableError::Truncated(path.into()));
    }
    if bytes[end..start].iter().any(|&b| b != 0) {
        return Err(TableError::CorruptHeader {
            path: path.into(),
            check: "the padding before the payload is not zeros",
        });
    }
    let payload_len = (bytes.len() - start) as u64;
    let corrupt = |check| TableError::CorruptHeader {
        path: path.into(),
        check,
    };
    if !check_section(&header.wdl, header.slots, 2) {
        return Err(corrupt("the WDL section's block layout"));
    }
    if header.wdl.offsets.first() != Some(&0) || header.wdl.value_bytes != 0 {
        return Err(corrupt("the WDL section's start or value width"));
    }
    if !codecs_fit_version(&header, version) {
        return Err(corrupt("the sections' codecs for its format version"));
    }
    if header
        .dtm_side
        .is_some_and(|side| side > 1 || header.dtm.is_none())
    {
        return Err(corrupt("the side its distances are stored for"));
    }
    if let Some(dtm) = &header.dtm {
        if !check_section(dtm, header.slots, header.dtm_sides()) {
            return Err(corrupt("the DTM section's block layout"));
        }
        if dtm.value_bytes == 0 {
            return Err(corrupt("the DTM section's value width"));
        }
        if header.wdl.offsets.last() != dtm.offsets.first() {
            return Err(corrupt("the sections do not follow each other"));
        }
    }
    let stored_end = header.stored_end();
    if stored_end > payload_len {
        return Err(TableError::Truncated(path.into()));
    }
    if stored_end < payload_len {
        return Err(TableError::TrailingBytes {
            path: path.into(),
            extra: payload_len - stored_end,
        });
    }
    Ok((header, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stored value a table with distances holds comes back from its half and its WDL
    /// code, in both widths where it fits them.
    #[test]
    fn halves_round_trip_with_the_wdl_code() {
        let rules = Rule::ALL
            .iter()
            .flat_map(|&r| [stored_rule_win(r), stored_rule_loss(r)]);
        let values = (0..=MAX_DISTANCE).chain([STORED_DRAW]).chain(rules);
        for v in values {
            for width in [1u8, 2] {
                if v <= MAX_DISTANCE && v.div_ceil(2) > largest_distance_half(width) {
                    continue;
                }
                let code = wdl_code(v);
                let h = half_of(v, width).unwrap_or(0);
                assert_eq!(
                    stored_of_half(h, code, width, true),
                    v,
                    "{v:#x} in {width} bytes"
                );
            }
        }
        assert_eq!(half_of(STORED_ILLEGAL, 1), None);
        assert_eq!(half_of(STORED_DRAW, 2), None);
        // Before format 8 only the largest half marks a rule result; the next ones are
        // distances.
        assert_eq!(stored_of_half(0xFF, WDL_WIN, 1, false), STORED_RULE_WIN);
        assert_eq!(stored_of_half(0xFE, WDL_WIN, 1, false), 0x1FB);
        assert_eq!(
            stored_of_half(0xFE, WDL_LOSS, 1, true),
            stored_rule_loss(Rule::PerpetualChase)
        );
    }

    /// A corrupted half or code reads as the unused-slot marker, never a panic.
    #[test]
    fn corrupted_halves_read_as_no_value() {
        assert_eq!(stored_of_half(0, WDL_WIN, 1, true), STORED_ILLEGAL);
        assert_eq!(stored_of_half(0xFFFE, WDL_LOSS, 2, false), STORED_ILLEGAL);
        assert_eq!(stored_of_half(0x4001, WDL_WIN, 2, true), STORED_ILLEGAL);
        assert_eq!(stored_of_half(3, 7, 1, true), STORED_ILLEGAL);
        for h in 0..=0xFFFF {
            for code in 0..=WDL_LARGEST_CODE + 1 {
                let _ = stored_of_half(h, code, 2, h % 2 == 0);
            }
        }
    }

    #[test]
    fn offsets_round_trip_through_lengths() {
        for offsets in [vec![], vec![7], vec![64, 100, 100, 4000]] {
            assert_eq!(
                offsets_of_lengths(&lengths_of_offsets(&offsets)),
                Some(offsets)
            );
        }
        assert_eq!(offsets_of_lengths(&[u64::MAX, 1]), None);
    }

    #[test]
    fn rule_codes_round_trip() {
        for r in Rule::ALL {
            for win in [false, true] {
                assert_eq!(rule_of_wdl_code(wdl_rule_code(win, r)), Some((win, r)));
            }
        }
        assert_eq!(wdl_rule_code(true, Rule::PerpetualCheck), WDL_RULE_WIN);
        assert_eq!(wdl_rule_code(false, Rule::PerpetualCheck), WDL_RULE_LOSS);
        assert_eq!(rule_of_wdl_code(WDL_WIN), None);
        assert_eq!(rule_of_wdl_code(WDL_LARGEST_CODE + 1), None);
    }
}
