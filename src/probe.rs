//! Probing: open a directory of tables and ask for the value of a position.
//!
//! ```
//! use canju::generate::{generate_all, GenOptions};
//! use canju::material::Material;
//! use canju::probe::{Tablebase, Wdl};
//! use canju::rules::Position;
//! use canju::value::Value;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let tb = Tablebase::open(dir.path());
//! // Horse against a lone general, and the sets its captures lead to.
//! generate_all(&tb, &[Material::parse("马对单将").unwrap()], &GenOptions::default()).unwrap();
//!
//! let pos = Position::from_fen("3k5/9/9/9/9/9/9/4N4/9/4K4 w").unwrap();
//! assert_eq!(tb.probe_wdl(&pos).unwrap(), Wdl::Win);
//! assert_eq!(tb.probe_dtm(&pos).unwrap(), Value::Win(5));
//! let line = tb.principal_variation(&pos).unwrap();
//! assert_eq!(line.len(), 5);
//! // Every best move keeps the value.
//! for mv in tb.best_moves(&pos).unwrap() {
//!     assert_eq!(tb.probe(&pos.after(mv)).unwrap().parent(), Value::Win(5));
//! }
//! // A missing table is an error that names the material set.
//! let other = Position::from_fen("3k5/9/9/9/9/9/9/4R4/9/4K4 w").unwrap();
//! assert!(tb.probe(&other).unwrap_err().to_string().contains("KRK"));
//! ```

use crate::index::MaterialIndex;
use crate::material::Material;
use crate::rules::{Move, MoveAttack, Position, PositionError};
use crate::table::{
    self, DtmSide, RuleCodes, SideStats, TableError, TableFile, WDL_DRAW, WDL_LOSS, WDL_WIN,
};
use crate::value::{Outcome, Rule, Standing, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};
use thiserror::Error;

mod searched_side;

/// The rule set a table is generated under (`docs/conventions.md`, Values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// No repetition rule: any endless play is a draw.
    Plain,
    /// The perpetual-check rule alone: a side that can avoid losing only by checking on
    /// every move forever (perpetual check, 長將) loses; if both sides check forever it is a
    /// draw. Chases are idle moves. (Tables of format 7 and earlier named `asian` follow
    /// this rule, and are read as `check`.)
    Check,
    /// The 棋例's repetition rules as the chessdb cloud database applies them: a side that
    /// can avoid losing only by attacking on every move forever (checks 長將, chases 長捉, or
    /// both) loses; two such sides draw, except that one that only checks loses against one
    /// that chases ([`crate::rules::attack`] says what a chase is).
    #[default]
    Asian,
}

impl RuleSet {
    /// `plain`, `check` or `asian`.
    pub fn name(self) -> &'static str {
        match self {
            RuleSet::Plain => "plain",
            RuleSet::Check => "check",
            RuleSet::Asian => "asian",
        }
    }
}

impl std::str::FromStr for RuleSet {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "plain" => Ok(RuleSet::Plain),
            "check" => Ok(RuleSet::Check),
            "asian" => Ok(RuleSet::Asian),
            "chase" => Err("the rule set 'chase' is now 'asian' (perpetual check and perpetual chase lose); the check-only rule is 'check'".into()),
            _ => Err(format!("unknown rule set '{s}' (plain, check or asian)")),
        }
    }
}

impl std::fmt::Display for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a probe could not answer.
#[derive(Debug, Error)]
pub enum ProbeError {
    /// No table file for the material set.
    #[error(
        "no table for {material} ({chinese}): {path} does not exist; generate it with `canju gen {material}{}`",
        gen_flags(path)
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

impl ProbeError {
    /// True when a table read holds no distances (`--wdl-only`) and distances were asked.
    pub fn lacks_distances(&self) -> bool {
        matches!(self, ProbeError::Table(TableError::NoDistances(_)))
    }
}

/// A position's standing for its side to move and every legal move's for the mover, best
/// first: values with distances, or outcomes where a table read holds none.
#[derive(Clone, Debug)]
pub enum Results {
    /// Every table read holds distances.
    Values(Value, Vec<(Move, Value)>),
    /// Some table read holds no distances (`--wdl-only`).
    Outcomes(Outcome, Vec<(Move, Outcome)>),
}

/// The `--dir` and `--rules` flags that `canju gen` needs to write the table file `path`
/// (nothing for the defaults: `tables/`, `asian`).
pub(crate) fn gen_flags(path: &Path) -> String {
    let mut flags = String::new();
    let dir = path.parent().unwrap_or(Path::new(""));
    if dir != Path::new("tables") {
        let shown = dir.display().to_string();
        if shown.is_empty() {
            flags.push_str(" --dir .");
        } else if shown.contains(char::is_whitespace) {
            flags.push_str(&format!(" --dir '{shown}'"));
        } else {
            flags.push_str(&format!(" --dir {shown}"));
        }
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    for rules in [RuleSet::Plain, RuleSet::Check] {
        if name.contains(&format!(".{}.", rules.name())) {
            flags.push_str(&format!(" --rules {rules}"));
        }
    }
    flags
}

/// Win, draw or loss for the side to move, without the distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Draw.
    Draw,
    /// The side to move wins.
    Win,
}

impl From<Outcome> for Wdl {
    fn from(o: Outcome) -> Wdl {
        match o {
            Outcome::Win | Outcome::WinByRule(_) => Wdl::Win,
            Outcome::Draw => Wdl::Draw,
            Outcome::Loss | Outcome::LossByRule(_) => Wdl::Loss,
        }
    }
}

impl From<Value> for Wdl {
    fn from(v: Value) -> Wdl {
        match v {
            Value::Win(_) | Value::WinByRule(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) | Value::LossByRule(_) => Wdl::Loss,
        }
    }
}

/// One material set's table with its index: probed block by block through a memory map, or
/// read whole into memory for the generator ([`Tablebase::load_all`], [`Table::load_side`]).
pub struct Table {
    /// Material in stored colouring.
    pub material: Material,
    /// The position <-> slot map.
    pub index: MaterialIndex,
    /// The file.
    pub file: TableFile,
    /// Each side to move's values, once read whole.
    all: [OnceLock<DtmSide>; 2],
}

impl Table {
    /// Reads the values of `side` (0 red, 1 black) to move into memory (checking the
    /// checksums; a byte a value where every one has a one-byte form, else two), so later
    /// look-ups are array reads: the generator needs one side of each sub-table, since every
    /// position a capture reaches has the captured side to move.
    ///
    /// A table without distances (`--wdl-only`) gives its wins and losses stand-in distances
    /// ([`Table::stored`]). The side whose distances a one-ply search gives
    /// ([`Table::searches`]) is read by [`Tablebase::load_side`], which can reach the tables
    /// its captures lead to.
    ///
    /// # Errors
    /// [`TableError::DistancesNotStored`] for that side; a checksum mismatch or a block that
    /// does not decode.
    pub fn load_side(&self, side: usize) -> Result<(), TableError> {
        if self.all[side].get().is_none() {
            let values = if self.holds_distances() {
                self.file.load_dtm_of(side)?
            } else {
                let codes = self.file.load_wdl_of(side)?;
                let stored = codes
                    .into_iter()
                    .map(|code| Ok(self.outcome_of_code(code, side)?.stand_in().to_stored()))
                    .collect::<Result<_, TableError>>()?;
                DtmSide::from_stored(stored)
            };
            let _ = self.all[side].set(values);
        }
        Ok(())
    }

    /// True if the distances of `side` (0 red, 1 black) to move are not in the file but
    /// follow by a one-ply search over the other side's (format 9 on), and have not been read
    /// whole yet ([`Tablebase::load_side`]).
    pub fn searches(&self, side: usize) -> bool {
        let h = self.file.header();
        h.holds_distances() && !h.stores_distances_of(side) && self.all[side].get().is_none()
    }

    /// True if `side`'s WDL codes leave wins and losses by the perpetual-check rule for the
    /// search that gives its distances to tell from mates ([`RuleCodes::ButCheck`]).
    pub fn searches_check_results(&self, side: usize) -> bool {
        self.file.header().rule_codes_of(side) == RuleCodes::ButCheck
    }

    /// True if the table stores distances to mate (it was not generated with `--wdl-only`).
    pub fn holds_distances(&self) -> bool {
        self.file.header().holds_distances()
    }

    /// The stored value of slot `i` with `side` (0 red, 1 black) to move. In a table without
    /// distances a win stands as a mate in 1 and a loss as a mate in 0: the generator's
    /// `--wdl-only` runs, which need only who wins, read them so ([`Table::value`] refuses).
    ///
    /// # Errors
    /// A damaged block.
    pub fn stored(&self, side: usize, i: u64) -> Result<u16, TableError> {
        match self.all[side].get() {
            Some(values) => Ok(values.stored(i)),
            None if self.holds_distances() => self.file.dtm(side, i),
            None => {
                let code = self.file.wdl(side, i)?;
                Ok(self.outcome_of_code(code, side)?.stand_in().to_stored())
            }
        }
    }

    /// The value of `pos`, which must have this table's material in its stored colouring.
    /// `Ok(None)` if the position has no slot (another material, a piece off its points).
    ///
    /// # Errors
    /// [`TableError::NoDistances`] for a table without distances; a damaged block.
    pub fn value(&self, pos: &Position) -> Result<Option<Value>, TableError> {
        if !self.holds_distances() {
            return Err(TableError::NoDistances(self.file.path().to_path_buf()));
        }
        self.value_or_stand_in(pos)
    }

    /// [`Table::value`], with the stand-in distances of [`Table::stored`] in a table without
    /// distances.
    ///
    /// # Errors
    /// A damaged block.
    pub fn value_or_stand_in(&self, pos: &Position) -> Result<Option<Value>, TableError> {
        let Some(i) = self.index.encode(pos) else {
            return Ok(None);
        };
        Ok(Value::from_stored(self.stored(pos.turn().index(), i)?))
    }

    /// The outcome of `pos` (results by the rule told apart): from the WDL section of a
    /// table without distances, else from the value. On the side whose distances a search
    /// gives, not read whole, a win or loss of format 11 on may be one by the
    /// perpetual-check rule ([`RuleCodes::ButCheck`]): [`Tablebase::probe_outcome`] tells.
    ///
    /// # Errors
    /// A damaged block.
    pub fn outcome(&self, pos: &Position) -> Result<Option<Outcome>, TableError> {
        let side = pos.turn().index();
        if self.file.header().stores_distances_of(side) || self.all[side].get().is_some() {
            return Ok(self.value(pos)?.map(Outcome::from));
        }
        let Some(i) = self.index.encode(pos) else {
            return Ok(None);
        };
        let code = self.file.wdl(side, i)?;
        self.outcome_of_code(code, side).map(Some)
    }

    /// The outcome a WDL code of `side` to move stands for.
    ///
    /// # Errors
    /// [`TableError::CorruptPayload`] for a code the table cannot hold (the rules' codes 3 to
    /// 8 occur only in a table without distances, and on the side whose distances a search
    /// gives).
    pub(super) fn outcome_of_code(&self, code: u8, side: usize) -> Result<Outcome, TableError> {
        let rule_codes = self.file.header().rule_codes_of(side);
        let rule = table::rule_of_wdl_code(code).filter(|&(_, r)| rule_codes.tell(r));
        Ok(match (code, rule) {
            (_, Some((true, rule))) => Outcome::WinByRule(rule),
            (_, Some((false, rule))) => Outcome::LossByRule(rule),
            (WDL_LOSS, None) => Outcome::Loss,
            (WDL_DRAW, None) => Outcome::Draw,
            (WDL_WIN, None) => Outcome::Win,
            _ => return Err(TableError::CorruptPayload(self.file.path().to_path_buf())),
        })
    }

    /// Win/draw/loss of `pos` from the compact section.
    pub fn wdl(&self, pos: &Position) -> Result<Option<Wdl>, TableError> {
        let Some(i) = self.index.encode(pos) else {
            return Ok(None);
        };
        let side = pos.turn().index();
        let code = self.file.wdl(side, i)?;
        Ok(Some(Wdl::from(self.outcome_of_code(code, side)?)))
    }

    /// Statistics per side to move from the header.
    pub fn stats(&self) -> &[SideStats; 2] {
        &self.file.header().stats
    }

    /// The rule set the table was generated under.
    pub fn rules(&self) -> &str {
        &self.file.header().rules
    }
}

/// Multiply-rotate hasher for the table map: every probe looks its table up, and material keys
/// are a few small bytes, so SipHash's flooding resistance buys nothing here.
#[derive(Default)]
struct MaterialHasher(u64);

impl MaterialHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for MaterialHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Eight bytes a step: a material key is 14 bytes, and a step is a multiply's latency.
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.mix(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(last));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
}

type TableMap = HashMap<Material, Arc<Table>, std::hash::BuildHasherDefault<MaterialHasher>>;

/// A directory of tables, opened lazily. `Send + Sync`: share one between threads.
pub struct Tablebase {
    dir: PathBuf,
    /// More folders read from (not written to), searched after `dir`.
    also: Vec<PathBuf>,
    rules: RuleSet,
    tables: RwLock<TableMap>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tablebase>();
};

impl Tablebase {
    /// Tables in `dir` under the default rule set (`asian`). The directory need not exist yet.
    pub fn open(dir: impl AsRef<Path>) -> Tablebase {
        Tablebase::with_rules(dir, RuleSet::default())
    }

    /// Tables in `dir` under `rules`; tables of other rule sets in the same folder are never
    /// read (their file names differ, and headers are checked).
    pub fn with_rules(dir: impl AsRef<Path>, rules: RuleSet) -> Tablebase {
        Tablebase {
            dir: dir.as_ref().to_path_buf(),
            also: Vec::new(),
            rules,
            tables: RwLock::new(TableMap::default()),
        }
    }

    /// Tables in several folders under `rules`: each set is read from the first folder that
    /// holds its file; generation writes to the first folder.
    ///
    /// # Panics
    ///
    /// If `dirs` is empty.
    pub fn with_dirs(dirs: &[PathBuf], rules: RuleSet) -> Tablebase {
        let mut tb = Tablebase::with_rules(&dirs[0], rules);
        tb.also = dirs[1..].to_vec();
        tb
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every folder read from, the one written to first.
    pub fn dirs(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.dir.as_path()).chain(self.also.iter().map(PathBuf::as_path))
    }

    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// Where the table of `material` (any colouring) lives: in the first folder that holds
    /// it, else where generation would write it.
    pub fn path_of(&self, material: Material) -> PathBuf {
        let name = table::file_name(&material.canonical().name(), self.rules.name());
        let first = self.dir.join(&name);
        if self.also.is_empty() || first.exists() {
            return first;
        }
        self.also
            .iter()
            .map(|d| d.join(&name))
            .find(|p| p.exists())
            .unwrap_or(first)
    }

    /// True if the file for `material` exists.
    pub fn has(&self, material: Material) -> bool {
        self.path_of(material).exists()
    }

    /// Forgets a loaded table (after it was regenerated).
    pub fn forget(&self, material: Material) {
        let mut tables = self.tables.write().expect("table cache lock");
        tables.remove(&material);
        tables.remove(&material.swapped());
    }

    /// The table of `material` (any colouring; the stored colouring is returned).
    pub fn table(&self, material: Material) -> Result<Arc<Table>, ProbeError> {
        // Both colourings are keys of an open table, so a probe skips finding the canonical one.
        if let Some(t) = self.tables.read().expect("table cache lock").get(&material) {
            return Ok(t.clone());
        }
        let m = material.canonical();
        let path = self.path_of(m);
        if !path.exists() {
            return Err(ProbeError::MissingTable {
                material: m.name(),
                chinese: m.chinese_name(),
                path,
            });
        }
        let file = TableFile::open(&path)?;
        let index = MaterialIndex::new(m);
        let expected = format!(
            "{} rules {} with {} slots",
            m.name(),
            self.rules,
            index.size()
        );
        let h = file.header();
        if self.rules == RuleSet::Asian
            && h.rules == table::CHECK_RULES
            && h.format_version < table::CHASE_RULE_VERSION
        {
            return Err(TableError::CheckOnlyRules {
                path,
                version: h.format_version,
            }
            .into());
        }
        let found = format!("{} rules {} with {} slots", h.material, h.rules, h.slots);
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
            file,
            all: [OnceLock::new(), OnceLock::new()],
        });
        let mut tables = self.tables.write().expect("table cache lock");
        tables.insert(m, t.clone());
        tables.insert(m.swapped(), t.clone());
        Ok(t)
    }

    /// The table of `pos`'s material and the position as the table stores it (colours
    /// swapped if the table keeps the other colouring).
    fn table_and_view(&self, pos: &Position) -> Result<(Arc<Table>, Option<Position>), ProbeError> {
        let material = Material::of_position(pos);
        let table = self.table(material)?;
        let view = (table.material != material).then(|| pos.color_swapped());
        Ok((table, view))
    }

    /// The value (win/draw/loss and distance to mate) of a legal position for its side to
    /// move.
    ///
    /// # Errors
    ///
    /// The position is illegal ([`ProbeError::Position`]: never a neighbour's value), or its
    /// table is missing or damaged.
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        self.probe_dtm(pos)
    }

    /// The value with its distance to mate (same as [`Tablebase::probe`]).
    pub fn probe_dtm(&self, pos: &Position) -> Result<Value, ProbeError> {
        pos.validate().map_err(PositionError::from)?;
        self.probe_unchecked(pos)
    }

    /// [`Tablebase::probe`] without checking that `pos` is legal: for positions known legal
    /// (reached by a legal move from a legal position), where the check would cost. An
    /// illegal position gets the value of whatever slot it maps to, or an error.
    ///
    /// # Errors
    ///
    /// The table is missing or damaged, or has no slot for the position.
    pub fn probe_unchecked(&self, pos: &Position) -> Result<Value, ProbeError> {
        let (table, view) = self.table_and_view(pos)?;
        let p = view.as_ref().unwrap_or(pos);
        let value = match table.searches(p.turn().index()) {
            true => self.searched_value(&table, p)?,
            false => table.value(p)?,
        };
        value.ok_or_else(|| ProbeError::NotInTable {
            material: table.material.name(),
            fen: pos.fen(),
        })
    }

    /// Win, draw or loss for the side to move, from the compact WDL section.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        pos.validate().map_err(PositionError::from)?;
        let (table, view) = self.table_and_view(pos)?;
        table
            .wdl(view.as_ref().unwrap_or(pos))?
            .ok_or_else(|| ProbeError::NotInTable {
                material: table.material.name(),
                fen: pos.fen(),
            })
    }

    /// The outcome (win, draw or loss, results by the rule told apart) of a legal position,
    /// from any table, with distances or without (`--wdl-only`).
    ///
    /// # Errors
    ///
    /// The position is illegal, or its table is missing or damaged.
    pub fn probe_outcome(&self, pos: &Position) -> Result<Outcome, ProbeError> {
        pos.validate().map_err(PositionError::from)?;
        self.outcome_unchecked(pos)
    }

    fn outcome_unchecked(&self, pos: &Position) -> Result<Outcome, ProbeError> {
        let (table, view) = self.table_and_view(pos)?;
        let p = view.as_ref().unwrap_or(pos);
        let outcome = table.outcome(p)?;
        // A win or loss whose code may stand for one by the perpetual-check rule: the search
        // tells.
        let folded =
            table.searches(p.turn().index()) && table.searches_check_results(p.turn().index());
        let outcome = match outcome {
            Some(Outcome::Win | Outcome::Loss) if folded => {
                self.searched_value(&table, p)?.map(Outcome::from)
            }
            other => other,
        };
        outcome.ok_or_else(|| ProbeError::NotInTable {
            material: table.material.name(),
            fen: pos.fen(),
        })
    }

    /// Every legal move with the outcome it leaves for the side to move, best first: what
    /// tables without distances can say of the moves.
    ///
    /// # Errors
    ///
    /// The position is illegal, or a table a move needs is missing or damaged.
    pub fn move_outcomes(&self, pos: &Position) -> Result<Vec<(Move, Outcome)>, ProbeError> {
        moves_by(pos, |after| self.outcome_unchecked(after))
    }

    /// The position's standing and its moves', with distances where every table read holds
    /// them, else outcomes ([`Results`]).
    ///
    /// # Errors
    ///
    /// The position is illegal, or a table it or a move needs is missing or damaged.
    pub fn results(&self, pos: &Position) -> Result<Results, ProbeError> {
        match self
            .probe(pos)
            .and_then(|v| Ok((v, self.move_values(pos)?)))
        {
            Ok((value, moves)) => Ok(Results::Values(value, moves)),
            Err(e) if e.lacks_distances() => Ok(Results::Outcomes(
                self.probe_outcome(pos)?,
                self.move_outcomes(pos)?,
            )),
            Err(e) => Err(e),
        }
    }

    /// Every legal move with the value it leaves for the side to move, best first.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<(Move, Value)>, ProbeError> {
        moves_by(pos, |after| self.probe_unchecked(after))
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

    /// The line of best play (empty for a draw or a position already lost), each side
    /// playing its first best move.
    ///
    /// A mate line ends in the mate. A result decided by a repetition rule has no mate to
    /// reach: the line is the way to a cycle the rule decides against the loser and that
    /// cycle once, as [`crate::cycle::find_rule_cycle`] finds them within
    /// [`LINE_CYCLE_BUDGET`] positions; it ends at the first position that repeats (see
    /// [`repetition_start`]). Where no such cycle is found the sides play best moves until a
    /// position repeats, the winner preferring moves after which the loser has only the
    /// attacks the rule forbids.
    ///
    /// # Errors
    ///
    /// A table the line passes through is missing or damaged.
    pub fn principal_variation(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        if self.probe(pos)? == Value::Draw {
            return Ok(line);
        }
        if self.probe(pos)?.is_by_rule()
            && let Some(c) = crate::cycle::find_rule_cycle(self, pos, LINE_CYCLE_BUDGET)?.found
        {
            line.extend(c.prefix);
            line.extend(c.cycle);
            return Ok(line);
        }
        let mut p = pos.clone();
        let mut seen = std::collections::HashSet::from([board_key(&p)]);
        while let Some(mv) = self.line_move(&p)? {
            line.push(mv);
            p.make(mv);
            if !seen.insert(board_key(&p)) {
                break;
            }
        }
        Ok(line)
    }

    /// The move the line plays from `p`: the first best one, or for the winner by the rule
    /// the first best one that leaves the loser only the attacks the rule forbids (checks,
    /// or checks and chases), if any does.
    fn line_move(&self, p: &Position) -> Result<Option<Move>, ProbeError> {
        let best = self.best_moves(p)?;
        let Value::WinByRule(rule) = self.probe(p)? else {
            return Ok(best.first().copied());
        };
        let forbidden = |pos: &Position, reply: Move| match rule {
            Rule::PerpetualCheck => pos.after(reply).in_check(),
            _ => pos.move_attack(reply) != MoveAttack::Idle,
        };
        for &mv in &best {
            let after = p.after(mv);
            let keeping = self.best_moves(&after)?;
            if keeping.iter().all(|&reply| forbidden(&after, reply)) {
                return Ok(Some(mv));
            }
        }
        Ok(best.first().copied())
    }
}

/// How many positions [`Tablebase::principal_variation`] examines at most to find the cycle
/// of a result decided by a rule.
pub const LINE_CYCLE_BUDGET: usize = 20_000;

/// Every legal move of `pos` with the standing it leaves for the mover, from `probe` of the
/// position after it, best first.
fn moves_by<S: Standing>(
    pos: &Position,
    probe: impl Fn(&Position) -> Result<S, ProbeError>,
) -> Result<Vec<(Move, S)>, ProbeError> {
    pos.validate().map_err(PositionError::from)?;
    let mut out = Vec::new();
    for &mv in pos.legal_moves().iter() {
        // A legal move from a legal position leads to a legal position.
        out.push((mv, probe(&pos.after(mv))?.parent()));
    }
    out.sort_by_key(|&(mv, s)| (-s.goodness(), mv));
    Ok(out)
}

/// The position's board and side to move, without the move counters: what a repetition
/// compares.
fn board_key(p: &Position) -> String {
    let fen = p.fen();
    fen.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// Where the cycle of a line from `start` begins: the ply after which the position that the
/// line's last move reaches first stood (0 = the start), or `None` if the line does not end
/// in a repetition.
pub fn repetition_start(start: &Position, line: &[Move]) -> Option<usize> {
    let mut p = start.clone();
    let mut keys = vec![board_key(&p)];
    for &mv in line {
        p.make(mv);
        keys.push(board_key(&p));
    }
    let last = keys.pop()?;
    keys.iter().position(|k| *k == last)
}
