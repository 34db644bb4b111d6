use super::*;

/// A 4×2 YCbCr TIFF subsampled 2×2, uncompressed, in one strip: two data units of four luma samples,
/// then Cb and Cr each. Little-endian, tags in order, `BitsPerSample`'s three values after the IFD.
fn subsampled(units: [[u8; 6]; 2]) -> Vec<u8> {
    crate::samples::ycbcr_subsampled_tiff(4, 2, units.as_flattened())
}

#[test]
fn subsampled_ycbcr_strips_are_upsampled_by_replication() {
    // Unit 0: four greys with neutral chroma; unit 1: one luma with all the red chroma there is.
    let tiff = subsampled([[16, 235, 128, 64, 128, 128], [100, 100, 100, 100, 128, 255]]);
    let image = decode(&tiff, 1 << 20).unwrap().to_rgb8();
    assert_eq!(image.dimensions(), (4, 2));
    let px = |x, y| image.get_pixel(x, y).0;
    // Luma laid out row by row within the unit, each pixel its own.
    assert_eq!([px(0, 0), px(1, 0), px(0, 1), px(1, 1)], [[16; 3], [235; 3], [128; 3], [64; 3]]);
    // The unit's chroma over all four of its pixels: R = Y + 1.402 (Cr - 128) = 278 (clipped),
    // G = (Y - 0.114 B - 0.299 R) / 0.587 = 9.3, B = Y.
    for (x, y) in [(2, 0), (3, 0), (2, 1), (3, 1)] {
        assert_eq!(px(x, y), [255, 9, 100], "({x}, {y})");
    }
}

#[test]
fn a_subsampled_strip_cut_short_or_a_layout_not_read_is_an_error_not_a_panic() {
    let tiff = subsampled([[0; 6]; 2]);
    for cut in 0..tiff.len() {
        let _ = decode(&tiff[..cut], 1 << 20);
    }
    // Compression 3 (CCITT G3) with subsampled YCbCr: a message naming it.
    let mut fax = tiff.clone();
    fax[8 + 2 + 3 * 12 + 8] = 3;
    let error = decode(&fax, 1 << 20).unwrap_err().to_string();
    assert!(error.contains("compression 3"), "{error}");
}

#[test]
fn a_group3_fax_page_reads_its_lines_and_a_cut_one_is_an_error_not_a_panic() {
    // The vendored crate's Group3Reader: line 1 white, line 2 black (WhiteIsZero: black is 1 bits).
    let fax = crate::samples::group3_fax_tiff();
    let image = decode(&fax, 1 << 20).unwrap().to_luma8();
    assert_eq!(image.dimensions(), (8, 2));
    assert!(image.rows().next().unwrap().all(|p| p.0 == [255]), "{:?}", image.as_raw());
    assert!(image.rows().nth(1).unwrap().all(|p| p.0 == [0]), "{:?}", image.as_raw());
    for cut in 0..fax.len() {
        let _ = decode(&fax[..cut], 1 << 20);
    }
}
