use shutterbox_model::MEDIA_FORMATS;

use crate::{Format, OutputFormat, PipelineError, SourceFormat, Target};

/// Each view takes its names from the rows, and has a variant for exactly the rows it covers: a row added
/// without its place in these types, or a variant without its row, fails here.
#[test]
fn rows_agree_with_the_format_types() {
    for info in &MEDIA_FORMATS {
        let name = info.name;
        let format = Format::parse(name);
        assert_eq!(format.is_some(), info.requestable, "{name}: requestable");
        let output = OutputFormat::of(info.format);
        assert_eq!(output.is_some(), info.encodable, "{name}: encodable");
        if let Some(format) = format {
            assert_eq!((format.media_format(), format.as_str()), (Some(info.format), name));
            assert_eq!(format.output_format(), output, "{name}");
            assert_eq!(format.serves_original(), output.is_none(), "{name}: a format named but not written");
        }
        if let Some(output) = output {
            assert_eq!(Target::parse(name), Some(Target::Format(output)));
            assert_eq!(Target::Format(output).as_str(), name);
            assert_eq!(
                (output.mime(), output.extension(), output.display_name()),
                (info.mimes[0], info.extensions[0], info.display)
            );
            assert_eq!(
                (output.has_alpha(), output.is_lossy(), output.max_side()),
                (info.alpha, info.lossy, info.max_side)
            );
        } else {
            assert_eq!(Target::parse(name), None, "{name}");
        }
        let source = SourceFormat::ALL.iter().copied().find(|source| source.media_format() == info.format);
        // HEIC is read through libheif, when the pipeline is built with it (the default).
        let read = info.decodable && (info.format != shutterbox_model::MediaFormat::Heic || cfg!(feature = "heic"));
        assert_eq!(source.is_some(), read, "{name}: decodable");
        if info.decodable {
            let message = PipelineError::UnsupportedFormat.to_string();
            assert!(message.contains(info.display), "the unsupported-format message names {}", info.display);
        }
    }
    let requestable = MEDIA_FORMATS.iter().filter(|info| info.requestable).count();
    assert_eq!(Format::names().len(), requestable + 1, "every requestable format, and auto");
    assert_eq!(Format::parse("AUTO"), Some(Format::Auto));
    assert_eq!(Format::parse("svg"), None, "a format that is not an image the pipeline reads");
}
