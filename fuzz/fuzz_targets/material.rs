//! libFuzzer target: [`canju::fuzzing::material`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| canju::fuzzing::material(data));
