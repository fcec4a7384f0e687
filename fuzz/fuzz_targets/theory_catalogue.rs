//! libFuzzer target: [`canju::fuzzing::theory_catalogue`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| canju::fuzzing::theory_catalogue(data));
