//! Measurement aid: how `canju explain`'s cycle search does on a set's results by the rule.
//!
//! `cargo run --release --example cycle_search -- DIR SET [EVERY] [BUDGET]` searches the
//! rule-decided positions of every EVERY-th slot of SET (default every 1,000th, budget the
//! default) and
//! prints how many were shown by a cycle, the positions examined (median, largest) and the
//! time per search.
use canju::cycle::{DEFAULT_BUDGET, find_rule_cycle};
use canju::material::Material;
use canju::probe::Tablebase;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("DIR");
    let set = Material::parse(&args.next().expect("SET")).expect("a material set");
    let every: usize = args.next().map_or(1_000, |s| s.parse().expect("EVERY"));
    let budget: usize = args
        .next()
        .map_or(DEFAULT_BUDGET, |s| s.parse().expect("BUDGET"));
    let tb = Tablebase::open(&dir);
    let table = tb.table(set).expect("the set's table");
    tb.load_all(&table).expect("the set's values");
    let (mut explored, mut missed, mut slowest) = (Vec::new(), Vec::new(), (0.0, String::new()));
    let started = Instant::now();
    let rule_positions = (0..table.index.size())
        .step_by(every)
        .flat_map(|i| table.index.legal_at(i))
        .filter(|(_, p)| table.value(p).unwrap().is_some_and(|v| v.is_by_rule()));
    for (_, pos) in rule_positions {
        let t = Instant::now();
        let search = find_rule_cycle(&tb, &pos, budget).expect("a search");
        let seconds = t.elapsed().as_secs_f64();
        if seconds > slowest.0 {
            slowest = (seconds, pos.fen());
        }
        if search.found.is_none() {
            missed.push(pos.fen());
        }
        explored.push(search.explored);
    }
    explored.sort_unstable();
    let n = explored.len().max(1);
    println!(
        "{set}: {} searched, {} shown by a cycle; examined median {} largest {}; {:.2} ms a search, slowest {:.2} s ({})",
        explored.len(),
        explored.len() - missed.len(),
        explored[n / 2],
        explored.last().unwrap_or(&0),
        started.elapsed().as_secs_f64() * 1e3 / n as f64,
        slowest.0,
        slowest.1
    );
    for fen in missed.iter().take(5) {
        println!("  no cycle: {fen}");
    }
}
