use image::{DynamicImage, Rgb, RgbImage};

use super::*;
use crate::{
    options::RenderOptions,
    params::{Fit, Transform},
    render::plan::{RenderPath, RenderPlan, Target},
    source::{Probe, SourceFormat},
};

/// The plan for `transform` of `source` and its probe, when its path is one `taken` accepts.
fn plan_taking(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: &RenderOptions,
    taken: impl Fn(&RenderPath) -> bool,
) -> Option<(Probe, RenderPlan)> {
    let probe = Probe::read(source, options).ok()?;
    let plan = RenderPlan::new(&probe, transform, target, options).ok().filter(|plan| taken(&plan.path))?;
    Some((probe, plan))
}

/// What the planar paths would do for `transform` on a JPEG of `full` size, when the resize scales.
fn planned(transform: &Transform, full: Size) -> Option<PlanarResize> {
    let resize =
        crate::steps::resize::plan_resize(full.width, full.height, transform.width, transform.height, transform.fit)
            .with_gravity(transform.gravity);
    let kept = resize.crop.unwrap_or(Rect { x: 0, y: 0, width: resize.scaled.width, height: resize.scaled.height });
    if !resize.scales() || kept.width == 0 || kept.height == 0 {
        return None;
    }
    Some(PlanarResize::new(&resize, crate::render::plan::shrink_on_load(transform, full)))
}

/// The planar render, when the plan takes it.
fn render_planar(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: &RenderOptions,
) -> Option<Result<Rendered, PipelineError>> {
    let (probe, plan) =
        plan_taking(source, transform, target, options, |path| matches!(path, RenderPath::Planar { .. }))?;
    let RenderPath::Planar { resize, quality } = &plan.path else { return None };
    let deadline = Deadline::of(options, &crate::Cancellation::new());
    Some(render(source, &probe, resize, (plan.output, *quality), options, &deadline))
}

/// The planar steps into RGB, when the plan takes a planar path (both start with them).
fn rgb_steps(
    source: &[u8],
    transform: &Transform,
    target: Target,
    options: &RenderOptions,
) -> Option<Result<DynamicImage, PipelineError>> {
    let (probe, plan) = plan_taking(source, transform, target, options, |path| {
        matches!(path, RenderPath::Planar { .. } | RenderPath::PlanarThenRgb(_))
    })?;
    let (RenderPath::Planar { resize, .. } | RenderPath::PlanarThenRgb(resize)) = &plan.path else { return None };
    Some(resized_rgb(source, &probe, resize, options))
}

fn jpeg(w: u32, h: u32, subsamp: Subsamp) -> Vec<u8> {
    let image = RgbImage::from_fn(w, h, |x, y| {
        Rgb([
            ((x * 255) / w) as u8,
            ((y * 255) / h) as u8,
            (128.0 + 100.0 * (x as f32 / 37.0).sin() * (y as f32 / 23.0).cos()) as u8,
        ])
    });
    crate::codecs::test_jpeg::encode(&image, 95, subsamp)
}

fn general(source: &[u8], query: &str) -> DynamicImage {
    general_as(source, query, Target::Source)
}

fn general_as(source: &[u8], query: &str, target: Target) -> DynamicImage {
    let transform = Transform::from_query(query).unwrap();
    let rendered = crate::render::render_general(source, &transform, target, RenderOptions::default());
    crate::decode::decode(&rendered.unwrap().bytes, u64::MAX).unwrap().0
}

fn planar(source: &[u8], query: &str) -> Option<Rendered> {
    planar_as(source, query, Target::Source)
}

fn planar_as_result(source: &[u8], query: &str, target: Target) -> Result<Rendered, PipelineError> {
    render_planar(source, &Transform::from_query(query).unwrap(), target, &RenderOptions::default())
        .unwrap_or_else(|| panic!("{query} as {target:?} qualifies"))
}

fn planar_as(source: &[u8], query: &str, target: Target) -> Option<Rendered> {
    render_planar(source, &Transform::from_query(query).unwrap(), target, &RenderOptions::default()).map(Result::unwrap)
}

/// Mean absolute difference per sample between two same-sized images.
fn mean_difference(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let total: u64 = a.iter().zip(b).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
    total as f64 / a.len() as f64
}

/// JPEG and WebP (asked by name, by `auto`, or as the source's own format) from the planes give what
/// the general path gives through RGB: the same size, the same format, the same pixels within
/// resampling and coding rounding.
#[test]
fn matches_the_general_path_for_every_fit_and_odd_sizes() {
    let source = jpeg(1001, 667, Subsamp::Sub2x2);
    let targets = [
        (Target::Source, OutputFormat::Jpeg),
        (Target::Format(OutputFormat::Jpeg), OutputFormat::Jpeg),
        (Target::Format(OutputFormat::Webp), OutputFormat::Webp),
        (Target::Auto, OutputFormat::Webp),
    ];
    for (target, format) in targets {
        for query in [
            "w=300",
            "h=111",
            "w=200&h=200&fit=cover",
            "w=200&h=200&gravity=east",
            "w=300&h=90&gravity=southwest",
            "w=151&h=75&fit=fill",
            "w=99&h=99&fit=inside",
            "w=17",
            "h=1",
        ] {
            let query = format!("{query}&q=90");
            let rendered = planar_as(&source, &query, target).unwrap_or_else(|| panic!("{query} qualifies"));
            assert_eq!(rendered.format, format, "{query} as {target:?}");
            let sniffed = if format == OutputFormat::Jpeg { SourceFormat::Jpeg } else { SourceFormat::Webp };
            assert_eq!(SourceFormat::detect(&rendered.bytes), Some(sniffed), "{query} as {target:?}");
            let ours = crate::decode::decode(&rendered.bytes, u64::MAX).unwrap().0;
            let reference = general_as(&source, &query, target);
            assert_eq!((ours.width(), ours.height()), (reference.width(), reference.height()), "{query}");
            assert_eq!((rendered.width, rendered.height), (ours.width(), ours.height()), "{query}");
            // Luma is resampled alike on both paths (a misplaced window shows here); chroma differs
            // more, as the general path resamples it at full size between an upsampling and a
            // downsampling.
            // VP8 codes the two paths' slightly different inputs less alike than JPEG does at the smallest
            // sizes (w=17: 2.4 luma, 6.0 RGB).
            let (luma_bound, rgb_bound) = if format == OutputFormat::Jpeg { (2.0, 6.0) } else { (3.0, 8.0) };
            let luma = mean_difference(ours.to_luma8().as_raw(), reference.to_luma8().as_raw());
            let rgb = mean_difference(ours.to_rgb8().as_raw(), reference.to_rgb8().as_raw());
            assert!(
                luma < luma_bound && rgb < rgb_bound,
                "{query} as {target:?}: mean difference {luma:.2} (luma), {rgb:.2} (RGB)"
            );
        }
    }
}

/// Every output size from 1×1 up, odd and even, each side on its own: the WebP made from the planes
/// decodes to the requested size and to the picture the JPEG made from the same planes decodes to,
/// within the two codecs' rounding at q 95 (a plane read with a wrong stride, chroma of the wrong size
/// or range shows as a shift or a shear of tens of levels).
#[test]
fn webp_from_the_planes_has_every_size_and_the_jpegs_pixels() {
    let source = jpeg(160, 120, Subsamp::Sub2x2);
    let mut checked = 0;
    for (w, h) in (1..=40).map(|w| (w, 0)).chain((1..=30).map(|h| (0, h))) {
        let query = if w > 0 { format!("w={w}&q=95") } else { format!("h={h}&q=95") };
        let decoded = |format| {
            let rendered = planar_as(&source, &query, Target::Format(format))
                .unwrap_or_else(|| panic!("{query} as {format:?} qualifies"));
            let image = crate::decode::decode(&rendered.bytes, u64::MAX).unwrap().0.to_rgb8();
            assert_eq!((rendered.width, rendered.height), image.dimensions(), "{query} as {format:?}");
            image
        };
        let (webp, jpeg) = (decoded(OutputFormat::Webp), decoded(OutputFormat::Jpeg));
        let lossless = general_as(&source, &query, Target::Format(OutputFormat::Png)).to_rgb8();
        assert_eq!(webp.dimensions(), lossless.dimensions(), "{query}");
        let difference = mean_difference(webp.as_raw(), jpeg.as_raw());
        // Below 4 px a side, the two decoders' chroma upsampling (one or two chroma samples across)
        // differs by more than the coding does: 8.6 and 15.2 at 3×2 and 4×3, as between the general
        // path's WebP and JPEG.
        let bound = if webp.width().min(webp.height()) >= 4 { 3.0 } else { 20.0 };
        assert!(difference < bound, "{query}: the WebP is {difference:.2} from the JPEG of the same planes");
        checked += 1;
    }
    assert_eq!(checked, 70);
}

/// The RGB planar steps give what decoding to RGB and resizing gives: same size, same pixels within
/// resampling rounding (chroma is resampled once from its half-size plane rather than upsampled
/// first), for every fit, padded `contain` included, odd sides, and every shrink-on-load factor.
#[test]
fn the_rgb_steps_match_decoding_to_rgb_then_resizing() {
    let large = crate::codecs::test_jpeg::photo(1600, 1200, 90);
    let odd = jpeg(1001, 667, Subsamp::Sub2x2);
    for (source, query) in [
        (&odd, "w=300"),
        (&odd, "h=111"),
        (&odd, "w=200&h=200&fit=cover"),
        (&odd, "w=151&h=75&fit=fill"),
        (&odd, "w=99&h=99&fit=inside"),
        (&odd, "w=120&h=120&fit=contain"),
        (&odd, "w=17"),
        (&odd, "w=900&h=300&fit=outside"),
        (&large, "w=400"),
        (&large, "w=150&h=150&fit=cover"),
        (&large, "w=150&h=150&gravity=northwest"),
        (&large, "w=300&h=60&gravity=south"),
        (&odd, "w=90&h=150&gravity=fp:0.9,0.1"),
        (&large, "w=700&h=100&fit=contain"),
        (&large, "w=1000"),
    ] {
        let transform = Transform::from_query(query).unwrap();
        for parallel in [false, true] {
            let options = RenderOptions { parallel, ..RenderOptions::default() };
            let ours = rgb_steps(source, &transform, Target::Format(OutputFormat::Webp), &options)
                .unwrap_or_else(|| panic!("{query} qualifies"))
                .unwrap();
            let reference = crate::render::decode_and_resize(source, &transform, &options).unwrap();
            assert_eq!((ours.width(), ours.height()), (reference.width(), reference.height()), "{query}");
            assert_eq!(ours.color(), reference.color(), "{query}");
            let luma = mean_difference(ours.to_luma8().as_raw(), reference.to_luma8().as_raw());
            let rgb = mean_difference(ours.to_rgba8().as_raw(), reference.to_rgba8().as_raw());
            assert!(luma < 2.0 && rgb < 4.0, "{query}: mean difference {luma:.2} (luma), {rgb:.2} (RGBA)");
        }
    }
    // Not taken: a crop, a rotation, no resize, another subsampling.
    let webp = Target::Format(OutputFormat::Webp);
    for query in [
        "w=100&crop=0,0,100,100",
        "w=100&rot=90",
        "q=50",
        "blur=2",
        "w=100&h=100&gravity=attention",
        "w=100&h=100&gravity=entropy",
    ] {
        let transform = Transform::from_query(query).unwrap();
        assert!(rgb_steps(&odd, &transform, webp, &RenderOptions::default()).is_none(), "{query}");
    }
    let four_four_four = jpeg(300, 200, Subsamp::None);
    let transform = Transform::from_query("w=100").unwrap();
    assert!(rgb_steps(&four_four_four, &transform, webp, &RenderOptions::default()).is_none());
    // A 4:4:4 output needs chroma at its full size: taken only at most half the decoded size.
    let png = Target::Format(OutputFormat::Png);
    let at = |query: &str| rgb_steps(&large, &Transform::from_query(query).unwrap(), png, &RenderOptions::default());
    assert!(at("w=100&h=100&fit=cover").is_none(), "1/8: 200x150 decoded, 133x100 scaled");
    assert!(at("w=120").is_none(), "1/8: 200x150 decoded, 120x90");
    assert!(at("w=100").is_some_and(|r| r.is_ok()), "1/8: 200x150 decoded, 100x75");
}

#[test]
fn a_webp_beyond_its_side_limit_is_the_requests_error_on_this_path_too() {
    // `w` stops at 5000, but `h` alone on a panorama makes a wider output: 20000×16 → 18750×15.
    let panorama = jpeg(20_000, 16, Subsamp::Sub2x2);
    let webp = Target::Format(OutputFormat::Webp);
    let refused = planar_as_result(&panorama, "h=15&q=80", webp);
    assert!(
        matches!(refused, Err(ref e @ PipelineError::OutputTooLarge { max_side: 16_383, .. }) if e.is_client_error()),
        "{refused:?}"
    );
    // 20000×16 → 16250×13 fits.
    let rendered = planar_as_result(&panorama, "h=13&q=80", webp).unwrap();
    assert_eq!((rendered.width, rendered.height, rendered.format), (16_250, 13, OutputFormat::Webp));
}

#[test]
fn a_large_jpeg_decoded_on_two_threads_matches_the_general_path() {
    let source = crate::codecs::test_jpeg::photo(1600, 1200, 90);
    assert!(
        crate::codecs::split_jpeg::splits(&source),
        "{} bytes: big enough for the entropy decoding to be split",
        source.len()
    );
    // 1/4 and 1/8 on load.
    for query in ["w=400&q=85", "w=150&h=150&fit=cover&q=85"] {
        let rendered = planar(&source, query).unwrap_or_else(|| panic!("{query} qualifies"));
        let ours = crate::decode::decode(&rendered.bytes, u64::MAX).unwrap().0;
        let reference = general(&source, query);
        assert_eq!((ours.width(), ours.height()), (reference.width(), reference.height()), "{query}");
        let luma = mean_difference(ours.to_luma8().as_raw(), reference.to_luma8().as_raw());
        assert!(luma < 2.0, "{query}: mean luma difference {luma:.2}");
    }
}

#[test]
fn one_core_or_two_the_output_is_the_same() {
    let source = crate::codecs::test_jpeg::photo(1600, 1200, 90);
    let single = RenderOptions { parallel: false, ..RenderOptions::default() };
    for target in [Target::Source, Target::Format(OutputFormat::Webp)] {
        for query in ["w=400&q=85", "w=150&h=150&fit=cover&q=85", "w=801&q=70", "h=97&q=90"] {
            let transform = Transform::from_query(query).unwrap();
            let two = render_planar(&source, &transform, target, &RenderOptions::default()).unwrap().unwrap();
            let one = render_planar(&source, &transform, target, &single).unwrap().unwrap();
            assert!(one.bytes == two.bytes, "{query} as {target:?}: the single-core render differs");
        }
    }
}

/// The windows of every request the planar path takes lie inside their planes: every `w` and every `h`
/// from 1 to a band past each side, on sources of every shape (odd, extreme, the sizes that failed), at
/// every shrink-on-load factor those requests choose, plus seeded random boxes of every fit. Pure
/// arithmetic, the same as `render` does before touching a pixel.
#[test]
fn every_window_lies_inside_its_plane() {
    let fits = [Fit::Cover, Fit::Contain, Fit::Fill, Fit::Inside, Fit::Outside];
    let mut checked = 0u64;
    let mut check = |full: Size, transform: &Transform| {
        let Some(planned) = planned(transform, full) else { return };
        let factor = ScalingFactor::new(1, planned.shrink as usize);
        let decoded = (factor.scale(full.width as usize), factor.scale(full.height as usize));
        let padded = (decoded.0.next_multiple_of(2), decoded.1.next_multiple_of(2));
        let (luma, chroma) = plane_windows(decoded, padded, planned.scaled, planned.kept);
        let context = || format!("{}x{} {transform:?} {planned:?}: {luma:?} {chroma:?}", full.width, full.height);
        assert!(luma.fits(decoded), "luma: {}", context());
        assert!(chroma.fits((padded.0 / 2, padded.1 / 2)), "chroma: {}", context());
        let (luma, chroma) = full_size_windows(decoded, (padded.0 / 2, padded.1 / 2), planned.scaled, planned.kept);
        assert!(luma.fits(decoded), "luma at full size: {}", context());
        assert!(chroma.fits((padded.0 / 2, padded.1 / 2)), "chroma at full size: {}", context());
        checked += 1;
    };
    let sources = [
        (1200, 800),
        (4000, 3000),
        (500, 5000),
        (1201, 799),
        (4001, 2999),
        (17, 4999),
        (4999, 9),
        (3, 1),
        (1, 1),
        (2, 2),
        (640, 427),
        (6000, 4000),
    ];
    for (w, h) in sources {
        let full = Size::new(w, h);
        for side in 1..=w + 64 {
            check(full, &Transform { width: Some(side), ..Transform::default() });
        }
        for side in 1..=h + 64 {
            check(full, &Transform { height: Some(side), ..Transform::default() });
        }
    }
    let mut state = 0x5eed_u64;
    let mut next = |n: u32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % u64::from(n)) as u32
    };
    for _ in 0..400_000 {
        let full = Size::new(1 + next(6000), 1 + next(6000));
        let side = |n: u32, next: &mut dyn FnMut(u32) -> u32| (next(4) != 0).then(|| 1 + next(n));
        let width = side(full.width + 64, &mut next);
        let height = side(full.height + 64, &mut next);
        let fit = fits[next(5) as usize];
        let gravity =
            crate::gravity::Gravity::parse(["center", "north", "southeast", "west", "fp:0.9,0.05"][next(5) as usize])
                .unwrap_or_default();
        check(full, &Transform { width, height, fit, gravity, ..Transform::default() });
    }
    assert!(checked > 300_000, "{checked} windows checked");
}

#[test]
fn anything_else_takes_the_general_path() {
    let source = jpeg(400, 300, Subsamp::Sub2x2);
    for query in [
        "w=100&q=auto",
        "w=100&gray=true",
        "w=100&blur=2",
        "w=100&sharp=true",
        "w=100&rot=90",
        "w=100&crop=0,0,100,100",
        "w=100&border=2_000000",
        "w=100&h=100&fit=contain",
        "q=50",
        "w=1000",
    ] {
        assert!(planar(&source, query).is_none(), "{query}");
    }
    let q = Transform::from_query("w=100").unwrap();
    for format in [OutputFormat::Png, OutputFormat::Avif, OutputFormat::Gif, OutputFormat::Tiff] {
        assert!(render_planar(&source, &q, Target::Format(format), &RenderOptions::default()).is_none(), "{format:?}");
    }
    assert!(render_planar(&jpeg(400, 300, Subsamp::None), &q, Target::Source, &RenderOptions::default()).is_none());
    let budget =
        |max_pixels, max_output_pixels| RenderOptions { max_pixels, max_output_pixels, ..RenderOptions::default() };
    assert!(render_planar(&source, &q, Target::Source, &budget(1_000, u64::MAX)).is_none(), "over the pixel budget");
    assert!(render_planar(&source, &q, Target::Source, &budget(u64::MAX, 1_000)).is_none(), "over the output budget");
}

/// A JPEG libjpeg-turbo refuses (here cut short: it reports the warning as a failure) still renders on
/// the planar path the plan chose from its headers, from the general decoder's pixels, as the general
/// path renders it: same outcome, same size, nearly the same pixels.
#[test]
fn a_jpeg_libjpeg_turbo_refuses_still_renders_on_the_path_the_plan_chose() {
    let whole = jpeg(400, 300, Subsamp::Sub2x2);
    let cut = &whole[..whole.len() * 3 / 4];
    assert!(Decompressor::new().unwrap().decompress_to_yuv(cut, yuv_buffer(400, 300).as_deref_mut()).is_err());
    for query in ["w=100&q=80", "w=100&h=100&fit=cover&format=png"] {
        let planned = planar_as_result(cut, query, Target::Source);
        let general = crate::render::render_general(
            cut,
            &Transform::from_query(query).unwrap(),
            Target::Source,
            RenderOptions::default(),
        );
        let (planned, general) = match (planned, general) {
            (Ok(planned), Ok(general)) => (planned, general),
            (planned, general) => {
                assert_eq!(planned.is_ok(), general.is_ok(), "{query}: {planned:?} against {general:?}");
                continue;
            }
        };
        assert_eq!((planned.width, planned.height), (general.width, general.height), "{query}");
        let decoded = |bytes: &[u8]| crate::decode::decode(bytes, u64::MAX).unwrap().0.to_rgb8().into_raw();
        let difference = mean_difference(&decoded(&planned.bytes), &decoded(&general.bytes));
        assert!(difference < 3.0, "{query}: mean difference {difference}");
    }
}

/// An RGB picture turned into planes is what libjpeg-turbo decodes a JPEG of it into, within rounding.
#[test]
fn planes_of_rgb_match_libjpeg_turbos_planes() {
    for (w, h) in [(64, 48), (33, 17), (1, 1)] {
        let source = jpeg(w, h, Subsamp::Sub2x2);
        let mut turbo = yuv_buffer(w as usize, h as usize);
        Decompressor::new().unwrap().decompress_to_yuv(&source, turbo.as_deref_mut()).unwrap();
        let rgb = crate::decode::decode(&source, u64::MAX).unwrap().0.to_rgb8();
        let ours = planes_of_rgb(&rgb);
        assert_eq!((ours.width, ours.height), (w as usize, h as usize));
        let difference = mean_difference(&ours.pixels, &turbo.pixels);
        assert!(difference < 2.0, "{w}x{h}: mean difference {difference}");
    }
}

fn yuv_buffer(width: usize, height: usize) -> YuvImage<Vec<u8>> {
    let len = turbojpeg::yuv_pixels_len(width, 1, height, Subsamp::Sub2x2).unwrap();
    YuvImage { pixels: vec![0; len], width, align: 1, height, subsamp: Subsamp::Sub2x2 }
}
