//! Prints every legal position of a material set with its win/draw/loss, one per line:
//! `FEN<TAB>W|D|L` from the side to move (results by the repetition rules as wins and
//! losses), for comparing with another tablebase position by position
//! (`scripts/compare-xiangqitb.sh`).
//!
//! `cargo run --release --example dump_wdl -- DIR RULES MATERIAL [--no-mates]`
//!
//! With `--no-mates` only the draws and the results by a repetition rule are printed: a
//! forced mate is the same under every rule set (a mate ends the game before any
//! repetition), so a comparison of rules needs only the others.
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::value::Outcome;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (args, no_mates) = match args.split_last() {
        Some((last, rest)) if last == "--no-mates" => (rest, true),
        _ => (args.as_slice(), false),
    };
    let [dir, rules, material] = args else {
        return Err("usage: dump_wdl DIR RULES MATERIAL [--no-mates]".into());
    };
    let rules: RuleSet = rules.parse()?;
    let material = Material::parse(material).map_err(|e| format!("{e:?}"))?;
    let tb = Tablebase::with_rules(dir, rules);
    let table = tb.table(material)?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for (_, pos) in table.index.legal_positions() {
        let outcome = tb.probe_outcome(&pos)?;
        if no_mates && matches!(outcome, Outcome::Win | Outcome::Loss) {
            continue;
        }
        let letter = match outcome {
            Outcome::Win | Outcome::WinByRule(_) => 'W',
            Outcome::Draw => 'D',
            Outcome::Loss | Outcome::LossByRule(_) => 'L',
        };
        let fen = pos.fen();
        let board_and_turn = fen.split(' ').take(2).collect::<Vec<_>>().join(" ");
        if writeln!(out, "{board_and_turn}\t{letter}").is_err() {
            break;
        }
    }
    Ok(())
}
