//! Table sizes and warm probe latency.
//!
//! `cargo bench --bench probe` generates every set up to `PROBE_MEN` men (default 4) into
//! `PROBE_DIR` (default: a temporary folder; point it at an existing folder to reuse tables),
//! or only the sets named in `PROBE_SETS` (comma-separated, e.g. `KRNKR,KRCKR`) and the
//! sub-tables they need, then prints bits per position of the compressed WDL and DTM sections and the latency of
//! warm WDL and DTM probes of random legal positions through memory-mapped files.

use canju::generate::{GenOptions, generate_all};
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::rules::{Color, Position};
use canju::table::SectionKind;
use std::time::Instant;

fn main() {
    let men: u32 = std::env::var("PROBE_MEN")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let rules: RuleSet = std::env::var("PROBE_RULES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_default();
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::env::var("PROBE_DIR").map_or(tmp.path().to_path_buf(), Into::into);
    let tb = Tablebase::with_rules(&dir, rules);
    let sets: Vec<Material> = match std::env::var("PROBE_SETS") {
        Ok(names) => names
            .split(',')
            .map(|n| {
                Material::parse(n.trim())
                    .expect("a material set in PROBE_SETS")
                    .canonical()
            })
            .collect(),
        Err(_) => Material::all_up_to(men),
    };
    let t = Instant::now();
    generate_all(&tb, &sets, &GenOptions::default()).unwrap();
    println!(
        "{} sets ready in {:.1} s ({rules})",
        sets.len(),
        t.elapsed().as_secs_f64()
    );

    // Sizes: positions as a player counts them, both sides to move.
    let (mut positions, mut wdl, mut dtm, mut file) = (0u64, 0u64, 0u64, 0u64);
    // What the header spends on each section: its block list, codes and checksums.
    let (mut wdl_index, mut dtm_index) = (0u64, 0u64);
    let described = |s: &canju::table::Section| {
        bincode::encode_to_vec(s, bincode::config::standard())
            .unwrap()
            .len() as u64
    };
    for &m in &sets {
        let t = tb.table(m).unwrap();
        positions += t.stats()[0].positions + t.stats()[1].positions;
        wdl += t.file.section_bytes(SectionKind::Wdl);
        dtm += t.file.section_bytes(SectionKind::Dtm);
        wdl_index += described(&t.file.header().wdl);
        dtm_index += t.file.header().dtm.as_ref().map_or(0, described);
        file += t.file.file_bytes();
    }
    let bits = |b: u64| 8.0 * b as f64 / positions as f64;
    println!("positions {positions}, files {:.2} MB", file as f64 / 1e6);
    println!(
        "WDL {:.2} MB, {:.3} bits per position, {:.3} with its block index in the header \
         (xiangqitb 0.16, Syzygy ~0.1)",
        wdl as f64 / 1e6,
        bits(wdl),
        bits(wdl + wdl_index)
    );
    println!(
        "DTM {:.2} MB, {:.3} bits per position, {:.3} with its block index (xiangqitb 1.10)",
        dtm as f64 / 1e6,
        bits(dtm),
        bits(dtm + dtm_index)
    );

    // Random legal positions from the largest sets.
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let big: Vec<Material> = {
        let mut v = sets.clone();
        v.sort_by_key(|m| std::cmp::Reverse(tb.table(*m).unwrap().index.size()));
        v.truncate(10);
        v
    };
    let mut sample: Vec<Position> = vec![];
    while sample.len() < 100_000 {
        let t = tb.table(big[(next() % big.len() as u64) as usize]).unwrap();
        let i = next() % t.index.size();
        let turn = if next() % 2 == 0 {
            Color::Red
        } else {
            Color::Black
        };
        if let Some(p) = t.index.decode(i, turn)
            && t.index.encode(&p) == Some(i)
            && p.validate().is_ok()
        {
            sample.push(p);
        }
    }
    for p in &sample {
        tb.probe_wdl(p).unwrap();
    }
    // The table file's part alone: slots computed beforehand.
    let slots: Vec<_> = sample
        .iter()
        .map(|p| {
            let m = Material::of_position(p);
            let t = tb.table(m).unwrap();
            let view = (t.material != m).then(|| p.color_swapped());
            let view = view.as_ref().unwrap_or(p);
            let i = t.index.encode(view).unwrap();
            (t, view.turn().index(), i)
        })
        .collect();
    for (name, section) in [("WDL", SectionKind::Wdl), ("DTM", SectionKind::Dtm)] {
        let rounds = 5;
        let t = Instant::now();
        for _ in 0..rounds {
            for (table, side, i) in &slots {
                match section {
                    SectionKind::Wdl => {
                        std::hint::black_box(table.file.wdl(*side, *i).unwrap() as u16)
                    }
                    // The side a search gives has no distances in the file: 0 stands.
                    SectionKind::Dtm => {
                        std::hint::black_box(table.file.dtm(*side, *i).unwrap_or(0))
                    }
                };
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / (rounds * slots.len()) as f64;
        println!("table file read alone, {name}: {ns:.0} ns per position");
    }
    // What every probe pays before reading its table: finding the table and the slot.
    let slot_only = |p: &Position| -> Result<(), canju::probe::ProbeError> {
        let m = Material::of_position(p);
        let t = tb.table(m)?;
        let view = (t.material != m).then(|| p.color_swapped());
        std::hint::black_box(t.index.encode(view.as_ref().unwrap_or(p)));
        Ok(())
    };
    // A table stores one side to move's distances; the other side's DTM probe is a one-ply
    // search over the stored side (format 9), so the two are timed apart as well.
    let stored_side = |p: &Position| {
        let m = Material::of_position(p);
        let t = tb.table(m).unwrap();
        let turn = if t.material == m {
            p.turn()
        } else {
            p.turn().opponent()
        };
        t.file.header().stores_distances_of(turn.index())
    };
    let (stored, searched): (Vec<Position>, Vec<Position>) =
        sample.iter().cloned().partition(|p| stored_side(p));
    let dtm = |p: &Position| tb.probe_dtm(p).map(|_| ());
    for (name, f, positions) in [
        (
            "WDL",
            &(|p: &Position| tb.probe_wdl(p).map(|_| ())) as &dyn Fn(&Position) -> _,
            &sample,
        ),
        ("DTM", &dtm, &sample),
        ("DTM of a stored side", &dtm, &stored),
        ("DTM of a searched side", &dtm, &searched),
        ("table and slot only", &slot_only, &sample),
    ] {
        if positions.is_empty() {
            continue;
        }
        let rounds = 5;
        let t = Instant::now();
        for _ in 0..rounds {
            for p in positions {
                f(p).unwrap();
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / (rounds * positions.len()) as f64;
        println!(
            "warm {name} probe: {:.0} ns per position over {} positions (one thread; Syzygy \
             2-3 us)",
            ns,
            positions.len()
        );
    }
}
