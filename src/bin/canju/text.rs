//! Text forms shared by several commands.

use canju::probe::RuleSet;
use canju::report::{LineEnd, LineReport};
use canju::rules::Position;
use canju::value::Value;

/// Pads a string that may hold double-width characters to `width` columns.
pub fn pad(s: &str, width: usize) -> String {
    let cols: usize = s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
    format!("{s}{}", " ".repeat(width.saturating_sub(cols)))
}

/// "red to move wins, mate in 23 plies" / "draw" / "black to move loses, mated in 12 plies".
pub fn verdict_line(pos: &Position, v: Value, rules: RuleSet) -> String {
    let side = pos.turn();
    let (rule, play) = (rules.rule_words(), rules.forbidden_play());
    match v {
        Value::Win(n) => format!("{side} to move wins, mate in {n} plies"),
        Value::WinByRule => format!(
            "{side} to move wins by {rule}: {} can hold only by {play} forever; no forced mate",
            side.opponent()
        ),
        Value::LossByRule => {
            format!("{side} to move loses by {rule}: it can hold only by {play} forever")
        }
        Value::Draw => "draw: neither side can force a win".to_string(),
        Value::Loss(0) if pos.in_check() => {
            format!("{side} to move is checkmated (将死) and loses")
        }
        Value::Loss(0) => format!(
            "{side} to move has no legal move and is not in check: stalemate (困毙), a loss"
        ),
        Value::Loss(n) => format!("{side} to move loses, mated in {n} plies"),
    }
}

/// The moves of a line numbered like a score sheet, a full move a row.
pub fn score_sheet(line: &LineReport) -> String {
    let mut text = String::new();
    let mut number = 1;
    for (k, m) in line.line.iter().enumerate() {
        if m.side == "red" {
            text.push_str(&format!("{number}. {}", m.chinese));
        } else {
            if k == 0 {
                text.push_str(&format!("{number}. ..."));
            }
            text.push_str(&format!(" {}\n", m.chinese));
            number += 1;
        }
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// How the line ends, in a sentence (none for a draw, which shows no line).
pub fn line_ending(line: &LineReport, rules: RuleSet) -> Option<String> {
    let (rule, play) = (rules.rule_words(), rules.forbidden_play());
    let last = Position::from_fen(&line.final_fen).ok()?;
    let side = last.turn();
    match line.end {
        LineEnd::Draw => None,
        LineEnd::Checkmate => Some(format!("{side} is checkmated (将死)")),
        LineEnd::Stalemate => Some(format!(
            "{side} has no legal move and is not in check: stalemate (困毙), which loses"
        )),
        LineEnd::Repetition => line.repetition.as_ref().map(|r| {
            let plies = line.line.len();
            let from = if r.from_ply == 0 {
                "the starting position".to_string()
            } else {
                format!("the one after ply {}", r.from_ply)
            };
            let head = format!(
                "the position after ply {plies} repeats {from}: a cycle of {} plies",
                plies - r.from_ply
            );
            if r.offender_checks_every_move {
                format!(
                    "{head}, in which {0} gives check with every move. {1} forbids that: {0} \
                     must deviate, and then loses",
                    r.offender,
                    capitalised(rule)
                )
            } else {
                format!(
                    "{head}. The tables store no plan for a win by the rule, only its value: \
                     against best play {0} cannot avoid {play} forever, so {0} must deviate \
                     and loses; this line does not show how its opponent forces that",
                    r.offender
                )
            }
        }),
    }
}

/// `s` with its first letter upper case.
fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
