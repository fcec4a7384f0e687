//! Table files: a checksummed header (bincode) followed by compressed blocks, read through a
//! memory map one block at a time.
//!
//! One file per material set and rule set, `MATERIAL.RULES.ctb` (`KRKAA.asian.ctb`), holding
//! two sections for both sides to move:
//!
//! - **wdl**: win/draw/loss for the side to move (0 loss, 1 draw, 2 win), one value per slot,
//!   compressed with the section's own LZ77 + Huffman codec ([`Codec::Lzh`], module [`lzh`])
//!   in blocks of [`lzh::BLOCK_BYTES`], one cache line each, holding two interleaved token
//!   streams, so a probe reads one line, decodes a few dozen tokens and copies nothing; a
//!   block index (values and first-stream bytes per block) sits in the header, and checksums
//!   per [`CHECK_CHUNK`] bytes of the section are checked the first time a probe reads a
//!   chunk;
//! - **dtm**: distance to mate in plies (odd: the side to move wins, even: it loses), one byte a
//!   position when every distance fits below 253 (255 draw, 254 win by the perpetual-check rule,
//!   253 loss by it), else two bytes little endian (`0xFFFE` draw, `0xFFFC` win by rule,
//!   `0xFFFD` loss by it), in zstd frames of [`DTM_BLOCK`] positions, each with its content
//!   checksum, optionally with a zstd dictionary trained on the section.
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `CANJUTB\x1a` |
//! | 4 | header length, little endian |
//! | 8 | xxh3-64 of the header bytes |
//! | n | header ([`Header`], bincode standard config) |
//! | 0-63 | zeros, so the payload starts at a multiple of [`PAYLOAD_ALIGN`] bytes |
//! | ... | payload: the WDL section's blocks, then the DTM section's |
//!
//! Slots that hold no legal position carry the previous slot's value, so they cost almost
//! nothing after compression. Files are written to a temporary name and renamed. Versions 3
//! and 4 (WDL as zstd frames of 2-bit values; 3 without dictionaries) and 5 (WDL blocks of one
//! stream and any length, no padding before the payload) are still read, and `canju repack`
//! rewrites them in the current format.

mod huffman;
pub mod lzh;

use crate::value::{MAX_DISTANCE, STORED_DRAW, STORED_ILLEGAL, STORED_RULE_LOSS, STORED_RULE_WIN};
use bincode::{Decode, Encode};
use memmap2::Mmap;
use serde::Serialize;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

/// First bytes of every table file.
pub const MAGIC: &[u8; 8] = b"CANJUTB\x1a";
/// Version of the file layout written; readers accept it and [`OLDEST_READABLE_VERSION`].
pub const FORMAT_VERSION: u32 = 6;
/// Oldest layout still read (3: WDL in zstd frames, no dictionaries; 4: with dictionaries;
/// 5: WDL blocks of one stream and any size, payload right after the header).
pub const OLDEST_READABLE_VERSION: u32 = 3;
/// From format 6 the payload starts at a multiple of this many bytes from the file's start, so
/// every WDL block is one cache line of the memory map.
pub const PAYLOAD_ALIGN: usize = 64;
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
/// What follows [`EXTENSION`] in the name of a table being written, before the writer's
/// process id: `KRK.asian.ctb.tmp1234`.
const TEMPORARY: &str = ".tmp";

/// The temporary file of this process for the file `path`, named `tag` among several
/// (`""` for the table being written): [`remove_stale_temporaries`] removes it if the process
/// dies before it does.
pub fn temporary_path(path: &Path, tag: &str) -> std::path::PathBuf {
    let dot = if tag.is_empty() { "" } else { "." };
    path.with_extension(format!(
        "{tag}{dot}{EXTENSION}{TEMPORARY}{}",
        std::process::id()
    ))
}

/// Removes from `dir` the temporary files of writers that no longer run (a generation
/// killed while writing), so they do not pile up; returns how many. Only where the running
/// processes can be told (`/proc`); elsewhere none is removed.
///
/// # Errors
/// The folder cannot be read, or a stale file cannot be removed.
pub fn remove_stale_temporaries(dir: &Path) -> std::io::Result<usize> {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return Ok(0);
    }
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some((_, pid)) = name
            .to_str()
            .and_then(|n| n.split_once(&format!(".{EXTENSION}{TEMPORARY}")))
        else {
            continue;
        };
        let alive = pid
            .parse::<u32>()
            .is_ok_and(|p| proc.join(p.to_string()).exists());
        if !alive {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}
const ZSTD_LEVEL: i32 = 15;
/// Largest header a reader accepts (a corrupted length must not make it allocate gigabytes).
const MAX_HEADER: u32 = 64 << 20;
/// Most decompressed blocks kept per table (a table with fewer blocks keeps them all).
const CACHE_SLOTS: usize = 256;

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
    /// [`Codec::Lzh`]: xxh3-64 of each [`CHECK_CHUNK`] bytes of the section (the last may be
    /// shorter), checked the first time a probe reads from the chunk.
    pub chunk_sums: Vec<u64>,
}

/// Bytes of a [`Codec::Lzh`] section covered by one checksum.
pub const CHECK_CHUNK: usize = 16 << 10;

/// Block compression of a section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Encode, Decode)]
pub enum Codec {
    /// Each block a zstd frame with its content checksum (DTM; WDL before format 5, 2-bit
    /// values four to a byte).
    Zstd,
    /// Each block LZ77 tokens with codes shared by the section (WDL from format 5, one value
    /// per slot; from format 6 in blocks of one cache line holding two streams); see `lzh`.
    Lzh,
}

/// A section as version 4 stored it (always zstd).
#[derive(Decode)]
struct SectionV4 {
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
struct SectionV5 {
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
struct SectionV3 {
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

/// A header as versions 3 to 5 stored it: today's fields, with sections of layout `S`.
#[derive(Decode)]
struct OldHeader<S> {
    format_version: u32,
    rules: String,
    material: String,
    index_version: u32,
    slots: u64,
    wdl: S,
    dtm: S,
    stats: [SideStats; 2],
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
            dtm: h.dtm.into(),
            stats: h.stats,
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
    /// Distance-to-mate section.
    pub dtm: Section,
    /// Statistics per side to move (red, black).
    pub stats: [SideStats; 2],
}

/// Problems with a table file; each names the file.
#[derive(Debug, Error)]
pub enum TableError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Not a canju table.
    #[error("{0}: not a canju table (bad magic bytes)")]
    BadMagic(PathBuf),
    /// Shorter than its header says.
    #[error("{0}: truncated file")]
    Truncated(PathBuf),
    /// The header fails one of its checks (named: its checksum, its decoding, the sections'
    /// layout...).
    #[error("{path}: corrupted header ({check})")]
    CorruptHeader {
        /// The file.
        path: PathBuf,
        /// Which check failed.
        check: &'static str,
    },
    /// Bytes follow the last section: something was appended to the file.
    #[error("{path}: {extra} trailing bytes after the table's last section")]
    TrailingBytes {
        /// The file.
        path: PathBuf,
        /// How many.
        extra: u64,
    },
    /// Written by another version of canju.
    #[error(
        "{path}: format version {found}, index version {index}; this canju reads formats {OLDEST_READABLE_VERSION} to {FORMAT_VERSION} with index version {INDEX_VERSION}: regenerate it with `canju gen --force`"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Its format version.
        found: u32,
        /// Its index version.
        index: u32,
    },
    /// The header describes another table than the name promises.
    #[error("{path}: holds {found}, expected {expected}")]
    WrongTable {
        /// The file.
        path: PathBuf,
        /// What it holds (material/rules/size).
        found: String,
        /// What was expected.
        expected: String,
    },
    /// The payload does not match its checksum or a block does not decompress.
    #[error("{0}: corrupted data (checksum mismatch)")]
    CorruptPayload(PathBuf),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The stored values of both sides to move, as the writer reads them: whole arrays, or the
/// generator's cells of one byte a position.
pub trait ValueSource: Sync {
    /// Slots per side to move.
    fn slots(&self) -> u64;

    /// Stored value of `slot` with side `side` (0 red, 1 black) to move.
    fn stored(&self, side: usize, slot: u64) -> u16;

    /// Consumes the values into the WDL code ([`wdl_code`]) of every slot of each side, a slot
    /// without a legal position taking the code of the slot before it (a draw at the start).
    fn into_wdl_codes(self) -> [WdlCodes; 2];
}

/// One side's WDL codes, a byte a slot, held in words so that the generator's cells become
/// them where they are.
pub struct WdlCodes {
    words: Vec<u64>,
    len: usize,
}

impl WdlCodes {
    /// The first `len` bytes of `words` (in memory order).
    pub fn new(words: Vec<u64>, len: usize) -> WdlCodes {
        assert!(len <= 8 * words.len(), "the words hold the codes");
        WdlCodes { words, len }
    }

    /// The codes.
    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len]
    }

    /// The codes, to change.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut(&mut self.words)[..self.len]
    }
}

impl ValueSource for [Vec<u16>; 2] {
    fn slots(&self) -> u64 {
        self[0].len() as u64
    }

    fn stored(&self, side: usize, slot: u64) -> u16 {
        self[side][slot as usize]
    }

    fn into_wdl_codes(self) -> [WdlCodes; 2] {
        self.map(|mut side| {
            fill_dont_care(&mut side);
            let words = side
                .chunks(8)
                .map(|c| {
                    let mut bytes = [0u8; 8];
                    for (b, &v) in bytes.iter_mut().zip(c) {
                        *b = wdl_code(v);
                    }
                    u64::from_ne_bytes(bytes)
                })
                .collect();
            WdlCodes::new(words, side.len())
        })
    }
}

/// Replaces illegal markers by the previous value so they compress away.
fn fill_dont_care(values: &mut [u16]) {
    let mut last = STORED_DRAW;
    for v in values {
        if *v == STORED_ILLEGAL {
            *v = last;
        } else {
            last = *v;
        }
    }
}

/// The values of `slots` of one side, illegal slots filled as [`fill_dont_care`] fills them.
fn filled_block(values: &impl ValueSource, side: usize, slots: std::ops::Range<u64>) -> Vec<u16> {
    let mut last = (0..slots.start)
        .rev()
        .map(|i| values.stored(side, i))
        .find(|&v| v != STORED_ILLEGAL)
        .unwrap_or(STORED_DRAW);
    slots
        .map(|i| match values.stored(side, i) {
            STORED_ILLEGAL => last,
            v => {
                last = v;
                v
            }
        })
        .collect()
}

/// 0 loss, 1 draw, 2 win for a stored value (results by rule count as wins and losses).
#[inline]
pub(crate) fn wdl_code(v: u16) -> u8 {
    match v {
        STORED_DRAW => 1,
        STORED_RULE_WIN => 2,
        STORED_RULE_LOSS => 0,
        n if n % 2 == 1 => 2,
        _ => 0,
    }
}

/// One-byte DTM form: distances below 0xFD as they are, then rule loss, rule win, draw.
#[inline]
fn dtm_byte(v: u16) -> u8 {
    match v {
        STORED_DRAW => 0xFF,
        STORED_RULE_WIN => 0xFE,
        STORED_RULE_LOSS => 0xFD,
        n => n as u8,
    }
}

#[inline]
fn dtm_from_byte(b: u8) -> u16 {
    match b {
        0xFF => STORED_DRAW,
        0xFE => STORED_RULE_WIN,
        0xFD => STORED_RULE_LOSS,
        n => n as u16,
    }
}

/// A zstd compressor for DTM blocks with `dictionary` (none if empty), reused from block to
/// block so that the dictionary is loaded once a thread.
fn compressor(dictionary: &[u8]) -> zstd::bulk::Compressor<'static> {
    let mut c =
        zstd::bulk::Compressor::with_dictionary(ZSTD_LEVEL, dictionary).expect("zstd compressor");
    c.include_checksum(true).expect("zstd checksum flag");
    c
}

/// One zstd frame, in a vector no larger than it (the compressor allocates the worst case).
fn compress(c: &mut zstd::bulk::Compressor, bytes: &[u8]) -> Vec<u8> {
    let mut frame = c.compress(bytes).expect("in-memory zstd compression");
    frame.shrink_to_fit();
    frame
}

/// Sections with fewer blocks are compressed without a dictionary: on the 4-men sets
/// (at most about 200 blocks a section) dictionaries saved 0.8% of the bytes and cost 8% of the
/// generation time.
const DICTIONARY_MIN_BLOCKS: usize = 256;
/// Blocks a dictionary is trained on, at most (evenly spaced over the section).
const DICTIONARY_TRAINING_BLOCKS: usize = 32;
/// Blocks compressed with and without the dictionary to judge it.
const DICTIONARY_TRIAL_BLOCKS: usize = 8;
/// Largest dictionary tried, bytes.
const DICTIONARY_MAX_BYTES: usize = 16 << 10;

/// Every `len / n`-th index below `len`, about `n` of them.
fn spread(len: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..len).step_by(len.div_ceil(n).max(1))
}

/// A dictionary trained on `blocks` blocks (`raw(k)` gives block k's bytes), if it makes a
/// trial sample of them smaller, counting the dictionary's own size against it (the
/// sample's saving scaled to the whole section).
fn train_dictionary(blocks: usize, raw: impl Fn(usize) -> Vec<u8> + Sync) -> Option<Vec<u8>> {
    use rayon::prelude::*;
    if blocks < DICTIONARY_MIN_BLOCKS {
        return None;
    }
    let samples: Vec<Vec<u8>> = spread(blocks, DICTIONARY_TRAINING_BLOCKS)
        .map(&raw)
        .collect();
    let sample_bytes: usize = samples.iter().map(|s| s.len()).sum();
    let dict =
        zstd::dict::from_samples(&samples, DICTIONARY_MAX_BYTES.min(sample_bytes / 16)).ok()?;
    let trial: Vec<usize> = spread(blocks, DICTIONARY_TRIAL_BLOCKS).collect();
    let (without, with): (usize, usize) = trial
        .par_iter()
        .map_init(
            || (compressor(&[]), compressor(&dict)),
            |(plain, with_dict), &k| {
                let b = raw(k);
                (compress(plain, &b).len(), compress(with_dict, &b).len())
            },
        )
        .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
    let scale = blocks as f64 / trial.len() as f64;
    let saving = (without as f64 - with as f64) * scale;
    (saving > dict.len() as f64).then_some(dict)
}

/// Raw bytes of one block of a section.
fn block_bytes(filled: &[u16], value_bytes: u8) -> Vec<u8> {
    match value_bytes {
        0 => filled
            .chunks(4)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u8, |acc, (k, &v)| acc | (wdl_code(v) << (2 * k)))
            })
            .collect(),
        1 => filled.iter().map(|&v| dtm_byte(v)).collect(),
        _ => filled.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

/// One compressed section: its blocks in order, the zstd dictionary they were compressed with
/// and the LZH codes (each empty when unused).
struct Compressed {
    blocks: Vec<Vec<u8>>,
    dictionary: Vec<u8>,
    codes: Vec<u8>,
    /// Values per block ([`Codec::Lzh`] only).
    counts: Vec<u32>,
    /// Bytes of each block's first stream ([`Codec::Lzh`] only).
    splits: Vec<u8>,
}

/// Compresses both sides of one section.
fn compress_wdl(codes: [WdlCodes; 2]) -> Compressed {
    let (codes, blocks) = lzh::compress(&[codes[0].as_bytes(), codes[1].as_bytes()]);
    Compressed {
        counts: blocks.iter().map(|b| b.values).collect(),
        splits: blocks.iter().map(|b| b.split).collect(),
        blocks: blocks.into_iter().map(|b| b.bytes).collect(),
        dictionary: vec![],
        codes,
    }
}

/// Blocks of the DTM section compressed together before they are written out.
const DTM_BATCH_BLOCKS: usize = 1024;

/// Compresses the DTM section, zstd frames of [`DTM_BLOCK`] values of `value_bytes` bytes
/// each, and writes its frames to `out` a batch at a time, so that the compressed section
/// is never whole in memory. Returns the section, its offsets counted from the start of
/// `out`.
fn write_dtm(
    values: &impl ValueSource,
    value_bytes: u8,
    out: &mut impl Write,
) -> std::io::Result<Section> {
    use rayon::prelude::*;
    let per_side = values.slots().div_ceil(DTM_BLOCK as u64);
    let slots_of = |k: usize| {
        let start = (k as u64 % per_side) * DTM_BLOCK as u64;
        start..(start + DTM_BLOCK as u64).min(values.slots())
    };
    // Each block's raw bytes are made when it is compressed, never all at once.
    let raw = |k: usize| {
        let side = (k as u64 / per_side) as usize;
        block_bytes(&filled_block(values, side, slots_of(k)), value_bytes)
    };
    let blocks = 2 * per_side as usize;
    let dictionary = train_dictionary(blocks, raw).unwrap_or_default();
    let mut offsets = vec![0u64];
    let mut checksum = xxhash_rust::xxh3::Xxh3::new();
    for first in (0..blocks).step_by(DTM_BATCH_BLOCKS) {
        let frames: Vec<Vec<u8>> = (first..(first + DTM_BATCH_BLOCKS).min(blocks))
            .into_par_iter()
            .map_init(|| compressor(&dictionary), |c, k| compress(c, &raw(k)))
            .collect();
        for frame in frames {
            out.write_all(&frame)?;
            checksum.update(&frame);
            offsets.push(offsets.last().copied().unwrap_or(0) + frame.len() as u64);
        }
    }
    Ok(Section {
        block_values: DTM_BLOCK,
        value_bytes,
        offsets,
        checksum: checksum.digest(),
        dictionary,
        codec: Codec::Zstd,
        codes: vec![],
        block_counts: vec![],
        block_sizes: vec![],
        block_splits: vec![],
        chunk_sums: vec![],
    })
}

/// The DTM section of a table being written: its description (offsets counted from the
/// start of its bytes) and where its bytes are.
enum DtmBytes<'a> {
    /// Taken from an earlier file.
    Reused(&'a [u8]),
    /// Compressed into this temporary file.
    Spilled(PathBuf),
}

/// Appends `c`'s blocks to `payload` and describes them.
fn append_section(
    payload: &mut Vec<u8>,
    mut c: Compressed,
    block_values: u32,
    value_bytes: u8,
    codec: Codec,
) -> Section {
    let start = payload.len();
    let mut offsets = vec![start as u64];
    for b in &c.blocks {
        payload.extend_from_slice(b);
        offsets.push(payload.len() as u64);
    }
    let (mut block_splits, mut chunk_sums) = (vec![], vec![]);
    if codec == Codec::Lzh {
        block_splits = std::mem::take(&mut c.splits);
        chunk_sums = payload[start..].chunks(CHECK_CHUNK).map(xxh3_64).collect();
        offsets = vec![start as u64, payload.len() as u64];
    }
    Section {
        block_values,
        value_bytes,
        offsets,
        checksum: xxh3_64(&payload[start..]),
        dictionary: c.dictionary,
        codec,
        codes: c.codes,
        block_counts: c.counts,
        block_sizes: vec![],
        block_splits,
        chunk_sums,
    }
}

/// Writes a table atomically: a temporary file in the same folder, synced, then renamed.
/// Takes the stored values of both sides to move and fills the slots without a legal
/// position in place (with the value before them, which costs nothing to compress), so the
/// values are never copied whole. Returns the file's size in bytes.
///
/// # Errors
/// [`TableError`] if the file cannot be written (the temporary file is removed).
pub fn write_table(
    path: &Path,
    rules: &str,
    material: &str,
    values: impl ValueSource,
    stats: [SideStats; 2],
) -> Result<u64, TableError> {
    write_table_reusing(path, rules, material, values, stats, None)
}

/// [`write_table`], taking the DTM section from `reuse` (a section and its bytes, from a file
/// holding the same values) when it is what this version would write, zstd frames of
/// [`DTM_BLOCK`] positions and the same value width, instead of compressing it again.
fn write_table_reusing(
    path: &Path,
    rules: &str,
    material: &str,
    values: impl ValueSource,
    stats: [SideStats; 2],
    reuse: Option<(&Section, &[u8])>,
) -> Result<u64, TableError> {
    use rayon::prelude::*;
    let slots = values.slots();
    let longest = (0..2 * slots)
        .into_par_iter()
        .map(|k| values.stored((k / slots.max(1)) as usize, k % slots.max(1)))
        .filter(|&v| v <= MAX_DISTANCE)
        .max()
        .unwrap_or(0);
    let dtm_bytes = if longest < 0xFD { 1 } else { 2 };
    let reusable = reuse.filter(|(old, _)| {
        old.codec == Codec::Zstd && old.block_values == DTM_BLOCK && old.value_bytes == dtm_bytes
    });
    // DTM first, as it reads the values; the WDL codes then take the values' place.
    let spill = temporary_path(path, "dtm");
    let (dtm, dtm_bytes) = match reusable {
        Some((old, bytes)) => {
            let base = old.offsets[0];
            let section = Section {
                offsets: old.offsets.iter().map(|o| o - base).collect(),
                ..old.clone()
            };
            (section, DtmBytes::Reused(bytes))
        }
        None => {
            let spilled = || -> std::io::Result<Section> {
                let mut f = std::io::BufWriter::with_capacity(1 << 20, fs::File::create(&spill)?);
                let section = write_dtm(&values, dtm_bytes, &mut f)?;
                f.into_inner().map_err(|e| e.into_error())?;
                Ok(section)
            };
            match spilled() {
                Ok(section) => (section, DtmBytes::Spilled(spill.clone())),
                Err(e) => {
                    let _ = fs::remove_file(&spill);
                    return Err(io_err(path)(e));
                }
            }
        }
    };
    let codes = values.into_wdl_codes();
    let wdl = compress_wdl(codes);
    let mut payload = Vec::new();
    let wdl = append_section(
        &mut payload,
        wdl,
        lzh::MAX_BLOCK_VALUES as u32,
        0,
        Codec::Lzh,
    );
    let dtm_len = dtm.offsets.last().copied().unwrap_or(0);
    let dtm = Section {
        offsets: dtm
            .offsets
            .iter()
            .map(|o| o + payload.len() as u64)
            .collect(),
        ..dtm
    };
    let header = Header {
        format_version: FORMAT_VERSION,
        rules: rules.to_string(),
        material: material.to_string(),
        index_version: INDEX_VERSION,
        slots,
        wdl,
        dtm,
        stats,
    };
    let head =
        bincode::encode_to_vec(&header, bincode::config::standard()).expect("header encodes");
    let padding = (20 + head.len()).next_multiple_of(PAYLOAD_ALIGN) - (20 + head.len());
    let tmp = temporary_path(path, "");
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(head.len() as u32).to_le_bytes())?;
        f.write_all(&xxh3_64(&head).to_le_bytes())?;
        f.write_all(&head)?;
        f.write_all(&vec![0; padding])?;
        f.write_all(&payload)?;
        match &dtm_bytes {
            DtmBytes::Reused(bytes) => f.write_all(bytes)?,
            DtmBytes::Spilled(from) => {
                std::io::copy(&mut fs::File::open(from)?, &mut f)?;
            }
        }
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    let written = write();
    if let DtmBytes::Spilled(from) = &dtm_bytes {
        let _ = fs::remove_file(from);
    }
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(path)(e));
    }
    Ok((20 + head.len() + padding) as u64 + payload.len() as u64 + dtm_len)
}

fn check_section(s: &Section, slots: u64) -> bool {
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
        || !s.chunk_sums.is_empty()
    {
        return false;
    }
    // Checked: a crafted header may claim any slot count.
    let Some(blocks) = slots.div_ceil(s.block_values as u64).checked_mul(2) else {
        return false;
    };
    s.offsets.len() as u64 == blocks.saturating_add(1) && s.offsets.windows(2).all(|w| w[0] <= w[1])
}

/// Reads and checks the header of a table held in `bytes`; returns it and the payload offset.
pub fn parse_header(path: &Path, bytes: &[u8]) -> Result<(Header, usize), TableError> {
    if bytes.len() >= 8 && &bytes[..8] != MAGIC {
        return Err(TableError::BadMagic(path.into()));
    }
    if bytes.len() < 20 {
        return Err(TableError::Truncated(path.into()));
    }
    let len = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    let sum = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    if len > MAX_HEADER {
        return Err(TableError::CorruptHeader {
            path: path.into(),
            check: "its length is past the limit",
        });
    }
    let end = 20 + len as usize;
    if bytes.len() < end {
        return Err(TableError::Truncated(path.into()));
    }
    let head = &bytes[20..end];
    if xxh3_64(head) != sum {
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
    let (version, _): (u32, usize) = bincode::decode_from_slice(head, config).map_err(corrupt)?;
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
        FORMAT_VERSION => decode::<Header>(head),
        _ => {
            return Err(TableError::Version {
                path: path.into(),
                found: version,
                index: 0,
            });
        }
    };
    let (header, used) = decoded.ok_or_else(|| TableError::CorruptHeader {
        path: path.into(),
        check: "it does not decode",
    })?;
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
    if !check_section(&header.wdl, header.slots) {
        return Err(corrupt("the WDL section's block layout"));
    }
    if !check_section(&header.dtm, header.slots) {
        return Err(corrupt("the DTM section's block layout"));
    }
    if header.wdl.value_bytes != 0 || header.dtm.value_bytes == 0 {
        return Err(corrupt("the sections' value widths"));
    }
    if header.wdl.offsets.first() != Some(&0)
        || header.wdl.offsets.last() != header.dtm.offsets.first()
    {
        return Err(corrupt("the sections do not follow each other"));
    }
    let stored_end = header.dtm.offsets.last().copied().unwrap_or(0);
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

impl TableError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TableError::Io { path, .. }
            | TableError::CorruptHeader { path, .. }
            | TableError::TrailingBytes { path, .. }
            | TableError::Version { path, .. }
            | TableError::WrongTable { path, .. } => path,
            TableError::BadMagic(path)
            | TableError::Truncated(path)
            | TableError::CorruptPayload(path) => path,
        }
    }

    /// True when the file exists but its contents are wrong (not an I/O failure).
    pub fn is_damage(&self) -> bool {
        !matches!(self, TableError::Io { .. })
    }
}

/// Which section of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionKind {
    /// Win/draw/loss, 2 bits a position.
    Wdl,
    /// Distance to mate.
    Dtm,
}

thread_local! {
    /// This thread's zstd decompression context, made on first use.
    static DCTX: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// A decompressed block and its key (section and block number).
type CachedBlock = (u64, Arc<Vec<u8>>);

/// A table file opened through a memory map; blocks are decompressed on demand and the most
/// recent ones kept in a small cache. `Send + Sync`.
pub struct TableFile {
    path: PathBuf,
    map: Mmap,
    header: Header,
    payload_start: usize,
    cache: Vec<Mutex<Option<CachedBlock>>>,
    /// Prepared dictionaries of the sections that have one (WDL, DTM).
    dictionaries: [Option<zstd::dict::DecoderDictionary<'static>>; 2],
    /// Decoder and block index of the WDL section when it is [`Codec::Lzh`].
    wdl_decoder: Option<(lzh::BlockDecoder, lzh::BlockIndex)>,
    /// One bit per [`CHECK_CHUNK`] of an [`Codec::Lzh`] WDL section: checksum seen to match.
    verified: Vec<AtomicU64>,
}

impl TableFile {
    /// Opens and checks a table file: magic, versions, header checksum, section layout and
    /// size. Payload checksums are checked by [`TableFile::verify_checksums`] and each block's
    /// own checksum whenever it is decompressed.
    pub fn open(path: &Path) -> Result<TableFile, TableError> {
        let file = fs::File::open(path).map_err(io_err(path))?;
        // SAFETY: the map is read-only; tables are written to a new file and renamed into
        // place, so a finished file is never modified while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err(path))?;
        let (header, payload_start) = parse_header(path, &map)?;
        let blocks = header.dtm.offsets.len()
            + match header.wdl.codec {
                Codec::Zstd => header.wdl.offsets.len(),
                Codec::Lzh => 0,
            };
        let prepare = |s: &Section| {
            (!s.dictionary.is_empty())
                .then(|| zstd::dict::DecoderDictionary::try_copy(&s.dictionary))
                .transpose()
                .map_err(|_| TableError::CorruptHeader {
                    path: path.into(),
                    check: "a zstd dictionary does not load",
                })
        };
        let dictionaries = [prepare(&header.wdl)?, prepare(&header.dtm)?];
        let wdl_decoder = match header.wdl.codec {
            Codec::Lzh => Some(
                lzh::BlockDecoder::new(&header.wdl.codes)
                    .zip(lzh::BlockIndex::new(&header.wdl, header.slots))
                    .ok_or_else(|| TableError::CorruptHeader {
                        path: path.into(),
                        check: "the WDL codes or block index",
                    })?,
            ),
            Codec::Zstd => None,
        };
        let verified = (0..header.wdl.chunk_sums.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(TableFile {
            dictionaries,
            wdl_decoder,
            verified,
            path: path.to_path_buf(),
            map,
            header,
            payload_start,
            cache: (0..CACHE_SLOTS.min(blocks))
                .map(|_| Mutex::new(None))
                .collect(),
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the payload starts in the file (from format 6 a multiple of [`PAYLOAD_ALIGN`]).
    pub fn payload_start(&self) -> usize {
        self.payload_start
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.map.len() as u64
    }

    /// Compressed bytes of one section.
    pub fn section_bytes(&self, kind: SectionKind) -> u64 {
        let s = self.section(kind);
        s.offsets.last().copied().unwrap_or(0) - s.offsets.first().copied().unwrap_or(0)
    }

    fn section(&self, kind: SectionKind) -> &Section {
        match kind {
            SectionKind::Wdl => &self.header.wdl,
            SectionKind::Dtm => &self.header.dtm,
        }
    }

    fn payload(&self) -> &[u8] {
        &self.map[self.payload_start..]
    }

    /// Checks both sections against their checksums.
    pub fn verify_checksums(&self) -> Result<(), TableError> {
        for kind in [SectionKind::Wdl, SectionKind::Dtm] {
            let s = self.section(kind);
            let (a, b) = (
                s.offsets[0] as usize,
                *s.offsets.last().expect("end") as usize,
            );
            if xxh3_64(&self.payload()[a..b]) != s.checksum {
                return Err(TableError::CorruptPayload(self.path.clone()));
            }
        }
        Ok(())
    }

    /// Checks the chunks of the WDL section that `range` of the payload touches against their
    /// checksums, unless already done.
    fn check_chunks(&self, range: &std::ops::Range<usize>) -> Result<(), TableError> {
        let s = &self.header.wdl;
        let (base, end) = (s.offsets[0] as usize, s.offsets[1] as usize);
        for c in (range.start - base) / CHECK_CHUNK..=(range.end - 1 - base) / CHECK_CHUNK {
            let (word, bit) = (&self.verified[c / 64], 1u64 << (c % 64));
            if word.load(Ordering::Relaxed) & bit != 0 {
                continue;
            }
            let a = base + c * CHECK_CHUNK;
            let bytes = &self.payload()[a..(a + CHECK_CHUNK).min(end)];
            if xxh3_64(bytes) != s.chunk_sums[c] {
                return Err(TableError::CorruptPayload(self.path.clone()));
            }
            word.fetch_or(bit, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Values held by block `b` (counted over both sides) of section `s`.
    fn block_len(&self, s: &Section, b: usize) -> usize {
        let per_side = self.header.slots.div_ceil(s.block_values as u64) as usize;
        let first = (b % per_side) as u64 * s.block_values as u64;
        (self.header.slots - first).min(s.block_values as u64) as usize
    }

    /// Decompresses block `b` (counted over both sides) of a zstd section.
    fn decompress(&self, kind: SectionKind, b: usize) -> Result<Vec<u8>, TableError> {
        let mut raw = Vec::new();
        self.decompress_into(kind, b, &mut raw)?;
        Ok(raw)
    }

    /// Decompresses block `b` into `raw`, reusing its capacity.
    fn decompress_into(
        &self,
        kind: SectionKind,
        b: usize,
        raw: &mut Vec<u8>,
    ) -> Result<(), TableError> {
        let s = self.section(kind);
        let n = self.block_len(s, b);
        let want = match s.value_bytes {
            0 => n.div_ceil(4),
            k => n * k as usize,
        };
        let (a, z) = (s.offsets[b] as usize, s.offsets[b + 1] as usize);
        let frame = &self.payload()[a..z];
        raw.clear();
        raw.reserve(want);
        // One decompression context per thread: creating one costs more than a small block.
        let done = DCTX.with(|cell| {
            let mut cell = cell.borrow_mut();
            let dctx = cell.get_or_insert_with(zstd::zstd_safe::DCtx::create);
            match &self.dictionaries[kind as usize] {
                Some(d) => dctx.decompress_using_ddict(raw, frame, d.as_ddict()),
                None => dctx.decompress(raw, frame),
            }
        });
        if done.is_err() || raw.len() != want {
            return Err(TableError::CorruptPayload(self.path.clone()));
        }
        Ok(())
    }

    /// Block `b` of a section through the cache. A miss decompresses into the buffer of the
    /// block it evicts when no reader holds that any more, so a warm cache allocates nothing.
    fn cached_block(&self, kind: SectionKind, b: usize) -> Result<Arc<Vec<u8>>, TableError> {
        let key = ((kind as u64) << 40) | b as u64;
        // Direct-mapped: WDL blocks first, then DTM blocks, so a small table never collides.
        let n = match kind {
            SectionKind::Wdl => b,
            SectionKind::Dtm => self.header.wdl.offsets.len() - 1 + b,
        };
        let slot = &self.cache[n % self.cache.len()];
        let evicted = {
            let mut held = slot.lock().expect("cache lock");
            if let Some((k, block)) = held.as_ref()
                && *k == key
            {
                return Ok(block.clone());
            }
            held.take()
        };
        // The evicted buffer is reused unless a reader still holds it (out of the slot, it
        // can gain no new holder).
        let mut block = evicted.map_or_else(Arc::default, |(_, old)| old);
        if Arc::get_mut(&mut block).is_none() {
            block = Arc::default();
        }
        let buffer = Arc::get_mut(&mut block).expect("a block no reader holds");
        self.decompress_into(kind, b, buffer)?;
        *slot.lock().expect("cache lock") = Some((key, block.clone()));
        Ok(block)
    }

    fn locate(&self, kind: SectionKind, side: usize, index: u64) -> (usize, usize) {
        let s = self.section(kind);
        let per_side = self.header.slots.div_ceil(s.block_values as u64);
        let b = side as u64 * per_side + index / s.block_values as u64;
        (b as usize, (index % s.block_values as u64) as usize)
    }

    /// Win/draw/loss code (0 loss, 1 draw, 2 win) of slot `index` with `side` (0 red, 1 black)
    /// to move. Meaningless for unused slots.
    pub fn wdl(&self, side: usize, index: u64) -> Result<u8, TableError> {
        if let Some((decoder, blocks)) = &self.wdl_decoder {
            let (block, at) = blocks.locate(side as u64 * self.header.slots + index);
            self.check_chunks(&block.bytes)?;
            return decoder
                .value_at(&self.payload()[block.bytes.clone()], &block, at)
                .ok_or_else(|| TableError::CorruptPayload(self.path.clone()));
        }
        let (b, at) = self.locate(SectionKind::Wdl, side, index);
        let block = self.cached_block(SectionKind::Wdl, b)?;
        Ok((block[at / 4] >> (2 * (at % 4))) & 3)
    }

    /// Stored distance value (see [`crate::value::Value`]) of slot `index` with `side` to move.
    pub fn dtm(&self, side: usize, index: u64) -> Result<u16, TableError> {
        let (b, at) = self.locate(SectionKind::Dtm, side, index);
        let block = self.cached_block(SectionKind::Dtm, b)?;
        Ok(match self.header.dtm.value_bytes {
            1 => dtm_from_byte(block[at]),
            _ => u16::from_le_bytes([block[2 * at], block[2 * at + 1]]),
        })
    }

    /// Every win/draw/loss code (0 loss, 1 draw, 2 win), per side to move (checksums checked).
    pub fn load_wdl(&self) -> Result<[Vec<u8>; 2], TableError> {
        use rayon::prelude::*;
        self.verify_checksums()?;
        let s = &self.header.wdl;
        let corrupt = || TableError::CorruptPayload(self.path.clone());
        let blocks: Vec<Vec<u8>> = match &self.wdl_decoder {
            Some((decoder, index)) => (0..index.blocks())
                .into_par_iter()
                .map(|b| {
                    let block = index.block(b);
                    decoder
                        .decode(&self.payload()[block.bytes.clone()], &block)
                        .ok_or_else(corrupt)
                })
                .collect::<Result<_, _>>()?,
            None => {
                let per_side = self.header.slots.div_ceil(s.block_values as u64) as usize;
                (0..2 * per_side)
                    .into_par_iter()
                    .map(|b| {
                        let n = self.block_len(s, b);
                        Ok(self
                            .decompress(SectionKind::Wdl, b)?
                            .iter()
                            .flat_map(|&byte| (0..4).map(move |k| (byte >> (2 * k)) & 3))
                            .take(n)
                            .collect())
                    })
                    .collect::<Result<_, TableError>>()?
            }
        };
        let mut all = blocks.concat();
        if all.len() as u64 != 2 * self.header.slots {
            return Err(corrupt());
        }
        let black = all.split_off(self.header.slots as usize);
        Ok([all, black])
    }

    /// Every stored distance value, per side to move (checksums checked).
    pub fn load_dtm(&self) -> Result<DtmValues, TableError> {
        self.verify_checksums()?;
        Ok(DtmValues([self.read_dtm_side(0)?, self.read_dtm_side(1)?]))
    }

    /// The DTM section of one side to move (0 red, 1 black) read whole, after checking the
    /// checksums: what the generator needs of a sub-table, whose positions after a capture
    /// all have the same side to move.
    ///
    /// # Errors
    /// As [`TableFile::load_dtm`].
    pub fn load_dtm_of(&self, side: usize) -> Result<DtmSide, TableError> {
        self.verify_checksums()?;
        self.read_dtm_side(side)
    }

    /// One side's DTM section in the file's width.
    fn read_dtm_side(&self, side: usize) -> Result<DtmSide, TableError> {
        let byte = |[b]: [u8; 1]| b;
        Ok(match self.header.dtm.value_bytes {
            1 => DtmSide::Bytes(self.load_dtm_side(side, byte)?),
            _ => DtmSide::Words(self.load_dtm_side(side, u16::from_le_bytes)?),
        })
    }

    /// One side's DTM values, each made by `value` from its bytes, block by block into one
    /// vector (no copy of the whole).
    fn load_dtm_side<T: Copy + Default + Send, const N: usize>(
        &self,
        side: usize,
        value: impl Fn([u8; N]) -> T + Sync,
    ) -> Result<Vec<T>, TableError> {
        use rayon::prelude::*;
        let s = &self.header.dtm;
        let per_side = self.header.slots.div_ceil(s.block_values as u64) as usize;
        let mut out = vec![T::default(); self.header.slots as usize];
        out.par_chunks_mut(s.block_values as usize)
            .enumerate()
            .try_for_each(|(b, dst)| {
                let raw = self.decompress(SectionKind::Dtm, side * per_side + b)?;
                if raw.len() != dst.len() * N {
                    return Err(TableError::CorruptPayload(self.path.clone()));
                }
                for (d, c) in dst.iter_mut().zip(raw.chunks_exact(N)) {
                    *d = value(c.try_into().expect("chunks of N bytes"));
                }
                Ok(())
            })?;
        Ok(out)
    }
}

/// One side to move's DTM section read whole, one or two bytes a value as the file stores them.
pub enum DtmSide {
    /// The one-byte form (distances below 0xFD, then rule loss, rule win, draw).
    Bytes(Vec<u8>),
    /// Stored values.
    Words(Vec<u16>),
}

impl DtmSide {
    /// The stored value of `slot`.
    #[inline]
    pub fn stored(&self, slot: u64) -> u16 {
        match self {
            DtmSide::Bytes(b) => dtm_from_byte(b[slot as usize]),
            DtmSide::Words(w) => w[slot as usize],
        }
    }

    /// Every value in the stored form.
    pub fn into_stored(self) -> Vec<u16> {
        match self {
            DtmSide::Bytes(b) => b.into_iter().map(dtm_from_byte).collect(),
            DtmSide::Words(w) => w,
        }
    }
}

/// A table's DTM section read whole, both sides to move (red, black).
pub struct DtmValues(pub [DtmSide; 2]);

impl DtmValues {
    /// The stored value of `slot` with `side` (0 red, 1 black) to move.
    #[inline]
    pub fn stored(&self, side: usize, slot: u64) -> u16 {
        self.0[side].stored(slot)
    }

    /// Every value in the stored form.
    pub fn into_stored(self) -> [Vec<u16>; 2] {
        self.0.map(DtmSide::into_stored)
    }
}

/// A whole table read into memory.
pub struct LoadedTable {
    /// The file's header.
    pub header: Header,
    /// Values per side to move (red, black), in stored form.
    pub values: [Vec<u16>; 2],
    /// Size of the file in bytes.
    pub file_bytes: u64,
}

/// Reads a whole table file into memory, checking everything.
pub fn read_table(path: &Path) -> Result<LoadedTable, TableError> {
    let file = TableFile::open(path)?;
    let values = file.load_dtm()?.into_stored();
    Ok(LoadedTable {
        header: file.header.clone(),
        values,
        file_bytes: file.file_bytes(),
    })
}

/// Rewrites a table file in the current format ([`FORMAT_VERSION`]), keeping its values,
/// rule set and statistics; everything is checked on the way in. Returns the file's size in
/// bytes before and after.
/// A DTM section already in the current layout is copied, not compressed again.
pub fn repack(path: &Path) -> Result<(u64, u64), TableError> {
    let old = TableFile::open(path)?;
    if old.header().format_version == FORMAT_VERSION {
        // Already current: nothing is rewritten (a read-only folder of current tables is
        // fine). The checksums are still checked.
        old.verify_checksums()?;
        return Ok((old.file_bytes(), old.file_bytes()));
    }
    // Checks every checksum on the way.
    let values = old.load_dtm()?.into_stored();
    let h = old.header();
    let dtm = &h.dtm;
    let bytes = &old.payload()[dtm.offsets[0] as usize..*dtm.offsets.last().expect("end") as usize];
    let new_bytes = write_table_reusing(
        path,
        &h.rules,
        &h.material,
        values,
        h.stats.clone(),
        Some((dtm, bytes)),
    )?;
    Ok((old.file_bytes(), new_bytes))
}

/// The file name of a material set's table under a rule set: `KRKAA.asian.ctb`.
pub fn file_name(material: &str, rules: &str) -> String {
    format!("{material}.{rules}.{EXTENSION}")
}
