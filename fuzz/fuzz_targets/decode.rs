//! Fuzz target `decode`: arbitrary bytes as an uploaded image through `shutterbox_pipeline::render`, the
//! path every delivery takes, and through `read_facts` and `summarize`, what confirm and the description
//! job read of it (format sniffing, the pixel budget, the JPEG planar and shrink-on-load paths,
//! the `image` crate's decoders, AVIF through avif-parse and libaom, then the operations and an encoder).
//!
//! Input: the first byte picks one of `CASES` (a transformation and an output format), the rest is the
//! file. Errors the upload causes are fine; an internal error (a 500), a panic, a sanitizer report, a
//! timeout or running out of memory is not.
//!
//! Kept cheap so libFuzzer gets many runs a second: a 4-megapixel budget (bombs are refused from the header),
//! small outputs, and no AVIF encoding (libaom's encoder takes tens of milliseconds even for a thumbnail; a
//! `Source` target with an AVIF source is rendered as PNG instead).

#![no_main]

use libfuzzer_sys::fuzz_target;
use shutterbox_pipeline::{
    OutputFormat, RenderOptions, SourceFormat, Target, Transform, read_facts, render, summarize,
};

/// Largest source accepted, in pixels: enough for every decoder's code paths, small enough to stay fast.
const MAX_PIXELS: u64 = 4_000_000;

const JPEG: Target = Target::Format(OutputFormat::Jpeg);
const PNG: Target = Target::Format(OutputFormat::Png);
const WEBP: Target = Target::Format(OutputFormat::Webp);

/// (query, target) pairs covering every operation and path of `render`.
const CASES: [(&str, Target); 8] = [
    // A 4:2:0 JPEG takes the planar path, shrunk on load at 1/8 through split_jpeg when wide enough.
    ("w=64&q=80", JPEG),
    // ... and at 1/4 (a shrink factor between 4 and 8).
    ("w=130&h=90&fit=fill&q=75", JPEG),
    ("w=64&h=64&fit=cover", PNG),
    ("w=64&rot=45&gray=true&q=auto", WEBP),
    ("w=48&h=48&fit=contain&blur=1.5&sharp=true&border=2_ff000080&q=70", JPEG),
    ("crop=0,0,16,16&w=32&rot=90", PNG),
    // WebP, or GIF for a GIF source.
    ("w=64&q=auto", Target::Auto),
    // The source's own format: JPEG, PNG, WebP, GIF or TIFF (AVIF is swapped for PNG below).
    ("h=64&fit=inside&rot=270", Target::Source),
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, source)) = data.split_first() else { return };
    let (query, mut target) = CASES[usize::from(selector) % CASES.len()];
    if target == Target::Source && SourceFormat::detect(source) == Some(SourceFormat::Avif) {
        target = PNG;
    }
    // The facts confirm reads: a first part of the file gives the whole file's facts or asks for more.
    let whole = read_facts(source, true);
    if let Ok(Some(from_head)) = read_facts(&source[..source.len() / 2], false) {
        assert_eq!(whole.ok(), Some(Some(from_head)), "the head's facts are the file's");
    }
    let options = RenderOptions { max_pixels: MAX_PIXELS, ..RenderOptions::default() };
    // One input in 16 is described as the description job does (one decode, reduced to 100 pixels).
    if selector % 16 == 15
        && let Err(error) = summarize(source, &options)
    {
        assert!(error.is_client_error(), "summarize: {error}");
    }
    let transform = Transform::from_query(query).expect("the fixed queries are valid");
    match render(source, &transform, target, options) {
        Ok(rendered) => {
            assert!(!rendered.bytes.is_empty(), "{query}: empty output");
            assert!(rendered.width > 0 && rendered.height > 0, "{query}: {}x{}", rendered.width, rendered.height);
        }
        // Whatever the bytes, a refusal is the upload's fault (a 400), never the pipeline's (a 500).
        Err(error) => assert!(error.is_client_error(), "{query}: {error}"),
    }
});
