use super::*;

#[test]
fn each_row_is_its_own_and_every_name_finds_it() {
    for (index, info) in IMAGE_TYPES.iter().enumerate() {
        assert!(std::ptr::eq(info.image_type.info(), &IMAGE_TYPES[index]), "{}", info.name);
        for name in std::iter::once(info.name).chain(info.aliases.iter().copied()) {
            assert_eq!(ImageType::from_name(name), Some(info.image_type));
            assert_eq!(ImageType::from_name(&name.to_ascii_uppercase()), Some(info.image_type));
        }
        assert_eq!(ImageType::from_name(info.extension), Some(info.image_type), "the extension is a name");
        assert!(!info.lossy || info.encodable, "{}: lossy only means something when written", info.name);
        assert_eq!(IMAGE_TYPES.iter().filter(|other| other.mime == info.mime).count(), 1, "{}", info.mime);
        assert_eq!(ImageType::from_mime(info.mime), Some(info.image_type));
    }
    assert_eq!(ImageType::from_mime("image/heif"), Some(ImageType::Heic));
    assert_eq!(ImageType::from_mime("image/svg+xml"), None);
    assert_eq!(ImageType::from_name("auto"), None);
    assert_eq!(ImageType::from_name("svg"), None);
}

/// Each format type takes its names from the rows, and has a variant for exactly the rows it covers: a
/// row added without its place in these types, or a variant without its row, fails here.
#[test]
fn rows_agree_with_the_format_types() {
    use crate::{Format, OutputFormat, PipelineError, SourceFormat, Target};

    for info in &IMAGE_TYPES {
        let format = Format::parse(info.name);
        assert_eq!(format.is_some(), info.requestable, "{}: requestable", info.name);
        assert!(info.requestable || !info.encodable, "{}: a written format is requestable", info.name);
        let output = OutputFormat::of(info.image_type);
        assert_eq!(output.is_some(), info.encodable, "{}: encodable", info.name);
        if let Some(format) = format {
            assert_eq!((format.image_type(), format.as_str()), (Some(info.image_type), info.name));
        }
        if let (Some(output), Some(format)) = (output, format) {
            assert_eq!(format.output_format(), Some(output));
            assert_eq!(Target::parse(info.name), Some(Target::Format(output)));
            assert_eq!(Target::Format(output).as_str(), info.name);
            assert_eq!(
                (output.mime(), output.extension(), output.display_name()),
                (info.mime, info.extension, info.display)
            );
            assert_eq!(
                (output.has_alpha(), output.is_lossy(), output.max_side()),
                (info.alpha, info.lossy, info.max_side)
            );
        }
        let source = SourceFormat::ALL.iter().copied().find(|source| source.image_type() == info.image_type);
        assert_eq!(source.is_some(), info.decodable, "{}: decodable", info.name);
        if info.decodable {
            let message = PipelineError::UnsupportedFormat.to_string();
            assert!(message.contains(info.display), "the unsupported-format message names {}", info.display);
        }
    }
    assert!(OutputFormat::ALL.iter().all(|output| output.image_type().info().encodable));
    assert!(SourceFormat::ALL.iter().all(|source| source.image_type().info().decodable));
    let requestable = IMAGE_TYPES.iter().filter(|info| info.requestable).count();
    assert_eq!(Format::names().len(), requestable + 1, "every requestable format, and auto");
}
