//! `kind = "expression"`: a constraint written as a formula in the scene file, made into an
//! autodiff constraint on the points it names.

use std::collections::BTreeMap;

use bead::autodiff::Custom;
use bead::constraint::Constraint;

use super::Result;
use super::initial::position;
use super::names::Entry;
use crate::error::SceneError;
use crate::expression::{Expression, ExpressionError, RESERVED};
use crate::format::PointRef;

/// `kind = "expression"`: the aliased points become the operands of an autodiff constraint whose
/// function is the parsed expression, read in `ALIAS.x ALIAS.y [ALIAS.z]` and `t`.
pub(super) fn constraint(
    entry: &Entry<'_>,
    points: &BTreeMap<String, PointRef>,
    c: &str,
    inequality: bool,
    restitution: Option<f64>,
) -> Result<Box<dyn Constraint>> {
    let (path, system) = (entry.path, entry.system);
    let dim = system.dim();
    if points.is_empty() {
        return Err(SceneError::at(
            format!("{path}.points"),
            "an expression constraint needs at least one point",
        )
        .hint("points = { a = \"bob\" }, then write c in a.x, a.y"));
    }
    if restitution.is_some() && !inequality {
        return Err(SceneError::at(
            format!("{path}.restitution"),
            "restitution is for inequalities: there are no impacts on an equality",
        )
        .hint("add inequality = true for c >= 0 with impacts, or remove restitution"));
    }
    let mut operands = Vec::with_capacity(points.len());
    let mut variables = Vec::with_capacity(points.len() * dim + 1);
    for (alias, point) in points {
        let field = format!("{path}.points.{alias}");
        if !is_identifier(alias) || RESERVED.contains(&alias.as_str()) || alias == "t" {
            return Err(
                SceneError::at(&field, format!("'{alias}' cannot be an alias")).hint(
                    "an alias is a word of letters, digits and _ that is not t, pi or a function",
                ),
            );
        }
        operands.push(entry.names.point(&field, point)?);
        variables.extend(
            ["x", "y", "z"][..dim]
                .iter()
                .map(|a| format!("{alias}.{a}")),
        );
    }
    variables.push("t".into());
    let n = variables.len() - 1;
    let refs: Vec<&str> = variables.iter().map(String::as_str).collect();
    let expression = Expression::parse(c, &refs).map_err(|e| expression_error(path, "c", c, e))?;
    let initial: Vec<f64> = operands
        .iter()
        .flat_map(|p| position(system, p)[..dim].to_vec())
        .collect();
    let value = expression.eval(|i| if i < n { initial[i] } else { system.time() });
    if !value.is_finite() {
        return Err(SceneError::at(
            format!("{path}.c"),
            format!("'{}' is {value} at the initial positions", quote(c, 0)),
        )
        .hint("check square roots, logarithms and divisions at the points' starting places"));
    }
    let custom = Custom::new(operands, move |x, t| {
        expression.eval(|i| if i < n { x[i] } else { t })
    });
    Ok(Box::new(if inequality {
        custom.inequality()
    } else {
        custom
    }))
}

/// A located scene error from an expression's parse error.
pub(super) fn expression_error(
    path: &str,
    field: &str,
    text: &str,
    e: ExpressionError,
) -> SceneError {
    let mut error = SceneError::at(
        format!("{path}.{field}"),
        format!("{} in \"{}\"", e.message, quote(text, e.start)),
    );
    error.hint = e.hint;
    error.within = Some(e.start);
    error
}

/// How many bytes of an expression an error quotes either side of where it points: a generated
/// expression may be megabytes long, and the line and column already say where the problem is.
const QUOTED: usize = 40;

/// An expression as an error quotes it: whole when short, else the part around byte `at`, with
/// `…` where it is cut.
pub(super) fn quote(text: &str, at: usize) -> String {
    if text.len() <= 2 * QUOTED {
        return text.to_string();
    }
    let start = text.floor_char_boundary(at.saturating_sub(QUOTED));
    let end = text.ceil_char_boundary(at.saturating_add(QUOTED).min(text.len()));
    let (before, after) = (
        if start > 0 { "…" } else { "" },
        if end < text.len() { "…" } else { "" },
    );
    format!("{before}{}{after}", &text[start..end])
}

fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
