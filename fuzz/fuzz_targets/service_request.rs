//! libFuzzer target: [`canju::fuzzing::service_request`], against a service over every set
//! up to 3 men, generated once into a temporary folder.
#![no_main]

use std::sync::OnceLock;

static SERVICE: OnceLock<(tempfile::TempDir, canju::service::Service)> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (_, service) = SERVICE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        canju::fuzzing::generate_small_tables(dir.path());
        let service = canju::fuzzing::service_over(dir.path());
        (dir, service)
    });
    canju::fuzzing::service_request(service, data);
});
