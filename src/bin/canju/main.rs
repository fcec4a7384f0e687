//! The `canju` command line: parses the arguments and hands each command to its module.
//! Every command writes to one output stream; a closed pipe (`canju line ... | head -1`)
//! ends the program quietly.

mod args;
mod generating;
mod position;
mod serve;
mod tables;
mod text;
mod theory;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

/// What a command returns: its error, shown after `canju: `.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

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
    Moves(position::Moves),
    /// Count leaf positions DEPTH plies down; the count is the last line.
    Perft(position::Perft),
    /// Draw the board.
    Show(position::Show),
    /// The value of a position, with every move's value; generates missing tables first.
    Probe(position::Probe),
    /// The line of best play, numbered like a score sheet.
    Line(position::Line),
    /// The cycle that decides a result by a repetition rule: each side's moves, what each
    /// attacks, and what the offender could play instead.
    Explain(position::Explain),
    /// Generate tables (and every sub-table they need).
    Gen(generating::Gen),
    /// What generating sets (and their missing sub-tables) will take: slots, peak memory,
    /// disk and time per set.
    Plan(generating::Plan),
    /// Win/draw/loss statistics of a material set.
    Stats(tables::Stats),
    /// Re-derive every stored value of a table from its successors.
    Verify(tables::Verify),
    /// Every table in the folder: rule set, positions, bytes, bits per position.
    Info(tables::Info),
    /// Rewrite table files in the current file format, keeping their values (no regeneration).
    Repack(tables::Repack),
    /// How the tables bear out the book grade of a named endgame (generates what it needs).
    Verdict(theory::VerdictCmd),
    /// Every catalogue entry up to N men: book grade against measured grade.
    Theory(theory::TheoryCmd),
    /// Serve the tables over HTTP: JSON for programs, a web page for players.
    Serve(serve::Serve),
}

impl Command {
    fn run(self, out: &mut dyn Write) -> Result<()> {
        match self {
            Command::Moves(c) => c.run(out),
            Command::Perft(c) => c.run(out),
            Command::Show(c) => c.run(out),
            Command::Probe(c) => c.run(out),
            Command::Line(c) => c.run(out),
            Command::Explain(c) => c.run(out),
            Command::Gen(c) => c.run(out),
            Command::Plan(c) => c.run(out),
            Command::Stats(c) => c.run(out),
            Command::Verify(c) => c.run(out),
            Command::Info(c) => c.run(out),
            Command::Repack(c) => c.run(out),
            Command::Verdict(c) => c.run(out),
            Command::Theory(c) => c.run(out),
            Command::Serve(c) => c.run(out),
        }
    }
}

fn main() -> ExitCode {
    // clap prints its whole message (what is wrong, the usage) and exits with 2.
    let cli = Cli::parse();
    let mut out = std::io::stdout().lock();
    let done = cli
        .command
        .run(&mut out)
        .and_then(|()| out.flush().map_err(Into::into));
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("canju: {e}");
            ExitCode::FAILURE
        }
    }
}

/// True if the reader of our output went away (`| head`): not an error to report.
fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}
