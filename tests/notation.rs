//! Move notation (ICCS, WXF, Chinese): round trips over every legal move of the oracle positions
//! and of random pawn-heavy positions, textbook examples, and errors.

use canju::rules::{Color, Move, MoveParseError, Notation, Piece, Position, Role, Square};
use proptest::prelude::*;
use std::collections::HashSet;

const LEGAL: &str = include_str!("data/legal_moves.txt");

fn mv(s: &str) -> Move {
    Move::parse_iccs(s).unwrap_or_else(|| panic!("bad ICCS {s}"))
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Formats every move in every notation, checks uniqueness and that it parses back.
fn round_trip(pos: &Position, moves: &[Move], failures: &mut Vec<String>) {
    for n in Notation::ALL {
        let mut seen = HashSet::new();
        for &m in moves {
            let s = pos.format_move(m, n);
            if !seen.insert(s.clone()) {
                failures.push(format!("{pos:?}: {n} text {s} written for two moves"));
            }
            match pos.parse_move(&s) {
                Ok(back) if back == m => {}
                other => failures.push(format!("{pos:?}: {m} -> {n} {s} -> {other:?}")),
            }
        }
    }
}

#[test]
fn oracle_moves_round_trip() {
    let mut failures = Vec::new();
    let mut count = 0;
    for line in LEGAL.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split('|');
        let fen = parts.next().unwrap();
        let _in_check = parts.next();
        let moves: Vec<Move> = parts
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(mv)
            .collect();
        let p = pos(fen);
        round_trip(&p, &moves, &mut failures);
        // The same position seen from the other side.
        let swapped = p.color_swapped();
        let swapped_moves: Vec<Move> = moves
            .iter()
            .map(|m| Move::new(m.from.flip(), m.to.flip()))
            .collect();
        round_trip(&swapped, &swapped_moves, &mut failures);
        count += moves.len();
    }
    assert!(count > 10_000, "only {count} moves");
    assert!(
        failures.is_empty(),
        "{} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
}

/// A small deterministic random generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random legal position with many pawns, crowded onto few files so that tandem pawns
/// (two, three, four, five on a file; two files at once) are common.
fn random_position(rng: &mut Rng) -> Option<Position> {
    let mut p = Position::empty(if rng.below(2) == 0 {
        Color::Red
    } else {
        Color::Black
    });
    let place = |p: &mut Position, rng: &mut Rng, piece: Piece, files: &[u8]| {
        for _ in 0..200 {
            let file = files[rng.below(files.len() as u64) as usize];
            let sq = Square::new(file, rng.below(10) as u8).unwrap();
            if p.piece_at(sq).is_none() && piece.can_stand_on(sq) {
                p.put(sq, piece);
                return;
            }
        }
    };
    let all: Vec<u8> = (0..9).collect();
    for color in Color::ALL {
        place(&mut p, rng, Piece::new(color, Role::General), &all);
        let pawn_files: Vec<u8> = (0..1 + rng.below(2)).map(|_| rng.below(9) as u8).collect();
        for _ in 0..rng.below(6) {
            place(&mut p, rng, Piece::new(color, Role::Pawn), &pawn_files);
        }
        let piece_files: Vec<u8> = (0..1 + rng.below(3)).map(|_| rng.below(9) as u8).collect();
        for role in [
            Role::Rook,
            Role::Horse,
            Role::Cannon,
            Role::Advisor,
            Role::Elephant,
        ] {
            for _ in 0..rng.below(3) {
                let files = if rng.below(2) == 0 {
                    &piece_files
                } else {
                    &all
                };
                place(&mut p, rng, Piece::new(color, role), files);
            }
        }
    }
    p.validate().ok().map(|_| p)
}

#[test]
fn random_pawn_heavy_positions_round_trip() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut failures = Vec::new();
    let (mut positions, mut moves) = (0, 0);
    // Moves by the pawns of a file with four or five (`++`, `--`), of two files with tandem
    // pawns (`7+`, `77`), and by the middle one of three (`中兵`).
    let (mut many, mut two_files, mut middle) = (0, 0, 0);
    while positions < 3000 {
        let Some(p) = random_position(&mut rng) else {
            continue;
        };
        let list: Vec<Move> = p.legal_moves().iter().copied().collect();
        round_trip(&p, &list, &mut failures);
        positions += 1;
        moves += list.len();
        for &m in &list {
            let w = p.move_to_wxf(m);
            let c = p.move_to_chinese(m);
            many += usize::from(w.starts_with("++") || w.starts_with("--"));
            two_files += usize::from(w.as_bytes()[0].is_ascii_digit());
            middle += usize::from(c.starts_with('中'));
        }
    }
    assert!(moves > 30_000, "only {moves} moves");
    assert!(
        many > 50 && two_files > 50 && middle > 50,
        "too few tandem pawn moves: {many} {two_files} {middle}"
    );
    assert!(
        failures.is_empty(),
        "{} failures, first: {:#?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
}

/// Checks `text` in `notation` for `iccs`, both ways.
#[track_caller]
fn check(p: &Position, iccs: &str, wxf: &str, chinese: &str) {
    let m = mv(iccs);
    assert!(p.is_legal(m), "{iccs} not legal in {p:?}");
    assert_eq!(p.move_to_wxf(m), wxf, "WXF of {iccs}");
    assert_eq!(p.move_to_chinese(m), chinese, "Chinese of {iccs}");
    assert_eq!(p.format_move(m, Notation::Iccs), iccs);
    assert_eq!(p.format_move(m, Notation::Wxf), wxf);
    assert_eq!(p.format_move(m, Notation::Chinese), chinese);
    for text in [iccs, wxf, chinese] {
        assert_eq!(p.parse_move(text), Ok(m), "parsing {text}");
    }
}

#[test]
fn textbook_opening() {
    let mut p = Position::start();
    check(&p, "h2e2", "C2=5", "炮二平五");
    check(&p, "h0g2", "H2+3", "马二进三");
    assert_eq!(p.parse_move("傌二進三"), Ok(mv("h0g2")));
    assert_eq!(p.parse_move("H2-E2"), Ok(mv("h2e2")));
    assert_eq!(p.parse_move("h2-e2"), Ok(mv("h2e2")));
    assert_eq!(p.parse_move("C2.5"), Ok(mv("h2e2")));
    assert_eq!(p.parse_move("c2=5"), Ok(mv("h2e2")));
    assert_eq!(p.parse_move("N2+3"), Ok(mv("h0g2")));
    assert_eq!(p.parse_move("  炮 二 平 五 "), Ok(mv("h2e2")));
    assert_eq!(p.parse_move("Ｃ２＝５"), Ok(mv("h2e2")));
    check(&p, "g0e2", "E3+5", "相三进五");
    assert_eq!(p.parse_move("B3+5"), Ok(mv("g0e2")));
    assert_eq!(p.parse_move("象三进五"), Ok(mv("g0e2")));
    check(&p, "f0e1", "A4+5", "仕四进五");
    assert_eq!(p.parse_move("士四进五"), Ok(mv("f0e1")));
    check(&p, "e0e1", "K5+1", "帅五进一");
    assert_eq!(p.parse_move("將五進一"), Ok(mv("e0e1")));
    check(&p, "h2h9", "C2+7", "炮二进七");
    check(&p, "g3g4", "P3+1", "兵三进一");
    assert_eq!(p.parse_move("卒三进一"), Ok(mv("g3g4")));

    // 炮二平五 马8进7 马二进三 车9平8 车一平二 马2进3 车二进六
    let line = [
        ("h2e2", "C2=5", "炮二平五"),
        ("h9g7", "H8+7", "马8进7"),
        ("h0g2", "H2+3", "马二进三"),
        ("i9h9", "R9=8", "车9平8"),
        ("i0h0", "R1=2", "车一平二"),
        ("b9c7", "H2+3", "马2进3"),
        ("h0h6", "R2+6", "车二进六"),
    ];
    for (iccs, wxf, chinese) in line {
        check(&p, iccs, wxf, chinese);
        p.make(mv(iccs));
    }
    // Black's replies in the traditional forms and full-width digits.
    assert_eq!(p.parse_move("車１進１"), Ok(mv("a9a8")));
    assert_eq!(p.parse_move("车８进１"), Ok(mv("h9h8")));
    assert_eq!(p.parse_move("砲8平9"), Ok(mv("h7i7")));
    assert_eq!(p.parse_move("包８平９"), Ok(mv("h7i7")));
    check(&p, "c6c5", "P3+1", "卒3进1");
    check(&p, "g7e8", "H7-5", "马7退5");
}

#[test]
fn rook_on_red_file_two() {
    let p = pos("3k5/9/9/9/9/9/9/9/9/4K2R1 w");
    check(&p, "h0h6", "R2+6", "车二进六");
    assert_eq!(p.parse_move("俥二進六"), Ok(mv("h0h6")));
    check(&p, "h0i0", "R2=1", "车二平一");
}

#[test]
fn tandem_rooks() {
    let p = pos("3k5/9/9/9/9/9/9/7R1/9/4K2R1 w");
    check(&p, "h2h4", "R++2", "前车进二");
    check(&p, "h0h1", "R-+1", "后车进一");
    check(&p, "h2i2", "R+=1", "前车平一");
    check(&p, "h0g0", "R-=3", "后车平三");
    assert_eq!(p.parse_move("+R+2"), Ok(mv("h2h4")));
    assert_eq!(p.parse_move("车前进二"), Ok(mv("h2h4")));
    assert_eq!(p.parse_move("車後平三"), Ok(mv("h0g0")));
    assert_eq!(p.parse_move("R+.1"), Ok(mv("h2i2")));
    // The file itself is accepted when only one of the two can make the move.
    assert_eq!(p.parse_move("R2+2"), Ok(mv("h2h4")));
    assert!(matches!(
        p.parse_move("车二进一"),
        Err(MoveParseError::Ambiguous { .. })
    ));
}

#[test]
fn tandem_black_cannons() {
    let p = pos("3k5/9/1c7/9/1c7/9/9/9/9/4K4 b");
    check(&p, "b7d7", "C-=4", "后炮平4");
    check(&p, "b5d5", "C+=4", "前炮平4");
    check(&p, "b7b8", "C--1", "后炮退1");
    for text in [
        "炮后平4",
        "後砲平４",
        "-C=4",
        "C-.4",
        "c-=4",
        "后炮平四",
        "後包平4",
    ] {
        assert_eq!(p.parse_move(text), Ok(mv("b7d7")), "{text}");
    }
}

#[test]
fn three_pawns_on_a_file() {
    let p = pos("3k5/9/4P4/4P4/4P4/9/9/9/9/5K3 w");
    check(&p, "e7e8", "P++1", "前兵进一");
    check(&p, "e6d6", "P5=6", "中兵平六");
    check(&p, "e5f5", "P-=4", "后兵平四");
    assert_eq!(p.parse_move("+P+1"), Ok(mv("e7e8")));
    assert_eq!(p.parse_move("P+.6"), Ok(mv("e7d7")));
    assert_eq!(p.parse_move("二兵平六"), Ok(mv("e6d6")));
}

#[test]
fn four_pawns_on_a_file() {
    let p = pos("3k5/4P4/4P4/4P4/P3P4/9/9/9/9/5K3 w");
    check(&p, "e8e9", "+++1", "一兵进一");
    check(&p, "e7d7", "P+=6", "二兵平六");
    check(&p, "e6f6", "P-=4", "三兵平四");
    check(&p, "e5d5", "--=6", "四兵平六");
    check(&p, "a5a6", "P9+1", "兵九进一");
    assert_eq!(p.parse_move("前兵进一"), Ok(mv("e8e9")));
    assert_eq!(p.parse_move("后兵平六"), Ok(mv("e5d5")));
}

#[test]
fn five_black_pawns_on_a_file() {
    let p = pos("4k4/9/9/9/9/2p6/2p6/2p2K3/2p6/2p6 b");
    check(&p, "c0b0", "++=2", "一卒平2");
    check(&p, "c1d1", "P+=4", "二卒平4");
    check(&p, "c2d2", "P3=4", "三卒平4");
    check(&p, "c3b3", "P-=2", "四卒平2");
    check(&p, "c4d4", "--=4", "五卒平4");
    assert_eq!(p.parse_move("3卒平4"), Ok(mv("c2d2")));
    assert_eq!(p.parse_move("中卒平4"), Ok(mv("c2d2")));
    assert_eq!(p.parse_move("后卒平4"), Ok(mv("c4d4")));
}

#[test]
fn tandem_pawns_on_two_files() {
    let p = pos("4k4/9/2P6/2P3P2/2P3P2/9/9/9/9/5K3 w");
    check(&p, "c7c8", "7++1", "前七进一");
    check(&p, "c6b6", "77=8", "中七平八");
    check(&p, "c5d5", "7-=6", "后七平六");
    check(&p, "g6g7", "3++1", "前三进一");
    check(&p, "g5h5", "3-=2", "后三平二");
    assert_eq!(p.parse_move("后7平6"), Ok(mv("c5d5")));
    // Without the file, 前兵 fits a pawn on each file.
    assert!(matches!(
        p.parse_move("前兵进一"),
        Err(MoveParseError::Ambiguous { .. })
    ));
    let black = p.color_swapped();
    check(&black, "c2c1", "3++1", "前3进1");
    check(&black, "c3b3", "33=2", "中3平2");
    check(&black, "g3g2", "7++1", "前7进1");
}

#[test]
fn errors() {
    let p = Position::start();
    let unreadable = |s: &str| matches!(p.parse_move(s), Err(MoveParseError::Unreadable { .. }));
    for s in [
        "",
        "   ",
        "xyz",
        "C2=0",
        "C2*5",
        "R1+10",
        "炮二平十",
        "炮二平",
        "炮炮平五",
        "h2e",
        "j2e2",
        "1111",
        "++++",
        "----",
        "+-+1",
        "一一一一",
        "炮二平五炮二平五",
    ] {
        assert!(unreadable(s), "{s:?}: {:?}", p.parse_move(s));
    }
    let no_piece = |s: &str| {
        matches!(
            p.parse_move(s),
            Err(MoveParseError::NoSuchPiece {
                side: Color::Red,
                ..
            })
        )
    };
    for s in [
        "R2+1",
        "车二进一",
        "a5a6",
        "a6a5",
        "C+=5",
        "前炮平五",
        "一兵进一",
        "++=5",
    ] {
        assert!(no_piece(s), "{s:?}: {:?}", p.parse_move(s));
    }
    for s in ["H2+5", "R1=1", "A4=5", "E3+4", "R1-1"] {
        assert!(
            matches!(p.parse_move(s), Err(MoveParseError::NoSuchMove { .. })),
            "{s:?}: {:?}",
            p.parse_move(s)
        );
    }
    let illegal = |s: &str, m: &str| {
        assert_eq!(
            p.parse_move(s),
            Err(MoveParseError::IllegalMove {
                text: s.to_string(),
                mv: mv(m)
            })
        );
    };
    illegal("a0a5", "a0a5");
    illegal("车九进四", "a0a4");
    illegal("R9+4", "a0a4");
    illegal("R1+4", "i0i4");
    illegal("C2+6", "h2h8");
    illegal("炮二进六", "h2h8");

    // Two pawns on one file, named by the file, both able to advance.
    let q = pos("3k5/9/6P2/9/6P2/9/9/9/9/5K3 w");
    let err = q.parse_move("P3+1").unwrap_err();
    match &err {
        MoveParseError::Ambiguous { candidates, .. } => {
            let set: HashSet<Move> = candidates.iter().copied().collect();
            assert_eq!(set, HashSet::from([mv("g7g8"), mv("g5g6")]));
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("ambiguous"), "{err}");
    assert_eq!(q.parse_move("P++1"), Ok(mv("g7g8")));
    assert_eq!(q.parse_move("后兵进一"), Ok(mv("g5g6")));

    // Messages say what is wrong.
    let e = p.parse_move("a0a5").unwrap_err().to_string();
    assert!(e.contains("a0a5") && e.contains("not legal"), "{e}");
    let e = p.parse_move("R2+1").unwrap_err().to_string();
    assert!(e.contains("red"), "{e}");
}

#[test]
fn random_unicode_is_an_error_not_a_panic() {
    let p = Position::start();
    for s in [
        "🐉",
        "\u{0}",
        "\u{FFFF}",
        "\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}",
        "車車車車",
        "前前前前",
        "ＣＨ",
        "ｈ２ｅ２ｘ",
        "\u{202E}炮二平五",
        "炮\u{0301}二平五",
        "零一二三",
        "兵零进一",
        "𝟏𝟐𝟑𝟒",
        "٣٤٥٦",
        "ĥ2e2",
        "h２e２e",
        "+\u{FF0B}+1",
        "炮二平五\n马8进7",
    ] {
        assert!(p.parse_move(s).is_err(), "{s:?} parsed");
    }
}

#[test]
fn notation_names() {
    assert_eq!("iccs".parse::<Notation>(), Ok(Notation::Iccs));
    assert_eq!("WXF".parse::<Notation>(), Ok(Notation::Wxf));
    assert_eq!("Chinese".parse::<Notation>(), Ok(Notation::Chinese));
    assert!("pgn".parse::<Notation>().is_err());
    assert!("".parse::<Notation>().is_err());
    for n in Notation::ALL {
        assert_eq!(n.to_string().parse::<Notation>(), Ok(n));
    }
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,12}") {
        let p = Position::start();
        if let Ok(m) = p.parse_move(&s) {
            prop_assert!(p.is_legal(m));
        }
    }

    #[test]
    fn notation_like_text_never_panics(
        s in "[车車马傌炮砲相象仕士帅将兵卒前中后後进進退平一二三四五六七八九0-9１-９+\\-=.KAEBHNRCPkrcpa-i ]{0,6}",
        which in 0usize..3,
    ) {
        let fens = [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b",
            "4k4/9/2P6/2P3P2/2P3P2/9/9/9/9/5K3 w",
            "4k4/9/9/9/9/2p6/2p6/2p2K3/2p6/2p6 b",
        ];
        let p = pos(fens[which]);
        if let Ok(m) = p.parse_move(&s) {
            prop_assert!(p.is_legal(m));
            // Whatever was accepted names the move its canonical forms name.
            for n in Notation::ALL {
                prop_assert_eq!(p.parse_move(&p.format_move(m, n)), Ok(m));
            }
        }
    }
}
