//! One vocabulary, each word in one table: no production code of any crate of the workspace writes a media
//! type (`image/png`) or a file extension (`".png"`) of its own, each comes from its row of the table of
//! media formats (`model/src/media.rs`); and none writes a transformation parameter's name (`"w"`, or
//! `w=` in a query), each comes from its row of the parameter table (`pipeline/src/params.rs`). Read with
//! `syn` from every member's `src/`, test code left out (test modules, `#[cfg(test)]` items, `tests.rs` and
//! `*_tests.rs` files, the pipeline's `samples/`) and so are comments: a literal that is one of these fails
//! the test with the file and the literal. The same holds for routes: a path of a route (`/v1/file/`) is
//! written in its row (a `static …: RouteSpec`) alone, and every row is listed in the router's `ROUTES`.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use shutterbox_api::ROUTES;
use shutterbox_model::MEDIA_FORMATS;
use shutterbox_pipeline::PARAMS;
use syn::visit::Visit;

/// The files that may write them: the tables.
const MEDIA_TABLE: &str = "model/src/media.rs";
const PARAM_TABLE: &str = "pipeline/src/params.rs";

/// Literals equal to a parameter's name that are not that parameter: the metric label naming a variant's
/// output format (`shutterbox_render_seconds{format=…}`).
const NOT_PARAMETERS: [(&str, &str); 1] = [("variants/src/renderer.rs", "format")];

/// Top-level media types (RFC 6838's registries that name file formats).
const TOP_LEVEL: [&str; 6] = ["application", "audio", "font", "image", "text", "video"];

/// Whether `text` is a media type, with or without parameters; a range (`image/*`) is not one.
fn is_media_type(text: &str) -> bool {
    let essence = text.split(';').next().unwrap_or("").trim();
    let Some((top, sub)) = essence.split_once('/') else { return false };
    TOP_LEVEL.contains(&top)
        && !sub.is_empty()
        && sub.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+-.".contains(&b))
}

/// `#[test]`, or a `cfg` that mentions `test` (`#[cfg(test)]`, `#[cfg(all(test, feature = "x"))]`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| match &attr.meta {
        syn::Meta::Path(path) => path.is_ident("test"),
        syn::Meta::List(list) => list.path.is_ident("cfg") && list.tokens.to_string().contains("test"),
        syn::Meta::NameValue(_) => false,
    })
}

/// Which words a literal is checked for.
#[derive(Clone, Copy, PartialEq)]
enum Word {
    Media,
    Parameter,
    /// A route's path (its part before the first parameter) in a literal outside its row.
    RoutePath,
    /// The operation id of a route's row (`static DELIVER_FILE: RouteSpec = …`).
    Row,
}

struct Literals<'a> {
    extensions: &'a [String],
    /// Every route's path up to its first parameter.
    route_prefixes: &'a [String],
    /// Inside a route's row, where its paths are written.
    in_row: bool,
    found: Vec<(Word, String)>,
}

/// Whether `text` sets a parameter as a query does: `name=` at its start or after `?` or `&`.
fn sets_parameter(text: &str) -> bool {
    PARAMS.iter().any(|spec| {
        let set = format!("{}=", spec.name);
        text.starts_with(&set) || text.contains(&format!("&{set}")) || text.contains(&format!("?{set}"))
    })
}

impl Literals<'_> {
    /// `in_macro`: a literal read from a macro's tokens, where a name alone may be a JSON key of its own.
    fn check(&mut self, text: &str, in_macro: bool) {
        let extension = text.strip_prefix('.').filter(|ext| self.extensions.iter().any(|known| known == ext));
        if is_media_type(text) || extension.is_some() {
            self.found.push((Word::Media, text.to_owned()));
        }
        if sets_parameter(text) || (!in_macro && PARAMS.iter().any(|spec| spec.name == text)) {
            self.found.push((Word::Parameter, text.to_owned()));
        }
        if !self.in_row && self.route_prefixes.iter().any(|prefix| text.contains(prefix.as_str())) {
            self.found.push((Word::RoutePath, text.to_owned()));
        }
    }
}

/// The operation id a route's row writes, if `item` is one.
fn row_operation_id(item: &syn::ItemStatic) -> Option<String> {
    let syn::Type::Path(ty) = item.ty.as_ref() else { return None };
    if ty.path.segments.last()?.ident != "RouteSpec" {
        return None;
    }
    let syn::Expr::Struct(row) = item.expr.as_ref() else { return None };
    row.fields.iter().find_map(|field| match (&field.member, &field.expr) {
        (syn::Member::Named(name), syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(id), .. }))
            if name == "operation_id" =>
        {
            Some(id.value())
        }
        _ => None,
    })
}

impl<'ast> Visit<'ast> for Literals<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Fn(item) => &item.attrs,
            syn::Item::Mod(item) => &item.attrs,
            syn::Item::Impl(item) => &item.attrs,
            syn::Item::Const(item) => &item.attrs,
            syn::Item::Static(item) => &item.attrs,
            syn::Item::Struct(item) => &item.attrs,
            syn::Item::Enum(item) => &item.attrs,
            syn::Item::Use(item) => &item.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test(attrs) {
            return;
        }
        let row = match item {
            syn::Item::Static(item) => row_operation_id(item),
            _ => None,
        };
        if let Some(id) = &row {
            self.found.push((Word::Row, id.clone()));
        }
        self.in_row = row.is_some();
        syn::visit::visit_item(self, item);
        self.in_row = false;
    }
    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !is_test(&item.attrs) {
            syn::visit::visit_impl_item_fn(self, item);
        }
    }
    // Attributes are left out: a doc comment is read as a string literal, and prose may quote a query.
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_lit_str(&mut self, literal: &'ast syn::LitStr) {
        self.check(&literal.value(), false);
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // A macro's arguments are tokens: its string literals are read from them.
        fn strings(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
            for token in tokens {
                match token {
                    proc_macro2::TokenTree::Literal(literal) => {
                        if let Ok(syn::Lit::Str(text)) = syn::parse_str::<syn::Lit>(&literal.to_string()) {
                            out.push(text.value());
                        }
                    }
                    proc_macro2::TokenTree::Group(group) => strings(group.stream(), out),
                    _ => {}
                }
            }
        }
        // `include_str!("assets/console.js")` names a file of the source tree, not a value.
        if mac.path.segments.last().is_some_and(|name| name.ident.to_string().starts_with("include")) {
            return;
        }
        let mut found = Vec::new();
        strings(mac.tokens.clone(), &mut found);
        found.iter().for_each(|text| self.check(text, true));
    }
}

/// Every `.rs` file under `dir` that is not test code by its name.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        // Test code by its place: `tests/`, `tests.rs`, `*_tests.rs`, and the pipeline's `samples/` (the
        // generated inputs of tests and fuzzing, behind a feature only they turn on).
        if path.is_dir() && name != "tests" && name != "samples" {
            sources(&path, out);
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push(path);
        }
    }
}

/// Every production file of the workspace, by its path from the workspace's root, with its literals.
fn literals_by_file() -> Vec<(String, Vec<(Word, String)>)> {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let extensions: Vec<String> =
        MEDIA_FORMATS.iter().flat_map(|info| info.extensions.iter().map(|e| (*e).to_owned())).collect();
    let route_prefixes: Vec<String> = ROUTES.iter().map(|spec| spec.prefix().to_owned()).collect();
    let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let line = manifest.lines().find(|line| line.starts_with("members")).expect("a members line");
    let members =
        std::iter::once(workspace.clone()).chain(line.split('"').skip(1).step_by(2).map(|m| workspace.join(m)));
    let mut files = Vec::new();
    members.for_each(|member| sources(&member.join("src"), &mut files));
    assert!(files.len() > 100, "the sources: {}", files.len());
    files
        .into_iter()
        .map(|file| {
            let relative = file.strip_prefix(&workspace).unwrap().display().to_string();
            let parsed =
                syn::parse_file(&std::fs::read_to_string(&file).unwrap()).unwrap_or_else(|e| panic!("{relative}: {e}"));
            let mut literals =
                Literals { extensions: &extensions, route_prefixes: &route_prefixes, in_row: false, found: Vec::new() };
            literals.visit_file(&parsed);
            (relative, literals.found)
        })
        .collect()
}

/// The literals of `word` outside `table`, as `file: literal` lines, but those `allowed`; and how many
/// the table itself writes.
fn outside(word: Word, table: &str, allowed: &[(&str, &str)]) -> (Vec<String>, usize) {
    let (mut found, mut in_table) = (Vec::new(), 0);
    for (file, literals) in literals_by_file() {
        for literal in literals.into_iter().filter(|(w, _)| *w == word).map(|(_, literal)| literal) {
            if file == table {
                in_table += 1;
            } else if !allowed.contains(&(file.as_str(), literal.as_str())) {
                found.push(format!("{file}: {literal:?}"));
            }
        }
    }
    (found, in_table)
}

#[test]
fn no_production_code_writes_a_media_type_or_an_extension_of_its_own() {
    let (found, in_table) = outside(Word::Media, MEDIA_TABLE, &[]);
    assert!(in_table > 16, "the reader reads the table's own literals: {in_table}");
    assert!(found.is_empty(), "media types and extensions outside the table:\n{}", found.join("\n"));
}

/// Each parameter's name is written once, in its row: the parser, the canonical text, `to_query`, the
/// transform-url body, the API document and the thumbnail preset read it from there.
#[test]
fn no_production_code_writes_a_parameter_name_of_its_own() {
    let (found, in_table) = outside(Word::Parameter, PARAM_TABLE, &NOT_PARAMETERS);
    assert_eq!(in_table, PARAMS.len(), "each row writes its name once, and nothing else in the table does");
    assert!(found.is_empty(), "parameter names outside the parameter table:\n{}", found.join("\n"));
}

/// A route is its row and its line in `ROUTES`: no other production code writes one of its paths (URLs are
/// built with the row's `url`, paths matched with its `prefix`), and a row the router does not list fails.
#[test]
fn routes_are_their_rows() {
    let (mut found, mut rows) = (Vec::new(), Vec::new());
    for (file, literals) in literals_by_file() {
        for (word, literal) in literals {
            match word {
                Word::RoutePath => found.push(format!("{file}: {literal:?}")),
                Word::Row => rows.push(literal),
                Word::Media | Word::Parameter => {}
            }
        }
    }
    assert!(found.is_empty(), "route paths outside their rows:\n{}", found.join("\n"));
    let mut listed: Vec<String> = ROUTES.iter().map(|spec| spec.operation_id.to_owned()).collect();
    rows.sort();
    listed.sort();
    assert!(rows.len() >= 12, "the reader finds the rows: {rows:?}");
    assert_eq!(rows, listed, "the rows written and the rows the router lists");
}

#[test]
fn what_sets_a_parameter() {
    for text in ["w=300", "a?w=1", "x&format=webp", "gravity=north&h=2"] {
        assert!(sets_parameter(text), "{text}");
    }
    for text in ["w", "raw=1", "width=3", "--format=json", "key=w"] {
        assert!(!sets_parameter(text), "{text}");
    }
}

#[test]
fn what_counts_as_a_media_type() {
    for text in ["image/png", "application/json; charset=utf-8", "image/svg+xml", "video/mp4", "text/plain"] {
        assert!(is_media_type(text), "{text}");
    }
    for text in ["image/*", "*/*", "image/", "/png", "a/b", "files/<id>/v", "text/Plain", "image"] {
        assert!(!is_media_type(text), "{text}");
    }
}
