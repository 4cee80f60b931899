//! `[[parametric]]`: objects whose mass points move with a few generalized coordinates, each
//! point's position an expression in `u0 … uk` and `t` (a bead on a wire, a pendulum on a curve).

use bead::{Parametric, ParametricId, System};

use super::Result;
use super::check::{finite_all, non_negative, positive};
use super::expression::{expression_error, quote};
use crate::error::SceneError;
use crate::expression::Expression;
use crate::format::ParametricSpec;

/// `[[parametric]]`: checks the numbers, parses each point's position expressions in
/// `u0 … uk` and `t`, and adds the object.
pub(super) fn add_object(
    system: &mut System,
    spec: &ParametricSpec,
    path: &str,
    dim: usize,
) -> Result<ParametricId> {
    let n = spec.coordinates.len();
    if n == 0 {
        return Err(SceneError::at(
            format!("{path}.coordinates"),
            "an object needs at least one coordinate",
        )
        .hint("coordinates = [0.0] for a bead on a curve, [0.0, 0.0] on a surface"));
    }
    finite_all(&format!("{path}.coordinates"), &spec.coordinates)?;
    let rates = match &spec.rates {
        Some(r) if r.len() != n => {
            return Err(SceneError::at(
                format!("{path}.rates"),
                format!("has {} entries for {n} coordinates", r.len()),
            ));
        }
        Some(r) => {
            finite_all(&format!("{path}.rates"), r)?;
            r.clone()
        }
        None => vec![0.0; n],
    };
    let mut variables: Vec<String> = (0..n).map(|k| format!("u{k}")).collect();
    variables.push("t".into());
    let refs: Vec<&str> = variables.iter().map(String::as_str).collect();
    let mut object = Parametric::new(&spec.coordinates)
        .name(spec.name.clone())
        .rates(&rates);
    if let Some([from, to]) = spec.trace {
        let field = format!("{path}.trace");
        if n != 1 {
            return Err(SceneError::at(
                &field,
                format!("traces a curve, and this object has {n} coordinates"),
            ));
        }
        finite_all(&field, &[from, to])?;
        if from >= to {
            return Err(SceneError::at(&field, format!("[{from}, {to}] is empty"))
                .hint("give [from, to] with from < to"));
        }
        object = object.trace(from, to);
    }
    if spec.points.is_empty() {
        return Err(SceneError::at(
            format!("{path}.points"),
            "an object needs at least one mass point",
        )
        .hint("points = [{ name = \"p\", mass = 1.0, position = [\"cos(u0)\", \"sin(u0)\"] }]"));
    }
    let mut used = vec![false; n];
    for (k, point) in spec.points.iter().enumerate() {
        let at = format!("{path}.points[{k}]");
        if point.name.is_empty() || point.name.contains('.') {
            return Err(SceneError::at(
                format!("{at}.name"),
                format!("'{}' cannot name a point", point.name),
            )
            .hint("a point's name is not empty and has no '.' (outputs read OBJECT.POINT.x)"));
        }
        if let Some(j) = spec.points[..k].iter().position(|p| p.name == point.name) {
            return Err(SceneError::at(
                format!("{at}.name"),
                format!("duplicate point name '{}'", point.name),
            )
            .hint(format!("{path}.points[{j}] already has this name")));
        }
        positive(&format!("{at}.mass"), point.mass)?;
        if point.position.len() != dim {
            return Err(SceneError::at(
                format!("{at}.position"),
                format!(
                    "has {} expressions; the scene is {dim}D",
                    point.position.len()
                ),
            )
            .hint(format!("give one expression per axis, {dim} in all")));
        }
        let mut axes = Vec::with_capacity(dim);
        for (d, text) in point.position.iter().enumerate() {
            let e = Expression::parse(text, &refs)
                .map_err(|e| expression_error(&at, &format!("position[{d}]"), text, e))?;
            for (u, flag) in used.iter_mut().enumerate() {
                *flag |= e.uses(u);
            }
            let value = e.eval(|i| {
                if i < n {
                    spec.coordinates[i]
                } else {
                    system.time()
                }
            });
            if !value.is_finite() {
                return Err(SceneError::at(
                    format!("{at}.position[{d}]"),
                    format!(
                        "'{}' is {value} at u = {:?}",
                        quote(text, 0),
                        spec.coordinates
                    ),
                ));
            }
            axes.push(e);
        }
        object = object.point(point.name.clone(), point.mass, move |u, t, x| {
            for (xd, e) in x.iter_mut().zip(&axes) {
                *xd = e.eval(|i| if i < n { u[i] } else { t });
            }
        });
        if let Some(r) = point.radius {
            non_negative(&format!("{at}.radius"), r)?;
            if let Some(last) = object.points.last_mut() {
                last.radius = r;
            }
        }
    }
    if let Some(u) = used.iter().position(|u| !u) {
        return Err(SceneError::at(
            format!("{path}.points"),
            format!("no point's position depends on u{u}"),
        )
        .hint("every coordinate must move some point, or the object's mass matrix is singular"));
    }
    system
        .add_parametric(object)
        .map_err(|e| SceneError::at(path, e.to_string()))
}
