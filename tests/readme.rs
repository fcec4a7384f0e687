//! The README points only at files the repository holds.

#[test]
fn every_relative_link_in_the_readme_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = include_str!("../README.md");
    let mut checked = 0;
    for part in readme.split("](").skip(1) {
        let target = part.split(')').next().unwrap();
        if target.starts_with("http") || target.starts_with('#') {
            continue;
        }
        assert!(
            root.join(target).exists(),
            "README links to missing {target}"
        );
        checked += 1;
    }
    assert!(checked >= 1, "the README links to docs/conventions.md");
    // Documents named in backquotes too (`docs/…`, `tables/…`).
    for part in readme.split('`').skip(1).step_by(2) {
        if (part.starts_with("docs/") || part.starts_with("tables/")) && part.ends_with(".md") {
            assert!(root.join(part).exists(), "README names missing {part}");
        }
    }
}
