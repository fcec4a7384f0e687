//! libFuzzer target: [`canju::fuzzing::table_file`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| canju::fuzzing::table_file(data));
