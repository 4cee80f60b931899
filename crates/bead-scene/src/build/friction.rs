//! Coulomb friction across the file: every coefficient checked (zero or more), `[simulation]
//! friction` as the default of every contact, and the runs that cannot carry it refused when any
//! coefficient is positive: the inequality methods `platt` and `improved`.

use super::Result;
use crate::error::SceneError;
use crate::format::{ConstraintSpec, SceneFile};

/// Checks a coefficient μ at `path`: finite and zero or more.
pub(super) fn coefficient(path: &str, mu: f64) -> Result<f64> {
    if mu.is_infinite() && mu > 0.0 {
        return Err(SceneError::at(path, format!("must be finite, got {mu}"))
            .hint("a Coulomb coefficient such as 0.5 (0: frictionless)"));
    }
    if !(mu >= 0.0) {
        return Err(
            SceneError::at(path, format!("must be zero or more, got {mu}"))
                .hint("a Coulomb coefficient such as 0.5 (0: frictionless)"),
        );
    }
    Ok(mu)
}

/// The `friction` of a constraint entry, for the kinds that take one.
pub(super) fn of_constraint(spec: &ConstraintSpec) -> Option<f64> {
    match spec {
        ConstraintSpec::HalfPlane { friction, .. }
        | ConstraintSpec::NonPenetration { friction, .. } => *friction,
        _ => None,
    }
}

/// Checks every coefficient in the file and that the run can carry them: `platt` and
/// `improved` never do. Returns `[simulation] friction` (0 by default).
pub(super) fn check(file: &SceneFile) -> Result<f64> {
    let sim = &file.simulation;
    let default = match sim.friction {
        Some(mu) => coefficient("simulation.friction", mu)?,
        None => 0.0,
    };
    // Where the first positive coefficient is, for the messages below.
    let mut first: Option<String> = (default > 0.0).then(|| "simulation.friction".into());
    let mut note = |path: String, mu: Option<f64>| -> Result<()> {
        if let Some(mu) = mu
            && coefficient(&path, mu)? > 0.0
            && first.is_none()
        {
            first = Some(path);
        }
        Ok(())
    };
    for (i, body) in file.bodies.iter().enumerate() {
        note(format!("bodies[{i}].friction"), body.friction)?;
    }
    for (i, group) in file.contacts.iter().enumerate() {
        note(format!("contacts[{i}].friction"), group.friction)?;
    }
    for (i, spec) in file.constraints.iter().enumerate() {
        note(format!("constraints[{i}].friction"), of_constraint(spec))?;
    }
    let Some(first) = first else {
        return Ok(default);
    };
    if let Some(method) = sim.inequality.as_deref()
        && matches!(method, "platt" | "improved")
    {
        return Err(SceneError::at(
            "simulation.inequality",
            format!("{method} does not carry friction; use jonquet or lcp"),
        )
        .hint(format!(
            "{first} is positive; only jonquet (the default) and lcp hold Coulomb friction"
        )));
    }
    Ok(default)
}
