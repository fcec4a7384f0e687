//! Un-moves: the predecessors of a position, for retrograde analysis.

use super::geometry::{HORSE_SOURCES, RAYS};
use super::movegen::may_expose_general;
use super::position::{NO_SQUARE, Position};
use super::types::{Color, Move, Piece, Role, Square};

/// A move taken back: the side that just moved returns a piece from `mv.to` to `mv.from`,
/// and, for an un-capture, a piece of the side to move of kind `uncaptured` reappears on `mv.to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnMove {
    /// The forward move that this un-move takes back.
    pub mv: Move,
    /// The kind of piece the forward move captured, if any.
    pub uncaptured: Option<Role>,
}

/// Whether a horse or pawn on `from` could attack the general on `g` (rooks, cannons and
/// generals attack only along lines, which the caller tests separately).
#[inline]
fn may_attack_from(role: Role, from: Square, g: u8) -> bool {
    let (df, dr) = ((from.file()).abs_diff(g % 9), (from.rank()).abs_diff(g / 9));
    match role {
        Role::Horse => (df, dr) == (1, 2) || (df, dr) == (2, 1),
        Role::Pawn => df + dr == 1,
        _ => false,
    }
}

/// An origin from which a quiet move fits.
const QUIET: u8 = 1;
/// An origin from which a capture fits.
const CAPTURE: u8 = 2;
const BOTH: u8 = QUIET | CAPTURE;

impl Position {
    /// Every legal predecessor of this position: positions with the other side to move from
    /// which one legal move leads here. `uncaptures` lists the kinds of piece (of the side to
    /// move here) that may be put back by an un-capture; pass `&[]` for quiet un-moves only.
    /// The caller keeps piece counts within the game's limits by what it allows.
    ///
    /// Pawns go back only to points a pawn could have come from; un-captures put a piece only
    /// on a point it can stand on. Every predecessor returned is legal (the side not to move in
    /// it, which is the side to move here, is not in check).
    pub fn unmoves(&self, uncaptures: &[Role]) -> Vec<UnMove> {
        let mut out = Vec::new();
        self.for_each_unmove(uncaptures, |um, _| out.push(um));
        out
    }

    /// As [`Position::unmoves`], calling `f` with each un-move and the predecessor it gives.
    pub fn for_each_unmove(&self, uncaptures: &[Role], mut f: impl FnMut(UnMove, &Position)) {
        let mover = self.turn.opponent();
        let victim = self.turn;
        let mut scratch = self.clone();
        scratch.turn = mover;
        // The victim's general: a predecessor needs a full check test only when the un-move
        // touches the general's lines or could attack it directly.
        let gv = self.generals[victim.index()];
        let victim_in_check = gv == NO_SQUARE || self.is_in_check(victim);
        self.for_each_piece(|to, piece| {
            if piece.color != mover {
                return;
            }
            let to = Square::from_index_unchecked(to as u8);
            let origins = self.unmove_origins(to, piece);
            for &(from, kinds) in origins.as_slice() {
                let mv = Move::new(from, to);
                let needs_test = victim_in_check
                    || may_expose_general(gv, Move::new(to, from))
                    || may_attack_from(piece.role, from, gv);
                // Move the piece back.
                scratch.set_square(to.index(), None);
                scratch.set_square(from.index(), Some(piece));
                if piece.role == Role::General {
                    scratch.generals[mover.index()] = from.index() as u8;
                }
                if kinds & QUIET != 0 && !(needs_test && scratch.is_in_check(victim)) {
                    f(
                        UnMove {
                            mv,
                            uncaptured: None,
                        },
                        &scratch,
                    );
                }
                for &role in uncaptures {
                    if kinds & CAPTURE == 0 {
                        break;
                    }
                    let back = Piece::new(victim, role);
                    if role == Role::General || !back.can_stand_on(to) {
                        continue;
                    }
                    scratch.set_square(to.index(), Some(back));
                    if !(needs_test && scratch.is_in_check(victim)) {
                        f(
                            UnMove {
                                mv,
                                uncaptured: Some(role),
                            },
                            &scratch,
                        );
                    }
                    scratch.set_square(to.index(), None);
                }
                // Restore.
                scratch.set_square(from.index(), None);
                scratch.set_square(to.index(), Some(piece));
                if piece.role == Role::General {
                    scratch.generals[mover.index()] = to.index() as u8;
                }
            }
        });
    }

    /// The quiet un-moves of the side not to move, legal or not: a predecessor that leaves
    /// the side to move here in check is given too. For callers whose look-up of a
    /// predecessor tells an illegal one anyway (the generator's cells mark such positions
    /// illegal), this skips [`Position::for_each_unmove`]'s board copy and check tests.
    pub fn for_each_quiet_unmove_unchecked(&self, mut f: impl FnMut(Move)) {
        let mover = self.turn.opponent();
        self.for_each_piece(|to, piece| {
            if piece.color != mover {
                return;
            }
            let to = Square::from_index_unchecked(to as u8);
            for &(from, kinds) in self.unmove_origins(to, piece).as_slice() {
                if kinds & QUIET != 0 {
                    f(Move::new(from, to));
                }
            }
        });
    }

    /// Applies an un-move: the predecessor it names.
    pub fn retracted(&self, um: UnMove) -> Position {
        let mut p = self.clone();
        let piece = p.remove(um.mv.to);
        if let Some(piece) = piece {
            p.put(um.mv.from, piece);
        }
        if let Some(role) = um.uncaptured {
            p.put(um.mv.to, Piece::new(self.turn, role));
        }
        p.turn = self.turn.opponent();
        p
    }

    /// Squares from which `piece`, now on `to`, could have come, each with the kinds of move
    /// that fit ([`QUIET`], [`CAPTURE`]): a cannon's slides were quiet, its jumps captures.
    fn unmove_origins(&self, to: Square, piece: Piece) -> Origins {
        let mut out = Origins {
            list: [(to, 0); MOST_ORIGINS],
            len: 0,
        };
        let b = &self.board;
        let t = to.index();
        let empty = |s: Square| b[s.index()].is_none();
        let color = piece.color;
        match piece.role {
            Role::Rook | Role::Cannon => {
                for d in 0..4 {
                    let ray = &RAYS.squares[t][d];
                    let len = RAYS.len[t][d] as usize;
                    let mut i = 0;
                    while i < len && b[ray[i] as usize].is_none() {
                        let kinds = if piece.role == Role::Rook {
                            BOTH
                        } else {
                            QUIET
                        };
                        out.push((Square::from_index_unchecked(ray[i]), kinds));
                        i += 1;
                    }
                    if piece.role == Role::Cannon {
                        // Past one screen: un-captures only.
                        i += 1;
                        while i < len && b[ray[i] as usize].is_none() {
                            out.push((Square::from_index_unchecked(ray[i]), CAPTURE));
                            i += 1;
                        }
                    }
                }
            }
            Role::Horse => {
                let hs = &HORSE_SOURCES.entries[t];
                for &(from, leg) in &hs[..HORSE_SOURCES.len[t] as usize] {
                    if b[from as usize].is_none() && b[leg as usize].is_none() {
                        out.push((Square::from_index_unchecked(from), BOTH));
                    }
                }
            }
            Role::Elephant => {
                for (df, dr) in [(2, 2), (2, -2), (-2, 2), (-2, -2)] {
                    if let (Some(from), Some(eye)) = (to.offset(df, dr), to.offset(df / 2, dr / 2))
                        && piece.can_stand_on(from)
                        && empty(from)
                        && empty(eye)
                    {
                        out.push((from, BOTH));
                    }
                }
            }
            Role::Advisor => {
                for (df, dr) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let Some(from) = to.offset(df, dr)
                        && piece.can_stand_on(from)
                        && empty(from)
                    {
                        out.push((from, BOTH));
                    }
                }
            }
            Role::General => {
                for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                    if let Some(from) = to.offset(df, dr)
                        && piece.can_stand_on(from)
                        && empty(from)
                    {
                        out.push((from, BOTH));
                    }
                }
            }
            Role::Pawn => {
                let back = if color == Color::Red { -1 } else { 1 };
                if let Some(from) = to.offset(0, back)
                    && piece.can_stand_on(from)
                    && empty(from)
                {
                    out.push((from, BOTH));
                }
                if to.is_across_river(color) {
                    for df in [-1, 1] {
                        if let Some(from) = to.offset(df, 0)
                            && empty(from)
                        {
                            out.push((from, BOTH));
                        }
                    }
                }
            }
        }
        out
    }
}

/// Most origins a piece can have: a rook's or cannon's four rays hold 17 points at most,
/// each an origin once.
const MOST_ORIGINS: usize = 17;

/// The origins of one piece's un-moves ([`Position::unmove_origins`]), on the stack.
struct Origins {
    list: [(Square, u8); MOST_ORIGINS],
    len: usize,
}

impl Origins {
    #[inline]
    fn push(&mut self, origin: (Square, u8)) {
        self.list[self.len] = origin;
        self.len += 1;
    }

    fn as_slice(&self) -> &[(Square, u8)] {
        &self.list[..self.len]
    }
}
