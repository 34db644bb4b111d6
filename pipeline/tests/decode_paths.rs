//! The decode paths behind `render`: JPEG shrink-on-load (DCT-scaled decode), EXIF orientation with it,
//! AVIF input, and robustness against damaged files.
//!
//! Shrink-on-load must not change what a request means: the output size is the full-size plan's, and the
//! pixels stay close to a full-size decode's. The full-size reference is the same request with a
//! `crop` covering the whole image, which disables shrink-on-load and changes nothing else.

// A test fails by panicking: unwrap and expect are how it says so (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use image::{DynamicImage, GenericImageView, Rgb, RgbImage};
use shutterbox_pipeline::{
    OutputFormat, PipelineError, RenderOptions, SourceFormat, Target, Transform, decode::decode, encode::encode,
    plan_resize, render, samples::with_exif_orientation,
};

/// A smooth photo-like picture with some edges, so scaled decodes have something to get wrong.
fn picture(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let r = (x * 255 / w.max(1)) as u8;
        let g = (y * 255 / h.max(1)) as u8;
        let b = if (x / 97 + y / 61) % 2 == 0 { 60 } else { 190 };
        Rgb([r, g, b])
    })
}

fn jpeg(w: u32, h: u32) -> Vec<u8> {
    encode(&DynamicImage::ImageRgb8(picture(w, h)), OutputFormat::Jpeg, 92).unwrap()
}

fn png_render(source: &[u8], query: &str) -> DynamicImage {
    let rendered = render(
        source,
        &Transform::from_query(query).unwrap(),
        Target::Format(OutputFormat::Png),
        RenderOptions::default(),
    )
    .unwrap();
    let image = image::load_from_memory(&rendered.bytes).unwrap();
    assert_eq!(image.dimensions(), (rendered.width, rendered.height));
    image
}

fn mean_abs_diff(a: &DynamicImage, b: &DynamicImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let (a, b) = (a.to_rgb8(), b.to_rgb8());
    let total: u64 = a.as_raw().iter().zip(b.as_raw()).map(|(&x, &y)| u64::from(x.abs_diff(y))).sum();
    total as f64 / a.as_raw().len() as f64
}

#[test]
fn shrink_on_load_keeps_the_geometry_and_the_picture() {
    let (w, h) = (1600, 1200);
    let source = jpeg(w, h);
    let full_crop = format!("crop=0,0,{w},{h}");
    for query in [
        "w=200",
        "w=390",
        "h=150",
        "w=100&h=100&fit=cover",
        "w=300&h=90&fit=cover",
        "w=300&h=90&fit=contain",
        "w=300&h=90&fit=fill",
        "w=120&h=400&fit=outside",
        "w=200&rot=90",
        "w=200&h=100&fit=cover&rot=270",
        "w=200&rot=180&blur=1&gray=true",
        "w=1000",
        "w=1600",
    ] {
        let fast = png_render(&source, query);
        let reference = png_render(&source, &format!("{query}&{full_crop}"));
        let t = Transform::from_query(query).unwrap();
        let (sw, sh) = if t.rotation % 180 == 90 { (h, w) } else { (w, h) };
        let plan = plan_resize(sw, sh, t.width, t.height, t.fit);
        assert_eq!(fast.dimensions(), (plan.output.width, plan.output.height), "{query}");
        let diff = mean_abs_diff(&fast, &reference);
        assert!(diff < 2.5, "{query}: mean difference {diff:.2} levels from the full-size decode");
    }
}

#[test]
fn the_shrink_factor_follows_sharp_and_never_undershoots() {
    use shutterbox_pipeline::{Size, shrink_on_load};
    let t = |q: &str| Transform::from_query(q).unwrap();
    let full = Size::new(4000, 3000);
    assert_eq!(shrink_on_load(&t("w=800"), full), 4); // shrink 5
    assert_eq!(shrink_on_load(&t("w=200&h=200&fit=cover"), full), 8); // shrink 15
    assert_eq!(shrink_on_load(&t("w=1000"), full), 2); // shrink exactly 4: halved, like sharp
    assert_eq!(shrink_on_load(&t("w=2500"), full), 1);
    assert_eq!(shrink_on_load(&t("w=800&crop=0,0,4000,3000"), full), 1);
    assert_eq!(shrink_on_load(&t("w=800&rot=45"), full), 1);
    assert_eq!(shrink_on_load(&t("blur=3"), full), 1);
    // 90°: the 800 px width is taken from the source's 3000 px height.
    assert_eq!(shrink_on_load(&t("w=800&rot=90"), full), 2);
    // Odd sizes: ceil(side / n) must still cover the scaled size.
    for (sw, sh) in [(17, 4001), (4001, 17), (1001, 999), (9, 9)] {
        for q in ["w=1", "w=2&h=2&fit=fill", "h=3&fit=cover&w=7", "w=5&h=5&fit=contain"] {
            let n = shrink_on_load(&t(q), Size::new(sw, sh));
            let tr = t(q);
            let plan = plan_resize(sw, sh, tr.width, tr.height, tr.fit);
            assert!(sw.div_ceil(n) >= plan.scaled.width && sh.div_ceil(n) >= plan.scaled.height, "{sw}x{sh} {q}");
        }
    }
}

#[test]
fn exif_orientation_is_applied_after_a_scaled_decode() {
    let plain = jpeg(800, 400);
    for orientation in 1..=8u16 {
        let source = with_exif_orientation(&plain, orientation as u8);
        let swapped = orientation >= 5;
        let (full, _) = decode(&source, 1 << 24).unwrap();
        assert_eq!(full.dimensions(), if swapped { (400, 800) } else { (800, 400) }, "orientation {orientation}");
        // Decoded shrunk on load (1/4, or 1/2 turned upright), turned, then resized: what the full decode gives.
        let t = |q: &str| Transform::from_query(q).unwrap();
        let upright = shutterbox_pipeline::Size::new(full.width(), full.height());
        assert_eq!(shutterbox_pipeline::shrink_on_load(&t("w=100"), upright), if swapped { 2 } else { 4 });
        let fast = png_render(&source, "w=100");
        let reference = png_render(&source, &format!("w=100&crop=0,0,{},{}", full.width(), full.height()));
        assert_eq!(fast.width(), 100);
        assert_eq!(fast.height(), if swapped { 200 } else { 50 }, "orientation {orientation}");
        let diff = mean_abs_diff(&fast, &reference);
        assert!(diff < 3.0, "orientation {orientation}: {diff:.2}");
    }
}

#[test]
fn the_jpeg_pixel_budget_is_checked_on_the_header() {
    let source = jpeg(64, 48);
    assert!(decode(&source, 64 * 48).is_ok());
    assert!(matches!(decode(&source, 64 * 48 - 1), Err(PipelineError::TooManyPixels { width: 64, height: 48, .. })));
    // A SOF claiming 60000 x 60000 pixels with 64x48 worth of data behind it.
    let mut bomb = source.clone();
    let sof = bomb.windows(2).position(|w| w == [0xFF, 0xC0]).expect("a baseline SOF");
    bomb[sof + 5..sof + 7].copy_from_slice(&60_000u16.to_be_bytes());
    bomb[sof + 7..sof + 9].copy_from_slice(&60_000u16.to_be_bytes());
    let err =
        render(&bomb, &Transform::from_query("w=10").unwrap(), Target::Source, RenderOptions::default()).unwrap_err();
    assert!(matches!(err, PipelineError::TooManyPixels { .. }), "{err:?}");
}

#[test]
fn damaged_jpegs_fail_or_decode_but_never_panic() {
    let source = jpeg(320, 240);
    let transform = Transform::from_query("w=40").unwrap();
    for cut in [0, 2, 10, 100, 300, source.len() / 2, source.len() - 2] {
        let _ = render(&source[..cut], &transform, Target::Format(OutputFormat::Jpeg), RenderOptions::default());
    }
    // Deterministic byte corruption all over the file.
    let mut state = 0x1234_5678_9abc_def0u64;
    for _ in 0..200 {
        let mut damaged = source.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % damaged.len() as u64) as usize;
            damaged[at] = (state >> 32) as u8;
        }
        let _ = render(&damaged, &transform, Target::Format(OutputFormat::Jpeg), RenderOptions::default());
    }
}

fn avif(w: u32, h: u32, alpha: bool) -> Vec<u8> {
    let pixels: Vec<ravif::RGBA8> = picture(w, h)
        .pixels()
        .map(|p| ravif::RGBA8 { r: p.0[0], g: p.0[1], b: p.0[2], a: if alpha { 128 } else { 255 } })
        .collect();
    ravif::Encoder::new()
        .with_quality(90.0)
        .with_speed(10)
        .encode_rgba(ravif::Img::new(&pixels[..], w as usize, h as usize))
        .unwrap()
        .avif_file
}

#[test]
fn avif_sources_decode_and_render() {
    let source = avif(96, 64, false);
    assert_eq!(SourceFormat::detect(&source), Some(SourceFormat::Avif));
    let (image, format) = decode(&source, 96 * 64).unwrap();
    assert_eq!((image.dimensions(), format), ((96, 64), SourceFormat::Avif));
    let diff = mean_abs_diff(&image, &DynamicImage::ImageRgb8(picture(96, 64)));
    assert!(diff < 4.0, "decoded AVIF differs by {diff:.2} levels on average");
    assert!(matches!(decode(&source, 96 * 64 - 1), Err(PipelineError::TooManyPixels { width: 96, height: 64, .. })));

    let t = Transform::from_query("w=48").unwrap();
    let same = render(&source, &t, Target::Source, RenderOptions::default()).unwrap();
    assert_eq!((same.format, same.width, same.height), (OutputFormat::Avif, 48, 32));
    let jpeg = render(&source, &t, Target::Format(OutputFormat::Jpeg), RenderOptions::default()).unwrap();
    assert_eq!(SourceFormat::detect(&jpeg.bytes), Some(SourceFormat::Jpeg));

    let translucent = avif(40, 30, true);
    let (image, _) = decode(&translucent, 1 << 20).unwrap();
    assert!(image.color().has_alpha());
    assert!(image.to_rgba8().pixels().all(|p| p.0[3].abs_diff(128) <= 2));
}

#[test]
fn damaged_avifs_are_errors() {
    let source = avif(64, 48, false);
    for cut in [12, 40, source.len() / 2, source.len() - 10] {
        assert!(decode(&source[..cut], 1 << 20).is_err(), "cut at {cut}");
    }
    let mut state = 0x0bad_cafe_u64;
    for _ in 0..100 {
        let mut damaged = source.clone();
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let at = 12 + (state >> 33) as usize % (damaged.len() - 12);
        damaged[at] ^= (state >> 24) as u8 | 1;
        let _ = decode(&damaged, 1 << 20);
    }
}

#[test]
fn renders_are_deterministic_and_gray_jpegs_have_one_channel() {
    let source = jpeg(640, 480);
    for (query, target) in [
        ("w=200&q=80", OutputFormat::Jpeg),
        ("w=200&q=80", OutputFormat::Webp),
        ("w=64", OutputFormat::Avif),
        ("blur=2&gray=true", OutputFormat::Jpeg),
    ] {
        let t = Transform::from_query(query).unwrap();
        let a = render(&source, &t, Target::Format(target), RenderOptions::default()).unwrap();
        let b = render(&source, &t, Target::Format(target), RenderOptions::default()).unwrap();
        assert_eq!(a.bytes, b.bytes, "{query} {target:?}");
    }
    let gray = render(
        &source,
        &Transform::from_query("gray=true&w=100").unwrap(),
        Target::Format(OutputFormat::Jpeg),
        RenderOptions::default(),
    )
    .unwrap();
    assert!(matches!(image::load_from_memory(&gray.bytes).unwrap(), DynamicImage::ImageLuma8(_)));
}

#[test]
fn gray_before_blur_matches_blur_before_gray() {
    use shutterbox_pipeline::steps::{blur, gray};
    let source = DynamicImage::ImageRgb8(picture(300, 200));
    for sigma in [0.5, 2.0, 5.0] {
        let spec_order = gray(&blur(source.clone(), sigma)).to_luma8();
        let fast_order = blur(gray(&source), sigma).to_luma8();
        let diffs: Vec<u8> = spec_order.as_raw().iter().zip(fast_order.as_raw()).map(|(a, b)| a.abs_diff(*b)).collect();
        let worst = diffs.iter().copied().max().unwrap();
        let mean = diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len() as f64;
        // Rounding only: each order rounds once in the blur and truncates once in the luma mix.
        assert!(worst <= 2 && mean < 0.5, "sigma {sigma}: up to {worst} levels apart, {mean:.2} on average");
    }
}

/// The `image` crate's own PNG decoding (the png crate), which the pipeline's decoder of the common PNG
/// (8-bit, not interlaced) must equal wherever it takes a file.
fn png_crate(bytes: &[u8]) -> Result<DynamicImage, image::ImageError> {
    image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
}

#[test]
fn every_png_layout_decodes_as_the_png_crate_decodes_it() {
    use shutterbox_pipeline::samples::{SampleKind, sample};
    let kinds = [
        SampleKind::PngGray1,
        SampleKind::PngGray8,
        SampleKind::PngGray16,
        SampleKind::PngGrayAlpha,
        SampleKind::PngRgb,
        SampleKind::PngRgb16,
        SampleKind::PngRgba,
        SampleKind::PngPaletteTrns,
    ];
    // Every width up to 33 (the eight-row wavefront's edges and its 16-byte blocks) at heights around
    // its groups of eight, and two photo-sized ones.
    let sizes = (1..=33).flat_map(|w| [1, 2, 7, 8, 9, 17].map(|h| (w, h))).chain([(301, 203), (640, 480)]);
    let mut compared = 0;
    for (w, h) in sizes {
        for kind in kinds {
            let bytes = sample(kind, w, h, u64::from(w * 131 + h)).unwrap();
            let (ours, format) = decode(&bytes, u64::MAX).unwrap();
            let reference = png_crate(&bytes).unwrap();
            assert_eq!(format, SourceFormat::Png);
            assert_eq!(ours.color(), reference.color(), "{kind:?} {w}×{h}");
            assert!(ours.as_bytes() == reference.as_bytes(), "{kind:?} {w}×{h}: pixels differ");
            compared += 1;
        }
    }
    assert_eq!(compared, 33 * 6 * 8 + 2 * 8);
}

#[test]
fn damaged_pngs_decode_as_the_png_crate_decodes_them_or_fail() {
    use shutterbox_pipeline::samples::{SampleKind, sample};
    let whole = sample(SampleKind::PngRgb, 37, 21, 7).unwrap();
    let mut damaged: Vec<Vec<u8>> = (0..whole.len()).step_by(7).map(|n| whole[..n].to_vec()).collect();
    for at in (8..whole.len()).step_by(5) {
        let mut flipped = whole.clone();
        flipped[at] ^= 0x10;
        damaged.push(flipped);
    }
    for bytes in damaged {
        match (decode(&bytes, u64::MAX), png_crate(&bytes)) {
            (Ok((ours, _)), Ok(reference)) => assert!(ours.as_bytes() == reference.as_bytes()),
            (Err(_), Err(_)) => {}
            (ours, reference) => panic!(
                "the pipeline and the png crate disagree on a damaged PNG of {} bytes: {:?} against {:?}",
                bytes.len(),
                ours.map(|(image, _)| image.color()),
                reference.map(|image| image.color()),
            ),
        }
    }
}
