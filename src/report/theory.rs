//! `theory`: the catalogue's named endgames against the tables.

use crate::probe::{ProbeError, Tablebase};
use crate::theory::{Catalogue, Entry, Verdict, verdict};
use serde::Serialize;

/// One catalogue entry with what the tables say (`canju theory --json` lists them).
#[derive(Clone, Debug, Serialize)]
pub struct TheoryRow {
    /// The entry's first Chinese name.
    pub name: String,
    /// The catalogue entry as written.
    pub entry: Entry,
    /// The measured verdict; `None` when the set's table is absent and was not to be
    /// generated.
    pub verdict: Option<Verdict>,
}

/// The rows of every catalogue entry: measured where `measure` says the table is (made)
/// present. `measure` gets each entry and returns whether its table may be read (the CLI
/// generates missing ones up to a size there).
///
/// # Errors
///
/// `measure` failed, or a table is damaged.
pub fn theory_rows<E: From<ProbeError>>(
    tb: &Tablebase,
    catalogue: &Catalogue,
    mut measure: impl FnMut(&Entry) -> Result<bool, E>,
) -> Result<Vec<TheoryRow>, E> {
    let mut rows = Vec::with_capacity(catalogue.entries.len());
    for e in &catalogue.entries {
        let verdict = if measure(e)? {
            Some(verdict(tb, e.material(), catalogue)?)
        } else {
            None
        };
        rows.push(TheoryRow {
            name: e.chinese[0].clone(),
            entry: e.clone(),
            verdict,
        });
    }
    Ok(rows)
}
