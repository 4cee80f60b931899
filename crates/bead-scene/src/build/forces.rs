//! `[[forces]]`: one engine force per entry, by `kind`, with its points and bodies resolved and
//! the defaults that come from the initial geometry (a spring's rest length and angle) written
//! into the resolved file.

use std::collections::HashMap;

use bead::System;
use bead::force::{ConstantForce, Drag, Force, ForceId, Gravity, Spring, Torque, TorsionSpring};

use super::Result;
use super::check::{refused, vector};
use super::initial::{distance, relative_angle};
use super::names::{Entry, Names};
use crate::error::SceneError;
use crate::format::{ForceSpec, PointRef, SceneFile};

/// Adds the file's forces in order, writing their defaults into `resolved`.
pub(super) fn add_forces(
    file: &SceneFile,
    resolved: &mut SceneFile,
    names: &Names<'_>,
    system: &mut System,
) -> Result<Vec<ForceId>> {
    let mut forces = Vec::with_capacity(file.forces.len());
    let mut force_names: HashMap<&str, usize> = HashMap::new();
    for (i, spec) in file.forces.iter().enumerate() {
        let path = format!("forces[{i}]");
        if let Some(name) = spec.name()
            && let Some(first) = force_names.insert(name, i)
        {
            return Err(SceneError::at(
                format!("{path}.name"),
                format!("duplicate force name '{name}'"),
            )
            .hint(format!("forces[{first}] already has this name")));
        }
        let entry = Entry {
            path: &path,
            names,
            system: &*system,
        };
        let force = make_force(&mut resolved.forces[i], &entry)?;
        forces.push(
            system
                .add_force_boxed(force)
                .map_err(|e| refused(&path, e))?,
        );
    }
    Ok(forces)
}

/// The engine force of one entry; a default it takes from the geometry is written into `spec`.
fn make_force(spec: &mut ForceSpec, entry: &Entry<'_>) -> Result<Box<dyn Force>> {
    match spec {
        ForceSpec::Gravity { g, .. } => gravity(entry, g),
        ForceSpec::Constant { point, force, .. } => constant(entry, point, force),
        ForceSpec::Spring {
            between,
            stiffness,
            damping,
            rest_length,
            ..
        } => spring(entry, between, *stiffness, *damping, rest_length),
        ForceSpec::Torque { body, torque, .. } => torque_on(entry, body, *torque),
        ForceSpec::TorsionSpring {
            between,
            body,
            stiffness,
            damping,
            rest_angle,
            ..
        } => torsion_spring(entry, between, body, *stiffness, *damping, rest_angle),
        ForceSpec::Drag { coefficient, .. } => drag(*coefficient),
    }
}

fn gravity(entry: &Entry<'_>, g: &[f64]) -> Result<Box<dyn Force>> {
    Ok(Box::new(Gravity::new(&vector(
        &entry.field("g"),
        g,
        entry.dim(),
    )?)))
}

fn constant(entry: &Entry<'_>, point: &PointRef, force: &[f64]) -> Result<Box<dyn Force>> {
    let p = entry.point("point", point)?;
    let force = vector(&entry.field("force"), force, entry.dim())?;
    Ok(Box::new(ConstantForce::new(p, &force)))
}

fn spring(
    entry: &Entry<'_>,
    between: &[PointRef; 2],
    stiffness: f64,
    damping: f64,
    rest_length: &mut Option<f64>,
) -> Result<Box<dyn Force>> {
    let [a, b] = entry.pair(between)?;
    let rest = *rest_length.get_or_insert_with(|| distance(entry.system, &a, &b));
    Ok(Box::new(Spring::new(a, b, stiffness, damping, rest)))
}

fn torque_on(entry: &Entry<'_>, body: &str, torque: f64) -> Result<Box<dyn Force>> {
    Ok(Box::new(Torque::new(entry.body("body", body)?, torque)))
}

fn torsion_spring(
    entry: &Entry<'_>,
    between: &Option<[String; 2]>,
    body: &Option<String>,
    stiffness: f64,
    damping: f64,
    rest_angle: &mut Option<f64>,
) -> Result<Box<dyn Force>> {
    let (a, b) = entry.one_or_two(between, body)?;
    let rest = *rest_angle.get_or_insert_with(|| relative_angle(entry.system, a, b));
    Ok(Box::new(match b {
        Some(b) => TorsionSpring::new(a, b, stiffness, damping, rest),
        None => TorsionSpring::to_world(a, stiffness, damping, rest),
    }))
}

fn drag(coefficient: f64) -> Result<Box<dyn Force>> {
    Ok(Box::new(Drag::new(coefficient)))
}
