//! No file of this crate imports another that imports it back, directly or through others: the layers
//! (`http` over `delivery` and `manage` over what they share) stay layers. Read from the source: every
//! `use` of `crate::`, `super::`, `self::` or a child module, and every inline `crate::`/`super::` path,
//! outside the files' test modules, resolved to the file that defines the module it names.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

/// Every `.rs` file under `dir`, by its module path (`http/routes.rs` is `["http", "routes"]`).
fn modules(dir: &Path, prefix: &[String], found: &mut BTreeMap<Vec<String>, PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            modules(&path, &[prefix, &[name]].concat(), found);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let module = match stem {
                "lib" | "mod" => prefix.to_vec(),
                _ => [prefix, &[stem.to_owned()]].concat(),
            };
            found.insert(module, path);
        }
    }
}

/// The code of a file that counts: no comment lines, nothing from its test module on.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
    text.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The paths a use tree names: `a::{b, c::{d, self}}` is `a::b`, `a::c::d`, `a::c`.
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or_default().trim();
        let path = path.strip_suffix("::self").unwrap_or(path);
        if path == "self" {
            out.push(prefix.trim_end_matches("::").to_owned());
        } else if !path.is_empty() && path != "*" {
            out.push(format!("{prefix}{path}"));
        }
        return;
    };
    let head = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&format!("{prefix}{head}"), &inner[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand(&format!("{prefix}{head}"), &inner[start..], out);
}

/// The paths a file's code names: its `use` declarations (re-exports, `pub use`, apart) and inline
/// `crate::`/`super::` paths.
fn paths(code: &str) -> (Vec<String>, Vec<String>) {
    let (mut uses, mut reexports) = (Vec::new(), Vec::new());
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let after = &rest[at + 4..];
        rest = after;
        if before.chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = after.find(';') else { break };
        let line = before.rsplit('\n').next().unwrap_or_default().trim();
        let target = if line.starts_with("pub") { &mut reexports } else { &mut uses };
        expand("", &after[..end], target);
    }
    for marker in ["crate::", "super::"] {
        for (at, _) in code.match_indices(marker) {
            if code[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String =
                code[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            uses.push(path.trim_end_matches(':').to_owned());
        }
    }
    (uses, reexports)
}

/// The module a path names, as segments from the crate root, seen from `module` (whose file declares
/// `children`); `None` for another crate's path.
fn absolute(path: &str, module: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let mut segments = path.split("::").map(str::to_owned);
    let first = segments.next()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut parent = module.to_vec();
            parent.pop();
            parent
        }
        child if children.contains(child) => [module, &[child.to_owned()]].concat(),
        _ => return None,
    };
    for segment in segments {
        if segment == "super" {
            base.pop();
        } else {
            base.push(segment);
        }
    }
    Some(base)
}

/// The file that defines what `path` names: the longest prefix that is a module file, followed through
/// that file's re-exports (`pub use child::Name`) to the file the item comes from.
fn resolve(
    path: &[String],
    files: &BTreeMap<Vec<String>, PathBuf>,
    reexports: &BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    depth: usize,
) -> Vec<String> {
    let mut target = path.to_vec();
    while !target.is_empty() && !files.contains_key(&target) {
        target.pop();
    }
    if depth < 8
        && let Some(next) = path.get(target.len())
        && let Some(source) = reexports.get(&target).and_then(|names| names.get(next))
    {
        let through = [source.clone(), path[target.len() + 1..].to_vec()].concat();
        return resolve(&through, files, reexports, depth + 1);
    }
    target
}

#[test]
fn no_file_imports_one_that_imports_it_back() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    modules(&root, &[], &mut files);
    let mut parsed = BTreeMap::new();
    let mut reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (module, path) in &files {
        let code = code(&std::fs::read_to_string(path).unwrap());
        // `mod x;` and `mod x {`: the children a relative `use x::…` starts from.
        let children: BTreeSet<String> = code
            .lines()
            .filter_map(|line| {
                let line = line.trim_start().trim_start_matches("pub ").trim_start_matches("pub(crate) ");
                let name = line.strip_prefix("mod ")?;
                Some(name.trim_end_matches([';', '{', ' ']).to_owned())
            })
            .collect();
        let (uses, reexported) = paths(&code);
        for path in reexported {
            let Some(source) = absolute(&path, module, &children) else { continue };
            let name = path.rsplit("::").next().unwrap_or_default().to_owned();
            reexports.entry(module.clone()).or_default().insert(name, source);
        }
        parsed.insert(module.clone(), (uses, children));
    }
    let mut edges: BTreeMap<&Vec<String>, BTreeSet<&Vec<String>>> = BTreeMap::new();
    for (module, (uses, children)) in &parsed {
        for path in uses {
            let Some(target) = absolute(path, module, children) else { continue };
            let target = resolve(&target, &files, &reexports, 0);
            if let Some((target, _)) = files.get_key_value(&target)
                && target != module
                && !module.starts_with(target)
            {
                edges.entry(module).or_default().insert(target);
            }
        }
    }
    assert!(edges.values().map(BTreeSet::len).sum::<usize>() > 20, "the reader found the imports: {edges:?}");
    // A depth-first walk; a file met again while still on the walk's path closes a circle.
    fn walk<'a>(
        at: &'a Vec<String>,
        edges: &BTreeMap<&'a Vec<String>, BTreeSet<&'a Vec<String>>>,
        path: &mut Vec<&'a Vec<String>>,
        done: &mut BTreeSet<&'a Vec<String>>,
    ) {
        if let Some(from) = path.iter().position(|m| *m == at) {
            let circle: Vec<String> = path[from..].iter().map(|m| m.join("/")).collect();
            panic!("import circle: {} -> {}", circle.join(" -> "), at.join("/"));
        }
        if !done.insert(at) {
            return;
        }
        path.push(at);
        for next in edges.get(at).into_iter().flatten() {
            walk(next, edges, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for module in files.keys() {
        walk(module, &edges, &mut Vec::new(), &mut done);
    }
}
