use super::*;
use crate::{decode::decode, source::SourceFormat};
use image::RgbaImage;

fn sample(alpha: bool) -> DynamicImage {
    let img = RgbaImage::from_fn(48, 32, |x, y| {
        image::Rgba([(x * 5) as u8, (y * 7) as u8, 90, if alpha { 128 } else { 255 }])
    });
    DynamicImage::ImageRgba8(img)
}

#[test]
fn every_output_format_round_trips_its_size() {
    for format in [OutputFormat::Jpeg, OutputFormat::Png, OutputFormat::Webp, OutputFormat::Gif, OutputFormat::Tiff] {
        let bytes = encode(&sample(true), format, 80).unwrap();
        let (decoded, _) = decode(&bytes, 1 << 20).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (48, 32), "{format:?}");
    }
    let avif = encode(&sample(false), OutputFormat::Avif, 60).unwrap();
    assert_eq!(&avif[4..12], b"ftypavif");
    assert_eq!(
        SourceFormat::detect(&encode(&sample(false), OutputFormat::Jpeg, 80).unwrap()),
        Some(SourceFormat::Jpeg)
    );
}

#[test]
fn jpeg_flattens_transparency_onto_black() {
    let clear = DynamicImage::ImageRgba8(RgbaImage::from_pixel(16, 16, image::Rgba([255, 255, 255, 0])));
    let (decoded, _) = decode(&encode(&clear, OutputFormat::Jpeg, 90).unwrap(), 1 << 20).unwrap();
    assert!(decoded.to_rgb8().pixels().all(|p| p.0.iter().all(|&c| c < 8)));
}

#[test]
fn quality_changes_the_size_of_lossy_output() {
    let image = sample(false);
    for format in [OutputFormat::Jpeg, OutputFormat::Webp] {
        let low = encode(&image, format, 10).unwrap().len();
        let high = encode(&image, format, 95).unwrap().len();
        assert!(low < high, "{format:?}: q10 {low} bytes, q95 {high} bytes");
    }
}

/// Found by the `decode` fuzz target: a 24×62991 gray JPEG asked for as `w=64&q=auto` (not enlarged, so
/// still 62991 px tall) in WebP, whose sides stop at 16383 px. The webp crate's `encode` unwraps the
/// encoder's refusal, which panicked; now it is refused before encoding, as the request's error (400).
#[test]
fn webp_beyond_its_size_limit_is_the_requests_error_not_a_panic() {
    let too_large = |e: &Result<Vec<u8>, PipelineError>| matches!(e, Err(e @ PipelineError::OutputTooLarge { max_side: 16_383, .. }) if e.is_client_error());
    let tall = DynamicImage::ImageLuma8(image::GrayImage::new(1, 16_384));
    assert!(too_large(&encode(&tall, OutputFormat::Webp, 80)));
    let wide = DynamicImage::ImageRgba8(RgbaImage::new(16_384, 1));
    assert!(too_large(&encode(&wide, OutputFormat::Webp, 80)));
    assert!(encode(&DynamicImage::ImageRgba8(RgbaImage::new(16_383, 1)), OutputFormat::Webp, 80).is_ok());

    const FUZZED: &[u8] =
        b"\xff\xd8\xff\xe0\x00\x10\x4a\x46\x49\x46\x00\x01\x50\x37\x00\x01\x00\x01\x00\x00\xff\xdb\x00\x43\x00\
      \x10\x0b\x0c\x0e\x0c\x0a\x10\x0e\x0d\x0e\x12\x11\x10\x13\x18\x28\x1a\x18\x16\x16\x18\x31\x23\x25\x1d\
      \x28\x3a\x33\x3d\x3c\x39\x33\x38\x37\x40\x48\x5c\x4e\x40\x44\x57\x45\x37\x38\x50\x6d\x51\x57\x5f\x62\
      \x67\x68\x67\x3e\x4d\x71\x79\x70\x64\x78\x5c\x65\x67\x63\xff\xc0\x00\x0b\x08\xf6\x0f\x00\x18\x01\x01\
      \x11\x00\xff\xc4\x00\x15\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x06\
      \xff\xc4\x00\x17\x10\x01\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x21\x31\
      \xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00\x94\x29\xb2\xa3\x05\x36\x54\x60\xa6\xca\x83\x89\x50\x4e\x47\
      \x0d\x0a\x1a\x0a\x65\x4f\xff\xd9";
    let transform = crate::Transform::from_query("w=64&q=auto").unwrap();
    let rendered = crate::render(
        FUZZED,
        &transform,
        crate::Target::Auto,
        crate::RenderOptions { max_pixels: 4_000_000, ..crate::RenderOptions::default() },
    );
    assert!(matches!(rendered, Err(PipelineError::OutputTooLarge { .. })), "{rendered:?}");
}
