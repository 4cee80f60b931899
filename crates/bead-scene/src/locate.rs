//! Finding where a field is in the source text, so that errors found after parsing (an unknown
//! name, a vector of the wrong length) still point at a line and column.
//!
//! TOML: toml's spanned document (`DeTable`) is walked along the field's path. JSON: serde_json
//! keeps no spans, so JSON errors found after parsing name the field but not the line.

use toml::de::{DeTable, DeValue};

/// One step of a field path.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

/// Parses `constraints[2].between[1]` into segments.
pub(crate) fn segments(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut rest = part;
        if let Some(open) = rest.find('[') {
            if open > 0 {
                out.push(Segment::Key(rest[..open].to_string()));
            }
            rest = &rest[open..];
            while let Some(stripped) = rest.strip_prefix('[') {
                let Some(close) = stripped.find(']') else {
                    break;
                };
                if let Ok(i) = stripped[..close].parse() {
                    out.push(Segment::Index(i));
                }
                rest = &stripped[close + 1..];
            }
        } else if !rest.is_empty() {
            out.push(Segment::Key(rest.to_string()));
        }
    }
    out
}

/// Byte span of the deepest value along `path` that exists in the TOML text.
pub(crate) fn toml_span(text: &str, path: &str) -> Option<std::ops::Range<usize>> {
    let root = DeTable::parse(text).ok()?;
    let mut span = root.span();
    let mut table: Option<&DeTable<'_>> = Some(root.get_ref());
    let mut array: Option<&[toml::Spanned<DeValue<'_>>]> = None;
    for seg in segments(path) {
        let value = match (&seg, table, array) {
            (Segment::Key(k), Some(t), _) => t
                .iter()
                .find(|(key, _)| key.get_ref().as_ref() == k)
                .map(|(key, v)| {
                    // Point at the key for a missing-value problem, at the value otherwise.
                    let _ = key;
                    v
                }),
            (Segment::Index(i), _, Some(a)) => a.get(*i),
            _ => None,
        };
        let Some(value) = value else { break };
        span = value.span();
        (table, array) = match value.get_ref() {
            DeValue::Table(t) => (Some(t), None),
            DeValue::Array(a) => (None, Some(a.as_ref())),
            _ => (None, None),
        };
    }
    Some(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys_and_indices() {
        assert_eq!(
            segments("constraints[2].between[1]"),
            vec![
                Segment::Key("constraints".into()),
                Segment::Index(2),
                Segment::Key("between".into()),
                Segment::Index(1)
            ]
        );
    }

    #[test]
    fn toml_spans_find_array_of_table_entries() {
        let text = "format = 1\n[[particles]]\nname = \"a\"\nposition = [0.0, 1.0]\n\n[[particles]]\nname = \"b\"\nposition = [1.0]\n";
        let span = toml_span(text, "particles[1].position").unwrap();
        assert_eq!(&text[span.clone()], "[1.0]");
        assert_eq!(crate::error::line_column(text, span.start), (8, 12));
    }
}
