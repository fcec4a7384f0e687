//! What the HTTP service answers for a position (`GET /xiangqi`) and its line
//! (`GET /xiangqi/mainline`), shaped like lichess's tablebase API with xiangqi's additions.
//!
//! Unlike the CLI's reports, a move carries the value **of the position after it**, from the
//! side to move there (lichess's convention): a winning move shows `loss`.

use crate::material::Material;
use crate::probe::{ProbeError, Results, Tablebase};
use crate::rules::{Move, Position};
use crate::value::Rule;
use crate::value::{Standing, Value};
use serde::Serialize;

/// Full moves to mate, signed like the distance in plies (`None` without a distance).
fn moves_to_mate(dtm: Option<i32>) -> Option<i32> {
    dtm.map(|d| {
        let moves = (d.abs() + 1) / 2;
        if d < 0 { -moves } else { moves }
    })
}

/// A position's value and its moves' (`GET /xiangqi`).
#[derive(Clone, Debug, Serialize)]
pub struct LookupReport {
    /// The position, full FEN.
    pub fen: String,
    /// Its material set, ASCII, red first.
    pub material: String,
    /// The set as players name it.
    pub material_chinese: String,
    /// The tables' rule set.
    pub rules: String,
    /// `win`, `loss`, `draw`, `win-by-rule` or `loss-by-rule`, for the side to move.
    pub category: &'static str,
    /// Signed plies to mate from the side to move.
    pub dtm: Option<i32>,
    /// Signed full moves to mate (a move of each side), rounded up.
    pub moves_to_mate: Option<i32>,
    /// In check with no legal move.
    pub checkmate: bool,
    /// No legal move, not in check (困毙, a loss).
    pub stalemate: bool,
    /// The repetition rule that decides, if one does.
    pub rule: Option<&'static str>,
    /// Every legal move, best first for the side to move.
    pub moves: Vec<LookupMove>,
}

/// One legal move, valued by the position it leads to.
#[derive(Clone, Debug, Serialize)]
pub struct LookupMove {
    /// ICCS (`h2e2`).
    pub uci: String,
    /// WXF.
    pub wxf: String,
    /// Chinese.
    pub chinese: String,
    /// The position after the move.
    pub fen: String,
    /// The move captures.
    pub capture: bool,
    /// The move gives check.
    pub check: bool,
    /// The category of the position after the move, for the side to move there.
    pub category: &'static str,
    /// Signed plies to mate of the position after the move.
    pub dtm: Option<i32>,
    /// Signed full moves to mate of the position after the move.
    pub moves_to_mate: Option<i32>,
    /// The repetition rule that decides the position after the move, if one does.
    pub rule: Option<&'static str>,
}

impl LookupMove {
    fn new(pos: &Position, mv: Move, after_value: impl Standing) -> LookupMove {
        let after = pos.after(mv);
        LookupMove {
            uci: mv.iccs(),
            wxf: pos.move_to_wxf(mv),
            chinese: pos.move_to_chinese(mv),
            fen: after.fen(),
            capture: pos.is_capture(mv),
            check: after.in_check(),
            category: after_value.category(),
            dtm: after_value.signed_dtm(),
            moves_to_mate: moves_to_mate(after_value.signed_dtm()),
            rule: after_value.rule().map(Rule::label),
        }
    }
}

/// Probes `pos` and the position after every legal move. Where a table holds no distances
/// (`--wdl-only`), every `dtm` and `moves_to_mate` is null and the moves are ordered by
/// outcome alone.
///
/// # Errors
///
/// A table is missing or damaged.
pub fn lookup_report(tb: &Tablebase, pos: &Position) -> Result<LookupReport, ProbeError> {
    Ok(match tb.results(pos)? {
        Results::Values(value, moves) => lookup_of(tb, pos, value, moves),
        Results::Outcomes(outcome, moves) => lookup_of(tb, pos, outcome, moves),
    })
}

/// The lookup of `pos`, whose standing is `value` and its moves' (for the mover) `moves`.
fn lookup_of<S: Standing>(
    tb: &Tablebase,
    pos: &Position,
    value: S,
    moves: Vec<(Move, S)>,
) -> LookupReport {
    let material = Material::of_position(pos);
    let no_move = moves.is_empty();
    LookupReport {
        fen: pos.fen(),
        material: material.name(),
        material_chinese: material.chinese_name(),
        rules: tb.rules().name().to_string(),
        category: value.category(),
        dtm: value.signed_dtm(),
        moves_to_mate: moves_to_mate(value.signed_dtm()),
        checkmate: no_move && pos.in_check(),
        stalemate: no_move && !pos.in_check(),
        rule: value.rule().map(Rule::label),
        moves: moves
            .into_iter()
            .map(|(mv, v)| LookupMove::new(pos, mv, v.child()))
            .collect(),
    }
}

/// The line of best play (`GET /xiangqi/mainline`).
#[derive(Clone, Debug, Serialize)]
pub struct MainlineReport {
    /// Signed plies to mate from the side to move at the start.
    pub dtm: Option<i32>,
    /// `w` or `b`, the side that wins (by mate or by the rule); null for a draw.
    pub winner: Option<&'static str>,
    /// `checkmate`, `stalemate`, the rule that decides (`perpetual-check`: the line stops at
    /// the first repeated position), or null for a draw.
    pub end: Option<&'static str>,
    /// The moves.
    pub mainline: Vec<MainlineMove>,
}

/// One move of the main line, with the value of the position after it.
#[derive(Clone, Debug, Serialize)]
pub struct MainlineMove {
    /// ICCS.
    pub uci: String,
    /// WXF.
    pub wxf: String,
    /// Chinese.
    pub chinese: String,
    /// Signed plies to mate of the position after the move.
    pub dtm: Option<i32>,
}

/// The main line from `pos`.
///
/// # Errors
///
/// A table the line passes through is missing or damaged.
pub fn mainline_report(tb: &Tablebase, pos: &Position) -> Result<MainlineReport, ProbeError> {
    let value = tb.probe(pos)?;
    let line = tb.principal_variation(pos)?;
    let mut p = pos.clone();
    let mut mainline = Vec::with_capacity(line.len());
    for mv in line {
        let (wxf, chinese) = (p.move_to_wxf(mv), p.move_to_chinese(mv));
        p.make(mv);
        mainline.push(MainlineMove {
            uci: mv.iccs(),
            wxf,
            chinese,
            dtm: tb.probe(&p)?.signed_dtm(),
        });
    }
    let fen_side = |c: crate::rules::Color| {
        if c == crate::rules::Color::Red {
            "w"
        } else {
            "b"
        }
    };
    let winner = if value.is_win() {
        Some(fen_side(pos.turn()))
    } else if value.is_loss() {
        Some(fen_side(pos.turn().opponent()))
    } else {
        None
    };
    let end = match value {
        Value::Draw => None,
        v if v.is_by_rule() => v.rule().map(Rule::label),
        _ if p.in_check() => Some("checkmate"),
        _ => Some("stalemate"),
    };
    Ok(MainlineReport {
        dtm: value.signed_dtm(),
        winner,
        end,
        mainline,
    })
}
