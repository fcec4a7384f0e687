//! `probe`: a position's value with every legal move's.

use crate::material::Material;
use crate::probe::{ProbeError, Results, Tablebase};
use crate::rules::{Move, Position};
use crate::value::Rule;
use crate::value::Standing;
use serde::Serialize;

/// A position's value and its moves' (`canju probe --json`).
#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    /// The position, as a full FEN.
    pub fen: String,
    /// Its material set in ASCII, red first (`KNK`).
    pub material: String,
    /// The material set as players name it (`马对单将`).
    pub material_chinese: String,
    /// The rule set of the tables (`asian` or `plain`).
    pub rules: String,
    /// `win`, `draw` or `loss` for the side to move (results by the rule included).
    pub wdl: &'static str,
    /// `win`, `loss`, `draw`, `win-by-rule` or `loss-by-rule`.
    pub category: &'static str,
    /// Signed plies to mate from the side to move (see the module docs of [`crate::report`]).
    pub dtm: Option<i32>,
    /// The repetition rule that decides the value, if one does.
    pub rule: Option<&'static str>,
    /// False when a table the report reads holds no distances (`--wdl-only`): then every
    /// `dtm` is null and the moves are ordered by outcome alone.
    pub distances: bool,
    /// The side to move has no legal move and is in check.
    pub checkmate: bool,
    /// The side to move has no legal move and is not in check (困毙: a loss too).
    pub stalemate: bool,
    /// The first best move in ICCS, if there is a legal move.
    pub best_move: Option<String>,
    /// Every legal move, best first.
    pub moves: Vec<MoveReport>,
}

/// One legal move and the value it leaves for the side making it.
#[derive(Clone, Debug, Serialize)]
pub struct MoveReport {
    /// ICCS (`h2e2`).
    #[serde(rename = "move")]
    pub iccs: String,
    /// WXF (`C2=5`).
    pub wxf: String,
    /// Chinese (`炮二平五`).
    pub chinese: String,
    /// `win`, `draw` or `loss` for the side making the move.
    pub wdl: &'static str,
    /// The category for the side making the move.
    pub category: &'static str,
    /// Signed plies to mate for the side making the move.
    pub dtm: Option<i32>,
    /// The repetition rule that decides the move's value, if one does.
    pub rule: Option<&'static str>,
}

impl MoveReport {
    /// The report of `mv` from `pos`, whose value or outcome for the mover is `value`.
    pub fn new(pos: &Position, mv: Move, value: impl Standing) -> MoveReport {
        MoveReport {
            iccs: mv.iccs(),
            wxf: pos.move_to_wxf(mv),
            chinese: pos.move_to_chinese(mv),
            wdl: value.wdl_name(),
            category: value.category(),
            dtm: value.signed_dtm(),
            rule: value.rule().map(Rule::label),
        }
    }
}

/// Probes `pos` and every legal move.
///
/// Where the position's table or a move's holds no distances (`--wdl-only`), the report
/// gives outcomes alone.
///
/// # Errors
///
/// A table the position or a move needs is missing or damaged.
pub fn probe_report(tb: &Tablebase, pos: &Position) -> Result<ProbeReport, ProbeError> {
    Ok(match tb.results(pos)? {
        Results::Values(value, moves) => report_of(tb, pos, value, &moves, true),
        Results::Outcomes(outcome, moves) => report_of(tb, pos, outcome, &moves, false),
    })
}

/// The report of `pos`, whose standing is `value` and its moves' `moves`.
fn report_of<S: Standing>(
    tb: &Tablebase,
    pos: &Position,
    value: S,
    moves: &[(Move, S)],
    distances: bool,
) -> ProbeReport {
    let material = Material::of_position(pos);
    let no_move = moves.is_empty();
    ProbeReport {
        fen: pos.fen(),
        material: material.name(),
        material_chinese: material.chinese_name(),
        rules: tb.rules().name().to_string(),
        wdl: value.wdl_name(),
        category: value.category(),
        dtm: value.signed_dtm(),
        rule: value.rule().map(Rule::label),
        distances,
        checkmate: no_move && pos.in_check(),
        stalemate: no_move && !pos.in_check(),
        best_move: moves.first().map(|(mv, _)| mv.iccs()),
        moves: moves
            .iter()
            .map(|&(mv, v)| MoveReport::new(pos, mv, v))
            .collect(),
    }
}
