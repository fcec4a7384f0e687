//! The `canju` command line.

use canju::display::{render_board, use_color};
use canju::generate::{GenOptions, GenReport, generate_all};
use canju::material::Material;
use canju::probe::Tablebase;
use canju::rules::{Notation, Position};
use canju::table::SideStats;
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
        /// Table folder.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
    },
    /// Win/draw/loss statistics of a material set.
    Stats {
        /// Material set.
        material: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Table folder.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
    },
    /// Re-derive every stored value of a table from its successors.
    Verify {
        /// Material sets.
        materials: Vec<String>,
        /// Table folder.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
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
        /// Table folder.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
            dir,
        } => {
            let mut sets: Vec<Material> = materials
                .iter()
                .map(|m| parse_material(m))
                .collect::<Result<_>>()?;
            if let Some(n) = men {
                sets.extend(Material::all_up_to(n));
            }
            if sets.is_empty() {
                return Err("name material sets (e.g. `canju gen KRKAA`) or give --men N".into());
            }
            let tb = Tablebase::open(&dir);
            let opts = GenOptions {
                threads,
                progress: true,
                force,
            };
            let reports = generate_all(&tb, &sets, &opts)?;
            for r in &reports {
                print_report(r);
            }
        }
        Command::Stats {
            material,
            json,
            dir,
        } => {
            let m = parse_material(&material)?;
            let tb = Tablebase::open(&dir);
            let table = tb.table(m)?;
            let mut stats = table.data.header.stats.clone();
            let stored = table.material;
            // Report in the colouring the user asked for.
            let shown = if stored == m { stored } else { m };
            if stored != m {
                stats.swap(0, 1);
                for s in stats.iter_mut() {
                    for fen in [&mut s.longest_win_fen, &mut s.longest_loss_fen] {
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
                    })
                };
                let out = serde_json::json!({
                    "material": shown.name(),
                    "chinese": shown.chinese_name(),
                    "rules": table.data.header.rules,
                    "red": side(&stats[0]),
                    "black": side(&stats[1]),
                });
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!(
                    "{} ({}), rules {}",
                    shown.name(),
                    shown.chinese_name(),
                    table.data.header.rules
                );
                for (who, s) in ["red to move", "black to move"].iter().zip(&stats) {
                    print_side(who, s);
                }
            }
        }
        Command::Verify { materials, dir } => {
            let tb = Tablebase::open(&dir);
            if materials.is_empty() {
                return Err("name the material sets to verify".into());
            }
            for name in materials {
                let m = parse_material(&name)?;
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
        Command::Probe {
            fen,
            json,
            no_gen,
            dir,
        } => {
            let pos = parse_fen(&fen)?;
            let tb = Tablebase::open(&dir);
            let m = Material::of_position(&pos);
            if !no_gen && !tb.has(m) {
                let opts = GenOptions {
                    threads: 0,
                    progress: !json,
                    force: false,
                };
                generate_all(&tb, &[m], &opts)?;
            }
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
                println!("{}", verdict(&pos, value));
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

/// "red wins, mate in 23 plies" / "draw" / "black to move loses in 12".
fn verdict(pos: &Position, v: Value) -> String {
    let side = pos.turn();
    match v {
        Value::Win(n) => format!("{side} to move wins, mate in {n} plies"),
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
}

fn print_report(r: &GenReport) {
    let [red, black] = &r.stats;
    println!(
        "{:<12} {:>11} positions  red to move W/D/L {}/{}/{}  black to move W/D/L {}/{}/{}  longest win {}  {}  {:.2} s  peak {} MiB",
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
        r.peak_memory >> 20
    );
}
