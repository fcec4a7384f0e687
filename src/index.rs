//! Position <-> index for one material set.
//!
//! Layout: each side's general, advisors and elephants form one enumerated list of placements
//! (K+AA+BB has 1,470); the pair (red placement, black placement) is reduced by the left-right
//! mirror, keeping only pairs that are not larger than their mirror image. Rooks, horses and
//! cannons of one colour and kind take an unordered combination of the 90 points, pawns of the
//! 55 points a pawn of that colour can reach. The index is
//! `pair * radix + (combination indices in mixed radix)`.
//!
//! Some slots are unused: pieces on one point, and for mirror-symmetric pairs the image of a
//! slot that already has a smaller index. [`MaterialIndex::decode`] returns `None` for the first;
//! callers detect the second by re-encoding.

use crate::material::Material;
use crate::rules::{Color, Piece, Position, Role, Square};

const NONE16: u16 = u16::MAX;
const NONE32: u32 = u32::MAX;

/// Binomial coefficients C(n, k) for n <= 90, k <= 5.
const fn build_binomials() -> [[u64; 6]; 91] {
    let mut t = [[0u64; 6]; 91];
    let mut n = 0;
    while n <= 90 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 5 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}
static BINOMIAL: [[u64; 6]; 91] = build_binomials();

/// Index of a sorted combination `ords` (strictly increasing) in the combinatorial number system.
#[inline]
fn combo_index(ords: &[u8]) -> u64 {
    ords.iter()
        .enumerate()
        .map(|(i, &o)| BINOMIAL[o as usize][i + 1])
        .sum()
}

/// Inverse of [`combo_index`] for `k` elements.
fn combo_decode(mut idx: u64, k: usize, out: &mut [u8]) {
    let mut top = 90usize;
    for i in (0..k).rev() {
        // Largest o with C(o, i+1) <= idx.
        let mut o = top.min(90);
        while BINOMIAL[o][i + 1] > idx {
            o -= 1;
        }
        out[i] = o as u8;
        idx -= BINOMIAL[o][i + 1];
        top = o;
    }
}

/// The points a piece of `color` and `role` can stand on, in square order.
fn points(color: Color, role: Role) -> Vec<u8> {
    let piece = Piece::new(color, role);
    Square::all()
        .filter(|&s| piece.can_stand_on(s))
        .map(|s| s.index() as u8)
        .collect()
}

/// The placements of one side's general, advisors and elephants.
struct Defenders {
    color: Color,
    advisors: usize,
    elephants: usize,
    palace: Vec<u8>,
    advisor_points: Vec<u8>,
    elephant_points: Vec<u8>,
    /// Ordinal of each square among the palace / advisor / elephant points.
    palace_ord: [u8; 90],
    advisor_ord: [u8; 90],
    elephant_ord: [u8; 90],
    /// Squares of each placement: general, advisors, elephants.
    placements: Vec<[u8; 5]>,
    raw_to_placement: Vec<u16>,
    mirror: Vec<u16>,
}

impl Defenders {
    fn new(color: Color, advisors: usize, elephants: usize) -> Defenders {
        let palace = points(color, Role::General);
        let advisor_points = points(color, Role::Advisor);
        let elephant_points = points(color, Role::Elephant);
        let ord = |pts: &[u8]| {
            let mut t = [0xFFu8; 90];
            for (i, &p) in pts.iter().enumerate() {
                t[p as usize] = i as u8;
            }
            t
        };
        let mut d = Defenders {
            color,
            advisors,
            elephants,
            palace_ord: ord(&palace),
            advisor_ord: ord(&advisor_points),
            elephant_ord: ord(&elephant_points),
            palace,
            advisor_points,
            elephant_points,
            placements: vec![],
            raw_to_placement: vec![],
            mirror: vec![],
        };
        let na = BINOMIAL[5][advisors] as usize;
        let ne = BINOMIAL[7][elephants] as usize;
        d.raw_to_placement = vec![NONE16; 9 * na * ne];
        let mut a = [0u8; 5];
        let mut e = [0u8; 5];
        for k in 0..9 {
            for ai in 0..na {
                combo_decode(ai as u64, advisors, &mut a);
                let ksq = d.palace[k];
                let asq: Vec<u8> = a[..advisors]
                    .iter()
                    .map(|&o| d.advisor_points[o as usize])
                    .collect();
                if asq.contains(&ksq) {
                    continue;
                }
                for ei in 0..ne {
                    combo_decode(ei as u64, elephants, &mut e);
                    let mut sq = [0u8; 5];
                    sq[0] = ksq;
                    sq[1..1 + advisors].copy_from_slice(&asq);
                    for j in 0..elephants {
                        sq[1 + advisors + j] = d.elephant_points[e[j] as usize];
                    }
                    let raw = (k * na + ai) * ne + ei;
                    d.raw_to_placement[raw] = d.placements.len() as u16;
                    d.placements.push(sq);
                }
            }
        }
        d.mirror = (0..d.placements.len())
            .map(|i| {
                let m: Vec<u8> = d.placements[i][..d.len()]
                    .iter()
                    .map(|&s| Square::from_index(s as usize).unwrap().mirror().index() as u8)
                    .collect();
                d.lookup(m[0], &m[1..1 + advisors], &m[1 + advisors..])
            })
            .collect();
        d
    }

    fn len(&self) -> usize {
        1 + self.advisors + self.elephants
    }

    /// Placement index of a general square and (unsorted) advisor and elephant squares.
    fn lookup(&self, general: u8, advisors: &[u8], elephants: &[u8]) -> u16 {
        let k = self.palace_ord[general as usize];
        if k == 0xFF {
            return NONE16;
        }
        let mut a = [0u8; 5];
        for (i, &s) in advisors.iter().enumerate() {
            a[i] = self.advisor_ord[s as usize];
            if a[i] == 0xFF {
                return NONE16;
            }
        }
        let mut e = [0u8; 5];
        for (i, &s) in elephants.iter().enumerate() {
            e[i] = self.elephant_ord[s as usize];
            if e[i] == 0xFF {
                return NONE16;
            }
        }
        a[..advisors.len()].sort_unstable();
        e[..elephants.len()].sort_unstable();
        let na = BINOMIAL[5][self.advisors] as usize;
        let ne = BINOMIAL[7][self.elephants] as usize;
        let raw = (k as usize * na + combo_index(&a[..advisors.len()]) as usize) * ne
            + combo_index(&e[..elephants.len()]) as usize;
        self.raw_to_placement[raw]
    }
}

/// Rooks, horses, cannons or pawns of one colour and kind.
struct Group {
    color: Color,
    role: Role,
    count: usize,
    points: Vec<u8>,
    point_ord: [u8; 90],
    combos: u64,
}

/// The index of one material set.
pub struct MaterialIndex {
    material: Material,
    defenders: [Defenders; 2],
    pairs: Vec<(u16, u16)>,
    pair_of: Vec<u32>,
    pair_symmetric: Vec<bool>,
    groups: Vec<Group>,
    radix: u64,
    size: u64,
}

/// Squares of the pieces of one position, gathered by colour and kind.
#[derive(Default)]
struct Gathered {
    squares: [[[u8; 5]; 7]; 2],
    counts: [[usize; 7]; 2],
}

impl Gathered {
    fn of(pos: &Position) -> Gathered {
        let mut g = Gathered::default();
        for (sq, p) in pos.pieces() {
            let (c, r) = (p.color.index(), p.role.index());
            if g.counts[c][r] < 5 {
                g.squares[c][r][g.counts[c][r]] = sq.index() as u8;
            }
            g.counts[c][r] += 1;
        }
        g
    }

    fn get(&self, color: Color, role: Role) -> &[u8] {
        let n = self.counts[color.index()][role.index()].min(5);
        &self.squares[color.index()][role.index()][..n]
    }

    fn mirrored(&self) -> Gathered {
        let mut g = Gathered {
            squares: self.squares,
            counts: self.counts,
        };
        for c in 0..2 {
            for r in 0..7 {
                for i in 0..self.counts[c][r].min(5) {
                    let s = self.squares[c][r][i];
                    g.squares[c][r][i] = (s / 9) * 9 + 8 - s % 9;
                }
            }
        }
        g
    }
}

impl MaterialIndex {
    /// Builds the index of `material` (any colouring).
    pub fn new(material: Material) -> MaterialIndex {
        let defenders = Color::ALL.map(|c| {
            Defenders::new(
                c,
                material.count(c, Role::Advisor) as usize,
                material.count(c, Role::Elephant) as usize,
            )
        });
        let (nr, nb) = (defenders[0].placements.len(), defenders[1].placements.len());
        let mut pairs = vec![];
        let mut pair_symmetric = vec![];
        let mut pair_of = vec![NONE32; nr * nb];
        for r in 0..nr {
            for b in 0..nb {
                let m = (
                    defenders[0].mirror[r] as usize,
                    defenders[1].mirror[b] as usize,
                );
                if m >= (r, b) {
                    pair_of[r * nb + b] = pairs.len() as u32;
                    pairs.push((r as u16, b as u16));
                    pair_symmetric.push(m == (r, b));
                }
            }
        }
        let mut groups = vec![];
        for c in Color::ALL {
            for role in [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn] {
                let count = material.count(c, role) as usize;
                if count == 0 {
                    continue;
                }
                let pts = points(c, role);
                let mut point_ord = [0xFFu8; 90];
                for (i, &p) in pts.iter().enumerate() {
                    point_ord[p as usize] = i as u8;
                }
                groups.push(Group {
                    color: c,
                    role,
                    count,
                    combos: BINOMIAL[pts.len()][count],
                    points: pts,
                    point_ord,
                });
            }
        }
        let radix: u64 = groups.iter().map(|g| g.combos).product();
        let size = pairs.len() as u64 * radix;
        MaterialIndex {
            material,
            defenders,
            pairs,
            pair_of,
            pair_symmetric,
            groups,
            radix,
            size,
        }
    }

    /// The material set indexed.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of slots (used or not) for one side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The position in slot `index` with `turn` to move, or `None` if two pieces would share a
    /// point. The position may still be illegal (a side in check, generals facing) or be the
    /// mirror duplicate of a smaller slot.
    pub fn decode(&self, index: u64, turn: Color) -> Option<Position> {
        if index >= self.size {
            return None;
        }
        let mut pos = Position::empty(turn);
        let (pair, mut rest) = (index / self.radix, index % self.radix);
        let (r, b) = self.pairs[pair as usize];
        for (d, p) in self.defenders.iter().zip([r, b]) {
            let sq = &d.placements[p as usize];
            for (i, &s) in sq[..d.len()].iter().enumerate() {
                let role = if i == 0 {
                    Role::General
                } else if i <= d.advisors {
                    Role::Advisor
                } else {
                    Role::Elephant
                };
                if pos.board[s as usize].is_some() {
                    return None;
                }
                pos.put(Square::from_index_unchecked(s), Piece::new(d.color, role));
            }
        }
        // Groups in mixed radix, the last group varying fastest.
        let mut ords = [0u8; 5];
        let mut digits = [0u64; 8];
        for (gi, g) in self.groups.iter().enumerate().rev() {
            digits[gi] = rest % g.combos;
            rest /= g.combos;
        }
        for (gi, g) in self.groups.iter().enumerate() {
            combo_decode(digits[gi], g.count, &mut ords);
            for &o in &ords[..g.count] {
                let s = g.points[o as usize] as usize;
                if pos.board[s].is_some() {
                    return None;
                }
                pos.board[s] = Some(Piece::new(g.color, g.role));
            }
        }
        Some(pos)
    }

    /// The slot of `pos` (its side to move is not part of the index). `None` if the position
    /// does not have this material or a piece stands where its kind never can.
    pub fn encode(&self, pos: &Position) -> Option<u64> {
        let g = Gathered::of(pos);
        for c in Color::ALL {
            for role in Role::ALL {
                if g.counts[c.index()][role.index()] != self.material.count(c, role) as usize {
                    return None;
                }
            }
        }
        let direct = self.pair_placements(&g)?;
        let mirrored_g = g.mirrored();
        let mirrored = self.pair_placements(&mirrored_g)?;
        use std::cmp::Ordering::*;
        match direct.cmp(&mirrored) {
            Less => self.encode_gathered(&g, direct),
            Greater => self.encode_gathered(&mirrored_g, mirrored),
            Equal => {
                let a = self.encode_gathered(&g, direct)?;
                let b = self.encode_gathered(&mirrored_g, mirrored)?;
                Some(a.min(b))
            }
        }
    }

    fn pair_placements(&self, g: &Gathered) -> Option<(usize, usize)> {
        let mut p = [0usize; 2];
        for (i, d) in self.defenders.iter().enumerate() {
            let c = d.color;
            let k = g.get(c, Role::General)[0];
            let v = d.lookup(k, g.get(c, Role::Advisor), g.get(c, Role::Elephant));
            if v == NONE16 {
                return None;
            }
            p[i] = v as usize;
        }
        Some((p[0], p[1]))
    }

    fn encode_gathered(&self, g: &Gathered, (r, b): (usize, usize)) -> Option<u64> {
        let nb = self.defenders[1].placements.len();
        let pair = self.pair_of[r * nb + b];
        if pair == NONE32 {
            return None;
        }
        let mut index = pair as u64;
        for grp in &self.groups {
            let sq = g.get(grp.color, grp.role);
            let mut ords = [0u8; 5];
            for (i, &s) in sq.iter().enumerate() {
                ords[i] = grp.point_ord[s as usize];
                if ords[i] == 0xFF {
                    return None;
                }
            }
            ords[..grp.count].sort_unstable();
            index = index * grp.combos + combo_index(&ords[..grp.count]);
        }
        Some(index)
    }

    /// True if the slot's defender pair is its own mirror image (both mirror images of such
    /// slots are in the index; the larger one is unused).
    pub fn is_symmetric_slot(&self, index: u64) -> bool {
        self.pair_symmetric[(index / self.radix) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_round_trip() {
        let mut out = [0u8; 5];
        for k in 1..=3 {
            for idx in 0..BINOMIAL[20][k] {
                combo_decode(idx, k, &mut out);
                assert!(out[..k].windows(2).all(|w| w[0] < w[1]));
                assert_eq!(combo_index(&out[..k]), idx);
            }
        }
    }

    #[test]
    fn defender_counts() {
        assert_eq!(Defenders::new(Color::Red, 0, 0).placements.len(), 9);
        assert_eq!(Defenders::new(Color::Red, 2, 2).placements.len(), 1470);
        assert_eq!(
            MaterialIndex::new(Material::parse("KRK").unwrap()).size(),
            45 * 90
        );
    }
}
