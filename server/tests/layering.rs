//! The server's modules import one another in one direction only. `LAYERS` lists every top-level
//! module of `server/src`, lowest first; a module may name (`crate::x`) only modules listed before
//! it, so no arrow points up and no two modules import each other, directly or around a circle.
//! A module added to `server/src` fails this test until it is given its place here, and
//! `docs/architecture.md` ("Which module may import which") draws the same order.
//!
//! Tests are exempt: a `#[cfg(test)]` module at the end of a file and the `*_tests.rs` files may
//! reach anything they check. Comments are skipped, so a doc link up the order is not an import.
//! The crate's root stands above every module: a module may name there only what the root
//! re-exports from `ground`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Every top-level module, lowest first: a module may import only the modules listed before it.
/// `lib` and `main` sit on top of everything and are not listed.
#[rustfmt::skip]
const LAYERS: &[&str] = &[
    // The ground: values and rules that need nothing else of the server.
    "ground", "config", "clock", "frame", "username", "chat", "book",
    // Durability.
    "store",
    // Who people are, how strong, and what moderators decided about them.
    "rating", "throttle", "moderation", "auth",
    // Fortune points over the store.
    "ledger",
    // A game, and what is built from games.
    "game", "study",
    // Competitions, which start their games and tell people through the hall that hosts them.
    "competition",
    // The hall, which starts games and tells people; relations and profiles, which read it.
    "hall", "relations", "people",
    // Several nodes: the cluster joins halls and games of different nodes.
    "cluster",
    // The edges: the accept loop, what every connection shares, sockets, HTTP, and the commands
    // beside the server.
    "serve", "app", "session", "http", "gtp", "bot",
];

fn server_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules present in `server/src`: each `x.rs` and each folder `x/`.
fn modules_present() -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for entry in fs::read_dir(server_src()).expect("server/src is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 name")
            .to_owned();
        let is_rust = path.extension().is_some_and(|e| e == "rs");
        if (path.is_dir() || is_rust) && name != "lib" && name != "main" {
            modules.insert(name);
        }
    }
    modules
}

/// Every `.rs` file under `dir`, with the top-level module it belongs to.
fn files_by_module(dir: &Path, module: Option<&str>, found: &mut Vec<(String, PathBuf)>) {
    for entry in fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("a directory entry").path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 name")
            .to_owned();
        let owner = module.map_or(stem.clone(), str::to_owned);
        if path.is_dir() {
            files_by_module(&path, Some(&owner), found);
        } else if path.extension().is_some_and(|e| e == "rs") && !stem.ends_with("_tests") {
            found.push((owner, path));
        }
    }
}

/// The file's code as the build sees it outside tests: comments removed, and the trailing inline
/// `#[cfg(test)] mod tests { ... }` cut off. A test module declared by name (`mod actor_tests;`)
/// cuts nothing: its file is skipped, and the code after the declaration is still read.
fn code_outside_tests(text: &str) -> String {
    const TEST_MODULE: &str = "#[cfg(test)]\nmod ";
    let mut cut = text.len();
    let mut from = 0;
    while let Some(found) = text[from..].find(TEST_MODULE) {
        let at = from + found;
        let after = &text[at + TEST_MODULE.len()..];
        let body = after.find('{').unwrap_or(after.len());
        if after.find(';').is_none_or(|semicolon| body < semicolon) {
            cut = at;
            break;
        }
        from = at + TEST_MODULE.len();
    }
    text[..cut]
        .lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level names a file reaches through `crate::`, including each name in a grouped
/// `use crate::{a, b::c}`.
fn crate_names(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find("};").unwrap_or(group.len());
            names.extend(group_heads(&group[..end]));
        } else {
            names.insert(leading_ident(rest).to_owned());
        }
    }
    names
}

/// The first path segment of each item in `a, b::{c, d}, e::f`, at the group's top level only.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut at_item_start = true;
    for (index, ch) in group.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => at_item_start = true,
            c if at_item_start && depth == 0 && !c.is_whitespace() => {
                heads.push(leading_ident(&group[index..]).to_owned());
                at_item_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// The names the crate's root re-exports from `ground` (`pub use ground::{...};` in `lib.rs`): the
/// only items of the root a module may name, since everything else there stands above them all.
fn root_reexports_of_ground() -> BTreeSet<String> {
    let lib = fs::read_to_string(server_src().join("lib.rs")).expect("lib.rs is readable");
    let start = lib
        .find("pub use ground::{")
        .expect("lib.rs re-exports ground")
        + "pub use ground::{".len();
    let end = lib[start..].find("};").map_or(lib.len(), |at| start + at);
    group_heads(&lib[start..end]).into_iter().collect()
}

fn leading_ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

#[test]
fn every_module_has_its_place_in_the_order() {
    let listed: BTreeSet<String> = LAYERS.iter().map(|m| (*m).to_owned()).collect();
    assert_eq!(
        listed.len(),
        LAYERS.len(),
        "a module is listed twice in LAYERS"
    );
    let present = modules_present();
    let unplaced: Vec<_> = present.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&present).collect();
    assert!(
        unplaced.is_empty(),
        "modules with no place in LAYERS: {unplaced:?}"
    );
    assert!(
        gone.is_empty(),
        "LAYERS lists modules that no longer exist: {gone:?}"
    );
}

#[test]
fn imports_point_down_the_order_only() {
    let rank = |name: &str| LAYERS.iter().position(|m| *m == name);
    let ground_names = root_reexports_of_ground();
    let mut files = Vec::new();
    files_by_module(&server_src(), None, &mut files);
    let mut upward = Vec::new();
    for (module, path) in &files {
        let Some(own_rank) = rank(module) else {
            continue;
        };
        let code = code_outside_tests(&fs::read_to_string(path).expect("a readable source file"));
        for name in crate_names(&code) {
            let Some(target_rank) = rank(&name) else {
                if !ground_names.contains(&name) {
                    upward.push(format!(
                        "{module} reaches crate::{name}, which is not ground's"
                    ));
                }
                continue;
            };
            if target_rank > own_rank {
                let file = path
                    .strip_prefix(server_src())
                    .unwrap_or(path)
                    .display()
                    .to_string();
                upward.push(format!(
                    "{file}: {module} imports {name}, which stands above it"
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports pointing up the order:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_reader_finds_grouped_and_nested_imports() {
    let code =
        "use crate::{game::{GameHandle, Games}, store, config::X};\nfn f() { crate::hall::go() }";
    let names: Vec<_> = crate_names(code).into_iter().collect();
    assert_eq!(names, ["config", "game", "hall", "store"]);
    assert_eq!(
        code_outside_tests("a // crate::hall\n#[cfg(test)]\nmod tests { crate::x }"),
        "a "
    );
    let declared =
        "#[cfg(test)]\nmod actor_tests;\nuse crate::hall;\n#[cfg(test)]\nmod tests { crate::x }";
    assert_eq!(
        code_outside_tests(declared),
        "#[cfg(test)]\nmod actor_tests;\nuse crate::hall;"
    );
}
