//! Load on `canju serve` over loopback: probes per second and latency of `GET /xiangqi`.
//!
//! `cargo bench --bench serve` generates `SERVE_SET` (default KCKNB, 5 men) and its
//! sub-tables into `SERVE_DIR` (default: a temporary folder), starts the server on a free
//! port, and runs `SERVE_CLIENTS` clients (default 8), each sending requests for legal
//! positions of the set over fresh connections, until `SERVE_REQUESTS` requests in all
//! (default 20,000) or 30 seconds. Prints requests per second and the latency percentiles.
//! The clients run on the same machine as the server and share its cores.

use canju::generate::{GenOptions, generate_all};
use canju::index::MaterialIndex;
use canju::material::Material;
use canju::probe::Tablebase;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[path = "../tests/running_server/mod.rs"]
mod running_server;

fn main() {
    let set: String = env_or("SERVE_SET", "KCKNB".to_string());
    let clients: usize = env_or("SERVE_CLIENTS", 8);
    let total: usize = env_or("SERVE_REQUESTS", 20_000);
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::env::var("SERVE_DIR").map_or(tmp.path().to_path_buf(), Into::into);
    let m = Material::parse(&set).unwrap();
    let tb = Tablebase::open(&dir);
    generate_all(&tb, &[m], &GenOptions::default()).unwrap();
    let index = MaterialIndex::new(m.canonical());
    let paths: Vec<String> = index
        .legal_positions()
        .step_by(101)
        .take(5_000)
        .map(|(_, p)| format!("/xiangqi?fen={}", p.fen().replace(' ', "_")))
        .collect();
    let server = running_server::start(Path::new(env!("CARGO_BIN_EXE_canju")), &dir, 0);
    let address = server.address.clone();
    let next = AtomicUsize::new(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let start = Instant::now();
    let mut latencies: Vec<f64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..clients)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= total || Instant::now() > deadline {
                            return mine;
                        }
                        let t = Instant::now();
                        let (status, _) =
                            running_server::request(&address, "GET", &paths[k % paths.len()]);
                        assert_eq!(status, 200);
                        mine.push(t.elapsed().as_secs_f64() * 1e3);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    drop(server);
    latencies.sort_by(f64::total_cmp);
    let pct = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "serve {set}: {} requests by {clients} clients in {seconds:.2} s: {:.0} probes/s; latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        latencies.len(),
        latencies.len() as f64 / seconds,
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
}
