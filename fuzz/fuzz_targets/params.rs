//! Fuzz target `params`: `Transform::from_query` (pipeline/src/params.rs) on arbitrary text, the input
//! bytes taken as UTF-8 where they are and lossily converted where they are not.
//!
//! Beyond "never panics": an accepted query's canonical text (the variant cache key) is ASCII without
//! spaces, and written back as a query it parses to the same transformation and the same canonical text
//! (idempotence). A refusal echoes at most 64 characters of the value.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shutterbox_pipeline::{ParamError, Transform};

fuzz_target!(|data: &[u8]| {
    check(&String::from_utf8_lossy(data));
});

fn check(query: &str) {
    let transform = match Transform::from_query(query) {
        Ok(transform) => transform,
        Err(err) => {
            assert!(!err.to_string().is_empty());
            if let ParamError::Invalid { got, .. } = &err {
                assert!(got.chars().count() <= 64, "the echoed value is capped: {err}");
            }
            return;
        }
    };
    let canonical = transform.canonical();
    assert_eq!(transform.to_string(), canonical);
    assert!(
        canonical.bytes().all(|b| b.is_ascii_graphic()),
        "the cache key is plain ASCII whatever the request's spelling: {canonical:?}"
    );

    let requery = query_of(&canonical);
    let again = Transform::from_query(&requery)
        .unwrap_or_else(|e| panic!("canonical text {canonical:?} (as {requery:?}) does not parse: {e}"));
    assert_eq!(again.canonical(), canonical, "canonical text of {query:?} is not a fixed point");
    // Every field survives the round trip, except what the canonical text deliberately normalizes: blur is
    // rounded to thousandths, and whether `q` was given is not part of it (its value is).
    let same = |mut t: Transform| {
        t.blur = None;
        t.quality_given = false;
        t
    };
    assert_eq!(same(again), same(transform), "{query:?} → {canonical:?}");
    match (transform.blur, again.blur) {
        (None, None) => {}
        (Some(a), Some(b)) => assert!((a - b).abs() <= 0.000_5 + a * f32::EPSILON, "blur {a} came back as {b}"),
        (a, b) => panic!("blur {a:?} came back as {b:?}"),
    }
}

/// The canonical text as a query the parser accepts: it spells an absent parameter with a placeholder
/// (`format=original`, `w=-`, `blur=0`, `border=0`, `crop=-`) that is not a valid value, so those pairs
/// are left out, which means the same thing.
fn query_of(canonical: &str) -> String {
    canonical
        .split('&')
        .filter(|pair| !matches!(*pair, "format=original" | "w=-" | "h=-" | "blur=0" | "border=0" | "crop=-"))
        .collect::<Vec<_>>()
        .join("&")
}
