//! Measurement aid (issue 12, issue 14): the DTM frames of a folder's tables recompressed
//! with other zstd parameters, against the level the writer uses: bytes, seconds, and the
//! time to decompress a frame (20,000 frames drawn at random, as a probe that misses the
//! cache decompresses one).
//!
//! `cargo run --release --example dtm_zstd_params DIR [TWEAK...]`, a tweak being
//! comma-separated `key=value`s: `strategy`, `tl`, `sl`, `mm`, `level` (zstd's), or
//! `frame=N`: frames of N positions (a multiple of the writer's 2,048), each table's
//! dictionary trained again on such frames as the writer trains it.
use canju::table::TableFile;
use std::time::Instant;
use zstd::zstd_safe::{CParameter, DParameter, FrameFormat, Strategy};

fn compressor(dict: &[u8], tweak: &str) -> zstd::bulk::Compressor<'static> {
    // Frames as format 10 writes them (bare), at level 15 with its own match finder unless
    // told otherwise.
    let mut c = zstd::bulk::Compressor::with_dictionary(15, dict).unwrap();
    for p in [
        CParameter::Format(FrameFormat::Magicless),
        CParameter::ChecksumFlag(false),
        CParameter::DictIdFlag(false),
        CParameter::ContentSizeFlag(false),
    ] {
        c.set_parameter(p).unwrap();
    }
    for part in tweak
        .split(',')
        .filter(|p| !p.is_empty() && !p.starts_with("frame="))
    {
        let (k, v) = part.split_once('=').unwrap();
        let v: u32 = v.parse().unwrap();
        let p = match k {
            "strategy" => CParameter::Strategy(match v {
                6 => Strategy::ZSTD_btlazy2,
                7 => Strategy::ZSTD_btopt,
                8 => Strategy::ZSTD_btultra,
                9 => Strategy::ZSTD_btultra2,
                _ => Strategy::ZSTD_lazy2,
            }),
            "tl" => CParameter::TargetLength(v),
            "sl" => CParameter::SearchLog(v),
            "mm" => CParameter::MinMatch(v),
            "level" => CParameter::CompressionLevel(v as i32),
            _ => panic!("{k}"),
        };
        c.set_parameter(p).unwrap();
    }
    c
}

fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let tweaks: Vec<String> = std::env::args().skip(2).collect();
    let mut sets = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let Ok(t) = TableFile::open(&p) else { continue };
        let Some(dtm) = t.header().dtm.clone() else {
            continue;
        };
        let bytes = std::fs::read(&p).unwrap();
        let start = t.payload_start();
        let dict = dtm.dictionary.clone();
        let mut d = zstd::bulk::Decompressor::with_dictionary(&dict).unwrap();
        if dtm.codec == canju::table::Codec::ZstdBare {
            d.set_parameter(DParameter::Format(FrameFormat::Magicless))
                .unwrap();
        }
        let raws: Vec<Vec<u8>> = dtm
            .offsets
            .windows(2)
            .map(|w| {
                let f = &bytes[start + w[0] as usize..start + w[1] as usize];
                d.decompress(f, 1 << 16).unwrap()
            })
            .collect();
        sets.push((dict, raws));
    }
    for tweak in std::iter::once(String::new()).chain(tweaks) {
        let t0 = Instant::now();
        let mut total = 0usize;
        // Every table's dictionary and frames, for the decompression timing.
        let mut compressed = vec![];
        for (dict, raws) in &sets {
            let (dict, raws) = match frame_of(&tweak) {
                Some(n) => reframed(dict, raws, n),
                None => (dict.clone(), raws.clone()),
            };
            let mut c = compressor(&dict, &tweak);
            let frames: Vec<Vec<u8>> = raws.iter().map(|r| c.compress(r).unwrap()).collect();
            total += frames.iter().map(Vec::len).sum::<usize>() + dict.len();
            compressed.push((dict, frames));
        }
        let seconds = t0.elapsed().as_secs_f64();
        println!(
            "{:30} {total:12} bytes {seconds:8.2} s, {:6.2} us a frame decompressed",
            if tweak.is_empty() { "level 15" } else { &tweak },
            decompression_us(&compressed)
        );
    }
}

/// The frame size `frame=N` asks for, if any.
fn frame_of(tweak: &str) -> Option<usize> {
    tweak
        .split(',')
        .find_map(|p| p.strip_prefix("frame="))
        .map(|n| n.parse().expect("frame=N, N positions"))
}

/// A table's 2,048-position frames joined into frames of `n` positions, and a dictionary
/// trained on them as the writer trains one (32 frames spread over the table, at most 16 KiB
/// and a sixteenth of the sample; none if the table had none).
fn reframed(dict: &[u8], raws: &[Vec<u8>], n: usize) -> (Vec<u8>, Vec<Vec<u8>>) {
    let per = (n / canju::table::DTM_BLOCK as usize).max(1);
    let joined: Vec<Vec<u8>> = raws.chunks(per).map(|c| c.concat()).collect();
    if dict.is_empty() {
        return (vec![], joined);
    }
    let step = joined.len().div_ceil(32).max(1);
    let samples: Vec<&[u8]> = joined.iter().step_by(step).map(Vec::as_slice).collect();
    let sample_bytes: usize = samples.iter().map(|s| s.len()).sum();
    let dict =
        zstd::dict::from_samples(&samples, (16 << 10).min(sample_bytes / 16)).unwrap_or_default();
    (dict, joined)
}

/// Microseconds to decompress one frame, over 20,000 drawn at random from every table in
/// turn (a table's frames by its own dictionary), as the reader decompresses them.
fn decompression_us(tables: &[(Vec<u8>, Vec<Vec<u8>>)]) -> f64 {
    let dicts: Vec<_> = tables
        .iter()
        .map(|(d, _)| zstd::dict::DecoderDictionary::copy(d))
        .collect();
    let mut dctx = zstd::zstd_safe::DCtx::create();
    dctx.set_parameter(DParameter::Format(FrameFormat::Magicless))
        .unwrap();
    let mut out = vec![0u8; 1 << 20];
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let draws = 20_000;
    let t0 = Instant::now();
    for k in 0..draws {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let (_, frames) = &tables[k % tables.len()];
        let frame = &frames[(rng % frames.len() as u64) as usize];
        let dict = dicts[k % tables.len()].as_ddict();
        dctx.decompress_using_ddict(&mut out[..], frame, dict)
            .unwrap();
    }
    t0.elapsed().as_secs_f64() * 1e6 / draws as f64
}
