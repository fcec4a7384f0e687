//! Table files: round trip, and clear errors for damaged files.

use canju::generate::{GenOptions, generate_all};
use canju::material::Material;
use canju::probe::{ProbeError, RuleSet, Tablebase};
use canju::table::{RuleCodes, TableError, parse_header, read_table};
use proptest::prelude::*;
use std::path::Path;

fn krk_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(dir.path());
    generate_all(
        &tb,
        &[Material::parse("KRK").unwrap()],
        &GenOptions::default(),
    )
    .unwrap();
    let path = dir.path().join("KRK.asian.ctb");
    (dir, path)
}

fn damaged(path: &Path, f: impl FnOnce(&mut Vec<u8>)) -> TableError {
    let mut bytes = std::fs::read(path).unwrap();
    f(&mut bytes);
    let bad = path.with_file_name("bad.ctb");
    std::fs::write(&bad, &bytes).unwrap();
    match read_table(&bad) {
        Err(e) => {
            assert!(
                e.to_string().contains("bad.ctb"),
                "error names the file: {e}"
            );
            e
        }
        Ok(_) => panic!("damaged file was accepted"),
    }
}

#[test]
fn damaged_files_give_their_errors() {
    let (_dir, path) = krk_dir();
    assert!(read_table(&path).is_ok());
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(matches!(
        damaged(&path, |b| b.truncate(len - 10)),
        TableError::Truncated(_)
    ));
    assert!(matches!(
        damaged(&path, |b| b.truncate(5)),
        TableError::Truncated(_)
    ));
    assert!(matches!(
        damaged(&path, |b| b[0] ^= 0xFF),
        TableError::BadMagic(_)
    ));
    assert!(matches!(
        damaged(&path, |b| b[30] ^= 0x01),
        TableError::CorruptHeader { .. }
    ));
    assert!(matches!(
        damaged(&path, |b| {
            let last = b.len() - 3;
            b[last] ^= 0x40
        }),
        TableError::CorruptPayload(_)
    ));
    // A header from another format version, with a valid checksum.
    let bytes = std::fs::read(&path).unwrap();
    let (mut header, _) = parse_header(&path, &bytes).unwrap();
    header.format_version = 99;
    let head = bincode::encode_to_vec(&header, bincode::config::standard()).unwrap();
    let hlen = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let mut v = bytes[..8].to_vec();
    v.extend((head.len() as u32).to_le_bytes());
    v.extend(xxhash_rust::xxh3::xxh3_64(&head).to_le_bytes());
    v.extend(&head);
    v.extend(&bytes[20 + hlen..]);
    assert!(matches!(
        damaged(&path, |b| *b = v),
        TableError::Version { .. }
    ));
}

#[test]
fn probing_a_damaged_or_missing_table_is_an_error() {
    let (dir, path) = krk_dir();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&path, &bytes).unwrap();
    let tb = Tablebase::open(dir.path());
    let pos = canju::rules::Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w").unwrap();
    assert!(matches!(
        tb.probe(&pos),
        Err(ProbeError::Table(TableError::Truncated(_)))
    ));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(
        tb.probe(&pos),
        Err(ProbeError::MissingTable { .. })
    ));
}

#[test]
fn no_temporary_files_are_left() {
    let (dir, _) = krk_dir();
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(name.ends_with(".ctb"), "{name}");
    }
}

static KRK_BYTES: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
    let (_dir, path) = krk_dir();
    std::fs::read(path).unwrap()
});

proptest! {
    #[test]
    fn header_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_header(Path::new("random.ctb"), &bytes);
    }

    #[test]
    fn header_parser_survives_flips_of_a_real_header(pos in 0usize..400, bit in 0u8..8) {
        let mut bytes = KRK_BYTES.clone();
        let i = pos % bytes.len();
        bytes[i] ^= 1 << bit;
        // Any flip inside the header or its framing is caught by the checksum or the sizes.
        if i < 400.min(bytes.len()) {
            let _ = parse_header(Path::new("KRK.ctb"), &bytes);
        }
    }
}

#[test]
fn every_value_up_to_four_men_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(dir.path());
    let sets = Material::all_up_to(4);
    generate_all(&tb, &sets, &GenOptions::default()).unwrap();
    let (mut checked, mut searched) = (0u64, 0u64);
    for m in sets {
        let solved = canju::generate::solve(&tb, m, &GenOptions::default())
            .unwrap()
            .values
            .into_stored();
        let table = tb.table(m).unwrap();
        let header = table.file.header();
        // Each position's probe, one at a time: a one-ply search for the side whose distances
        // the file does not store (before anything is read whole).
        let probed: Vec<Vec<_>> = (0..2)
            .map(|side| {
                (0..table.index.size())
                    .map(|i| {
                        let turn = canju::rules::Color::ALL[side];
                        let pos = table.index.decode(i, turn)?;
                        let legal = table.index.encode(&pos) == Some(i) && pos.validate().is_ok();
                        legal.then(|| tb.probe(&pos).unwrap())
                    })
                    .collect()
            })
            .collect();
        // Both sides whole, the searched one by the search over every slot.
        let values = tb.stored_values(m).unwrap();
        let whole = Tablebase::open(dir.path());
        whole.load_all(&whole.table(m).unwrap()).unwrap();
        for (side, solved) in solved.iter().enumerate() {
            for (i, &v) in solved.iter().enumerate() {
                if v == 0xFFFF {
                    continue;
                }
                assert_eq!(values[side][i], v, "{m} side {side} slot {i}");
                let i = i as u64;
                if header.stores_distances_of(side) {
                    assert_eq!(
                        table.file.dtm(side, i).unwrap(),
                        v,
                        "{m} side {side} slot {i}"
                    );
                }
                let turn = canju::rules::Color::ALL[side];
                let pos = table.index.decode(i, turn).unwrap();
                let one = probed[side][i as usize].expect("a legal slot");
                assert_eq!(whole.probe(&pos).unwrap(), one, "{m} side {side} slot {i}");
                let wdl = table.file.wdl(side, i).unwrap();
                // Draw, then the rules' wins and losses, then distances (odd wins).
                let rule_codes = header.rule_codes_of(side);
                let expected = match v {
                    0xFFFE => 1,
                    // Folded into wins and losses from format 11 (the search tells).
                    0xFFFC if rule_codes == RuleCodes::Every => 4,
                    0xFFFD if rule_codes == RuleCodes::Every => 3,
                    0xFFFC => 2,
                    0xFFFD => 0,
                    d => 2 * (d % 2) as u8,
                };
                assert_eq!(wdl, expected, "{m} side {side} slot {i}");
                checked += 1;
                searched += u64::from(!header.stores_distances_of(side));
            }
        }
    }
    assert!(checked > 1_000_000, "{checked}");
    // Every table with distances stores one side's and finds the other's by search.
    assert!(searched > checked / 3, "{searched} of {checked}");
}

/// Values shaped like a table's: long runs of a few distances, drawn from a small shared
/// vocabulary of run patterns, so blocks resemble each other but not themselves.
fn table_like_values(slots: usize, seed: u64) -> Vec<u16> {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let patterns: Vec<Vec<u16>> = (0..48)
        .map(|_| {
            (0..96)
                .map(|_| match next() % 7 {
                    0 => 0xFFFE,
                    1 => 0xFFFF,
                    k => (k * 2 + (next() % 2)) as u16,
                })
                .collect()
        })
        .collect();
    let mut values = Vec::with_capacity(slots);
    while values.len() < slots {
        let p = &patterns[(next() % 48) as usize];
        values.extend_from_slice(p);
    }
    values.truncate(slots);
    values
}

#[test]
fn a_table_compressed_with_a_dictionary_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("KRKR.asian.ctb");
    let slots = 200 * canju::table::DTM_BLOCK as usize;
    let values = [table_like_values(slots, 1), table_like_values(slots, 2)];
    canju::table::write_table(&path, "asian", "KRKR", values.clone(), Default::default()).unwrap();
    let file = canju::table::TableFile::open(&path).unwrap();
    assert!(
        !file.header().dtm.as_ref().unwrap().dictionary.is_empty(),
        "the DTM section should keep its dictionary"
    );
    file.verify_checksums().unwrap();
    let loaded = canju::table::read_table(&path).unwrap();
    for (side, (written, read)) in values.iter().zip(&loaded.values).enumerate() {
        // `write_table` keeps both sides' distances: any values read back.
        let read = read.as_ref().unwrap();
        for (i, (&want, &got)) in written.iter().zip(read).enumerate() {
            if want != 0xFFFF {
                assert_eq!(want, got, "side {side} slot {i}");
                assert_eq!(file.dtm(side, i as u64).unwrap(), want);
            }
        }
    }
}

#[test]
fn format_3_tables_still_read() {
    // Written by canju's format 3 (no dictionaries); a user's old tables keep working.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format3");
    let file = canju::table::TableFile::open(&dir.join("KNK.asian.ctb")).unwrap();
    assert_eq!(file.header().format_version, 3);
    file.verify_checksums().unwrap();
    // Written when `asian` was the perpetual-check rule alone: never read as today's asian,
    // read as `check`.
    assert_eq!(file.header().rules, "check");
    let pos = canju::rules::Position::from_fen("3k5/9/9/9/9/9/9/4N4/9/4K4 w").unwrap();
    let err = Tablebase::open(&dir).probe(&pos).unwrap_err();
    assert!(
        matches!(
            err,
            ProbeError::Table(TableError::CheckOnlyRules { version: 3, .. })
        ),
        "{err}"
    );
    assert!(err.to_string().contains("KNK.check.ctb"), "{err}");
    let copy = tempfile::tempdir().unwrap();
    let old_name = copy.path().join("KNK.asian.ctb");
    std::fs::copy(dir.join("KNK.asian.ctb"), &old_name).unwrap();
    let before = read_table(&old_name).unwrap().values;
    // Its DTM blocks are larger than today's, so repacking compresses them again; it moves
    // to the name of the rule it holds.
    let repacked = canju::table::repack(&old_name).unwrap();
    let path = copy.path().join("KNK.check.ctb");
    assert_eq!(repacked.path, path);
    assert!(!old_name.exists());
    let tb = Tablebase::with_rules(copy.path(), RuleSet::Check);
    assert_eq!(tb.probe(&pos).unwrap(), canju::value::Value::Win(5));
    let after = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(
        after.header().dtm.as_ref().unwrap().block_values,
        canju::table::DTM_BLOCK
    );
    assert_ne!(
        file.header().dtm.as_ref().unwrap().block_values,
        canju::table::DTM_BLOCK
    );
    assert_eq!(read_table(&path).unwrap().values, before);
}

#[test]
fn format_7_tables_read_as_check_and_repack_to_the_check_name_keeping_their_values() {
    // Written by canju's format 7, the last whose `asian` was the perpetual-check rule alone:
    // KNK with distances, KCKA without (`--wdl-only`).
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format7");
    let dir = tempfile::tempdir().unwrap();
    for name in ["KK", "KNK", "KAK", "KCK", "KCKA"] {
        let file = format!("{name}.asian.ctb");
        std::fs::copy(src.join(&file), dir.path().join(&file)).unwrap();
    }
    let knk = canju::rules::Position::from_fen("3k5/9/9/9/9/9/9/4N4/9/4K4 w").unwrap();
    let asian = Tablebase::open(dir.path());
    assert!(matches!(
        asian.probe(&knk),
        Err(ProbeError::Table(TableError::CheckOnlyRules {
            version: 7,
            ..
        }))
    ));
    for name in ["KK", "KNK", "KAK", "KCK", "KCKA"] {
        let old_path = dir.path().join(format!("{name}.asian.ctb"));
        let old = canju::table::TableFile::open(&old_path).unwrap();
        assert_eq!(old.header().format_version, 7);
        assert_eq!(old.header().rules, "check");
        let payload = std::fs::read(&old_path).unwrap()[old.payload_start()..].to_vec();
        let values = old.load_dtm().ok().map(|d| d.into_stored());
        let codes = old.load_wdl().unwrap();
        drop(old);
        let r = canju::table::repack(&old_path).unwrap();
        assert_eq!(r.path, dir.path().join(format!("{name}.check.ctb")));
        assert!(!old_path.exists());
        let new = canju::table::TableFile::open(&r.path).unwrap();
        assert_eq!(new.header().format_version, canju::table::FORMAT_VERSION);
        assert!(
            !assert_repacked(&new, &payload, &codes, false),
            "both sides stored"
        );
        new.verify_checksums().unwrap();
        assert_eq!(
            new.load_dtm().ok().map(|d| d.into_stored()),
            values,
            "{name}"
        );
    }
    let check = Tablebase::with_rules(dir.path(), RuleSet::Check);
    assert_eq!(check.probe(&knk).unwrap(), canju::value::Value::Win(5));
    let kcka = canju::rules::Position::from_fen("3k5/4a4/9/9/9/9/9/4C4/9/4K4 w").unwrap();
    assert!(check.probe_wdl(&kcka).is_ok());
}

#[test]
fn format_4_tables_still_read_and_repack_to_the_current_format() {
    // Written by canju's format 4 (WDL as zstd frames); old tables keep working and
    // `repack` rewrites them without changing a value.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format4");
    let dir = tempfile::tempdir().unwrap();
    for name in ["KK", "KAK", "KBK", "KNK"] {
        // Named for the rule they hold (see format_3_tables_still_read).
        let file = format!("{name}.asian.ctb");
        let checked = format!("{name}.check.ctb");
        std::fs::copy(src.join(&file), dir.path().join(&checked)).unwrap();
    }
    let path = dir.path().join("KNK.check.ctb");
    let old = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(old.header().format_version, 4);
    old.verify_checksums().unwrap();
    let old_values = read_table(&path).unwrap().values;
    let old_wdl = old.load_wdl().unwrap();
    let old_dtm_bytes = old.section_bytes(canju::table::SectionKind::Dtm);
    let pos = canju::rules::Position::from_fen("3k5/9/9/9/9/9/9/4N4/9/4K4 w").unwrap();
    assert_eq!(
        Tablebase::with_rules(dir.path(), RuleSet::Check)
            .probe(&pos)
            .unwrap(),
        canju::value::Value::Win(5)
    );
    drop(old);
    canju::table::repack(&path).unwrap();
    let new = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(new.header().format_version, canju::table::FORMAT_VERSION);
    assert_eq!(new.header().wdl.codec, canju::table::Codec::Lzh);
    // Its DTM section is stored again as halves, in fewer bytes.
    assert_eq!(
        new.header().dtm.as_ref().unwrap().codec,
        canju::table::Codec::ZstdBare
    );
    assert!(new.section_bytes(canju::table::SectionKind::Dtm) < old_dtm_bytes);
    assert_eq!(read_table(&path).unwrap().values, old_values);
    assert_eq!(new.load_wdl().unwrap(), old_wdl);
    for (side, codes) in old_wdl.iter().enumerate() {
        for (i, &w) in codes.iter().enumerate() {
            assert_eq!(new.wdl(side, i as u64).unwrap(), w);
        }
    }
}

#[test]
fn format_6_tables_still_read_and_repack_to_the_current_format() {
    // Written by canju's format 6 (the DTM section always present, no rule codes in WDL).
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format6");
    let dir = tempfile::tempdir().unwrap();
    for name in ["KK", "KNK", "KRK"] {
        // Named for the rule they hold (see format_3_tables_still_read).
        let file = format!("{name}.asian.ctb");
        let checked = format!("{name}.check.ctb");
        std::fs::copy(src.join(&file), dir.path().join(&checked)).unwrap();
    }
    let path = dir.path().join("KRK.check.ctb");
    let old = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(old.header().format_version, 6);
    assert!(old.header().holds_distances());
    old.verify_checksums().unwrap();
    let old_values = read_table(&path).unwrap().values;
    let old_wdl = old.load_wdl().unwrap();
    let old_dtm_bytes = old.section_bytes(canju::table::SectionKind::Dtm);
    let pos = canju::rules::Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w").unwrap();
    assert!(matches!(
        Tablebase::with_rules(dir.path(), RuleSet::Check)
            .probe(&pos)
            .unwrap(),
        canju::value::Value::Win(_)
    ));
    drop(old);
    canju::table::repack(&path).unwrap();
    let new = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(new.header().format_version, canju::table::FORMAT_VERSION);
    assert!(new.section_bytes(canju::table::SectionKind::Dtm) < old_dtm_bytes);
    assert_eq!(read_table(&path).unwrap().values, old_values);
    assert_eq!(new.load_wdl().unwrap(), old_wdl);
}

#[test]
fn format_5_tables_still_read_and_repack_to_aligned_paired_blocks() {
    // Written by canju's format 5 (WDL blocks of one stream and any size, payload right after
    // the header); KNKN has hundreds of blocks. `repack` rewrites it in today's layout.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format5");
    let dir = tempfile::tempdir().unwrap();
    for name in ["KK", "KNK", "KNKN"] {
        // Named for the rule they hold (see format_3_tables_still_read).
        let file = format!("{name}.asian.ctb");
        let checked = format!("{name}.check.ctb");
        std::fs::copy(src.join(&file), dir.path().join(&checked)).unwrap();
    }
    let path = dir.path().join("KNKN.check.ctb");
    let old = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(old.header().format_version, 5);
    assert!(old.header().wdl.block_sizes.len() > 100);
    old.verify_checksums().unwrap();
    let old_values = read_table(&path).unwrap().values;
    let old_wdl = old.load_wdl().unwrap();
    // Horse against horse, read through the old layout.
    let pos = canju::rules::Position::from_fen("3k5/9/9/9/4n4/9/9/4N4/9/4K4 w").unwrap();
    let tb = Tablebase::with_rules(dir.path(), RuleSet::Check);
    let (wdl, value) = (tb.probe_wdl(&pos).unwrap(), tb.probe(&pos).unwrap());
    assert_eq!(wdl, canju::probe::Wdl::from(value));
    drop((old, tb));
    canju::table::repack(&path).unwrap();
    let new = canju::table::TableFile::open(&path).unwrap();
    let h = new.header();
    assert_eq!(h.format_version, canju::table::FORMAT_VERSION);
    assert!(h.wdl.block_sizes.is_empty());
    assert_eq!(h.wdl.block_splits.len(), h.wdl.block_counts.len());
    assert_eq!(
        new.section_bytes(canju::table::SectionKind::Wdl),
        (h.wdl.block_counts.len() * canju::table::lzh::BLOCK_BYTES) as u64
    );
    assert_eq!(new.payload_start() % canju::table::PAYLOAD_ALIGN, 0);
    assert_eq!(read_table(&path).unwrap().values, old_values);
    assert_eq!(new.load_wdl().unwrap(), old_wdl);
    for (side, codes) in old_wdl.iter().enumerate() {
        for (i, &w) in codes.iter().enumerate() {
            assert_eq!(new.wdl(side, i as u64).unwrap(), w, "side {side} slot {i}");
        }
    }
    drop(new);
    let tb = Tablebase::with_rules(dir.path(), RuleSet::Check);
    assert_eq!(
        (tb.probe_wdl(&pos).unwrap(), tb.probe(&pos).unwrap()),
        (wdl, value)
    );
}

#[test]
fn a_damaged_wdl_section_is_caught_when_probed() {
    let (_dir, path) = krk_dir();
    let bytes = std::fs::read(&path).unwrap();
    let start = canju::table::TableFile::open(&path)
        .unwrap()
        .payload_start();
    let mut bad = bytes.clone();
    // The WDL section starts the payload.
    bad[start] ^= 0x08;
    let bad_path = path.with_file_name("bad.ctb");
    std::fs::write(&bad_path, &bad).unwrap();
    let file = canju::table::TableFile::open(&bad_path).unwrap();
    assert!(matches!(file.wdl(0, 0), Err(TableError::CorruptPayload(_))));
    assert!(matches!(
        file.load_wdl(),
        Err(TableError::CorruptPayload(_))
    ));
    // The intact file answers.
    let good = canju::table::TableFile::open(&path).unwrap();
    assert!(good.wdl(0, 0).is_ok());
}

/// `bytes` (a format-6 table) with its header changed by `edit` and a valid checksum, so
/// that the checks after the checksum are what refuse it.
fn with_header(path: &Path, edit: impl FnOnce(&mut canju::table::Header)) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let (mut header, _) = parse_header(path, &bytes).unwrap();
    edit(&mut header);
    with_header_bytes(path, canju::table::encode_header(&header))
}

/// The table at `path` with the header bytes `head` (checksummed), its payload kept.
fn with_header_bytes(path: &Path, head: Vec<u8>) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let (_, start) = parse_header(path, &bytes).unwrap();
    let mut v = bytes[..8].to_vec();
    v.extend((head.len() as u32).to_le_bytes());
    v.extend(xxhash_rust::xxh3::xxh3_64(&head).to_le_bytes());
    v.extend(&head);
    v.resize((20 + head.len()).next_multiple_of(64), 0);
    v.extend(&bytes[start..]);
    v
}

/// A change to a header.
type HeaderEdit = Box<dyn FnOnce(&mut canju::table::Header)>;

#[test]
fn crafted_headers_are_refused_naming_the_check() {
    let (_dir, path) = krk_dir();
    // Unchanged, the re-encoded file reads.
    let same = with_header(&path, |_| {});
    let copy = path.with_file_name("same.ctb");
    std::fs::write(&copy, &same).unwrap();
    assert!(read_table(&copy).is_ok());
    let cases: [(&str, HeaderEdit); 8] = [
        // A side to move that is none, or both sides' distances claimed of a file that
        // holds one side's blocks.
        (
            "the side its distances are stored for",
            Box::new(|h| h.dtm_side = Some(2)),
        ),
        (
            "DTM section's block layout",
            Box::new(|h| h.dtm_side = None),
        ),
        // Any slot count, the largest included: no overflow, a named refusal.
        ("section's block layout", Box::new(|h| h.slots = u64::MAX)),
        (
            "DTM section's block layout",
            Box::new(|h| h.dtm.as_mut().unwrap().offsets.pop().map(|_| ()).unwrap()),
        ),
        (
            "do not follow each other",
            Box::new(|h| {
                h.dtm
                    .as_mut()
                    .unwrap()
                    .offsets
                    .iter_mut()
                    .for_each(|o| *o += 1)
            }),
        ),
        (
            "value width",
            Box::new(|h| h.dtm.as_mut().unwrap().value_bytes = 0),
        ),
        // Distances where format 7 stores halves, and WDL in an old codec.
        (
            "codecs for its format version",
            Box::new(|h| h.dtm.as_mut().unwrap().codec = canju::table::Codec::Zstd),
        ),
        // (caught by the WDL section's layout, which a codec sets)
        (
            "WDL section's block layout",
            Box::new(|h| h.wdl.codec = canju::table::Codec::ZstdHalves),
        ),
    ];
    for (check, edit) in cases {
        let bytes = with_header(&path, edit);
        match damaged(&path, |b| *b = bytes) {
            TableError::CorruptHeader { check: named, .. } => {
                assert!(named.contains(check), "{named} for {check}")
            }
            // A slot count that disagrees with the set may be caught as that first.
            other => assert!(
                check.contains("block layout") && other.to_string().contains("bad.ctb"),
                "{other}"
            ),
        }
    }
}

#[test]
fn a_damaged_compressed_header_is_refused_naming_the_check() {
    let (_dir, path) = krk_dir();
    let bytes = std::fs::read(&path).unwrap();
    let (header, _) = parse_header(&path, &bytes).unwrap();
    assert_eq!(
        header.format_version,
        canju::table::COMPRESSED_HEADER_VERSION
    );
    let head = canju::table::encode_header(&header);
    let version = bincode::encode_to_vec(header.format_version, bincode::config::standard())
        .unwrap()
        .len();
    // Its bincode, whole, is far larger than the frame it is stored as.
    let whole = bincode::encode_to_vec(&header, bincode::config::standard()).unwrap();
    assert!(
        head.len() < whole.len() / 2,
        "{} of {}",
        head.len(),
        whole.len()
    );
    let framed = |frame: &[u8]| [&head[..version], frame].concat();
    let inner_version = |v: u32| {
        let mut h = header.clone();
        h.format_version = v;
        let whole = bincode::encode_to_vec(&h, bincode::config::standard()).unwrap();
        framed(&zstd::bulk::compress(&whole, 3).unwrap())
    };
    let cases: [(&str, Vec<u8>); 5] = [
        (
            "does not decompress",
            framed(&head[version..head.len() - 1]),
        ),
        ("does not decompress", [&head[..], &[0]].concat()),
        (
            "does not decompress",
            framed(&[0x28, 0xB5, 0x2F, 0xFD, 0, 0]),
        ),
        // A frame that decompresses to the header of another version, or to bytes that are
        // not one.
        ("does not decode", inner_version(11)),
        (
            "does not decode",
            framed(&zstd::bulk::compress(&[7; 100], 3).unwrap()),
        ),
    ];
    for (check, head) in cases {
        let bytes = with_header_bytes(&path, head);
        match damaged(&path, |b| *b = bytes) {
            TableError::CorruptHeader { check: named, .. } => {
                assert!(named.contains(check), "{named} for {check}")
            }
            other => panic!("{other} for {check}"),
        }
    }
}

#[test]
fn probing_an_illegal_position_is_an_error_not_a_neighbours_value() {
    let (dir, _path) = krk_dir();
    let tb = Tablebase::open(dir.path());
    // Red to move while black stands in check from the rook: illegal (the side not to move
    // is in check), yet it maps to a slot of KRK.
    let pos = canju::rules::Position::from_fen_unchecked("3k5/9/9/9/9/9/9/9/9/3RK4 w").unwrap();
    assert!(pos.validate().is_err());
    assert!(matches!(tb.probe(&pos), Err(ProbeError::Position(_))));
    assert!(matches!(tb.probe_wdl(&pos), Err(ProbeError::Position(_))));
    assert!(matches!(tb.move_values(&pos), Err(ProbeError::Position(_))));
}

/// Opens `bytes` as KRK's table and probes every legal position (DTM and WDL): errors are
/// fine, a panic is not.
fn probe_every_krk_position(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("KRK.asian.ctb"), bytes).unwrap();
    let tb = Tablebase::open(dir.path());
    let index = canju::index::MaterialIndex::new(Material::parse("KRK").unwrap());
    for (_, pos) in index.legal_positions() {
        let _ = tb.probe(&pos);
        let _ = tb.probe_wdl(&pos);
    }
    let _ = canju::verify::verify_table(&tb, Material::parse("KRK").unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Damage anywhere in a real table, its blocks included, gives values or errors.
    #[test]
    fn damaged_tables_never_panic_the_reader(
        flips in proptest::collection::vec((any::<usize>(), 1u8..=255), 1..6)
    ) {
        let mut bytes = KRK_BYTES.clone();
        let n = bytes.len();
        for (at, mask) in flips {
            bytes[at % n] ^= mask;
        }
        probe_every_krk_position(&bytes);
    }

    /// Headers with a valid checksum and any slot count, block size or offsets are refused
    /// or read without a panic.
    #[test]
    fn crafted_header_fields_never_panic_the_reader(
        slots in any::<u64>(),
        block_values in any::<u32>(),
        offset in any::<u64>(),
        which in 0usize..4,
    ) {
        let (_dir, path) = krk_dir_cached();
        let bytes = with_header(&path, |h| match which {
            0 => h.slots = slots,
            1 => h.dtm.as_mut().unwrap().block_values = block_values,
            2 => {
                let k = (offset as usize) % h.dtm.as_mut().unwrap().offsets.len();
                h.dtm.as_mut().unwrap().offsets[k] = offset;
            }
            _ => {
                let k = (offset as usize) % h.wdl.offsets.len();
                h.wdl.offsets[k] = offset % (1 << 20);
            }
        });
        probe_every_krk_position(&bytes);
    }
}

/// KRK's table, generated once for the property tests.
fn krk_dir_cached() -> (std::path::PathBuf, std::path::PathBuf) {
    static DIR: std::sync::LazyLock<(tempfile::TempDir, std::path::PathBuf)> =
        std::sync::LazyLock::new(krk_dir);
    (DIR.0.path().to_path_buf(), DIR.1.clone())
}

/// Every legal position of `table` probes the same in `old` and `new`.
fn assert_probes_agree(old: &Tablebase, new: &Tablebase, table: &canju::probe::Table) {
    for (_, pos) in table.index.legal_positions() {
        let m = table.material.name();
        assert_eq!(
            old.probe(&pos).unwrap(),
            new.probe(&pos).unwrap(),
            "{m} {}",
            pos.fen()
        );
    }
}

/// The payload of the table file at `path` and its values, both sides to move.
fn payload_and_values(path: &Path) -> (Vec<u8>, [Option<Vec<u16>>; 2]) {
    let f = canju::table::TableFile::open(path).unwrap();
    let payload = std::fs::read(path).unwrap()[f.payload_start()..].to_vec();
    (payload, read_table(path).unwrap().values)
}

/// The fixtures of `tests/data/FOLDER` (KRKN and every set it and KNKA reach) copied to a
/// folder of their own, and KRKN and KNKA generated today in another: both folders, a
/// tablebase over each, and the two sets.
fn fixtures_beside_today(
    folder: &str,
) -> (
    tempfile::TempDir,
    Tablebase,
    tempfile::TempDir,
    Tablebase,
    [Material; 2],
) {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(folder);
    let old_dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), old_dir.path().join(e.file_name())).unwrap();
    }
    let old = Tablebase::open(old_dir.path());
    let new_dir = tempfile::tempdir().unwrap();
    let new = Tablebase::open(new_dir.path());
    let sets = ["KRKN", "KNKA"].map(|m| Material::parse(m).unwrap());
    generate_all(&new, &sets, &GenOptions::default()).unwrap();
    (old_dir, old, new_dir, new, sets)
}

#[test]
fn format_8_tables_hold_both_sides_read_as_today_and_repack_keeping_their_values() {
    // Written by canju's format 8 (both sides' distances; `asian` with the chase rule):
    // KRKN and every set it and KNKA reach.
    let (old_dir, old, _new_dir, new, sets) = fixtures_beside_today("format8");
    for m in sets {
        let (o, n) = (old.table(m).unwrap(), new.table(m).unwrap());
        assert_eq!(o.file.header().format_version, 8);
        assert_eq!(
            o.file.header().dtm_side,
            None,
            "{m}: format 8 stores both sides"
        );
        assert!(n.file.header().dtm_side.is_some(), "{m}: today one side");
        assert!(n.file.file_bytes() < o.file.file_bytes(), "{m}");
        // Same value for every position, read from both sides' distances in the old file
        // and through the search in the new one.
        assert_probes_agree(&old, &new, &o);
        canju::verify::verify_table(&old, m).unwrap();
    }
    // Repacked: today's format, the same values (both sides stay stored).
    let path = old_dir.path().join("KRKN.asian.ctb");
    let (payload, before) = payload_and_values(&path);
    let codes = canju::table::TableFile::open(&path)
        .unwrap()
        .load_wdl()
        .unwrap();
    old.forget(sets[0]);
    let r = canju::table::repack(&path).unwrap();
    assert_eq!(r.path, path);
    assert!(r.after < r.before, "bare frames are smaller");
    let f = canju::table::TableFile::open(&path).unwrap();
    assert_eq!(f.header().format_version, canju::table::FORMAT_VERSION);
    assert_eq!(f.header().dtm_side, None);
    assert!(
        !assert_repacked(&f, &payload, &codes, false),
        "both sides stored"
    );
    let after = read_table(&path).unwrap().values;
    assert_eq!(after.each_ref().map(|v| v.is_some()), [true; 2]);
    assert_eq!(after, before);
}

/// Checks a table repacked from formats 7 to 11, whose old payload was `payload` and WDL
/// codes `codes`: its WDL codes are the old ones with the perpetual-check rule's folded into
/// wins and losses on the side whose distances a search gives (format 11; its section the
/// old one byte for byte where nothing was folded), and its DTM section, if any, bare
/// frames; where nothing was folded and the old frames were bare already (formats 10 and
/// 11), the whole payload is the old one byte for byte. True if codes were folded.
fn assert_repacked(
    new: &canju::table::TableFile,
    payload: &[u8],
    codes: &[Vec<u8>; 2],
    frames_were_bare: bool,
) -> bool {
    let h = new.header();
    let mut expected = codes.clone();
    for (side, side_codes) in expected.iter_mut().enumerate() {
        if h.rule_codes_of(side) == RuleCodes::ButCheck {
            for code in side_codes.iter_mut() {
                *code = match *code {
                    3 => 0,
                    4 => 2,
                    other => other,
                };
            }
        }
    }
    assert_eq!(&new.load_wdl().unwrap(), &expected);
    let folded = expected != *codes;
    let bytes = std::fs::read(new.path()).unwrap()[new.payload_start()..].to_vec();
    if !folded {
        let wdl_end = *h.wdl.offsets.last().unwrap() as usize;
        assert_eq!(bytes[..wdl_end], payload[..wdl_end]);
    }
    match &h.dtm {
        Some(dtm) => assert_eq!(dtm.codec, canju::table::Codec::ZstdBare),
        None => assert_eq!(bytes, payload),
    }
    if !folded && frames_were_bare {
        assert_eq!(bytes, payload, "{}", new.path().display());
    }
    folded
}

/// The fixtures of `tests/data/FOLDER`, written by canju's format `version` (one side's
/// distances, in DTM sections of `codec`), probe as today's tables do, and repack to
/// today's format keeping every value; a second repack rewrites nothing. Returns the sets
/// whose searched side had codes of the perpetual-check rule, now folded.
fn one_side_fixtures_read_as_today_and_repack(
    folder: &str,
    version: u32,
    codec: canju::table::Codec,
) -> Vec<&'static str> {
    let (old_dir, old, _new_dir, new, sets) = fixtures_beside_today(folder);
    for m in sets {
        let (o, n) = (old.table(m).unwrap(), new.table(m).unwrap());
        assert_eq!(o.file.header().format_version, version);
        let codec_of = |t: &canju::probe::Table| t.file.header().dtm.as_ref().unwrap().codec;
        assert_eq!(codec_of(&o), codec, "{m}");
        assert_eq!(codec_of(&n), canju::table::Codec::ZstdBare, "{m}");
        assert_probes_agree(&old, &new, &o);
    }
    let rule_results = |tb: &Tablebase| {
        let mut listed = vec![];
        canju::report::rule_decided_positions(tb, sets[0], |pos, v| {
            listed.push((pos.fen(), v));
        })
        .unwrap();
        listed
    };
    let rule_results_before = rule_results(&old);
    assert!(
        !rule_results_before.is_empty(),
        "KRKN has results by the rule"
    );
    let mut folded = vec![];
    for name in ["KRKN", "KNKA", "KNK", "KK"] {
        let path = old_dir.path().join(format!("{name}.asian.ctb"));
        let (payload, before) = payload_and_values(&path);
        let codes = canju::table::TableFile::open(&path)
            .unwrap()
            .load_wdl()
            .unwrap();
        old.forget(Material::parse(name).unwrap());
        let r = canju::table::repack(&path).unwrap();
        assert_eq!(r.path, path);
        let f = canju::table::TableFile::open(&path).unwrap();
        assert_eq!(f.header().format_version, canju::table::FORMAT_VERSION);
        if assert_repacked(&f, &payload, &codes, codec == canju::table::Codec::ZstdBare) {
            folded.push(name);
        }
        assert_eq!(read_table(&path).unwrap().values, before, "{name}");
        if name == "KRKN" {
            // Its frames take 9 to 13 bytes fewer each from format 9 (a set of a few frames
            // may grow: zstd's btopt, faster than the btultra of format 9's files, loses more
            // there), its folded codes compress smaller (format 11), and its header is
            // compressed (format 12).
            assert!(
                r.after < r.before,
                "{name}: {} against {}",
                r.after,
                r.before
            );
        }
        // Repacked again: already current, nothing rewritten.
        let again = canju::table::repack(&path).unwrap();
        assert_eq!(again.before, again.after);
    }
    // The repacked files probe as today's, outcomes with their rules too (the searched
    // side's results by the perpetual-check rule found by the search), and list the same
    // results by the rule.
    let repacked = Tablebase::open(old_dir.path());
    for m in sets {
        let table = new.table(m).unwrap();
        assert_probes_agree(&repacked, &new, &table);
        for (_, pos) in table.index.legal_positions() {
            let value = new.probe(&pos).unwrap();
            let outcome = repacked.probe_outcome(&pos).unwrap();
            assert_eq!(outcome, canju::value::Outcome::from(value), "{}", pos.fen());
        }
    }
    assert_eq!(rule_results(&repacked), rule_results_before);
    folded
}

#[test]
fn format_9_tables_read_as_today_and_repack_to_bare_frames_keeping_their_values() {
    // Written by canju's format 9 (one side's distances in zstd frames with their own
    // checksums): KRKN and every set it and KNKA reach.
    let folded =
        one_side_fixtures_read_as_today_and_repack("format9", 9, canju::table::Codec::ZstdHalves);
    assert_eq!(folded, ["KRKN"]);
}

#[test]
fn format_10_tables_read_as_today_and_repack_folding_the_check_rule_codes() {
    // Written by canju's format 10 (bare frames; the searched side's WDL codes tell every
    // rule's results apart): KRKN and every set it and KNKA reach.
    let folded =
        one_side_fixtures_read_as_today_and_repack("format10", 10, canju::table::Codec::ZstdBare);
    assert_eq!(folded, ["KRKN"], "black loses KRKN's draws by the rule");
}

#[test]
fn format_11_tables_read_as_today_and_repack_to_a_compressed_header_keeping_their_payload() {
    // Written by canju's format 11 (its header not compressed): KRKN and every set it and
    // KNKA reach. Nothing is folded, and every payload is kept byte for byte.
    let folded =
        one_side_fixtures_read_as_today_and_repack("format11", 11, canju::table::Codec::ZstdBare);
    assert!(folded.is_empty(), "{folded:?}");
}

#[test]
fn a_damaged_dtm_section_never_reads_as_a_value() {
    // Bare frames carry no checksum: the section's chunk sums must catch every damaged
    // byte, including those after which a frame still decodes.
    let (_dir, path) = krk_dir();
    let bytes = std::fs::read(&path).unwrap();
    let good = canju::table::TableFile::open(&path).unwrap();
    let h = good.header().clone();
    let dtm = h.dtm.clone().unwrap();
    assert_eq!(dtm.codec, canju::table::Codec::ZstdBare);
    let side = h.dtm_side.unwrap() as usize;
    let decided: Vec<u64> = (0..h.slots)
        .filter(|&i| good.wdl(side, i).is_ok_and(|w| w != canju::table::WDL_DRAW))
        .filter(|&i| good.dtm(side, i).is_ok())
        .collect();
    assert!(!decided.is_empty());
    let (a, z) = (
        dtm.offsets[0] as usize,
        *dtm.offsets.last().unwrap() as usize,
    );
    let bad_path = path.with_file_name("bad.ctb");
    for at in (a..z).step_by(5) {
        let mut bad = bytes.clone();
        bad[good.payload_start() + at] ^= 0x10;
        std::fs::write(&bad_path, &bad).unwrap();
        let file = canju::table::TableFile::open(&bad_path).unwrap();
        for &i in &decided {
            assert!(
                matches!(file.dtm(side, i), Err(TableError::CorruptPayload(_))),
                "byte {at} damaged, slot {i} read"
            );
        }
    }
}
