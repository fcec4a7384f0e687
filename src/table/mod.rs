//! Table files: a checksummed header (bincode) followed by zstd-compressed blocks of values.
//!
//! Layout of `MATERIAL.dtm`:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `CANJUTB\x1a` |
//! | 4 | header length, little endian |
//! | 8 | xxh3-64 of the header bytes |
//! | n | header ([`Header`], bincode standard config) |
//! | ... | payload: zstd blocks, red-to-move blocks first, then black-to-move |
//!
//! Each value is a little-endian u16: the distance to mate in plies (odd: the side to move
//! wins, even: it loses), `0xFFFE` for a draw. Slots that hold no legal position carry the
//! previous slot's value so they cost nothing after compression.

use crate::value::{STORED_DRAW, STORED_ILLEGAL};
use bincode::{Decode, Encode};
use serde::Serialize;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

/// First bytes of every table file.
pub const MAGIC: &[u8; 8] = b"CANJUTB\x1a";
/// Version of the file layout; readers refuse other versions.
pub const FORMAT_VERSION: u32 = 1;
/// Version of the position <-> index scheme (crate::index).
pub const INDEX_VERSION: u32 = 1;
/// Values per compressed block.
pub const BLOCK_VALUES: u32 = 1 << 15;
/// File extension of distance-to-mate tables.
pub const EXTENSION: &str = "dtm";
const ZSTD_LEVEL: i32 = 15;
/// Largest header a reader accepts (a corrupted length must not make it allocate gigabytes).
const MAX_HEADER: u32 = 64 << 20;

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
    /// Values per block.
    pub block_values: u32,
    /// Byte length of each compressed block, red to move first.
    pub block_lengths: Vec<u32>,
    /// xxh3-64 of the payload.
    pub payload_checksum: u64,
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
    /// The header does not match its checksum or cannot be decoded.
    #[error("{0}: corrupted header")]
    CorruptHeader(PathBuf),
    /// Written by another version of canju.
    #[error(
        "{path}: format version {found}, index version {index}; this canju reads {FORMAT_VERSION}/{INDEX_VERSION}"
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

/// Replaces illegal markers by the previous value so they compress away.
fn fill_dont_care(values: &[u16]) -> Vec<u16> {
    let mut last = STORED_DRAW;
    values
        .iter()
        .map(|&v| {
            if v != STORED_ILLEGAL {
                last = v;
            }
            last
        })
        .collect()
}

/// Compresses one side's values into blocks.
fn compress_side(values: &[u16]) -> Vec<Vec<u8>> {
    use rayon::prelude::*;
    let filled = fill_dont_care(values);
    filled
        .par_chunks(BLOCK_VALUES as usize)
        .map(|chunk| {
            let bytes: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
            zstd::bulk::compress(&bytes, ZSTD_LEVEL).expect("in-memory zstd compression")
        })
        .collect()
}

/// Writes a table atomically: a temporary file in the same folder, synced, then renamed.
pub fn write_table(
    path: &Path,
    rules: &str,
    material: &str,
    values: [&[u16]; 2],
    stats: [SideStats; 2],
) -> Result<u64, TableError> {
    let slots = values[0].len() as u64;
    let mut blocks = compress_side(values[0]);
    blocks.extend(compress_side(values[1]));
    let payload: Vec<u8> = blocks.concat();
    let header = Header {
        format_version: FORMAT_VERSION,
        rules: rules.to_string(),
        material: material.to_string(),
        index_version: INDEX_VERSION,
        slots,
        block_values: BLOCK_VALUES,
        block_lengths: blocks.iter().map(|b| b.len() as u32).collect(),
        payload_checksum: xxh3_64(&payload),
        stats,
    };
    let head =
        bincode::encode_to_vec(&header, bincode::config::standard()).expect("header encodes");
    let tmp = path.with_extension(format!("{EXTENSION}.tmp{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(head.len() as u32).to_le_bytes())?;
        f.write_all(&xxh3_64(&head).to_le_bytes())?;
        f.write_all(&head)?;
        f.write_all(&payload)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    if let Err(e) = write() {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(path)(e));
    }
    Ok(20 + head.len() as u64 + payload.len() as u64)
}

/// Reads and checks the header of a table held in `bytes`; returns it and the payload offset.
pub fn parse_header(path: &Path, bytes: &[u8]) -> Result<(Header, usize), TableError> {
    if bytes.len() < 20 {
        return Err(if bytes.len() >= 8 && &bytes[..8] != MAGIC {
            TableError::BadMagic(path.into())
        } else {
            TableError::Truncated(path.into())
        });
    }
    if &bytes[..8] != MAGIC {
        return Err(TableError::BadMagic(path.into()));
    }
    let len = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    let sum = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    if len > MAX_HEADER {
        return Err(TableError::CorruptHeader(path.into()));
    }
    let end = 20 + len as usize;
    if bytes.len() < end {
        return Err(TableError::Truncated(path.into()));
    }
    let head = &bytes[20..end];
    if xxh3_64(head) != sum {
        return Err(TableError::CorruptHeader(path.into()));
    }
    let (header, used): (Header, usize) = bincode::decode_from_slice(
        head,
        bincode::config::standard().with_limit::<{ 64 << 20 }>(),
    )
    .map_err(|_| TableError::CorruptHeader(path.into()))?;
    if used != head.len() {
        return Err(TableError::CorruptHeader(path.into()));
    }
    if header.format_version != FORMAT_VERSION || header.index_version != INDEX_VERSION {
        return Err(TableError::Version {
            path: path.into(),
            found: header.format_version,
            index: header.index_version,
        });
    }
    let blocks_per_side = header.slots.div_ceil(header.block_values.max(1) as u64);
    if header.block_values == 0 || header.block_lengths.len() as u64 != 2 * blocks_per_side {
        return Err(TableError::CorruptHeader(path.into()));
    }
    let payload_len: u64 = header.block_lengths.iter().map(|&l| l as u64).sum();
    if (bytes.len() - end) as u64 != payload_len {
        return Err(TableError::Truncated(path.into()));
    }
    Ok((header, end))
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

/// Reads a table file, checking magic, versions, size, checksums and block sizes.
pub fn read_table(path: &Path) -> Result<LoadedTable, TableError> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    let (header, start) = parse_header(path, &bytes)?;
    let payload = &bytes[start..];
    if xxh3_64(payload) != header.payload_checksum {
        return Err(TableError::CorruptPayload(path.into()));
    }
    let per_side = header.block_lengths.len() / 2;
    let mut values = [Vec::new(), Vec::new()];
    let mut offset = 0usize;
    for (side, vals) in values.iter_mut().enumerate() {
        vals.reserve(header.slots as usize);
        for b in 0..per_side {
            let len = header.block_lengths[side * per_side + b] as usize;
            let block = &payload[offset..offset + len];
            offset += len;
            let want = (header.slots - b as u64 * header.block_values as u64)
                .min(header.block_values as u64) as usize;
            let raw = zstd::bulk::decompress(block, want * 2)
                .map_err(|_| TableError::CorruptPayload(path.into()))?;
            if raw.len() != want * 2 {
                return Err(TableError::CorruptPayload(path.into()));
            }
            vals.extend(
                raw.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]])),
            );
        }
    }
    Ok(LoadedTable {
        header,
        values,
        file_bytes: bytes.len() as u64,
    })
}

/// The file name of a material set's table.
pub fn file_name(material: &str) -> String {
    format!("{material}.{EXTENSION}")
}
