//! Legal move generation, check detection and perft.

use super::geometry::{HORSE_MOVES, HORSE_SOURCES, RAYS};
use super::position::{NO_SQUARE, Position};
use super::types::{Color, Move, Piece, Role, Square};
use std::mem::MaybeUninit;

/// Moves of one position, stored inline (no allocation).
///
/// The storage past `len` is left uninitialised: the generator makes a list per position it
/// looks at, and filling 512 bytes each time was a measurable part of its time.
#[derive(Clone)]
pub struct MoveList {
    /// The first `len` are written.
    moves: [MaybeUninit<Move>; MoveList::CAPACITY],
    len: usize,
}

impl MoveList {
    /// More than any xiangqi position has.
    pub(crate) const CAPACITY: usize = 256;

    /// An empty list.
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            moves: [const { MaybeUninit::uninit() }; MoveList::CAPACITY],
            len: 0,
        }
    }

    /// Empties the list.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub(crate) fn push(&mut self, mv: Move) {
        if self.len < MoveList::CAPACITY {
            self.moves[self.len].write(mv);
            self.len += 1;
        }
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        let written = &self.moves[..self.len];
        // SAFETY: the first `len` entries are written (`push` and `retain` keep it so), and
        // `MaybeUninit<Move>` has `Move`'s layout.
        unsafe { std::slice::from_raw_parts(written.as_ptr().cast::<Move>(), written.len()) }
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    fn retain(&mut self, mut keep: impl FnMut(Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self.as_slice()[i];
            if keep(m) {
                self.moves[j].write(m);
                j += 1;
            }
        }
        self.len = j;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[inline]
fn sq(i: u8) -> Square {
    Square::from_index_unchecked(i)
}

/// Whether `mv` could leave the general on `g` (not in check now) attacked: only by moving the
/// general, opening or closing a line through it (a rook's line, a cannon's screen, the
/// generals' file) or freeing a horse's leg, which stands diagonally next to the general.
#[inline]
pub(crate) fn may_expose_general(g: u8, mv: Move) -> bool {
    let (f, t) = (mv.from.index() as u8, mv.to.index() as u8);
    let (gf, gr) = (g % 9, g / 9);
    f == g
        || f % 9 == gf
        || f / 9 == gr
        || t % 9 == gf
        || t / 9 == gr
        || ((f % 9).abs_diff(gf) == 1 && (f / 9).abs_diff(gr) == 1)
}

/// Palace membership of a square index for each colour.
const fn build_palace() -> [[bool; 90]; 2] {
    let mut t = [[false; 90]; 2];
    let mut i = 0;
    while i < 90 {
        let f = i % 9;
        let r = i / 9;
        if f >= 3 && f <= 5 {
            if r <= 2 {
                t[0][i] = true;
            }
            if r >= 7 {
                t[1][i] = true;
            }
        }
        i += 1;
    }
    t
}
static PALACE: [[bool; 90]; 2] = build_palace();

impl Position {
    /// True if `target` is attacked by any piece of `by` (the flying-general rule counts: a
    /// general attacks along an open file).
    #[inline]
    pub fn is_attacked(&self, target: Square, by: Color) -> bool {
        let t = target.index();
        let b = &self.board;
        let (f, r) = (t % 9, t / 9);
        // Rooks, generals (flying general) and cannons along the four lines: the nearest piece
        // and the one behind it (a cannon's target over its screen), from the occupancy masks.
        let screened = |first: usize, second: Option<usize>, general: bool| {
            if let Some(p) = b[first]
                && p.color == by
                && (p.role == Role::Rook || (general && p.role == Role::General))
            {
                return true;
            }
            second.is_some_and(|s| b[s] == Some(Piece::new(by, Role::Cannon)))
        };
        let file = self.files[f];
        let up = file & !((2u16 << r) - 1);
        if up != 0 {
            let rest = up & (up - 1);
            let second = (rest != 0).then(|| rest.trailing_zeros() as usize * 9 + f);
            if screened(up.trailing_zeros() as usize * 9 + f, second, true) {
                return true;
            }
        }
        let down = file & ((1u16 << r) - 1);
        if down != 0 {
            let top = 15 - down.leading_zeros() as usize;
            let rest = down & !(1u16 << top);
            let second = (rest != 0).then(|| (15 - rest.leading_zeros() as usize) * 9 + f);
            if screened(top * 9 + f, second, true) {
                return true;
            }
        }
        let rank = self.ranks[r];
        let right = rank & !((2u16 << f) - 1);
        if right != 0 {
            let rest = right & (right - 1);
            let second = (rest != 0).then(|| r * 9 + rest.trailing_zeros() as usize);
            if screened(r * 9 + right.trailing_zeros() as usize, second, false) {
                return true;
            }
        }
        let left = rank & ((1u16 << f) - 1);
        if left != 0 {
            let top = 15 - left.leading_zeros() as usize;
            let rest = left & !(1u16 << top);
            let second = (rest != 0).then(|| r * 9 + 15 - rest.leading_zeros() as usize);
            if screened(r * 9 + top, second, false) {
                return true;
            }
        }
        // Horses, with the leg next to the horse empty.
        let hs = &HORSE_SOURCES.entries[t];
        for &(from, leg) in &hs[..HORSE_SOURCES.len[t] as usize] {
            if b[from as usize] == Some(Piece::new(by, Role::Horse)) && b[leg as usize].is_none() {
                return true;
            }
        }
        // Pawns: one step forward onto the target, or sideways once across the river.
        let pawn = Some(Piece::new(by, Role::Pawn));
        let behind = match by {
            Color::Red => target.offset(0, -1),
            Color::Black => target.offset(0, 1),
        };
        if let Some(s) = behind
            && b[s.index()] == pawn
        {
            return true;
        }
        if target.is_across_river(by) {
            for df in [-1, 1] {
                if let Some(s) = target.offset(df, 0)
                    && b[s.index()] == pawn
                {
                    return true;
                }
            }
        }
        false
    }

    /// True if `color`'s general is attacked (false if it has none).
    #[inline]
    pub fn is_in_check(&self, color: Color) -> bool {
        let g = self.generals[color.index()];
        g != NO_SQUARE && self.is_attacked(sq(g), color.opponent())
    }

    /// True if the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.is_in_check(self.turn)
    }

    /// Moves that follow the pieces' movement rules, ignoring whether the mover's own general is
    /// left in check.
    pub fn pseudo_legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let us = self.turn;
        self.for_each_piece(|from, p| {
            if p.color == us {
                self.piece_moves(sq(from as u8), p, &mut list);
            }
        });
        list
    }

    /// Appends to `list` the pseudo-legal moves of the piece on `from` (none for an empty
    /// point).
    pub(crate) fn pseudo_legal_moves_from(&self, from: Square, list: &mut MoveList) {
        if let Some(p) = self.board[from.index()] {
            self.piece_moves(from, p, list);
        }
    }

    #[inline]
    fn can_land(&self, to: usize, us: Color) -> bool {
        match self.board[to] {
            None => true,
            Some(q) => q.color != us,
        }
    }

    fn piece_moves(&self, from: Square, p: Piece, list: &mut MoveList) {
        let us = p.color;
        let f = from.index();
        let b = &self.board;
        match p.role {
            Role::Rook | Role::Cannon => {
                for d in 0..4 {
                    let ray = &RAYS.squares[f][d];
                    let len = RAYS.len[f][d] as usize;
                    let mut i = 0;
                    while i < len {
                        let to = ray[i] as usize;
                        match b[to] {
                            None => list.push(Move::new(from, sq(to as u8))),
                            Some(q) => {
                                if p.role == Role::Rook {
                                    if q.color != us {
                                        list.push(Move::new(from, sq(to as u8)));
                                    }
                                } else {
                                    i += 1;
                                    while i < len {
                                        let t2 = ray[i] as usize;
                                        if let Some(q2) = b[t2] {
                                            if q2.color != us {
                                                list.push(Move::new(from, sq(t2 as u8)));
                                            }
                                            break;
                                        }
                                        i += 1;
                                    }
                                }
                                break;
                            }
                        }
                        i += 1;
                    }
                }
            }
            Role::Horse => {
                let hm = &HORSE_MOVES.entries[f];
                for &(to, leg) in &hm[..HORSE_MOVES.len[f] as usize] {
                    if b[leg as usize].is_none() && self.can_land(to as usize, us) {
                        list.push(Move::new(from, sq(to)));
                    }
                }
            }
            Role::Elephant => {
                for (df, dr) in [(2, 2), (2, -2), (-2, 2), (-2, -2)] {
                    if let (Some(to), Some(eye)) =
                        (from.offset(df, dr), from.offset(df / 2, dr / 2))
                        && !to.is_across_river(us)
                        && b[eye.index()].is_none()
                        && self.can_land(to.index(), us)
                    {
                        list.push(Move::new(from, to));
                    }
                }
            }
            Role::Advisor => {
                for (df, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let Some(to) = from.offset(df, dr)
                        && PALACE[us.index()][to.index()]
                        && self.can_land(to.index(), us)
                    {
                        list.push(Move::new(from, to));
                    }
                }
            }
            Role::General => {
                for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                    if let Some(to) = from.offset(df, dr)
                        && PALACE[us.index()][to.index()]
                        && self.can_land(to.index(), us)
                    {
                        list.push(Move::new(from, to));
                    }
                }
            }
            Role::Pawn => {
                let fwd = if us == Color::Red { 1 } else { -1 };
                if let Some(to) = from.offset(0, fwd)
                    && self.can_land(to.index(), us)
                {
                    list.push(Move::new(from, to));
                }
                if from.is_across_river(us) {
                    for df in [-1, 1] {
                        if let Some(to) = from.offset(df, 0)
                            && self.can_land(to.index(), us)
                        {
                            list.push(Move::new(from, to));
                        }
                    }
                }
            }
        }
    }

    /// True if playing `mv` (pseudo-legal) leaves the mover's general safe.
    #[inline]
    pub(crate) fn leaves_general_safe(&mut self, mv: Move) -> bool {
        let us = self.turn;
        let captured = self.make(mv);
        let safe = !self.is_in_check(us);
        self.unmake(mv, captured);
        safe
    }

    /// True if playing `mv` (pseudo-legal) attacks the opponent's general: a check.
    #[inline]
    pub(crate) fn gives_check(&mut self, mv: Move) -> bool {
        let them = self.turn.opponent();
        let captured = self.make(mv);
        let check = self.is_in_check(them);
        self.unmake(mv, captured);
        check
    }

    /// Every legal move of the side to move. Empty means the side to move has lost
    /// (checkmate or stalemate).
    pub fn legal_moves(&self) -> MoveList {
        self.legal_moves_knowing_check(self.in_check())
    }

    /// [`Position::legal_moves`] when the caller already knows whether the side to move is in
    /// check (`in_check` must be right).
    pub fn legal_moves_knowing_check(&self, in_check: bool) -> MoveList {
        let mut list = self.pseudo_legal_moves();
        if self.generals[self.turn.index()] == NO_SQUARE {
            return list;
        }
        let mut scratch = self.clone();
        list.retain(|mv| scratch.is_pseudo_legal_move_legal(mv, in_check));
        list
    }

    /// True if the side to move has a legal move (`in_check` must be right): the first one
    /// found ends the search. The position is tried moves on and left as it was.
    pub(crate) fn has_legal_move_knowing_check(&mut self, in_check: bool) -> bool {
        let list = self.pseudo_legal_moves();
        list.iter()
            .any(|&mv| self.is_pseudo_legal_move_legal(mv, in_check))
    }

    /// True if pseudo-legal `mv` is legal (`in_check` must say whether the side to move is
    /// in check): for a caller that looks at a move's result before its legality. The move
    /// is tried on this position and taken back.
    #[inline]
    pub(crate) fn is_pseudo_legal_move_legal(&mut self, mv: Move, in_check: bool) -> bool {
        let g = self.generals[self.turn.index()];
        g == NO_SQUARE || (!in_check && !may_expose_general(g, mv)) || self.leaves_general_safe(mv)
    }

    /// True if `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.legal_moves().iter().any(|m| *m == mv)
    }

    /// True if `mv` (legal) captures a piece.
    #[inline]
    pub fn is_capture(&self, mv: Move) -> bool {
        self.board[mv.to.index()].is_some()
    }

    /// True if the side to move has no legal move (it has lost).
    pub fn is_game_over(&self) -> bool {
        !self.clone().has_legal_move_knowing_check(self.in_check())
    }

    /// Number of leaf positions `depth` plies down (the last ply counted, not played).
    pub fn perft(&self, depth: u32) -> u64 {
        let mut p = self.clone();
        p.perft_inner(depth)
    }

    fn perft_inner(&mut self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.pseudo_legal_moves();
        let us = self.turn;
        let g = self.generals[us.index()];
        let in_check = g == NO_SQUARE || self.is_attacked(sq(g), us.opponent());
        let mut total = 0;
        for &mv in moves.iter() {
            if !in_check && !may_expose_general(g, mv) {
                total += if depth == 1 {
                    1
                } else {
                    let captured = self.make(mv);
                    let n = self.perft_inner(depth - 1);
                    self.unmake(mv, captured);
                    n
                };
                continue;
            }
            let captured = self.make(mv);
            if !self.is_in_check(us) {
                total += if depth == 1 {
                    1
                } else {
                    self.perft_inner(depth - 1)
                };
            }
            self.unmake(mv, captured);
        }
        total
    }

    /// Perft split by first move: each legal move with its leaf count.
    pub fn perft_divide(&self, depth: u32) -> Vec<(Move, u64)> {
        if depth == 0 {
            return Vec::new();
        }
        self.legal_moves()
            .iter()
            .map(|&mv| (mv, self.after(mv).perft(depth - 1)))
            .collect()
    }
}
