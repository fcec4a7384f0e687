//! Basic value types: colours, piece kinds, pieces, squares and moves.

use std::fmt;

/// The two sides. Red moves first and sits on ranks 0-4; black on ranks 5-9.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side at the bottom of the board (uppercase in FEN, `w` to move).
    Red = 0,
    /// The side at the top of the board (lowercase in FEN, `b` to move).
    Black = 1,
}

impl Color {
    /// Both colours, red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// 0 for red, 1 for black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The English name, lowercase.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The seven kinds of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// 帅/将, FEN `K`.
    General = 0,
    /// 仕/士, FEN `A`.
    Advisor = 1,
    /// 相/象, FEN `B` (`E` accepted on input).
    Elephant = 2,
    /// 傌/马, FEN `N` (`H` accepted on input).
    Horse = 3,
    /// 俥/车, FEN `R`.
    Rook = 4,
    /// 炮/砲, FEN `C`.
    Cannon = 5,
    /// 兵/卒, FEN `P`.
    Pawn = 6,
}

impl Role {
    /// Every kind, in FEN letter order K A B N R C P.
    pub const ALL: [Role; 7] = [
        Role::General,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Rook,
        Role::Cannon,
        Role::Pawn,
    ];

    /// Index 0..7.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The uppercase FEN letter.
    pub const fn letter(self) -> char {
        match self {
            Role::General => 'K',
            Role::Advisor => 'A',
            Role::Elephant => 'B',
            Role::Horse => 'N',
            Role::Rook => 'R',
            Role::Cannon => 'C',
            Role::Pawn => 'P',
        }
    }

    /// Parses a FEN letter of either case (`H` and `E` accepted for horse and elephant).
    pub fn from_letter(c: char) -> Option<Role> {
        Some(match c.to_ascii_uppercase() {
            'K' => Role::General,
            'A' => Role::Advisor,
            'B' | 'E' => Role::Elephant,
            'N' | 'H' => Role::Horse,
            'R' => Role::Rook,
            'C' => Role::Cannon,
            'P' => Role::Pawn,
            _ => return None,
        })
    }

    /// How many of this kind one side has at the start of a game.
    pub const fn max_count(self) -> u8 {
        match self {
            Role::General => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }

    /// The English name, lowercase.
    pub const fn name(self) -> &'static str {
        match self {
            Role::General => "general",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Rook => "rook",
            Role::Cannon => "cannon",
            Role::Pawn => "pawn",
        }
    }

    /// True for the pieces that can cross the river and so can attack (rook, horse, cannon, pawn).
    pub const fn is_attacker(self) -> bool {
        matches!(self, Role::Horse | Role::Rook | Role::Cannon | Role::Pawn)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece: a colour and a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// Which kind.
    pub role: Role,
}

impl Piece {
    /// A piece of `color` and `role`.
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// FEN letter: uppercase for red, lowercase for black.
    pub fn fen_char(self) -> char {
        let c = self.role.letter();
        match self.color {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// The Chinese name as one character: red 帅仕相车马炮兵, black 将士象车马炮卒.
    pub fn chinese_char(self) -> char {
        match (self.color, self.role) {
            (Color::Red, Role::General) => '帅',
            (Color::Red, Role::Advisor) => '仕',
            (Color::Red, Role::Elephant) => '相',
            (Color::Red, Role::Pawn) => '兵',
            (Color::Black, Role::General) => '将',
            (Color::Black, Role::Advisor) => '士',
            (Color::Black, Role::Elephant) => '象',
            (Color::Black, Role::Pawn) => '卒',
            (_, Role::Rook) => '车',
            (_, Role::Horse) => '马',
            (_, Role::Cannon) => '炮',
        }
    }

    /// Parses a FEN letter (case gives the colour).
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let role = Role::from_letter(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }

    /// Whether this piece may ever stand on `sq` (palace, own side of the river, pawn points).
    pub fn can_stand_on(self, sq: Square) -> bool {
        let (f, r) = (sq.file(), sq.relative_rank(self.color));
        match self.role {
            Role::General => (3..=5).contains(&f) && r <= 2,
            Role::Advisor => {
                matches!((f, r), (3, 0) | (5, 0) | (4, 1) | (3, 2) | (5, 2))
            }
            Role::Elephant => matches!(
                (f, r),
                (2, 0) | (6, 0) | (0, 2) | (4, 2) | (8, 2) | (2, 4) | (6, 4)
            ),
            Role::Pawn => r >= 5 || (r >= 3 && f % 2 == 0),
            Role::Horse | Role::Rook | Role::Cannon => true,
        }
    }
}

/// One of the 90 points of the board: index `rank * 9 + file`, files a-i from red's left,
/// ranks 0-9 from red's back rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at `file` (0..9) and `rank` (0..10); `None` off the board.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 10 {
            Some(Square(rank * 9 + file))
        } else {
            None
        }
    }

    /// The square with index `i` (0..90); `None` if out of range.
    #[inline]
    pub const fn from_index(i: usize) -> Option<Square> {
        if i < 90 { Some(Square(i as u8)) } else { None }
    }

    /// The square with index `i`, which must be below 90.
    #[inline]
    pub(crate) const fn from_index_unchecked(i: u8) -> Square {
        debug_assert!(i < 90);
        Square(i)
    }

    /// Index 0..90.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0..9 (a..i).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// Rank 0..10 from red's back rank.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    /// Rank counted from `color`'s own back rank.
    #[inline]
    pub const fn relative_rank(self, color: Color) -> u8 {
        match color {
            Color::Red => self.rank(),
            Color::Black => 9 - self.rank(),
        }
    }

    /// True if this square is across the river for a piece of `color`.
    #[inline]
    pub const fn is_across_river(self, color: Color) -> bool {
        self.relative_rank(color) >= 5
    }

    /// The square reflected left-right (file a <-> i).
    #[inline]
    pub const fn mirror(self) -> Square {
        Square(self.rank() * 9 + 8 - self.file())
    }

    /// The square reflected top-bottom (rank 0 <-> 9).
    #[inline]
    pub const fn flip(self) -> Square {
        Square((9 - self.rank()) * 9 + self.file())
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    #[inline]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f >= 0 && f < 9 && r >= 0 && r < 10 {
            Some(Square((r * 9 + f) as u8))
        } else {
            None
        }
    }

    /// Every square, index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90u8).map(Square)
    }

    /// Parses `e0`-style coordinates.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let f = b[0].wrapping_sub(b'a');
        let r = b[1].wrapping_sub(b'0');
        Square::new(f, r)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank())
    }
}

/// A move from one point to another; what it captures is read from the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Where the moving piece stands.
    pub from: Square,
    /// Where it goes.
    pub to: Square,
}

impl Move {
    /// A move from `from` to `to`.
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }

    /// ICCS coordinates, e.g. `h2e2`.
    pub fn iccs(self) -> String {
        format!("{}{}", self.from, self.to)
    }

    /// Parses ICCS coordinates (`h2e2`, also `H2-E2`), without checking legality.
    pub fn parse_iccs(s: &str) -> Option<Move> {
        let t: String = s
            .chars()
            .filter(|c| *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if t.len() != 4 || !t.is_ascii() {
            return None;
        }
        Some(Move::new(Square::parse(&t[..2])?, Square::parse(&t[2..])?))
    }

    /// The same move reflected left-right.
    pub const fn mirror(self) -> Move {
        Move::new(self.from.mirror(), self.to.mirror())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}
