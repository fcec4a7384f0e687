//! What canju answers, as typed reports: the same structures print as text on the command
//! line, serialise to the JSON of `--json` (documented field by field in the README's *JSON
//! reports*) and are what an HTTP service would send.
//!
//! Conventions every report follows: values are from the side to move of the position they
//! belong to (a move's value is what the move leaves for the side that makes it); `dtm` is in
//! plies, signed (positive: the side mates, negative: it is mated, `null`: a draw or a result
//! decided by the rule); codes are stable lower-case strings.

mod explain;
mod generation;
mod info;
mod line;
mod lookup;
mod position;
mod stats;
mod theory;

pub use explain::{CycleMove, ExplainReport, Target, explain_report};
pub use generation::{BothSides, GenSummary, PerPhase};
pub use info::{TableInfo, table_infos, table_paths};
pub use line::{LineEnd, LineMove, LineReport, Repetition, line_report};
pub use lookup::{
    LookupMove, LookupReport, MainlineMove, MainlineReport, lookup_report, mainline_report,
};
pub use position::{MoveReport, ProbeReport, probe_report};
pub use stats::{StatsReport, rule_decided_positions, stats_report};
pub use theory::{TheoryRow, theory_rows};
