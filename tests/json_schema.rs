//! Every command's `--json` output against the schema the README documents (its *JSON
//! reports* tables): the same keys, each value of the documented type.

use assert_cmd::Command;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::Path;

/// The README's schema: what each command prints, and each object's fields with their types.
struct Schema {
    roots: BTreeMap<String, String>,
    objects: BTreeMap<String, BTreeMap<String, String>>,
}

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().trim_matches('`').to_string())
        .collect()
}

fn schema() -> Schema {
    let readme = include_str!("../README.md");
    let start = readme
        .find("<!-- json-schema begin -->")
        .expect("schema start");
    let end = readme.find("<!-- json-schema end -->").expect("schema end");
    let mut schema = Schema {
        roots: BTreeMap::new(),
        objects: BTreeMap::new(),
    };
    for line in readme[start..end].lines().filter(|l| l.starts_with('|')) {
        let c = cells(line);
        if c[0].starts_with("---") || c[0] == "command" || c[0] == "object" {
            continue;
        }
        if c.len() == 2 {
            let ty = c[1].split(" (").next().unwrap().to_string();
            schema.roots.insert(c[0].clone(), ty);
        } else {
            let fields = schema.objects.entry(c[0].clone()).or_default();
            assert!(
                fields.insert(c[1].clone(), c[2].clone()).is_none(),
                "{line}"
            );
        }
    }
    assert!(schema.roots.len() >= 8 && schema.objects.len() >= 15);
    schema
}

impl Schema {
    /// Checks `v` against type `ty`; `at` names the place for the message.
    fn check(&self, v: &Json, ty: &str, at: &str) {
        if let Some(inner) = ty.strip_suffix(" or null") {
            if !v.is_null() {
                self.check(v, inner, at);
            }
            return;
        }
        if let Some(item) = ty.strip_prefix("array of ") {
            let list = v
                .as_array()
                .unwrap_or_else(|| panic!("{at}: not an array: {v}"));
            for (k, x) in list.iter().enumerate() {
                self.check(x, item, &format!("{at}[{k}]"));
            }
            return;
        }
        let ok = match ty {
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            object => {
                let fields = self
                    .objects
                    .get(object)
                    .unwrap_or_else(|| panic!("{at}: the README has no object {object}"));
                let map = v
                    .as_object()
                    .unwrap_or_else(|| panic!("{at}: not an object: {v}"));
                let got: Vec<&String> = map.keys().collect();
                let documented: Vec<&String> = fields.keys().collect();
                let mut got_sorted = got.clone();
                got_sorted.sort();
                assert_eq!(got_sorted, documented, "{at}: keys of {object}");
                for (k, t) in fields {
                    self.check(&map[k], t, &format!("{at}.{k}"));
                }
                true
            }
        };
        assert!(ok, "{at}: {v} is not of type {ty}");
    }

    /// Checks one command's output.
    fn check_command(&self, command: &str, out: &Json) {
        let ty = &self.roots[command];
        self.check(out, ty, command);
    }
}

fn canju_json(args: &[&str], dir: &Path) -> Vec<Json> {
    let out = Command::cargo_bin("canju")
        .unwrap()
        .args(args)
        .args(["--json", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // `gen` prints one object a line; the others one object over several lines.
    if args[0] == "gen" {
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    } else {
        vec![serde_json::from_str(&text).unwrap()]
    }
}

#[test]
fn every_json_output_matches_the_readme() {
    let schema = schema();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut seen = std::collections::BTreeSet::new();
    let mut run = |args: &[&str]| {
        for j in canju_json(args, d) {
            schema.check_command(args[0], &j);
        }
        seen.insert(args[0].to_string());
    };
    run(&["plan", "KRKN"]);
    run(&["gen", "KRKN", "KNK"]);
    // A mate line, a stalemate line, a rule-decided cycle, a draw, a mated position.
    for fen in [
        "3k5/9/9/9/9/9/9/9/9/4K3R w",
        "3k5/9/9/9/9/9/9/4N4/9/4K4 w",
        "9/9/4k4/9/9/9/9/9/1n7/R2K5 w",
        "4k4/9/9/9/9/9/9/9/9/3K3C1 w",
        "3k5/4P4/9/9/9/9/9/9/9/4K4 b",
    ] {
        run(&["probe", fen]);
        run(&["line", fen]);
        run(&["explain", fen]);
    }
    run(&["stats", "KRKN"]);
    run(&["verdict", "马对单将"]);
    run(&["theory", "--men", "3"]);
    run(&["info"]);
    let documented: std::collections::BTreeSet<String> = schema.roots.keys().cloned().collect();
    assert_eq!(seen, documented, "every documented command is checked");
}

#[test]
fn the_schema_check_can_fail() {
    let schema = schema();
    let bad =
        serde_json::json!({"material": "KRK", "material_chinese": "车对将", "rules": "asian"});
    let caught = std::panic::catch_unwind(|| schema.check_command("stats", &bad));
    assert!(caught.is_err(), "a stats object without its sides passed");
    let wrong_type = serde_json::json!([{"file": 1, "material": "KRK", "rules": "asian",
        "positions": 1, "bytes": 1, "bits_per_position": 1.0}]);
    let caught = std::panic::catch_unwind(|| schema.check_command("info", &wrong_type));
    assert!(
        caught.is_err(),
        "a number where a string is documented passed"
    );
}
