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
use rayon::prelude::*;

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
#[inline]
fn combo_decode(mut idx: u64, k: usize, out: &mut [u8]) {
    if k == 1 {
        // C(o, 1) = o.
        out[0] = idx as u8;
        return;
    }
    let mut top = 90usize;
    for i in (0..k).rev() {
        // Largest o < top (o = top only at the start) with C(o, i+1) <= idx, by bisection:
        // C(o, i+1) grows with o.
        let (mut lo, mut hi) = (i, top);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if BINOMIAL[mid][i + 1] <= idx {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        out[i] = lo as u8;
        idx -= BINOMIAL[lo][i + 1];
        top = lo;
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
    /// The placement of each general, advisor and elephant ordinal list as it stands (not
    /// sorted): the general's ordinal, then each advisor's in base 5 and each elephant's in
    /// base 7 ([`NONE16`] where two share a point), so a look-up sorts nothing.
    by_ordinals: Vec<u16>,
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
            by_ordinals: vec![],
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
        d.by_ordinals = d.ordinal_table();
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

    /// [`Defenders::by_ordinals`], from the placements by sorted ordinals.
    fn ordinal_table(&self) -> Vec<u16> {
        let size = 9 * 5usize.pow(self.advisors as u32) * 7usize.pow(self.elephants as u32);
        (0..size)
            .map(|mut raw| {
                let mut digits = |count: usize, base: usize, points: &[u8]| {
                    let mut sq = vec![0u8; count];
                    for s in sq.iter_mut().rev() {
                        *s = points[raw % base];
                        raw /= base;
                    }
                    sq
                };
                let elephants = digits(self.elephants, 7, &self.elephant_points);
                let advisors = digits(self.advisors, 5, &self.advisor_points);
                let general = self.palace[raw];
                let distinct = |sq: &[u8]| sq.len() < 2 || sq[0] != sq[1];
                if distinct(&advisors) && distinct(&elephants) {
                    self.lookup_sorting(general, &advisors, &elephants)
                } else {
                    NONE16
                }
            })
            .collect()
    }

    /// Placement index of a general square and (unsorted) advisor and elephant squares.
    #[inline]
    fn lookup(&self, general: u8, advisors: &[u8], elephants: &[u8]) -> u16 {
        let mut raw = self.palace_ord[general as usize] as usize;
        if raw == 0xFF {
            return NONE16;
        }
        for &s in advisors {
            let o = self.advisor_ord[s as usize] as usize;
            if o == 0xFF {
                return NONE16;
            }
            raw = raw * 5 + o;
        }
        for &s in elephants {
            let o = self.elephant_ord[s as usize] as usize;
            if o == 0xFF {
                return NONE16;
            }
            raw = raw * 7 + o;
        }
        self.by_ordinals[raw]
    }

    /// As [`Defenders::lookup`], by sorting the ordinals (builds the look-up's table).
    fn lookup_sorting(&self, general: u8, advisors: &[u8], elephants: &[u8]) -> u16 {
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

/// Division by a number fixed when the index is built, done by a multiplication: decoding a
/// slot divides once per group, and a hardware division takes several times as long.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    d: u64,
    /// floor(2^64 / d), or `u64::MAX` for 1: the quotient it gives is short by at most one.
    m: u64,
}

impl Divisor {
    /// Division by `d` (at least 1).
    fn new(d: u64) -> Divisor {
        assert!(d > 0, "division by zero");
        let m = ((1u128 << 64) / d as u128).min(u64::MAX as u128) as u64;
        Divisor { d, m }
    }

    /// `(n / d, n % d)`.
    #[inline]
    fn div_rem(self, n: u64) -> (u64, u64) {
        // q is floor(n / d) or one less: n * m / 2^64 > n / d - 1.
        let mut q = ((n as u128 * self.m as u128) >> 64) as u64;
        let mut r = n - q * self.d;
        if r >= self.d {
            q += 1;
            r -= self.d;
        }
        (q, r)
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
    /// Division by `combos`.
    by_combos: Divisor,
    /// What one step of this group's combination number adds to a slot: the product of the
    /// later groups' combinations (saturating for sets past `u64`).
    stride: u64,
    /// Entry of its first piece among the entries past the defenders.
    first: usize,
}

/// [`MaterialIndex::single_steps`] of a group of one piece.
fn single_steps(g: &Group) -> [[u64; 90]; 2] {
    let step = |s: usize| match g.point_ord[s] {
        0xFF => u64::MAX,
        o => o as u64 * g.stride,
    };
    [
        std::array::from_fn(step),
        std::array::from_fn(|s| step(MIRROR[s] as usize)),
    ]
}

/// Groups a set can have: rooks, horses, cannons and pawns of each side.
const MAX_GROUPS: usize = 8;

/// A square list's slot split by group, so that the slot after a move of a rook, horse,
/// cannon or pawn costs that group's part alone ([`MaterialIndex::slot_after_group_move`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupParts {
    /// Per orientation (as it stands, mirrored): the slot it encodes to, or `u64::MAX` if the
    /// slot is not read in that orientation.
    slot: [u64; 2],
    /// Per orientation: each group's combination number.
    part: [[u64; MAX_GROUPS]; 2],
    /// Per orientation, read or not: the groups' share of the slot (what follows the
    /// defender pair's), so that a move of a defender costs only the new pair's look-up.
    rest: [u64; 2],
}

/// Where both sides' generals, advisors and elephants stand, as placement numbers: the part
/// of a slot that moves of rooks, horses, cannons and pawns leave alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DefenderPair([u16; 2]);

/// The index of one material set.
pub struct MaterialIndex {
    material: Material,
    defenders: [Defenders; 2],
    pairs: Vec<(u16, u16)>,
    pair_of: Vec<u32>,
    pair_symmetric: Vec<bool>,
    groups: Vec<Group>,
    /// The group of each entry past the defenders.
    entry_group: Vec<u8>,
    /// Per entry past the defenders that is a group of its own (a piece alone of its colour
    /// and kind): per orientation (as it stands, mirrored) and point, what the piece standing
    /// there adds to a slot (its point's ordinal times its group's stride; `u64::MAX` where it
    /// never stands). A move of it costs two look-ups ([`MaterialIndex::slot_after_group_move`]).
    single_steps: Vec<Option<[[u64; 90]; 2]>>,
    radix: u64,
    /// Division by `radix`.
    by_radix: Divisor,
    size: u64,
    /// The piece of each slot of a square list, in index order: red defenders (general,
    /// advisors, elephants), black defenders, then each group's pieces.
    layout: Vec<Piece>,
    /// First entry of the layout for each colour and kind (`usize::MAX` if none).
    starts: [usize; 14],
    /// Entries of the generals, advisors and elephants ([`MaterialIndex::defender_entries`]),
    /// kept: every move's slot asks for it.
    defender_entries: usize,
}

/// Most men a material set can have.
pub const MAX_MEN: usize = 32;

/// Square index reflected left-right.
const fn build_mirror() -> [u8; 90] {
    let mut t = [0u8; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = ((i / 9) * 9 + 8 - i % 9) as u8;
        i += 1;
    }
    t
}
static MIRROR: [u8; 90] = build_mirror();

impl Group {
    /// The combination number of this group's pieces on `sq` (mirrored if `mirror`), with
    /// the piece at `moved.0` standing on `moved.1` instead; `None` if a piece stands where
    /// its kind never can.
    #[inline(always)]
    fn combination(&self, sq: &[u8], mirror: bool, moved: Option<(usize, u8)>) -> Option<u64> {
        if self.count == 1 {
            // A piece alone of its kind: its combination number is its point's ordinal.
            let s = moved.map_or(sq[0], |(_, to)| to);
            let s = if mirror { MIRROR[s as usize] } else { s };
            let o = self.point_ord[s as usize];
            return (o != 0xFF).then_some(o as u64);
        }
        self.combination_of_several(sq, mirror, moved)
    }

    /// [`Group::combination`] of a group of two or more pieces: their ordinals sorted.
    fn combination_of_several(
        &self,
        sq: &[u8],
        mirror: bool,
        moved: Option<(usize, u8)>,
    ) -> Option<u64> {
        let mut ords = [0u8; 5];
        for (i, o) in ords.iter_mut().take(self.count).enumerate() {
            let s = match moved {
                Some((k, to)) if k == i => to,
                _ => sq[i],
            };
            let s = if mirror { MIRROR[s as usize] } else { s };
            *o = self.point_ord[s as usize];
            if *o == 0xFF {
                return None;
            }
        }
        ords[..self.count].sort_unstable();
        Some(combo_index(&ords[..self.count]))
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
                let first = groups.iter().map(|g: &Group| g.count).sum();
                groups.push(Group {
                    color: c,
                    role,
                    count,
                    combos: BINOMIAL[pts.len()][count],
                    by_combos: Divisor::new(BINOMIAL[pts.len()][count]),
                    points: pts,
                    point_ord,
                    stride: 1,
                    first,
                });
            }
        }
        // Saturating: a set past u64 slots keeps an index that can name it, not use it.
        let radix: u64 = groups
            .iter()
            .try_fold(1u64, |acc, g| acc.checked_mul(g.combos))
            .unwrap_or(u64::MAX);
        let size = (pairs.len() as u64).saturating_mul(radix);
        let mut stride = 1u64;
        for g in groups.iter_mut().rev() {
            g.stride = stride;
            stride = stride.saturating_mul(g.combos);
        }
        let entry_group = groups
            .iter()
            .enumerate()
            .flat_map(|(i, g)| std::iter::repeat_n(i as u8, g.count))
            .collect();
        let single_steps = groups
            .iter()
            .flat_map(|g| std::iter::repeat_n(g, g.count))
            .map(|g| (g.count == 1).then(|| single_steps(g)))
            .collect();
        let mut layout = vec![];
        for d in &defenders {
            layout.push(Piece::new(d.color, Role::General));
            layout.extend(std::iter::repeat_n(
                Piece::new(d.color, Role::Advisor),
                d.advisors,
            ));
            layout.extend(std::iter::repeat_n(
                Piece::new(d.color, Role::Elephant),
                d.elephants,
            ));
        }
        for g in &groups {
            layout.extend(std::iter::repeat_n(Piece::new(g.color, g.role), g.count));
        }
        let mut starts = [usize::MAX; 14];
        for (i, piece) in layout.iter().enumerate().rev() {
            starts[piece.color.index() * 7 + piece.role.index()] = i;
        }
        MaterialIndex {
            starts,
            defender_entries: defenders[0].len() + defenders[1].len(),
            layout,
            material,
            defenders,
            pairs,
            pair_of,
            pair_symmetric,
            groups,
            entry_group,
            single_steps,
            radix,
            by_radix: Divisor::new(radix),
            size,
        }
    }

    /// The material set indexed.
    pub fn material(&self) -> Material {
        self.material
    }

    /// At least as many slots per side to move as `material` has, computed without building
    /// its index (cheap, and exact but for the left-right mirror, which at most halves the
    /// general pairs), in `u128` so that no set overflows it.
    pub fn slots_lower_bound(material: Material) -> u128 {
        static PLACEMENTS: std::sync::OnceLock<[[u128; 3]; 3]> = std::sync::OnceLock::new();
        let counts = PLACEMENTS.get_or_init(|| {
            let mut t = [[0u128; 3]; 3];
            for (a, row) in t.iter_mut().enumerate() {
                for (e, cell) in row.iter_mut().enumerate() {
                    *cell = Defenders::new(Color::Red, a, e).placements.len() as u128;
                }
            }
            t
        });
        let placements = |c: Color| {
            let a = (material.count(c, Role::Advisor) as usize).min(2);
            let e = (material.count(c, Role::Elephant) as usize).min(2);
            counts[a][e]
        };
        let mut slots = placements(Color::Red) * placements(Color::Black) / 2;
        // Saturating: the 32-man set alone has about 5e40 slots, past u128.
        for c in Color::ALL {
            for role in [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn] {
                let k = (material.count(c, role) as usize).min(5);
                slots = slots.saturating_mul(BINOMIAL[points(c, role).len()][k] as u128);
            }
        }
        slots
    }

    /// Number of slots (used or not) for one side to move (`u64::MAX` for a set with more).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The piece of each entry of a square list ([`MaterialIndex::decode_squares`]).
    pub fn layout(&self) -> &[Piece] {
        &self.layout
    }

    /// The squares of the pieces in slot `index`, in [`MaterialIndex::layout`] order, written
    /// to `out`. False if two pieces would share a point (an unused slot).
    pub fn decode_squares(&self, index: u64, out: &mut [u8]) -> bool {
        if index >= self.size {
            return false;
        }
        let (pair, mut rest) = self.by_radix.div_rem(index);
        let (r, b) = self.pairs[pair as usize];
        let mut n = 0;
        for (d, p) in self.defenders.iter().zip([r, b]) {
            // Byte by byte: a copy of one to five bytes is a library call otherwise.
            for &s in &d.placements[p as usize][..d.len()] {
                out[n] = s;
                n += 1;
            }
        }
        let mut digits = [0u64; 16];
        for (gi, g) in self.groups.iter().enumerate().rev() {
            (rest, digits[gi]) = g.by_combos.div_rem(rest);
        }
        let mut ords = [0u8; 5];
        for (gi, g) in self.groups.iter().enumerate() {
            combo_decode(digits[gi], g.count, &mut ords);
            for &o in &ords[..g.count] {
                out[n] = g.points[o as usize];
                n += 1;
            }
        }
        let mut seen = 0u128;
        for &s in &out[..n] {
            let bit = 1u128 << s;
            if seen & bit != 0 {
                return false;
            }
            seen |= bit;
        }
        true
    }

    /// The position with the pieces of a square list and `turn` to move.
    #[inline]
    pub fn position_of(&self, squares: &[u8], turn: Color) -> Position {
        let mut pos = Position::empty(turn);
        for (&s, &piece) in squares.iter().zip(&self.layout) {
            pos.place(Square::from_index_unchecked(s), piece);
        }
        pos
    }

    /// The position in slot `index` with `turn` to move, or `None` if two pieces would share a
    /// point. The position may still be illegal (a side in check, generals facing) or be the
    /// mirror duplicate of a smaller slot.
    pub fn decode(&self, index: u64, turn: Color) -> Option<Position> {
        let mut sq = [0u8; MAX_MEN];
        if !self.decode_squares(index, &mut sq) {
            return None;
        }
        Some(self.position_of(&sq[..self.layout.len()], turn))
    }

    /// The slot of a square list in [`MaterialIndex::layout`] order (like pieces in any order),
    /// the smaller of its own and its mirror image's. `None` if a piece stands where its kind
    /// never can. Pieces sharing a point are not detected here.
    #[inline]
    pub fn encode_squares(&self, sq: &[u8]) -> Option<u64> {
        self.encode_with(self.defender_pair(sq)?, sq)
    }

    /// Entries of a square list that belong to the generals, advisors and elephants (they
    /// come first); a move of any later entry keeps the [`DefenderPair`].
    #[inline]
    pub fn defender_entries(&self) -> usize {
        self.defender_entries
    }

    /// The placements of both sides' generals, advisors and elephants in a square list, or
    /// `None` if one stands where it never can.
    #[inline]
    pub fn defender_pair(&self, sq: &[u8]) -> Option<DefenderPair> {
        let mut p = [0u16; 2];
        let mut n = 0;
        for (i, d) in self.defenders.iter().enumerate() {
            let (a, e) = (d.advisors, d.elephants);
            let v = d.lookup(sq[n], &sq[n + 1..n + 1 + a], &sq[n + 1 + a..n + 1 + a + e]);
            if v == NONE16 {
                return None;
            }
            p[i] = v;
            n += d.len();
        }
        Some(DefenderPair(p))
    }

    /// As [`MaterialIndex::encode_squares`] for a square list whose defenders stand as `pair`
    /// says (computed once for all the moves of other pieces).
    #[inline]
    pub fn encode_with(&self, pair: DefenderPair, sq: &[u8]) -> Option<u64> {
        let n = self.defender_entries();
        let mut best: Option<u64> = None;
        for (o, orientation) in self.orientations(pair).into_iter().enumerate() {
            let Some(rb) = orientation else {
                continue;
            };
            let slot = self.encode_rest(rb, &sq[n..], o == 1)?;
            best = Some(best.map_or(slot, |b| b.min(slot)));
        }
        best
    }

    /// The orientations in which a square list whose defenders stand as `pair` is read:
    /// as it stands, mirrored, or both when the defenders are their own mirror image (the
    /// smaller slot counts).
    #[inline]
    fn orientations(&self, pair: DefenderPair) -> [Option<(usize, usize)>; 2] {
        let [r, b] = pair.0.map(|v| v as usize);
        let direct = (r, b);
        let mirrored = (
            self.defenders[0].mirror[r] as usize,
            self.defenders[1].mirror[b] as usize,
        );
        use std::cmp::Ordering::*;
        match direct.cmp(&mirrored) {
            Less => [Some(direct), None],
            Greater => [None, Some(mirrored)],
            Equal => [Some(direct), Some(mirrored)],
        }
    }

    /// The slot of `sq` split by group, its defenders standing as `pair` says; `None` where
    /// [`MaterialIndex::encode_with`] gives none.
    pub fn group_parts(&self, pair: DefenderPair, sq: &[u8]) -> Option<GroupParts> {
        let mut parts = GroupParts::default();
        self.split_into(pair, sq, &mut parts).then_some(parts)
    }

    /// [`MaterialIndex::group_parts`] written to `parts` (no copy of the parts on the way
    /// back, for the generator's hot loops); false where that gives `None`, `parts` then
    /// unspecified.
    #[inline]
    pub fn split_into(&self, pair: DefenderPair, sq: &[u8], parts: &mut GroupParts) -> bool {
        self.split_changed_into(pair, sq, parts, u64::MAX)
    }

    /// As [`MaterialIndex::split_into`], where `parts` already holds the split of a square
    /// list that differs from `sq` only in the entries of bit mask `changed` (bit k: entry k
    /// of the list): the groups none of whose pieces changed keep their parts.
    #[inline]
    pub fn split_changed_into(
        &self,
        pair: DefenderPair,
        sq: &[u8],
        parts: &mut GroupParts,
        changed: u64,
    ) -> bool {
        let rest = &sq[self.defender_entries()..];
        let changed = changed >> self.defender_entries();
        let nb = self.defenders[1].placements.len();
        for o in 0..2 {
            parts.rest[o] = 0;
            parts.slot[o] = u64::MAX;
            for (g, grp) in self.groups.iter().enumerate() {
                if (changed >> grp.first) & ((1 << grp.count) - 1) != 0 {
                    let rest = &rest[grp.first..grp.first + grp.count];
                    let Some(c) = grp.combination(rest, o == 1, None) else {
                        return false;
                    };
                    parts.part[o][g] = c;
                }
                parts.rest[o] += parts.part[o][g] * grp.stride;
            }
        }
        for (o, orientation) in self.orientations(pair).into_iter().enumerate() {
            let Some((r, b)) = orientation else {
                continue;
            };
            let pair = self.pair_of[r * nb + b];
            if pair == NONE32 {
                return false;
            }
            parts.slot[o] = pair as u64 * self.radix + parts.rest[o];
        }
        true
    }

    /// The slot after the piece at entry `k` of `sq` (a rook, horse, cannon or pawn) goes to
    /// the empty point `to`, from `sq`'s [`GroupParts`]: only the moved group's combination
    /// is computed again. Equal to [`MaterialIndex::encode_squares`] of the moved list.
    #[inline]
    pub fn slot_after_group_move(
        &self,
        parts: &GroupParts,
        sq: &[u8],
        k: usize,
        to: u8,
    ) -> Option<u64> {
        let rest = &sq[self.defender_entries()..];
        let e = k - self.defender_entries();
        if let Some(steps) = &self.single_steps[e] {
            let mut best = u64::MAX;
            for (o, step) in steps.iter().enumerate() {
                if parts.slot[o] == u64::MAX {
                    continue;
                }
                let added = step[to as usize];
                if added == u64::MAX {
                    return None;
                }
                best = best.min(parts.slot[o] - step[rest[e] as usize] + added);
            }
            return (best != u64::MAX).then_some(best);
        }
        let g = self.entry_group[e] as usize;
        let grp = &self.groups[g];
        let mut best: Option<u64> = None;
        for o in 0..2 {
            if parts.slot[o] == u64::MAX {
                continue;
            }
            let moved = Some((e - grp.first, to));
            let c = grp.combination(&rest[grp.first..grp.first + grp.count], o == 1, moved)?;
            let slot = parts.slot[o] - parts.part[o][g] * grp.stride + c * grp.stride;
            best = Some(best.map_or(slot, |b| b.min(slot)));
        }
        best
    }

    /// The slot after the piece at entry `k` of `sq` (a general, advisor or elephant) goes
    /// to the empty point `to`, from `sq`'s [`GroupParts`]: only the new defender pair is
    /// looked up. Equal to [`MaterialIndex::encode_squares`] of the moved list.
    #[inline]
    pub fn slot_after_defender_move(
        &self,
        parts: &GroupParts,
        sq: &mut [u8],
        k: usize,
        to: u8,
    ) -> Option<u64> {
        let from = std::mem::replace(&mut sq[k], to);
        let pair = self.defender_pair(sq);
        sq[k] = from;
        let nb = self.defenders[1].placements.len();
        let mut best: Option<u64> = None;
        for (o, orientation) in self.orientations(pair?).into_iter().enumerate() {
            let Some((r, b)) = orientation else {
                continue;
            };
            let pair = self.pair_of[r * nb + b];
            if pair == NONE32 {
                return None;
            }
            let slot = pair as u64 * self.radix + parts.rest[o];
            best = Some(best.map_or(slot, |b| b.min(slot)));
        }
        best
    }

    #[inline]
    fn encode_rest(&self, (r, b): (usize, usize), sq: &[u8], mirror: bool) -> Option<u64> {
        let nb = self.defenders[1].placements.len();
        let pair = self.pair_of[r * nb + b];
        if pair == NONE32 {
            return None;
        }
        let mut index = pair as u64;
        for grp in &self.groups {
            let c = grp.combination(&sq[grp.first..grp.first + grp.count], mirror, None)?;
            index = index * grp.combos + c;
        }
        Some(index)
    }

    /// The square list of `pos` in [`MaterialIndex::layout`] order, or `None` if its material
    /// differs from this index's.
    pub fn squares_of(&self, pos: &Position, out: &mut [u8]) -> Option<()> {
        let mut filled = [0usize; 14];
        let starts = &self.starts;
        let mut total = 0;
        for (sq, piece) in pos.pieces() {
            let k = piece.color.index() * 7 + piece.role.index();
            if starts[k] == usize::MAX {
                return None;
            }
            let at = starts[k] + filled[k];
            if at >= self.layout.len() || self.layout[at] != piece {
                return None;
            }
            out[at] = sq.index() as u8;
            filled[k] += 1;
            total += 1;
        }
        (total == self.layout.len()).then_some(())
    }

    /// The slot of `pos` (its side to move is not part of the index). `None` if the position
    /// does not have this material or a piece stands where its kind never can.
    pub fn encode(&self, pos: &Position) -> Option<u64> {
        let mut sq = [0u8; MAX_MEN];
        self.squares_of(pos, &mut sq)?;
        self.encode_squares(&sq[..self.layout.len()])
    }

    /// The legal positions slot `i` stands for: red to move, then black to move, each only
    /// if legal, none if the slot is unused.
    pub fn legal_at(&self, i: u64) -> impl Iterator<Item = (u64, Position)> + use<> {
        let base = self
            .decode(i, Color::Red)
            .filter(|p| self.encode(p) == Some(i));
        Color::ALL.into_iter().filter_map(move |turn| {
            let mut pos = base.clone()?;
            pos.set_turn(turn);
            pos.validate().is_ok().then_some((i, pos))
        })
    }

    /// The legal position of slot `i` with `turn` to move, if there is one.
    pub fn legal_position(&self, i: u64, turn: Color) -> Option<Position> {
        let pos = self.decode(i, turn).filter(|p| self.encode(p) == Some(i))?;
        pos.validate().is_ok().then_some(pos)
    }

    /// Every legal position of the set with its slot, slot by slot ([`MaterialIndex::legal_at`]).
    pub fn legal_positions(&self) -> impl Iterator<Item = (u64, Position)> + '_ {
        (0..self.size).flat_map(|i| self.legal_at(i))
    }

    /// [`MaterialIndex::legal_positions`] in parallel, by runs of slots in order (so a
    /// `fold` then `reduce` sees them in slot order).
    pub fn par_legal_positions(&self) -> impl ParallelIterator<Item = (u64, Position)> + '_ {
        const RUN: u64 = 4096;
        (0..self.size.div_ceil(RUN))
            .into_par_iter()
            .flat_map_iter(move |c| {
                (c * RUN..((c + 1) * RUN).min(self.size)).flat_map(|i| self.legal_at(i))
            })
    }

    /// True if the slot's defender pair is its own mirror image (both mirror images of such
    /// slots are in the index; the larger one is unused).
    pub fn is_symmetric_slot(&self, index: u64) -> bool {
        self.pair_symmetric[(index / self.radix) as usize]
    }

    /// How many positions, as a player counts them, slot `index` holding `pos` stands for:
    /// 1 if `pos` is its own mirror image, else 2 (it and its mirror image).
    pub fn mirror_images(&self, index: u64, pos: &Position) -> u64 {
        if self.is_symmetric_slot(index) && pos.mirrored() == *pos {
            1
        } else {
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisions_by_multiplication_equal_the_hardware_s() {
        let divisors = [
            1,
            2,
            3,
            7,
            90,
            4_005,
            117_480,
            4_050,
            1 << 32,
            (1 << 40) + 7,
        ];
        let mut n: u64 = 0x9E37_79B9_7F4A_7C15;
        for &d in &divisors {
            let by = Divisor::new(d);
            for k in 0..100_000u64 {
                // Small numbers, numbers near multiples of d, and scrambled large ones.
                n = n.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                for x in [
                    k,
                    k * d,
                    (k * d).wrapping_sub(1),
                    n >> (k % 64),
                    n,
                    u64::MAX - k,
                ] {
                    assert_eq!(by.div_rem(x), (x / d, x % d), "{x} / {d}");
                }
            }
        }
    }

    #[test]
    fn a_move_gives_the_slot_encoding_gives() {
        // Moves of every entry: single pieces, pairs of a kind, pawns (points limited),
        // defenders of both sides (mirror-symmetric placements read both ways).
        for name in ["KRNKR", "KRRKNN", "KPPKAB", "KCPKAABB", "KNNPKRP"] {
            let index = MaterialIndex::new(name.parse().unwrap());
            let n = index.layout().len();
            let defenders = index.defender_entries();
            let mut checked = 0;
            // Every slot of the small sets, a stride through the large ones.
            let step = (index.size() / 20_000).max(1) | 1;
            for i in (0..index.size()).step_by(step as usize) {
                let mut sq = [0u8; MAX_MEN];
                let sq = &mut sq[..n];
                if !index.decode_squares(i, sq) || index.encode_squares(sq) != Some(i) {
                    continue;
                }
                let pair = index.defender_pair(sq).unwrap();
                let parts = index.group_parts(pair, sq).unwrap();
                for k in 0..n {
                    for to in 0..90u8 {
                        if sq.contains(&to) {
                            continue;
                        }
                        let mut moved = sq.to_vec();
                        moved[k] = to;
                        let want = index.encode_squares(&moved);
                        let got = if k < defenders {
                            index.slot_after_defender_move(&parts, sq, k, to)
                        } else {
                            index.slot_after_group_move(&parts, sq, k, to)
                        };
                        assert_eq!(got, want, "{name} slot {i}: entry {k} to {to}");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 100_000, "{name}: {checked} moves checked");
        }
    }

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
        // Up to five of the 90 points, at both ends of the range and spread through it.
        for k in 1..=5 {
            let total = BINOMIAL[90][k];
            let step = (total / 5000).max(1);
            let idxs = (0..total)
                .step_by(step as usize)
                .chain(total - 100.min(total)..total);
            for idx in idxs {
                combo_decode(idx, k, &mut out);
                assert!(out[..k].windows(2).all(|w| w[0] < w[1]), "k {k} idx {idx}");
                assert!(out[k - 1] < 90);
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
