//! libFuzzer target: [`canju::fuzzing::capi_board`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| canju::fuzzing::capi_board(data));
