//! Replays the fuzz targets' seeds (`fuzz/seeds/TARGET/`) and every input a fuzzer found
//! breaking a promise (`tests/data/fuzz/TARGET/`, kept after the fix) through the checks the
//! targets run (`canju::fuzzing`), so CI keeps them without a fuzzer or a nightly compiler.

use canju::fuzzing;
use canju::table::{SectionKind, TableFile};
use std::path::{Path, PathBuf};

/// Every file of the seeds and findings of `target`.
fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [root.join("fuzz/seeds"), root.join("tests/data/fuzz")] {
        let Ok(entries) = std::fs::read_dir(dir.join(target)) else {
            continue;
        };
        files.extend(entries.map(|e| e.expect("a readable folder").path()));
    }
    files.sort();
    files
}

fn replay(target: &str, check: impl Fn(&[u8])) {
    let files = inputs(target);
    assert!(!files.is_empty(), "{target} has seeds");
    for f in files {
        let data = std::fs::read(&f).expect("a readable input");
        check(&data);
    }
}

/// A fuzz target's check of one input.
type Check = fn(&[u8]);

/// The targets whose check takes the input alone, with their checks.
const CHECKS: [(&str, Check); 6] = [
    ("fen", fuzzing::fen),
    ("capi_board", fuzzing::capi_board),
    ("move_text", fuzzing::move_text),
    ("material", fuzzing::material),
    ("theory_catalogue", fuzzing::theory_catalogue),
    ("table_file", fuzzing::table_file),
];

#[test]
fn parser_inputs() {
    for (target, check) in CHECKS {
        replay(target, check);
    }
}

#[test]
fn service_request_inputs() {
    let dir = tempfile::tempdir().unwrap();
    fuzzing::generate_small_tables(dir.path());
    let service = fuzzing::service_over(dir.path());
    replay("service_request", |data| {
        fuzzing::service_request(&service, data)
    });
}

/// The table seeds are real tables of every format: read from bytes they open, and every
/// slot reads as it does through the memory map of the same file.
#[test]
fn table_seeds_read_from_bytes_as_from_their_file() {
    let dir = tempfile::tempdir().unwrap();
    for f in inputs("table_file")
        .into_iter()
        .filter(|f| f.starts_with(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")))
    {
        // A seed is a mode byte (see `fuzzing::table_file`), then a table file.
        let bytes = std::fs::read(&f).unwrap()[1..].to_vec();
        let in_memory = TableFile::from_bytes(&f, bytes.clone()).expect("a seed opens");
        let file = dir.path().join("seed.ctb");
        std::fs::write(&file, bytes).unwrap();
        let mapped = TableFile::open(&file).unwrap();
        in_memory.verify_checksums().unwrap();
        let slots = mapped.header().slots;
        assert_eq!(in_memory.header().slots, slots);
        for side in 0..2 {
            for i in 0..slots {
                assert_eq!(
                    in_memory.wdl(side, i).unwrap(),
                    mapped.wdl(side, i).unwrap(),
                    "{} side {side} slot {i}",
                    f.display()
                );
                if mapped.section_bytes(SectionKind::Dtm) > 0
                    && mapped.header().stores_distances_of(side)
                {
                    assert_eq!(
                        in_memory.dtm(side, i).unwrap(),
                        mapped.dtm(side, i).unwrap()
                    );
                }
            }
        }
    }
}

/// The board seeds are legal positions, so the round trip of `fuzzing::capi_board` runs on
/// them (a seed the C API refused would check nothing).
#[test]
fn board_seeds_are_accepted() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/capi_board");
    for f in inputs("capi_board")
        .iter()
        .filter(|f| f.starts_with(&seeds))
    {
        let data = std::fs::read(f).unwrap();
        let cells = data.first_chunk::<90>().expect("90 cells");
        assert!(
            canju::capi::board_position(cells, u32::from(data[90])).is_some(),
            "{}",
            f.display()
        );
    }
}
