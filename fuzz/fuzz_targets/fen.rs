//! libFuzzer target: [`canju::fuzzing::fen`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| canju::fuzzing::fen(data));
