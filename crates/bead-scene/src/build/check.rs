//! Reading numbers, vectors and locations out of the file: each checked against what the field
//! needs (finite, positive, `dim` components), with the field's path and a hint when it is not.
//!
//! What a constraint's or a force's parameters must be is the engine's to say, in its `check`:
//! [`refused`] points its answer at the field. What is read here is what the scene must read
//! before there is anything to give the engine: the positions and masses of what it builds, a
//! vector's components (the scene's dimension; a joint's axis becomes an array), a location.

use bead::{ModelError, Motion};

use super::Result;
use crate::error::SceneError;
use crate::format::{Location, MotionSpec};

/// A vector of `dim` finite numbers.
pub(super) fn vector(path: &str, v: &[f64], dim: usize) -> Result<Vec<f64>> {
    if v.len() != dim {
        return Err(SceneError::at(
            path,
            format!("has {} components; the scene is {dim}D", v.len()),
        )
        .hint(format!(
            "give {dim} numbers, like [{}]",
            vec!["0.0"; dim].join(", ")
        )));
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(SceneError::at(
            format!("{path}[{i}]"),
            format!("must be finite, got {}", v[i]),
        )
        .hint("nan and inf are not allowed in vectors"));
    }
    Ok(v.to_vec())
}

/// A finite number.
pub(super) fn finite(path: &str, x: f64) -> Result<()> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(SceneError::at(path, format!("must be finite, got {x}"))
            .hint("nan and inf are not allowed here"))
    }
}

/// A positive finite number.
pub(super) fn positive(path: &str, x: f64) -> Result<()> {
    if x > 0.0 && x.is_finite() {
        return Ok(());
    }
    let hint = if path == "simulation.dt" {
        "a time step in seconds, such as 0.001"
    } else {
        "give a number greater than zero"
    };
    Err(SceneError::at(path, format!("must be positive and finite, got {x}")).hint(hint))
}

/// A finite number, zero or more.
pub(super) fn non_negative(path: &str, x: f64) -> Result<()> {
    if x >= 0.0 && x.is_finite() {
        return Ok(());
    }
    Err(SceneError::at(
        path,
        format!("must be zero or positive and finite, got {x}"),
    )
    .hint("give a number that is zero or more"))
}

/// Every one of `values` finite.
pub(super) fn finite_all(path: &str, values: &[f64]) -> Result<()> {
    for (i, x) in values.iter().enumerate() {
        finite(&format!("{path}[{i}]"), *x)?;
    }
    Ok(())
}

/// A fixed or moving location: a [`Motion`] whose vectors have `dim` components.
pub(super) fn location(path: &str, at: &Location, dim: usize) -> Result<Motion> {
    Ok(match at {
        Location::Fixed(v) => Motion::fixed(&vector(path, v, dim)?),
        Location::Moving(MotionSpec::Linear {
            start,
            velocity,
            acceleration,
        }) => {
            let start = vector(&format!("{path}.start"), start, dim)?;
            let velocity = vector(&format!("{path}.velocity"), velocity, dim)?;
            match acceleration {
                Some(a) => Motion::accelerated(
                    &start,
                    &velocity,
                    &vector(&format!("{path}.acceleration"), a, dim)?,
                ),
                None => Motion::linear(&start, &velocity),
            }
        }
        Location::Moving(MotionSpec::Circle {
            center,
            radius,
            angular_velocity,
            phase,
        }) => {
            let c = vector(&format!("{path}.center"), center, dim)?;
            positive(&format!("{path}.radius"), *radius)?;
            finite(&format!("{path}.angular_velocity"), *angular_velocity)?;
            finite(&format!("{path}.phase"), *phase)?;
            Motion::circle(&c, *radius, *angular_velocity, *phase)
        }
        Location::Moving(MotionSpec::Oscillation {
            center,
            amplitude,
            angular_frequency,
            phase,
        }) => {
            let c = vector(&format!("{path}.center"), center, dim)?;
            let a = vector(&format!("{path}.amplitude"), amplitude, dim)?;
            finite(&format!("{path}.angular_frequency"), *angular_frequency)?;
            finite(&format!("{path}.phase"), *phase)?;
            Motion::oscillation(&c, &a, *angular_frequency, *phase)
        }
    })
}

/// The engine's refusal of the entry at `path` (a constraint or a force), pointed at the field
/// its `check` names: `constraints[3].length`, with the engine's reason and hint.
pub(super) fn refused(path: &str, error: ModelError) -> SceneError {
    match error {
        ModelError::ConstraintParameter(e) | ModelError::ForceParameter(e) => {
            let bead::InvalidParameter {
                parameter,
                reason,
                hint,
            } = *e;
            // The system's dimension is no field of the entry: its kind is what does not fit.
            let field = match parameter.as_str() {
                "dimension" => "kind",
                parameter => parameter,
            };
            let located = SceneError::at(format!("{path}.{field}"), reason);
            match hint {
                Some(hint) => located.hint(hint),
                None => located,
            }
        }
        other => SceneError::at(path, other.to_string()),
    }
}
