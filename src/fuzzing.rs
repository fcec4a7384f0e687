//! What the fuzz targets (`fuzz/fuzz_targets/`) check, one function a parser, shared with the
//! test that replays their seeds and findings (`tests/fuzz_inputs.rs`) so that CI keeps
//! every input a fuzzer once broke without a fuzzer.
//!
//! Each function takes arbitrary bytes, feeds them to one parser, and panics only where the
//! library breaks a promise: a parser returns an error for bad input, never panics; what the
//! FEN, move, material and board parsers accept reads back the same once written out; a
//! catalogue accepted gives every entry's material and grade; a table file that opens
//! answers the slots read with a value or an error.
//! Not part of the documented interface.

use crate::material::Material;
use crate::probe::Tablebase;
use crate::rules::{Notation, Position};
use crate::service::Service;
use crate::table::{SectionKind, TableFile};
use crate::theory::Catalogue;
use std::path::Path;

/// Positions the move parser is fuzzed against (the first byte of the input picks one): the
/// opening, and middlegame and endgame positions with every kind of piece, doubled pieces
/// on a file (which the notations tell apart as front and rear) and both sides to move.
pub const MOVE_POSITIONS: [&str; 6] = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
    "r1bakab1r/9/1cn4cn/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R b",
    "3k5/4P4/4P4/4P4/9/9/9/9/9/4K4 w",
    "2bak4/4a4/4b4/9/2R6/2R6/9/4B4/4A4/2BAK4 w",
    "3akab2/9/4b4/4C4/2n1C4/9/9/9/9/3K5 b",
    "9/3k5/9/9/2PN5/5n3/9/9/9/3K5 b",
];

/// Slots read per side and section of a fuzzed table file at most (spread evenly).
const SLOTS_READ: u64 = 4096;

/// A FEN: [`Position::from_fen`] and [`Position::from_fen_unchecked`] never panic; a
/// position accepted writes out to a FEN that reads back to the same FEN, and its legal
/// moves read back from each notation.
pub fn fen(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(p) = Position::from_fen_unchecked(&text) {
        let _ = p.validate();
    }
    let Ok(p) = Position::from_fen(&text) else {
        return;
    };
    let fen = p.fen();
    let again = Position::from_fen(&fen).expect("a position's own FEN reads back");
    assert_eq!(again.fen(), fen, "FEN round trip of {text:?}");
    moves_read_back(&p);
}

/// A move in any notation against one of [`MOVE_POSITIONS`]: [`Position::parse_move`] never
/// panics, and a move it accepts is legal and reads back from each notation.
pub fn move_text(data: &[u8]) {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let fen = MOVE_POSITIONS[usize::from(pick) % MOVE_POSITIONS.len()];
    let p = Position::from_fen(fen).expect("a listed position");
    let Ok(mv) = p.parse_move(&String::from_utf8_lossy(text)) else {
        return;
    };
    assert!(p.legal_moves().iter().any(|&m| m == mv), "{mv:?} is legal");
    move_reads_back(&p, mv);
}

/// Every legal move of `p` written in each notation reads back as itself.
fn moves_read_back(p: &Position) {
    for &mv in p.legal_moves().iter() {
        move_reads_back(p, mv);
    }
}

/// `mv`, written in each notation, reads back as itself in `p`.
fn move_reads_back(p: &Position, mv: crate::rules::Move) {
    for n in Notation::ALL {
        let written = p.format_move(mv, n);
        assert_eq!(
            p.parse_move(&written),
            Ok(mv),
            "{written} ({n}) in {}",
            p.fen()
        );
    }
}

/// A material name, ASCII or Chinese: [`Material::parse`] never panics, and a set accepted
/// reads back from both of its names.
pub fn material(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(m) = Material::parse(&text) else {
        return;
    };
    assert_eq!(Material::parse(&m.name()), Ok(m), "{text:?} by its name");
    assert_eq!(
        Material::parse(&m.chinese_name()).map(|c| c.canonical()),
        Ok(m.canonical()),
        "{text:?} by its Chinese name"
    );
}

/// A theory catalogue in the `tables/theory.toml` format: [`Catalogue::parse`] never panics,
/// and every entry of a catalogue it accepts gives its material and grade (which panic
/// where parsing let a bad one through).
pub fn theory_catalogue(data: &[u8]) {
    let Ok(catalogue) = Catalogue::parse(&String::from_utf8_lossy(data)) else {
        return;
    };
    for e in &catalogue.entries {
        let _ = (e.material(), e.grade());
    }
}

/// A board as engines give it to the C API (90 Pikafish piece codes, then the side to move:
/// 0 red, 1 black, anything else refused): [`crate::capi::board_position`] never panics, and
/// a position it accepts holds exactly the board's pieces.
pub fn capi_board(data: &[u8]) {
    let (Some(cells), Some(&side)) = (data.first_chunk::<90>(), data.get(90)) else {
        return;
    };
    let Some(p) = crate::capi::board_position(cells, u32::from(side)) else {
        return;
    };
    assert_eq!(
        &crate::capi::board_of(&p),
        cells,
        "an accepted board's pieces"
    );
}

/// The bytes of a table file, after a first byte that says whether to give the header the
/// checksum it needs (odd: so changed header fields reach the decoder and the checks after
/// it, as a crafted file would): [`TableFile::from_bytes`] never panics, and a file it
/// accepts answers the WDL code and distance of the slots read (`SLOTS_READ`, 4,096, a side at
/// most, spread over the table) and its checksum test with a value or an error.
pub fn table_file(data: &[u8]) {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let mut bytes = file.to_vec();
    if mode % 2 == 1 {
        fix_header_checksum(&mut bytes);
    }
    let Ok(file) = TableFile::from_bytes(Path::new("fuzzed.ctb"), bytes) else {
        return;
    };
    let _ = file.verify_checksums();
    let slots = file.header().slots;
    let reads = SLOTS_READ.min(slots);
    for side in 0..2 {
        for k in 0..reads {
            let i = (u128::from(k) * u128::from(slots) / u128::from(reads)) as u64;
            let _ = file.wdl(side, i);
            if file.section_bytes(SectionKind::Dtm) > 0 {
                let _ = file.dtm(side, i);
            }
        }
    }
}

/// Writes the checksum of the header its length field frames into the header's checksum
/// field (the layout [`crate::table::parse_header`] reads), where the bytes hold that much.
fn fix_header_checksum(bytes: &mut [u8]) {
    use crate::table::{HEADER_CHECKSUM_AT, HEADER_LENGTH_AT, HEADER_START, header_checksum};
    let Some(len) = bytes.get(HEADER_LENGTH_AT) else {
        return;
    };
    let len = u32::from_le_bytes(len.try_into().expect("4 bytes"));
    let end = usize::try_from(len)
        .ok()
        .and_then(|n| n.checked_add(HEADER_START));
    if let Some(head) = end.and_then(|end| bytes.get(HEADER_START..end)) {
        let sum = header_checksum(head);
        bytes[HEADER_CHECKSUM_AT].copy_from_slice(&sum.to_le_bytes());
    }
}

/// One HTTP request to the service (the first line of the input: method, a space, the
/// URL): [`Service::handle`] never panics and answers with a status of 200 or an error's.
pub fn service_request(service: &Service, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let line = text.lines().next().unwrap_or("");
    let (method, url) = line.split_once(' ').unwrap_or(("GET", line));
    let status = service.handle(method, url).status;
    assert!(
        status == 200 || (400..600).contains(&status),
        "status {status} for {line:?}"
    );
}

/// A service over `dir` that generates nothing: what [`service_request`] is fuzzed against
/// (the caller puts small tables there so that probes reach them).
pub fn service_over(dir: &Path) -> Service {
    Service::new(Tablebase::open(dir), 0)
}

/// Generates every set up to 3 men into `dir` (a second or two), for [`service_over`].
///
/// # Panics
/// If the generation fails (a folder that cannot be written).
pub fn generate_small_tables(dir: &Path) {
    use crate::generate::{GenOptions, generate_all};
    let tb = Tablebase::open(dir);
    let opts = GenOptions {
        threads: 1,
        ..GenOptions::default()
    };
    generate_all(&tb, &Material::all_up_to(3), &opts).expect("the 3-men tables");
}
