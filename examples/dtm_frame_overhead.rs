//! Measurement aid (issue 14): bytes of the DTM sections' zstd frames that carry no values
//! (magic number, frame header with its dictionary id and content size, block headers, the
//! frame checksum), summed over a folder's tables.
use canju::table::TableFile;
fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let (mut frames, mut total, mut overhead) = (0u64, 0u64, 0u64);
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let Ok(t) = TableFile::open(&p) else { continue };
        let Some(dtm) = t.header().dtm.clone() else {
            continue;
        };
        let bytes = std::fs::read(&p).unwrap();
        let start = t.payload_start();
        let bare = dtm.codec == canju::table::Codec::ZstdBare;
        for w in dtm.offsets.windows(2) {
            let frame = &bytes[start + w[0] as usize..start + w[1] as usize];
            frames += 1;
            total += frame.len() as u64;
            overhead += frame_overhead(frame, bare);
        }
    }
    println!(
        "{frames} DTM frames, {total} bytes, of which {overhead} ({:.1}%) are frame and block headers and checksums",
        100.0 * overhead as f64 / total.max(1) as f64
    );
}

/// Bytes of `frame` that are not compressed data: its magic number (none in a `bare` frame of
/// format 10), header, each block's 3-byte header, and the 4-byte checksum if flagged (zstd
/// frame format, RFC 8878).
fn frame_overhead(frame: &[u8], bare: bool) -> u64 {
    let magic = if bare { 0 } else { 4 };
    let fhd = frame[magic];
    let fcs_flag = fhd >> 6;
    let single_segment = fhd >> 5 & 1 == 1;
    let checksum = fhd >> 2 & 1 == 1;
    let dict_id = [0, 1, 2, 4][(fhd & 3) as usize];
    let fcs = match (fcs_flag, single_segment) {
        (0, true) => 1,
        (0, false) => 0,
        (1, _) => 2,
        (2, _) => 4,
        _ => 8,
    };
    let header = magic + 1 + usize::from(!single_segment) + dict_id + fcs;
    let mut at = header;
    let mut blocks = 0;
    loop {
        let h = u32::from_le_bytes([frame[at], frame[at + 1], frame[at + 2], 0]);
        let (last, kind, size) = (h & 1 == 1, h >> 1 & 3, (h >> 3) as usize);
        blocks += 1;
        at += 3 + if kind == 1 { 1 } else { size };
        if last {
            break;
        }
    }
    (header + 3 * blocks + if checksum { 4 } else { 0 }) as u64
}
