use image::{GrayAlphaImage, LumaA, Rgb, RgbImage, Rgba, RgbaImage};

use super::*;

fn decode(avif: &[u8]) -> DynamicImage {
    crate::decode::decode(avif, u64::MAX).unwrap().0
}

#[test]
fn quality_maps_onto_the_whole_cq_range() {
    assert_eq!(AvifSettings::for_quality(100).cq_level, 0);
    assert_eq!(AvifSettings::for_quality(1).cq_level, 63);
    let levels: Vec<u8> = (1..=100).map(|q| AvifSettings::for_quality(q).cq_level).collect();
    assert!(levels.windows(2).all(|pair| pair[0] >= pair[1]), "higher q never means a coarser level");
}

#[test]
fn opaque_rgb_round_trips_close_to_its_colours() {
    let image = RgbImage::from_fn(33, 17, |x, y| Rgb([(x * 7) as u8, (y * 13) as u8, 200]));
    let avif = encode(&DynamicImage::ImageRgb8(image.clone()), 90).unwrap();
    assert_eq!(&avif[4..12], b"ftypavif");
    let decoded = decode(&avif).to_rgb8();
    assert_eq!(decoded.dimensions(), (33, 17));
    let worst =
        image.pixels().zip(decoded.pixels()).flat_map(|(a, b)| (0..3).map(move |c| a.0[c].abs_diff(b.0[c]))).max();
    assert!(worst.unwrap() < 24, "worst channel error {worst:?}");
}

#[test]
fn alpha_is_kept_and_opaque_alpha_dropped() {
    let translucent = RgbaImage::from_fn(20, 20, |x, _| Rgba([255, 0, 0, if x < 10 { 0 } else { 255 }]));
    let decoded = decode(&encode(&DynamicImage::ImageRgba8(translucent), 80).unwrap()).to_rgba8();
    assert!(decoded.get_pixel(2, 5).0[3] < 16);
    assert!(decoded.get_pixel(17, 5).0[3] > 240);

    let opaque = RgbaImage::from_pixel(8, 8, Rgba([10, 20, 30, 255]));
    let with_alpha = encode(&DynamicImage::ImageRgba8(opaque.clone()), 80).unwrap();
    let rgb = DynamicImage::ImageRgba8(opaque).to_rgb8();
    let without = encode(&DynamicImage::ImageRgb8(rgb), 80).unwrap();
    assert_eq!(with_alpha, without, "an all-opaque alpha plane is not encoded");
}

#[test]
fn gray_images_are_monochrome() {
    let gray = GrayAlphaImage::from_fn(15, 9, |x, _| LumaA([(x * 15) as u8, 255]));
    let avif = encode(&DynamicImage::ImageLumaA8(gray), 80).unwrap();
    let decoded = decode(&avif).to_rgb8();
    assert_eq!(decoded.dimensions(), (15, 9));
    let px = decoded.get_pixel(14, 4).0;
    assert!(px[0].abs_diff(px[1]) < 3 && px[1].abs_diff(px[2]) < 3, "gray stays gray: {px:?}");
}
