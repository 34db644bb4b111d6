use super::check_boxes;

fn boxed(name: &[u8; 4], content: &[u8]) -> Vec<u8> {
    let mut b = u32::try_from(content.len() + 8).unwrap().to_be_bytes().to_vec();
    b.extend_from_slice(name);
    b.extend_from_slice(content);
    b
}

fn ftyp() -> Vec<u8> {
    boxed(b"ftyp", b"avif\0\0\0\0mif1miaf")
}

#[test]
fn a_real_avif_passes() {
    for seed in ["seed-avif-rgb", "seed-avif-rgba", "seed-avif-gray"] {
        let path = format!("{}/../fuzz/corpus/decode/{seed}", env!("CARGO_MANIFEST_DIR"));
        // The target's first byte picks the transformation; the file follows.
        let input = std::fs::read(&path).unwrap();
        assert_eq!(check_boxes(&input[1..]), Ok(()), "{seed}");
    }
}

#[test]
fn the_fuzzed_4_gb_mdat_is_refused() {
    let path = format!("{}/../fuzz/corpus/decode/regression-avif-mdat-4gb", env!("CARGO_MANIFEST_DIR"));
    // The target's first byte picks the transformation; the file follows.
    let input = std::fs::read(path).unwrap();
    let file = &input[1..];
    assert_eq!(check_boxes(file), Err("box larger than the data around it"));
    let transform = crate::Transform::from_query("w=64").unwrap();
    let rendered = crate::render(
        file,
        &transform,
        crate::Target::Auto,
        crate::RenderOptions { max_pixels: 4_000_000, ..crate::RenderOptions::default() },
    );
    assert!(matches!(rendered, Err(crate::PipelineError::Decode(_))), "{rendered:?}");
}

#[test]
fn boxes_larger_than_their_parent_are_refused() {
    let mut file = ftyp();
    file.extend_from_slice(&u32::MAX.to_be_bytes());
    file.extend_from_slice(b"mdat\x12\x34");
    assert_eq!(check_boxes(&file), Err("box larger than the data around it"));
    // Nested: an iloc inside meta claiming more than meta holds.
    let mut iloc = 1000u32.to_be_bytes().to_vec();
    iloc.extend_from_slice(b"iloc\0\0\0\0\x44\0\0\0");
    let mut file = ftyp();
    file.extend(boxed(b"meta", &[b"\0\0\0\0".as_slice(), &iloc].concat()));
    assert_eq!(check_boxes(&file), Err("box larger than the data around it"));
    // A 64-bit size past the end.
    let mut file = ftyp();
    file.extend_from_slice(&1u32.to_be_bytes());
    file.extend_from_slice(b"mdat");
    file.extend_from_slice(&(1u64 << 40).to_be_bytes());
    assert!(check_boxes(&file).is_err());
}

#[test]
fn counts_larger_than_their_box_are_refused() {
    // iloc version 2 counting 2^31 items in 4 bytes.
    let mut content = b"\x02\0\0\0\x44\0".to_vec();
    content.extend_from_slice(&(1u32 << 31).to_be_bytes());
    content.extend_from_slice(&[0; 4]);
    let mut file = ftyp();
    file.extend(boxed(b"meta", &[b"\0\0\0\0".as_slice(), &boxed(b"iloc", &content)].concat()));
    assert_eq!(check_boxes(&file), Err("iloc counts more items than it holds"));
    // iinf version 1 counting 2^30 entries and holding none.
    let mut content = b"\x01\0\0\0".to_vec();
    content.extend_from_slice(&(1u32 << 30).to_be_bytes());
    let mut file = ftyp();
    file.extend(boxed(b"meta", &[b"\0\0\0\0".as_slice(), &boxed(b"iinf", &content)].concat()));
    assert_eq!(check_boxes(&file), Err("iinf counts more entries than it holds"));
}
