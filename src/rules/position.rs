//! The position: pieces on the board and the side to move, with FEN input and output,
//! legality checks and make/unmake.

use super::types::{Color, Move, Piece, Role, Square};
use std::fmt;
use thiserror::Error;

/// The FEN of the starting position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// Why a FEN string could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    /// Nothing but white space.
    #[error("empty FEN")]
    Empty,
    /// The board field does not have 10 ranks separated by `/`.
    #[error("the board has {0} ranks, expected 10")]
    RankCount(usize),
    /// A rank describes more than 9 points.
    #[error("rank {rank} has more than 9 points")]
    RankTooLong {
        /// Rank number 0..10 counted from red's side.
        rank: u8,
    },
    /// A rank describes fewer than 9 points.
    #[error("rank {rank} has {points} points, expected 9")]
    RankTooShort {
        /// Rank number 0..10 counted from red's side.
        rank: u8,
        /// How many points it described.
        points: u8,
    },
    /// A character that is neither a piece letter nor a digit 1-9.
    #[error("unknown piece '{ch}' on rank {rank}")]
    UnknownPiece {
        /// The offending character.
        ch: char,
        /// Rank number 0..10 counted from red's side.
        rank: u8,
    },
    /// Two digits follow each other in a rank (`44N`): write their sum.
    #[error("rank {rank} has two digits in a row; write the empty points as one digit")]
    AdjacentDigits {
        /// Rank number 0..10 counted from red's side.
        rank: u8,
    },
    /// Only the board: the side to move is missing.
    #[error("the FEN has no side to move: add ' w' (red) or ' b' (black) after the board")]
    NoSideToMove,
    /// The third or fourth field is not `-` (xiangqi has no castling or en passant).
    #[error("FEN field '{0}' must be '-' (xiangqi has no castling or en passant)")]
    UnusedField(String),
    /// The side-to-move field is not `w`, `r` or `b`.
    #[error("side to move must be 'w', 'r' or 'b', found '{0}'")]
    SideToMove(String),
    /// A move counter is not a number.
    #[error("move counter '{0}' is not a number")]
    Counter(String),
    /// One move counter without the other.
    #[error(
        "the FEN has one move counter: give both (plies since a capture, move number) or neither"
    )]
    OneCounter,
    /// More than six fields.
    #[error("too many fields in FEN")]
    TooManyFields,
}

/// Why a well-formed position cannot arise in a game.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IllegalPosition {
    /// A side has no general.
    #[error("{0} has no general")]
    MissingGeneral(Color),
    /// A side has two or more generals.
    #[error("{0} has more than one general")]
    ExtraGeneral(Color),
    /// More pieces of a kind than a side starts with.
    #[error("{color} has {count} {role}s, at most {max} allowed")]
    TooMany {
        /// Whose pieces.
        color: Color,
        /// Which kind.
        role: Role,
        /// How many there are.
        count: u8,
        /// How many the game has.
        max: u8,
    },
    /// A piece stands on a point it can never reach (outside the palace, across the river...).
    #[error("{} {} on {square} can never stand there", piece.color, piece.role.name())]
    UnreachablePoint {
        /// The piece.
        piece: Piece,
        /// Where it stands.
        square: Square,
    },
    /// The two generals face each other on an open file.
    #[error("the generals face each other on an open file")]
    GeneralsFacing,
    /// The side that has just moved is in check.
    #[error("{0} is not to move but is in check")]
    NotToMoveInCheck(Color),
}

/// Either kind of problem with a FEN, for callers that want a legal position in one step.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The text could not be read.
    #[error("malformed FEN: {0}")]
    Fen(#[from] FenError),
    /// The position can be read but is not legal.
    #[error("illegal position: {0}")]
    Illegal(#[from] IllegalPosition),
}

/// What a move captured, so it can be taken back.
pub type Captured = Option<Piece>;

/// A board with pieces and a side to move.
///
/// A `Position` may be illegal (read from a FEN with [`Position::from_fen_unchecked`]) so tools can
/// show it; [`Position::validate`] says what is wrong. Move generation assumes a legal position
/// and never panics on an illegal one.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: [Option<Piece>; 90],
    /// Occupied ranks of each file (bit r: rank r), kept with `board` by `set_square`.
    pub(crate) files: [u16; 9],
    /// Occupied files of each rank (bit f: file f).
    pub(crate) ranks: [u16; 10],
    pub(crate) turn: Color,
    /// Square of each side's general, or 0xFF when missing.
    pub(crate) generals: [u8; 2],
    halfmoves: u32,
    fullmoves: u32,
}

/// Marks a missing general in `Position::generals`.
pub(crate) const NO_SQUARE: u8 = 0xFF;

impl Default for Position {
    fn default() -> Self {
        Position::empty(Color::Red)
    }
}

impl Position {
    /// An empty board (no generals: not legal until pieces are put on it).
    pub fn empty(turn: Color) -> Position {
        Position {
            board: [None; 90],
            files: [0; 9],
            ranks: [0; 10],
            turn,
            generals: [NO_SQUARE; 2],
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// The starting position.
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("start FEN is legal")
    }

    /// Reads a FEN and checks that the position is legal.
    pub fn from_fen(fen: &str) -> Result<Position, PositionError> {
        let pos = Position::from_fen_unchecked(fen)?;
        pos.validate()?;
        Ok(pos)
    }

    /// Reads a FEN without checking legality (see [`Position::validate`]).
    pub fn from_fen_unchecked(fen: &str) -> Result<Position, FenError> {
        let mut fields = fen.split_whitespace();
        let board_field = fields.next().ok_or(FenError::Empty)?;
        let ranks: Vec<&str> = board_field.split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::RankCount(ranks.len()));
        }
        let mut pos = Position::empty(Color::Red);
        for (i, text) in ranks.iter().enumerate() {
            let rank = 9 - i as u8;
            let mut file: u8 = 0;
            let mut after_digit = false;
            for ch in text.chars() {
                let digit = ch.to_digit(10);
                if digit.is_some() && after_digit {
                    return Err(FenError::AdjacentDigits { rank });
                }
                after_digit = digit.is_some();
                if let Some(d) = digit {
                    if d == 0 {
                        return Err(FenError::UnknownPiece { ch, rank });
                    }
                    file += d as u8;
                    if file > 9 {
                        return Err(FenError::RankTooLong { rank });
                    }
                } else {
                    let piece = Piece::from_fen_char(ch)
                        .filter(|_| ch.is_ascii())
                        .ok_or(FenError::UnknownPiece { ch, rank })?;
                    if file >= 9 {
                        return Err(FenError::RankTooLong { rank });
                    }
                    let sq = Square::new(file, rank).expect("file and rank in range");
                    pos.put(sq, piece);
                    file += 1;
                }
            }
            if file < 9 {
                return Err(FenError::RankTooShort { rank, points: file });
            }
        }
        pos.turn = match fields.next().ok_or(FenError::NoSideToMove)? {
            "w" | "r" | "W" | "R" => Color::Red,
            "b" | "B" => Color::Black,
            other => return Err(FenError::SideToMove(other.to_string())),
        };
        // Then either nothing, the two counters, or `- -` and optionally the counters.
        let rest: Vec<&str> = fields.collect();
        let counters: &[&str] = match rest.as_slice() {
            [] => &[],
            [_, _] if rest[0] != "-" => &rest,
            [a, b, counters @ ..] if counters.len() != 1 && counters.len() <= 2 => {
                for field in [a, b] {
                    if *field != "-" {
                        return Err(FenError::UnusedField(field.to_string()));
                    }
                }
                counters
            }
            [one] if one.parse::<u32>().is_err() => {
                return Err(FenError::Counter(one.to_string()));
            }
            [_] | [_, _, _] => return Err(FenError::OneCounter),
            _ => return Err(FenError::TooManyFields),
        };
        let parse = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| FenError::Counter(s.to_string()))
        };
        if let Some(h) = counters.first() {
            pos.halfmoves = parse(h)?;
        }
        if let Some(f) = counters.get(1) {
            pos.fullmoves = parse(f)?;
        }
        Ok(pos)
    }

    /// The FEN of this position (`K A B N R C P`, `w`/`b`).
    pub fn fen(&self) -> String {
        let mut s = String::with_capacity(64);
        for rank in (0..10u8).rev() {
            let mut empty = 0;
            for file in 0..9u8 {
                let sq = Square::new(file, rank).expect("on board");
                match self.board[sq.index()] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.fen_char());
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        let side = match self.turn {
            Color::Red => 'w',
            Color::Black => 'b',
        };
        format!("{s} {side} - - {} {}", self.halfmoves, self.fullmoves)
    }

    /// Checks every rule of `docs/conventions.md` (Values): one general each in its palace, pieces on reachable
    /// points, no more pieces of a kind than the game has, generals not facing, and the side not
    /// to move not in check.
    ///
    /// # Errors
    /// The first rule broken, in that order (red's counts before black's, points in square
    /// order).
    pub fn validate(&self) -> Result<(), IllegalPosition> {
        // One walk over the occupied points (a probe validates every position it is given).
        let mut counts = [[0u8; 7]; 2];
        let mut unreachable = None;
        self.for_each_piece(|sq, piece| {
            counts[piece.color.index()][piece.role.index()] += 1;
            let square = Square::from_index_unchecked(sq as u8);
            if unreachable.is_none() && !piece.can_stand_on(square) {
                unreachable = Some(IllegalPosition::UnreachablePoint { piece, square });
            }
        });
        for color in Color::ALL {
            let counts = counts[color.index()];
            match counts[Role::General.index()] {
                0 => return Err(IllegalPosition::MissingGeneral(color)),
                1 => {}
                _ => return Err(IllegalPosition::ExtraGeneral(color)),
            }
            for role in Role::ALL {
                let count = counts[role.index()];
                if count > role.max_count() {
                    return Err(IllegalPosition::TooMany {
                        color,
                        role,
                        count,
                        max: role.max_count(),
                    });
                }
            }
        }
        if let Some(error) = unreachable {
            return Err(error);
        }
        if self.generals_facing() {
            return Err(IllegalPosition::GeneralsFacing);
        }
        let waiting = self.turn.opponent();
        if self.is_in_check(waiting) {
            return Err(IllegalPosition::NotToMoveInCheck(waiting));
        }
        Ok(())
    }

    /// True if both generals stand on one file with nothing between them.
    pub fn generals_facing(&self) -> bool {
        let (r, b) = (self.generals[0], self.generals[1]);
        if r == NO_SQUARE || b == NO_SQUARE || r % 9 != b % 9 {
            return false;
        }
        let (lo, hi) = if r < b { (r, b) } else { (b, r) };
        ((lo + 9)..hi)
            .step_by(9)
            .all(|s| self.board[s as usize].is_none())
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Sets the side to move.
    pub fn set_turn(&mut self, turn: Color) {
        self.turn = turn;
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The square of `color`'s general, if it has one.
    #[inline]
    pub fn general(&self, color: Color) -> Option<Square> {
        Square::from_index(self.generals[color.index()] as usize)
    }

    /// The halfmove counter from the FEN (kept for output only).
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The fullmove number from the FEN (kept for output only).
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// Writes one point of the board, keeping the occupancy masks in step. Every change to
    /// `board` goes through here.
    #[inline]
    pub(crate) fn set_square(&mut self, sq: usize, piece: Option<Piece>) {
        let (f, r) = (sq % 9, sq / 9);
        if piece.is_some() {
            self.files[f] |= 1 << r;
            self.ranks[r] |= 1 << f;
        } else {
            self.files[f] &= !(1 << r);
            self.ranks[r] &= !(1 << f);
        }
        self.board[sq] = piece;
    }

    /// Calls `f` with each occupied point and its piece, in square order, read from the
    /// occupancy masks (no scan of the 90 points).
    #[inline]
    pub(crate) fn for_each_piece(&self, mut f: impl FnMut(usize, Piece)) {
        for (r, &mask) in self.ranks.iter().enumerate() {
            let mut m = mask;
            while m != 0 {
                let sq = r * 9 + m.trailing_zeros() as usize;
                m &= m - 1;
                if let Some(piece) = self.board[sq] {
                    f(sq, piece);
                }
            }
        }
    }

    /// Puts `piece` on `sq`, as [`Position::put`] but inlined, and without the work of taking
    /// off a piece where none stands: for building positions from square lists in hot loops.
    #[inline]
    pub(crate) fn place(&mut self, sq: Square, piece: Piece) {
        if self.board[sq.index()].is_some() {
            return self.put(sq, piece);
        }
        self.set_square(sq.index(), Some(piece));
        if piece.role == Role::General {
            self.generals[piece.color.index()] = sq.index() as u8;
        }
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.remove(sq);
        self.set_square(sq.index(), Some(piece));
        if piece.role == Role::General {
            self.generals[piece.color.index()] = sq.index() as u8;
        }
    }

    /// Clears `sq`, leaving the general's square as it was: for callers that place every
    /// general they lift again before the position is read (the generator's reused nodes).
    #[inline]
    pub(crate) fn lift(&mut self, sq: Square) {
        self.set_square(sq.index(), None);
    }

    /// Takes the piece off `sq` and returns it.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        let old = self.board[sq.index()];
        self.set_square(sq.index(), None);
        if let Some(p) = old
            && p.role == Role::General
            && self.generals[p.color.index()] == sq.index() as u8
        {
            self.generals[p.color.index()] = NO_SQUARE;
            // Another general of that colour (illegal, but parsable) takes its place.
            if let Some(other) = Square::all()
                .find(|s| self.board[s.index()] == Some(Piece::new(p.color, Role::General)))
            {
                self.generals[p.color.index()] = other.index() as u8;
            }
        }
        old
    }

    /// Every piece with its square, in square order.
    pub fn pieces(&self) -> Pieces<'_> {
        Pieces {
            pos: self,
            rank: 0,
            bits: self.ranks[0],
        }
    }

    /// Number of pieces on the board (generals included).
    pub fn piece_count(&self) -> usize {
        self.board.iter().filter(|p| p.is_some()).count()
    }

    /// Plays `mv` (assumed pseudo-legal) and returns what it captured, for [`Position::unmake`].
    #[inline]
    pub fn make(&mut self, mv: Move) -> Captured {
        let (from, to) = (mv.from.index(), mv.to.index());
        let piece = self.board[from];
        let captured = self.board[to];
        self.set_square(from, None);
        self.set_square(to, piece);
        if let Some(p) = piece
            && p.role == Role::General
        {
            self.generals[p.color.index()] = to as u8;
        }
        self.turn = self.turn.opponent();
        captured
    }

    /// Takes back `mv`, restoring `captured`.
    #[inline]
    pub fn unmake(&mut self, mv: Move, captured: Captured) {
        let (from, to) = (mv.from.index(), mv.to.index());
        let piece = self.board[to];
        self.set_square(to, captured);
        self.set_square(from, piece);
        if let Some(p) = piece
            && p.role == Role::General
        {
            self.generals[p.color.index()] = from as u8;
        }
        self.turn = self.turn.opponent();
    }

    /// The position after `mv` (assumed legal).
    pub fn after(&self, mv: Move) -> Position {
        let mut p = self.clone();
        p.make(mv);
        p
    }

    /// The position reflected left-right.
    pub fn mirrored(&self) -> Position {
        let mut p = Position::empty(self.turn);
        for (sq, piece) in self.pieces() {
            p.put(sq.mirror(), piece);
        }
        p.halfmoves = self.halfmoves;
        p.fullmoves = self.fullmoves;
        p
    }

    /// The position with colours exchanged: the board turned over top to bottom, red pieces
    /// becoming black and black red, and the other side to move. Its value for the side to move
    /// is the same.
    pub fn color_swapped(&self) -> Position {
        let mut p = Position::empty(self.turn.opponent());
        for (sq, piece) in self.pieces() {
            p.put(sq.flip(), Piece::new(piece.color.opponent(), piece.role));
        }
        p.halfmoves = self.halfmoves;
        p.fullmoves = self.fullmoves;
        p
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

impl std::str::FromStr for Position {
    type Err = PositionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_fen(s)
    }
}

/// The pieces of a position with their points, in point order (see [`Position::pieces`]).
/// Reads only occupied points, rank by rank from the occupancy masks.
pub struct Pieces<'a> {
    pos: &'a Position,
    rank: usize,
    /// Occupied files of `rank` not yet returned.
    bits: u16,
}

impl Iterator for Pieces<'_> {
    type Item = (Square, Piece);

    #[inline]
    fn next(&mut self) -> Option<(Square, Piece)> {
        while self.bits == 0 {
            if self.rank >= 9 {
                return None;
            }
            self.rank += 1;
            self.bits = self.pos.ranks[self.rank];
        }
        let sq = self.rank * 9 + self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        let piece = self.pos.board[sq].expect("occupancy masks match the board");
        Some((Square::from_index_unchecked(sq as u8), piece))
    }
}
