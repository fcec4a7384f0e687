//! Commands that read tables: `stats`, `verify`, `info`, `repack`.

use crate::Result;
use crate::args::{JsonFlag, TableArgs};
use crate::generating::parse_materials;
use canju::material::Material;
use canju::report::{rule_decided_positions, stats_report, table_infos};
use canju::table::SideStats;
use canju::verify::verify_table;
use std::io::Write;
use std::path::PathBuf;

/// `canju stats`.
#[derive(clap::Args)]
pub struct Stats {
    /// Material set.
    material: String,
    /// Also list every position the perpetual-check rule decided (FEN and value).
    #[arg(long)]
    list_rule_changes: bool,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    tables: TableArgs,
}

impl Stats {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let m = Material::parse(&self.material)?;
        let tb = self.tables.open();
        if self.list_rule_changes {
            let mut written = Ok(());
            rule_decided_positions(&tb, m, |pos, v| {
                if written.is_ok() {
                    written = writeln!(out, "{}  {v}", pos.fen());
                }
            })?;
            written?;
        }
        let report = stats_report(&tb, m)?;
        if self.json.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
            return Ok(());
        }
        writeln!(
            out,
            "{} ({}), rules {} (positions: legal placements as a player sees them, both mirror images counted)",
            report.material, report.material_chinese, report.rules
        )?;
        write_side(out, "red to move", &report.red)?;
        write_side(out, "black to move", &report.black)?;
        Ok(())
    }
}

/// One side to move's counts, shares and examples.
fn write_side(out: &mut dyn Write, who: &str, s: &SideStats) -> std::io::Result<()> {
    let pct = |n: u64| 100.0 * n as f64 / s.positions.max(1) as f64;
    writeln!(
        out,
        "  {who}: {} positions, win {} ({:.1}%), draw {} ({:.1}%), loss {} ({:.1}%)",
        s.positions,
        s.win,
        pct(s.win),
        s.draw,
        pct(s.draw),
        s.loss,
        pct(s.loss)
    )?;
    if let Some(f) = &s.longest_win_fen {
        writeln!(out, "    longest win {} plies: {f}", s.longest_win)?;
    }
    if s.rule_win + s.rule_loss > 0 {
        writeln!(
            out,
            "    repetition rule: {} draws under plain become wins, {} become losses",
            s.rule_win, s.rule_loss
        )?;
        for r in s.by_rule.iter().filter(|r| r.win + r.loss > 0) {
            writeln!(out, "      {}: {} wins, {} losses", r.rule, r.win, r.loss)?;
            if let Some(f) = &r.win_fen {
                writeln!(out, "        won by it: {f}")?;
            }
            if let Some(f) = &r.loss_fen {
                writeln!(out, "        lost by it: {f}")?;
            }
        }
    }
    Ok(())
}

/// `canju verify`.
#[derive(clap::Args)]
pub struct Verify {
    /// Material sets.
    materials: Vec<String>,
    /// Only check the files' checksums (fast), not the values.
    #[arg(long)]
    checksum: bool,
    #[command(flatten)]
    tables: TableArgs,
}

impl Verify {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let tb = self.tables.open();
        let sets = parse_materials(&self.materials)?;
        if sets.is_empty() {
            return Err("name the material sets to verify".into());
        }
        for m in sets {
            let name = m.canonical().name();
            if self.checksum {
                let t = tb.table(m)?;
                t.file.verify_checksums()?;
                writeln!(out, "{name}: checksums ok ({})", t.file.path().display())?;
                continue;
            }
            let t = std::time::Instant::now();
            let r = verify_table(&tb, m)?;
            writeln!(
                out,
                "{name}: ok, {} positions ({} slots and sides to move) re-derived from their successors in {:.2} s",
                r.positions,
                r.slots,
                t.elapsed().as_secs_f64()
            )?;
            if !r.complete {
                writeln!(
                    out,
                    "{name}: the table holds no distances (--wdl-only), so this checked outcomes \
                     only: results that justify one another around cycles are not ruled out; \
                     `canju gen {name}` without --wdl-only makes a table the check proves"
                )?;
            }
        }
        Ok(())
    }
}

/// `canju info`.
#[derive(clap::Args)]
pub struct Info {
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    tables: TableArgs,
}

impl Info {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let infos = table_infos(&self.tables.dir)?;
        if self.json.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&infos)?)?;
            return Ok(());
        }
        writeln!(
            out,
            "{:<12} {:<6} {:>14} {:>12} {:>9}  {:<10}  file",
            "material", "rules", "positions", "bytes", "bits/pos", "holds"
        )?;
        for t in &infos {
            let file = t
                .file
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            match &t.error {
                None => writeln!(
                    out,
                    "{:<12} {:<6} {:>14} {:>12} {:>9.3}  {:<10}  {file}",
                    t.material,
                    t.rules,
                    t.positions,
                    t.bytes,
                    t.bits_per_position,
                    match t.distances_stored {
                        Some("red") => "wdl+dtm(r)",
                        Some("black") => "wdl+dtm(b)",
                        Some(_) => "wdl+dtm",
                        None => "wdl",
                    }
                )?,
                Some(e) => writeln!(
                    out,
                    "DAMAGED      {:<6} {:>14} {:>12} {:>9}  {:<10}  {e}",
                    "", "", t.bytes, "", ""
                )?,
            }
        }
        let damaged = infos.iter().filter(|t| t.error.is_some()).count();
        if damaged > 0 {
            writeln!(
                out,
                "{damaged} damaged: regenerate each with `canju gen MATERIAL --force`; `canju verify --checksum` checks the rest"
            )?;
        }
        let positions: u64 = infos.iter().map(|t| t.positions).sum();
        let bytes: u64 = infos.iter().map(|t| t.bytes).sum();
        writeln!(
            out,
            "{} tables, {positions} positions, {bytes} bytes, {:.3} bits per position",
            infos.len(),
            8.0 * bytes as f64 / positions.max(1) as f64
        )?;
        Ok(())
    }
}

/// `canju repack`.
#[derive(clap::Args)]
pub struct Repack {
    /// Material sets to repack (every table of the rule set in the folder if none).
    materials: Vec<String>,
    #[command(flatten)]
    tables: TableArgs,
}

impl Repack {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let tb = self.tables.open();
        let paths: Vec<PathBuf> = if self.materials.is_empty() {
            let suffix = format!(".{}.{}", tb.rules().name(), canju::table::EXTENSION);
            canju::report::table_paths(tb.dir())?
                .into_iter()
                .filter(|p| p.to_string_lossy().ends_with(&suffix))
                .collect()
        } else {
            parse_materials(&self.materials)?
                .into_iter()
                .map(|m| tb.path_of(m))
                .collect()
        };
        let (mut before, mut after) = (0, 0);
        for path in &paths {
            let r = canju::table::repack(path)?;
            write!(out, "{}: {} -> {} bytes", path.display(), r.before, r.after)?;
            if &r.path != path {
                let rules = canju::table::name_parts(&r.path).1;
                write!(
                    out,
                    ", now {} (it holds the rule set `{rules}`: written when `asian` was the perpetual-check rule alone)",
                    r.path.display()
                )?;
            }
            writeln!(out)?;
            before += r.before;
            after += r.after;
        }
        writeln!(out, "{} tables: {before} -> {after} bytes", paths.len())?;
        Ok(())
    }
}
