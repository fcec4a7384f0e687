//! Flags several commands share, and the enumerations clap reads.

use canju::generate::RulePass;
use canju::probe::{RuleSet, Tablebase};
use canju::rules::Notation;
use std::path::PathBuf;

/// Where the tables are and which rule set they follow.
#[derive(clap::Args)]
pub struct TableArgs {
    /// Table folder.
    #[arg(long, default_value = "tables")]
    pub dir: PathBuf,
    /// Rule set: asian (perpetual check and perpetual chase lose: the 棋例, as chessdb plays
    /// it), check (only perpetual check loses) or plain (endless play draws).
    #[arg(long, value_enum, default_value_t = RulesArg::Asian)]
    pub rules: RulesArg,
}

impl TableArgs {
    /// The tablebase these flags name.
    pub fn open(&self) -> Tablebase {
        Tablebase::with_rules(&self.dir, self.rules.into())
    }
}

/// `--json`.
#[derive(clap::Args)]
pub struct JsonFlag {
    /// Print JSON (fields: the README's *JSON reports*) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `--no-gen`.
#[derive(clap::Args)]
pub struct NoGenFlag {
    /// Do not generate missing tables (report them missing instead).
    #[arg(long)]
    pub no_gen: bool,
}

/// `--rules` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum RulesArg {
    /// The 棋例's rules: perpetual check (長將) and perpetual chase (長捉) both lose.
    Asian,
    /// The perpetual-check rule (長將) alone; chases are idle moves.
    Check,
    /// No repetition rule: endless play is a draw.
    Plain,
}

impl From<RulesArg> for RuleSet {
    fn from(arg: RulesArg) -> RuleSet {
        match arg {
            RulesArg::Asian => RuleSet::Asian,
            RulesArg::Check => RuleSet::Check,
            RulesArg::Plain => RuleSet::Plain,
        }
    }
}

/// `--notation` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum NotationArg {
    /// `h2e2`.
    Iccs,
    /// `C2=5`.
    Wxf,
    /// `炮二平五`.
    Chinese,
}

impl From<NotationArg> for Notation {
    fn from(arg: NotationArg) -> Notation {
        match arg {
            NotationArg::Iccs => Notation::Iccs,
            NotationArg::Wxf => Notation::Wxf,
            NotationArg::Chinese => Notation::Chinese,
        }
    }
}

/// `--rule-pass` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum RulePassArg {
    /// The bitmaps.
    Auto,
    /// Bitmaps over the draws (least memory, fastest measured).
    Bitmaps,
    /// An explicit graph of the draws' moves (a cross-check).
    Graph,
    /// The five-priority game the chase rule needs, with checks only (a cross-check; slower).
    Priorities,
}

impl From<RulePassArg> for RulePass {
    fn from(arg: RulePassArg) -> RulePass {
        match arg {
            RulePassArg::Auto => RulePass::Auto,
            RulePassArg::Bitmaps => RulePass::Bitmaps,
            RulePassArg::Graph => RulePass::Graph,
            RulePassArg::Priorities => RulePass::Priorities,
        }
    }
}
