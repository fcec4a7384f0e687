//! Measurement aid (issue 14): how much smaller a table's stored DTM side would compress if
//! the positions whose best move is a capture were "don't care" (Syzygy's idea), the probe
//! then taking the better of the stored value and its captures' values.
//!
//! A don't-care position may store any distance no better than its own for the side to move
//! (a longer win, a shorter loss), so the probe's `best(stored, captures)` still gives the
//! true value; here it takes the half before it where that is allowed (a repeat), else its
//! own. Both streams are compressed by the writer's compressor (2,048-slot frames, bare, with
//! the table's own dictionary).
//!
//! `cargo run --release --example dtm_capture_fill DIR SET...`

use canju::material::Material;
use canju::probe::Tablebase;
use canju::rules::Color;
use canju::table::DTM_BLOCK;
use canju::value::Value;
use rayon::prelude::*;

/// The 1-byte half the writer stores for a value (rule results as their marks), `None` for
/// a draw or an empty slot (which repeat the half before).
fn half(v: Value) -> Option<u8> {
    match v {
        Value::Win(n) => Some(n.div_ceil(2).min(252) as u8),
        Value::Loss(n) => Some((n / 2).min(252) as u8),
        Value::WinByRule(r) | Value::LossByRule(r) => Some(0xFF - r as u8),
        Value::Draw => None,
    }
}

fn compressed(bytes: &[u8], dict: &[u8]) -> usize {
    let mut c = canju::table::dtm_compressor(dict);
    bytes
        .chunks(DTM_BLOCK as usize)
        .map(|f| c.compress(f).unwrap().len())
        .sum()
}

fn main() {
    let dir = std::env::args().nth(1).expect("DIR SET...");
    let tb = Tablebase::open(&dir);
    let (mut before, mut after) = (0usize, 0usize);
    for name in std::env::args().skip(2) {
        let m = Material::parse(&name).unwrap().canonical();
        let t = tb.table(m).unwrap();
        let Some(side) = t.file.header().dtm_side.map(usize::from) else {
            println!("{name}: both sides stored, skipped");
            continue;
        };
        let turn = Color::ALL[side];
        let slots = t.index.size();
        // Per slot: its value, and whether a capture reaches it (a don't-care).
        let rows: Vec<(Option<Value>, bool)> = (0..slots)
            .into_par_iter()
            .map(|i| {
                let Some(p) = t.index.legal_position(i, turn) else {
                    return (None, false);
                };
                let v = tb.probe_unchecked(&p).unwrap();
                if !matches!(v, Value::Win(_) | Value::Loss(_)) {
                    return (Some(v), false);
                }
                let by_capture = p.legal_moves().iter().any(|&mv| {
                    p.is_capture(mv)
                        && tb
                            .probe_unchecked(&p.after(mv))
                            .unwrap()
                            .parent()
                            .goodness()
                            == v.goodness()
                });
                (Some(v), by_capture)
            })
            .collect();
        let (mut plain, mut filled) = (Vec::new(), Vec::new());
        let (mut last_plain, mut last_filled) = (0u8, 0u8);
        let (mut decided, mut free) = (0u64, 0u64);
        for &(v, by_capture) in &rows {
            if let Some(h) = v.and_then(half) {
                last_plain = h;
                let allowed = match v {
                    Some(Value::Win(_)) => last_filled >= h && last_filled <= 252,
                    Some(Value::Loss(_)) => last_filled <= h,
                    _ => false,
                };
                if !(by_capture && allowed) {
                    last_filled = h;
                }
                decided += matches!(v, Some(Value::Win(_) | Value::Loss(_))) as u64;
                free += by_capture as u64;
            }
            plain.push(last_plain);
            filled.push(last_filled);
        }
        let dict = &t.file.header().dtm.as_ref().unwrap().dictionary;
        let (b, a) = (compressed(&plain, dict), compressed(&filled, dict));
        before += b;
        after += a;
        println!(
            "{name}: side {side}, {free} of {decided} mates reached by a capture ({:.1}%); \
             DTM {b} -> {a} bytes ({:+.1}%); in the file {}",
            100.0 * free as f64 / decided.max(1) as f64,
            100.0 * (a as f64 / b as f64 - 1.0),
            t.file.section_bytes(canju::table::SectionKind::Dtm)
        );
    }
    println!(
        "all: {before} -> {after} bytes ({:+.1}%)",
        100.0 * (after as f64 / before.max(1) as f64 - 1.0)
    );
}
