//! No file of any crate of the workspace imports another that imports it back, directly or through others,
//! test code included: every library, binary, test, bench and example target of every member is read.
//!
//! How imports are read: each target's root is parsed with `syn`, and its `mod` declarations are followed to
//! the files that define them (`a.rs` declares `mod b;` → `a/b.rs` or `a/b/mod.rs`). A file's imports are
//! its `use` trees (in function bodies too), every path in its code that starts with `crate`, `self`, `super` or the name of a child
//! module, and such paths inside macro calls (`assert!(matches!(x, crate::A))`), in inline modules too
//! (`#[cfg(test)] mod tests` belongs to its file). A path names the file that defines its item: the longest
//! prefix that is a module, then that module's imports and glob imports are followed (`pub use b::Size` in
//! `lib.rs` names `b.rs`). A file may use what the files above it define (`super::Error`, the crate root's
//! items): a module's own file is its children's common ground. Anything else between two files is an edge;
//! a cycle of edges is a circle, and the test fails on every circle, naming its files and imports.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use syn::visit::Visit;

/// A module: the file it is written in, what it defines and what it imports.
#[derive(Default)]
struct Module {
    file: PathBuf,
    /// Names of the items it defines (types, functions, constants, modules...).
    items: BTreeSet<String>,
    /// Child modules, declared with `mod`.
    children: BTreeSet<String>,
    /// `use` imports: the name they bind → the path they name, as written.
    imports: BTreeMap<String, Vec<String>>,
    /// `use path::*`: the paths, as written.
    globs: Vec<Vec<String>>,
    /// Every other path of its code that may name another module's item, as written.
    paths: Vec<Vec<String>>,
}

/// One crate (one target): its modules by module path (`["http", "routes"]`).
struct Crate {
    modules: BTreeMap<Vec<String>, Module>,
}

/// Reads `.rs` files; a map in the reader's own test.
trait Source {
    fn read(&self, path: &Path) -> Option<String>;
}

struct Disk;

impl Source for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

impl Source for BTreeMap<PathBuf, &str> {
    fn read(&self, path: &Path) -> Option<String> {
        self.get(path).map(|text| (*text).to_owned())
    }
}

fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|segment| segment.ident.to_string()).collect()
}

/// The paths a use tree names, with the name each binds (`None` for a glob).
fn use_tree(prefix: &[String], tree: &syn::UseTree, out: &mut Vec<(Option<String>, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(path) => use_tree(&[prefix, &[path.ident.to_string()]].concat(), &path.tree, out),
        syn::UseTree::Name(name) if name.ident == "self" => {
            out.push((prefix.last().cloned(), prefix.to_vec()));
        }
        syn::UseTree::Name(name) => {
            let path = [prefix, &[name.ident.to_string()]].concat();
            out.push((Some(name.ident.to_string()), path));
        }
        syn::UseTree::Rename(rename) => {
            let path = [prefix, &[rename.ident.to_string()]].concat();
            out.push((Some(rename.rename.to_string()), path));
        }
        syn::UseTree::Glob(_) => out.push((None, prefix.to_vec())),
        syn::UseTree::Group(group) => group.items.iter().for_each(|item| use_tree(prefix, item, out)),
    }
}

/// Paths of `a::b::c` form inside a macro call's tokens.
fn macro_paths(tokens: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
    let mut current: Vec<String> = Vec::new();
    let mut colons = 0;
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) if current.is_empty() || colons == 2 => {
                current.push(ident.to_string());
                colons = 0;
            }
            proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ':' && !current.is_empty() && colons < 2 => {
                colons += 1;
            }
            other => {
                if current.len() > 1 {
                    out.push(std::mem::take(&mut current));
                }
                current.clear();
                colons = 0;
                if let proc_macro2::TokenTree::Group(group) = other {
                    macro_paths(group.stream(), out);
                } else if let proc_macro2::TokenTree::Ident(ident) = other {
                    current.push(ident.to_string());
                }
            }
        }
    }
    if current.len() > 1 {
        out.push(current);
    }
}

/// Collects the paths of one module's code, not descending into its inline child modules (read as
/// modules of their own).
struct PathReader<'a> {
    module: &'a mut Module,
}

impl<'ast> Visit<'ast> for PathReader<'_> {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
    /// A `use` inside a function body: what it names is used there (the names it binds are that
    /// block's own, so only its paths count).
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut found = Vec::new();
        use_tree(&[], &item.tree, &mut found);
        self.module.paths.extend(found.into_iter().map(|(_, path)| path));
    }
    fn visit_path(&mut self, path: &'ast syn::Path) {
        // A lone name is a local or an import (read from the `use`); `a::b` may name a module's item.
        if path.segments.len() > 1 {
            self.module.paths.push(segments(path));
        }
        syn::visit::visit_path(self, path);
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        macro_paths(mac.tokens.clone(), &mut self.module.paths);
        syn::visit::visit_macro(self, mac);
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(item) => &item.ident,
        syn::Item::Enum(item) => &item.ident,
        syn::Item::Fn(item) => &item.sig.ident,
        syn::Item::Macro(item) => item.ident.as_ref()?,
        syn::Item::Mod(item) => &item.ident,
        syn::Item::Static(item) => &item.ident,
        syn::Item::Struct(item) => &item.ident,
        syn::Item::Trait(item) => &item.ident,
        syn::Item::TraitAlias(item) => &item.ident,
        syn::Item::Type(item) => &item.ident,
        syn::Item::Union(item) => &item.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// Reads a module and, through its `mod` declarations, every module under it. `dir` is where its child
/// modules' files are.
fn read_module(
    source: &dyn Source,
    krate: &mut Crate,
    module_path: Vec<String>,
    file: &Path,
    dir: &Path,
    items: &[syn::Item],
) {
    let mut module = Module { file: file.to_owned(), ..Module::default() };
    let mut children = Vec::new();
    for item in items {
        if let Some(name) = item_name(item) {
            module.items.insert(name);
        }
        match item {
            syn::Item::Use(item) => {
                let mut found = Vec::new();
                use_tree(&[], &item.tree, &mut found);
                for (name, path) in found {
                    match name {
                        Some(name) => {
                            module.imports.insert(name, path);
                        }
                        None => module.globs.push(path),
                    }
                }
            }
            syn::Item::Mod(item) => {
                assert!(
                    !item.attrs.iter().any(|attr| attr.path().is_ident("path")),
                    "{}: `#[path]` on `mod {}`: the reader follows the default layout only",
                    file.display(),
                    item.ident
                );
                module.children.insert(item.ident.to_string());
                children.push(item);
            }
            other => PathReader { module: &mut module }.visit_item(other),
        }
    }
    krate.modules.insert(module_path.clone(), module);
    for child in children {
        let name = child.ident.to_string();
        let child_path = [module_path.clone(), vec![name.clone()]].concat();
        match &child.content {
            Some((_, items)) => read_module(source, krate, child_path, file, &dir.join(&name), items),
            None => {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                let (child_file, text) = match source.read(&flat) {
                    Some(text) => (flat, text),
                    None => match source.read(&nested) {
                        Some(text) => (nested, text),
                        None => panic!("{}: `mod {name};` has no file", file.display()),
                    },
                };
                let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", child_file.display()));
                read_module(source, krate, child_path, &child_file, &dir.join(&name), &parsed.items);
            }
        }
    }
}

fn read_crate(source: &dyn Source, root: &Path) -> Crate {
    let text = source.read(root).unwrap_or_else(|| panic!("{} is not readable", root.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let mut krate = Crate { modules: BTreeMap::new() };
    let dir = root.parent().unwrap_or(Path::new("")).to_owned();
    // `src/lib.rs`, `src/main.rs` and `tests/api/main.rs` keep their children beside them; another target
    // root (`tests/props.rs`, `src/bin/tool.rs`) does too.
    read_module(source, &mut krate, Vec::new(), root, &dir, &parsed.items);
    krate
}

impl Crate {
    /// The path `written` in `module`, from the crate root; `None` when it names another crate or a local item.
    fn absolute(&self, module: &[String], written: &[String]) -> Option<Vec<String>> {
        let (first, rest) = written.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => module[..module.len().checked_sub(1)?].to_vec(),
            name if self.modules.get(module)?.children.contains(name) => [module, &[name.to_owned()]].concat(),
            name => {
                // A name this module imports: where the import points.
                let imported = self.modules.get(module)?.imports.get(name)?;
                if imported.first().map(String::as_str) == Some(name) {
                    return None; // `use serde::Deserialize;` and the like
                }
                let mut through = self.absolute(module, imported)?;
                through.extend(rest.iter().cloned());
                return Some(through);
            }
        };
        for segment in rest {
            if segment == "super" {
                base.pop();
            } else {
                base.push(segment.clone());
            }
        }
        Some(base)
    }

    /// The module that defines what the absolute `path` names, through imports and glob imports.
    fn defining(&self, path: &[String], depth: usize) -> Option<Vec<String>> {
        let mut module = path.to_vec();
        while !module.is_empty() && !self.modules.contains_key(&module) {
            module.pop();
        }
        let found = self.modules.get(&module)?;
        let Some(name) = path.get(module.len()) else { return Some(module) };
        if found.items.contains(name) || depth > 16 {
            return Some(module);
        }
        if let Some(imported) = found.imports.get(name) {
            let mut through = self.absolute(&module, imported)?;
            through.extend(path[module.len() + 1..].iter().cloned());
            return self.defining(&through, depth + 1).or(Some(module));
        }
        for glob in &found.globs {
            let Some(source) = self.absolute(&module, glob) else { continue };
            if source == module || module.starts_with(&source) {
                continue;
            }
            let mut through = source;
            through.extend(path[module.len()..].iter().cloned());
            if let Some(defining) = self.defining(&through, depth + 1)
                && self
                    .modules
                    .get(&defining)
                    .is_some_and(|m| path.get(defining.len()).is_none_or(|n| m.items.contains(n)))
            {
                return Some(defining);
            }
        }
        Some(module)
    }

    /// File → the files it imports (neither containing the other).
    fn edges(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        // A file's module is the outermost module written in it.
        let mut file_module: BTreeMap<&Path, &Vec<String>> = BTreeMap::new();
        for (path, module) in &self.modules {
            file_module.entry(module.file.as_path()).or_insert(path);
        }
        let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (path, module) in &self.modules {
            let from = file_module[module.file.as_path()];
            let written = module.imports.values().chain(&module.globs).chain(&module.paths);
            for target in written.filter_map(|written| self.absolute(path, written)) {
                let Some(defining) = self.defining(&target, 0) else { continue };
                let to = &self.modules[&defining].file;
                let to_module = file_module[to.as_path()];
                if to != &module.file && !from.starts_with(to_module) {
                    edges.entry(module.file.clone()).or_default().insert(to.clone());
                }
            }
        }
        edges
    }
}

/// Every import circle among `edges`' files: the strongly connected components of more than one file
/// (Tarjan), each with one cycle through it.
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, (usize, usize)>,
        stack: Vec<&'a PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, at: &'a PathBuf) {
        let number = walk.index.len();
        walk.index.insert(at, (number, number));
        walk.stack.push(at);
        for next in walk.edges.get(at).into_iter().flatten() {
            match walk.index.get(next).copied() {
                None => {
                    visit(walk, next);
                    let low = walk.index[next].1.min(walk.index[at].1);
                    walk.index.entry(at).and_modify(|entry| entry.1 = low);
                }
                Some((index, _)) if walk.stack.contains(&next) => {
                    let low = index.min(walk.index[at].1);
                    walk.index.entry(at).and_modify(|entry| entry.1 = low);
                }
                Some(_) => {}
            }
        }
        if walk.index[at].0 == walk.index[at].1 {
            let from = walk.stack.iter().position(|file| *file == at).unwrap_or(0);
            let component: Vec<PathBuf> = walk.stack.drain(from..).cloned().collect();
            if component.len() > 1 {
                walk.found.push(component);
            }
        }
    }
    let mut walk = Walk { edges, index: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for file in edges.keys() {
        if !walk.index.contains_key(file) {
            visit(&mut walk, file);
        }
    }
    walk.found
}

/// The shortest cycle through the component's first file, to show in the failure.
fn shortest_cycle(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>, component: &[PathBuf]) -> Vec<PathBuf> {
    let start = &component[0];
    let mut came_from: BTreeMap<&PathBuf, &PathBuf> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in edges.get(at).into_iter().flatten().filter(|next| component.contains(next)) {
            if next == start {
                let mut cycle = vec![at.clone()];
                while let Some(previous) = came_from.get(&cycle[cycle.len() - 1]).copied() {
                    cycle.push(previous.clone());
                }
                cycle.reverse();
                cycle.push(start.clone());
                return cycle;
            }
            if !came_from.contains_key(next) && next != start {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    component.to_vec()
}

/// Every target root of a member crate: its library, binaries, tests, benches and examples.
fn target_roots(member: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for root in ["src/lib.rs", "src/main.rs"] {
        let path = member.join(root);
        if path.is_file() {
            roots.push(path);
        }
    }
    for dir in ["src/bin", "tests", "benches", "examples"] {
        let Ok(entries) = std::fs::read_dir(member.join(dir)) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                roots.push(path);
            } else if path.join("main.rs").is_file() {
                roots.push(path.join("main.rs"));
            }
        }
    }
    roots.sort();
    roots
}

/// The workspace's members, from its manifest, and the root package.
fn members() -> Vec<PathBuf> {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let line = manifest.lines().find(|line| line.starts_with("members")).expect("a members line");
    let listed = line.split('"').skip(1).step_by(2).map(|member| workspace.join(member));
    std::iter::once(workspace.clone()).chain(listed).collect()
}

#[test]
fn no_file_of_any_crate_imports_one_that_imports_it_back() {
    let members = members();
    assert!(members.len() >= 10, "the workspace's members: {members:?}");
    let relative = |file: &PathBuf| file.strip_prefix(&members[0]).unwrap_or(file).display().to_string();
    let mut found = Vec::new();
    let mut edge_count = 0;
    for member in &members {
        let roots = target_roots(member);
        assert!(!roots.is_empty(), "{} has no target", member.display());
        for root in roots {
            let edges = read_crate(&Disk, &root).edges();
            edge_count += edges.values().map(BTreeSet::len).sum::<usize>();
            for circle in circles(&edges) {
                let example: Vec<String> = shortest_cycle(&edges, &circle).iter().map(relative).collect();
                let why: Vec<String> = circle
                    .iter()
                    .flat_map(|from| {
                        let to = edges.get(from).into_iter().flatten().filter(|to| circle.contains(to));
                        to.map(move |to| format!("  {} → {}", relative(from), relative(to)))
                    })
                    .collect();
                found.push(format!(
                    "{} files in a circle, e.g. {}; its imports:\n{}",
                    circle.len(),
                    example.join(" → "),
                    why.join("\n")
                ));
            }
        }
    }
    assert!(edge_count > 300, "the reader found the imports ({edge_count} edges)");
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The reader itself: a circle through a re-export, a child module's name, a macro call, a test module and
/// a `use` in a function body is found; a file using its parent's items is not a circle.
#[test]
fn the_reader_finds_a_circle_however_it_is_written() {
    let files = |b: &'static str| -> BTreeMap<PathBuf, &'static str> {
        BTreeMap::from([
            (PathBuf::from("src/lib.rs"), "mod a; mod b; mod c; pub use b::Thing; pub struct Error;"),
            (PathBuf::from("src/a.rs"), "use crate::Thing; fn f() -> super::Error { todo!() }"),
            (PathBuf::from("src/b.rs"), b),
            (PathBuf::from("src/c.rs"), "pub fn helper() {}"),
        ])
    };
    let circle = |b: &'static str| {
        let source = files(b);
        circles(&read_crate(&source, Path::new("src/lib.rs")).edges())
    };
    assert!(circle("pub struct Thing; fn g() { crate::c::helper() }").is_empty());
    for b in [
        "pub struct Thing; fn g() { crate::a::f(); }",
        "pub struct Thing; use super::a;",
        "pub struct Thing; fn g() { assert!(matches!(1, crate::a::X)); }",
        "pub struct Thing; #[cfg(test)] mod tests { use crate::a::f; }",
        "pub struct Thing; use crate::a::*;",
        "pub struct Thing; #[cfg(test)] mod tests { #[test] fn t() { use crate::a::f; f(); } }",
    ] {
        let found = circle(b);
        assert_eq!(found.len(), 1, "{b}: {found:?}");
        assert_eq!(found[0].len(), 2, "{b}: {found:?}");
    }
}
