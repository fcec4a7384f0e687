//! `line`: the line of best play and how it ends.

use crate::probe::{ProbeError, Tablebase, repetition_start};
use crate::rules::{Move, MoveAttack, Position};
use crate::value::{Rule, Value};
use serde::Serialize;

/// How a line of best play ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineEnd {
    /// The side to move at the end is in check with no legal move (将死).
    Checkmate,
    /// The side to move at the end has no legal move and is not in check (困毙, a loss).
    Stalemate,
    /// A position repeats: the value is decided by a repetition rule.
    Repetition,
    /// Neither side can force anything: no line is shown.
    Draw,
}

/// The cycle that ends a line decided by the rule.
#[derive(Clone, Debug, Serialize)]
pub struct Repetition {
    /// The ply after which the repeated position first stood (0 = the start).
    pub from_ply: usize,
    /// The side that loses by the rule: it must deviate from the cycle.
    pub offender: &'static str,
    /// True if the offender gives check with every one of its moves in the cycle (the
    /// perpetual check the rule forbids).
    pub offender_checks_every_move: bool,
    /// True if every one of the offender's moves in the cycle checks or chases (what the
    /// `asian` rules forbid: see each move's `attack`). False only where no cycle the rule
    /// decides was found within the search's budget, and the line is best moves until a
    /// position repeats ([`Tablebase::principal_variation`]).
    pub offender_attacks_every_move: bool,
}

/// One move of the line.
#[derive(Clone, Debug, Serialize)]
pub struct LineMove {
    /// ICCS.
    #[serde(rename = "move")]
    pub iccs: String,
    /// WXF.
    pub wxf: String,
    /// Chinese.
    pub chinese: String,
    /// The side making the move: `red` or `black`.
    pub side: &'static str,
    /// The move gives check.
    pub check: bool,
    /// What the move does for the repetition rules: `check`, `chase` (a piece's newly
    /// threatened capture that wins material), `pawn-chase` (a pawn's: idle unless both sides
    /// attack forever), `idle`, or `capture`.
    pub attack: &'static str,
    /// The captures a chase newly threatens, as ICCS moves (`e3d3`: the piece on e3 takes the
    /// one on d3).
    pub chases: Vec<String>,
}

impl LineMove {
    /// Move `mv` of the side to move in `p`.
    pub(crate) fn new(p: &Position, mv: Move) -> LineMove {
        let after = p.after(mv);
        let (attack, chases) = if p.is_capture(mv) {
            (if after.in_check() { "check" } else { "capture" }, vec![])
        } else {
            let attack = match p.move_attack(mv) {
                MoveAttack::Check => "check",
                MoveAttack::Chase => "chase",
                MoveAttack::PawnChase => "pawn-chase",
                MoveAttack::Idle => "idle",
            };
            let chases = p.chases_of(mv).iter().map(|c| c.capture.iccs()).collect();
            (attack, chases)
        };
        LineMove {
            iccs: mv.iccs(),
            wxf: p.move_to_wxf(mv),
            chinese: p.move_to_chinese(mv),
            side: p.turn().name(),
            check: after.in_check(),
            attack,
            chases,
        }
    }
}

/// The line of best play from a position (`canju line --json`).
#[derive(Clone, Debug, Serialize)]
pub struct LineReport {
    /// The starting position.
    pub fen: String,
    /// The tables' rule set.
    pub rules: String,
    /// `win`, `draw` or `loss` for the side to move at the start.
    pub wdl: &'static str,
    /// The category for the side to move at the start.
    pub category: &'static str,
    /// Signed plies to mate for the side to move at the start.
    pub dtm: Option<i32>,
    /// The repetition rule that decides the value, if one does.
    pub rule: Option<&'static str>,
    /// The moves, both sides alternating.
    pub line: Vec<LineMove>,
    /// The position after the last move.
    pub final_fen: String,
    /// How the line ends.
    pub end: LineEnd,
    /// The cycle, when the line ends in a repetition.
    pub repetition: Option<Repetition>,
}

/// The line of best play from `pos` (see [`Tablebase::principal_variation`]).
///
/// # Errors
///
/// A table the line passes through is missing or damaged.
pub fn line_report(tb: &Tablebase, pos: &Position) -> Result<LineReport, ProbeError> {
    let value = tb.probe(pos)?;
    let moves = tb.principal_variation(pos)?;
    let mut p = pos.clone();
    let mut line = Vec::with_capacity(moves.len());
    for &mv in &moves {
        line.push(LineMove::new(&p, mv));
        p.make(mv);
    }
    let repetition = if value.is_by_rule() {
        repetition_start(pos, &moves).map(|from_ply| cycle(pos, value, &line, from_ply))
    } else {
        None
    };
    let end = if value == Value::Draw {
        LineEnd::Draw
    } else if repetition.is_some() {
        LineEnd::Repetition
    } else if p.in_check() {
        LineEnd::Checkmate
    } else {
        LineEnd::Stalemate
    };
    Ok(LineReport {
        fen: pos.fen(),
        rules: tb.rules().name().to_string(),
        wdl: value.wdl_name(),
        category: value.category(),
        dtm: value.signed_dtm(),
        rule: value.rule().map(Rule::label),
        line,
        final_fen: p.fen(),
        end,
        repetition,
    })
}

/// The cycle of a rule-decided line that repeats from ply `from_ply`.
fn cycle(start: &Position, value: Value, line: &[LineMove], from_ply: usize) -> Repetition {
    let offender = if matches!(value, Value::LossByRule(_)) {
        start.turn()
    } else {
        start.turn().opponent()
    };
    let offenders = || {
        line[from_ply..]
            .iter()
            .filter(|m| m.side == offender.name())
    };
    Repetition {
        from_ply,
        offender: offender.name(),
        offender_checks_every_move: offenders().all(|m| m.check),
        offender_attacks_every_move: offenders().all(|m| matches!(m.attack, "check" | "chase")),
    }
}
