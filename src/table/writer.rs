//! Writing tables: the values compressed block by block into a temporary file renamed when
//! complete, the temporary files of dead writers removed, and `repack` to the current format.

use super::*;
use crate::trace;
use crate::value::{MAX_DISTANCE, STORED_DRAW, STORED_ILLEGAL, rule_of_stored};
use std::fs;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// What follows [`EXTENSION`] in the name of a table being written, before the writer's
/// process id: `KRK.asian.ctb.tmp1234`.
pub(super) const TEMPORARY: &str = ".tmp";

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
/// The zstd level of the DTM blocks, taken with [`ZSTD_STRATEGY`].
pub(super) const ZSTD_LEVEL: i32 = 15;

/// The match finder the DTM blocks are compressed with at [`ZSTD_LEVEL`], in place of the
/// level's own (`btultra`): measured in stop 47 on the DTM frames of the ten largest 5-men
/// tables (`examples/dtm_zstd_params`), `btopt` took 14.3 s against 31.3 s for 0.78% more
/// bytes; a shorter target length (64) took 19.1 s for 0.55% more, `btopt` with it 12.7 s
/// for 1.22% more.
const ZSTD_STRATEGY: zstd::zstd_safe::Strategy = zstd::zstd_safe::Strategy::ZSTD_btopt;

/// The stored values of both sides to move, as the writer reads them: whole arrays, or the
/// generator's cells of one byte a position.
pub trait ValueSource: Sync {
    /// Slots per side to move.
    fn slots(&self) -> u64;

    /// Stored value of `slot` with side `side` (0 red, 1 black) to move.
    fn stored(&self, side: usize, slot: u64) -> u16;

    /// Consumes the values into the WDL code (`wdl_code`) of every slot of each side, a slot
    /// without a legal position taking the code of the slot before it (a draw at the start);
    /// on the sides `rule_codes` names, results by the rule take their own codes
    /// (`wdl_code_with`).
    fn into_wdl_codes(self, rule_codes: [RuleCodes; 2]) -> [WdlCodes; 2];

    /// True if the writer should ask for the WDL codes a block's worth at a time
    /// ([`ValueSource::wdl_codes_in`], each twice) instead of consuming the values into
    /// both sides' codes: for values much smaller than their codes (bitmaps).
    fn wdl_codes_piecewise(&self) -> bool {
        false
    }

    /// The WDL codes of `side`'s slots `range`, equal to that range of the side's codes as
    /// [`ValueSource::into_wdl_codes`] makes them (the runs without a legal position filled
    /// as there), the values kept.
    fn wdl_codes_in(&self, side: usize, range: Range<u64>, rule_codes: RuleCodes) -> Vec<u8> {
        let code_at = |i: u64| match self.stored(side, i) {
            STORED_ILLEGAL => NO_CODE,
            v => wdl_code_with(v, rule_codes),
        };
        codes_in(range, self.slots(), code_at, rule_codes)
    }
}

/// The codes of slots `range` of a side of `slots` slots whose unfilled codes `code_at`
/// gives, filled as `fill_runs_without_code` fills the whole side: the fill is made over a
/// window from two slots with a code before the first run the range holds part of (a run's
/// fill depends on the two codes before it, which may be an earlier run's) to two slots past
/// the end of the last.
pub(crate) fn codes_in(
    range: Range<u64>,
    slots: u64,
    code_at: impl Fn(u64) -> u8,
    rule_codes: RuleCodes,
) -> Vec<u8> {
    if range.is_empty() {
        return Vec::new();
    }
    let has_code = |i: u64| code_at(i) != NO_CODE;
    let mut start = range.start;
    while start > 0 && !has_code(start) {
        start -= 1;
    }
    // From the neighbours, the window starts at two codes in a row before the run; with
    // the code before, at a code.
    let wanted = if rule_codes == RuleCodes::None { 1 } else { 2 };
    let mut in_a_row = 0;
    while start > 0 && in_a_row < wanted {
        in_a_row = if has_code(start) { in_a_row + 1 } else { 0 };
        if in_a_row < wanted {
            start -= 1;
        }
    }
    let mut end = range.end;
    while end < slots && !has_code(end) {
        end += 1;
    }
    let end = (end + 2).min(slots);
    let mut codes: Vec<u8> = (start..end).map(code_at).collect();
    fill_runs_without_code(&mut codes, rule_codes);
    let from = (range.start - start) as usize;
    codes.truncate(from + (range.end - range.start) as usize);
    codes.drain(..from);
    codes
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

    /// `bytes` as codes (copied into words).
    pub fn from_bytes(bytes: Vec<u8>) -> WdlCodes {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
        WdlCodes::new(words, bytes.len())
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

    fn into_wdl_codes(self, rule_codes: [RuleCodes; 2]) -> [WdlCodes; 2] {
        let [red, black] = self;
        [(red, rule_codes[0]), (black, rule_codes[1])].map(|(side, rule_codes)| {
            let codes = side.iter().map(|&v| match v {
                STORED_ILLEGAL => NO_CODE,
                v => wdl_code_with(v, rule_codes),
            });
            let mut codes = WdlCodes::from_bytes(codes.collect());
            fill_runs_without_code(codes.bytes_mut(), rule_codes);
            codes
        })
    }
}

/// Marks a slot without a legal position among WDL codes, before `fill_runs_without_code`.
pub(crate) const NO_CODE: u8 = 0xFF;

/// Gives each run of slots without a legal position ([`NO_CODE`]) among one side's WDL
/// codes, which tell the rules' results apart as `rule_codes` says, the code before it:
/// the side whose distances are stored (codes without rule codes, [`RuleCodes::None`]) must
/// fill its WDL codes from the slot its DTM halves are filled from, as a side read whole
/// pairs them at every slot. Other sides fill with [`fill_runs_from_neighbours`].
pub(crate) fn fill_runs_without_code(codes: &mut [u8], rule_codes: RuleCodes) {
    if rule_codes != RuleCodes::None {
        return fill_runs_from_neighbours(codes);
    }
    let mut last = WDL_DRAW;
    for code in codes {
        if *code == NO_CODE {
            *code = last;
        } else {
            last = *code;
        }
    }
}

/// Gives each run of slots without a legal position ([`NO_CODE`]) the code that costs least
/// to compress, as far as its neighbours tell: the code before it where the two codes before
/// agree (the run continues a run), else the code after it where the two after agree, else
/// the code before. Runs at the start take the code after them; a side without a legal slot
/// is drawn. (On KRNKR, KRCKR and KNCKN, both sides filled so: WDL sections 4-6% smaller
/// than filled with the code before.)
fn fill_runs_from_neighbours(codes: &mut [u8]) {
    let n = codes.len();
    let mut i = 0;
    while i < n {
        if codes[i] != NO_CODE {
            i += 1;
            continue;
        }
        let end = codes[i..]
            .iter()
            .position(|&c| c != NO_CODE)
            .map_or(n, |k| i + k);
        let before = (i >= 1).then(|| codes[i - 1]);
        let continues = i >= 2 && codes[i - 2] == codes[i - 1];
        let after = (end < n).then(|| codes[end]);
        let after_run = end + 1 >= n || codes[end + 1] == codes[end] || codes[end + 1] == NO_CODE;
        let fill = match (before, after) {
            (Some(b), _) if continues => b,
            (_, Some(a)) if after_run => a,
            (Some(b), _) => b,
            (None, Some(a)) => a,
            (None, None) => WDL_DRAW,
        };
        codes[i..end].fill(fill);
        i = end;
    }
}

/// 0 loss, 1 draw, 2 win for a stored value (results by rule count as wins and losses).
#[inline]
pub(crate) fn wdl_code(v: u16) -> u8 {
    match v {
        STORED_DRAW => WDL_DRAW,
        // Wins by the rule are even, losses odd.
        v if rule_of_stored(v).is_some() => [WDL_LOSS, WDL_WIN][usize::from(v.is_multiple_of(2))],
        n if n % 2 == 1 => WDL_WIN,
        _ => WDL_LOSS,
    }
}

/// `wdl_code`, or a code per rule for the results by the rules `rule_codes` tells apart
/// ([`wdl_rule_code`]).
#[inline]
pub(crate) fn wdl_code_with(v: u16, rule_codes: RuleCodes) -> u8 {
    match rule_of_stored(v) {
        Some((win, rule)) if rule_codes.tell(rule) => wdl_rule_code(win, rule),
        _ => wdl_code(v),
    }
}

/// A zstd compressor for DTM blocks with `dictionary` (none if empty), reused from block to
/// block so that the dictionary is loaded once a thread.
pub(super) fn compressor(dictionary: &[u8]) -> zstd::bulk::Compressor<'static> {
    compressor_at(ZSTD_LEVEL, dictionary)
}

/// [`compressor`], for measurement aids (`examples/`) that compress DTM blocks as the writer
/// does. Not part of the documented interface.
#[doc(hidden)]
pub fn dtm_compressor(dictionary: &[u8]) -> zstd::bulk::Compressor<'static> {
    compressor(dictionary)
}

/// As [`compressor`], at zstd level `level`: frames of [`Codec::ZstdBare`] (magicless,
/// without dictionary id, content size or checksum).
fn compressor_at(level: i32, dictionary: &[u8]) -> zstd::bulk::Compressor<'static> {
    use zstd::zstd_safe::{CParameter, FrameFormat};
    let mut c =
        zstd::bulk::Compressor::with_dictionary(level, dictionary).expect("zstd compressor");
    let mut parameters = vec![
        CParameter::Format(FrameFormat::Magicless),
        CParameter::ChecksumFlag(false),
        CParameter::DictIdFlag(false),
        CParameter::ContentSizeFlag(false),
    ];
    if level == ZSTD_LEVEL {
        parameters.push(CParameter::Strategy(ZSTD_STRATEGY));
    }
    for p in parameters {
        c.set_parameter(p).expect("a zstd parameter");
    }
    c
}

/// The DTM section being written a frame at a time: the frames' offsets from the section's
/// start, its checksum, and the xxh3-64 of each [`CHECK_CHUNK`] bytes (the chunk being filled,
/// its bytes so far, the sums of the full ones).
struct FrameWriter {
    offsets: Vec<u64>,
    checksum: xxhash_rust::xxh3::Xxh3,
    chunk: xxhash_rust::xxh3::Xxh3,
    filled: usize,
    chunk_sums: Vec<u64>,
}

impl FrameWriter {
    /// A section with no frame yet (its first offset is its start).
    fn new() -> Self {
        FrameWriter {
            offsets: vec![0],
            checksum: Default::default(),
            chunk: Default::default(),
            filled: 0,
            chunk_sums: vec![],
        }
    }

    /// Writes the section's next frame to `out`.
    fn append(&mut self, out: &mut impl Write, frame: &[u8]) -> std::io::Result<()> {
        out.write_all(frame)?;
        self.checksum.update(frame);
        let end = self.offsets.last().copied().unwrap_or(0) + frame.len() as u64;
        self.offsets.push(end);
        let mut bytes = frame;
        while !bytes.is_empty() {
            let take = bytes.len().min(CHECK_CHUNK - self.filled);
            self.chunk.update(&bytes[..take]);
            self.filled += take;
            bytes = &bytes[take..];
            if self.filled == CHECK_CHUNK {
                self.chunk_sums.push(self.chunk.digest());
                self.chunk.reset();
                self.filled = 0;
            }
        }
        Ok(())
    }

    /// The section written: [`Codec::ZstdBare`] frames of [`DTM_BLOCK`] halves of
    /// `value_bytes` bytes, compressed with `dictionary`.
    fn finish(mut self, value_bytes: u8, dictionary: Vec<u8>) -> Section {
        if self.filled > 0 {
            self.chunk_sums.push(self.chunk.digest());
        }
        Section {
            block_values: DTM_BLOCK,
            value_bytes,
            offsets: self.offsets,
            checksum: self.checksum.digest(),
            dictionary,
            codec: Codec::ZstdBare,
            codes: vec![],
            block_counts: vec![],
            block_sizes: vec![],
            block_splits: vec![],
            chunk_sums: self.chunk_sums,
        }
    }
}

/// One zstd frame, in a vector no larger than it (the compressor allocates the worst case).
pub(super) fn compress(c: &mut zstd::bulk::Compressor, bytes: &[u8]) -> Vec<u8> {
    let mut frame = c.compress(bytes).expect("in-memory zstd compression");
    frame.shrink_to_fit();
    frame
}

/// Sections with fewer blocks a side to move are compressed without a dictionary: on the
/// 4-men sets (at most about 100 blocks a side) dictionaries saved 0.8% of the bytes and cost
/// 8% of the generation time.
pub(super) const DICTIONARY_MIN_BLOCKS: usize = 128;
/// Blocks a dictionary is trained on, at most (evenly spaced over the section).
pub(super) const DICTIONARY_TRAINING_BLOCKS: usize = 32;
/// Blocks compressed with and without the dictionary to judge it.
pub(super) const DICTIONARY_TRIAL_BLOCKS: usize = 8;
/// Largest dictionary tried, bytes.
pub(super) const DICTIONARY_MAX_BYTES: usize = 16 << 10;

/// Every `len / n`-th index below `len`, about `n` of them.
pub(super) fn spread(len: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..len).step_by(len.div_ceil(n).max(1))
}

/// A dictionary trained on `blocks` blocks of `sides` sides to move (`raw(k)` gives block
/// k's bytes), if it makes a trial sample of them smaller, counting the dictionary's own
/// size against it (the sample's saving scaled to the whole section).
pub(super) fn train_dictionary(
    blocks: usize,
    sides: usize,
    raw: impl Fn(usize) -> Vec<u8> + Sync,
) -> Option<Vec<u8>> {
    use rayon::prelude::*;
    if blocks < DICTIONARY_MIN_BLOCKS * sides {
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

/// Raw bytes of one block of a [`Codec::ZstdHalves`] section: the half of each slot of
/// `slots` with `side` to move, a draw or unused slot repeating the half before it. (The
/// block starts from the half of the last legal slot before it, so that an unused slot reads
/// back as the value before it, as the WDL section fills it.)
pub(super) fn halves_block(
    values: &impl ValueSource,
    side: usize,
    slots: std::ops::Range<u64>,
    value_bytes: u8,
) -> Vec<u8> {
    let mut last = (0..slots.start)
        .rev()
        .map(|i| values.stored(side, i))
        .find(|&v| v != STORED_ILLEGAL)
        .and_then(|v| half_of(v, value_bytes))
        .unwrap_or(0);
    let mut out = Vec::with_capacity((slots.end - slots.start) as usize * value_bytes as usize);
    for i in slots {
        if let Some(h) = half_of(values.stored(side, i), value_bytes) {
            last = h;
        }
        match value_bytes {
            1 => out.push(last as u8),
            _ => out.extend_from_slice(&last.to_le_bytes()),
        }
    }
    out
}

/// Blocks of the DTM section compressed together before they are written out.
pub(super) const DTM_BATCH_BLOCKS: usize = 1024;

/// Blocks per side to move compressed to choose the side whose distances a one-side table
/// stores ([`smaller_side`]).
const SIDE_SAMPLE_BLOCKS: u64 = 512;

/// The zstd level the sides are first judged at ([`smaller_side`]), a fifth of the cost of
/// [`ZSTD_LEVEL`]'s.
const QUICK_JUDGE_LEVEL: i32 = 1;

/// The least ratio of the larger side's bytes to the smaller's at [`QUICK_JUDGE_LEVEL`] that
/// settles the choice; closer sides are judged again at [`ZSTD_LEVEL`]. Measured in stop 44:
/// level 1 alone chose the other side than level 15 for 5 of the 226 sets of up to 5 men
/// (KNPKN, KRKNN, KRRKR, KCPKA, KCPBK; 565,829 bytes more in all), all with ratios under
/// 1.06 at level 1; every other set of up to 5 men got level 15's choice.
const QUICK_JUDGE_MARGIN: f64 = 1.10;

/// DTM block `k` of `sides` (the blocks of each side to move in turn): its raw bytes, made
/// when the block is compressed, never all at once.
fn dtm_block(values: &impl ValueSource, value_bytes: u8, sides: &[usize], k: u64) -> Vec<u8> {
    let per_side = values.slots().div_ceil(DTM_BLOCK as u64);
    let start = (k % per_side) * DTM_BLOCK as u64;
    let block = start..(start + DTM_BLOCK as u64).min(values.slots());
    halves_block(values, sides[(k / per_side) as usize], block, value_bytes)
}

/// The dictionary the DTM blocks of `sides` are compressed with (empty: none).
fn dtm_dictionary(values: &impl ValueSource, value_bytes: u8, sides: &[usize]) -> Vec<u8> {
    let blocks = sides.len() as u64 * values.slots().div_ceil(DTM_BLOCK as u64);
    train_dictionary(blocks as usize, sides.len(), |k| {
        dtm_block(values, value_bytes, sides, k as u64)
    })
    .unwrap_or_default()
}

/// What the DTM section holds and how its frames are made: the sides to move whose blocks
/// it holds (both, or the one a one-side table keeps), the dictionary they are compressed
/// with (empty: none), and their frames if they are compressed already.
pub(super) struct DtmPlan {
    pub(super) sides: Vec<usize>,
    pub(super) dictionary: Vec<u8>,
    /// Every frame of the section, in order, when [`smaller_side`] compressed them all.
    pub(super) frames: Option<Vec<Vec<u8>>>,
}

/// The side to move (0 red, 1 black) whose DTM blocks compress smaller, with its dictionary:
/// each side's blocks are compressed with the dictionary trained on that side (counted too),
/// all of them in a table of at most [`SIDE_SAMPLE_BLOCKS`] a side, else that many spread
/// evenly over it; first at [`QUICK_JUDGE_LEVEL`], then, where the sides are within
/// [`QUICK_JUDGE_MARGIN`], again as [`write_dtm`] would. Only the kept side is then compressed
/// whole (until stop 41 both were, and one dropped: about a third of the write phase); where
/// its every block was compressed at [`ZSTD_LEVEL`] to judge it, those frames are written as
/// they are.
fn smaller_side(values: &impl ValueSource, value_bytes: u8) -> DtmPlan {
    let per_side = values.slots().div_ceil(DTM_BLOCK as u64);
    let step = per_side.div_ceil(SIDE_SAMPLE_BLOCKS).max(1);
    let dictionaries = [0, 1].map(|side| dtm_dictionary(values, value_bytes, &[side]));
    let judged = |side: usize, level: i32| {
        let dictionary = &dictionaries[side];
        judged_frames(values, value_bytes, side, step, level, dictionary)
    };
    let bytes = |side: usize, frames: &[Vec<u8>]| {
        frames.iter().map(Vec::len).sum::<usize>() + dictionaries[side].len()
    };
    let sampled = trace::step("DTM sides sampled");
    let quick = [0, 1].map(|side| bytes(side, &judged(side, QUICK_JUDGE_LEVEL)));
    sampled.done(|| {
        format!(
            "red {} black {} bytes, every {step} of {per_side} blocks",
            quick[0], quick[1]
        )
    });
    let (small, large) = (quick[0].min(quick[1]), quick[0].max(quick[1]));
    let (side, frames) = if large as f64 >= small as f64 * QUICK_JUDGE_MARGIN {
        ((quick[1] < quick[0]) as usize, None)
    } else {
        let exact = [0, 1].map(|side| judged(side, ZSTD_LEVEL));
        let side = (bytes(1, &exact[1]) < bytes(0, &exact[0])) as usize;
        let [red, black] = exact;
        let kept = if side == 0 { red } else { black };
        (side, (step == 1).then_some(kept))
    };
    let [red, black] = dictionaries;
    DtmPlan {
        sides: vec![side],
        dictionary: if side == 0 { red } else { black },
        frames,
    }
}

/// Every `step`-th DTM block of `side` compressed at zstd level `level` with `dictionary`.
fn judged_frames(
    values: &impl ValueSource,
    value_bytes: u8,
    side: usize,
    step: u64,
    level: i32,
    dictionary: &[u8],
) -> Vec<Vec<u8>> {
    use rayon::prelude::*;
    let per_side = values.slots().div_ceil(DTM_BLOCK as u64);
    (0..per_side.div_ceil(step))
        .into_par_iter()
        .map_init(
            || compressor_at(level, dictionary),
            |c, k| compress(c, &dtm_block(values, value_bytes, &[side], k * step)),
        )
        .collect()
}

/// Writes the DTM section `plan` describes to `out`: zstd frames of [`DTM_BLOCK`] halves
/// ([`Codec::ZstdHalves`]) of `value_bytes` bytes each, compressed with the plan's
/// dictionary ([`dtm_dictionary`]) a batch at a time, so that the compressed section is never
/// whole in memory (or the plan's frames as they are). The section's offsets count from the
/// start of what was written, which it holds whole.
pub(super) fn write_dtm(
    values: &impl ValueSource,
    value_bytes: u8,
    plan: DtmPlan,
    out: &mut impl Write,
) -> std::io::Result<Section> {
    use rayon::prelude::*;
    let DtmPlan {
        sides,
        dictionary,
        frames: ready,
    } = plan;
    let blocks = sides.len() * values.slots().div_ceil(DTM_BLOCK as u64) as usize;
    let raw = |k: usize| dtm_block(values, value_bytes, &sides, k as u64);
    let mut section = FrameWriter::new();
    match ready {
        Some(frames) => {
            debug_assert_eq!(frames.len(), blocks, "a frame for every block");
            for frame in &frames {
                section.append(out, frame)?;
            }
        }
        None => {
            for first in (0..blocks).step_by(DTM_BATCH_BLOCKS) {
                let frames: Vec<Vec<u8>> = (first..(first + DTM_BATCH_BLOCKS).min(blocks))
                    .into_par_iter()
                    .map_init(|| compressor(&dictionary), |c, k| compress(c, &raw(k)))
                    .collect();
                for frame in &frames {
                    section.append(out, frame)?;
                }
            }
        }
    }
    Ok(section.finish(value_bytes, dictionary))
}

/// The DTM section of `old`, a [`Codec::ZstdHalves`] section (formats 7 to 9), as
/// [`Codec::ZstdBare`] frames: each block decompressed and compressed again with the same
/// dictionary, a batch at a time, into a temporary file beside `path` (offsets from the
/// section's own start); and that file.
fn bare_dtm_section(old: &TableFile, path: &Path) -> Result<(Section, PathBuf), TableError> {
    use rayon::prelude::*;
    let dtm = old
        .header()
        .dtm
        .as_ref()
        .ok_or_else(|| TableError::NoDistances(path.into()))?;
    let blocks = dtm.offsets.len() - 1;
    let spill = temporary_path(path, "dtm");
    let spilled = || -> Result<Section, TableError> {
        let file = fs::File::create(&spill).map_err(io_err(path))?;
        let mut f = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut section = FrameWriter::new();
        for first in (0..blocks).step_by(DTM_BATCH_BLOCKS) {
            let frames = (first..(first + DTM_BATCH_BLOCKS).min(blocks))
                .into_par_iter()
                .map_init(
                    || compressor(&dtm.dictionary),
                    |c, k| Ok(compress(c, &old.decompress(SectionKind::Dtm, k)?)),
                )
                .collect::<Result<Vec<Vec<u8>>, TableError>>()?;
            for frame in &frames {
                section.append(&mut f, frame).map_err(io_err(path))?;
            }
        }
        f.into_inner().map_err(|e| io_err(path)(e.into_error()))?;
        Ok(section.finish(dtm.value_bytes, dtm.dictionary.clone()))
    };
    match spilled() {
        Ok(section) => Ok((section, spill)),
        Err(e) => {
            let _ = fs::remove_file(&spill);
            Err(e)
        }
    }
}

/// [`repack`] of a file of format 7 or later to `target`: the WDL section kept byte for byte
/// or, where the side whose distances a search gives still tells results by the
/// perpetual-check rule apart (before format 11), encoded again with them folded into wins
/// and losses ([`RuleCodes::ButCheck`]); DTM frames of formats 7 to 9 made bare
/// ([`Codec::ZstdBare`]), later ones kept. Returns the new file's size.
fn repack_sections(old: &TableFile, target: &Path) -> Result<u64, TableError> {
    let h = old.header();
    // Every format from 7 writes the DTM section right after the WDL section.
    let at = h.wdl.offsets.last().copied().unwrap_or(0) as usize;
    let searched = h.dtm_side.map(|stored| 1 - usize::from(stored));
    let (wdl_bytes, wdl) = match searched {
        Some(side) if h.rule_codes_of(side) == RuleCodes::Every => folded_wdl_section(old, side)?,
        _ => (old.payload()[..at].to_vec(), h.wdl.clone()),
    };
    let moved = |offsets: &[u64], from: u64| -> Vec<u64> {
        offsets
            .iter()
            .map(|o| o - from + wdl_bytes.len() as u64)
            .collect()
    };
    let halves = h.dtm.as_ref().is_some_and(|s| s.codec == Codec::ZstdHalves);
    let (dtm, spill) = match &h.dtm {
        Some(_) if halves => {
            let (section, spill) = bare_dtm_section(old, target)?;
            let dtm = Section {
                offsets: moved(&section.offsets, 0),
                ..section.clone()
            };
            let bytes = 0..section.offsets.last().copied().unwrap_or(0);
            (Some(dtm), Some((spill, bytes)))
        }
        Some(section) => {
            let dtm = Section {
                offsets: moved(&section.offsets, at as u64),
                ..section.clone()
            };
            (Some(dtm), None)
        }
        None => (None, None),
    };
    let header = Header {
        format_version: FORMAT_VERSION,
        wdl,
        dtm,
        ..h.clone()
    };
    let written = match &spill {
        Some((file, bytes)) => write_file(target, &header, &wdl_bytes, Some((file, bytes.clone()))),
        None => {
            // The DTM section (if any) as it stands, after the WDL section.
            let mut payload = wdl_bytes;
            payload.extend_from_slice(&old.payload()[at..]);
            write_file(target, &header, &payload, None)
        }
    };
    if let Some((file, _)) = spill {
        let _ = fs::remove_file(file);
    }
    written
}

/// The WDL section of `old` encoded again with the perpetual-check rule's codes of `side`
/// (the side whose distances a search gives) folded into wins and losses, and its bytes.
fn folded_wdl_section(old: &TableFile, side: usize) -> Result<(Vec<u8>, Section), TableError> {
    let mut codes = old.load_wdl()?.map(WdlCodes::from_bytes);
    for code in codes[side].bytes_mut() {
        *code = RuleCodes::ButCheck.recode(*code);
    }
    let mut payload = Vec::new();
    let section = append_wdl_section(&mut payload, codes);
    Ok((payload, section))
}

/// Compresses both sides' WDL codes ([`Codec::Lzh`]) and appends their blocks to `payload`
/// (room made for them at once, once the codes are gone; each segment's blocks freed once
/// copied); describes them.
pub(super) fn append_wdl_section(payload: &mut Vec<u8>, codes: [WdlCodes; 2]) -> Section {
    let (code_lengths, segments) = lzh::compress(&[codes[0].as_bytes(), codes[1].as_bytes()]);
    // The codes are the set's values (a byte a slot): gone before the payload grows.
    drop(codes);
    append_wdl_blocks(payload, code_lengths, segments)
}

/// As [`append_wdl_section`], the codes of `values` a segment at a time
/// ([`ValueSource::wdl_codes_in`], [`lzh::compress_segments`]): never held whole.
fn append_wdl_section_piecewise(
    payload: &mut Vec<u8>,
    values: &impl ValueSource,
    rule_codes: [RuleCodes; 2],
) -> Section {
    let per_side = values.slots().div_ceil(lzh::MAX_BLOCK_VALUES as u64);
    let (code_lengths, segments) = lzh::compress_segments(2 * per_side as usize, |k| {
        let (side, k) = ((k as u64 / per_side) as usize, k as u64 % per_side);
        let first = k * lzh::MAX_BLOCK_VALUES as u64;
        let last = (first + lzh::MAX_BLOCK_VALUES as u64).min(values.slots());
        values.wdl_codes_in(side, first..last, rule_codes[side])
    });
    append_wdl_blocks(payload, code_lengths, segments)
}

/// Appends a WDL section's blocks (`segments`, compressed with codes of `code_lengths`) to
/// `payload`; returns the section.
fn append_wdl_blocks(
    payload: &mut Vec<u8>,
    code_lengths: Vec<u8>,
    segments: Vec<Vec<lzh::Block>>,
) -> Section {
    let blocks: usize = segments.iter().map(Vec::len).sum();
    let (mut block_counts, mut block_splits) =
        (Vec::with_capacity(blocks), Vec::with_capacity(blocks));
    let start = payload.len();
    payload.reserve_exact(blocks * lzh::BLOCK_BYTES);
    for segment in segments {
        for block in segment {
            payload.extend_from_slice(&block.bytes);
            block_counts.push(block.values);
            block_splits.push(block.split);
        }
    }
    Section {
        block_values: lzh::MAX_BLOCK_VALUES as u32,
        value_bytes: 0,
        offsets: vec![start as u64, payload.len() as u64],
        checksum: xxh3_64(&payload[start..]),
        dictionary: vec![],
        codec: Codec::Lzh,
        codes: code_lengths,
        block_counts,
        block_sizes: vec![],
        block_splits,
        chunk_sums: payload[start..].chunks(CHECK_CHUNK).map(xxh3_64).collect(),
    }
}

/// Writes a table atomically: a temporary file in the same folder, synced, then renamed.
/// Takes the stored values of both sides to move and fills the slots without a legal
/// position as it encodes them (with the value before them, or on a side without stored
/// distances the neighbouring run's code: `fill_runs_without_code`), so the values are
/// never copied whole. Returns the file's size in bytes.
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
    write_table_with(path, rules, material, values, stats, Distances::BothSides)
}

/// Which distances a table stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distances {
    /// None (`canju gen --wdl-only`): the WDL codes tell results by the rule apart instead
    /// ([`WDL_RULE_WIN`], [`WDL_RULE_LOSS`]).
    None,
    /// Both sides to move's: any values, each read back as written.
    BothSides,
    /// The side to move whose distances compress smaller ([`Header::dtm_side`]); the other
    /// side's WDL codes tell results by the rule apart, and its distances are found by a
    /// one-ply search over the stored side, so the values must be a solved table's.
    OneSide,
}

/// [`write_table`], storing the `distances` it says.
///
/// # Errors
/// As [`write_table`].
pub fn write_table_with(
    path: &Path,
    rules: &str,
    material: &str,
    values: impl ValueSource,
    stats: [SideStats; 2],
    distances: Distances,
) -> Result<u64, TableError> {
    let slots = values.slots();
    // DTM first, as it reads the values; the WDL codes then take the values' place.
    let (dtm, dtm_side) = match distances {
        Distances::None => (None, None),
        Distances::OneSide => {
            let step = trace::step("DTM side judged");
            let value_bytes = dtm_value_bytes(&values);
            let plan = smaller_side(&values, value_bytes);
            let side = plan.sides[0];
            let settled = plan.frames.is_some();
            step.done(|| format!("side {side}, frames kept {settled}"));
            let step = trace::step("DTM written");
            let section = dtm_section(path, &values, value_bytes, plan)?;
            step.done(|| format!("{} bytes", section.0.offsets.last().unwrap_or(&0)));
            (Some(section), Some(side))
        }
        Distances::BothSides => {
            let value_bytes = dtm_value_bytes(&values);
            let dictionary = dtm_dictionary(&values, value_bytes, &[0, 1]);
            let plan = DtmPlan {
                sides: vec![0, 1],
                dictionary,
                frames: None,
            };
            let section = dtm_section(path, &values, value_bytes, plan)?;
            (Some(section), None)
        }
    };
    let rule_codes = [0, 1].map(|side| match (&dtm, dtm_side) {
        (None, _) => RuleCodes::Every,
        (Some(_), Some(stored)) if stored != side => RuleCodes::ButCheck,
        (Some(_), _) => RuleCodes::None,
    });
    let step = trace::step("WDL written");
    let mut payload = Vec::new();
    let wdl = match values.wdl_codes_piecewise() {
        true => append_wdl_section_piecewise(&mut payload, &values, rule_codes),
        false => append_wdl_section(&mut payload, values.into_wdl_codes(rule_codes)),
    };
    step.done(|| format!("{} bytes", payload.len()));
    let at = payload.len() as u64;
    let header = Header {
        format_version: FORMAT_VERSION,
        rules: rules.to_string(),
        material: material.to_string(),
        index_version: INDEX_VERSION,
        slots,
        wdl,
        dtm: dtm.as_ref().map(|(section, _)| Section {
            offsets: section.offsets.iter().map(|o| o + at).collect(),
            ..section.clone()
        }),
        dtm_side: dtm_side.map(|side| side as u8),
        stats,
    };
    let spill = dtm.as_ref().map(|(section, spill)| {
        (
            spill.as_path(),
            0..section.offsets.last().copied().unwrap_or(0),
        )
    });
    let step = trace::step("file written");
    let written = write_file(path, &header, &payload, spill.clone());
    step.done(|| format!("{written:?}"));
    if let Some((spill, _)) = spill {
        let _ = fs::remove_file(spill);
    }
    written
}

/// Bytes a DTM half of `values` takes: 1 unless a distance's half reaches the rules' marks.
fn dtm_value_bytes(values: &impl ValueSource) -> u8 {
    use rayon::prelude::*;
    let slots = values.slots();
    let longest = (0..2 * slots)
        .into_par_iter()
        .map(|k| values.stored((k / slots.max(1)) as usize, k % slots.max(1)))
        .filter(|&v| v <= MAX_DISTANCE)
        .max()
        .unwrap_or(0);
    if longest.div_ceil(2) <= largest_distance_half(1) {
        1
    } else {
        2
    }
}

/// The DTM section of `values` as `plan` says (offsets from its own start), halves of
/// `value_bytes` bytes, written into a temporary file beside `path`, and that file.
fn dtm_section(
    path: &Path,
    values: &impl ValueSource,
    value_bytes: u8,
    plan: DtmPlan,
) -> Result<(Section, PathBuf), TableError> {
    let spill = temporary_path(path, "dtm");
    let spilled = || -> std::io::Result<Section> {
        let mut f = std::io::BufWriter::with_capacity(1 << 20, fs::File::create(&spill)?);
        let written = write_dtm(values, value_bytes, plan, &mut f)?;
        f.into_inner().map_err(|e| e.into_error())?;
        Ok(written)
    };
    match spilled() {
        Ok(written) => Ok((written, spill)),
        Err(e) => {
            let _ = fs::remove_file(&spill);
            Err(io_err(path)(e))
        }
    }
}

/// Writes the file: magic, header, padding, `payload` (the WDL section) and the DTM
/// section's bytes if any (the given range of the temporary file `dtm`), to a temporary file
/// that is synced and renamed to `path`. Returns the file's size.
fn write_file(
    path: &Path,
    header: &Header,
    payload: &[u8],
    dtm: Option<(&Path, std::ops::Range<u64>)>,
) -> Result<u64, TableError> {
    use std::io::{Read, Seek};
    let head = encode_header(header);
    let padding =
        (HEADER_START + head.len()).next_multiple_of(PAYLOAD_ALIGN) - (HEADER_START + head.len());
    let tmp = temporary_path(path, "");
    let write = || -> std::io::Result<u64> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(head.len() as u32).to_le_bytes())?;
        f.write_all(&header_checksum(&head).to_le_bytes())?;
        f.write_all(&head)?;
        f.write_all(&vec![0; padding])?;
        f.write_all(payload)?;
        if let Some((from, bytes)) = dtm {
            let mut from = fs::File::open(from)?;
            from.seek(std::io::SeekFrom::Start(bytes.start))?;
            let copied = std::io::copy(&mut from.take(bytes.end - bytes.start), &mut f)?;
            if copied != bytes.end - bytes.start {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
        f.sync_all()?;
        let size = f.metadata()?.len();
        fs::rename(&tmp, path)?;
        Ok(size)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_err(path)(e)
    })
}

/// What [`repack`] did to a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repacked {
    /// The file's size before, bytes.
    pub before: u64,
    /// Its size after, bytes.
    pub after: u64,
    /// Where it is now: its own path, or for an `asian` table of format 7 or earlier (the
    /// perpetual-check rule alone) its `check` name, [`CHECK_RULES`].
    pub path: PathBuf,
}

/// Rewrites a table file in the current format ([`FORMAT_VERSION`]), keeping its values,
/// rule set and statistics; everything is checked on the way in. A file of formats 7 to 11
/// keeps its WDL section byte for byte (format 8 changed only what `asian` means) but where
/// one side's distances are stored, whose other side's codes of the perpetual-check rule are
/// folded into wins and losses (format 11); its DTM blocks of formats 7 to 9 are compressed
/// again as bare frames ([`Codec::ZstdBare`], format 10); its header is compressed (format
/// 12; a file of format 11 keeps its whole payload); older files are encoded again. An
/// `asian` table of format 7 or earlier moves to its `check` name, the rule it holds (an
/// existing file of that name is replaced).
///
/// # Errors
///
/// The file cannot be read, is damaged (a checksum fails), or the new one cannot be written.
pub fn repack(path: &Path) -> Result<Repacked, TableError> {
    let old = TableFile::open(path)?;
    let h = old.header();
    let target = path.with_file_name(file_name(&h.material, &h.rules));
    let renamed = name_parts(path).1 != h.rules;
    if h.format_version == FORMAT_VERSION && !renamed {
        // Already current: nothing is rewritten (a read-only folder of current tables is
        // fine). The checksums are still checked.
        old.verify_checksums()?;
        let bytes = old.file_bytes();
        return Ok(Repacked {
            before: bytes,
            after: bytes,
            path: path.to_path_buf(),
        });
    }
    old.verify_checksums()?;
    let after = if h.format_version >= 7 {
        repack_sections(&old, &target)?
    } else {
        // Every format before 7 holds distances.
        let values = old.load_dtm()?.into_stored();
        write_table(&target, &h.rules, &h.material, values, h.stats.clone())?
    };
    let before = old.file_bytes();
    drop(old);
    if target != path {
        fs::remove_file(path).map_err(io_err(path))?;
    }
    Ok(Repacked {
        before,
        after,
        path: target,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any range's codes, each made over its own window, equal that range of the whole
        /// side's filled codes: runs of every length, chained by single codes, at the ends.
        #[test]
        fn a_range_s_codes_equal_the_whole_side_s(
            raw in proptest::collection::vec(proptest::prop_oneof![0u8..3, 0u8..9, proptest::strategy::Just(NO_CODE)], 0..200),
            cuts in proptest::collection::vec(0usize..200, 0..6),
        ) {
            for rule_codes in [RuleCodes::None, RuleCodes::Every, RuleCodes::ButCheck] {
                let mut whole = raw.clone();
                fill_runs_without_code(&mut whole, rule_codes);
                let n = raw.len();
                let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (n + 1)).collect();
                bounds.extend([0, n]);
                bounds.sort();
                for w in bounds.windows(2) {
                    let range = w[0] as u64..w[1] as u64;
                    let part = codes_in(range, n as u64, |i| raw[i as usize], rule_codes);
                    proptest::prop_assert_eq!(&part[..], &whole[w[0]..w[1]], "{:?} {:?}", rule_codes, w);
                }
            }
        }
    }

    /// Wins and losses of scattered lengths (a cheap generator, so the test needs no
    /// crate): blocks of them compress far worse than blocks of one value.
    fn scattered(slots: usize) -> Vec<u16> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..slots)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 120) as u16 + 1
            })
            .collect()
    }

    #[test]
    fn runs_without_a_code_take_the_neighbour_they_continue() {
        const X: u8 = NO_CODE;
        let filled = |codes: &[u8]| {
            let mut codes = codes.to_vec();
            fill_runs_from_neighbours(&mut codes);
            codes
        };
        // A run before it: its code, whatever follows.
        assert_eq!(filled(&[1, 1, X, X, 2, 2]), [1, 1, 1, 1, 2, 2]);
        // No run before, one after: the code after.
        assert_eq!(filled(&[0, 1, X, 2, 2]), [0, 1, 2, 2, 2]);
        // Neither: the code before; the last code counts as a run, and so does one before
        // another gap.
        assert_eq!(filled(&[0, 1, X, 2, 0]), [0, 1, 1, 2, 0]);
        assert_eq!(filled(&[0, 1, X, 2]), [0, 1, 2, 2]);
        assert_eq!(filled(&[0, 1, X, 2, X, 0]), [0, 1, 2, 2, 2, 0]);
        // At the start the code after; a side without a code is drawn.
        assert_eq!(filled(&[X, X, 0, 2]), [0, 0, 0, 2]);
        assert_eq!(filled(&[X, X]), [WDL_DRAW, WDL_DRAW]);
        assert_eq!(filled(&[2, X, X]), [2, 2, 2]);
        // The side whose distances are stored: always the code before, as its DTM halves.
        let mut stored = vec![X, 0, 1, X, 2, 2];
        fill_runs_without_code(&mut stored, RuleCodes::None);
        assert_eq!(stored, [WDL_DRAW, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn the_side_kept_is_the_one_that_compresses_smaller() {
        // More blocks than the sample, so that the sample is a sample.
        let slots = (2 * SIDE_SAMPLE_BLOCKS as usize + 7) * DTM_BLOCK as usize;
        let even = vec![7u16; slots];
        let red = smaller_side(&[even.clone(), scattered(slots)], 1);
        assert_eq!(red.sides, [0]);
        assert!(
            red.frames.is_none(),
            "a sample's frames are not the section's"
        );
        assert_eq!(smaller_side(&[scattered(slots), even], 1).sides, [1]);
    }

    #[test]
    fn a_clear_quick_judgement_keeps_the_side_its_dictionary_compresses_smaller() {
        // Fewer blocks than the sample, and enough for a dictionary.
        let slots = (DICTIONARY_MIN_BLOCKS + 9) * DTM_BLOCK as usize + 5;
        // Black's blocks repeat one stretch of distances: what a dictionary catches.
        let motif = scattered(700);
        let black: Vec<u16> = (0..slots).map(|i| motif[i % 700]).collect();
        let plan = smaller_side(&[scattered(slots), black.clone()], 1);
        assert_eq!(plan.sides, [1]);
        assert!(
            !plan.dictionary.is_empty(),
            "a dictionary, to be written with"
        );
        assert!(plan.frames.is_none(), "settled at the quick level");
        assert_eq!(smaller_side(&[black, scattered(slots)], 1).sides, [0]);
    }

    #[test]
    fn frames_judged_whole_are_written_as_compressing_them_again_would() {
        // Fewer blocks than the sample, and sides too close for the quick judgement: the
        // same scattered distances, black's from a few slots on.
        let slots = 40 * DTM_BLOCK as usize + 5;
        let red = scattered(slots + 3);
        let values = [red[..slots].to_vec(), red[3..].to_vec()];
        let plan = smaller_side(&values, 1);
        let again = DtmPlan {
            sides: plan.sides.clone(),
            dictionary: plan.dictionary.clone(),
            frames: None,
        };
        assert!(
            plan.frames.is_some(),
            "every block was compressed at the writing level to judge the side"
        );
        let (mut judged, mut compressed) = (Vec::new(), Vec::new());
        let a = write_dtm(&values, 1, plan, &mut judged).unwrap();
        let b = write_dtm(&values, 1, again, &mut compressed).unwrap();
        assert_eq!(judged, compressed);
        assert_eq!((a.offsets, a.checksum), (b.offsets, b.checksum));
    }

    #[test]
    fn one_side_written_holds_that_sides_blocks_alone() {
        let slots = 5 * DTM_BLOCK as usize + 3;
        let values = [scattered(slots), vec![7u16; slots]];
        let mut both = Vec::new();
        let mut black = Vec::new();
        let plan = |sides: Vec<usize>| DtmPlan {
            sides,
            dictionary: vec![],
            frames: None,
        };
        let w2 = write_dtm(&values, 1, plan(vec![0, 1]), &mut both).unwrap();
        let w1 = write_dtm(&values, 1, plan(vec![1]), &mut black).unwrap();
        let per_side = slots.div_ceil(DTM_BLOCK as usize);
        assert_eq!(w2.offsets.len(), 2 * per_side + 1);
        assert_eq!(w1.offsets.len(), per_side + 1);
        // Without a dictionary, black's frames are the second half of both sides'.
        let black_start = w2.offsets[per_side] as usize;
        assert_eq!(black[..], both[black_start..]);
        assert_eq!(w1.offsets.last(), Some(&(black.len() as u64)));
    }
}
