//! Measurement aid (issue 12, issue 14): the DTM frames of a folder's tables recompressed
//! with other zstd parameters, against the level the writer uses: bytes and seconds.
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
    for part in tweak.split(',').filter(|p| !p.is_empty()) {
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
        for (dict, raws) in &sets {
            let mut c = compressor(dict, &tweak);
            for r in raws {
                total += c.compress(r).unwrap().len();
            }
        }
        println!(
            "{:30} {total:12} bytes {:8.2} s",
            if tweak.is_empty() { "level 15" } else { &tweak },
            t0.elapsed().as_secs_f64()
        );
    }
}
