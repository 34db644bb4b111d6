use super::*;
use crate::codecs::tiff::decode as decode_tiff;

#[test]
fn the_uv_table_holds_the_codings_16289_cells() {
    assert_eq!(UV_CELLS, 16289);
    // Every cell's centre lies inside its row, and consecutive cells of a row are one cell apart.
    for index in 0..u32::from(UV_CELLS) {
        let (u, v) = uv_cell(index);
        assert!((0.0..0.63).contains(&u) && (UV_V_START..UV_V_START + 163.0 * UV_CELL).contains(&v), "{index}");
    }
    assert_eq!(uv_cell(0), (0.247663 + 0.5 * UV_CELL, UV_V_START + 0.5 * UV_CELL));
    assert_eq!(uv_cell(4), (0.243779 + 0.5 * UV_CELL, UV_V_START + 1.5 * UV_CELL));
    assert_eq!(uv_cell(16288), (0.023659 + 20.5 * UV_CELL, UV_V_START + 162.5 * UV_CELL));
    for past in [16289, 0x3fff, u32::MAX] {
        assert_eq!(uv_cell(past), UV_NEUTRAL);
    }
}

#[test]
fn the_two_codings_agree_on_a_colour() {
    // D65 white (u' 0.1978, v' 0.4683) at Y = 1 and at a 16th of it, in each coding: the same sRGB to
    // within the 24-bit coding's coarser steps.
    let neutral24 = (0..u32::from(UV_CELLS))
        .min_by(|&a, &b| {
            let distance = |i| {
                let (u, v) = uv_cell(i);
                (u - 0.1978).powi(2) + (v - 0.4683).powi(2)
            };
            distance(a).total_cmp(&distance(b))
        })
        .unwrap();
    for (log32, log24) in [(16384, 768), (16384 - 4 * 256, 768 - 4 * 64)] {
        let wide = Coding::RunLength32.luv((log32 << 16) | (81 << 8) | 192).to_srgb16();
        let packed = Coding::Packed24.luv((log24 << 14) | neutral24).to_srgb16();
        for (a, b) in wide.iter().zip(packed) {
            assert!(a.abs_diff(b) < 0x600, "{wide:?} {packed:?}");
        }
    }
}

#[test]
fn logluv_pixels_become_srgb_with_white_at_luminance_one() {
    let srgb = |pixel| Coding::RunLength32.luv(pixel).to_srgb16();
    // Log luminance 16384 is Y = 2^(0.5 / 256) ≈ 1; u' = 81.5 / 410, v' = 192.5 / 410 is close to D65.
    let white = (16384 << 16) | (81 << 8) | 192;
    assert!(srgb(white).iter().all(|&c| c > 0xF800), "{:?}", srgb(white));
    // A 16th of that luminance: mid grey, neutral.
    let [r, g, b] = srgb(((16384 - 4 * 256) << 16) | (81 << 8) | 192);
    assert!((0x4000..0x5400).contains(&g) && r.abs_diff(g) < 0x800 && b.abs_diff(g) < 0x800, "{r} {g} {b}");
    // Zero, negative or impossible chromaticity: black, never a panic.
    assert_eq!(srgb(81 << 8 | 192), [0; 3]);
    assert_eq!(srgb(0x8000_0000 | (16384 << 16) | (81 << 8) | 192), [0; 3]);
    for pixel in [u32::MAX, 0x7FFF_0000, 0x7FFF_FFFF, 0x0001_FF00] {
        let _ = srgb(pixel);
    }
    // Every 24-bit pixel there is: no panic.
    for pixel in (0..1u32 << 24).step_by(7) {
        let _ = Coding::Packed24.luv(pixel).to_srgb16();
    }
}

#[test]
fn a_logluv_page_decodes_in_either_coding() {
    for tiff in [crate::samples::logluv32_tiff(), crate::samples::logluv24_tiff()] {
        let image = decode_tiff(&tiff, 1 << 20).unwrap().to_rgb16();
        assert_eq!(image.dimensions(), (2, 1));
        let (white, grey) = (image.get_pixel(0, 0).0, image.get_pixel(1, 0).0);
        assert!(white.iter().all(|&c| c > 0xF000), "{white:?}");
        assert!(grey.iter().all(|&c| (0x4000..0x5400).contains(&c)), "{grey:?}");
        for cut in 0..tiff.len() {
            let _ = decode_tiff(&tiff[..cut], 1 << 20);
        }
    }
}
