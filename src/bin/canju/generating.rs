//! Commands that make tables: `gen`, `plan`; and the generation the probing commands start.

use crate::Result;
use crate::args::{JsonFlag, RulePassArg, TableArgs};
use canju::generate::{
    GenError, GenOptions, GenReport, Plan as GenPlan, generate_all, generate_all_with, plan,
    refuse_if_too_large, thread_count,
};
use canju::material::Material;
use canju::probe::{ProbeError, Tablebase};
use canju::report::GenSummary;
use std::io::Write;

/// How [`ensure_table`] generates.
#[derive(Clone, Copy)]
pub struct Making<'a> {
    /// No progress bars.
    pub quiet: bool,
    /// Tables without distances (`--wdl-only`).
    pub wdl_only: bool,
    /// What needs the table, for the error.
    pub needed_by: &'a str,
}

/// Generates `m`'s table and its sub-tables if the file is missing, as `making` says.
pub fn ensure_table(tb: &Tablebase, m: Material, making: Making) -> Result<()> {
    if tb.has(m) {
        return Ok(());
    }
    check_folder(tb)?;
    let opts = GenOptions {
        threads: 0,
        progress: !making.quiet,
        wdl_only: making.wdl_only,
        ..GenOptions::default()
    };
    let needed_by = making.needed_by;
    generate_all(tb, &[m], &opts).map_err(|e| {
        format!(
            "cannot generate {} ({}), which {needed_by} needs, in the table folder {}: {e}{}",
            m.name(),
            m.chinese_name(),
            tb.dir().display(),
            regenerate_hint(&e)
        )
    })?;
    Ok(())
}

/// For a generation stopped by a damaged sub-table: how to make it again.
fn regenerate_hint(e: &GenError) -> String {
    let (GenError::Probe(ProbeError::Table(t)) | GenError::Table(t)) = e else {
        return String::new();
    };
    if !t.is_damage() {
        return String::new();
    }
    let path = t.path();
    let (material, _) = canju::table::name_parts(path);
    let dir = path
        .parent()
        .map_or(String::new(), |d| format!(" --dir {}", d.display()));
    format!("; regenerate the damaged table with `canju gen {material} --force{dir}`")
}

/// Refuses a `--dir` that names something other than a folder, before anything is made.
fn check_folder(tb: &Tablebase) -> Result<()> {
    let dir = tb.dir();
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "the table folder {} (--dir) is a file, not a folder: name a folder (it is made if missing)",
            dir.display()
        )
        .into());
    }
    Ok(())
}

/// `canju gen`.
#[derive(clap::Args)]
pub struct Gen {
    /// Material sets: KRKAA, 车对双士, ...
    materials: Vec<String>,
    /// Every set with at most this many men (generals included).
    #[arg(long)]
    men: Option<u32>,
    /// Worker threads (default: all cores; more than the cores are clamped).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Rebuild the named sets even if their files exist.
    #[arg(long)]
    force: bool,
    /// Perpetual-check pass: bitmaps (2 to 4.4 bytes a draw, and the fastest measured), graph
    /// (an explicit graph of the draws' moves, up to 170 bytes a draw: a cross-check), or
    /// auto (the bitmaps).
    #[arg(long, value_enum, default_value_t = RulePassArg::Auto)]
    rule_pass: RulePassArg,
    /// Store win/draw/loss only, no distances to mate, in every table this run writes: no
    /// DTM section to compress or keep (probes then give win/draw/loss and the moves that
    /// keep it). Sub-tables without distances serve only such runs.
    #[arg(long)]
    wdl_only: bool,
    /// Store both sides to move's distances: every DTM probe reads its value, none needs a
    /// one-ply search over the moves (about twice the DTM bytes). By default a table stores
    /// the side whose distances compress smaller.
    #[arg(long, conflicts_with = "wdl_only")]
    dtm_both_sides: bool,
    /// Solve in cells of a byte a position, as before the search in bitmaps (for comparing
    /// the two).
    #[arg(long, alias = "wdl-in-cells", hide = true)]
    in_cells: bool,
    /// Print one JSON object per set as it is done (one a line), instead of text.
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    tables: TableArgs,
}

impl Gen {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let sets = named_or_men(&self.materials, self.men, self.threads, "gen KRKAA")?;
        let tb = self.tables.open();
        check_folder(&tb)?;
        let used = thread_count(self.threads);
        if self.threads > used {
            eprintln!(
                "note: {} threads asked; using {used}, one per core",
                self.threads
            );
        }
        let opts = GenOptions {
            threads: self.threads,
            progress: !self.json.json,
            force: self.force,
            rule_pass: self.rule_pass.into(),
            wdl_only: self.wdl_only,
            both_sides_dtm: self.dtm_both_sides,
            in_cells: self.in_cells,
            ..GenOptions::default()
        };
        // The first write error (a closed pipe) is kept and returned once generation ends.
        let mut written: std::io::Result<()> = Ok(());
        let json = self.json.json;
        let done = generate_all_with(&tb, &sets, &opts, |r| {
            if written.is_ok() {
                written = if json {
                    serde_json::to_string(&GenSummary::from(r))
                        .map_err(std::io::Error::other)
                        .and_then(|line| writeln!(out, "{line}"))
                } else {
                    write_report(out, r)
                };
            }
        });
        done.map_err(|e| {
            format!(
                "generating into the table folder {}: {e}{}",
                tb.dir().display(),
                regenerate_hint(&e)
            )
        })?;
        Ok(written?)
    }
}

/// The material sets named on the command line.
pub fn parse_materials(names: &[String]) -> Result<Vec<Material>> {
    names
        .iter()
        .map(|m| Material::parse(m).map_err(Into::into))
        .collect()
}

/// The sets named, and with `--men n` every set of at most `n` men (refused at once where
/// the largest cannot fit); an error naming an `example` command if that leaves none.
fn named_or_men(
    names: &[String],
    men: Option<u32>,
    threads: usize,
    example: &str,
) -> Result<Vec<Material>> {
    let mut sets = parse_materials(names)?;
    if let Some(n) = men {
        refuse_men_past_memory(n, threads)?;
        sets.extend(Material::all_up_to(n));
    }
    if sets.is_empty() {
        return Err(format!("name material sets (e.g. `canju {example}`) or give --men N").into());
    }
    Ok(sets)
}

/// Refuses `--men n` at once, before the sets are listed, when the largest set of `n` men
/// (one rook, horse and cannon a side before any second piece of a kind) cannot fit.
fn refuse_men_past_memory(n: u32, threads: usize) -> Result<()> {
    if !(2..=32).contains(&n) {
        return Err(format!("--men {n}: a position has between 2 and 32 men").into());
    }
    // Red and black take a rook each, then a horse each, and so on, up to ten men (a set
    // that large never fits).
    let kinds = ["R", "N", "C", "P"];
    let mut sides = [String::from("K"), String::from("K")];
    for k in 0..(n as usize - 2).min(8) {
        sides[k % 2].push_str(kinds[k / 2]);
    }
    let largest = Material::parse(&format!("{}{}", sides[0], sides[1]))?;
    refuse_if_too_large(largest, thread_count(threads))
        .map_err(|e| format!("--men {n} includes sets such as {e}").into())
}

/// One generated set as text: counts, times, memory, the rule's changes.
fn write_report(out: &mut dyn Write, r: &GenReport) -> std::io::Result<()> {
    let [red, black] = &r.stats;
    let phases = if r.generated {
        let t = r.phases;
        format!(
            " (init {:.2}, sweep {:.2}, rule {:.2}{}, write {:.2})",
            t.init,
            t.sweep,
            t.rule,
            t.rule_pass
                .map_or(String::new(), |p| format!(" by {}", p.name())),
            t.write
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{:<12} {:>11} positions  red to move W/D/L {}/{}/{}  black to move W/D/L {}/{}/{}  {}  {}  {:.2} s{phases}  peak {} MiB",
        r.material.name(),
        red.positions + black.positions,
        red.win,
        red.draw,
        red.loss,
        black.win,
        black.draw,
        black.loss,
        if r.distances {
            format!("longest win {}", red.longest_win.max(black.longest_win))
        } else {
            "no distances (--wdl-only)".to_string()
        },
        if r.generated { "generated" } else { "present" },
        r.seconds,
        r.peak_memory >> 20
    )?;
    if r.generated {
        writeln!(
            out,
            "{:<12} {} slots a side; peak {:.2} bytes per slot and side to move, {:.2} while solving ({})",
            "",
            r.slots,
            r.peak_memory as f64 / (2 * r.slots.max(1)) as f64,
            r.phases.peaks.search() as f64 / (2 * r.slots.max(1)) as f64,
            match r.phases.in_bits {
                true => "init and sweep in bitmaps",
                false => "init and sweep in cells of a byte",
            }
        )?;
    }
    if red.rule_win + red.rule_loss + black.rule_win + black.rule_loss > 0 {
        let example = [
            &red.rule_win_fen,
            &red.rule_loss_fen,
            &black.rule_win_fen,
            &black.rule_loss_fen,
        ]
        .into_iter()
        .find_map(|f| f.as_deref())
        .unwrap_or("-");
        writeln!(
            out,
            "{:<12} the repetition rules changed: red to move +{} wins +{} losses, black to move +{} wins +{} losses (e.g. {example})",
            "", red.rule_win, red.rule_loss, black.rule_win, black.rule_loss,
        )?;
        let by_rule: Vec<String> = red
            .by_rule
            .iter()
            .zip(&black.by_rule)
            .map(|(r, b)| (r.rule.as_str(), r.win + r.loss + b.win + b.loss))
            .filter(|&(_, n)| n > 0)
            .map(|(rule, n)| format!("{rule} {n}"))
            .collect();
        writeln!(
            out,
            "{:<12} by rule (positions): {}",
            "",
            by_rule.join(", ")
        )?;
    }
    Ok(())
}

/// `canju plan`.
#[derive(clap::Args)]
pub struct Plan {
    /// Material sets: KRNKRAB, 车马对车士象全, ...
    materials: Vec<String>,
    /// Every set with at most this many men (generals included), as `gen --men` makes them.
    #[arg(long)]
    men: Option<u32>,
    /// Worker threads the time is estimated for (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Plan tables without distances (`gen --wdl-only`): smaller files.
    #[arg(long)]
    wdl_only: bool,
    #[command(flatten)]
    json: JsonFlag,
    #[command(flatten)]
    tables: TableArgs,
}

impl Plan {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let sets = named_or_men(&self.materials, self.men, self.threads, "plan KRNKRAB")?;
        let tb = self.tables.open();
        let opts = GenOptions {
            threads: self.threads,
            wdl_only: self.wdl_only,
            ..GenOptions::default()
        };
        let plan = plan(&tb, &sets, &opts)?;
        if self.json.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&plan)?)?;
        } else {
            write_plan(out, &plan)?;
        }
        Ok(())
    }
}

/// A duration as a person reads it.
fn duration(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// The plan as a table, totals last.
fn write_plan(out: &mut dyn Write, plan: &GenPlan) -> std::io::Result<()> {
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    writeln!(
        out,
        "{:<14} {:>15} {:>10} {:>10} {:>10}  rule pass",
        "set", "slots per side", "peak GiB", "disk MB", "time"
    )?;
    for s in &plan.sets {
        writeln!(
            out,
            "{:<14} {:>15} {:>10.2} {:>10.1} {:>10}  {}",
            s.material,
            s.slots,
            gib(s.peak_bytes),
            s.disk_bytes as f64 / 1e6,
            duration(s.seconds),
            s.rule_pass.unwrap_or("-")
        )?;
    }
    writeln!(
        out,
        "{} sets to generate: peak {:.2} GiB ({:.1} GiB available), disk {:.1} MB, about {}; {}",
        plan.sets.len(),
        gib(plan.peak_bytes),
        gib(plan.available_bytes),
        plan.disk_bytes as f64 / 1e6,
        duration(plan.seconds),
        if plan.fits {
            "fits this machine"
        } else {
            "does NOT fit this machine"
        }
    )
}
