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
}

/// Every table file in `dir` (by name), from its header.
///
/// # Errors
///
/// The folder cannot be listed, or a file cannot be read or has a damaged header (the
/// error names the file).
pub fn table_infos(dir: &Path) -> Result<Vec<TableInfo>, TableError> {
    let mut infos = Vec::new();
    for path in table_paths(dir)? {
        let bytes = std::fs::read(&path).map_err(|e| TableError::Io {
            path: path.clone(),
            source: e,
        })?;
        let (h, _) = parse_header(&path, &bytes)?;
        let positions = h.stats[0].positions + h.stats[1].positions;
        infos.push(TableInfo {
            material: h.material,
            rules: h.rules,
            positions,
            bytes: bytes.len() as u64,
            bits_per_position: 8.0 * bytes.len() as f64 / positions.max(1) as f64,
            file: path,
        });
    }
    Ok(infos)
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
