//! `explain`: the cycle that decides a result by a repetition rule.

use super::line::LineMove;
use crate::cycle::{CycleSearch, DEFAULT_BUDGET, Shape, find_rule_cycle};
use crate::probe::{ProbeError, Tablebase};
use crate::rules::{Move, Position};
use crate::value::Rule;
use serde::Serialize;

/// A position's result by the rule and the cycle that decides it (`canju explain --json`).
#[derive(Clone, Debug, Serialize)]
pub struct ExplainReport {
    /// The position.
    pub fen: String,
    /// The tables' rule set.
    pub rules: String,
    /// `win`, `draw` or `loss` for the side to move.
    pub wdl: &'static str,
    /// The category for the side to move.
    pub category: &'static str,
    /// The repetition rule that decides the value; null when none does (nothing to explain).
    pub rule: Option<&'static str>,
    /// The side that wins by the rule.
    pub winner: Option<&'static str>,
    /// The side that loses by the rule: it must break the cycle.
    pub offender: Option<&'static str>,
    /// True if a cycle was found.
    pub found: bool,
    /// `one-offender` (every move of the offender attacks, the winner moves idly at least
    /// once) or `checker-against-chaser` (the offender only checks, the winner checks and
    /// chases); null when no cycle was found.
    pub shape: Option<&'static str>,
    /// Positions the search examined.
    pub explored: usize,
    /// True if the search examined every position both sides reach keeping their values.
    pub complete: bool,
    /// The moves that lead from the position to the cycle.
    pub prefix: Vec<LineMove>,
    /// The cycle: after its last move its first position stands again.
    pub cycle: Vec<CycleMove>,
}

/// One move of the cycle.
#[derive(Clone, Debug, Serialize)]
pub struct CycleMove {
    /// The move, with what it attacks.
    #[serde(flatten)]
    pub played: LineMove,
    /// What a chase newly threatens to take (empty for other moves).
    pub targets: Vec<Target>,
    /// Every move its side had there that keeps its value, ICCS: the offender's others walk
    /// into a mate.
    pub keeping: Vec<String>,
}

/// A capture a chase threatens.
#[derive(Clone, Debug, Serialize)]
pub struct Target {
    /// The attacking piece (`rook`, `horse`, ...).
    pub attacker: &'static str,
    /// Its point (ICCS, `e3`).
    pub from: String,
    /// The piece it threatens.
    pub target: &'static str,
    /// That piece's point.
    pub on: String,
}

/// The cycle that decides `pos`'s result by the rule, searched over at most `budget`
/// positions (`None`: [`DEFAULT_BUDGET`]).
///
/// # Errors
///
/// The position is illegal, or a table the search needs is missing or damaged.
pub fn explain_report(
    tb: &Tablebase,
    pos: &Position,
    budget: Option<usize>,
) -> Result<ExplainReport, ProbeError> {
    let outcome = tb.probe_outcome(pos)?;
    let CycleSearch {
        found,
        explored,
        complete,
    } = find_rule_cycle(tb, pos, budget.unwrap_or(DEFAULT_BUDGET))?;
    let winner = outcome.rule().map(|_| match outcome.wdl_name() {
        "win" => pos.turn(),
        _ => pos.turn().opponent(),
    });
    let mut report = ExplainReport {
        fen: pos.fen(),
        rules: tb.rules().name().to_string(),
        wdl: outcome.wdl_name(),
        category: outcome.category(),
        rule: outcome.rule().map(Rule::label),
        winner: winner.map(|w| w.name()),
        offender: winner.map(|w| w.opponent().name()),
        found: found.is_some(),
        shape: None,
        explored,
        complete,
        prefix: Vec::new(),
        cycle: Vec::new(),
    };
    if let Some(c) = found {
        report.shape = Some(match c.shape {
            Shape::OneOffender => "one-offender",
            Shape::CheckerAgainstChaser => "checker-against-chaser",
        });
        let mut p = pos.clone();
        for &mv in &c.prefix {
            report.prefix.push(LineMove::new(&p, mv));
            p.make(mv);
        }
        for (&mv, keeping) in c.cycle.iter().zip(&c.keeping) {
            report.cycle.push(CycleMove {
                played: LineMove::new(&p, mv),
                targets: targets(&p, mv),
                keeping: keeping.iter().map(|m| m.iccs()).collect(),
            });
            p.make(mv);
        }
    }
    Ok(report)
}

/// The captures quiet move `mv` of `p` newly threatens and that win material.
fn targets(p: &Position, mv: Move) -> Vec<Target> {
    if p.is_capture(mv) {
        return Vec::new();
    }
    let after = p.after(mv);
    let name = |sq| after.piece_at(sq).map_or("", |piece| piece.role.name());
    p.chases_of(mv)
        .iter()
        .map(|c| Target {
            attacker: c.attacker.name(),
            from: c.capture.from.to_string(),
            target: name(c.capture.to),
            on: c.capture.to.to_string(),
        })
        .collect()
}
