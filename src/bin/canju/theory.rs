//! Commands about named endgames: `verdict`, `theory`.

use crate::Result;
use crate::args::{JsonFlag, NoGenFlag, TableArgs};
use crate::generating::{Making, ensure_table};
use crate::text::pad;
use canju::display::{render_board, use_color};
use canju::material::Material;
use canju::report::{TheoryRow, theory_rows};
use canju::rules::Position;
use canju::theory::{Catalogue, Entry, Verdict, verdict};
use std::io::Write;

/// `canju verdict`.
#[derive(clap::Args)]
pub struct VerdictCmd {
    /// Material set, attacker first (ASCII or Chinese: 马对单将, 炮双相对单将).
    material: String,
    /// Generate missing tables without distances (a verdict needs only outcomes; KRNKR's file
    /// is half the bytes).
    #[arg(long)]
    wdl_only: bool,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    no_gen: NoGenFlag,
    #[command(flatten)]
    tables: TableArgs,
}

impl VerdictCmd {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let m = Material::parse(&self.material)?;
        let tb = self.tables.open();
        if !self.no_gen.no_gen {
            let making = Making {
                quiet: self.json.json,
                wdl_only: self.wdl_only,
                needed_by: "the verdict",
            };
            ensure_table(&tb, m, making)?;
        }
        let catalogue = Catalogue::builtin();
        let v = verdict(&tb, m, &catalogue)?;
        if self.json.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        } else {
            write_verdict(out, &v, catalogue.find(m))?;
        }
        Ok(())
    }
}

/// The verdict as text: grades, whether they agree, shares, exceptions with their boards.
fn write_verdict(out: &mut dyn Write, v: &Verdict, entry: Option<&Entry>) -> std::io::Result<()> {
    writeln!(out, "{} ({})", v.chinese, v.material)?;
    match (entry, v.book_grade) {
        (Some(e), Some(g)) => writeln!(
            out,
            "  book grade: {g} ({}){}",
            e.source,
            e.note.as_ref().map_or(String::new(), |n| format!(" - {n}"))
        )?,
        _ => writeln!(out, "  book grade: not in the catalogue")?,
    }
    writeln!(
        out,
        "  measured grade: {} (rule: attacker's smallest win share over quiet positions)",
        v.measured_grade
    )?;
    if let (Some(agrees), Some(exact)) = (v.agrees, v.exact) {
        let how = if exact {
            "confirm the book grade exactly"
        } else if agrees {
            "agree with the book grade's class (win / mostly drawn)"
        } else {
            "DISAGREE with the book grade"
        };
        writeln!(out, "  the tables {how}")?;
    }
    if let Some(d) = &v.recorded_disagreement {
        writeln!(out, "  recorded disagreement: {d}")?;
    }
    write_shares(out, v)?;
    write_exceptions(out, v)
}

/// The win, draw and loss shares over all and quiet positions, per side to move.
fn write_shares(out: &mut dyn Write, v: &Verdict) -> std::io::Result<()> {
    for (label, shares) in [("all positions", &v.all), ("quiet positions", &v.quiet)] {
        for (who, s) in ["attacker to move", "defender to move"].iter().zip(shares) {
            let p = |n: u64| 100.0 * n as f64 / s.positions.max(1) as f64;
            writeln!(
                out,
                "  {label}, {who}: {} positions, attacker wins {:.2}%, draws {:.2}%, defender wins {:.2}%",
                s.positions,
                p(s.attacker_wins),
                p(s.draws),
                p(s.defender_wins)
            )?;
        }
    }
    Ok(())
}

/// The quiet positions that go against the book grade, with their boards.
fn write_exceptions(out: &mut dyn Write, v: &Verdict) -> std::io::Result<()> {
    let (title, list) = if v.book_grade.is_some_and(|g| g.is_win_class()) {
        (
            "quiet positions the attacker does not win",
            &v.quiet_not_won,
        )
    } else {
        let title = if v.distances {
            "quiet positions the attacker wins (longest first)"
        } else {
            "quiet positions the attacker wins (examples: no distances stored)"
        };
        (title, &v.quiet_won)
    };
    if list.is_empty() {
        return Ok(());
    }
    writeln!(out, "  {title}:")?;
    for fen in list {
        writeln!(out, "    {fen}")?;
        if let Ok(p) = Position::from_fen(fen) {
            for line in render_board(&p, use_color()).lines() {
                writeln!(out, "      {line}")?;
            }
        }
    }
    Ok(())
}

/// `canju theory`.
#[derive(clap::Args)]
pub struct TheoryCmd {
    /// Largest sets to include: generated if missing (present tables of larger sets are
    /// measured too).
    #[arg(long, default_value_t = 4)]
    men: u32,
    /// Generate missing tables without distances (grades need only outcomes).
    #[arg(long)]
    wdl_only: bool,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    no_gen: NoGenFlag,
    #[command(flatten)]
    tables: TableArgs,
}

impl TheoryCmd {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let tb = self.tables.open();
        let catalogue = Catalogue::builtin();
        let rows = theory_rows(&tb, &catalogue, |e| -> Result<bool> {
            let m = e.material();
            if tb.has(m) {
                return Ok(true);
            }
            if self.no_gen.no_gen || m.men() > self.men {
                return Ok(false);
            }
            let making = Making {
                quiet: self.json.json,
                wdl_only: self.wdl_only,
                needed_by: "the theory listing",
            };
            ensure_table(&tb, m, making)?;
            Ok(true)
        })?;
        if self.json.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        } else {
            write_theory(out, &rows, self.men, self.no_gen.no_gen)?;
        }
        Ok(())
    }
}

/// The catalogue as a table: book grade, measured grade, quiet shares.
fn write_theory(
    out: &mut dyn Write,
    rows: &[TheoryRow],
    men: u32,
    no_gen: bool,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<14} {:<12} {:<5} {:<6} {:<9} {:>7} {:>7}   (quiet positions, defender to move)",
        "name", "material", "book", "tables", "", "win", "draw"
    )?;
    for row in rows {
        let e = &row.entry;
        let head = format!(
            "{} {:<12} {}",
            pad(&row.name, 14),
            e.material,
            pad(&e.grade, 5)
        );
        let Some(v) = &row.verdict else {
            let why = if no_gen {
                "not present (--no-gen)".to_string()
            } else {
                format!("not generated ({} men > --men {men})", e.material().men())
            };
            writeln!(out, "{head} {:<5} {why}", " -   ")?;
            continue;
        };
        let q = &v.quiet[1];
        let share = |n: u64| 100.0 * n as f64 / q.positions.max(1) as f64;
        let agreement = match (v.agrees, v.exact) {
            (_, Some(true)) => "exact",
            (Some(true), _) => "agrees",
            _ => "DISAGREES",
        };
        writeln!(
            out,
            "{head} {}  {agreement:<9} {:>6.1}% {:>6.1}%",
            pad(v.measured_grade.chinese(), 5),
            share(q.attacker_wins),
            share(q.draws)
        )?;
    }
    Ok(())
}
