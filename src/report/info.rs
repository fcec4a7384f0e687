//! `info`: the tables in a folder.

use crate::table::{EXTENSION, TableError, parse_header};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One table file (`canju info --json` lists them).
#[derive(Clone, Debug, Serialize)]
pub struct TableInfo {
    /// The file.
    pub file: PathBuf,
    /// Its material set, as stored.
    pub material: String,
    /// Its rule set.
    pub rules: String,
    /// Legal positions, both sides to move, both mirror images counted.
    pub positions: u64,
    /// Size of the file.
    pub bytes: u64,
    /// `8 * bytes / positions`.
    pub bits_per_position: f64,
    /// True if the table stores distances to mate (false: made with `--wdl-only`, or
    /// unreadable).
    pub distances: bool,
    /// Whose distances the file stores: `both` sides to move's, or `red`'s or `black`'s only
    /// (the other side's follow by a one-ply search); `None` without distances.
    pub distances_stored: Option<&'static str>,
    /// Why the file cannot be read (then `material` and `rules` come from its name and
    /// `positions` is 0), or `None`.
    pub error: Option<String>,
}

/// Every table file in `dir` (by name), from its header; a file that cannot be read is
/// listed with its error, and the others still are.
///
/// # Errors
///
/// The folder cannot be listed.
pub fn table_infos(dir: &Path) -> Result<Vec<TableInfo>, TableError> {
    Ok(table_paths(dir)?.into_iter().map(table_info).collect())
}

/// One file's entry.
fn table_info(path: PathBuf) -> TableInfo {
    let read = std::fs::read(&path).map_err(|e| TableError::Io {
        path: path.clone(),
        source: e,
    });
    let parsed = read.and_then(|bytes| {
        let (h, _) = parse_header(&path, &bytes)?;
        Ok((h, bytes.len() as u64))
    });
    match parsed {
        Ok((h, bytes)) => {
            let positions = h.stats[0].positions + h.stats[1].positions;
            let distances = h.holds_distances();
            TableInfo {
                material: h.material,
                rules: h.rules,
                positions,
                bytes,
                bits_per_position: 8.0 * bytes as f64 / positions.max(1) as f64,
                distances,
                distances_stored: match (distances, h.dtm_side) {
                    (false, _) => None,
                    (true, None) => Some("both"),
                    (true, Some(0)) => Some("red"),
                    (true, Some(_)) => Some("black"),
                },
                error: None,
                file: path,
            }
        }
        Err(e) => {
            let (material, rules) = crate::table::name_parts(&path);
            TableInfo {
                material,
                rules,
                positions: 0,
                bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
                bits_per_position: 0.0,
                distances: false,
                distances_stored: None,
                error: Some(e.to_string()),
                file: path,
            }
        }
    }
}

/// The table files in a folder, sorted by name.
///
/// # Errors
///
/// The folder cannot be listed.
pub fn table_paths(dir: &Path) -> Result<Vec<PathBuf>, TableError> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| TableError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
        .collect();
    paths.sort();
    Ok(paths)
}
