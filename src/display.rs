//! Drawing a position for a terminal.
//!
//! The board is drawn with one double-width character per point (pieces by their Chinese names,
//! empty points as `＋`), so the columns line up in any terminal that shows CJK characters two
//! cells wide. Black sits at the top, as red sees the board.
//!
//! ```
//! use canju::display::render_board;
//! use canju::rules::Position;
//! let text = render_board(&Position::start(), false);
//! assert!(text.contains("楚河"));
//! assert!(text.lines().last().unwrap().contains("rnbakabnr/"));
//! ```

use crate::rules::{Color, Piece, Position, Role, Square};
use std::io::IsTerminal;

/// What an empty point looks like: the full-width plus sign, two cells wide like the pieces.
const EMPTY: char = '＋';

/// Black's file numbers, left to right as red sees the board (black counts from its own right).
const BLACK_FILES: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];

/// Red's file numbers, left to right (red counts from its own right, so file a is 九).
const RED_FILES: [char; 9] = ['九', '八', '七', '六', '五', '四', '三', '二', '一'];

/// The river row; 26 display columns wide, the same as nine cells with single spaces between.
const RIVER: &str = "～～ 楚河 ～～～ 汉界 ～～";

/// Start of the ANSI red colour.
const ANSI_RED: &str = "\x1b[31m";
/// Start of ANSI bold, used for black pieces.
const ANSI_BOLD: &str = "\x1b[1m";
/// ANSI reset.
const ANSI_RESET: &str = "\x1b[0m";

/// The Chinese name of a piece as the board shows it, distinct for the two sides so that a
/// board without colour (a log file) reads unambiguously: red 俥傌炮帥仕相兵, black
/// 车马砲将士象卒 (the traditional board forms).
#[must_use]
pub fn piece_char(piece: Piece) -> char {
    match (piece.color, piece.role) {
        (Color::Red, Role::Rook) => '俥',
        (Color::Red, Role::Horse) => '傌',
        (Color::Red, Role::Cannon) => '炮',
        (Color::Red, Role::General) => '帥',
        (Color::Red, Role::Advisor) => '仕',
        (Color::Red, Role::Elephant) => '相',
        (Color::Red, Role::Pawn) => '兵',
        (Color::Black, Role::Rook) => '车',
        (Color::Black, Role::Horse) => '马',
        (Color::Black, Role::Cannon) => '砲',
        (Color::Black, Role::General) => '将',
        (Color::Black, Role::Advisor) => '士',
        (Color::Black, Role::Elephant) => '象',
        (Color::Black, Role::Pawn) => '卒',
    }
}

/// Draws `pos` for a terminal, black at the top.
///
/// The lines are, top to bottom: black's file numbers (１..９ from the left: black counts from
/// its own right), ranks 9 to 5 each labelled with its number, the river (楚河 汉界), ranks 4 to 0,
/// red's file numbers (九..一 from the left), the ICCS file letters `a`..`i`, and a last line
/// naming the side to move and giving the FEN.
///
/// Every point is one double-width character with a space between points. With `color`, red
/// pieces are wrapped in ANSI red and black pieces in ANSI bold; without it the text holds no
/// escape codes at all.
#[must_use]
pub fn render_board(pos: &Position, color: bool) -> String {
    let mut out = String::with_capacity(1024);
    push_labels(&mut out, BLACK_FILES.iter().map(char::to_string));
    for rank in (0..10u8).rev() {
        if rank == 4 {
            out.push_str("  ");
            out.push_str(RIVER);
            out.push('\n');
        }
        out.push(char::from(b'0' + rank));
        out.push(' ');
        for file in 0..9u8 {
            if file > 0 {
                out.push(' ');
            }
            let sq = Square::new(file, rank).expect("file and rank on the board");
            match pos.piece_at(sq) {
                None => out.push(EMPTY),
                Some(piece) => {
                    let name = piece_char(piece);
                    if color {
                        let start = match piece.color {
                            Color::Red => ANSI_RED,
                            Color::Black => ANSI_BOLD,
                        };
                        out.push_str(start);
                        out.push(name);
                        out.push_str(ANSI_RESET);
                    } else {
                        out.push(name);
                    }
                }
            }
        }
        out.push('\n');
    }
    push_labels(&mut out, RED_FILES.iter().map(char::to_string));
    // ASCII letters are one cell wide: pad each to the two cells of a point.
    push_labels(
        &mut out,
        (b'a'..=b'i').map(|b| format!("{} ", char::from(b))),
    );
    let side = match pos.turn() {
        Color::Red => "red (红) to move",
        Color::Black => "black (黑) to move",
    };
    out.push_str(side);
    out.push_str("   ");
    out.push_str(&pos.fen());
    out.push('\n');
    out
}

/// Appends one label line: two cells of margin (where the rank numbers stand), then the nine
/// labels, each two cells wide, separated by single spaces, trailing blanks trimmed.
fn push_labels(out: &mut String, labels: impl Iterator<Item = String>) {
    let mut line = String::from("  ");
    for (i, label) in labels.enumerate() {
        if i > 0 {
            line.push(' ');
        }
        line.push_str(&label);
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// True when output to stdout should be coloured: stdout is a terminal and the `NO_COLOR`
/// environment variable is not set (to any value).
#[must_use]
pub fn use_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIECE_CHARS: &str = "俥傌炮帥仕相兵车马砲将士象卒";

    fn piece_chars(text: &str) -> usize {
        text.chars().filter(|c| PIECE_CHARS.contains(*c)).count()
    }

    #[test]
    fn start_position_plain() {
        let text = render_board(&Position::start(), false);
        assert!(!text.contains('\x1b'));
        // The last line names the side to move; the FEN holds no Chinese characters.
        assert_eq!(piece_chars(&text), 32);
        let lines: Vec<&str> = text.lines().collect();
        // Labels, 10 ranks, river, two label lines, status.
        assert_eq!(lines.len(), 15);
        assert_eq!(lines[0], "  １ ２ ３ ４ ５ ６ ７ ８ ９");
        assert_eq!(lines[1], "9 车 马 象 士 将 士 象 马 车");
        assert_eq!(lines[3], "7 ＋ 砲 ＋ ＋ ＋ ＋ ＋ 砲 ＋");
        assert_eq!(lines[9], "2 ＋ 炮 ＋ ＋ ＋ ＋ ＋ 炮 ＋");
        assert!(lines[6].contains("楚河") && lines[6].contains("汉界"));
        assert_eq!(lines[7], "4 ＋ ＋ ＋ ＋ ＋ ＋ ＋ ＋ ＋");
        assert_eq!(lines[11], "0 俥 傌 相 仕 帥 仕 相 傌 俥");
        assert_eq!(lines[12], "  九 八 七 六 五 四 三 二 一");
        assert_eq!(lines[13], "  a  b  c  d  e  f  g  h  i");
        assert!(lines[14].starts_with("red"));
        assert!(lines[14].ends_with(crate::rules::START_FEN));
    }

    #[test]
    fn rows_have_equal_display_width() {
        // Every character outside ASCII used here is double width.
        let width = |s: &str| {
            s.chars()
                .map(|c| if c.is_ascii() { 1 } else { 2 })
                .sum::<usize>()
        };
        let text = render_board(&Position::start(), false);
        let lines: Vec<&str> = text.lines().collect();
        for line in &lines[1..12] {
            assert_eq!(width(line), 28, "{line:?}");
        }
        assert_eq!(width(lines[0]), 28);
        assert_eq!(width(lines[12]), 28);
    }

    #[test]
    fn colour_codes() {
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b").unwrap();
        let text = render_board(&pos, true);
        assert_eq!(text.matches(ANSI_RED).count(), 2);
        assert_eq!(text.matches(ANSI_BOLD).count(), 1);
        assert_eq!(text.matches(ANSI_RESET).count(), 3);
        assert!(text.contains("\x1b[1m将\x1b[0m"));
        assert!(text.contains("\x1b[31m帥\x1b[0m"));
        assert!(text.lines().last().unwrap().starts_with("black"));
        let plain = render_board(&pos, false);
        assert!(!plain.contains('\x1b'));
        assert_eq!(piece_chars(&plain), 3);
    }
}
