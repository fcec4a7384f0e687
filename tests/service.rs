//! `canju serve` as a client sees it: started on a free loopback port, asked over HTTP.

use canju::material::Material;
use canju::probe::Tablebase;
use canju::report::lookup_report;
use canju::rules::{Move, Position};
use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;

mod running_server;

use running_server::{Server, request};

fn start(dir: &Path, gen_max_men: u32) -> Server {
    running_server::start(&assert_cmd::cargo::cargo_bin("canju"), dir, gen_max_men)
}

fn get_json(address: &str, path: &str) -> (u16, Json) {
    let (status, body) = request(address, "GET", path);
    (
        status,
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}")),
    )
}

fn fen_query(pos: &Position) -> String {
    pos.fen().replace(' ', "_")
}

#[test]
fn positions_lines_and_stats_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), 5);
    let a = &server.address;
    // Mate in one: the move's value is that of the position after it (a loss in 0).
    let (status, j) = get_json(a, "/xiangqi?fen=3k5/9/9/9/9/9/9/9/9/R3K4_w");
    assert_eq!(status, 200, "{j}");
    assert_eq!(
        (j["category"].as_str(), j["dtm"].as_i64()),
        (Some("win"), Some(1))
    );
    assert_eq!(j["moves_to_mate"], 1);
    assert_eq!(j["material_chinese"], "车对单将");
    let best = &j["moves"][0];
    assert_eq!(
        (best["category"].as_str(), best["dtm"].as_i64()),
        (Some("loss"), Some(0))
    );
    assert_eq!(best["check"], true);
    let after = Position::from_fen(best["fen"].as_str().unwrap()).unwrap();
    assert!(after.legal_moves().is_empty() && after.in_check());
    let (_, mated) = get_json(a, &format!("/xiangqi?fen={}", fen_query(&after)));
    assert_eq!(
        (mated["checkmate"].as_bool(), mated["stalemate"].as_bool()),
        (Some(true), Some(false))
    );
    // A stalemate (困毙) is a loss.
    let mut p = Position::from_fen("3k5/9/9/9/9/9/9/4N4/9/4K4 w").unwrap();
    for mv in ["e2d4", "d9d8", "e0e1", "d8d7", "d4c6"] {
        p.make(Move::parse_iccs(mv).unwrap());
    }
    let (_, j) = get_json(a, &format!("/xiangqi?fen={}", fen_query(&p)));
    assert_eq!(
        (j["stalemate"].as_bool(), j["category"].as_str()),
        (Some(true), Some("loss"))
    );
    assert_eq!(j["dtm"], 0);
    // The horse's win, its main line ending in that stalemate.
    let (_, j) = get_json(a, "/xiangqi/mainline?fen=3k5/9/9/9/9/9/9/4N4/9/4K4_w");
    assert_eq!(
        (j["dtm"].as_i64(), j["winner"].as_str(), j["end"].as_str()),
        (Some(5), Some("w"), Some("stalemate"))
    );
    assert_eq!(j["mainline"].as_array().unwrap().len(), 5);
    assert_eq!(j["mainline"][4]["dtm"], 0);
    // Cannon and two elephants cannot win (5 men: generated on request).
    let (status, j) = get_json(a, "/xiangqi?fen=4k4/9/9/9/9/9/9/9/4C4/2B1K1B2_w");
    assert_eq!(status, 200, "{j}");
    assert_eq!(
        (j["category"].as_str(), j["dtm"].as_i64()),
        (Some("draw"), None)
    );
    // Won by the perpetual-check rule: no distance, the rule named, the line a cycle.
    let (_, j) = get_json(a, "/xiangqi?fen=9/9/4k4/9/9/9/9/9/1n7/R2K5_w");
    assert_eq!(
        (j["category"].as_str(), j["rule"].as_str()),
        (Some("win-by-rule"), Some("perpetual-check"))
    );
    assert!(j["dtm"].is_null() && j["moves_to_mate"].is_null());
    assert_eq!(j["moves"][0]["category"], "loss-by-rule");
    let (_, j) = get_json(a, "/xiangqi/mainline?fen=9/9/4k4/9/9/9/9/9/1n7/R2K5_w");
    assert_eq!(
        (j["winner"].as_str(), j["end"].as_str()),
        (Some("w"), Some("perpetual-check"))
    );
    assert!(j["mainline"].as_array().unwrap().len() <= 8);
    // Statistics by Chinese name, URL-encoded: what `canju stats --json` prints.
    let (status, j) = get_json(a, "/xiangqi/stats/%E8%BD%A6%E5%AF%B9%E9%A9%AC");
    assert_eq!(status, 200);
    assert_eq!(j["material"], "KRKN");
    let cli = Command::new(assert_cmd::cargo::cargo_bin("canju"))
        .args(["stats", "KRKN", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(j, serde_json::from_slice::<Json>(&cli.stdout).unwrap());
}

#[test]
fn errors_are_json_with_their_status() {
    let dir = tempfile::tempdir().unwrap();
    Command::new(assert_cmd::cargo::cargo_bin("canju"))
        .args(["gen", "KRK", "KNK", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    // A damaged table: the server has not opened it yet.
    let krk = dir.path().join("KRK.asian.ctb");
    let mut bytes = std::fs::read(&krk).unwrap();
    let n = bytes.len();
    bytes[n / 2..].iter_mut().for_each(|b| *b ^= 0x5A);
    std::fs::write(&krk, bytes).unwrap();
    let server = start(dir.path(), 0);
    let a = &server.address;
    let cases = [
        ("GET", "/xiangqi?fen=not_a_fen", 400, "malformed FEN"),
        (
            "GET",
            "/xiangqi?fen=4k4/9/9/9/9/9/9/9/9/4K4_w",
            400,
            "generals face",
        ),
        ("GET", "/xiangqi", 400, "?fen="),
        (
            "GET",
            "/xiangqi?fen=3k5/9/9/9/9/9/9/9/9/2C1K4_w",
            404,
            "canju gen KCK --dir",
        ),
        ("GET", "/xiangqi/stats/KXK", 400, "KXK"),
        ("GET", "/nowhere", 404, "no such page"),
        (
            "POST",
            "/xiangqi?fen=3k5/9/9/9/9/9/9/9/9/R3K4_w",
            405,
            "only GET",
        ),
        (
            "GET",
            "/xiangqi?fen=3k5/9/9/9/9/9/9/9/9/R3K4_w",
            500,
            "KRK.asian.ctb",
        ),
    ];
    for (method, path, want, says) in cases {
        let (status, body) = request(a, method, path);
        assert_eq!(status, want, "{method} {path}: {body}");
        let j: Json = serde_json::from_str(&body).unwrap();
        assert!(
            j["error"].as_str().unwrap().contains(says),
            "{path}: {body}"
        );
        assert_eq!(j["status"], want);
    }
    // The server is still up.
    let (status, _) = get_json(a, "/xiangqi?fen=3k5/9/9/9/9/9/9/4N4/9/4K4_w");
    assert_eq!(status, 200);
}

#[test]
fn concurrent_clients_get_the_library_answers() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(dir.path());
    canju::generate::generate_all(
        &tb,
        &[Material::parse("KRKN").unwrap()],
        &canju::generate::GenOptions::default(),
    )
    .unwrap();
    let index = canju::index::MaterialIndex::new(Material::parse("KRKN").unwrap());
    let positions: Vec<Position> = index
        .legal_positions()
        .step_by(97)
        .map(|(_, p)| p)
        .take(500)
        .collect();
    let expected: Vec<Json> = positions
        .iter()
        .map(|p| serde_json::to_value(lookup_report(&tb, p).unwrap()).unwrap())
        .collect();
    let server = start(dir.path(), 0);
    std::thread::scope(|s| {
        for client in 0..8 {
            let (positions, expected, a) = (&positions, &expected, &server.address);
            s.spawn(move || {
                for k in 0..500 {
                    let i = (k * 7 + client * 61) % positions.len();
                    let (status, j) =
                        get_json(a, &format!("/xiangqi?fen={}", fen_query(&positions[i])));
                    assert_eq!(status, 200);
                    assert_eq!(j, expected[i], "{}", positions[i].fen());
                }
            });
        }
    });
}

#[test]
fn the_page_shows_board_verdict_and_moves() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), 4);
    let (status, html) = request(
        &server.address,
        "GET",
        "/?fen=3k5/9/9/9/9/9/9/4N4/9/4K4_w&notation=wxf",
    );
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("<svg id=\"board\""), "{html}");
    assert!(html.contains("红方胜 3回合 (5步)") && html.contains("red wins, mate in 5 plies"));
    assert!(html.contains(">H5+6</a>"), "moves in WXF: {html}");
    assert!(html.contains("href=\"/?fen=3k5/9/9/9/9/3N5/9/9/9/4K4_b_-_-_0_1&amp;notation=wxf\""));
    assert!(html.contains("id=\"stats\"") && html.contains("马对单将"));
    assert!(
        html.contains("困毙 (stalemate, a loss)"),
        "the line says how it ends"
    );
    let (status, html) = request(&server.address, "GET", "/?fen=junk");
    assert_eq!(status, 400);
    assert!(html.contains("malformed FEN"));
}
