//! Measurement aid: each table's WDL section compressed again by this build's encoder.
use canju::table::{SectionKind, TableFile, lzh};
fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let (mut old, mut new, mut n) = (0u64, 0u64, 0);
    let mut rows = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let Ok(t) = TableFile::open(&p) else { continue };
        let codes = t.load_wdl().unwrap();
        let (_, segments) = lzh::compress(&[&codes[0], &codes[1]]);
        let blocks: u64 = segments.iter().map(|s| s.len() as u64).sum();
        let o = t.section_bytes(SectionKind::Wdl);
        let b = blocks * lzh::BLOCK_BYTES as u64;
        rows.push((o as i64 - b as i64, t.header().material.clone(), o, b));
        old += o;
        new += b;
        n += 1;
    }
    rows.sort();
    for r in rows.iter().rev().take(8) {
        println!("{} {} -> {}", r.1, r.2, r.3);
    }
    println!("{n} tables: WDL {old} -> {new} bytes");
}
