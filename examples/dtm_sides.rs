//! Per-side bytes of each table's DTM section (measurement aid for issue 14), for files that hold
//! both sides' distances (format 8 and earlier, or `gen --dtm-both-sides`); a one-side file
//! shows its blocks as red's.
use canju::table::{DTM_BLOCK, TableFile};
fn main() {
    let dir = std::env::args().nth(1).expect("dir");
    let mut tot = [0u64; 3];
    let mut rows = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let Ok(t) = TableFile::open(&p) else { continue };
        let h = t.header();
        let Some(d) = &h.dtm else { continue };
        let per_side = h.slots.div_ceil(DTM_BLOCK as u64) as usize;
        let o = &d.offsets;
        let red = o[per_side] - o[0];
        let black = o[o.len() - 1] - o[per_side];
        let wdl = h.wdl.offsets.last().unwrap() - h.wdl.offsets[0];
        tot[0] += red;
        tot[1] += black;
        tot[2] += wdl;
        rows.push((
            red + black,
            h.material.clone(),
            red,
            black,
            wdl,
            t.file_bytes(),
        ));
    }
    rows.sort();
    for r in rows.iter().rev().take(15) {
        println!(
            "{:10} red {:10} black {:10} wdl {:9} file {:10}",
            r.1, r.2, r.3, r.4, r.5
        );
    }
    println!(
        "total dtm red {} black {} min-sum {} wdl {}",
        tot[0],
        tot[1],
        rows.iter().map(|r| r.2.min(r.3)).sum::<u64>(),
        tot[2]
    );
}
