//! What can go wrong with a table file, each error naming the file.

use super::format::{FORMAT_VERSION, INDEX_VERSION, OLDEST_READABLE_VERSION};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Problems with a table file; each names the file.
#[derive(Debug, Error)]
pub enum TableError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Not a canju table.
    #[error("{0}: not a canju table (bad magic bytes)")]
    BadMagic(PathBuf),
    /// Shorter than its header says.
    #[error("{0}: truncated file")]
    Truncated(PathBuf),
    /// The header fails one of its checks (named: its checksum, its decoding, the sections'
    /// layout...).
    #[error("{path}: corrupted header ({check})")]
    CorruptHeader {
        /// The file.
        path: PathBuf,
        /// Which check failed.
        check: &'static str,
    },
    /// Bytes follow the last section: something was appended to the file.
    #[error("{path}: {extra} trailing bytes after the table's last section")]
    TrailingBytes {
        /// The file.
        path: PathBuf,
        /// How many.
        extra: u64,
    },
    /// Written by another version of canju.
    #[error(
        "{path}: format version {found}, index version {index}; this canju reads formats {OLDEST_READABLE_VERSION} to {FORMAT_VERSION} with index version {INDEX_VERSION}: regenerate it with `canju gen --force`"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Its format version.
        found: u32,
        /// Its index version.
        index: u32,
    },
    /// The header describes another table than the name promises.
    #[error("{path}: holds {found}, expected {expected}")]
    WrongTable {
        /// The file.
        path: PathBuf,
        /// What it holds (material/rules/size).
        found: String,
        /// What was expected.
        expected: String,
    },
    /// The payload does not match its checksum or a block does not decompress.
    #[error("{0}: corrupted data (checksum mismatch)")]
    CorruptPayload(PathBuf),
    /// A distance was asked of a table generated with `--wdl-only`.
    #[error(
        "{}: holds win/draw/loss only (generated with --wdl-only), no distance to mate; \
         `canju gen {}{}` (without --wdl-only) makes it again with distances, and its \
         sub-tables too",
        .0.display(),
        super::name_parts(.0).0,
        crate::probe::gen_flags(.0)
    )]
    NoDistances(PathBuf),
    /// An `asian` table written before `asian` included the chase rule (format 7 or
    /// earlier): it holds the perpetual-check rule alone, and is read only as `check`.
    #[error(
        "{}: written by format {version}, when `asian` was the perpetual-check rule alone; \
         today's asian also forbids perpetual chase. `canju gen {}{} --force` makes it again \
         (a run that needs it as a sub-table does that itself, keeping the old file as \
         {}), or `canju repack` renames it to that name for `--rules check`",
        .path.display(),
        super::name_parts(.path).0,
        crate::probe::gen_flags(.path),
        super::file_name(&super::name_parts(.path).0, super::format::CHECK_RULES)
    )]
    CheckOnlyRules {
        /// The file.
        path: PathBuf,
        /// Its format version.
        version: u32,
    },
    /// A distance of the side to move whose distances the file does not store was asked of
    /// the file itself: they follow by a one-ply search over the stored side, which
    /// [`crate::probe::Tablebase`] makes (its `probe`, `load_side`).
    #[error(
        "{}: stores the distances of {} to move only; the other side's are found by a one-ply \
         search through the Tablebase",
        .path.display(),
        ["black", "red"][*.side]
    )]
    DistancesNotStored {
        /// The file.
        path: PathBuf,
        /// The side asked for (0 red, 1 black).
        side: usize,
    },
    /// The WDL code of a position whose distance a one-ply search gives disagrees with what
    /// its moves give: the file, or a table its captures reach, is damaged.
    #[error(
        "{}: {fen} is stored as {code} but its moves give {search}; `canju verify` tells which \
         table is wrong",
        .path.display()
    )]
    SearchDisagrees {
        /// The file.
        path: PathBuf,
        /// The position.
        fen: String,
        /// What its WDL code says.
        code: String,
        /// What the search found.
        search: String,
    },
}

pub(super) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl TableError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TableError::Io { path, .. }
            | TableError::CorruptHeader { path, .. }
            | TableError::TrailingBytes { path, .. }
            | TableError::Version { path, .. }
            | TableError::WrongTable { path, .. }
            | TableError::CheckOnlyRules { path, .. }
            | TableError::DistancesNotStored { path, .. }
            | TableError::SearchDisagrees { path, .. } => path,
            TableError::BadMagic(path)
            | TableError::Truncated(path)
            | TableError::CorruptPayload(path)
            | TableError::NoDistances(path) => path,
        }
    }

    /// True when the file exists but its contents are wrong (not an I/O failure).
    pub fn is_damage(&self) -> bool {
        !matches!(
            self,
            TableError::Io { .. }
                | TableError::NoDistances(_)
                | TableError::DistancesNotStored { .. }
        )
    }
}
