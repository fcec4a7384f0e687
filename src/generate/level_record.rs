//! The distances of a search in bitmaps, kept on disk: each level's frontier (the positions
//! decided at that distance to mate, per side to move) is written as it is told, and read
//! back into the writer's cells once the search and the rules' pass are done. A position is
//! decided once, so its distance is the one level whose frontier holds it.
//!
//! A frontier is written as its bitmap's chunks of [`CHUNK_WORDS`] words, each compressed
//! with zstd and skipped where no bit is set: a level's few positions take a few bytes, and
//! the search holds no byte a position for its distances.

use super::bits::Bits;
use super::cells::Cells;
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Bitmap words a record chunk holds: 2^20 slots, 128 KiB of bitmap.
const CHUNK_WORDS: usize = 1 << 14;

/// zstd's level for the chunks: the fastest that still shrinks a sparse bitmap to a few
/// bits a set bit.
const ZSTD_LEVEL: i32 = 1;

/// Chunks of one frontier compressed at a time, in parallel.
const GROUP_CHUNKS: usize = 16;

/// Compressed bytes read back at a time before they are applied in parallel.
const REPLAY_BATCH_BYTES: usize = 8 << 20;

/// The frontiers written so far, in a temporary file removed when dropped.
pub(super) struct LevelRecord {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    /// Positions recorded per side to move.
    recorded: [u64; 2],
}

/// One compressed chunk's place: level, side to move, chunk index, compressed bytes.
struct ChunkHeader {
    level: u16,
    side: u8,
    chunk: u32,
    len: u32,
}

impl ChunkHeader {
    const BYTES: usize = 11;

    fn encode(&self) -> [u8; Self::BYTES] {
        let mut b = [0u8; Self::BYTES];
        b[0..2].copy_from_slice(&self.level.to_le_bytes());
        b[2] = self.side;
        b[3..7].copy_from_slice(&self.chunk.to_le_bytes());
        b[7..11].copy_from_slice(&self.len.to_le_bytes());
        b
    }

    fn decode(b: &[u8; Self::BYTES]) -> ChunkHeader {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        ChunkHeader {
            level: u16::from_le_bytes([b[0], b[1]]),
            side: b[2],
            chunk: u32_at(3),
            len: u32_at(7),
        }
    }
}

impl LevelRecord {
    /// A new record in the file `path` (created, and removed when the record is dropped).
    ///
    /// # Errors
    /// The file cannot be created.
    pub(super) fn create(path: &Path) -> std::io::Result<LevelRecord> {
        let file = File::create(path)?;
        Ok(LevelRecord {
            path: path.to_path_buf(),
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            recorded: [0, 0],
        })
    }

    /// Writes `frontier`, the positions of `side` to move decided at distance `level`: its
    /// chunks compressed in parallel, [`GROUP_CHUNKS`] at a time, so that few compressed
    /// chunks are held at once.
    ///
    /// # Errors
    /// The file cannot be written.
    pub(super) fn write(
        &mut self,
        level: u16,
        side: usize,
        frontier: &Bits,
    ) -> std::io::Result<()> {
        let words = frontier.word_count();
        let chunks = words.div_ceil(CHUNK_WORDS);
        for group in (0..chunks).step_by(GROUP_CHUNKS) {
            let packed: Vec<(u32, u64, Vec<u8>)> = (group..(group + GROUP_CHUNKS).min(chunks))
                .into_par_iter()
                .filter_map(|c| compress_chunk(frontier, c, words).transpose())
                .collect::<std::io::Result<_>>()?;
            let out = self
                .out
                .as_mut()
                .expect("a record is written before it is read");
            for (chunk, ones, bytes) in packed {
                let header = ChunkHeader {
                    level,
                    side: side as u8,
                    chunk,
                    len: bytes.len() as u32,
                };
                out.write_all(&header.encode())?;
                out.write_all(&bytes)?;
                self.recorded[side] += ones;
            }
        }
        Ok(())
    }

    /// The record's file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Positions recorded for `side` to move.
    pub(super) fn recorded(&self, side: usize) -> u64 {
        self.recorded[side]
    }

    /// Sets the distance of every recorded position in `cells`; returns how many were set
    /// per side to move.
    ///
    /// # Errors
    /// The file cannot be read back, or holds a chunk that does not decompress to a chunk.
    pub(super) fn replay_into(&mut self, cells: &Cells) -> std::io::Result<[u64; 2]> {
        if let Some(out) = self.out.take() {
            out.into_inner().map_err(|e| e.into_error())?;
        }
        let mut input = BufReader::with_capacity(1 << 20, File::open(&self.path)?);
        let mut set = [0u64; 2];
        loop {
            let batch = read_batch(&mut input)?;
            if batch.is_empty() {
                return Ok(set);
            }
            let counts = batch
                .par_iter()
                .map(|(header, packed)| apply_chunk(header, packed, cells))
                .collect::<std::io::Result<Vec<(u8, u64)>>>()?;
            for (side, n) in counts {
                set[side as usize] += n;
            }
        }
    }
}

impl Drop for LevelRecord {
    fn drop(&mut self) {
        self.out = None;
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Chunk `c` of `frontier` (of `words` words) compressed, with its index and how many bits
/// it holds; `None` if it holds none.
fn compress_chunk(
    frontier: &Bits,
    c: usize,
    words: usize,
) -> std::io::Result<Option<(u32, u64, Vec<u8>)>> {
    let range = c * CHUNK_WORDS..((c + 1) * CHUNK_WORDS).min(words);
    let ones: u64 = range
        .clone()
        .map(|k| frontier.word(k).count_ones() as u64)
        .sum();
    if ones == 0 {
        return Ok(None);
    }
    let bytes: Vec<u8> = range.flat_map(|k| frontier.word(k).to_le_bytes()).collect();
    let packed = zstd::bulk::compress(&bytes, ZSTD_LEVEL)?;
    Ok(Some((c as u32, ones, packed)))
}

/// Chunks read from `input` until [`REPLAY_BATCH_BYTES`] or the end.
fn read_batch(input: &mut impl Read) -> std::io::Result<Vec<(ChunkHeader, Vec<u8>)>> {
    let mut batch = Vec::new();
    let mut bytes = 0;
    while bytes < REPLAY_BATCH_BYTES {
        let mut head = [0u8; ChunkHeader::BYTES];
        match input.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        }
        let header = ChunkHeader::decode(&head);
        let mut packed = vec![0u8; header.len as usize];
        input.read_exact(&mut packed)?;
        bytes += packed.len();
        batch.push((header, packed));
    }
    Ok(batch)
}

/// Sets the distance of the positions of one chunk in `cells`; returns its side and how many.
fn apply_chunk(header: &ChunkHeader, packed: &[u8], cells: &Cells) -> std::io::Result<(u8, u64)> {
    let bytes = zstd::bulk::decompress(packed, CHUNK_WORDS * 8)?;
    if bytes.len() % 8 != 0 || header.side > 1 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "a level record's chunk is damaged",
        ));
    }
    let base = header.chunk as u64 * CHUNK_WORDS as u64 * 64;
    let side = header.side as usize;
    let mut n = 0;
    for (k, word) in bytes.chunks_exact(8).enumerate() {
        let mut w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        while w != 0 {
            let slot = base + k as u64 * 64 + w.trailing_zeros() as u64;
            cells.set_distance(side, slot, header.level);
            n += 1;
            w &= w - 1;
        }
    }
    Ok((header.side, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recorded_position_gets_its_level() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("levels");
        let size = 3 * CHUNK_WORDS as u64 * 64 + 100;
        let mut record = LevelRecord::create(&path).unwrap();
        let frontier = Bits::new(size);
        for (level, slots) in [
            (0u16, vec![0, size - 1]),
            (7, vec![5, 64 * CHUNK_WORDS as u64]),
        ] {
            frontier.clear_all();
            for s in slots {
                frontier.set(s);
            }
            record.write(level, 1, &frontier).unwrap();
        }
        frontier.clear_all();
        frontier.set(300);
        record.write(300, 0, &frontier).unwrap();
        assert_eq!([record.recorded(0), record.recorded(1)], [1, 4]);
        let cells = Cells::new(size);
        assert_eq!(record.replay_into(&cells).unwrap(), [1, 4]);
        assert_eq!(cells.distance(1, 0), Some(0));
        assert_eq!(cells.distance(1, size - 1), Some(0));
        assert_eq!(cells.distance(1, 5), Some(7));
        assert_eq!(cells.distance(1, 64 * CHUNK_WORDS as u64), Some(7));
        assert_eq!(cells.distance(0, 300), Some(300), "a distance past a byte");
        assert_eq!(cells.distance(0, 5), None);
        drop(record);
        assert!(!path.exists(), "the record's file is removed");
    }
}
