//! Table files: a checksummed header (bincode) followed by compressed blocks, read through a
//! memory map one block at a time.
//!
//! One file per material set and rule set, `MATERIAL.RULES.ctb` (`KRKAA.asian.ctb`), holding
//! two sections for both sides to move (the second absent in a table without distances):
//!
//! - **wdl**: win/draw/loss for the side to move (0 loss, 1 draw, 2 win; in a table without
//!   distances also 3 loss by the rule, 4 win by it), one value per slot,
//!   compressed with the section's own LZ77 + Huffman codec ([`Codec::Lzh`], module [`lzh`])
//!   in blocks of [`lzh::BLOCK_BYTES`], one cache line each, holding two interleaved token
//!   streams, so a probe reads one line, decodes a few dozen tokens and copies nothing; a
//!   block index (values and first-stream bytes per block) sits in the header, and checksums
//!   per [`CHECK_CHUNK`] bytes of the section are checked the first time a probe reads a
//!   chunk;
//! - **dtm** (from format 7, [`Codec::ZstdHalves`]): the distance to mate relative to what
//!   the WDL section says, its *half*: a win in `n` plies (odd) as `(n + 1) / 2`, a loss in `n`
//!   (even) as `n / 2`, a result by the perpetual-check rule as the width's largest value
//!   (255 or `0xFFFF`); draws and unused slots repeat the half before them (the WDL code says
//!   there is no distance, so any value does, and a repeat costs nothing to compress). One
//!   byte a position when every half fits below 255 (distances up to 508 plies), else two
//!   bytes little endian; zstd frames of [`DTM_BLOCK`] positions, each with its content
//!   checksum, optionally with a zstd dictionary trained on the section. A probe reads the
//!   half and the slot's WDL code. Formats up to 6 stored the distance itself ([`Codec::Zstd`]:
//!   255 draw, 254 win by rule, 253 loss by rule in the one-byte form; `0xFFFE`, `0xFFFC`,
//!   `0xFFFD` in the two-byte one). A table generated with `--wdl-only` has no DTM section (the
//!   header's `dtm` is `None`); its WDL codes then also tell results by the rule apart (3 loss
//!   by the rule, 4 win by it), which a table with distances keeps in its DTM section.
//!   From format 9 the DTM section may hold one side to move's blocks only
//!   ([`Header::dtm_side`]): the other side's distances follow by a one-ply search over the
//!   stored side (`crate::probe::Tablebase`), and that side's WDL codes tell results by the
//!   rule apart, as a table without distances does.
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
//! and 4 (WDL as zstd frames of 2-bit values; 3 without dictionaries), 5 (WDL blocks of one
//! stream and any length, no padding before the payload) and 6 (a DTM section always, holding
//! distances) are still read, and `canju repack` rewrites them in the current format (their
//! DTM sections as halves).
//!
//! One job a file: `format.rs` (the layout, its versions and the header's
//! checks), `error.rs`, `reader.rs` (memory map, block cache, whole sections), `writer.rs`
//! (compression, atomic writes, repack), and a module per codec (`lzh/` on `huffman.rs` for
//! WDL; zstd for DTM, inside the reader and writer).

mod error;
mod format;
mod huffman;
pub mod lzh;
mod reader;
mod writer;

pub use error::*;
pub use format::*;
pub use reader::*;
pub use writer::*;

/// The material and rule-set parts of a table file's name (`KRKN` and `asian` of
/// `KRKN.asian.ctb`), empty where the name lacks them.
pub fn name_parts(path: &std::path::Path) -> (String, String) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut parts = name.split('.').map(str::to_string);
    (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    )
}

/// The file name of a material set's table under a rule set: `KRKAA.asian.ctb`.
pub fn file_name(material: &str, rules: &str) -> String {
    format!("{material}.{rules}.{EXTENSION}")
}
