//! Measurement aid (issue 14): how few bytes a context model could code a table's stored
//! DTM halves in, against the zstd frames the file holds.
//!
//! Over the stored side's wins and losses (a draw needs no half: its WDL code says so), the
//! empirical entropy of each half given its context, summed, for growing contexts: the
//! slot's WDL code, then the halves 1, 90 and 8,100 slots before (the innermost piece one
//! point back, the next piece, the one after; draws and unused slots repeat the half
//! before, as the writer fills them). A plug-in estimate: a real coder also pays for its
//! model, more so with many contexts (their number is printed), and one whose contexts reach
//! 8,100 slots back cannot decode a slot from its own frame of 2,048 alone.
//!
//! `cargo run --release --example dtm_context_entropy DIR SET...`

use canju::table::{SectionKind, TableFile, WDL_DRAW, half_of};
use std::collections::HashMap;

/// Bytes of `-log2 p(symbol | context)` summed over `(context, symbol)` pairs, and the
/// number of contexts.
fn conditional_bytes(pairs: impl Iterator<Item = (u64, u16)>) -> (f64, usize) {
    let mut joint: HashMap<(u64, u16), u64> = HashMap::new();
    let mut contexts: HashMap<u64, u64> = HashMap::new();
    for (c, s) in pairs {
        *joint.entry((c, s)).or_default() += 1;
        *contexts.entry(c).or_default() += 1;
    }
    let sum = |counts: &mut dyn Iterator<Item = u64>| -> f64 {
        counts.map(|n| n as f64 * (n as f64).log2()).sum()
    };
    let bits = sum(&mut contexts.values().copied()) - sum(&mut joint.values().copied());
    (bits / 8.0, contexts.len())
}

fn main() {
    let dir = std::env::args().nth(1).expect("DIR SET...");
    for name in std::env::args().skip(2) {
        let path = std::path::Path::new(&dir).join(format!("{name}.asian.ctb"));
        let t = TableFile::open(&path).unwrap();
        let h = t.header();
        let side = usize::from(h.dtm_side.expect("a table of one side's distances"));
        let width = h.dtm.as_ref().unwrap().value_bytes;
        let stored = t.load_dtm_of(side).unwrap();
        let codes = t.load_wdl_of(side).unwrap();
        // Each slot's half (a draw or unused slot repeating the one before), and the slots
        // of wins and losses, in one pass.
        let (mut halves, mut decided) = (Vec::with_capacity(h.slots as usize), Vec::new());
        let mut last = 0u16;
        for i in 0..h.slots {
            if let Some(half) = half_of(stored.stored(i), width) {
                last = half;
                if codes[i as usize] != WDL_DRAW {
                    decided.push(i as usize);
                }
            }
            halves.push(last);
        }
        let back = |i: usize, lag: usize| u64::from(if i >= lag { halves[i - lag] } else { 0 });
        println!(
            "{name}: side {side}, {} wins and losses of {} slots; DTM section {} bytes",
            decided.len(),
            h.slots,
            t.section_bytes(SectionKind::Dtm)
        );
        let lags: [&[usize]; 4] = [&[], &[1], &[1, 90], &[1, 90, 8100]];
        for lags in lags {
            let context = |i: usize| {
                lags.iter()
                    .fold(u64::from(codes[i]), |c, &lag| c * 65_536 + back(i, lag))
            };
            let (bytes, n) = conditional_bytes(decided.iter().map(|&i| (context(i), halves[i])));
            println!(
                "  WDL code and the halves {lags:?} slots before: {bytes:12.0} bytes, {n} contexts"
            );
        }
    }
}
