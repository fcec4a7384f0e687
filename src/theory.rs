//! Endgame theory: the catalogue of named endgames with their book grades, and the grade the
//! tables support.
//!
//! **Quiet positions.** Book grades speak of typical positions, with nothing hanging. canju
//! measures over *quiet* positions: the side to move is not in check and has no capture.
//!
//! **Measured grade.** Let `s` be the smaller of the attacker's win shares over quiet positions
//! with the attacker to move and with the defender to move. Then: `s >= 99.9%` 必胜;
//! `s >= 60%` 例胜; `s >= 10%` 难胜; `s >= 0.5%` 巧胜; `s > 0` 例和; `s = 0` 必和.
//! A book grade *agrees* with the measured one when both are in the same class, a win
//! (必胜 例胜) or mostly drawn (巧胜 难胜 例和 必和); it is *exact* when the grades are equal.

use crate::material::Material;
use crate::probe::{ProbeError, Tablebase};
use crate::rules::Color;
use crate::value::Value;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The catalogue as shipped in the repository (`tables/theory.toml`).
pub const CATALOGUE_TOML: &str = include_str!("../tables/theory.toml");

/// A book grade. In JSON a lower-case code (`always_wins`), with the Chinese term in a field
/// beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    /// 必胜: wins from any position.
    AlwaysWins,
    /// 例胜: a book win with the standard technique.
    BookWin,
    /// 巧胜: normally drawn; particular positions win.
    SpecialWin,
    /// 难胜: hard to win, mostly drawn.
    HardWin,
    /// 例和: a book draw with correct defence.
    BookDraw,
    /// 必和: draws from any position.
    AlwaysDraws,
}

impl Grade {
    /// The Chinese term.
    pub fn chinese(self) -> &'static str {
        match self {
            Grade::AlwaysWins => "必胜",
            Grade::BookWin => "例胜",
            Grade::SpecialWin => "巧胜",
            Grade::HardWin => "难胜",
            Grade::BookDraw => "例和",
            Grade::AlwaysDraws => "必和",
        }
    }

    /// Reads the Chinese term (simplified or traditional).
    pub fn parse(s: &str) -> Option<Grade> {
        Some(match s.trim() {
            "必胜" | "必勝" => Grade::AlwaysWins,
            "例胜" | "例勝" => Grade::BookWin,
            "巧胜" | "巧勝" => Grade::SpecialWin,
            "难胜" | "難勝" => Grade::HardWin,
            "例和" => Grade::BookDraw,
            "必和" => Grade::AlwaysDraws,
            _ => return None,
        })
    }

    /// True for 必胜 and 例胜.
    pub fn is_win_class(self) -> bool {
        matches!(self, Grade::AlwaysWins | Grade::BookWin)
    }

    /// The grade for attacker win share `s` (0..=1) by the rule in the module docs.
    pub fn from_share(s: f64) -> Grade {
        if s >= 0.999 {
            Grade::AlwaysWins
        } else if s >= 0.60 {
            Grade::BookWin
        } else if s >= 0.10 {
            Grade::HardWin
        } else if s >= 0.005 {
            Grade::SpecialWin
        } else if s > 0.0 {
            Grade::BookDraw
        } else {
            Grade::AlwaysDraws
        }
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.chinese())
    }
}

/// One named endgame of the catalogue.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Entry {
    /// Names players use; the first is shown.
    pub chinese: Vec<String>,
    /// ASCII material, attacker first.
    pub material: String,
    /// Book grade (Chinese term).
    pub grade: String,
    /// Remarks.
    #[serde(default)]
    pub note: Option<String>,
    /// Source codes (see the file's header).
    pub source: String,
    /// Measured evidence against the book grade, if any.
    #[serde(default)]
    pub disagreement: Option<String>,
}

impl Entry {
    /// The material set.
    pub fn material(&self) -> Material {
        Material::parse(&self.material).expect("catalogue materials parse")
    }

    /// The book grade.
    pub fn grade(&self) -> Grade {
        Grade::parse(&self.grade).expect("catalogue grades parse")
    }
}

#[derive(Deserialize)]
struct CatalogueFile {
    entry: Vec<Entry>,
}

/// The catalogue of named endgames.
pub struct Catalogue {
    /// Entries in file order.
    pub entries: Vec<Entry>,
}

impl Catalogue {
    /// The catalogue shipped with canju.
    pub fn builtin() -> Catalogue {
        Catalogue::parse(CATALOGUE_TOML).expect("the shipped catalogue is valid")
    }

    /// Reads a catalogue in the `tables/theory.toml` format, checking every material and grade.
    pub fn parse(text: &str) -> Result<Catalogue, String> {
        let file: CatalogueFile = toml::from_str(text).map_err(|e| e.to_string())?;
        for e in &file.entry {
            Material::parse(&e.material).map_err(|err| format!("{}: {err}", e.material))?;
            Grade::parse(&e.grade)
                .ok_or_else(|| format!("{}: unknown grade {}", e.material, e.grade))?;
        }
        Ok(Catalogue {
            entries: file.entry,
        })
    }

    /// The entry for `m` with the same attacker (red) side, if any.
    pub fn find(&self, m: Material) -> Option<&Entry> {
        self.entries.iter().find(|e| e.material() == m)
    }
}

/// Counts over the positions of one side to move, from the attacker's point of view.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Shares {
    /// Positions counted (both mirror images).
    pub positions: u64,
    /// Positions the attacker wins.
    pub attacker_wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions the defender wins.
    pub defender_wins: u64,
}

impl Shares {
    /// The attacker's win share (0 when empty).
    pub fn attacker_share(&self) -> f64 {
        if self.positions == 0 {
            0.0
        } else {
            self.attacker_wins as f64 / self.positions as f64
        }
    }

    fn add(&mut self, o: &Shares) {
        self.positions += o.positions;
        self.attacker_wins += o.attacker_wins;
        self.draws += o.draws;
        self.defender_wins += o.defender_wins;
    }
}

/// What the tables say about one material set.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// ASCII material, attacker first.
    pub material: String,
    /// Chinese name.
    pub chinese: String,
    /// Book grade from the catalogue (None if the catalogue lacks the set).
    pub book_grade: Option<Grade>,
    /// The book grade's Chinese term.
    pub book_grade_chinese: Option<&'static str>,
    /// Grade the tables support (module docs).
    pub measured_grade: Grade,
    /// The measured grade's Chinese term.
    pub measured_grade_chinese: &'static str,
    /// Same class as the book grade (None without a book grade).
    pub agrees: Option<bool>,
    /// Same grade as the book.
    pub exact: Option<bool>,
    /// All legal positions: attacker to move, defender to move (in JSON an object with
    /// `attacker_to_move` and `defender_to_move`).
    #[serde(serialize_with = "by_side")]
    pub all: [Shares; 2],
    /// Quiet positions: attacker to move, defender to move (labelled in JSON as `all`).
    #[serde(serialize_with = "by_side")]
    pub quiet: [Shares; 2],
    /// Quiet positions the attacker does not win (exceptions to a book win), up to 3.
    pub quiet_not_won: Vec<String>,
    /// Quiet positions the attacker wins (exceptions to a book draw), up to 3, longest first.
    pub quiet_won: Vec<String>,
    /// The disagreement the catalogue records for this set, with its evidence.
    pub recorded_disagreement: Option<String>,
    /// False when the table holds no distances (`--wdl-only`): `quiet_won` are then examples,
    /// not the longest wins.
    pub distances: bool,
}

/// Serialises `[attacker to move, defender to move]` with those labels.
fn by_side<S: serde::Serializer>(shares: &[Shares; 2], ser: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = ser.serialize_struct("BySide", 2)?;
    st.serialize_field("attacker_to_move", &shares[0])?;
    st.serialize_field("defender_to_move", &shares[1])?;
    st.end()
}

#[derive(Default)]
struct Acc {
    all: [Shares; 2],
    quiet: [Shares; 2],
    not_won: Vec<String>,
    won: Vec<(u16, String)>,
}

/// Measures `material` (attacker = red as named) through its table.
pub fn verdict(
    tb: &Tablebase,
    material: Material,
    catalogue: &Catalogue,
) -> Result<Verdict, ProbeError> {
    let table = tb.table(material)?;
    if table.searches(0) || table.searches(1) {
        // Every value is read: the searched side's once, whole, rather than per position.
        tb.load_all(&table)?;
    }
    let index = &table.index;
    // In the stored colouring, which side is the attacker.
    let attacker = if table.material == material {
        Color::Red
    } else {
        Color::Black
    };
    let swap = table.material != material;
    let acc = index
        .par_legal_positions()
        .try_fold(Acc::default, |mut a, (i, pos)| -> Result<Acc, ProbeError> {
            let turn = pos.turn();
            // A table without distances (`--wdl-only`) gives a verdict too; its won examples
            // are then not the longest wins, only wins (every distance stands in as 1 or 0).
            let Some(v) = table.value_or_stand_in(&pos)? else {
                return Ok(a);
            };
            let weight = index.mirror_images(i, &pos);
            let k = if turn == attacker { 0 } else { 1 };
            let attacker_wins =
                (v.is_win() && turn == attacker) || (v.is_loss() && turn != attacker);
            let mut s = Shares {
                positions: weight,
                ..Shares::default()
            };
            if attacker_wins {
                s.attacker_wins = weight;
            } else if v == Value::Draw {
                s.draws = weight;
            } else {
                s.defender_wins = weight;
            }
            a.all[k].add(&s);
            let quiet = !pos.in_check() && !pos.legal_moves().iter().any(|&m| pos.is_capture(m));
            if quiet {
                a.quiet[k].add(&s);
                let shown = || {
                    if swap {
                        pos.color_swapped().fen()
                    } else {
                        pos.fen()
                    }
                };
                if !attacker_wins && a.not_won.len() < 3 {
                    a.not_won.push(shown());
                }
                if attacker_wins {
                    let d = match v {
                        Value::Win(d) | Value::Loss(d) => d,
                        _ => u16::MAX,
                    };
                    a.won.push((d, shown()));
                    a.won.sort_by_key(|w| std::cmp::Reverse(w.0));
                    a.won.truncate(3);
                }
            }
            Ok(a)
        })
        .try_reduce(Acc::default, |mut x, y| {
            for k in 0..2 {
                x.all[k].add(&y.all[k]);
                x.quiet[k].add(&y.quiet[k]);
            }
            x.not_won.extend(y.not_won);
            x.not_won.truncate(3);
            x.won.extend(y.won);
            x.won.sort_by_key(|w| std::cmp::Reverse(w.0));
            x.won.truncate(3);
            Ok(x)
        })?;
    let s = acc.quiet[0]
        .attacker_share()
        .min(acc.quiet[1].attacker_share());
    let measured = Grade::from_share(s);
    let book = catalogue.find(material).map(|e| e.grade());
    Ok(Verdict {
        material: material.name(),
        chinese: catalogue
            .find(material)
            .map(|e| e.chinese[0].clone())
            .unwrap_or_else(|| material.chinese_name()),
        book_grade: book,
        book_grade_chinese: book.map(Grade::chinese),
        measured_grade: measured,
        measured_grade_chinese: measured.chinese(),
        agrees: book.map(|b| b.is_win_class() == measured.is_win_class()),
        exact: book.map(|b| b == measured),
        all: acc.all,
        quiet: acc.quiet,
        quiet_not_won: acc.not_won,
        quiet_won: acc.won.into_iter().map(|(_, f)| f).collect(),
        recorded_disagreement: catalogue
            .find(material)
            .and_then(|e| e.disagreement.clone()),
        distances: table.holds_distances(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_parses_and_grades_map() {
        let c = Catalogue::builtin();
        assert!(c.entries.len() >= 40);
        assert_eq!(
            c.find(Material::parse("KNK").unwrap()).unwrap().grade(),
            Grade::AlwaysWins
        );
        assert_eq!(Grade::from_share(1.0), Grade::AlwaysWins);
        assert_eq!(Grade::from_share(0.0), Grade::AlwaysDraws);
        assert_eq!(Grade::from_share(0.7), Grade::BookWin);
        assert!(
            Catalogue::parse(
                "[[entry]]\nchinese=[\"x\"]\nmaterial=\"KXK\"\ngrade=\"例和\"\nsource=\"-\""
            )
            .is_err()
        );
    }
}
