//! Move notation: ICCS coordinates, WXF and Chinese, written and read relative to a position.
//!
//! ```
//! use canju::rules::{Move, Notation, Position};
//! let pos = Position::start();
//! let mv = Move::parse_iccs("h2e2").unwrap();
//! assert_eq!(pos.format_move(mv, Notation::Wxf), "C2=5");
//! assert_eq!(pos.format_move(mv, Notation::Chinese), "炮二平五");
//! assert_eq!(pos.parse_move("炮二平五"), Ok(mv));
//! assert_eq!(pos.parse_move("C2.5"), Ok(mv));
//! assert_eq!(pos.parse_move("H2-E2"), Ok(mv));
//! ```
//!
//! # Common ground
//!
//! - **Files** are counted 1-9 from each player's own right: for red file `i` is 1 (一) and file
//!   `a` is 9 (九); for black file `a` is 1 and file `i` is 9.
//! - **Direction**: advance (`+`, 进) is towards the opponent, retreat (`-`, 退) towards one's own
//!   back rank, traverse (`=`, 平; `.` accepted on input) sideways along a rank.
//! - **The number after the direction**: for the pieces that move straight (general, rook,
//!   cannon, pawn) moving along their file it is the number of ranks moved; for a sideways move,
//!   and for every move of the diagonal movers (horse, elephant, advisor), it is the destination
//!   file.
//! - **Front** means further towards the opponent.
//!
//! # WXF
//!
//! Output: a piece letter `K A E H R C P` (general, advisor, elephant, horse, rook, cannon, pawn),
//! the file the piece stands on, the direction, the number: `C2=5`, `H8+7`, `R1-1`.
//! Input also accepts `B` (elephant), `N` (horse), lowercase letters and `.` for traverse.
//!
//! Two like pieces on one file (rooks, horses, cannons, pawns) have `+` (front) or `-` (rear) in
//! place of the file: `C-=4`, `R++2`. On input the sign may also come before the letter: `-C=4`.
//! Advisors and elephants never need this (their direction tells the two apart) and always use the
//! file, as the standard says.
//!
//! Pawns follow the WXF rules for tandem pawns:
//!
//! | pawns of the side on that file | front to rear |
//! |---|---|
//! | 2 | `P+`, `P-` |
//! | 3 | `P+`, `P3` (the middle pawn keeps its file number), `P-` |
//! | 4 | `++`, `P+`, `P-`, `--` |
//! | 5 | `++`, `P+`, `P3`, `P-`, `--` |
//!
//! (the digit shown is the file, 3 in the examples). When **two files** each hold two or more pawns
//! of the side, the letter is replaced by the file and the second character says which pawn:
//! `3+` front, `33` middle (of three), `3-` rear, e.g. `7+=6`, `33=4`.
//!
//! # Chinese
//!
//! Output: red writes files and numbers as 一二三四五六七八九 and its pieces 帅 仕 相 马 车 炮 兵;
//! black writes ASCII digits 1-9 and its pieces 将 士 象 马 车 炮 卒. Directions 进 退 平:
//! `炮二平五`, `马8进7`.
//!
//! Two like pieces on one file: 前/后 before the piece, in place of the file: `前车进二`, `后炮平4`.
//! Pawns:
//!
//! | pawns of the side on that file | front to rear |
//! |---|---|
//! | 2 | 前兵, 后兵 |
//! | 3 | 前兵, 中兵, 后兵 |
//! | 4 or 5 | 一兵, 二兵, 三兵, 四兵, 五兵 (counted from the front, Chinese numerals for both sides) |
//!
//! When two files each hold two or more pawns, the file takes the place of the piece name:
//! `前七平六`, `中七进一`, `后三平四` (black: `前3平4`).
//!
//! Input accepts every common variant: 车/車/俥, 马/馬/傌, 炮/砲/包, 相/象, 仕/士, 帅/帥/将/將,
//! 兵/卒, 进/進, 后/後, the position word after the piece (`车前进二`), ASCII digits, Chinese
//! numerals and full-width digits `１`-`９` for either side, and white space anywhere.
//!
//! # ICCS
//!
//! The coordinates of [`Move::iccs`]: `h2e2`; `H2-E2` is accepted on input.
//!
//! # Reading
//!
//! [`Position::parse_move`] recognises the notation by itself and returns only legal moves of the
//! side to move. A description is read leniently: the piece's colour words and numeral style are
//! not checked against the side to move, and a file number may name one of two like pieces on that
//! file if only one of them can make the move (of three or five, the file names the middle one, as
//! in WXF). `前`/`后` pick the first/last of a file in Chinese, whatever the count, while WXF `+`/`-`
//! follow the table above. What cannot be resolved to exactly one legal move is an error, never a
//! guess.

use super::position::Position;
use super::types::{Color, Move, Piece, Role, Square};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The three ways of writing a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Coordinates, `h2e2`: what UCCI engines speak.
    Iccs,
    /// World Xiangqi Federation notation, `C2=5`.
    Wxf,
    /// Chinese notation, `炮二平五`.
    Chinese,
}

impl Notation {
    /// All three, ICCS first.
    pub const ALL: [Notation; 3] = [Notation::Iccs, Notation::Wxf, Notation::Chinese];

    /// The lowercase name accepted by [`FromStr`]: `iccs`, `wxf` or `chinese`.
    pub const fn name(self) -> &'static str {
        match self {
            Notation::Iccs => "iccs",
            Notation::Wxf => "wxf",
            Notation::Chinese => "chinese",
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A notation name that is not `iccs`, `wxf` or `chinese`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown notation {0:?}: expected iccs, wxf or chinese")]
pub struct UnknownNotation(pub String);

impl FromStr for Notation {
    type Err = UnknownNotation;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "iccs" => Ok(Notation::Iccs),
            "wxf" => Ok(Notation::Wxf),
            "chinese" => Ok(Notation::Chinese),
            _ => Err(UnknownNotation(s.to_string())),
        }
    }
}

/// Why a text does not name a legal move of a position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveParseError {
    /// The text is not a move in any of the three notations.
    #[error(
        "cannot read {text:?} as a move: expected ICCS (h2e2), WXF (C2=5) or Chinese (炮二平五)"
    )]
    Unreadable {
        /// The text, trimmed.
        text: String,
    },
    /// The side to move has no piece that fits the description (or none on the from-square).
    #[error("{text:?}: {side}, to move, has no piece that fits")]
    NoSuchPiece {
        /// The text, trimmed.
        text: String,
        /// The side to move.
        side: Color,
    },
    /// The piece exists but no piece of its kind can move as described (a horse moving three
    /// files, a rook running off the board...).
    #[error("{text:?}: the piece it names cannot move like that")]
    NoSuchMove {
        /// The text, trimmed.
        text: String,
    },
    /// More than one legal move fits the description.
    #[error("{text:?} is ambiguous: it fits {}", list_moves(.candidates))]
    Ambiguous {
        /// The text, trimmed.
        text: String,
        /// The legal moves it fits.
        candidates: Vec<Move>,
    },
    /// The text names a move that is not legal in the position.
    #[error("{text:?} names {mv}, which is not legal here")]
    IllegalMove {
        /// The text, trimmed.
        text: String,
        /// The move it names.
        mv: Move,
    },
}

fn list_moves(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.iccs())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Direction of a move relative to the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Advance,
    Retreat,
    Traverse,
}

/// 前, 中, 后: index 0, the middle of an odd count, the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Front,
    Middle,
    Rear,
}

/// How a text picks the moving piece among those of its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sel {
    /// Own file number 1-9.
    File(u8),
    /// Chinese 前/中/后 among the pieces of each file holding two or more.
    Word(Which),
    /// 一兵, 二兵...: 1-based from the front.
    Ordinal(u8),
    /// WXF `X+`: front of two or three, second of four or five.
    WxfFront,
    /// WXF `X-`: rear of two or three, second to last of four or five.
    WxfRear,
    /// WXF `++`: first of four or five.
    WxfFirst,
    /// WXF `--`: last of four or five.
    WxfLast,
    /// A file and a position on it: WXF `3+`, `33`, `3-`; Chinese 前三, 中三, 后三.
    FileWord(u8, Which),
}

/// A parsed WXF or Chinese move, not yet matched against the position.
#[derive(Clone, Copy, Debug)]
struct Desc {
    role: Role,
    sel: Sel,
    op: Op,
    num: u8,
}

/// How the moving piece is written, computed from the position.
#[derive(Clone, Copy, Debug)]
enum Designator {
    /// Alone on its file (or an advisor, elephant, general): the file number.
    File(u8),
    /// One of `count` like pieces on its file, the only such file of its kind.
    Tandem {
        file: u8,
        index: usize,
        count: usize,
    },
    /// A pawn on one of several files that each hold two or more pawns.
    FileTandem {
        file: u8,
        index: usize,
        count: usize,
    },
}

const CN_NUMERALS: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// File number 1-9 of `sq` as seen by `color`.
fn own_file(sq: Square, color: Color) -> u8 {
    match color {
        Color::Red => 9 - sq.file(),
        Color::Black => sq.file() + 1,
    }
}

/// Board file 0-8 of own file number `n` (1-9) as seen by `color`.
fn board_file(n: u8, color: Color) -> u8 {
    match color {
        Color::Red => 9u8.saturating_sub(n),
        Color::Black => n.saturating_sub(1),
    }
}

fn is_straight_mover(role: Role) -> bool {
    matches!(role, Role::General | Role::Rook | Role::Cannon | Role::Pawn)
}

fn wxf_letter(role: Role) -> char {
    match role {
        Role::General => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Rook => 'R',
        Role::Cannon => 'C',
        Role::Pawn => 'P',
    }
}

fn digit_char(n: u8) -> char {
    char::from(b'0' + n.min(9))
}

/// A file or distance as `color` writes it in Chinese: 一..九 for red, 1..9 for black.
fn chinese_number(n: u8, color: Color) -> char {
    match color {
        Color::Red => CN_NUMERALS[usize::from(n.min(9))],
        Color::Black => digit_char(n),
    }
}

fn which_word(which: Which) -> char {
    match which {
        Which::Front => '前',
        Which::Middle => '中',
        Which::Rear => '后',
    }
}

/// The position word of piece `index` among `count` (at most three).
fn which_of(index: usize, count: usize) -> Which {
    if index == 0 {
        Which::Front
    } else if index + 1 >= count {
        Which::Rear
    } else {
        Which::Middle
    }
}

/// Index chosen by a position word among `count` pieces.
fn which_index(which: Which, count: usize) -> Option<usize> {
    match which {
        Which::Front => (count >= 1).then_some(0),
        Which::Rear => count.checked_sub(1),
        Which::Middle => (count >= 3 && count % 2 == 1).then_some(count / 2),
    }
}

/// Index chosen by a selector without a file among `count` (two or more) pieces on one file.
fn tandem_index(sel: Sel, count: usize) -> Option<usize> {
    match sel {
        Sel::Word(w) => which_index(w, count),
        Sel::Ordinal(k) => {
            let k = usize::from(k);
            (k >= 1 && k <= count).then(|| k - 1)
        }
        Sel::WxfFront => Some(if count >= 4 { 1 } else { 0 }),
        Sel::WxfRear => Some(if count >= 4 { count - 2 } else { count - 1 }),
        Sel::WxfFirst => (count >= 4).then_some(0),
        Sel::WxfLast => (count >= 4).then(|| count - 1),
        Sel::File(_) | Sel::FileWord(..) => None,
    }
}

/// Where a piece on `from` goes by `op` and `num`, if that is a move of its geometry.
fn destination(from: Square, color: Color, role: Role, op: Op, num: u8) -> Option<Square> {
    if !(1..=9).contains(&num) {
        return None;
    }
    let fwd: i8 = match color {
        Color::Red => 1,
        Color::Black => -1,
    };
    let n = num as i8;
    let to_file = board_file(num, color);
    if is_straight_mover(role) {
        match op {
            Op::Advance => from.offset(0, n * fwd),
            Op::Retreat => from.offset(0, -n * fwd),
            Op::Traverse => {
                if to_file == from.file() {
                    None
                } else {
                    Square::new(to_file, from.rank())
                }
            }
        }
    } else {
        let df = to_file as i8 - from.file() as i8;
        let dr = match (role, df.abs()) {
            (Role::Horse, 1) => 2,
            (Role::Horse, 2) => 1,
            (Role::Elephant, 2) => 2,
            (Role::Advisor, 1) => 1,
            _ => return None,
        };
        let dir = match op {
            Op::Advance => fwd,
            Op::Retreat => -fwd,
            Op::Traverse => return None,
        };
        from.offset(df, dr * dir)
    }
}

/// Direction and number of a move of `piece` from `from` to `to`.
fn op_and_number(piece: Piece, from: Square, to: Square) -> (Op, u8) {
    let color = piece.color;
    let dr = to.relative_rank(color) as i8 - from.relative_rank(color) as i8;
    let op = match dr {
        d if d > 0 => Op::Advance,
        d if d < 0 => Op::Retreat,
        _ => Op::Traverse,
    };
    let num = if op != Op::Traverse && is_straight_mover(piece.role) && from.file() == to.file() {
        dr.unsigned_abs()
    } else {
        own_file(to, color)
    };
    (op, num)
}

/// Replaces full-width ASCII forms by ASCII and drops white space.
fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| {
            if ('\u{FF01}'..='\u{FF5E}').contains(&c) {
                char::from_u32(c as u32 - 0xFEE0).unwrap_or(c)
            } else {
                c
            }
        })
        .collect()
}

/// ICCS coordinates `h2e2` or `h2-e2`, either case.
fn parse_iccs(t: &str) -> Option<Move> {
    let b = t.as_bytes();
    let core: Vec<u8> = match b.len() {
        4 => b.to_vec(),
        5 if b[2] == b'-' => vec![b[0], b[1], b[3], b[4]],
        _ => return None,
    };
    let file = |c: u8| (b'a'..=b'i').contains(&c.to_ascii_lowercase());
    if file(core[0]) && core[1].is_ascii_digit() && file(core[2]) && core[3].is_ascii_digit() {
        let s = String::from_utf8(core).ok()?;
        Move::parse_iccs(&s)
    } else {
        None
    }
}

/// WXF: exactly four ASCII characters, designator (2), direction, number.
fn parse_wxf(t: &str) -> Option<Desc> {
    let b = t.as_bytes();
    if b.len() != 4 {
        return None;
    }
    let role_of = |c: u8| {
        if c.is_ascii_alphabetic() {
            Role::from_letter(char::from(c))
        } else {
            None
        }
    };
    let digit = |c: u8| (b'1'..=b'9').contains(&c).then(|| c - b'0');
    let sign = |c: u8| match c {
        b'+' => Some(true),
        b'-' => Some(false),
        _ => None,
    };
    let front_rear = |front: bool| if front { Sel::WxfFront } else { Sel::WxfRear };
    let (role, sel) = if let Some(role) = role_of(b[0]) {
        if let Some(d) = digit(b[1]) {
            (role, Sel::File(d))
        } else {
            (role, front_rear(sign(b[1])?))
        }
    } else if let Some(front) = sign(b[0]) {
        if let Some(role) = role_of(b[1]) {
            (role, front_rear(front))
        } else if sign(b[1]) == Some(front) {
            (Role::Pawn, if front { Sel::WxfFirst } else { Sel::WxfLast })
        } else {
            return None;
        }
    } else if let Some(f) = digit(b[0]) {
        if let Some(front) = sign(b[1]) {
            let which = if front { Which::Front } else { Which::Rear };
            (Role::Pawn, Sel::FileWord(f, which))
        } else if digit(b[1]) == Some(f) {
            (Role::Pawn, Sel::FileWord(f, Which::Middle))
        } else {
            return None;
        }
    } else {
        return None;
    };
    let op = match b[2] {
        b'+' => Op::Advance,
        b'-' => Op::Retreat,
        b'=' | b'.' => Op::Traverse,
        _ => return None,
    };
    Some(Desc {
        role,
        sel,
        op,
        num: digit(b[3])?,
    })
}

/// One character of Chinese notation.
#[derive(Clone, Copy, Debug)]
enum Tok {
    Piece(Role),
    Word(Which),
    Num(u8),
    Op(Op),
}

fn chinese_token(c: char) -> Option<Tok> {
    Some(match c {
        '车' | '車' | '俥' | '伡' => Tok::Piece(Role::Rook),
        '马' | '馬' | '傌' => Tok::Piece(Role::Horse),
        '炮' | '砲' | '包' => Tok::Piece(Role::Cannon),
        '相' | '象' => Tok::Piece(Role::Elephant),
        '仕' | '士' => Tok::Piece(Role::Advisor),
        '帅' | '帥' | '将' | '將' => Tok::Piece(Role::General),
        '兵' | '卒' => Tok::Piece(Role::Pawn),
        '前' => Tok::Word(Which::Front),
        '中' => Tok::Word(Which::Middle),
        '后' | '後' => Tok::Word(Which::Rear),
        '进' | '進' => Tok::Op(Op::Advance),
        '退' => Tok::Op(Op::Retreat),
        '平' => Tok::Op(Op::Traverse),
        '1'..='9' => Tok::Num(c as u8 - b'0'),
        _ => {
            let n = CN_NUMERALS.iter().position(|&d| d == c)?;
            if n == 0 {
                return None;
            }
            Tok::Num(n as u8)
        }
    })
}

/// Chinese: four characters, designator (2), direction, number.
fn parse_chinese(t: &str) -> Option<Desc> {
    let toks: Vec<Tok> = t.chars().map(chinese_token).collect::<Option<_>>()?;
    let [t0, t1, t2, t3] = toks.as_slice() else {
        return None;
    };
    let (role, sel) = match (*t0, *t1) {
        (Tok::Piece(r), Tok::Num(n)) => (r, Sel::File(n)),
        (Tok::Word(w), Tok::Piece(r)) | (Tok::Piece(r), Tok::Word(w)) => (r, Sel::Word(w)),
        (Tok::Num(k), Tok::Piece(r)) => (r, Sel::Ordinal(k)),
        (Tok::Word(w), Tok::Num(n)) => (Role::Pawn, Sel::FileWord(n, w)),
        _ => return None,
    };
    let Tok::Op(op) = *t2 else { return None };
    let Tok::Num(num) = *t3 else { return None };
    Some(Desc { role, sel, op, num })
}

impl Position {
    /// The squares of `piece`s on board file `file` (0-8), front (nearest the opponent) first.
    fn column(&self, piece: Piece, file: u8) -> Vec<Square> {
        let mut v: Vec<Square> = (0..10u8)
            .filter_map(|r| Square::new(file, r))
            .filter(|&sq| self.piece_at(sq) == Some(piece))
            .collect();
        v.sort_by_key(|sq| std::cmp::Reverse(sq.relative_rank(piece.color)));
        v
    }

    /// How many files hold two or more of `piece`.
    fn tandem_files(&self, piece: Piece) -> usize {
        (0..9u8)
            .filter(|&f| self.column(piece, f).len() >= 2)
            .count()
    }

    fn designator(&self, piece: Piece, from: Square) -> Designator {
        let file = own_file(from, piece.color);
        if matches!(piece.role, Role::General | Role::Advisor | Role::Elephant) {
            return Designator::File(file);
        }
        let col = self.column(piece, from.file());
        let count = col.len();
        if count < 2 {
            return Designator::File(file);
        }
        let index = col.iter().position(|&sq| sq == from).unwrap_or(0);
        if piece.role == Role::Pawn && self.tandem_files(piece) >= 2 {
            Designator::FileTandem { file, index, count }
        } else {
            Designator::Tandem { file, index, count }
        }
    }

    /// `mv` in WXF notation, e.g. `C2=5`, `H8+7`, `C-=4` (see the [module docs](self) for the
    /// conventions). `mv` should be legal; for a move from an empty point the ICCS form is
    /// returned.
    pub fn move_to_wxf(&self, mv: Move) -> String {
        let Some(piece) = self.piece_at(mv.from) else {
            return mv.iccs();
        };
        let letter = wxf_letter(piece.role);
        let mut s = String::with_capacity(4);
        match self.designator(piece, mv.from) {
            Designator::File(f) => {
                s.push(letter);
                s.push(digit_char(f));
            }
            Designator::Tandem { file, index, count } => {
                let last = count.saturating_sub(1);
                if count >= 4 && index == 0 {
                    s.push_str("++");
                } else if count >= 4 && index == last {
                    s.push_str("--");
                } else {
                    s.push(letter);
                    let (front, rear) = if count >= 4 { (1, last - 1) } else { (0, last) };
                    s.push(if index == front {
                        '+'
                    } else if index == rear {
                        '-'
                    } else {
                        digit_char(file)
                    });
                }
            }
            Designator::FileTandem { file, index, count } => {
                s.push(digit_char(file));
                s.push(match which_of(index, count) {
                    Which::Front => '+',
                    Which::Rear => '-',
                    Which::Middle => digit_char(file),
                });
            }
        }
        let (op, num) = op_and_number(piece, mv.from, mv.to);
        s.push(match op {
            Op::Advance => '+',
            Op::Retreat => '-',
            Op::Traverse => '=',
        });
        s.push(digit_char(num));
        s
    }

    /// `mv` in Chinese notation, e.g. `炮二平五`, `马8进7`, `前车进二`, `后炮平4` (see the
    /// [module docs](self) for the conventions). `mv` should be legal; for a move from an empty
    /// point the ICCS form is returned.
    pub fn move_to_chinese(&self, mv: Move) -> String {
        let Some(piece) = self.piece_at(mv.from) else {
            return mv.iccs();
        };
        let color = piece.color;
        let name = Piece::chinese_char(piece);
        let mut s = String::with_capacity(12);
        match self.designator(piece, mv.from) {
            Designator::File(f) => {
                s.push(name);
                s.push(chinese_number(f, color));
            }
            Designator::Tandem { index, count, .. } => {
                if count >= 4 {
                    s.push(CN_NUMERALS[(index + 1).min(9)]);
                } else {
                    s.push(which_word(which_of(index, count)));
                }
                s.push(name);
            }
            Designator::FileTandem { file, index, count } => {
                s.push(which_word(which_of(index, count)));
                s.push(chinese_number(file, color));
            }
        }
        let (op, num) = op_and_number(piece, mv.from, mv.to);
        s.push(match op {
            Op::Advance => '进',
            Op::Retreat => '退',
            Op::Traverse => '平',
        });
        s.push(chinese_number(num, color));
        s
    }

    /// `mv` written in notation `n`.
    pub fn format_move(&self, mv: Move, n: Notation) -> String {
        match n {
            Notation::Iccs => mv.iccs(),
            Notation::Wxf => self.move_to_wxf(mv),
            Notation::Chinese => self.move_to_chinese(mv),
        }
    }

    /// Reads a move in any of the three notations (recognised by itself: `h2e2`, `H2-E2`,
    /// `C2=5`, `+C-1`, `炮二平五`, `傌二進三`, `后炮平4`...) and returns it if it is a legal move
    /// of the side to move. Never panics, whatever the text.
    pub fn parse_move(&self, s: &str) -> Result<Move, MoveParseError> {
        let text = s.trim().to_string();
        let t = normalize(s);
        let unreadable = || MoveParseError::Unreadable { text: text.clone() };
        if t.is_ascii() {
            if let Some(mv) = parse_iccs(&t) {
                return self.check_iccs(&text, mv);
            }
            let desc = parse_wxf(&t).ok_or_else(unreadable)?;
            self.resolve(&text, desc)
        } else {
            let desc = parse_chinese(&t).ok_or_else(unreadable)?;
            self.resolve(&text, desc)
        }
    }

    fn check_iccs(&self, text: &str, mv: Move) -> Result<Move, MoveParseError> {
        match self.piece_at(mv.from) {
            Some(p) if p.color == self.turn() => {
                if self.legal_moves().iter().any(|m| *m == mv) {
                    Ok(mv)
                } else {
                    Err(MoveParseError::IllegalMove {
                        text: text.to_string(),
                        mv,
                    })
                }
            }
            _ => Err(MoveParseError::NoSuchPiece {
                text: text.to_string(),
                side: self.turn(),
            }),
        }
    }

    /// The squares of the side-to-move pieces a selector picks.
    fn select(&self, piece: Piece, sel: Sel) -> Vec<Square> {
        let color = piece.color;
        match sel {
            Sel::File(n) => {
                let col = self.column(piece, board_file(n, color));
                // WXF writes the middle one of three or five like pieces with its file.
                if col.len() >= 3 && col.len() % 2 == 1 {
                    vec![col[col.len() / 2]]
                } else {
                    col
                }
            }
            Sel::FileWord(n, which) => {
                let col = self.column(piece, board_file(n, color));
                if col.len() < 2 {
                    return Vec::new();
                }
                which_index(which, col.len())
                    .map(|i| col[i])
                    .into_iter()
                    .collect()
            }
            _ => (0..9u8)
                .filter_map(|f| {
                    let col = self.column(piece, f);
                    if col.len() < 2 {
                        return None;
                    }
                    tandem_index(sel, col.len()).and_then(|i| col.get(i).copied())
                })
                .collect(),
        }
    }

    fn resolve(&self, text: &str, d: Desc) -> Result<Move, MoveParseError> {
        let color = self.turn();
        let piece = Piece::new(color, d.role);
        let froms = self.select(piece, d.sel);
        if froms.is_empty() {
            return Err(MoveParseError::NoSuchPiece {
                text: text.to_string(),
                side: color,
            });
        }
        let described: Vec<Move> = froms
            .iter()
            .filter_map(|&from| {
                destination(from, color, d.role, d.op, d.num).map(|to| Move::new(from, to))
            })
            .collect();
        if described.is_empty() {
            return Err(MoveParseError::NoSuchMove {
                text: text.to_string(),
            });
        }
        let legal = self.legal_moves();
        let fits: Vec<Move> = described
            .iter()
            .copied()
            .filter(|m| legal.as_slice().contains(m))
            .collect();
        match fits.as_slice() {
            [mv] => Ok(*mv),
            [] => {
                // Name the described move most likely meant: one to a point the piece can use.
                let mv = described
                    .iter()
                    .copied()
                    .find(|m| piece.can_stand_on(m.to))
                    .unwrap_or(described[0]);
                Err(MoveParseError::IllegalMove {
                    text: text.to_string(),
                    mv,
                })
            }
            _ => Err(MoveParseError::Ambiguous {
                text: text.to_string(),
                candidates: fits,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_examples() {
        let pos = Position::start();
        let mv = Move::parse_iccs("h2e2").unwrap();
        assert_eq!(pos.move_to_wxf(mv), "C2=5");
        assert_eq!(pos.move_to_chinese(mv), "炮二平五");
        let mv = Move::parse_iccs("h0g2").unwrap();
        assert_eq!(pos.move_to_wxf(mv), "H2+3");
        assert_eq!(pos.move_to_chinese(mv), "马二进三");
        assert_eq!(pos.parse_move("傌二進三"), Ok(mv));
    }

    #[test]
    fn notation_names() {
        for n in Notation::ALL {
            assert_eq!(n.name().parse::<Notation>(), Ok(n));
            assert_eq!(n.to_string().to_uppercase().parse::<Notation>(), Ok(n));
        }
        assert!("pgn".parse::<Notation>().is_err());
    }
}
