//! The `canju` command line.

use canju::display::{render_board, use_color};
use canju::generate::{GenOptions, GenReport, RulePass, generate_all, generate_all_with};
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
use canju::rules::{Color, Notation, Position};
use canju::table::SideStats;
use canju::theory::{Catalogue, Verdict, verdict};
use canju::value::Value;
use canju::verify::verify_table;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// canju (殘局): xiangqi endgame tablebases.
#[derive(Parser)]
#[command(name = "canju", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where the tables are and which rule set they follow.
#[derive(clap::Args)]
struct TableArgs {
    /// Table folder.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
    /// Rule set: asian (perpetual check loses) or plain (endless play draws).
    #[arg(long, default_value = "asian")]
    rules: RuleSet,
}

impl TableArgs {
    fn open(&self) -> Tablebase {
        Tablebase::with_rules(&self.dir, self.rules)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print every legal move of a position, one per line.
    Moves {
        /// The position (FEN; quote it).
        fen: String,
        /// Notation: iccs, wxf or chinese.
        #[arg(long, default_value = "iccs")]
        notation: String,
    },
    /// Count leaf positions DEPTH plies down; the count is the last line.
    Perft {
        /// The position (FEN; quote it).
        fen: String,
        /// Plies.
        depth: u32,
        /// Also print the count under each first move.
        #[arg(long)]
        divide: bool,
    },
    /// Draw the board.
    Show {
        /// The position (FEN; quote it).
        fen: String,
    },
    /// Generate tables (and every sub-table they need).
    Gen {
        /// Material sets: KRKAA, 车对双士, ...
        materials: Vec<String>,
        /// Every set with at most this many men (generals included).
        #[arg(long)]
        men: Option<u32>,
        /// Worker threads (default: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Rebuild the named sets even if their files exist.
        #[arg(long)]
        force: bool,
        /// Print one JSON object per set as it is done (one a line), instead of text.
        #[arg(long)]
        json: bool,
        /// Perpetual-check pass: graph (fast, up to 170 bytes a draw), bitmaps (2 to 4.4 bytes a
        /// draw, slower), or auto (the graph only where it does not raise the run's peak, set
        /// by its largest set, and takes at most half the memory free).
        #[arg(long, value_enum, default_value_t = RulePassArg::Auto)]
        rule_pass: RulePassArg,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// What generating sets (and their missing sub-tables) will take: slots, peak memory,
    /// disk and time per set.
    Plan {
        /// Material sets: KRNKRAB, 车马对车士象全, ...
        materials: Vec<String>,
        /// Worker threads the time is estimated for (default: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// Win/draw/loss statistics of a material set.
    Stats {
        /// Material set.
        material: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Also list every position the perpetual-check rule decided (FEN and value).
        #[arg(long)]
        list_rule_changes: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// Re-derive every stored value of a table from its successors.
    Verify {
        /// Material sets.
        materials: Vec<String>,
        /// Only check the files' checksums (fast), not the values.
        #[arg(long)]
        checksum: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// The line of best play to mate, numbered like a score sheet.
    Line {
        /// The position (FEN; quote it).
        fen: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Do not generate missing tables.
        #[arg(long)]
        no_gen: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// Every table in the folder: rule set, positions, bytes, bits per position.
    Info {
        /// Print a JSON list.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// Rewrite table files in the current file format, keeping their values (no regeneration).
    Repack {
        /// Material sets to repack (every table of the rule set in the folder if none).
        materials: Vec<String>,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// How the tables bear out the book grade of a named endgame (generates what it needs).
    Verdict {
        /// Material set, attacker first (ASCII or Chinese: 马对单将, 炮双相对单将).
        material: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Do not generate missing tables.
        #[arg(long)]
        no_gen: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// Every catalogue entry up to N men: book grade against measured grade.
    Theory {
        /// Largest sets to include (generated if missing).
        #[arg(long, default_value_t = 4)]
        men: u32,
        /// Print a JSON list.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
    /// The value of a position, with every move's value; generates missing tables first.
    Probe {
        /// The position (FEN; quote it).
        fen: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Do not generate missing tables.
        #[arg(long)]
        no_gen: bool,
        #[command(flatten)]
        tables: TableArgs,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(
                e.kind(),
                DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                e.exit();
            }
            // One line: what is wrong, and where to look.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            let first = first.trim_start_matches("error: ");
            eprintln!("canju: {first} (see `canju --help`)");
            return ExitCode::from(2);
        }
    };
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("canju: {e}");
            ExitCode::FAILURE
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn parse_fen(fen: &str) -> Result<Position> {
    Ok(Position::from_fen(fen)?)
}

/// The table files in a folder, sorted by name.
fn table_paths(dir: &std::path::Path) -> Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == canju::table::EXTENSION))
        .collect();
    paths.sort();
    Ok(paths)
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
    canju::generate::refuse_if_too_large(largest, canju::generate::thread_count(threads))
        .map_err(|e| format!("--men {n} includes sets such as {e}").into())
}

fn parse_material(name: &str) -> Result<Material> {
    Ok(Material::parse(name)?)
}

fn run(command: Command) -> Result<()> {
    match command {
        Command::Moves { fen, notation } => {
            let pos = parse_fen(&fen)?;
            let n: Notation = notation.parse()?;
            for &mv in pos.legal_moves().iter() {
                println!("{}", pos.format_move(mv, n));
            }
        }
        Command::Perft { fen, depth, divide } => {
            let pos = parse_fen(&fen)?;
            if divide {
                let mut total = 0;
                for (mv, n) in pos.perft_divide(depth) {
                    println!("{mv} {n}");
                    total += n;
                }
                println!("{total}");
            } else {
                println!("{}", pos.perft(depth));
            }
        }
        Command::Show { fen } => {
            let pos = Position::from_fen_unchecked(&fen)?;
            print!("{}", render_board(&pos, use_color()));
            if let Err(e) = pos.validate() {
                println!("warning: illegal position: {e}");
            }
        }
        Command::Gen {
            materials,
            men,
            threads,
            force,
            json,
            rule_pass,
            tables,
        } => {
            let mut sets: Vec<Material> = materials
                .iter()
                .map(|m| parse_material(m))
                .collect::<Result<_>>()?;
            if let Some(n) = men {
                refuse_men_past_memory(n, threads)?;
                sets.extend(Material::all_up_to(n));
            }
            if sets.is_empty() {
                return Err("name material sets (e.g. `canju gen KRKAA`) or give --men N".into());
            }
            let tb = tables.open();
            let used = canju::generate::thread_count(threads);
            if threads > used {
                eprintln!("note: {threads} threads asked; using {used}, one per core");
            }
            let opts = GenOptions {
                threads,
                progress: !json,
                force,
                rule_pass: rule_pass.into(),
                ..GenOptions::default()
            };
            if json {
                generate_all_with(&tb, &sets, &opts, |r| println!("{}", report_json(r)))?;
            } else {
                generate_all_with(&tb, &sets, &opts, print_report)?;
            }
        }
        Command::Plan {
            materials,
            threads,
            json,
            tables,
        } => {
            let sets: Vec<Material> = materials
                .iter()
                .map(|m| parse_material(m))
                .collect::<Result<_>>()?;
            if sets.is_empty() {
                return Err("name material sets (e.g. `canju plan KRNKRAB`)".into());
            }
            let tb = tables.open();
            let opts = GenOptions {
                threads,
                ..GenOptions::default()
            };
            let plan = canju::generate::plan(&tb, &sets, &opts)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&plan)?);
            } else {
                print_plan(&plan);
            }
        }
        Command::Stats {
            material,
            json,
            list_rule_changes,
            tables,
        } => {
            let m = parse_material(&material)?;
            let tb = tables.open();
            let table = tb.table(m)?;
            if list_rule_changes {
                list_rule_decided(&table, m);
            }
            let mut stats = table.stats().clone();
            let stored = table.material;
            // Report in the colouring the user asked for.
            let shown = if stored == m { stored } else { m };
            if stored != m {
                stats.swap(0, 1);
                for s in stats.iter_mut() {
                    for fen in [
                        &mut s.longest_win_fen,
                        &mut s.longest_loss_fen,
                        &mut s.rule_win_fen,
                        &mut s.rule_loss_fen,
                    ] {
                        if let Some(f) = fen.as_ref() {
                            *fen = Position::from_fen(f).ok().map(|p| p.color_swapped().fen());
                        }
                    }
                }
            }
            if json {
                let side = |s: &SideStats| {
                    serde_json::json!({
                        "positions": s.positions,
                        "win": s.win,
                        "draw": s.draw,
                        "loss": s.loss,
                        "longest_win": s.longest_win,
                        "longest_win_fen": s.longest_win_fen,
                        "rule_win": s.rule_win,
                        "rule_loss": s.rule_loss,
                        "rule_win_fen": s.rule_win_fen,
                        "rule_loss_fen": s.rule_loss_fen,
                    })
                };
                let out = serde_json::json!({
                    "material": shown.name(),
                    "chinese": shown.chinese_name(),
                    "rules": table.rules(),
                    "red": side(&stats[0]),
                    "black": side(&stats[1]),
                });
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!(
                    "{} ({}), rules {} (counts are positions as a player sees them)",
                    shown.name(),
                    shown.chinese_name(),
                    table.rules()
                );
                for (who, s) in ["red to move", "black to move"].iter().zip(&stats) {
                    print_side(who, s);
                }
            }
        }
        Command::Verify {
            materials,
            checksum,
            tables,
        } => {
            let tb = tables.open();
            if materials.is_empty() {
                return Err("name the material sets to verify".into());
            }
            for name in materials {
                let m = parse_material(&name)?;
                if checksum {
                    let t = tb.table(m)?;
                    t.file.verify_checksums()?;
                    println!(
                        "{}: checksums ok ({})",
                        m.canonical().name(),
                        t.file.path().display()
                    );
                    continue;
                }
                let t = std::time::Instant::now();
                let r = verify_table(&tb, m)?;
                println!(
                    "{}: ok, {} positions re-derived from their successors in {:.2} s",
                    m.canonical().name(),
                    r.positions,
                    t.elapsed().as_secs_f64()
                );
            }
        }
        Command::Line {
            fen,
            json,
            no_gen,
            tables,
        } => {
            let pos = parse_fen(&fen)?;
            let tb = open_with_tables(&tables, &pos, no_gen, json)?;
            let value = tb.probe(&pos)?;
            let line = tb.principal_variation(&pos)?;
            let mut p = pos.clone();
            let mut moves = vec![];
            for mv in &line {
                moves.push((
                    p.turn(),
                    p.move_to_chinese(*mv),
                    p.move_to_wxf(*mv),
                    mv.iccs(),
                ));
                p.make(*mv);
            }
            if json {
                let list: Vec<_> = moves
                    .iter()
                    .map(|(_, zh, wxf, iccs)| serde_json::json!({"move": iccs, "wxf": wxf, "chinese": zh}))
                    .collect();
                let out = serde_json::json!({
                    "fen": pos.fen(),
                    "wdl": value.wdl_name(),
                    "dtm": value.distance(),
                    "line": list,
                    "final_fen": p.fen(),
                });
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!("{}", verdict_line(&pos, value));
                let mut text = String::new();
                let mut number = 1;
                for (k, (side, zh, _, _)) in moves.iter().enumerate() {
                    if *side == Color::Red {
                        text.push_str(&format!("{number}. {zh}"));
                    } else {
                        if k == 0 {
                            text.push_str(&format!("{number}. ..."));
                        }
                        text.push_str(&format!(" {zh}\n"));
                        number += 1;
                    }
                }
                print!("{text}");
                if !text.is_empty() && !text.ends_with('\n') {
                    println!();
                }
                if p.legal_moves().is_empty() && !line.is_empty() {
                    println!("{} has no legal move: mate", p.turn());
                }
            }
        }
        Command::Verdict {
            material,
            json,
            no_gen,
            tables,
        } => {
            let m = parse_material(&material)?;
            let tb = tables.open();
            if !no_gen {
                ensure_table(&tb, m, json)?;
            }
            let catalogue = Catalogue::builtin();
            let v = verdict(&tb, m, &catalogue)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                print_verdict(&v, catalogue.find(m));
            }
        }
        Command::Theory { men, json, tables } => {
            let tb = tables.open();
            let catalogue = Catalogue::builtin();
            let mut rows = vec![];
            for e in &catalogue.entries {
                let m = e.material();
                if m.men() > men && !tb.has(m) {
                    rows.push((e, None));
                    continue;
                }
                ensure_table(&tb, m, json)?;
                rows.push((e, Some(verdict(&tb, m, &catalogue)?)));
            }
            if json {
                let list: Vec<_> = rows
                    .iter()
                    .map(|(e, v)| serde_json::json!({"name": e.chinese[0], "entry": e, "verdict": v}))
                    .collect();
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else {
                println!(
                    "{:<14} {:<12} {:<5} {:<6} {:<9} {:>7} {:>7}   (quiet positions, defender to move)",
                    "name", "material", "book", "tables", "", "win", "draw"
                );
                for (e, v) in &rows {
                    match v {
                        None => println!(
                            "{} {:<12} {:<5} {:<5} {}",
                            pad(&e.chinese[0], 14),
                            e.material,
                            pad(&e.grade, 5),
                            " -   ",
                            format_args!(
                                "not generated ({} men > --men {men})",
                                e.material().men()
                            )
                        ),
                        Some(v) => {
                            let q = &v.quiet[1];
                            let share = |n: u64| 100.0 * n as f64 / q.positions.max(1) as f64;
                            println!(
                                "{} {:<12} {} {}  {:<9} {:>6.1}% {:>6.1}%",
                                pad(&e.chinese[0], 14),
                                e.material,
                                pad(&e.grade, 5),
                                pad(v.measured_grade.chinese(), 5),
                                match (v.agrees, v.exact) {
                                    (_, Some(true)) => "exact",
                                    (Some(true), _) => "agrees",
                                    _ => "DISAGREES",
                                },
                                share(q.attacker_wins),
                                share(q.draws)
                            );
                        }
                    }
                }
            }
        }
        Command::Repack { materials, tables } => {
            let tb = tables.open();
            let paths: Vec<PathBuf> = if materials.is_empty() {
                let suffix = format!(".{}.{}", tb.rules().name(), canju::table::EXTENSION);
                table_paths(tb.dir())?
                    .into_iter()
                    .filter(|p| p.to_string_lossy().ends_with(&suffix))
                    .collect()
            } else {
                materials
                    .iter()
                    .map(|name| Ok(tb.path_of(parse_material(name)?)))
                    .collect::<Result<_>>()?
            };
            let (mut before, mut after) = (0, 0);
            for path in &paths {
                let (b, a) = canju::table::repack(path)?;
                println!("{}: {b} -> {a} bytes", path.display());
                before += b;
                after += a;
            }
            println!("{} tables: {before} -> {after} bytes", paths.len());
        }
        Command::Info { json, tables } => {
            let dir = tables.dir;
            let mut rows = vec![];
            for path in table_paths(&dir)? {
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let (h, _) = canju::table::parse_header(&path, &bytes)?;
                let positions = h.stats[0].positions + h.stats[1].positions;
                let bits = 8.0 * bytes.len() as f64 / positions.max(1) as f64;
                rows.push((h.material, h.rules, positions, bytes.len() as u64, bits));
            }
            if json {
                let list: Vec<_> = rows
                    .iter()
                    .map(|(m, r, p, b, bits)| {
                        serde_json::json!({"material": m, "rules": r, "positions": p, "bytes": b, "bits_per_position": bits})
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else {
                println!(
                    "{:<12} {:<6} {:>14} {:>12} {:>9}",
                    "material", "rules", "positions", "bytes", "bits/pos"
                );
                for (m, r, p, b, bits) in &rows {
                    println!("{m:<12} {r:<6} {p:>14} {b:>12} {bits:>9.3}");
                }
                let (p, b): (u64, u64) = rows.iter().fold((0, 0), |(p, b), r| (p + r.2, b + r.3));
                println!(
                    "{} tables, {p} positions, {b} bytes, {:.3} bits per position",
                    rows.len(),
                    8.0 * b as f64 / p.max(1) as f64
                );
            }
        }
        Command::Probe {
            fen,
            json,
            no_gen,
            tables,
        } => {
            let pos = parse_fen(&fen)?;
            let tb = open_with_tables(&tables, &pos, no_gen, json)?;
            let m = Material::of_position(&pos);
            let value = tb.probe(&pos)?;
            let moves = tb.move_values(&pos)?;
            if json {
                let list: Vec<_> = moves
                    .iter()
                    .map(|(mv, v)| {
                        serde_json::json!({
                            "move": mv.iccs(),
                            "wxf": pos.move_to_wxf(*mv),
                            "chinese": pos.move_to_chinese(*mv),
                            "wdl": v.wdl_name(),
                            "dtm": v.distance().filter(|_| *v != Value::Draw),
                        })
                    })
                    .collect();
                let out = serde_json::json!({
                    "fen": pos.fen(),
                    "material": m.name(),
                    "wdl": value.wdl_name(),
                    "dtm": value.distance(),
                    "best_move": moves.first().map(|(mv, _)| mv.iccs()),
                    "moves": list,
                });
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                print!("{}", render_board(&pos, use_color()));
                println!("{}", verdict_line(&pos, value));
                for (mv, v) in &moves {
                    println!(
                        "  {:<10} {:<8} {}  {}",
                        pos.move_to_chinese(*mv),
                        pos.move_to_wxf(*mv),
                        mv.iccs(),
                        v
                    );
                }
            }
        }
    }
    Ok(())
}

/// The tablebase in `dir`, with the tables `pos` needs generated first unless `no_gen`.
fn open_with_tables(
    tables: &TableArgs,
    pos: &Position,
    no_gen: bool,
    quiet: bool,
) -> Result<Tablebase> {
    let tb = tables.open();
    if !no_gen {
        ensure_table(&tb, Material::of_position(pos), quiet)?;
    }
    Ok(tb)
}

/// Generates `m`'s table and its sub-tables if the file is missing (progress bars unless
/// `quiet`).
fn ensure_table(tb: &Tablebase, m: Material, quiet: bool) -> Result<()> {
    if !tb.has(m) {
        let opts = GenOptions {
            threads: 0,
            progress: !quiet,
            ..GenOptions::default()
        };
        generate_all(tb, &[m], &opts)?;
    }
    Ok(())
}

/// Prints every legal position whose value the perpetual-check rule decided, one a line, in
/// the colouring the user named (one of each mirror pair).
fn list_rule_decided(table: &canju::probe::Table, m: Material) {
    for (_, pos) in table.index.legal_positions() {
        if let Ok(Some(v)) = table.value(&pos)
            && v.is_by_rule()
        {
            let shown = if table.material == m {
                pos
            } else {
                pos.color_swapped()
            };
            println!("{}  {v}", shown.fen());
        }
    }
}

/// Pads a string that may hold double-width characters to `width` columns.
fn pad(s: &str, width: usize) -> String {
    let cols: usize = s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum();
    format!("{s}{}", " ".repeat(width.saturating_sub(cols)))
}

fn print_verdict(v: &Verdict, entry: Option<&canju::theory::Entry>) {
    println!("{} ({})", v.chinese, v.material);
    match (entry, v.book_grade) {
        (Some(e), Some(g)) => println!(
            "  book grade: {g} ({}){}",
            e.source,
            e.note.as_ref().map_or(String::new(), |n| format!(" - {n}"))
        ),
        _ => println!("  book grade: not in the catalogue"),
    }
    println!(
        "  measured grade: {} (rule: attacker's smallest win share over quiet positions)",
        v.measured_grade
    );
    if let (Some(agrees), Some(exact)) = (v.agrees, v.exact) {
        println!(
            "  the tables {}",
            if exact {
                "confirm the book grade exactly"
            } else if agrees {
                "agree with the book grade's class (win / mostly drawn)"
            } else {
                "DISAGREE with the book grade"
            }
        );
    }
    if let Some(d) = &v.recorded_disagreement {
        println!("  recorded disagreement: {d}");
    }
    for (label, shares) in [("all positions", &v.all), ("quiet positions", &v.quiet)] {
        for (who, s) in ["attacker to move", "defender to move"]
            .iter()
            .zip(shares.iter())
        {
            let p = |n: u64| 100.0 * n as f64 / s.positions.max(1) as f64;
            println!(
                "  {label}, {who}: {} positions, attacker wins {:.2}%, draws {:.2}%, defender wins {:.2}%",
                s.positions,
                p(s.attacker_wins),
                p(s.draws),
                p(s.defender_wins)
            );
        }
    }
    let (title, list) = if v.book_grade.is_some_and(|g| g.is_win_class()) {
        (
            "quiet positions the attacker does not win",
            &v.quiet_not_won,
        )
    } else {
        (
            "quiet positions the attacker wins (longest first)",
            &v.quiet_won,
        )
    };
    if !list.is_empty() {
        println!("  {title}:");
        for fen in list {
            println!("    {fen}");
            if let Ok(p) = Position::from_fen(fen) {
                for line in render_board(&p, use_color()).lines() {
                    println!("      {line}");
                }
            }
        }
    }
}

/// "red wins, mate in 23 plies" / "draw" / "black to move loses in 12".
fn verdict_line(pos: &Position, v: Value) -> String {
    let side = pos.turn();
    match v {
        Value::Win(n) => format!("{side} to move wins, mate in {n} plies"),
        Value::WinByRule => format!(
            "{side} to move wins by the perpetual-check rule (長將): {} can hold only by checking forever; no forced mate",
            side.opponent()
        ),
        Value::LossByRule => format!(
            "{side} to move loses by the perpetual-check rule (長將): it can hold only by checking forever"
        ),
        Value::Draw => "draw".to_string(),
        Value::Loss(0) => format!("{side} to move has no legal move and loses"),
        Value::Loss(n) => format!("{side} to move loses, mated in {n} plies"),
    }
}

fn print_side(who: &str, s: &SideStats) {
    let pct = |n: u64| {
        if s.positions == 0 {
            0.0
        } else {
            100.0 * n as f64 / s.positions as f64
        }
    };
    println!(
        "  {who}: {} positions, win {} ({:.1}%), draw {} ({:.1}%), loss {} ({:.1}%)",
        s.positions,
        s.win,
        pct(s.win),
        s.draw,
        pct(s.draw),
        s.loss,
        pct(s.loss)
    );
    if let Some(f) = &s.longest_win_fen {
        println!("    longest win {} plies: {f}", s.longest_win);
    }
    if s.rule_win + s.rule_loss > 0 {
        println!(
            "    perpetual-check rule: {} draws under plain become wins, {} become losses",
            s.rule_win, s.rule_loss
        );
        if let Some(f) = &s.rule_win_fen {
            println!("      won by the rule: {f}");
        }
        if let Some(f) = &s.rule_loss_fen {
            println!("      lost by the rule: {f}");
        }
    }
}

/// `--rule-pass` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum RulePassArg {
    Auto,
    Bitmaps,
    Graph,
}

impl From<RulePassArg> for RulePass {
    fn from(arg: RulePassArg) -> RulePass {
        match arg {
            RulePassArg::Auto => RulePass::Auto,
            RulePassArg::Bitmaps => RulePass::Bitmaps,
            RulePassArg::Graph => RulePass::Graph,
        }
    }
}

/// One generated set as a JSON object (`gen --json`).
fn report_json(r: &GenReport) -> serde_json::Value {
    let t = r.phases;
    serde_json::json!({
        "material": r.material.name(),
        "slots": r.slots,
        "generated": r.generated,
        "seconds": r.seconds,
        "phases": {"init": t.init, "sweep": t.sweep, "rule": t.rule, "write": t.write},
        "phase_peak_bytes": {"init": t.peaks.init, "sweep": t.peaks.sweep, "rule": t.peaks.rule, "write": t.peaks.write},
        "rule_pass": t.rule_pass.map(|p| p.name()),
        "peak_bytes": r.peak_memory,
        "peak_bytes_per_slot": r.peak_memory as f64 / (2 * r.slots.max(1)) as f64,
        "file_bytes": r.file_bytes,
        "stats": {"red_to_move": r.stats[0], "black_to_move": r.stats[1]},
    })
}

/// The plan as a table, totals last.
fn print_plan(plan: &canju::generate::Plan) {
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let time = |s: f64| {
        if s < 120.0 {
            format!("{s:.0} s")
        } else if s < 7200.0 {
            format!("{:.0} min", s / 60.0)
        } else {
            format!("{:.1} h", s / 3600.0)
        }
    };
    println!(
        "{:<14} {:>15} {:>10} {:>10} {:>10}  rule pass",
        "set", "slots per side", "peak GiB", "disk MB", "time"
    );
    for s in &plan.sets {
        println!(
            "{:<14} {:>15} {:>10.2} {:>10.1} {:>10}  {}",
            s.material,
            s.slots,
            gib(s.peak_bytes),
            s.disk_bytes as f64 / 1e6,
            time(s.seconds),
            s.rule_pass.unwrap_or("-")
        );
    }
    println!(
        "{} sets to generate: peak {:.2} GiB ({:.1} GiB available), disk {:.1} MB, about {}; {}",
        plan.sets.len(),
        gib(plan.peak_bytes),
        gib(plan.available_bytes),
        plan.disk_bytes as f64 / 1e6,
        time(plan.seconds),
        if plan.fits {
            "fits this machine"
        } else {
            "does NOT fit this machine"
        }
    );
}

fn print_report(r: &GenReport) {
    let [red, black] = &r.stats;
    println!(
        "{:<12} {:>11} positions  red to move W/D/L {}/{}/{}  black to move W/D/L {}/{}/{}  longest win {}  {}  {:.2} s{}  peak {} MiB",
        r.material.name(),
        red.positions + black.positions,
        red.win,
        red.draw,
        red.loss,
        black.win,
        black.draw,
        black.loss,
        red.longest_win.max(black.longest_win),
        if r.generated { "generated" } else { "present" },
        r.seconds,
        if r.generated {
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
        },
        r.peak_memory >> 20
    );
    if r.generated {
        println!(
            "{:<12} peak {:.2} bytes per slot-position (both sides to move)",
            "",
            r.peak_memory as f64 / (2 * r.slots.max(1)) as f64
        );
    }
    if red.rule_win + red.rule_loss + black.rule_win + black.rule_loss > 0 {
        println!(
            "{:<12} perpetual-check rule changed: red to move +{} wins +{} losses, black to move +{} wins +{} losses (e.g. {})",
            "",
            red.rule_win,
            red.rule_loss,
            black.rule_win,
            black.rule_loss,
            red.rule_win_fen
                .as_ref()
                .or(red.rule_loss_fen.as_ref())
                .or(black.rule_win_fen.as_ref())
                .or(black.rule_loss_fen.as_ref())
                .map_or("-", |s| s.as_str())
        );
    }
}
