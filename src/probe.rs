//! Probing: open a directory of tables and ask for the value of a position.

use crate::index::MaterialIndex;
use crate::material::Material;
use crate::rules::{Move, Position, PositionError};
use crate::table::{self, LoadedTable, TableError};
use crate::value::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use thiserror::Error;

/// Name of the only rule set generated so far.
pub const RULES_PLAIN: &str = "plain";

/// Why a probe could not answer.
#[derive(Debug, Error)]
pub enum ProbeError {
    /// No table file for the material set.
    #[error(
        "no table for {material} ({chinese}): {path} does not exist; generate it with `canju gen {material}`"
    )]
    MissingTable {
        /// ASCII name in the stored colouring.
        material: String,
        /// Chinese name.
        chinese: String,
        /// Where the file was looked for.
        path: PathBuf,
    },
    /// The file exists but cannot be used.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The position is not legal.
    #[error("{0}")]
    Position(#[from] PositionError),
    /// The table does not hold this position (a bug or a mismatched file).
    #[error("{material}: the table has no value for {fen}")]
    NotInTable {
        /// The table.
        material: String,
        /// The position.
        fen: String,
    },
}

/// One material set's table, read into memory, with its index.
pub struct Table {
    /// Material in stored colouring.
    pub material: Material,
    /// The position <-> slot map.
    pub index: MaterialIndex,
    /// The file's contents.
    pub data: LoadedTable,
}

impl Table {
    /// The value of `pos`, which must have this table's material in its stored colouring.
    pub fn value(&self, pos: &Position) -> Option<Value> {
        let i = self.index.encode(pos)?;
        let v = self.data.values[pos.turn().index()].get(i as usize)?;
        Value::from_stored(*v)
    }
}

/// A directory of tables, opened lazily. `Send + Sync`.
pub struct Tablebase {
    dir: PathBuf,
    rules: String,
    tables: RwLock<HashMap<Material, Arc<Table>>>,
}

impl Tablebase {
    /// Tables in `dir` under the `plain` rule set. The directory need not exist yet.
    pub fn open(dir: impl AsRef<Path>) -> Tablebase {
        Tablebase {
            dir: dir.as_ref().to_path_buf(),
            rules: RULES_PLAIN.to_string(),
            tables: RwLock::new(HashMap::new()),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The rule set name.
    pub fn rules(&self) -> &str {
        &self.rules
    }

    /// Where the table of `material` (any colouring) lives.
    pub fn path_of(&self, material: Material) -> PathBuf {
        self.dir
            .join(table::file_name(&material.canonical().name()))
    }

    /// True if the file for `material` exists.
    pub fn has(&self, material: Material) -> bool {
        self.path_of(material).exists()
    }

    /// Forgets a loaded table (after it was regenerated).
    pub fn forget(&self, material: Material) {
        self.tables
            .write()
            .expect("table cache lock")
            .remove(&material.canonical());
    }

    /// The table of `material` (any colouring; the stored colouring is returned).
    pub fn table(&self, material: Material) -> Result<Arc<Table>, ProbeError> {
        let m = material.canonical();
        if let Some(t) = self.tables.read().expect("table cache lock").get(&m) {
            return Ok(t.clone());
        }
        let path = self.path_of(m);
        if !path.exists() {
            return Err(ProbeError::MissingTable {
                material: m.name(),
                chinese: m.chinese_name(),
                path,
            });
        }
        let data = table::read_table(&path)?;
        let index = MaterialIndex::new(m);
        let expected = format!(
            "{} rules {} with {} slots",
            m.name(),
            self.rules,
            index.size()
        );
        let found = format!(
            "{} rules {} with {} slots",
            data.header.material, data.header.rules, data.header.slots
        );
        if found != expected {
            return Err(TableError::WrongTable {
                path,
                found,
                expected,
            }
            .into());
        }
        let t = Arc::new(Table {
            material: m,
            index,
            data,
        });
        self.tables
            .write()
            .expect("table cache lock")
            .insert(m, t.clone());
        Ok(t)
    }

    /// The value of a legal position for its side to move.
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        let material = Material::of_position(pos);
        let table = self.table(material)?;
        let swapped;
        let p = if material.is_canonical() && table.material == material {
            pos
        } else {
            swapped = pos.color_swapped();
            &swapped
        };
        table.value(p).ok_or_else(|| ProbeError::NotInTable {
            material: table.material.name(),
            fen: pos.fen(),
        })
    }

    /// Every legal move with the value it leaves for the side to move, best first.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<(Move, Value)>, ProbeError> {
        let mut out = Vec::new();
        for &mv in pos.legal_moves().iter() {
            let v = self.probe(&pos.after(mv))?.parent();
            out.push((mv, v));
        }
        out.sort_by_key(|&(mv, v)| (-v.goodness(), mv));
        Ok(out)
    }

    /// The moves that keep the position's value (all of them if several are equally good).
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let moves = self.move_values(pos)?;
        let best = moves.first().map(|&(_, v)| v);
        Ok(moves
            .into_iter()
            .take_while(|&(_, v)| Some(v) == best)
            .map(|(m, _)| m)
            .collect())
    }

    /// The line of best play to mate (empty for a draw or a position already lost), each side
    /// playing its first best move.
    pub fn principal_variation(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut p = pos.clone();
        if self.probe(&p)? == Value::Draw {
            return Ok(line);
        }
        while let Some(&mv) = self.best_moves(&p)?.first() {
            line.push(mv);
            p.make(mv);
            if line.len() > 2000 {
                break;
            }
        }
        Ok(line)
    }
}
