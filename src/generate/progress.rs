//! Progress bars for the generator's phases (hidden when not wanted).

use indicatif::{ProgressBar, ProgressStyle};

/// One phase of one table's generation.
pub(crate) struct Phase {
    bar: Option<ProgressBar>,
}

impl Phase {
    /// A bar for `total` positions, or a spinner when `total` is 0.
    pub(crate) fn new(show: bool, table: &str, phase: &str, total: u64) -> Phase {
        if !show {
            return Phase { bar: None };
        }
        let bar = if total > 0 {
            let b = ProgressBar::new(total);
            b.set_style(
                ProgressStyle::with_template(
                    "{prefix:>12} {msg:<6} [{bar:30}] {human_pos}/{human_len} {per_sec} {elapsed}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            b
        } else {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{prefix:>12} {msg} {elapsed}")
                    .expect("valid template"),
            );
            b
        };
        bar.set_prefix(table.to_string());
        bar.set_message(phase.to_string());
        Phase { bar: Some(bar) }
    }

    pub(crate) fn inc(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }

    pub(crate) fn sweep(&self, level: u16, decided: u64) {
        if let Some(b) = &self.bar {
            b.set_message(format!("sweep ply {level}: {decided} positions decided"));
            b.tick();
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
