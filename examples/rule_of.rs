//! Reads FENs, one per line, and prints each with its outcome and the repetition rule that
//! decided it: `FEN<TAB>W|D|L<TAB>RULE` (`-` for none), from the side to move. With
//! `scripts/compare-xiangqitb.sh`'s lists it gives `tests/data/xiangqitb-differences.tsv.zst`
//! its rule column.
//!
//! `cargo run --release --example rule_of -- DIR RULES < fens`
use canju::probe::{RuleSet, Tablebase};
use canju::rules::Position;
use std::io::{BufRead, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, rules] = args.as_slice() else {
        return Err("usage: rule_of DIR RULES < fens".into());
    };
    let tb = Tablebase::with_rules(dir, rules.parse::<RuleSet>()?);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in std::io::stdin().lock().lines() {
        let fen = line?;
        let outcome = tb.probe_outcome(&Position::from_fen(&fen)?)?;
        let letter = match outcome.wdl_name() {
            "win" => 'W',
            "loss" => 'L',
            _ => 'D',
        };
        let rule = outcome.rule().map_or("-", |r| r.label());
        writeln!(out, "{fen}\t{letter}\t{rule}")?;
    }
    Ok(())
}
