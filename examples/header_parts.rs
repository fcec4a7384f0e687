//! Measurement aid (issue 14): bytes of each header field summed over a folder's tables.
use canju::table::TableFile;
fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let size = |v: &dyn Fn() -> Vec<u8>| v().len() as u64;
    let mut sums = std::collections::BTreeMap::<&str, u64>::new();
    let cfg = bincode::config::standard();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let Ok(t) = TableFile::open(&p) else { continue };
        let h = t.header();
        let mut add = |k: &'static str, n: u64| *sums.entry(k).or_default() += n;
        add(
            "stats",
            size(&|| bincode::encode_to_vec(&h.stats, cfg).unwrap()),
        );
        add(
            "wdl.block_counts",
            size(&|| bincode::encode_to_vec(&h.wdl.block_counts, cfg).unwrap()),
        );
        add(
            "wdl.block_splits",
            size(&|| bincode::encode_to_vec(&h.wdl.block_splits, cfg).unwrap()),
        );
        add(
            "wdl.chunk_sums",
            size(&|| bincode::encode_to_vec(&h.wdl.chunk_sums, cfg).unwrap()),
        );
        let packed = canju::table::lzh::pack_code_lengths(&h.wdl.codes);
        add(
            "wdl.codes (packed)",
            size(&|| bincode::encode_to_vec(&packed, cfg).unwrap()),
        );
        if let Some(d) = &h.dtm {
            add(
                "dtm.offsets",
                size(&|| bincode::encode_to_vec(&d.offsets, cfg).unwrap()),
            );
            add("dtm.dictionary", d.dictionary.len() as u64);
        }
        add("payload_start", t.payload_start() as u64);
        add("files", 1);
    }
    for (k, v) in sums {
        println!("{k:20} {v}");
    }
}
