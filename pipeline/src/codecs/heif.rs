//! The properties of a HEIF (AVIF) image item that transform its decoded picture into the one it shows:
//! `clap` (the clean aperture, a crop), `irot` (quarter turns anticlockwise) and `imir` (a mirror), read from
//! the container's `meta` box for the primary item and applied in the order its `ipma` lists them, as
//! ISO/IEC 23008-12 says and libheif (libvips' HEIF reader, so sharp's) does. A phone's picture carries its
//! orientation this way, not in EXIF: an AVIF's EXIF orientation is never applied on top.

use image::DynamicImage;

use crate::{PipelineError, codecs::isobmff::children, geometry::Size};

/// One transformative property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transform {
    CleanAperture(CleanAperture),
    /// Quarter turns anticlockwise, 0 to 3.
    Rotate(u8),
    Mirror(Axis),
}

/// Which way an `imir` flips a picture, as libheif reads its axis bit (and as the link-u AVIF samples named
/// `mirror-vertical` and `mirror-horizontal` show, against libvips).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Axis {
    /// Axis 0: flipped vertically, top and bottom swapping.
    Vertical,
    /// Axis 1: flipped horizontally, left and right swapping.
    Horizontal,
}

/// `clap`'s rationals: the aperture's width and height, and its centre's offset from the picture's centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CleanAperture {
    width: (i64, i64),
    height: (i64, i64),
    horizontal_offset: (i64, i64),
    vertical_offset: (i64, i64),
}

/// The transforms of the primary item of `bytes`, in order. None where the container has none, or cannot be
/// read this far (the decoder reports what is wrong with it).
pub(crate) fn primary_transforms(bytes: &[u8]) -> Vec<Transform> {
    primary_properties(bytes)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, content)| transform(&name, content))
        .collect()
}

/// The ICC profile of the primary item: its `colr` property of type `prof` (or `rICC`, a restricted
/// profile), the first one if there are several, as libheif takes it. An `nclx` colour (code points, no
/// profile) is not read: libvips reads none either.
pub(crate) fn primary_icc_profile(bytes: &[u8]) -> Option<Vec<u8>> {
    primary_properties(bytes)?.into_iter().filter(|(name, _)| name == b"colr").find_map(|(_, content)| {
        match content.get(..4)? {
            b"prof" | b"rICC" => Some(content.get(4..)?.to_vec()),
            _ => None,
        }
    })
}

/// Refuses a HEIF (AVIF) whose any image item is over `max_pixels` by its `ispe` (the size it is coded at,
/// which is what a decoder allocates): alpha and depth planes, thumbnails, grid tiles and the grid's canvas
/// alike, not only the primary item, checked in Rust before libheif or libaom reads a pixel. A container
/// without the boxes is left to the decoder, which refuses it.
pub(crate) fn check_item_sizes(bytes: &[u8], max_pixels: u64) -> Result<(), PipelineError> {
    let Some(ipco) = child(bytes, b"meta")
        .and_then(|meta| meta.get(4..))
        .and_then(|meta| child(meta, b"iprp"))
        .and_then(|iprp| child(iprp, b"ipco"))
    else {
        return Ok(());
    };
    for (name, content) in children(ipco) {
        if &name != b"ispe" {
            continue;
        }
        let (Some(width), Some(height)) = (be32(content, 4), be32(content, 8)) else {
            return Err(PipelineError::Decode("an image item's size (ispe) is cut short".into()));
        };
        if u64::from(width) * u64::from(height) > max_pixels {
            return Err(PipelineError::TooManyPixels { width, height, max_pixels });
        }
    }
    Ok(())
}

/// The properties associated with the primary item, in the order its `ipma` entries list them.
fn primary_properties(bytes: &[u8]) -> Option<Vec<([u8; 4], &[u8])>> {
    let meta = child(bytes, b"meta")?.get(4..)?;
    let pitm = child(meta, b"pitm")?;
    let primary = if *pitm.first()? == 0 { u32::from(be16(pitm, 4)?) } else { be32(pitm, 4)? };
    let iprp = child(meta, b"iprp")?;
    let properties: Vec<_> = children(child(iprp, b"ipco")?).collect();
    let mut associated = Vec::new();
    for (name, ipma) in children(iprp) {
        if &name != b"ipma" {
            continue;
        }
        let (version, wide_index) = (*ipma.first()?, ipma.get(3)? & 1 == 1);
        let mut at = 8;
        for _ in 0..be32(ipma, 4)? {
            let item = if version < 1 { u32::from(be16(ipma, at)?) } else { be32(ipma, at)? };
            at += if version < 1 { 2 } else { 4 };
            let associations = usize::from(*ipma.get(at)?);
            at += 1;
            for _ in 0..associations {
                let index =
                    if wide_index { usize::from(be16(ipma, at)? & 0x7fff) } else { usize::from(ipma.get(at)? & 0x7f) };
                at += if wide_index { 2 } else { 1 };
                if item != primary {
                    continue;
                }
                associated.extend(index.checked_sub(1).and_then(|i| properties.get(i)).copied());
            }
        }
    }
    Some(associated)
}

fn transform(name: &[u8; 4], content: &[u8]) -> Option<Transform> {
    match name {
        b"irot" => Some(Transform::Rotate(content.first()? & 3)),
        b"imir" => Some(Transform::Mirror(if content.first()? & 1 == 0 { Axis::Vertical } else { Axis::Horizontal })),
        b"clap" => {
            let unsigned = |i: usize| be32(content, i * 4).map(i64::from);
            let signed = |i: usize| be32(content, i * 4).map(|n| i64::from(n as i32));
            Some(Transform::CleanAperture(CleanAperture {
                width: (unsigned(0)?, unsigned(1)?),
                height: (unsigned(2)?, unsigned(3)?),
                horizontal_offset: (signed(4)?, unsigned(5)?),
                vertical_offset: (signed(6)?, unsigned(7)?),
            }))
        }
        _ => None,
    }
}

/// The size of the picture `transforms` make of one of `size`.
pub(crate) fn transformed_size(transforms: &[Transform], mut size: Size) -> Result<Size, PipelineError> {
    for transform in transforms {
        size = match *transform {
            Transform::CleanAperture(clap) => {
                let (_, _, width, height) = clap.rectangle(size)?;
                Size::new(width, height)
            }
            Transform::Rotate(1 | 3) => Size::new(size.height, size.width),
            Transform::Rotate(_) | Transform::Mirror(_) => size,
        };
    }
    Ok(size)
}

/// `image` transformed as `transforms` say.
pub(crate) fn apply(transforms: &[Transform], mut image: DynamicImage) -> Result<DynamicImage, PipelineError> {
    for transform in transforms {
        image = match *transform {
            Transform::CleanAperture(clap) => {
                let (x, y, width, height) = clap.rectangle(Size::new(image.width(), image.height()))?;
                image.crop_imm(x, y, width, height)
            }
            Transform::Rotate(1) => image.rotate270(),
            Transform::Rotate(2) => image.rotate180(),
            Transform::Rotate(3) => image.rotate90(),
            Transform::Rotate(_) => image,
            Transform::Mirror(Axis::Vertical) => image.flipv(),
            Transform::Mirror(Axis::Horizontal) => image.fliph(),
        };
    }
    Ok(image)
}

impl CleanAperture {
    /// The aperture in a picture of `size`: left, top, width, height, rounded and clamped as libheif does
    /// (left rounded down, the rest to the nearest, C's integer division; the edges clamped to the picture).
    fn rectangle(&self, size: Size) -> Result<(u32, u32, u32, u32), PipelineError> {
        let invalid = || PipelineError::Decode("the AVIF's clean aperture (clap) lies outside its picture".into());
        let (width, height) = (self.width, self.height);
        let denominators = [width.1, height.1, self.horizontal_offset.1, self.vertical_offset.1];
        if denominators.contains(&0) {
            return Err(invalid());
        }
        let (picture_width, picture_height) = (i64::from(size.width), i64::from(size.height));
        // centre + offset − (aperture − 1) / 2, over the common denominator 2·d_offset·d_aperture.
        let edge = |offset: (i64, i64), aperture: (i64, i64), picture: i64| {
            let (offset, aperture) = (widen(offset), widen(aperture));
            let numerator = 2 * offset.0 * aperture.1 + i128::from(picture - 1) * offset.1 * aperture.1
                - (aperture.0 - aperture.1) * offset.1;
            (numerator, 2 * offset.1 * aperture.1)
        };
        let (left_n, left_d) = edge(self.horizontal_offset, width, picture_width);
        let (top_n, top_d) = edge(self.vertical_offset, height, picture_height);
        let left = left_n / left_d;
        let top = round(top_n, top_d);
        // The far edges: aperture − 1 + the near edge.
        let far = |aperture: (i64, i64), near: i128| {
            let aperture = widen(aperture);
            round(aperture.0 - aperture.1 + near * aperture.1, aperture.1)
        };
        let (right, bottom) = (far(width, left), far(height, top));
        let (left, top) = (left.max(0), top.max(0));
        let right = right.min(i128::from(picture_width) - 1);
        let bottom = bottom.min(i128::from(picture_height) - 1);
        if left > right || top > bottom {
            return Err(invalid());
        }
        let side = |n: i128| u32::try_from(n).map_err(|_| invalid());
        Ok((side(left)?, side(top)?, side(right - left + 1)?, side(bottom - top + 1)?))
    }
}

/// A rational with its denominator made positive, in i128 so no product of two of them overflows.
fn widen((numerator, denominator): (i64, i64)) -> (i128, i128) {
    let sign = if denominator < 0 { -1 } else { 1 };
    (i128::from(numerator) * sign, i128::from(denominator) * sign)
}

/// libheif's `Fraction::round`: (n + d/2) / d, truncated toward zero.
fn round(numerator: i128, denominator: i128) -> i128 {
    (numerator + denominator / 2) / denominator
}

fn child<'a>(bytes: &'a [u8], wanted: &[u8; 4]) -> Option<&'a [u8]> {
    children(bytes).find(|(name, _)| name == wanted).map(|(_, content)| content)
}

fn be16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use image::{DynamicImage, Rgb, RgbImage};
    use proptest::prelude::*;

    use super::{Axis, CleanAperture, Transform, apply, check_item_sizes, primary_transforms, transformed_size};
    use crate::geometry::Size;

    fn boxed(name: &[u8; 4], content: &[u8]) -> Vec<u8> {
        let mut out = ((content.len() + 8) as u32).to_be_bytes().to_vec();
        out.extend_from_slice(name);
        out.extend_from_slice(content);
        out
    }

    /// Every item's `ispe` counts, an alpha item's as much as the colour item's: a 64×64 picture with an
    /// 8192×8192 alpha plane is refused by its alpha item's size.
    #[test]
    fn every_items_coded_size_is_held_to_the_pixel_budget() {
        let ispe =
            |width: u32, height: u32| boxed(b"ispe", &[[0u8; 4], width.to_be_bytes(), height.to_be_bytes()].concat());
        let file_with = |sizes: &[(u32, u32)]| {
            let ipco = boxed(b"ipco", &sizes.iter().flat_map(|&(w, h)| ispe(w, h)).collect::<Vec<_>>());
            let meta = [vec![0; 4], boxed(b"iprp", &ipco)].concat();
            [boxed(b"ftyp", b"heic\0\0\0\0mif1heic"), boxed(b"meta", &meta)].concat()
        };
        let file = file_with(&[(64, 64), (8192, 8192)]);
        check_item_sizes(&file, 8192 * 8192).unwrap();
        let refused = check_item_sizes(&file, 50_000_000).unwrap_err();
        assert!(refused.to_string().contains("8192x8192"), "{refused}");
        let small = file_with(&[(64, 64)]);
        check_item_sizes(&small, 64 * 64).unwrap();
        assert!(check_item_sizes(&small, 64 * 64 - 1).is_err());
        // A size cut short is refused; a file without the boxes is the decoder's to refuse.
        let cut = [
            boxed(b"ftyp", b"heic\0\0\0\0mif1heic"),
            boxed(b"meta", &[vec![0; 4], boxed(b"iprp", &boxed(b"ipco", &boxed(b"ispe", &[0; 8])))].concat()),
        ]
        .concat();
        assert!(check_item_sizes(&cut, u64::MAX).is_err());
        check_item_sizes(b"not a container", 1).unwrap();
    }

    fn clap(width: u32, height: u32, horizontal: i32, vertical: i32) -> Vec<u8> {
        [width, 1, height, 1, horizontal as u32, 2, vertical as u32, 2].iter().flat_map(|n| n.to_be_bytes()).collect()
    }

    /// A `meta` box: primary item 1; properties ispe, irot 1, clap, imir 1; item 2 has the irot only, item 1
    /// lists clap, irot, imir (and ispe) in an order that is not the properties' own.
    fn meta(ipma_version: u8, wide: bool) -> Vec<u8> {
        let ipco = [
            boxed(b"ispe", &[0; 12]),
            boxed(b"irot", &[1]),
            boxed(b"clap", &clap(100, 50, 3, -1)),
            boxed(b"imir", &[1]),
        ]
        .concat();
        let mut ipma = vec![ipma_version, 0, 0, u8::from(wide), 0, 0, 0, 2];
        for (item, indices) in [(2u32, &[2u16][..]), (1, &[1, 3, 2, 4])] {
            if ipma_version == 0 {
                ipma.extend_from_slice(&(item as u16).to_be_bytes());
            } else {
                ipma.extend_from_slice(&item.to_be_bytes());
            }
            ipma.push(indices.len() as u8);
            for &index in indices {
                if wide {
                    ipma.extend_from_slice(&(index | 0x8000).to_be_bytes());
                } else {
                    ipma.push(index as u8 | 0x80);
                }
            }
        }
        let iprp = boxed(b"iprp", &[boxed(b"ipco", &ipco), boxed(b"ipma", &ipma)].concat());
        let meta = [vec![0; 4], boxed(b"hdlr", &[0; 24]), boxed(b"pitm", &[0, 0, 0, 0, 0, 1]), iprp].concat();
        [boxed(b"ftyp", b"avifmif1"), boxed(b"meta", &meta)].concat()
    }

    #[test]
    fn reads_the_primary_items_transforms_in_order() {
        for (version, wide) in [(0, false), (0, true), (1, false), (1, true)] {
            let transforms = primary_transforms(&meta(version, wide));
            let expected = [
                Transform::CleanAperture(CleanAperture {
                    width: (100, 1),
                    height: (50, 1),
                    horizontal_offset: (3, 2),
                    vertical_offset: (-1, 2),
                }),
                Transform::Rotate(1),
                Transform::Mirror(Axis::Horizontal),
            ];
            assert_eq!(transforms, expected, "ipma version {version}, wide indices {wide}");
        }
        assert!(primary_transforms(b"not a container").is_empty());
        let whole = meta(0, false);
        for cut in 0..whole.len() {
            let _ = primary_transforms(&whole[..cut]);
        }
    }

    #[test]
    fn the_clean_aperture_is_placed_as_libheif_places_it() {
        let aperture = |width, height, horizontal: (i64, i64), vertical: (i64, i64)| CleanAperture {
            width: (width, 1),
            height: (height, 1),
            horizontal_offset: horizontal,
            vertical_offset: vertical,
        };
        // AOM's Chimera_8bit_cropped_480x256: 480×256 centred in 480×270.
        assert_eq!(aperture(480, 256, (0, 1), (0, 1)).rectangle(Size::new(480, 270)).unwrap(), (0, 7, 480, 256));
        // Left rounds down: centre 49.5 + 0.5 − 49.5 = 0.5 → 0; top rounds: 24.5 − 0.5 − 9.5 = 14.5 → 15.
        assert_eq!(aperture(100, 20, (1, 2), (-1, 2)).rectangle(Size::new(100, 50)).unwrap(), (0, 15, 100, 20));
        // Larger than the picture: clamped to it.
        assert_eq!(aperture(300, 300, (0, 1), (0, 1)).rectangle(Size::new(100, 50)).unwrap(), (0, 0, 100, 50));
        // Wholly outside, or a zero denominator: an error.
        assert!(aperture(10, 10, (500, 1), (0, 1)).rectangle(Size::new(100, 50)).is_err());
        assert!(aperture(10, 10, (0, 0), (0, 1)).rectangle(Size::new(100, 50)).is_err());
    }

    fn transform_strategy() -> impl Strategy<Value = Transform> {
        prop_oneof![
            (0u8..4).prop_map(Transform::Rotate),
            any::<bool>().prop_map(|h| Transform::Mirror(if h { Axis::Horizontal } else { Axis::Vertical })),
            (0i64..80, 1i64..3, 0i64..80, 1i64..3, -90i64..90, 1i64..4, -90i64..90, 1i64..4).prop_map(
                |(w, wd, h, hd, x, xd, y, yd)| Transform::CleanAperture(CleanAperture {
                    width: (w, wd),
                    height: (h, hd),
                    horizontal_offset: (x, xd),
                    vertical_offset: (y, yd),
                })
            ),
        ]
    }

    proptest! {
        /// The size the probe states is the size the decoded picture comes out at, or both refuse.
        #[test]
        fn the_stated_size_is_the_pictures(
            width in 1u32..60,
            height in 1u32..60,
            transforms in prop::collection::vec(transform_strategy(), 0..4),
        ) {
            let image = DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| Rgb([x as u8, y as u8, 0])));
            let size = transformed_size(&transforms, Size::new(width, height));
            let applied = apply(&transforms, image);
            match (size, applied) {
                (Ok(size), Ok(image)) => prop_assert_eq!((size.width, size.height), (image.width(), image.height())),
                (Err(_), Err(_)) => {}
                (size, image) => prop_assert!(false, "size {:?}, picture {:?}", size.ok(), image.ok().map(|i| (i.width(), i.height()))),
            }
        }
    }

    #[test]
    fn turns_are_anticlockwise_and_mirrors_flip_as_named() {
        // A 2×1 picture: red on the left, blue on the right.
        let picture = || {
            DynamicImage::ImageRgb8(RgbImage::from_fn(2, 1, |x, _| Rgb(if x == 0 { [255, 0, 0] } else { [0, 0, 255] })))
        };
        let top_left = |transforms: &[Transform]| apply(transforms, picture()).unwrap().to_rgb8().get_pixel(0, 0).0;
        // A quarter turn anticlockwise puts the right-hand end on top.
        assert_eq!(top_left(&[Transform::Rotate(1)]), [0, 0, 255]);
        assert_eq!(top_left(&[Transform::Rotate(3)]), [255, 0, 0]);
        assert_eq!(top_left(&[Transform::Mirror(Axis::Horizontal)]), [0, 0, 255]);
        assert_eq!(top_left(&[Transform::Mirror(Axis::Vertical)]), [255, 0, 0]);
    }
}
