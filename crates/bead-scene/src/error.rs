//! Scene errors that say where: the file, the line and column where known, the field, and a hint.

use std::fmt;

/// A scene file could not be read, parsed or built.
///
/// Displays as `FILE:LINE:COLUMN: FIELD: MESSAGE`, then `hint: ...` on its own line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct SceneError {
    /// The file (or `<input>`).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// The field, as a path like `constraints[2].between[1]`, when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is something useful to say.
    pub hint: Option<String>,
    /// Byte offset inside the field's string value of the offending token (an expression's
    /// unknown name), so that the column points at the token rather than at the string.
    pub within: Option<usize>,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl SceneError {
    /// An error about `field` (a path such as `particles[0].mass`), not yet located.
    pub(crate) fn at(field: impl Into<String>, message: impl Into<String>) -> Self {
        SceneError {
            file: String::new(),
            line: None,
            column: None,
            field: Some(field.into()),
            message: message.into(),
            hint: None,
            within: None,
        }
    }

    /// Adds a hint.
    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// 1-based (line, column) of a byte offset in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
