//! Commands about one position: `moves`, `perft`, `show`, `probe`, `line`, `explain`.

use crate::Result;
use crate::args::{JsonFlag, NoGenFlag, NotationArg, TableArgs};
use crate::generating::{Making, ensure_table};
use crate::text::{explanation, line_ending, score_sheet, verdict_line};
use canju::cycle::DEFAULT_BUDGET;
use canju::display::{render_board, use_color};
use canju::material::Material;
use canju::probe::Results;
use canju::probe::Tablebase;
use canju::report::{explain_report, line_report, probe_report};
use canju::rules::{Move, Notation, Position};
use canju::value::Standing;
use std::io::Write;

/// `canju moves`.
#[derive(clap::Args)]
pub struct Moves {
    /// The position (FEN; quote it).
    fen: String,
    /// Notation.
    #[arg(long, value_enum, default_value_t = NotationArg::Iccs)]
    notation: NotationArg,
}

impl Moves {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let pos = Position::from_fen(&self.fen)?;
        let notation: Notation = self.notation.into();
        for &mv in pos.legal_moves().iter() {
            writeln!(out, "{}", pos.format_move(mv, notation))?;
        }
        Ok(())
    }
}

/// `canju perft`.
#[derive(clap::Args)]
pub struct Perft {
    /// The position (FEN; quote it).
    fen: String,
    /// Plies.
    depth: u32,
    /// Also print the count under each first move.
    #[arg(long)]
    divide: bool,
}

impl Perft {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let pos = Position::from_fen(&self.fen)?;
        if self.divide {
            let mut total = 0;
            for (mv, n) in pos.perft_divide(self.depth) {
                writeln!(out, "{mv} {n}")?;
                total += n;
            }
            writeln!(out, "{total}")?;
        } else {
            writeln!(out, "{}", pos.perft(self.depth))?;
        }
        Ok(())
    }
}

/// `canju show`.
#[derive(clap::Args)]
pub struct Show {
    /// The position (FEN; quote it).
    fen: String,
}

impl Show {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let pos = Position::from_fen_unchecked(&self.fen)?;
        write!(out, "{}", render_board(&pos, use_color()))?;
        if let Err(e) = pos.validate() {
            writeln!(out, "warning: illegal position: {e}")?;
        }
        Ok(())
    }
}

/// The arguments of the commands that probe one position.
#[derive(clap::Args)]
pub struct PositionArgs {
    /// The position (FEN; quote it).
    fen: String,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    no_gen: NoGenFlag,
    #[command(flatten)]
    tables: TableArgs,
}

impl PositionArgs {
    /// The position, and the tablebase with its tables present unless `--no-gen`.
    fn open(&self) -> Result<(Position, Tablebase)> {
        let pos = Position::from_fen(&self.fen)?;
        let tb = self.tables.open();
        if !self.no_gen.no_gen {
            let making = Making {
                quiet: self.json.json,
                wdl_only: false,
                needed_by: "this position",
            };
            ensure_table(&tb, Material::of_position(&pos), making)?;
        }
        Ok((pos, tb))
    }
}

/// `canju probe`.
#[derive(clap::Args)]
pub struct Probe {
    #[command(flatten)]
    at: PositionArgs,
}

impl Probe {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let (pos, tb) = self.at.open()?;
        if self.at.json.json {
            let report = probe_report(&tb, &pos)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            return Ok(());
        }
        write!(out, "{}", render_board(&pos, use_color()))?;
        match tb.results(&pos)? {
            Results::Values(value, moves) => {
                writeln!(out, "{}", verdict_line(&pos, value))?;
                write_moves(out, &pos, &moves)?;
            }
            Results::Outcomes(outcome, moves) => {
                writeln!(
                    out,
                    "{} to move: {outcome} (no distance to mate: the tables hold win/draw/loss \
                     only, made with `canju gen --wdl-only`)",
                    pos.turn()
                )?;
                write_moves(out, &pos, &moves)?;
            }
        }
        Ok(())
    }
}

/// `probe`'s list of moves, each with what it leaves for its side.
fn write_moves<S: Standing>(
    out: &mut dyn Write,
    pos: &Position,
    moves: &[(Move, S)],
) -> Result<()> {
    for &(mv, v) in moves {
        writeln!(
            out,
            "  {:<10} {:<8} {}  {v}",
            pos.move_to_chinese(mv),
            pos.move_to_wxf(mv),
            mv.iccs(),
        )?;
    }
    Ok(())
}

/// `canju line`.
#[derive(clap::Args)]
pub struct Line {
    #[command(flatten)]
    at: PositionArgs,
}

impl Line {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let (pos, tb) = self.at.open()?;
        let report = line_report(&tb, &pos)?;
        if self.at.json.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            return Ok(());
        }
        let value = tb.probe(&pos)?;
        writeln!(out, "{}", verdict_line(&pos, value))?;
        write!(out, "{}", score_sheet(&report))?;
        if !report.line.is_empty()
            && let Some(end) = line_ending(&report, value.rule())
        {
            writeln!(out, "{end}")?;
        }
        Ok(())
    }
}

/// `canju explain`.
#[derive(clap::Args)]
pub struct Explain {
    #[command(flatten)]
    at: PositionArgs,
    /// Positions the search for the cycle examines at most.
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    max_positions: usize,
}

impl Explain {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let (pos, tb) = self.at.open()?;
        let report = explain_report(&tb, &pos, Some(self.max_positions))?;
        if self.at.json.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            return Ok(());
        }
        write!(out, "{}", render_board(&pos, use_color()))?;
        write!(out, "{}", explanation(&tb, &pos, &report)?)?;
        Ok(())
    }
}
