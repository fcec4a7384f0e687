//! Text forms shared by several commands.

use crate::Result;
use canju::probe::Tablebase;
use canju::report::{CycleMove, ExplainReport, LineEnd, LineReport};
use canju::rules::Position;
use canju::value::{Rule, Value};

/// Pads a string that may hold double-width characters to `width` columns.
pub fn pad(s: &str, width: usize) -> String {
    let cols: usize = s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
    format!("{s}{}", " ".repeat(width.saturating_sub(cols)))
}

/// "red to move wins, mate in 23 plies" / "draw" / "black to move loses, mated in 12 plies".
pub fn verdict_line(pos: &Position, v: Value) -> String {
    let side = pos.turn();
    match v {
        Value::Win(n) => format!("{side} to move wins, mate in {n} plies"),
        Value::WinByRule(r) => format!(
            "{side} to move wins by {}: {} can hold only by {} forever; no forced mate",
            r.words(),
            side.opponent(),
            r.forbidden_play()
        ),
        Value::LossByRule(r) => format!(
            "{side} to move loses by {}: it can hold only by {} forever",
            r.words(),
            r.forbidden_play()
        ),
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
pub fn line_ending(line: &LineReport, rule: Option<Rule>) -> Option<String> {
    let (words, play) = rule.map_or(("the rule", "attacking"), |r| {
        (r.words(), r.forbidden_play())
    });
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
                    capitalised(words)
                )
            } else if r.offender_attacks_every_move {
                format!(
                    "{head}, in which every move of {0} attacks ({1}). {2} forbids that: {0} \
                     must deviate, and then loses",
                    r.offender,
                    offender_attacks(line, r.from_ply, r.offender),
                    capitalised(words)
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

/// The offender's moves in the cycle from ply `from`, each with what it attacks:
/// "e4e3 chases: e3d3; d1e1 checks".
fn offender_attacks(line: &LineReport, from: usize, offender: &str) -> String {
    let said: Vec<String> = line.line[from..]
        .iter()
        .filter(|m| m.side == offender)
        .map(|m| match m.attack {
            "check" => format!("{} checks", m.iccs),
            "chase" => format!("{} chases: {}", m.iccs, m.chases.join(", ")),
            other => format!("{} is {other}", m.iccs),
        })
        .collect();
    said.join("; ")
}

/// `s` with its first letter upper case.
fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `explain`'s text: the verdict, then the cycle move by move with what each move attacks
/// and, for the offender, what else it could play.
pub fn explanation(tb: &Tablebase, pos: &Position, report: &ExplainReport) -> Result<String> {
    let verdict = match tb.probe(pos) {
        Ok(value) => verdict_line(pos, value),
        Err(e) if e.lacks_distances() => {
            format!("{} to move: {}", pos.turn(), tb.probe_outcome(pos)?)
        }
        Err(e) => return Err(e.into()),
    };
    let mut text = format!("{verdict}\n");
    let (Some(winner), Some(offender)) = (report.winner, report.offender) else {
        text.push_str("No repetition rule decides this position: nothing to explain (`canju line` shows its best play).\n");
        return Ok(text);
    };
    if !report.found {
        text.push_str(&format!(
            "No cycle found among the {} positions searched{}: the value stands (the tables say \
             {offender} cannot avoid losing except by attacking forever), but this search does not \
             show the play; try a larger --max-positions.\n",
            report.explored,
            if report.complete {
                " (all that both sides reach keeping their values)"
            } else {
                ""
            }
        ));
        return Ok(text);
    }
    if !report.prefix.is_empty() {
        let moves: Vec<&str> = report.prefix.iter().map(|m| m.iccs.as_str()).collect();
        text.push_str(&format!(
            "The play reaches the cycle by {}.\n",
            moves.join(" ")
        ));
    }
    text.push_str(&format!("The cycle, {} plies:\n", report.cycle.len()));
    for (k, m) in report.cycle.iter().enumerate() {
        text.push_str(&format!(
            "  {:>2}. {:<5} {}  {}  {}\n",
            k + 1,
            m.played.side,
            pad(&m.played.chinese, 10),
            m.played.iccs,
            attack_words(m)
        ));
        if m.played.side == offender {
            text.push_str(&format!("      {}\n", alternatives(m, offender)));
        }
    }
    let offending: Vec<&str> = report
        .cycle
        .iter()
        .filter(|m| m.played.side == offender)
        .map(|m| m.played.attack)
        .collect();
    let does = if offending.iter().all(|a| *a == "check") {
        "checks"
    } else if offending.iter().all(|a| *a == "chase") {
        "chases"
    } else {
        "checks or chases"
    };
    let why = match report.shape {
        Some("checker-against-chaser") => format!(
            "Every move of {offender} checks, while {winner} checks and chases: a side that only \
             checks loses against one that chases."
        ),
        _ => format!(
            "Every move of {offender} {does}, while {winner} moves idly (閑) at least once: \
             {offender} alone attacks forever, which the rule forbids."
        ),
    };
    text.push_str(&format!(
        "After the last move the cycle's first position stands again. {why} {} must leave \
         the cycle, and the tables say it loses whichever way it goes.\n",
        capitalised(offender)
    ));
    Ok(text)
}

/// "checks", "chases the horse on d3 with the rook on e3", "idle".
fn attack_words(m: &CycleMove) -> String {
    let chased: Vec<String> = m
        .targets
        .iter()
        .map(|t| {
            format!(
                "the {} on {} with the {} on {}",
                t.target, t.on, t.attacker, t.from
            )
        })
        .collect();
    match m.played.attack {
        "check" => "checks".to_string(),
        "chase" => format!("chases {}", chased.join(" and ")),
        "pawn-chase" => format!("idle (a pawn's own chase of {})", chased.join(" and ")),
        other => other.to_string(),
    }
}

/// What else the offender could play where it made move `m`.
fn alternatives(m: &CycleMove, offender: &str) -> String {
    let others: Vec<&str> = m
        .keeping
        .iter()
        .map(String::as_str)
        .filter(|o| *o != m.played.iccs)
        .collect();
    if others.is_empty() {
        format!("{offender}'s only move here that is not mated")
    } else {
        format!(
            "{offender}'s other moves here that are not mated (each also loses by the rule): {}",
            others.join(" ")
        )
    }
}
