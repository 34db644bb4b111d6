//! Property tests of the transformation parameters (`params.rs`, docs/transformations.md):
//!
//! - any query string, or any name/value pairs, parse to `Ok` or `Err(ParamError)`, never a panic;
//! - the canonical text (the variant cache key) does not depend on the order of the parameters, on unknown
//!   parameters, or on the spelling of a value (`JPG`/`jpeg`, `rot=-90`/`270`, `#F00`/`ff0000ff`, `1`/`true`);
//! - a parsed transformation written back as a query (`to_query`) parses to the same transformation;
//! - each range accepts its edges and refuses what lies just outside.
//!
//! 256 cases per property (proptest's default; `PROPTEST_CASES` overrides it), 1024 for the cheap fuzzing
//! ones.

use proptest::{collection::vec, prelude::*, sample::select};
use shutterbox_pipeline::{Border, Crop, Fit, FocalPoint, Format, Gravity, PARAMS, ParamError, Quality, Transform};

/// Every value of `format`, from the table's requestable rows.
fn formats() -> Vec<Format> {
    Format::names().into_iter().filter_map(Format::parse).collect()
}
const FITS: [Fit; 5] = [Fit::Cover, Fit::Contain, Fit::Fill, Fit::Inside, Fit::Outside];

fn fuzz_config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 1024;
    }
    config
}

fn query_of(pairs: &[(String, String)]) -> String {
    let mut serializer = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        serializer.append_pair(name, value);
    }
    serializer.finish()
}

/// What a parse may yield: a transformation whose canonical text can be built, or an error whose message
/// can be displayed and does not echo more than 64 characters of the value.
fn check_outcome(outcome: Result<Transform, ParamError>) -> Result<(), TestCaseError> {
    match outcome {
        Ok(transform) => {
            let canonical = transform.canonical();
            prop_assert!(canonical.starts_with("format="), "{canonical}");
        }
        Err(err) => {
            prop_assert!(!err.to_string().is_empty());
            if let ParamError::Invalid { got, .. } = &err {
                prop_assert!(got.chars().count() <= 64, "{err}");
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------
// (a) Never a panic.

/// A parameter name: mostly ours, sometimes a near miss or an unknown one.
fn fuzz_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => select(PARAMS.map(|p| p.name).to_vec()).prop_map(str::to_owned),
        1 => select(vec!["W", "Format", "w ", " h", "blur[]", "q%00", "", "%77", "rot%3D1", "crop,"]).prop_map(str::to_owned),
        1 => "[a-z_]{0,8}",
    ]
}

/// A value: edge numbers, huge and negative numbers, floats, keywords, colours, crop-like lists, junk.
fn fuzz_value() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => any::<i64>().prop_map(|n| n.to_string()),
        4 => (-2i64..=5002).prop_map(|n| n.to_string()),
        1 => any::<f32>().prop_map(|f| f.to_string()),
        1 => any::<f64>().prop_map(|f| format!("{f:e}")),
        4 => select(vec![
            "auto", "AUTO", "true", "false", "1", "0", "yes", "", " ", "nan", "inf", "-inf", "1e400", "0x10", "+5",
            "-0", "00000000000000000000001", "jpeg", "JPG", "heic", "cover", "Cover", "5_", "_fff", "_", ",,,",
            "1,2,3,4,5", "0,0,0,0",
        ])
        .prop_map(str::to_owned),
        2 => ("[0-9]{1,5}", "#?[0-9a-fA-FgG]{0,9}").prop_map(|(w, c)| format!("{w}_{c}")),
        2 => vec("-?[0-9]{0,11}", 0..6).prop_map(|parts| parts.join(",")),
        1 => "\\PC{0,80}",
        1 => vec(any::<u8>(), 0..12).prop_map(|bytes| bytes.iter().map(|b| format!("%{b:02X}")).collect()),
    ]
}

/// Separators between pairs and between a name and its value, including doubled and odd ones.
fn separator() -> impl Strategy<Value = &'static str> {
    select(vec!["&", "&", "&", "&", "&", "&", "&&", ";", "", "=", "%26", "&=", "+"])
}

/// Raw text spliced into a query: percent-escapes (valid, truncated, invalid) and odd characters.
fn splice() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u8>().prop_map(|b| format!("%{b:02x}")),
        select(vec!["%", "%2", "%G0", "%%", "+", "=", "==", "#", "?", "%E2%82", "%F0%9F%98%80", "\u{0}", "é"])
            .prop_map(str::to_owned),
    ]
}

fn fuzz_query() -> impl Strategy<Value = String> {
    vec(
        (
            fuzz_name(),
            select(vec!["=", "=", "=", "=", "==", ""]),
            fuzz_value(),
            separator(),
            prop::option::weighted(0.15, splice()),
        ),
        0..14,
    )
    .prop_map(|parts| {
        let mut query = String::new();
        for (name, eq, value, sep, extra) in parts {
            query.push_str(&name);
            query.push_str(eq);
            query.push_str(&value);
            if let Some(extra) = extra {
                query.push_str(&extra);
            }
            query.push_str(sep);
        }
        query
    })
}

/// One small edit of a query's characters.
#[derive(Debug, Clone)]
enum Mutation {
    Insert(usize, String),
    Delete(usize),
    Replace(usize, char),
    /// Repeats one of the pairs (a repeated parameter is an error).
    Repeat(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let position = any::<usize>();
    prop_oneof![
        (position, prop_oneof![splice(), fuzz_value(), "[&=,_#%+.-]"]).prop_map(|(at, s)| Mutation::Insert(at, s)),
        position.prop_map(Mutation::Delete),
        (position, select("&=%+#,_-.0123456789aAfFxX \u{e9}".chars().collect::<Vec<_>>()))
            .prop_map(|(at, c)| Mutation::Replace(at, c)),
        position.prop_map(Mutation::Repeat),
    ]
}

/// A valid query (see `to_query`) with a few small edits: mostly near misses of valid input.
fn mutated_valid_query() -> impl Strategy<Value = String> {
    (transform(), spelling(), vec(mutation(), 0..4)).prop_map(|(t, s, mutations)| {
        let mut chars: Vec<char> = to_query(&t, s).chars().collect();
        for mutation in mutations {
            let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
            match mutation {
                Mutation::Insert(i, text) => {
                    let i = at(i, chars.len() + 1);
                    chars.splice(i..i, text.chars());
                }
                Mutation::Delete(i) if !chars.is_empty() => {
                    chars.remove(at(i, chars.len()));
                }
                Mutation::Replace(i, c) if !chars.is_empty() => {
                    let i = at(i, chars.len());
                    chars[i] = c;
                }
                Mutation::Repeat(i) => {
                    let text: String = chars.iter().collect();
                    let pairs: Vec<&str> = text.split('&').filter(|p| !p.is_empty()).collect();
                    if !pairs.is_empty() {
                        let pair = pairs[at(i, pairs.len())].to_owned();
                        chars.push('&');
                        chars.extend(pair.chars());
                    }
                }
                _ => {}
            }
        }
        chars.into_iter().collect()
    })
}

proptest! {
    #![proptest_config(fuzz_config())]

    #[test]
    fn near_misses_of_valid_queries_never_panic(query in mutated_valid_query()) {
        check_outcome(Transform::from_query(&query))?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..256)) {
        check_outcome(Transform::from_query(&String::from_utf8_lossy(&bytes)))?;
    }

    #[test]
    fn arbitrary_strings_never_panic(query in "\\PC{0,200}") {
        check_outcome(Transform::from_query(&query))?;
    }

    #[test]
    fn parameter_shaped_queries_never_panic(query in fuzz_query()) {
        check_outcome(Transform::from_query(&query))?;
    }

    #[test]
    fn arbitrary_pairs_never_panic(pairs in vec((fuzz_name(), fuzz_value()), 0..14)) {
        check_outcome(Transform::from_pairs(pairs.clone()))?;
        check_outcome(Transform::from_query(&query_of(&pairs)))?;
    }
}

// ---------------------------------------------------------------------------------------------------------
// A generated valid transformation, and its writing back as a query.

/// How `to_query` spells the values: every choice is valid and means the same.
#[derive(Debug, Clone, Copy)]
struct Spelling {
    upper_case: bool,
    format_alias: bool,
    leading_zeros: bool,
    negative_rotation: bool,
    numeric_booleans: bool,
    hash_before_colour: bool,
    short_colour: bool,
    spaces: bool,
}

fn spelling() -> impl Strategy<Value = Spelling> {
    any::<[bool; 8]>().prop_map(|b| Spelling {
        upper_case: b[0],
        format_alias: b[1],
        leading_zeros: b[2],
        negative_rotation: b[3],
        numeric_booleans: b[4],
        hash_before_colour: b[5],
        short_colour: b[6],
        spaces: b[7],
    })
}

/// Name/value pairs that, parsed, give `t` (up to the defaults: `sharp=false`, `gray=false` and
/// `fit=cover` are written out only when `verbose`).
fn to_pairs(t: &Transform, s: Spelling, verbose: bool) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut push = |name: &str, value: String| {
        let value = if s.spaces { format!(" {value} ") } else { value };
        pairs.push((name.to_owned(), value));
    };
    let number = |n: u32| if s.leading_zeros { format!("00{n}") } else { n.to_string() };
    let boolean = |b: bool| match (s.numeric_booleans, b) {
        (true, b) => (b as u8).to_string(),
        (false, b) => b.to_string(),
    };
    if let Some(format) = t.format {
        let text = match format {
            Format::Named(named) if s.format_alias => named.info().aliases.first().copied().unwrap_or(named.name()),
            other => other.as_str(),
        };
        push("format", if s.upper_case { text.to_ascii_uppercase() } else { text.to_owned() });
    }
    if let Some(w) = t.width {
        push("w", number(w));
    }
    if let Some(h) = t.height {
        push("h", number(h));
    }
    if verbose || t.fit != Fit::Cover {
        push("fit", t.fit.as_str().to_owned());
    }
    if t.quality_given {
        match t.quality {
            Quality::Value(q) => push("q", number(q.into())),
            Quality::Auto => push("q", if s.upper_case { "AUTO" } else { "auto" }.to_owned()),
        }
    }
    if let Some(sigma) = t.blur {
        // `Display` of an f32 is the shortest text that parses back to the same f32.
        push("blur", sigma.to_string());
    }
    if verbose || t.sharp {
        push("sharp", boolean(t.sharp));
    }
    if verbose || t.gray {
        push("gray", boolean(t.gray));
    }
    if verbose || t.rotation != 0 {
        let degrees = i32::from(t.rotation);
        push("rot", if s.negative_rotation { (degrees - 360).to_string() } else { degrees.to_string() });
    }
    if let Some(Border { width, color: [r, g, b, a] }) = t.border {
        let short = |c: u8| c.is_multiple_of(17);
        let mut colour = if s.short_colour && a == 255 && [r, g, b].into_iter().all(short) {
            format!("{:x}{:x}{:x}", r / 17, g / 17, b / 17)
        } else if a == 255 && !s.short_colour {
            format!("{r:02x}{g:02x}{b:02x}")
        } else {
            format!("{r:02x}{g:02x}{b:02x}{a:02x}")
        };
        if s.upper_case {
            colour = colour.to_ascii_uppercase();
        }
        let hash = if s.hash_before_colour { "#" } else { "" };
        push("border", format!("{}_{hash}{colour}", number(width)));
    }
    if let Some(Crop { x, y, width, height }) = t.crop {
        let sep = if s.spaces { ", " } else { "," };
        push("crop", [x, y, width, height].map(number).join(sep));
    }
    if verbose || t.still {
        // `anim` says whether to animate: the opposite of `still`.
        push("anim", boolean(!t.still));
    }
    if verbose || t.gravity != Gravity::Center {
        let text = match t.gravity {
            // A point's coordinates with trailing zeros, as a hand-written URL may have them.
            Gravity::Point(p) if s.leading_zeros => {
                format!("fp:{:.6},{:.6}", f64::from(p.x) / 10_000.0, f64::from(p.y) / 10_000.0)
            }
            Gravity::Center if s.upper_case => "centre".to_owned(),
            other => other.canonical(),
        };
        push("gravity", text);
    }
    if let Some(ms) = t.frame_at_ms {
        // Seconds with every millisecond, or trailing zeros, as a hand-written URL may have them.
        let text = if s.leading_zeros {
            format!("{}.{:03}000", ms / 1000, ms % 1000)
        } else {
            format!("{}", f64::from(ms) / 1000.0)
        };
        push("t", text);
    }
    if let Some(ms) = t.preview_ms {
        push("dur", format!("{}", f64::from(ms) / 1000.0));
    }
    pairs
}

/// A valid query string for `t`: see `to_pairs`.
fn to_query(t: &Transform, s: Spelling) -> String {
    query_of(&to_pairs(t, s, false))
}

fn transform() -> impl Strategy<Value = Transform> {
    let quality = prop_oneof![
        Just((Quality::default(), false)),
        (1u8..=100).prop_map(|q| (Quality::Value(q), true)),
        Just((Quality::Auto, true)),
    ];
    let edge_u32 = prop_oneof![Just(0u32), Just(u32::MAX), any::<u32>(), 0u32..5000];
    let positive_u32 = prop_oneof![Just(1u32), Just(u32::MAX), 1u32..=u32::MAX, 1u32..5000];
    let crop = prop::option::of(
        (edge_u32.clone(), edge_u32, positive_u32.clone(), positive_u32).prop_map(|(x, y, width, height)| Crop {
            x,
            y,
            width,
            height,
        }),
    );
    let border =
        prop::option::of((prop_oneof![Just(1u32), Just(1000), 1u32..=1000], any::<[u8; 4]>(), any::<bool>()).prop_map(
            |(width, mut color, opaque)| {
                if opaque {
                    color[3] = 255;
                }
                Border { width, color }
            },
        ));
    let dimension = prop::option::of(prop_oneof![Just(1u32), Just(5000), 1u32..=5000]);
    let blur = prop::option::of(prop_oneof![Just(0.3f32), Just(1000.0), 0.3f32..=1000.0, 0.3f32..=10.0]);
    let gravity = prop_oneof![
        select(Gravity::names()).prop_map(|name| Gravity::parse(name).unwrap_or_default()),
        (0u16..=10_000, 0u16..=10_000).prop_map(|(x, y)| Gravity::Point(FocalPoint { x, y })),
    ];
    let preview = prop::option::of(prop_oneof![Just(100u32), Just(60_000), 100u32..=60_000]);
    let frame_at = prop::option::of(prop_oneof![Just(0u32), Just(86_400_000), 0u32..=86_400_000, 0u32..10_000]);
    (
        (prop::option::of(select(formats())), dimension.clone(), dimension, select(FITS.to_vec()), quality),
        (blur, any::<bool>(), any::<bool>(), 0u16..360, border, crop, any::<bool>(), gravity, frame_at, preview),
    )
        .prop_map(
            |(
                (format, width, height, fit, (quality, quality_given)),
                (blur, sharp, gray, rotation, border, crop, still, gravity, frame_at_ms, preview_ms),
            )| {
                Transform {
                    format,
                    width,
                    height,
                    fit,
                    quality,
                    quality_given,
                    blur,
                    sharp,
                    gray,
                    rotation,
                    border,
                    crop,
                    still,
                    // As the parser yields it: a gravity only where it places a window.
                    gravity: if fit == Fit::Cover && width.is_some() && height.is_some() {
                        gravity
                    } else {
                        Gravity::Center
                    },
                    frame_at_ms,
                    preview_ms,
                }
            },
        )
}

// ---------------------------------------------------------------------------------------------------------
// (b) Order, unknown parameters and spelling do not change the canonical text.

/// Every permutation of `items` (Heap's algorithm), for small inputs.
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    fn heap<T: Clone>(k: usize, items: &mut Vec<T>, out: &mut Vec<Vec<T>>) {
        if k <= 1 {
            out.push(items.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, items, out);
            items.swap(if k.is_multiple_of(2) { i } else { 0 }, k - 1);
        }
    }
    let mut items = items.to_vec();
    let mut out = Vec::new();
    heap(items.len(), &mut items, &mut out);
    out
}

fn unknown_pair() -> impl Strategy<Value = (String, String)> {
    let name = prop_oneof![
        "[a-z_]{1,10}".prop_filter("not one of ours", |n| !PARAMS.iter().any(|p| p.name == n.as_str())),
        select(vec!["W", "H", "Format", "FIT", "w2", "width", "quality", "utm_source", "v", "blur_", " w"])
            .prop_map(str::to_owned),
    ];
    (name, "\\PC{0,12}")
}

type Pairs = Vec<(String, String)>;

/// Pairs for a valid transformation, shuffled, with unknown parameters inserted anywhere.
fn shuffled_with_noise(pairs: Pairs) -> impl Strategy<Value = (Pairs, Pairs)> {
    let len = pairs.len();
    (Just(pairs.clone()), Just(pairs).prop_shuffle(), vec((unknown_pair(), 0..=len + 8), 0..5)).prop_map(
        |(original, mut shuffled, unknown)| {
            for (pair, at) in unknown {
                let at = at.min(shuffled.len());
                shuffled.insert(at, pair);
            }
            (original, shuffled)
        },
    )
}

/// Whether `parsed` is the refusal of an invalid value for `name`.
fn refused(parsed: &Result<Transform, ParamError>, name: &str) -> bool {
    matches!(parsed, Err(ParamError::Invalid { name: got, .. }) if *got == name)
}

proptest! {
    #[test]
    fn canonical_text_ignores_order_and_unknown_parameters(
        (original, shuffled) in (transform(), spelling(), any::<bool>())
            .prop_flat_map(|(t, s, verbose)| shuffled_with_noise(to_pairs(&t, s, verbose)))
    ) {
        let expected = Transform::from_pairs(original.clone()).unwrap().canonical();
        prop_assert_eq!(&Transform::from_pairs(shuffled.clone()).unwrap().canonical(), &expected);
        prop_assert_eq!(&Transform::from_query(&query_of(&shuffled)).unwrap().canonical(), &expected);
        // Small sets: literally every order.
        if original.len() <= 5 {
            for order in permutations(&original) {
                prop_assert_eq!(&Transform::from_query(&query_of(&order)).unwrap().canonical(), &expected);
            }
        }
    }

    #[test]
    fn canonical_text_ignores_spelling(t in transform(), a in spelling(), b in spelling(), verbose in any::<bool>()) {
        let first = Transform::from_pairs(to_pairs(&t, a, verbose)).unwrap();
        let second = Transform::from_pairs(to_pairs(&t, b, !verbose)).unwrap();
        prop_assert_eq!(first.canonical(), second.canonical());
    }

    /// Jobs carry a transformation as `to_query` text: every transformation survives the trip.
    #[test]
    fn to_query_parses_back_to_the_same_transformation(t in transform()) {
        prop_assert_eq!(Transform::from_query(&t.to_query()), Ok(t));
    }

    // -----------------------------------------------------------------------------------------------------
    // (c) Writing a transformation back as a query and parsing it again changes nothing.

    #[test]
    fn a_transformation_written_as_a_query_parses_back_to_itself(t in transform(), s in spelling()) {
        let query = to_query(&t, s);
        let parsed = Transform::from_query(&query).map_err(|e| TestCaseError::fail(format!("{query}: {e}")))?;
        prop_assert_eq!(parsed, t, "{}", query);
        prop_assert_eq!(parsed.canonical(), t.canonical());
    }

    #[test]
    fn parsing_is_idempotent_through_the_query_text(t in transform(), a in spelling(), b in spelling()) {
        let once = Transform::from_query(&to_query(&t, a)).unwrap();
        let twice = Transform::from_query(&to_query(&once, b)).unwrap();
        prop_assert_eq!(once, twice);
        prop_assert_eq!(once.canonical(), twice.canonical());
    }

    // -----------------------------------------------------------------------------------------------------
    // (d) Ranges: everything inside is accepted, everything outside refused.

    #[test]
    fn dimensions_accept_1_to_5000_only(n in prop_oneof![1i64..=5000, any::<i64>(), -5i64..=5, 4995i64..=5005]) {
        for name in ["w", "h"] {
            let parsed = Transform::from_query(&format!("{name}={n}"));
            if (1..=5000).contains(&n) {
                let t = parsed.unwrap();
                prop_assert_eq!(if name == "w" { t.width } else { t.height }, Some(n as u32));
            } else {
                prop_assert!(refused(&parsed, name), "{:?}", parsed);
            }
        }
    }

    #[test]
    fn quality_accepts_1_to_100_only(n in prop_oneof![1i64..=100, any::<i64>(), -5i64..=5, 95i64..=105]) {
        let parsed = Transform::from_query(&format!("q={n}"));
        if (1..=100).contains(&n) {
            prop_assert_eq!(parsed.unwrap().quality, Quality::Value(n as u8));
        } else {
            prop_assert!(refused(&parsed, "q"), "{:?}", parsed);
        }
    }

    #[test]
    fn rotation_accepts_minus_360_to_360_only(n in prop_oneof![-360i64..=360, any::<i64>(), 355i64..=365, -365i64..=-355]) {
        let parsed = Transform::from_query(&format!("rot={n}"));
        if (-360..=360).contains(&n) {
            prop_assert_eq!(i64::from(parsed.unwrap().rotation), n.rem_euclid(360));
        } else {
            prop_assert!(refused(&parsed, "rot"), "{:?}", parsed);
        }
    }

    #[test]
    fn blur_accepts_0_3_to_1000_only(sigma in prop_oneof![0.3f32..=1000.0, any::<f32>(), 0.0f32..1.0, 999.0f32..1001.0]) {
        let parsed = Transform::from_query(&format!("blur={sigma}"));
        if (0.3..=1000.0).contains(&sigma) {
            prop_assert_eq!(parsed.unwrap().blur, Some(sigma));
        } else {
            prop_assert!(refused(&parsed, "blur"), "{:?}", parsed);
        }
    }

    #[test]
    fn border_width_accepts_1_to_1000_only(n in prop_oneof![1i64..=1000, any::<i64>(), -5i64..=5, 995i64..=1005]) {
        let parsed = Transform::from_query(&format!("border={n}_00ff00"));
        if (1..=1000).contains(&n) {
            prop_assert_eq!(parsed.unwrap().border, Some(Border { width: n as u32, color: [0, 255, 0, 255] }));
        } else {
            prop_assert!(refused(&parsed, "border"), "{:?}", parsed);
        }
    }

    #[test]
    fn crop_needs_non_negative_u32s_and_a_non_zero_size(
        parts in prop::array::uniform4(prop_oneof![
            any::<i64>(), -2i64..=2, 0i64..=5000, Just(i64::from(u32::MAX)), Just(i64::from(u32::MAX) + 1)
        ])
    ) {
        let parsed = Transform::from_query(&format!("crop={},{},{},{}", parts[0], parts[1], parts[2], parts[3]));
        let fits = |n: i64| u32::try_from(n).is_ok();
        if parts.iter().all(|&n| fits(n)) && parts[2] > 0 && parts[3] > 0 {
            let [x, y, width, height] = parts.map(|n| n as u32);
            prop_assert_eq!(parsed.unwrap().crop, Some(Crop { x, y, width, height }));
        } else {
            prop_assert!(refused(&parsed, "crop"), "{:?}", parsed);
        }
    }
}

/// The exact edges, and the nearest values outside them (for blur, the neighbouring f32s).
#[test]
fn edges_are_accepted_and_their_neighbours_outside_refused() {
    let next_up = |f: f32| f32::from_bits(f.to_bits() + 1);
    let next_down = |f: f32| f32::from_bits(f.to_bits() - 1);
    let accepted = [
        "w=1".to_owned(),
        "w=5000".to_owned(),
        "h=1".to_owned(),
        "h=5000".to_owned(),
        "q=1".to_owned(),
        "q=100".to_owned(),
        "q=auto".to_owned(),
        "rot=-360".to_owned(),
        "rot=360".to_owned(),
        "blur=0.3".to_owned(),
        "blur=1000".to_owned(),
        "border=1_000".to_owned(),
        "border=1000_ffffffff".to_owned(),
        "crop=0,0,1,1".to_owned(),
        format!("crop={m},{m},{m},{m}", m = u32::MAX),
    ];
    for query in &accepted {
        assert!(Transform::from_query(query).is_ok(), "{query} should be accepted");
    }
    let refused = [
        "w=0".to_owned(),
        "w=5001".to_owned(),
        "h=0".to_owned(),
        "h=5001".to_owned(),
        "q=0".to_owned(),
        "q=101".to_owned(),
        "rot=-361".to_owned(),
        "rot=361".to_owned(),
        format!("blur={}", next_down(0.3)),
        format!("blur={}", next_up(1000.0)),
        "border=0_000".to_owned(),
        "border=1001_000".to_owned(),
        "crop=0,0,0,1".to_owned(),
        "crop=0,0,1,0".to_owned(),
        format!("crop={},0,1,1", u64::from(u32::MAX) + 1),
        "crop=-1,0,1,1".to_owned(),
    ];
    for query in &refused {
        let name = query.split('=').next().unwrap();
        match Transform::from_query(query) {
            Err(ParamError::Invalid { name: got, .. }) => assert_eq!(got, name, "{query}"),
            other => panic!("{query} should be refused as an invalid {name}, got {other:?}"),
        }
    }
}
