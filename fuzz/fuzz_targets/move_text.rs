//! libFuzzer target: [`canju::fuzzing::move_text`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| canju::fuzzing::move_text(data));
