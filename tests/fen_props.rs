//! FEN properties: output re-reads to the same position, no input makes the reader panic, and
//! every error variant has an example that produces it.

use canju::rules::{
    Color, FenError, IllegalPosition, Piece, Position, PositionError, Role, Square,
};
use proptest::prelude::*;

const LEGAL: &str = include_str!("data/legal_moves.txt");

/// The FENs of the oracle's legal positions (first field of each line).
fn legal_fens() -> Vec<&'static str> {
    LEGAL
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('|').next().unwrap())
        .collect()
}

/// One of the 14 pieces, by number 0..14.
fn piece_of(n: u8) -> Piece {
    let color = if n < 7 { Color::Red } else { Color::Black };
    Piece::new(color, Role::ALL[(n % 7) as usize])
}

/// Pieces with their squares, in square order, for comparing boards.
fn board_of(pos: &Position) -> Vec<(Square, Piece)> {
    pos.pieces().collect()
}

/// A random board: up to 40 pieces of any kind on any squares (later ones replace earlier ones
/// on the same square), and either side to move. Nothing about legality is honoured.
fn arbitrary_position() -> impl Strategy<Value = Position> {
    (
        prop::collection::vec((0usize..90, 0u8..14), 0..40),
        any::<bool>(),
    )
        .prop_map(|(placements, red)| {
            let mut pos = Position::empty(if red { Color::Red } else { Color::Black });
            for (sq, n) in placements {
                pos.put(Square::from_index(sq).unwrap(), piece_of(n));
            }
            pos
        })
}

/// Something shaped like a FEN: ten ranks of 8 to 10 points (mostly 9), each point empty or a
/// piece letter (or now and then a stray character), empty runs written as digits, then a side
/// to move and maybe counters. Gets past the rank checks far more often than arbitrary text, so
/// the legality checks are exercised too.
fn fen_shaped() -> impl Strategy<Value = String> {
    let point = prop_oneof![
        200 => Just(None),
        60 => "[rnbakcpRNBAKCPHEhe]".prop_map(|s| s.chars().next()),
        1 => "[xX0]".prop_map(|s| s.chars().next()),
    ];
    let rank = prop_oneof![
        1 => prop::collection::vec(point.clone(), 8..=10),
        50 => prop::collection::vec(point, 9),
    ];
    (
        prop_oneof![
            1 => prop::collection::vec(rank.clone(), 9..=11),
            8 => prop::collection::vec(rank, 10),
        ],
        "[wbrx]?",
        "( - - [0-9]{1,3} [0-9]{1,3})?",
    )
        .prop_map(|(ranks, side, rest)| {
            let ranks: Vec<String> = ranks
                .iter()
                .map(|points| {
                    let mut text = String::new();
                    let mut empty = 0;
                    for p in points {
                        match p {
                            None => empty += 1,
                            Some(c) => {
                                if empty > 0 {
                                    text.push_str(&empty.to_string());
                                    empty = 0;
                                }
                                text.push(*c);
                            }
                        }
                    }
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                    }
                    text
                })
                .collect();
            format!("{} {side}{rest}", ranks.join("/"))
        })
}

/// A FEN of a sparse, often legal position: the two generals in their palaces plus a few pieces
/// anywhere.
fn sparse_fen() -> impl Strategy<Value = String> {
    (
        0usize..9,
        0usize..9,
        prop::collection::vec((0usize..90, 0u8..14), 0..6),
        any::<bool>(),
    )
        .prop_map(|(rk, bk, extra, red)| {
            let palace = |i: usize, base: u8| Square::new(3 + (i % 3) as u8, base + (i / 3) as u8);
            let mut pos = Position::empty(if red { Color::Red } else { Color::Black });
            for (sq, n) in extra {
                let piece = piece_of(n);
                if piece.role != Role::General {
                    pos.put(Square::from_index(sq).unwrap(), piece);
                }
            }
            pos.put(
                palace(rk, 0).unwrap(),
                Piece::new(Color::Red, Role::General),
            );
            pos.put(
                palace(bk, 7).unwrap(),
                Piece::new(Color::Black, Role::General),
            );
            pos.fen()
        })
}

/// Reads `text` both ways; neither may panic, and the two readers must agree.
fn check_parse(text: &str) -> Result<(), TestCaseError> {
    let unchecked = Position::from_fen_unchecked(text);
    let checked = Position::from_fen(text);
    match (&unchecked, &checked) {
        (Err(e), Err(PositionError::Fen(f))) => prop_assert_eq!(e, f),
        (Err(e), other) => prop_assert!(false, "unchecked {e:?} but checked {other:?}"),
        (Ok(pos), Ok(legal)) => {
            prop_assert_eq!(pos, legal);
            prop_assert!(legal.validate().is_ok());
            // A legal position must be safe to use.
            let moves = legal.legal_moves();
            prop_assert!(moves.iter().all(|&mv| legal.is_legal(mv)));
            prop_assert_eq!(&Position::from_fen(&legal.fen()).unwrap(), legal);
        }
        (Ok(pos), Err(PositionError::Illegal(why))) => {
            prop_assert_eq!(pos.validate(), Err(why.clone()));
        }
        (Ok(_), Err(other)) => prop_assert!(false, "unchecked Ok but checked {other:?}"),
    }
    // Whatever was read writes out as a FEN that reads back the same.
    if let Ok(pos) = unchecked {
        let again = Position::from_fen_unchecked(&pos.fen()).unwrap();
        prop_assert_eq!(again.fen(), pos.fen());
    }
    Ok(())
}

/// A board with each general in its palace and up to eight more pieces of any kind anywhere
/// (now and then a third general, a piece on a point it never reaches, too many of a kind, a
/// check or facing generals): every rule of `Position::validate` is met or broken in turn.
fn near_legal_position() -> impl Strategy<Value = Position> {
    let palace = |color: Color| {
        let ranks: [u8; 3] = if color == Color::Red {
            [0, 1, 2]
        } else {
            [7, 8, 9]
        };
        (0usize..3, 0usize..3).prop_map(move |(f, r)| (3 + f as u8, ranks[r]))
    };
    (
        palace(Color::Red),
        palace(Color::Black),
        prop::collection::vec((0usize..90, 0u8..14), 0..8),
        any::<bool>(),
    )
        .prop_map(|((rf, rr), (bf, br), placements, red)| {
            let mut pos = Position::empty(if red { Color::Red } else { Color::Black });
            let square = |f: u8, r: u8| Square::from_index(r as usize * 9 + f as usize).unwrap();
            pos.put(square(rf, rr), Piece::new(Color::Red, Role::General));
            pos.put(square(bf, br), Piece::new(Color::Black, Role::General));
            for (sq, n) in placements {
                pos.put(Square::from_index(sq).unwrap(), piece_of(n));
            }
            pos
        })
}

/// `Position::validate` as the rules read, point by point over the whole board: the
/// independent check of the one walk over occupied points that the library does.
fn validate_point_by_point(pos: &Position) -> Result<(), IllegalPosition> {
    for color in Color::ALL {
        let mut counts = [0u8; 7];
        for sq in Square::all() {
            if let Some(p) = pos.piece_at(sq).filter(|p| p.color == color) {
                counts[p.role.index()] += 1;
            }
        }
        match counts[Role::General.index()] {
            0 => return Err(IllegalPosition::MissingGeneral(color)),
            1 => {}
            _ => return Err(IllegalPosition::ExtraGeneral(color)),
        }
        for role in Role::ALL {
            let (count, max) = (counts[role.index()], role.max_count());
            if count > max {
                return Err(IllegalPosition::TooMany {
                    color,
                    role,
                    count,
                    max,
                });
            }
        }
    }
    for square in Square::all() {
        if let Some(piece) = pos.piece_at(square).filter(|p| !p.can_stand_on(square)) {
            return Err(IllegalPosition::UnreachablePoint { piece, square });
        }
    }
    if pos.generals_facing() {
        return Err(IllegalPosition::GeneralsFacing);
    }
    let waiting = pos.turn().opponent();
    if pos.is_in_check(waiting) {
        return Err(IllegalPosition::NotToMoveInCheck(waiting));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn validate_gives_the_first_rule_broken(
        pos in prop_oneof![near_legal_position(), arbitrary_position()]
    ) {
        prop_assert_eq!(pos.validate(), validate_point_by_point(&pos), "{}", pos.fen());
    }

    #[test]
    fn fen_round_trip_any_board(pos in arbitrary_position()) {
        let fen = pos.fen();
        let back = Position::from_fen_unchecked(&fen).unwrap();
        prop_assert_eq!(back.fen(), fen);
        prop_assert_eq!(board_of(&back), board_of(&pos));
        prop_assert_eq!(back.turn(), pos.turn());
    }

    #[test]
    fn parse_arbitrary_text(text in ".*") {
        check_parse(&text)?;
    }

    #[test]
    fn parse_fen_characters(text in "[rnbakcpRNBAKCPHEhe1-9/ wb-]{0,80}") {
        check_parse(&text)?;
    }

    #[test]
    fn parse_fen_shaped(text in fen_shaped()) {
        check_parse(&text)?;
    }

    #[test]
    fn parse_sparse_positions(text in sparse_fen()) {
        check_parse(&text)?;
    }
}

#[test]
fn fen_round_trip_legal_positions() {
    let fens = legal_fens();
    assert_eq!(fens.len(), 4600);
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let out = pos.fen();
        assert_eq!(out, fen, "the oracle writes FENs in canonical form");
        let again = Position::from_fen(&out).unwrap();
        assert_eq!(again, pos, "{fen}");
    }
}

#[test]
fn round_trip_accepts_input_variants() {
    // H/E letters, 'r' for red, missing fields: output is canonical.
    let pos = Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r")
        .unwrap();
    assert_eq!(pos, Position::start());
    assert_eq!(pos.fen(), canju::rules::START_FEN);
}

/// Reads `fen` and returns the format error it must produce.
fn fen_error(fen: &str) -> FenError {
    match Position::from_fen_unchecked(fen) {
        Err(e) => e,
        Ok(pos) => panic!("{fen} read as {pos:?}"),
    }
}

/// Reads `fen`, which must be well formed, and returns why it is illegal.
fn illegal(fen: &str) -> IllegalPosition {
    match Position::from_fen(fen) {
        Err(PositionError::Illegal(why)) => why,
        other => panic!("{fen}: {other:?}"),
    }
}

#[test]
fn error_empty() {
    assert!(matches!(fen_error(""), FenError::Empty));
    assert!(matches!(fen_error("  \t\n"), FenError::Empty));
}

#[test]
fn error_wrong_rank_count() {
    assert!(matches!(fen_error("4k4/9/9 w"), FenError::RankCount(3)));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/4K4/9 w"),
        FenError::RankCount(11)
    ));
}

#[test]
fn error_rank_too_long() {
    assert!(matches!(
        fen_error("4k5/9/9/9/9/9/9/9/9/4K4 w"),
        FenError::RankTooLong { rank: 9 }
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/4K4R w"),
        FenError::RankTooLong { rank: 0 }
    ));
}

#[test]
fn error_rank_too_short() {
    assert!(matches!(
        fen_error("4k4/9/9/8/9/9/9/9/9/4K4 w"),
        FenError::RankTooShort { rank: 6, points: 8 }
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/4K w"),
        FenError::RankTooShort { rank: 0, points: 5 }
    ));
}

#[test]
fn error_unknown_piece() {
    assert!(matches!(
        fen_error("4k4/9/9/9/4x4/9/9/9/9/4K4 w"),
        FenError::UnknownPiece { ch: 'x', rank: 5 }
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/4K3０ w"),
        FenError::UnknownPiece { ch: '０', rank: 0 }
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/0K8 w"),
        FenError::UnknownPiece { ch: '0', rank: 0 }
    ));
}

#[test]
fn error_bad_side_to_move() {
    match fen_error("4k4/9/9/9/9/9/9/9/9/4K4 x") {
        FenError::SideToMove(s) => assert_eq!(s, "x"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn error_bad_counter_and_too_many_fields() {
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/4K4 w - - x 1"),
        FenError::Counter(_)
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1 7"),
        FenError::TooManyFields
    ));
}

#[test]
fn illegal_missing_general() {
    assert!(matches!(
        illegal("9/9/9/9/9/9/9/9/9/4K4 w"),
        IllegalPosition::MissingGeneral(Color::Black)
    ));
    assert!(matches!(
        illegal("4k4/9/9/9/9/9/9/9/9/9 b"),
        IllegalPosition::MissingGeneral(Color::Red)
    ));
}

#[test]
fn illegal_extra_general() {
    assert!(matches!(
        illegal("3k5/9/9/9/9/9/9/9/4K4/3K5 w"),
        IllegalPosition::ExtraGeneral(Color::Red)
    ));
}

#[test]
fn illegal_too_many_rooks() {
    assert!(matches!(
        illegal("3k5/9/9/9/9/9/9/9/9/RRR1K4 w"),
        IllegalPosition::TooMany {
            color: Color::Red,
            role: Role::Rook,
            count: 3,
            max: 2
        }
    ));
    assert!(matches!(
        illegal("3k5/9/9/9/9/pppppp3/9/9/9/4K4 w"),
        IllegalPosition::TooMany {
            color: Color::Black,
            role: Role::Pawn,
            count: 6,
            max: 5
        }
    ));
}

#[test]
fn illegal_pawn_on_own_back_rank() {
    match illegal("3k5/9/9/9/9/9/9/9/9/P3K4 w") {
        IllegalPosition::UnreachablePoint { piece, square } => {
            assert_eq!(piece, Piece::new(Color::Red, Role::Pawn));
            assert_eq!(square, Square::parse("a0").unwrap());
        }
        other => panic!("{other:?}"),
    }
    // A pawn on its own side of the river, on a file it can never be on.
    assert!(matches!(
        illegal("3k5/9/9/9/9/9/1P7/9/9/4K4 w"),
        IllegalPosition::UnreachablePoint { .. }
    ));
}

#[test]
fn illegal_advisor_outside_palace() {
    match illegal("3k5/9/9/9/9/9/9/9/9/2A1K4 w") {
        IllegalPosition::UnreachablePoint { piece, square } => {
            assert_eq!(piece, Piece::new(Color::Red, Role::Advisor));
            assert_eq!(square, Square::parse("c0").unwrap());
        }
        other => panic!("{other:?}"),
    }
    // An advisor in the palace but off its diagonals (e9), and one on them (e8).
    assert!(matches!(
        illegal("3ka4/9/9/9/9/9/9/9/9/4K4 w"),
        IllegalPosition::UnreachablePoint { .. }
    ));
    assert!(Position::from_fen("3k5/4a4/9/9/9/9/9/9/9/4K4 w").is_ok());
}

#[test]
fn illegal_generals_facing() {
    assert!(matches!(
        illegal("4k4/9/9/9/9/9/9/9/9/4K4 w"),
        IllegalPosition::GeneralsFacing
    ));
    // A piece between them makes it legal.
    assert!(Position::from_fen("4k4/9/9/9/4p4/9/9/9/9/4K4 w").is_ok());
}

#[test]
fn illegal_side_not_to_move_in_check() {
    // Red's rook checks black's general with red to move.
    assert!(matches!(
        illegal("3k5/9/9/9/9/9/9/9/3R5/4K4 w"),
        IllegalPosition::NotToMoveInCheck(Color::Black)
    ));
    // The same position with black to move is legal.
    assert!(Position::from_fen("3k5/9/9/9/9/9/9/9/3R5/4K4 b").is_ok());
}

#[test]
fn error_missing_side_odd_fields_and_adjacent_digits() {
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/3K5"),
        FenError::NoSideToMove
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/3K5 w 🙂"),
        FenError::Counter(_)
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0"),
        FenError::OneCounter
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/3K5 w KQ - 0 1"),
        FenError::UnusedField(_)
    ));
    assert!(matches!(
        fen_error("4k4/9/9/9/9/9/9/9/9/33K2 w"),
        FenError::AdjacentDigits { rank: 0 }
    ));
}
