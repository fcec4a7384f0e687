//! Measurement aid: each table's WDL section compressed again with the codes of results by
//! the perpetual-check rule (3, 4) folded into loss and win, and with every rule's folded.
use canju::table::{SectionKind, TableFile, lzh};
fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let (mut old, mut check, mut all) = (0u64, 0u64, 0u64);
    let size = |codes: &[Vec<u8>; 2]| {
        let (_, segments) = lzh::compress(&[&codes[0], &codes[1]]);
        segments.iter().map(|s| s.len() as u64).sum::<u64>() * lzh::BLOCK_BYTES as u64
    };
    let mut rows = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let Ok(t) = TableFile::open(&p) else { continue };
        let codes = t.load_wdl().unwrap();
        let fold = |keep_others: bool| {
            codes.clone().map(|side| {
                side.into_iter()
                    .map(|c| match c {
                        3 => 0,
                        4 => 2,
                        5 | 7 if !keep_others => 0,
                        6 | 8 if !keep_others => 2,
                        c => c,
                    })
                    .collect::<Vec<u8>>()
            })
        };
        let o = t.section_bytes(SectionKind::Wdl);
        let (c, a) = (size(&fold(true)), size(&fold(false)));
        rows.push((o as i64 - c as i64, t.header().material.clone(), o, c, a));
        old += o;
        check += c;
        all += a;
    }
    rows.sort();
    for r in rows.iter().rev().take(12) {
        println!("{} {} -> {} (all folded {})", r.1, r.2, r.3, r.4);
    }
    println!("WDL {old} -> {check} with check folded, {all} with every rule folded");
}
