//! Perft speed, one thread: the start position to `PERFT_DEPTH` plies (default 5, 133,312,995
//! leaves), compared with Fairy-Stockfish's 11.6 s for perft(5) on a machine of this kind, then
//! perft(4) on the other positions of tests/data/perft.txt. Every count with a known figure is
//! checked.
//!
//! Run with `cargo bench --bench perft` (or `PERFT_DEPTH=6 cargo bench --bench perft`).

use canju::rules::{Position, START_FEN};
use std::time::Instant;

const PERFT: &str = include_str!("../tests/data/perft.txt");

/// Fairy-Stockfish's perft(5) from the start position on this machine kind, seconds.
const FAIRY_SECONDS: f64 = 11.6;
/// Leaves of perft(5) from the start.
const FAIRY_LEAVES: u64 = 133_312_995;

/// One line of tests/data/perft.txt: a FEN and the known counts for depths 1.. (`None` for `-`).
struct Case {
    fen: &'static str,
    counts: Vec<Option<u64>>,
    source: &'static str,
}

impl Case {
    fn expected(&self, depth: u32) -> Option<u64> {
        let i = (depth as usize).checked_sub(1)?;
        self.counts.get(i).copied().flatten()
    }
}

fn cases() -> Vec<Case> {
    PERFT
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split('|');
            let fen = parts.next().expect("fen field").trim();
            let counts = parts
                .next()
                .unwrap_or("")
                .split_whitespace()
                .map(|c| c.parse().ok())
                .collect();
            let source = parts.next().unwrap_or("").trim();
            Case {
                fen,
                counts,
                source,
            }
        })
        .collect()
}

/// Runs perft and returns (leaves, seconds).
fn timed_perft(pos: &Position, depth: u32) -> (u64, f64) {
    let start = Instant::now();
    let leaves = pos.perft(depth);
    (leaves, start.elapsed().as_secs_f64())
}

fn check(case: &Case, depth: u32, leaves: u64) {
    if let Some(want) = case.expected(depth) {
        assert_eq!(
            leaves, want,
            "perft({depth}) of {} is {leaves}, expected {want} ({})",
            case.fen, case.source
        );
    }
}

fn main() {
    let depth: u32 = match std::env::var("PERFT_DEPTH") {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("PERFT_DEPTH must be a number, found {s:?}")),
        Err(_) => 5,
    };
    let cases = cases();
    let (first, rest) = cases.split_first().expect("perft.txt has positions");
    assert_eq!(
        Position::from_fen(first.fen).unwrap().fen(),
        Position::from_fen(START_FEN).unwrap().fen(),
        "the first line of perft.txt is the start position"
    );

    let fairy_rate = FAIRY_LEAVES as f64 / FAIRY_SECONDS;
    let start = Position::start();
    let (leaves, secs) = timed_perft(&start, depth);
    check(first, depth, leaves);
    if depth == 5 {
        assert_eq!(leaves, FAIRY_LEAVES);
    }
    let rate = leaves as f64 / secs;
    println!("start position perft({depth}): {leaves} leaves in {secs:.3} s, {rate:.0} leaves/s");
    if depth == 5 {
        println!(
            "Fairy-Stockfish: {FAIRY_SECONDS} s; ratio {:.3} of its time ({:.2}x its speed)",
            secs / FAIRY_SECONDS,
            FAIRY_SECONDS / secs
        );
    } else {
        println!(
            "Fairy-Stockfish perft(5) rate {fairy_rate:.0} leaves/s; {:.2}x its speed",
            rate / fairy_rate
        );
    }

    let mut total_leaves = 0u64;
    let mut total_secs = 0.0;
    for (i, case) in rest.iter().enumerate() {
        let pos = Position::from_fen(case.fen)
            .unwrap_or_else(|e| panic!("perft.txt position {}: {e}", i + 2));
        let (leaves, secs) = timed_perft(&pos, 4);
        check(case, 4, leaves);
        total_leaves += leaves;
        total_secs += secs;
    }
    let rate = total_leaves as f64 / total_secs;
    println!(
        "other {} positions perft(4): {total_leaves} leaves in {total_secs:.3} s, {rate:.0} leaves/s ({:.2}x Fairy-Stockfish's start-position rate)",
        rest.len(),
        rate / fairy_rate
    );
}
