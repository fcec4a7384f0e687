//! Measurement aid: every table of folder A read whole (both sides, the searched one by its
//! search) against folder B's of the same set: they must hold the same values.
use canju::material::Material;
use canju::probe::{RuleSet, Tablebase};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (a, b) = (
        Tablebase::with_rules(&args[0], RuleSet::Asian),
        Tablebase::with_rules(&args[1], RuleSet::Asian),
    );
    let filter: Vec<&String> = args[2..].iter().collect();
    let mut names: Vec<String> = std::fs::read_dir(&args[0])
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .split('.')
                .next()
                .unwrap()
                .to_string()
        })
        .filter(|n| filter.is_empty() || filter.contains(&n))
        .collect();
    names.sort();
    let mut n = 0;
    for name in names {
        let m = Material::parse(&name).unwrap();
        let t = std::time::Instant::now();
        let va = a.stored_values(m).unwrap();
        let ta = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let vb = b.stored_values(m).unwrap();
        println!("{name}: {ta:.2} s, {:.2} s", t.elapsed().as_secs_f64());
        assert!(va == vb, "{name} differs");
        n += 1;
        a.forget(m);
        b.forget(m);
    }
    println!("{n} sets hold the same values");
}
