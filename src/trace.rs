//! Timings of the generator's inner steps for whoever tunes it: with the environment
//! variable `CANJU_TRACE` set (to anything), each traced step prints its wall time and what
//! it did to standard error, one line a step. Unset, a step costs one read of a flag set
//! once. A step's line may come after the lines of the steps it holds (a fixpoint round
//! after its levels).
//!
//! `gen --json` gives each phase's time; this says where a phase's time went (the rule pass's
//! draws, each of the fixpoint's rounds, each game's solver) without a special build.

use std::fmt::Display;
use std::sync::OnceLock;
use std::time::Instant;

/// True if `CANJU_TRACE` is set.
pub(crate) fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CANJU_TRACE").is_some())
}

/// A step being timed: prints its time when [`Step::done`] says what it did.
pub(crate) struct Step {
    started: Option<Instant>,
    name: &'static str,
}

/// Starts timing step `name` (nothing if tracing is off).
pub(crate) fn step(name: &'static str) -> Step {
    Step {
        started: enabled().then(Instant::now),
        name,
    }
}

impl Step {
    /// Prints the step's time and `what` (built only if tracing is on).
    pub(crate) fn done<D: Display>(self, what: impl FnOnce() -> D) {
        if let Some(started) = self.started {
            let seconds = started.elapsed().as_secs_f64();
            eprintln!("trace {seconds:9.3} s  {}: {}", self.name, what());
        }
    }
}

/// Times summed over the many runs of a few steps (a sweep's levels), printed together.
#[derive(Default)]
pub(crate) struct Totals {
    /// Per step name: runs, seconds and the counts its runs reported.
    steps: Vec<(&'static str, u64, f64, u64)>,
}

impl Totals {
    /// The start of one run of a step (nothing if tracing is off).
    pub(crate) fn start(&self) -> Option<Instant> {
        enabled().then(Instant::now)
    }

    /// Adds one run of step `name` that started at `started`, and the count `count` gives.
    pub(crate) fn add(
        &mut self,
        name: &'static str,
        started: Option<Instant>,
        count: impl FnOnce() -> u64,
    ) {
        let Some(started) = started else { return };
        let seconds = started.elapsed().as_secs_f64();
        let n = count();
        match self.steps.iter_mut().find(|s| s.0 == name) {
            Some(s) => {
                s.1 += 1;
                s.2 += seconds;
                s.3 += n;
            }
            None => self.steps.push((name, 1, seconds, n)),
        }
    }

    /// Prints each step's summed time, runs and count, under `what`.
    pub(crate) fn print(&self, what: &str) {
        for (name, runs, seconds, count) in &self.steps {
            eprintln!("trace {seconds:9.3} s  {what}: {name} ({runs} runs, count {count})");
        }
    }
}
