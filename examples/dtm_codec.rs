//! Measurement aid (issue 14): DTM halves per side through the LZH codec against today's zstd.
use canju::table::{TableFile, lzh};
fn half(v: u16, last: &mut u8) -> u8 {
    if v >= 0xFFF0 {
        if v < 0xFFFE {
            *last = 255 - ((0xFFFD - v) / 2) as u8;
        }
    } else {
        *last = if v % 2 == 1 { v.div_ceil(2) } else { v / 2 }.min(252) as u8;
    }
    *last
}
fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let (mut tz, mut tl) = ([0usize; 2], [0usize; 2]);
    for m in std::env::args().skip(2) {
        let p = std::path::Path::new(&dir).join(format!("{m}.asian.ctb"));
        let t = TableFile::open(&p).unwrap();
        let h = t.header().clone();
        let mut line = format!("{m:8}");
        for side in 0..2 {
            let Ok(d) = t.load_dtm_of(side) else { continue };
            let mut last = 0u8;
            let bytes: Vec<u8> = (0..h.slots).map(|s| half(d.stored(s), &mut last)).collect();
            let z: usize = bytes
                .chunks(2048)
                .map(|c| zstd::bulk::compress(c, 15).unwrap().len())
                .sum();
            let (codes, segments) = lzh::compress(&[&bytes]);
            let blocks: Vec<_> = segments.into_iter().flatten().collect();
            let l: usize = blocks.iter().map(|b| b.bytes.len()).sum::<usize>() + codes.len();
            tz[side] += z;
            tl[side] += l;
            line += &format!(
                "  side{side} zstd {z:9} lzh {l:9} ({} blocks)",
                blocks.len()
            );
        }
        println!("{line}");
    }
    println!("total zstd {tz:?} lzh {tl:?}");
}
