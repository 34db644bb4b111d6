//! Checks an AVIF file's ISO-BMFF structure against the bytes actually present before avif-parse reads
//! it: avif-parse reserves memory by a box's declared size (`mdat`, `iloc`, `auxC`) and by declared item
//! counts (`iloc`, `iinf`) before reading them, so a 300-byte file claiming a 4 GB `mdat` made it ask for
//! 4 GB (found by the `decode` fuzz target). Here every box of the containers avif-parse descends into must
//! fit inside its parent, and every such count must fit in its box, or the file is malformed. It also counts
//! an image sequence's frames for the frame limit (`sequence_frames`). Pure: reads the slice, allocates
//! nothing.

/// Containers whose children avif-parse reads, with the bytes before their first child (FullBox
/// version/flags, and `iinf`'s entry count, handled separately).
fn children_offset(name: &[u8; 4]) -> Option<usize> {
    match name {
        b"meta" | b"iref" => Some(4),
        b"iprp" | b"ipco" | b"dinf" => Some(0),
        _ => None,
    }
}

/// `Err` with what is wrong when a box or a count claims more bytes than there are.
pub(crate) fn check_boxes(bytes: &[u8]) -> Result<(), &'static str> {
    check_level(bytes, 0)
}

/// The boxes of one level, `bytes` being exactly their parent's content.
fn check_level(mut bytes: &[u8], depth: u8) -> Result<(), &'static str> {
    // Deeper than any real AVIF nests: refuse rather than recurse without bound.
    if depth > 8 {
        return Err("boxes nested too deep");
    }
    while !bytes.is_empty() {
        let (name, header, size) = box_header(bytes)?;
        let content = &bytes[header..size];
        if let Some(offset) = children_offset(&name) {
            check_level(content.get(offset..).ok_or("container box too short")?, depth + 1)?;
        } else if &name == b"iinf" {
            check_iinf(content, depth)?;
        } else if &name == b"iloc" {
            check_iloc(content)?;
        }
        bytes = &bytes[size..];
    }
    Ok(())
}

/// The frames of an AVIF image sequence: the largest sample count of its tracks (`moov` → `trak` → `mdia` →
/// `minf` → `stbl` → `stsz` or `stz2`); 0 for a still image or a structure that cannot be walked (the
/// decoder reports what is wrong with it).
pub(crate) fn sequence_frames(bytes: &[u8]) -> u64 {
    const TABLE: [&[u8; 4]; 4] = [b"trak", b"mdia", b"minf", b"stbl"];
    let Some(moov) = children(bytes).find(|(name, _)| name == b"moov").map(|(_, content)| content) else {
        return 0;
    };
    let mut frames = 0;
    for (name, trak) in children(moov) {
        if &name != TABLE[0] {
            continue;
        }
        let stbl = TABLE[1..].iter().try_fold(trak, |parent, wanted| {
            children(parent).find(|(name, _)| name == *wanted).map(|(_, content)| content)
        });
        let count = stbl
            .and_then(|stbl| children(stbl).find(|(name, _)| name == b"stsz" || name == b"stz2"))
            .and_then(|(_, sizes)| sizes.get(8..12))
            .map_or(0, |n| u64::from(u32::from_be_bytes([n[0], n[1], n[2], n[3]])));
        frames = frames.max(count);
    }
    frames
}

/// The boxes of one level as (type, content), ending at the first malformed one.
pub(crate) fn children(mut bytes: &[u8]) -> impl Iterator<Item = ([u8; 4], &[u8])> {
    std::iter::from_fn(move || {
        let (name, header, size) = box_header(bytes).ok()?;
        let content = &bytes[header..size];
        bytes = &bytes[size..];
        Some((name, content))
    })
}

/// A box's type, header length and total size, the size checked against the bytes left.
fn box_header(bytes: &[u8]) -> Result<([u8; 4], usize, usize), &'static str> {
    let size32 = u32::from_be_bytes(bytes.get(0..4).ok_or("truncated box header")?.try_into().unwrap_or_default());
    let name: [u8; 4] = bytes.get(4..8).ok_or("truncated box header")?.try_into().unwrap_or_default();
    let (header, size) = match size32 {
        // To the end of the parent (allowed for the last top-level box).
        0 => (8, bytes.len() as u64),
        1 => {
            let large = bytes.get(8..16).ok_or("truncated box header")?;
            (16, u64::from_be_bytes(large.try_into().unwrap_or_default()))
        }
        n => (8, u64::from(n)),
    };
    if size < header as u64 {
        return Err("box smaller than its header");
    }
    if size > bytes.len() as u64 {
        return Err("box larger than the data around it");
    }
    Ok((name, header, size as usize))
}

/// `iinf`: FullBox, an entry count (16 bits in version 0, else 32), then one `infe` box per entry (each at
/// least a box header).
fn check_iinf(content: &[u8], depth: u8) -> Result<(), &'static str> {
    let version = *content.first().ok_or("truncated iinf")?;
    let (count, rest) = if version == 0 {
        let count = content.get(4..6).ok_or("truncated iinf")?;
        (u64::from(u16::from_be_bytes([count[0], count[1]])), &content[6..])
    } else {
        let count = content.get(4..8).ok_or("truncated iinf")?;
        (u64::from(u32::from_be_bytes([count[0], count[1], count[2], count[3]])), &content[8..])
    };
    if count.saturating_mul(8) > rest.len() as u64 {
        return Err("iinf counts more entries than it holds");
    }
    check_level(rest, depth + 1)
}

/// `iloc`: FullBox, two bytes of field sizes, an item count (16 bits before version 2, else 32); every
/// item takes at least 6 bytes (id, data reference index, extent count).
fn check_iloc(content: &[u8]) -> Result<(), &'static str> {
    let version = *content.first().ok_or("truncated iloc")?;
    let (count, rest) = if version < 2 {
        let count = content.get(6..8).ok_or("truncated iloc")?;
        (u64::from(u16::from_be_bytes([count[0], count[1]])), content.len() - 8)
    } else {
        let count = content.get(6..10).ok_or("truncated iloc")?;
        (u64::from(u32::from_be_bytes([count[0], count[1], count[2], count[3]])), content.len() - 10)
    };
    if count.saturating_mul(6) > rest as u64 {
        return Err("iloc counts more items than it holds");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
