//! Reading tables: the file through a memory map, blocks decompressed on demand into a small
//! cache, whole sections for the generator and the verifier.
//!
//! **The memory-map contract.** A table is never changed in place: the writer makes a
//! temporary file and renames it over the old one, so a reader that mapped the old file keeps
//! reading the old file's pages, whole, until it drops its `TableFile` (a regeneration is seen
//! after [`crate::probe::Tablebase::forget`] or in a new process). Changing a mapped file in
//! place is outside the contract: bytes rewritten under a reader are caught by the block and
//! chunk checksums where a read crosses them, but a file *truncated* under a reader makes the
//! operating system stop the process (SIGBUS) when it touches a page past the new end; no
//! memory-mapped reader can turn that into an error. Do not truncate or edit table files that
//! a running canju has open; replace them by rename, as canju does.

use super::*;
use crate::value::{
    MAX_DISTANCE, STORED_DRAW, STORED_ILLEGAL, STORED_RULE_LOWEST, STORED_RULE_WIN,
};
use memmap2::Mmap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use xxhash_rust::xxh3::xxh3_64;

/// Most decompressed blocks kept per table (a table with fewer blocks keeps them all).
pub(super) const CACHE_SLOTS: usize = 256;

/// Which section of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionKind {
    /// Win/draw/loss, 2 bits a position.
    Wdl,
    /// Distance to mate.
    Dtm,
}

thread_local! {
    /// This thread's zstd decompression contexts, made on first use: for frames of the
    /// standard format, and for the magicless frames of [`Codec::ZstdBare`].
    static DCTX: std::cell::RefCell<[Option<zstd::zstd_safe::DCtx<'static>>; 2]> =
        const { std::cell::RefCell::new([None, None]) };
}

/// A zstd decompression context for frames of the standard format, or with `bare` for the
/// magicless frames of [`Codec::ZstdBare`].
fn decompression_context(bare: bool) -> zstd::zstd_safe::DCtx<'static> {
    use zstd::zstd_safe::{DParameter, FrameFormat};
    let mut dctx = zstd::zstd_safe::DCtx::create();
    if bare {
        dctx.set_parameter(DParameter::Format(FrameFormat::Magicless))
            .expect("zstd accepts the magicless format");
    }
    dctx
}

/// A decompressed block and its key (section and block number).
pub(super) type CachedBlock = (u64, Arc<Vec<u8>>);

/// Where a table file's bytes are read from: a memory map of the file ([`TableFile::open`]),
/// or bytes already in memory ([`TableFile::from_bytes`]: tests and fuzz targets feed a
/// reader so, without a file).
pub trait TableBytes: Send + Sync {
    /// Every byte of the file.
    fn bytes(&self) -> &[u8];
}

impl TableBytes for Mmap {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl TableBytes for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

/// A table file read through a memory map (or from bytes in memory); blocks are
/// decompressed on demand and the most recent ones kept in a small cache. `Send + Sync`.
pub struct TableFile {
    path: PathBuf,
    bytes: Box<dyn TableBytes>,
    header: Header,
    payload_start: usize,
    cache: Vec<Mutex<Option<CachedBlock>>>,
    /// Prepared dictionaries of the sections that have one (WDL, DTM).
    dictionaries: [Option<zstd::dict::DecoderDictionary<'static>>; 2],
    /// Decoder and block index of the WDL section when it is [`Codec::Lzh`].
    wdl_decoder: Option<(lzh::BlockDecoder, lzh::BlockIndex)>,
    /// Per section (WDL, DTM), one bit per [`CHECK_CHUNK`] of a section with chunk sums
    /// ([`Codec::Lzh`], [`Codec::ZstdBare`]): checksum seen to match.
    verified: [Vec<AtomicU64>; 2],
}

impl TableFile {
    /// Opens and checks a table file: magic, versions, header checksum, section layout and
    /// size. Payload checksums are checked by [`TableFile::verify_checksums`] and each block's
    /// own checksum whenever it is decompressed.
    ///
    /// # Errors
    /// The file cannot be read or mapped ([`TableError::Io`]), or one of its checks fails:
    /// a bad magic, a version this build does not read, a truncated file, trailing bytes, or
    /// a header that does not hold together (each named).
    pub fn open(path: &Path) -> Result<TableFile, TableError> {
        let file = fs::File::open(path).map_err(io_err(path))?;
        // SAFETY: the map is read-only; tables are written to a new file and renamed into
        // place, so a finished file is never modified while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(io_err(path))?;
        TableFile::with_bytes(path, Box::new(map))
    }

    /// Opens and checks a table file's bytes held in memory, as [`TableFile::open`] does a
    /// file; `path` only names it in errors.
    ///
    /// # Errors
    /// As [`TableFile::open`], but for reading the file.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<TableFile, TableError> {
        TableFile::with_bytes(path, Box::new(bytes))
    }

    fn with_bytes(path: &Path, bytes: Box<dyn TableBytes>) -> Result<TableFile, TableError> {
        let (header, payload_start) = parse_header(path, bytes.bytes())?;
        let blocks = header.dtm.as_ref().map_or(0, |s| s.offsets.len())
            + match header.wdl.codec {
                Codec::Lzh => 0,
                Codec::Zstd | Codec::ZstdHalves | Codec::ZstdBare => header.wdl.offsets.len(),
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
        let dictionaries = [
            prepare(&header.wdl)?,
            header.dtm.as_ref().map(prepare).transpose()?.flatten(),
        ];
        let wdl_decoder = match header.wdl.codec {
            Codec::Lzh => Some(
                lzh::BlockDecoder::new(&header.wdl.codes)
                    .zip(lzh::BlockIndex::new(&header.wdl, header.slots))
                    .ok_or_else(|| TableError::CorruptHeader {
                        path: path.into(),
                        check: "the WDL codes or block index",
                    })?,
            ),
            Codec::Zstd | Codec::ZstdHalves | Codec::ZstdBare => None,
        };
        let unverified = |s: Option<&Section>| {
            let chunks = s.map_or(0, |s| s.chunk_sums.len());
            (0..chunks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect()
        };
        let verified = [
            unverified(Some(&header.wdl)),
            unverified(header.dtm.as_ref()),
        ];
        Ok(TableFile {
            dictionaries,
            wdl_decoder,
            verified,
            path: path.to_path_buf(),
            bytes,
            header,
            payload_start,
            cache: (0..CACHE_SLOTS.min(blocks).max(1))
                .map(|_| Mutex::new(None))
                .collect(),
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// True if the DTM section's halves tell the [`Rule`](crate::value::Rule) of each result
    /// by the rule apart (format 8 on; before, all were the perpetual-check rule's).
    fn rule_kinds(&self) -> bool {
        self.header.format_version >= CHASE_RULE_VERSION
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
        self.bytes.bytes().len() as u64
    }

    /// Compressed bytes of one section (0 for the DTM section of a table without distances).
    pub fn section_bytes(&self, kind: SectionKind) -> u64 {
        let Ok(s) = self.section(kind) else {
            return 0;
        };
        s.offsets.last().copied().unwrap_or(0) - s.offsets.first().copied().unwrap_or(0)
    }

    /// A section; [`TableError::NoDistances`] for the DTM section of a table without one.
    fn section(&self, kind: SectionKind) -> Result<&Section, TableError> {
        match kind {
            SectionKind::Wdl => Ok(&self.header.wdl),
            SectionKind::Dtm => self
                .header
                .dtm
                .as_ref()
                .ok_or_else(|| TableError::NoDistances(self.path.clone())),
        }
    }

    pub(super) fn payload(&self) -> &[u8] {
        &self.bytes.bytes()[self.payload_start..]
    }

    /// Checks both sections (the WDL section alone in a table without distances) against
    /// their checksums.
    pub fn verify_checksums(&self) -> Result<(), TableError> {
        for s in std::iter::once(&self.header.wdl).chain(&self.header.dtm) {
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

    /// Checks the chunks of section `kind` that `range` of the payload touches against their
    /// checksums, unless already done.
    fn check_chunks(
        &self,
        kind: SectionKind,
        range: &std::ops::Range<usize>,
    ) -> Result<(), TableError> {
        let s = self.section(kind)?;
        let (base, end) = (
            s.offsets[0] as usize,
            *s.offsets.last().expect("end") as usize,
        );
        if range.is_empty() {
            return Ok(());
        }
        for c in (range.start - base) / CHECK_CHUNK..=(range.end - 1 - base) / CHECK_CHUNK {
            let (word, bit) = (&self.verified[kind as usize][c / 64], 1u64 << (c % 64));
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
    pub(super) fn decompress(&self, kind: SectionKind, b: usize) -> Result<Vec<u8>, TableError> {
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
        let s = self.section(kind)?;
        let n = self.block_len(s, b);
        let want = match s.value_bytes {
            0 => n.div_ceil(4),
            k => n * k as usize,
        };
        let (a, z) = (s.offsets[b] as usize, s.offsets[b + 1] as usize);
        let bare = s.codec == Codec::ZstdBare;
        if bare {
            // The frame has no checksum of its own.
            self.check_chunks(kind, &(a..z))?;
        }
        let frame = &self.payload()[a..z];
        raw.clear();
        raw.reserve_exact(want);
        // One decompression context per thread: creating one costs more than a small block.
        let done = DCTX.with(|cell| {
            let mut cell = cell.borrow_mut();
            let dctx = cell[bare as usize].get_or_insert_with(|| decompression_context(bare));
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

    /// The block of section `s` holding slot `index` of the side whose blocks start at block
    /// `first`, and the slot's place in it.
    fn locate(&self, s: &Section, first: usize, index: u64) -> (usize, usize) {
        let b = first as u64 + index / s.block_values as u64;
        (b as usize, (index % s.block_values as u64) as usize)
    }

    /// The first block of `side`'s (0 red, 1 black) distances in the DTM section.
    ///
    /// # Errors
    /// [`TableError::NoDistances`] for a table without distances,
    /// [`TableError::DistancesNotStored`] for the side a one-ply search gives.
    fn first_dtm_block(&self, side: usize) -> Result<usize, TableError> {
        let s = self.section(SectionKind::Dtm)?;
        if !self.header.stores_distances_of(side) {
            return Err(TableError::DistancesNotStored {
                path: self.path.clone(),
                side,
            });
        }
        let per_side = self.header.slots.div_ceil(s.block_values as u64) as usize;
        Ok(match self.header.dtm_side {
            Some(_) => 0,
            None => side * per_side,
        })
    }

    /// Win/draw/loss code ([`WDL_LOSS`], [`WDL_DRAW`], [`WDL_WIN`], and in a table without
    /// distances [`WDL_RULE_LOSS`] and [`WDL_RULE_WIN`]) of slot `index` with `side` (0 red,
    /// 1 black) to move. Meaningless for unused slots.
    pub fn wdl(&self, side: usize, index: u64) -> Result<u8, TableError> {
        if let Some((decoder, blocks)) = &self.wdl_decoder {
            let (block, at) = blocks.locate(side as u64 * self.header.slots + index);
            self.check_chunks(SectionKind::Wdl, &block.bytes)?;
            return decoder
                .value_at(&self.payload()[block.bytes.clone()], &block, at)
                .ok_or_else(|| TableError::CorruptPayload(self.path.clone()));
        }
        let s = &self.header.wdl;
        let per_side = self.header.slots.div_ceil(s.block_values as u64) as usize;
        let (b, at) = self.locate(s, side * per_side, index);
        let block = self.cached_block(SectionKind::Wdl, b)?;
        Ok((block[at / 4] >> (2 * (at % 4))) & 3)
    }

    /// Stored distance value (see [`crate::value::Value`]) of slot `index` with `side` to move.
    ///
    /// # Errors
    /// [`TableError::NoDistances`] for a table generated with `--wdl-only`,
    /// [`TableError::DistancesNotStored`] for the side whose distances a one-ply search gives
    /// ([`Header::dtm_side`]); a damaged block.
    pub fn dtm(&self, side: usize, index: u64) -> Result<u16, TableError> {
        let first = self.first_dtm_block(side)?;
        let s = self.section(SectionKind::Dtm)?;
        let (codec, value_bytes) = (s.codec, s.value_bytes);
        // Halves: the WDL code first, so that a draw needs no DTM block at all.
        let code = match codec {
            Codec::ZstdHalves | Codec::ZstdBare => Some(self.wdl(side, index)?),
            _ => None,
        };
        if code == Some(WDL_DRAW) {
            return Ok(STORED_DRAW);
        }
        let (b, at) = self.locate(s, first, index);
        let block = self.cached_block(SectionKind::Dtm, b)?;
        let raw = match value_bytes {
            1 => u16::from(block[at]),
            _ => u16::from_le_bytes([block[2 * at], block[2 * at + 1]]),
        };
        Ok(match (code, value_bytes) {
            (Some(code), w) => stored_of_half(raw, code, w, self.rule_kinds()),
            (None, 1) => dtm_from_byte(raw as u8),
            (None, _) => raw,
        })
    }

    /// Every WDL code ([`TableFile::wdl`]), per side to move (checksums checked).
    ///
    /// # Errors
    /// A checksum mismatch or a block that does not decode.
    pub fn load_wdl(&self) -> Result<[Vec<u8>; 2], TableError> {
        self.verify_checksums()?;
        Ok([self.decode_wdl_side(0)?, self.decode_wdl_side(1)?])
    }

    /// The WDL codes of `side` (0 red, 1 black) to move, whole (checksums checked).
    ///
    /// # Errors
    /// As [`TableFile::load_wdl`].
    pub fn load_wdl_of(&self, side: usize) -> Result<Vec<u8>, TableError> {
        self.verify_checksums()?;
        self.decode_wdl_side(side)
    }

    /// The WDL codes of one side, its blocks decoded in parallel (checksums not checked).
    fn decode_wdl_side(&self, side: usize) -> Result<Vec<u8>, TableError> {
        use rayon::prelude::*;
        let s = &self.header.wdl;
        let corrupt = || TableError::CorruptPayload(self.path.clone());
        let blocks: Vec<Vec<u8>> = match &self.wdl_decoder {
            Some((decoder, index)) => {
                // Blocks end where a side ends: red's are those before black's first value.
                let first_black = (0..index.blocks())
                    .scan(0u64, |seen, b| {
                        let before = *seen;
                        *seen += index.block(b).values as u64;
                        Some(before)
                    })
                    .position(|before| before >= self.header.slots)
                    .unwrap_or(index.blocks());
                let range = match side {
                    0 => 0..first_black,
                    _ => first_black..index.blocks(),
                };
                range
                    .into_par_iter()
                    .map(|b| {
                        let block = index.block(b);
                        decoder
                            .decode(&self.payload()[block.bytes.clone()], &block)
                            .ok_or_else(corrupt)
                    })
                    .collect::<Result<_, _>>()?
            }
            None => {
                let per_side = self.header.slots.div_ceil(s.block_values as u64) as usize;
                (side * per_side..(side + 1) * per_side)
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
        let codes = blocks.concat();
        if codes.len() as u64 != self.header.slots {
            return Err(corrupt());
        }
        Ok(codes)
    }

    /// Every stored distance value, per side to move (checksums checked).
    ///
    /// # Errors
    /// As [`TableFile::load_dtm_of`], for either side.
    pub fn load_dtm(&self) -> Result<DtmValues, TableError> {
        self.verify_checksums()?;
        Ok(DtmValues([self.read_dtm_side(0)?, self.read_dtm_side(1)?]))
    }

    /// The DTM section of one side to move (0 red, 1 black) read whole, after checking the
    /// checksums: what the generator needs of a sub-table, whose positions after a capture
    /// all have the same side to move.
    ///
    /// # Errors
    /// [`TableError::DistancesNotStored`] for the side a one-ply search gives; a checksum
    /// mismatch or a block that does not decode.
    pub fn load_dtm_of(&self, side: usize) -> Result<DtmSide, TableError> {
        self.first_dtm_block(side)?;
        self.verify_checksums()?;
        self.read_dtm_side(side)
    }

    /// One side's DTM values: distances as the file stores them (formats up to 6), or halves
    /// made whole with the WDL codes (format 7).
    fn read_dtm_side(&self, side: usize) -> Result<DtmSide, TableError> {
        let byte = |[b]: [u8; 1]| b;
        let s = self.section(SectionKind::Dtm)?;
        if s.codec.holds_halves() {
            return self.read_halves_side(side, s.value_bytes);
        }
        Ok(match s.value_bytes {
            1 => DtmSide::Bytes(self.load_dtm_side(side, byte)?),
            _ => DtmSide::Words(self.load_dtm_side(side, u16::from_le_bytes)?),
        })
    }

    /// One side of a [`Codec::ZstdHalves`] or [`Codec::ZstdBare`] section, whole (checksums checked by the caller),
    /// made whole with the side's WDL codes.
    fn read_halves_side(&self, side: usize, value_bytes: u8) -> Result<DtmSide, TableError> {
        let mut values = match value_bytes {
            1 => self.load_dtm_side(side, |[b]: [u8; 1]| u16::from(b))?,
            _ => self.load_dtm_side(side, u16::from_le_bytes)?,
        };
        let codes = self.decode_wdl_side(side)?;
        let kinds = self.rule_kinds();
        for (v, code) in values.iter_mut().zip(codes) {
            *v = stored_of_half(*v, code, value_bytes, kinds);
            // A correct file fills unused slots in both sections from the same slot, so
            // every slot reads as a value.
            if *v == STORED_ILLEGAL {
                return Err(TableError::CorruptPayload(self.path.clone()));
            }
        }
        Ok(DtmSide::from_stored(values))
    }

    /// One side's DTM values, each made by `value` from its bytes, block by block into one
    /// vector (no copy of the whole).
    fn load_dtm_side<T: Copy + Default + Send, const N: usize>(
        &self,
        side: usize,
        value: impl Fn([u8; N]) -> T + Sync,
    ) -> Result<Vec<T>, TableError> {
        use rayon::prelude::*;
        let s = self.section(SectionKind::Dtm)?;
        let first = self.first_dtm_block(side)?;
        let mut out = vec![T::default(); self.header.slots as usize];
        out.par_chunks_mut(s.block_values as usize)
            .enumerate()
            .try_for_each(|(b, dst)| {
                let raw = self.decompress(SectionKind::Dtm, first + b)?;
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

/// One side to move's values read whole, a byte a value where every one has a one-byte form
/// ([`DtmSide::from_stored`]), else two.
pub enum DtmSide {
    /// The one-byte form (distances below 0xFD, then loss and win by the perpetual-check
    /// rule, draw).
    Bytes(Vec<u8>),
    /// Stored values.
    Words(Vec<u16>),
}

impl DtmSide {
    /// Stored values, kept a byte each when every one has a one-byte form (formats up to 6
    /// wrote it: no distance from 0xFD on, and of the results by the rule only the
    /// perpetual-check rule's).
    pub fn from_stored(values: Vec<u16>) -> DtmSide {
        let one_byte = |v: u16| {
            !(0xFD..=MAX_DISTANCE).contains(&v)
                && !(STORED_RULE_LOWEST..STORED_RULE_WIN).contains(&v)
        };
        if values.iter().all(|&v| one_byte(v)) {
            DtmSide::Bytes(values.into_iter().map(dtm_byte).collect())
        } else {
            DtmSide::Words(values)
        }
    }

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
    /// Values per side to move (red, black), in stored form; `None` for the side whose
    /// distances the file does not store ([`Header::dtm_side`]: a one-ply search through
    /// [`crate::probe::Tablebase`] gives them).
    pub values: [Option<Vec<u16>>; 2],
    /// Size of the file in bytes.
    pub file_bytes: u64,
}

/// Reads a whole table file into memory, checking everything it holds: the checksums, every
/// WDL block and every DTM block.
///
/// # Errors
/// A damaged file, or [`TableError::NoDistances`] for a table without distances.
pub fn read_table(path: &Path) -> Result<LoadedTable, TableError> {
    let file = TableFile::open(path)?;
    file.section(SectionKind::Dtm)?;
    file.verify_checksums()?;
    // A stored side's distances are read with its WDL codes; the other side's codes alone.
    let read = |side: usize| -> Result<Option<Vec<u16>>, TableError> {
        match file.header.stores_distances_of(side) {
            true => Ok(Some(file.read_dtm_side(side)?.into_stored())),
            false => file.decode_wdl_side(side).map(|_| None),
        }
    };
    let values = [read(0)?, read(1)?];
    Ok(LoadedTable {
        header: file.header.clone(),
        values,
        file_bytes: file.file_bytes(),
    })
}
