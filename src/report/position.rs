//! `probe`: a position's value with every legal move's.

use crate::material::Material;
use crate::probe::{ProbeError, Tablebase};
use crate::rules::{Move, Position};
use crate::table::TableError;
use crate::value::{Outcome, Value};
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
    /// The report of `mv` from `pos`, whose value for the mover is `value`.
    pub fn new(pos: &Position, mv: Move, value: Value) -> MoveReport {
        MoveReport {
            iccs: mv.iccs(),
            wxf: pos.move_to_wxf(mv),
            chinese: pos.move_to_chinese(mv),
            wdl: value.wdl_name(),
            category: value.category(),
            dtm: value.signed_dtm(),
            rule: value.rule(),
        }
    }

    /// The report of `mv` from `pos`, whose outcome for the mover is `outcome` (no distance).
    pub fn of_outcome(pos: &Position, mv: Move, outcome: Outcome) -> MoveReport {
        MoveReport {
            dtm: None,
            wdl: outcome.wdl_name(),
            category: outcome.category(),
            rule: outcome.rule(),
            ..MoveReport::new(pos, mv, Value::Draw)
        }
    }
}

/// True for the error of a table that holds no distances.
pub fn is_without_distances(e: &ProbeError) -> bool {
    matches!(e, ProbeError::Table(TableError::NoDistances(_)))
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
    let (value, moves) = match tb.probe(pos).and_then(|v| Ok((v, tb.move_values(pos)?))) {
        Ok(found) => found,
        Err(e) if is_without_distances(&e) => return outcome_report(tb, pos),
        Err(e) => return Err(e),
    };
    let material = Material::of_position(pos);
    let no_move = moves.is_empty();
    Ok(ProbeReport {
        fen: pos.fen(),
        material: material.name(),
        material_chinese: material.chinese_name(),
        rules: tb.rules().name().to_string(),
        wdl: value.wdl_name(),
        category: value.category(),
        dtm: value.signed_dtm(),
        rule: value.rule(),
        distances: true,
        checkmate: no_move && pos.in_check(),
        stalemate: no_move && !pos.in_check(),
        best_move: moves.first().map(|(mv, _)| mv.iccs()),
        moves: moves
            .iter()
            .map(|&(mv, v)| MoveReport::new(pos, mv, v))
            .collect(),
    })
}

/// [`probe_report`] from outcomes alone, for tables without distances.
fn outcome_report(tb: &Tablebase, pos: &Position) -> Result<ProbeReport, ProbeError> {
    let outcome = tb.probe_outcome(pos)?;
    let moves = tb.move_outcomes(pos)?;
    let material = Material::of_position(pos);
    let no_move = moves.is_empty();
    Ok(ProbeReport {
        fen: pos.fen(),
        material: material.name(),
        material_chinese: material.chinese_name(),
        rules: tb.rules().name().to_string(),
        wdl: outcome.wdl_name(),
        category: outcome.category(),
        dtm: None,
        rule: outcome.rule(),
        distances: false,
        checkmate: no_move && pos.in_check(),
        stalemate: no_move && !pos.in_check(),
        best_move: moves.first().map(|(mv, _)| mv.iccs()),
        moves: moves
            .iter()
            .map(|&(mv, o)| MoveReport::of_outcome(pos, mv, o))
            .collect(),
    })
}
