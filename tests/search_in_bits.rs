//! The search in bitmaps (a few bits a position, the distances recorded on disk level by
//! level) against the mate search's cells of a byte a position: the same files, byte for
//! byte, with distances and without, under each rule set.

use canju::generate::{GenOptions, generate_all};
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};

/// Every table of `sets` generated in `dir` under `rules` (without distances if `wdl_only`),
/// by the search in bitmaps or (with `in_cells`) by the mate search's cells, as name and
/// bytes; the folder holds nothing else once the run is done.
fn files(
    dir: &std::path::Path,
    rules: RuleSet,
    sets: &[Material],
    wdl_only: bool,
    in_cells: bool,
) -> Vec<(String, Vec<u8>)> {
    let tb = Tablebase::with_rules(dir, rules);
    let opts = GenOptions {
        wdl_only,
        in_cells,
        ..GenOptions::default()
    };
    generate_all(&tb, sets, &opts).unwrap();
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.ends_with(".ctb"), "{name}: a temporary file is left");
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// The search in bitmaps and the mate search's cells write the same files, byte for byte,
/// under each rule set (the same wins, losses, distances, results by rule, counts and
/// examples).
fn bitmaps_and_cells_agree(sets: &[Material], wdl_only: bool) {
    for rules in [RuleSet::Plain, RuleSet::Check, RuleSet::Asian] {
        let (bits_dir, cells_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let in_bits = files(bits_dir.path(), rules, sets, wdl_only, false);
        let in_cells = files(cells_dir.path(), rules, sets, wdl_only, true);
        assert_eq!(in_bits.len(), in_cells.len(), "{rules:?}");
        assert!(
            in_bits.len() >= sets.len(),
            "{rules:?}: the sets were written"
        );
        for ((name, bits), (cells_name, cells)) in in_bits.iter().zip(&in_cells) {
            assert_eq!(name, cells_name, "{rules:?}");
            assert!(
                bits == cells,
                "{rules:?}, wdl only {wdl_only}: {name} differs"
            );
        }
    }
}

#[test]
fn the_search_in_bitmaps_writes_what_the_cells_write_up_to_four_men() {
    bitmaps_and_cells_agree(&Material::all_up_to(4), false);
}

#[test]
fn without_distances_the_search_in_bitmaps_writes_what_the_cells_write_up_to_four_men() {
    bitmaps_and_cells_agree(&Material::all_up_to(4), true);
}

/// A few 5-men sets with results by every rule (about four minutes a rule set on two cores,
/// with distances and without).
#[test]
#[ignore]
fn the_search_in_bitmaps_writes_what_the_cells_write_on_five_men() {
    let sets = ["KRNKR", "KNPKN", "KRKNC"].map(|m| Material::parse(m).unwrap());
    bitmaps_and_cells_agree(&sets, false);
    bitmaps_and_cells_agree(&sets, true);
}
