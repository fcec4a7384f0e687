//! Measurement aid (issue 14): header, WDL and DTM bytes summed over a folder's tables.
use canju::table::TableFile;
fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let men: Option<usize> = std::env::args().nth(2).map(|s| s.parse().unwrap());
    let (mut head, mut wdl, mut dtm, mut file, mut n) = (0u64, 0u64, 0u64, 0u64, 0);
    let (mut offs, mut dict) = (0usize, 0usize);
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let Ok(t) = TableFile::open(&p) else { continue };
        let h = t.header();
        if men.is_some_and(|m| h.material.len() > m) {
            continue;
        }
        let w = h.wdl.offsets.last().unwrap() - h.wdl.offsets[0];
        let d = h
            .dtm
            .as_ref()
            .map_or(0, |d| d.offsets.last().unwrap() - d.offsets[0]);
        offs += h.dtm.as_ref().map_or(0, |d| d.offsets.len());
        dict += h.dtm.as_ref().map_or(0, |d| d.dictionary.len()) + h.wdl.dictionary.len();
        n += 1;
        wdl += w;
        dtm += d;
        file += t.file_bytes();
        head += t.payload_start() as u64;
    }
    println!(
        "{n} files: {file} bytes = prefix+header {head} + wdl {wdl} + dtm {dtm} + other {}; dtm offsets {offs}, dictionaries {dict}",
        file - head - wdl - dtm
    );
}
