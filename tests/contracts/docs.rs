//! The docs cannot drift from the tree: every file or folder the README and `docs/`
//! name in code spans exists, and the front pages keep their length (the README a
//! five-minute read, the architecture one page).
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The README and every page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![Path::new(ROOT).join("README.md")];
    for entry in fs::read_dir(Path::new(ROOT).join("docs")).expect("docs/ is readable") {
        let path = entry.expect("a docs/ entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages
}

/// Every file and folder name in the repository (outside `target/` and `.git/`).
fn names() -> HashSet<String> {
    fn walk(dir: &Path, out: &mut HashSet<String>) {
        for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "target" || name == ".git" {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
                out.insert(format!("{name}/"));
            } else {
                out.insert(name);
            }
        }
    }
    let mut out = HashSet::new();
    walk(Path::new(ROOT), &mut out);
    out
}

/// The code spans of `text` that name a file or folder: a path ending in a source or
/// docs extension, or in `/`. `families/prk.rs::add` names `families/prk.rs`.
fn named_paths(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| !span.contains(char::is_whitespace))
        .map(|span| span.split("::").next().unwrap_or(span).to_owned())
        .filter(|span| {
            [".rs", ".md", ".toml", ".sh", ".py"]
                .iter()
                .any(|ext| span.ends_with(ext))
                || span.ends_with('/')
        })
        .collect()
}

/// A path with a folder in it is read from the repository's root (or the page's own
/// folder, for links between pages); a bare name must exist somewhere in the tree.
#[test]
fn every_path_the_docs_name_exists() {
    let names = names();
    let mut missing = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = fs::read_to_string(&page).expect("a page is UTF-8");
        for path in named_paths(&text) {
            checked += 1;
            let bare = path.trim_end_matches('/');
            let found = if bare.contains('/') {
                Path::new(ROOT).join(&path).exists()
                    || page.parent().is_some_and(|dir| dir.join(&path).exists())
            } else {
                names.contains(&path)
            };
            if !found {
                missing.push(format!("{}: `{path}`", page.display()));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths found: is the parser right?"
    );
    assert!(
        missing.is_empty(),
        "named but absent:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_made_up_path_is_caught() {
    let names = names();
    assert!(names.contains("prk.rs") && names.contains("families/"));
    assert!(!names.contains("no_such_family.rs"));
    assert_eq!(
        named_paths("see `runtime/src/step.rs::Step` and `a b.rs` and `x/`, not `x`"),
        ["runtime/src/step.rs", "x/"]
    );
}

#[test]
fn the_front_pages_keep_their_length() {
    let lines = |name: &str| {
        fs::read_to_string(Path::new(ROOT).join(name))
            .expect("the page exists")
            .lines()
            .count()
    };
    assert!(
        lines("README.md") <= 250,
        "README: {} lines",
        lines("README.md")
    );
    let architecture = lines("docs/ARCHITECTURE.md");
    assert!(architecture <= 120, "ARCHITECTURE: {architecture} lines");
}
