//! Material sets: which pieces each side has, named in ASCII (`KRNKRAABB`) or Chinese
//! (`车马对车士象全`), in a canonical colouring, with the sets reached by a capture.

use crate::rules::{Color, Position, Role};
use std::fmt;
use thiserror::Error;

/// Kinds other than the general, in the order material names list them: R N C P A B.
pub const NAME_ORDER: [Role; 6] = [
    Role::Rook,
    Role::Horse,
    Role::Cannon,
    Role::Pawn,
    Role::Advisor,
    Role::Elephant,
];

/// Why a material name could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MaterialError {
    /// Nothing to read.
    #[error("empty material name")]
    Empty,
    /// An ASCII name must have exactly two `K`s, the first one leading.
    #[error("'{0}': an ASCII material name has each side start with K, e.g. KRNKRAABB")]
    Generals(String),
    /// A letter or character that names no piece.
    #[error("'{name}': unknown piece '{ch}'")]
    UnknownPiece {
        /// The whole name.
        name: String,
        /// The character.
        ch: char,
    },
    /// More pieces of a kind than the game has.
    #[error("'{name}': {color} has {count} {role}s, at most {max}")]
    TooMany {
        /// The whole name.
        name: String,
        /// Whose.
        color: Color,
        /// Which kind.
        role: Role,
        /// How many were named.
        count: u8,
        /// The game's limit.
        max: u8,
    },
    /// A Chinese name needs `对` between the sides.
    #[error("'{0}': a Chinese material name has two sides joined by 对, e.g. 车马对车士象全")]
    ChineseSides(String),
}

/// The pieces of both sides (each side always has its general).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    counts: [[u8; 7]; 2],
}

impl Material {
    /// Material with only the two generals.
    pub fn bare() -> Material {
        let mut counts = [[0; 7]; 2];
        counts[0][Role::General.index()] = 1;
        counts[1][Role::General.index()] = 1;
        Material { counts }
    }

    /// The material on the board of `pos`.
    pub fn of_position(pos: &Position) -> Material {
        let mut m = Material {
            counts: [[0; 7]; 2],
        };
        for (_, p) in pos.pieces() {
            m.counts[p.color.index()][p.role.index()] += 1;
        }
        m
    }

    /// Parses an ASCII (`KRKAA`, `KRvKAA`, `KRK` with `H`/`E` accepted) or Chinese
    /// (`车对双士`, `马对单将`, `车马对车士象全`) name.
    pub fn parse(name: &str) -> Result<Material, MaterialError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(MaterialError::Empty);
        }
        if name.is_ascii() {
            Self::parse_ascii(name)
        } else {
            Self::parse_chinese(name)
        }
    }

    fn parse_ascii(name: &str) -> Result<Material, MaterialError> {
        let letters: String = name
            .chars()
            .filter(|c| *c != 'v' && *c != '-' && *c != ' ')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if !letters.starts_with('K') || letters.matches('K').count() != 2 {
            return Err(MaterialError::Generals(name.to_string()));
        }
        let mut m = Material::bare();
        let mut side = 0usize;
        for (i, ch) in letters.chars().enumerate() {
            let role = Role::from_letter(ch).ok_or_else(|| MaterialError::UnknownPiece {
                name: name.to_string(),
                ch,
            })?;
            if role == Role::General {
                side = if i == 0 { 0 } else { 1 };
                continue;
            }
            m.counts[side][role.index()] += 1;
        }
        m.check_counts(name)
    }

    fn parse_chinese(name: &str) -> Result<Material, MaterialError> {
        let sides: Vec<&str> = name.split(['对', '對']).collect();
        if sides.len() != 2 {
            return Err(MaterialError::ChineseSides(name.to_string()));
        }
        let mut m = Material::bare();
        for (s, text) in sides.iter().enumerate() {
            parse_chinese_side(name, text, &mut m.counts[s])?;
        }
        m.check_counts(name)
    }

    fn check_counts(self, name: &str) -> Result<Material, MaterialError> {
        for color in Color::ALL {
            for role in Role::ALL {
                let count = self.counts[color.index()][role.index()];
                if count > role.max_count() {
                    return Err(MaterialError::TooMany {
                        name: name.to_string(),
                        color,
                        role,
                        count,
                        max: role.max_count(),
                    });
                }
            }
        }
        Ok(self)
    }

    /// How many pieces of `role` `color` has.
    #[inline]
    pub fn count(&self, color: Color, role: Role) -> u8 {
        self.counts[color.index()][role.index()]
    }

    /// Number of men on the board, generals included.
    pub fn men(&self) -> u32 {
        self.counts.iter().flatten().map(|&c| c as u32).sum()
    }

    /// The same material with colours exchanged.
    pub fn swapped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    fn side_key(&self, color: Color) -> (u32, u32, [u8; 16]) {
        let value = |r: Role| match r {
            Role::Rook => 9,
            Role::Horse => 4,
            Role::Cannon => 5,
            Role::Pawn => 2,
            Role::Advisor | Role::Elephant => 1,
            Role::General => 0,
        };
        let c = &self.counts[color.index()];
        let attack: u32 = Role::ALL
            .iter()
            .filter(|r| r.is_attacker())
            .map(|&r| c[r.index()] as u32 * value(r))
            .sum();
        let all: u32 = Role::ALL
            .iter()
            .map(|&r| c[r.index()] as u32 * value(r))
            .sum();
        // The side's name (K, then R N C P A B by count) as bytes, compared like the string.
        let mut name = [0u8; 16];
        name[0] = b'K';
        let mut n = 1;
        for role in NAME_ORDER {
            for _ in 0..c[role.index()] {
                if n < name.len() {
                    name[n] = role.letter() as u8;
                    n += 1;
                }
            }
        }
        (attack, all, name)
    }

    /// True if this colouring is the one tables are stored in: red is the stronger side
    /// (more attacking value, then more value, then the larger name).
    pub fn is_canonical(&self) -> bool {
        self.side_key(Color::Red) >= self.side_key(Color::Black)
    }

    /// The colouring tables are stored in.
    pub fn canonical(&self) -> Material {
        if self.is_canonical() {
            *self
        } else {
            self.swapped()
        }
    }

    /// True if both sides have the same pieces.
    pub fn is_symmetric(&self) -> bool {
        self.counts[0] == self.counts[1]
    }

    fn side_name(&self, color: Color) -> String {
        let mut s = String::from("K");
        for role in NAME_ORDER {
            for _ in 0..self.count(color, role) {
                s.push(role.letter());
            }
        }
        s
    }

    /// The ASCII name, red's side first: `KRNKRAABB`.
    pub fn name(&self) -> String {
        format!(
            "{}{}",
            self.side_name(Color::Red),
            self.side_name(Color::Black)
        )
    }

    /// The name as players write it: `车马对车士象全`, `马对单将`.
    pub fn chinese_name(&self) -> String {
        format!(
            "{}对{}",
            self.chinese_side(Color::Red),
            self.chinese_side(Color::Black)
        )
    }

    fn chinese_side(&self, color: Color) -> String {
        let c = |r| self.count(color, r);
        let mut s = String::new();
        for (role, ch) in [
            (Role::Rook, '车'),
            (Role::Horse, '马'),
            (Role::Cannon, '炮'),
            (Role::Pawn, '兵'),
        ] {
            match c(role) {
                0 => {}
                1 => s.push(ch),
                2 => {
                    s.push('双');
                    s.push(ch);
                }
                n => {
                    s.push(['三', '四', '五'][n as usize - 3]);
                    s.push(ch);
                }
            }
        }
        let (a, b) = (c(Role::Advisor), c(Role::Elephant));
        match (a, b) {
            (2, 2) => s.push_str("士象全"),
            (2, 1) => s.push_str("单缺象"),
            (1, 2) => s.push_str("单缺士"),
            _ => {
                for (n, ch) in [(a, '士'), (b, '象')] {
                    match n {
                        0 => {}
                        1 if s.is_empty() && a + b == 1 => {
                            s.push('单');
                            s.push(ch)
                        }
                        1 => s.push(ch),
                        _ => {
                            s.push('双');
                            s.push(ch)
                        }
                    }
                }
            }
        }
        if s.is_empty() {
            s.push_str("单将");
        }
        s
    }

    /// The material after `color` loses one `role` (None if it has none, or for the general).
    pub fn after_capture(&self, color: Color, role: Role) -> Option<Material> {
        if role == Role::General || self.count(color, role) == 0 {
            return None;
        }
        let mut m = *self;
        m.counts[color.index()][role.index()] -= 1;
        Some(m)
    }

    /// Every set reached by one capture, in canonical colouring, without repeats.
    pub fn subsets(&self) -> Vec<Material> {
        let mut out: Vec<Material> = Color::ALL
            .iter()
            .flat_map(|&c| NAME_ORDER.iter().map(move |&r| (c, r)))
            .filter_map(|(c, r)| self.after_capture(c, r))
            .map(|m| m.canonical())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// This set and everything reachable from it by captures, smallest first (the order to
    /// generate them in).
    pub fn closure(&self) -> Vec<Material> {
        let mut all = vec![self.canonical()];
        let mut i = 0;
        while i < all.len() {
            for s in all[i].subsets() {
                if !all.contains(&s) {
                    all.push(s);
                }
            }
            i += 1;
        }
        sort_dependency_order(&mut all);
        all
    }

    /// Every canonical set with at most `men` men (generals included), smallest first.
    pub fn all_up_to(men: u32) -> Vec<Material> {
        let mut sides: Vec<[u8; 7]> = vec![];
        let extra = men.saturating_sub(2) as u8;
        let mut c = [0u8; 7];
        c[Role::General.index()] = 1;
        fn rec(i: usize, left: u8, c: &mut [u8; 7], out: &mut Vec<[u8; 7]>) {
            if i == NAME_ORDER.len() {
                out.push(*c);
                return;
            }
            let role = NAME_ORDER[i];
            for n in 0..=role.max_count().min(left) {
                c[role.index()] = n;
                rec(i + 1, left - n, c, out);
            }
            c[role.index()] = 0;
        }
        rec(0, extra, &mut c, &mut sides);
        let mut all = vec![];
        for r in &sides {
            for b in &sides {
                let m = Material { counts: [*r, *b] };
                if m.men() <= men && m.is_canonical() {
                    all.push(m);
                }
            }
        }
        sort_dependency_order(&mut all);
        all.dedup();
        all
    }
}

/// Sorts sets so every set comes after the sets its captures lead to.
pub fn sort_dependency_order(sets: &mut [Material]) {
    sets.sort_by_key(|m| (m.men(), m.name()));
}

fn parse_chinese_side(name: &str, text: &str, counts: &mut [u8; 7]) -> Result<(), MaterialError> {
    let mut pending: Option<u8> = None;
    let mut adjectives = 0u8;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        let rest: String = chars[i..].iter().collect();
        if rest.starts_with("士象全") {
            counts[Role::Advisor.index()] += 2;
            counts[Role::Elephant.index()] += 2;
            i += 3;
            continue;
        }
        if rest.starts_with("单缺象") || rest.starts_with("單缺象") {
            counts[Role::Advisor.index()] += 2;
            counts[Role::Elephant.index()] += 1;
            i += 3;
            continue;
        }
        if rest.starts_with("单缺士") || rest.starts_with("單缺士") {
            counts[Role::Advisor.index()] += 1;
            counts[Role::Elephant.index()] += 2;
            i += 3;
            continue;
        }
        let number = match ch {
            '单' | '單' | '一' => Some(1),
            '双' | '雙' | '两' | '兩' | '二' => Some(2),
            '三' => Some(3),
            '四' => Some(4),
            '五' => Some(5),
            _ => None,
        };
        if let Some(n) = number {
            pending = Some(n);
            i += 1;
            continue;
        }
        if matches!(ch, '高' | '低' | '底') {
            adjectives += 1;
            i += 1;
            continue;
        }
        if matches!(ch, '过' | '過' | '河' | ' ' | '、' | '+') {
            i += 1;
            continue;
        }
        let role = match ch {
            '车' | '車' | '俥' | '伡' => Role::Rook,
            '马' | '馬' | '傌' | '㐷' => Role::Horse,
            '炮' | '砲' | '包' => Role::Cannon,
            '兵' | '卒' => Role::Pawn,
            '士' | '仕' => Role::Advisor,
            '象' | '相' => Role::Elephant,
            '将' | '將' | '帅' | '帥' => Role::General,
            _ => {
                return Err(MaterialError::UnknownPiece {
                    name: name.to_string(),
                    ch,
                });
            }
        };
        let n = pending.take().unwrap_or(adjectives.max(1));
        adjectives = 0;
        if role != Role::General {
            counts[role.index()] += n;
        }
        i += 1;
    }
    Ok(())
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Material({})", self.name())
    }
}

impl std::str::FromStr for Material {
    type Err = MaterialError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Material::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_and_chinese_names_agree() {
        let pairs = [
            ("KRNKRAABB", "车马对车士象全"),
            ("KNK", "单马对单将"),
            ("KNK", "马对将"),
            ("KCBBK", "炮双相对单将"),
            ("KRKAA", "车对双士"),
            ("KNPKA", "马兵对单士"),
            ("KPPKAA", "高低兵对双士"),
            ("KPPPKAABB", "三高兵对士象全"),
            ("KNPKAAB", "马兵对单缺象"),
        ];
        for (ascii, chinese) in pairs {
            let a = Material::parse(ascii).unwrap();
            let c = Material::parse(chinese).unwrap();
            assert_eq!(a, c, "{ascii} vs {chinese}");
            assert_eq!(a.name(), ascii);
            assert_eq!(Material::parse(&a.chinese_name()).unwrap(), a);
        }
        assert_eq!(Material::parse("KHKE").unwrap().name(), "KNKB");
        assert_eq!(Material::parse("KRvKAA").unwrap().name(), "KRKAA");
    }

    #[test]
    fn bad_names_give_errors() {
        assert!(matches!(Material::parse(""), Err(MaterialError::Empty)));
        assert!(matches!(
            Material::parse("RK"),
            Err(MaterialError::Generals(_))
        ));
        assert!(matches!(
            Material::parse("KXK"),
            Err(MaterialError::UnknownPiece { .. })
        ));
        assert!(matches!(
            Material::parse("KRRRK"),
            Err(MaterialError::TooMany { .. })
        ));
        assert!(matches!(
            Material::parse("车马车士"),
            Err(MaterialError::ChineseSides(_))
        ));
        assert!(matches!(
            Material::parse("龙对将"),
            Err(MaterialError::UnknownPiece { .. })
        ));
    }

    #[test]
    fn canonical_colouring_and_subsets() {
        let m = Material::parse("KKN").unwrap();
        assert_eq!(m.canonical().name(), "KNK");
        let m = Material::parse("KRNKRAABB").unwrap();
        assert!(m.is_canonical());
        let mut subs: Vec<String> = Material::parse("KRKA")
            .unwrap()
            .subsets()
            .iter()
            .map(|m| m.name())
            .collect();
        subs.sort();
        assert_eq!(subs, vec!["KAK".to_string(), "KRK".to_string()]);
    }

    #[test]
    fn set_counts_up_to_four_men() {
        // Each side: K plus 0-2 of {R,N,C,A,B} and 0-2 pawns, total extra <= men-2.
        let sets = Material::all_up_to(3);
        // K+X vs K for 6 kinds, plus KK.
        assert_eq!(sets.len(), 7);
        let four = Material::all_up_to(4);
        assert!(four.iter().all(|m| m.is_canonical() && m.men() <= 4));
        let mut names: Vec<String> = four.iter().map(|m| m.name()).collect();
        names.dedup();
        assert_eq!(names.len(), four.len());
        // Dependency order: every subset comes earlier.
        for (i, m) in four.iter().enumerate() {
            for s in m.subsets() {
                assert!(four[..i].contains(&s), "{m} needs {s}");
            }
        }
    }
}
