//! The model being edited: Witkin's Tinkertoys, "models built interactively by snapping the
//! pieces together", whose structure "we can freely change … on the fly" (seed 000 §4).
//!
//! A [`Document`] is a scene file and the running model built from it. The file holds the model's
//! structure and its start state, with every default that comes from the geometry written out
//! ([`bead_scene::Model::resolved`]), so moving a particle never changes a rod's length behind
//! the user's back. An edit captures the running state into the file, changes the file, and
//! builds the model again from it: the constraint structure (J's pattern, the solver's analysis)
//! is rebuilt, and the simulation goes on from the captured state at the same time. The viewer
//! thus builds models the way `bead run` does, from a scene file, and what it saves `bead run`
//! runs the same.
//!
//! The start state is the model as loaded, or as it stood at the last edit: Reset returns there
//! and Save writes it (as a scene starting at t = 0, its prescribed motions shifted to match).
//! Settings (integrator, solver, feedback, dt) change the running model in place and are saved,
//! but do not move the start state.

use std::path::{Path, PathBuf};

use bead_scene::format::{FeedbackSpec, ForceSpec, Simulation};
use bead_scene::{Format, Model, Scene, SceneError, SceneFile};

/// Why an edit was not made. The document is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// The edit does not apply (a name that does not exist, a rod between a point and itself).
    #[error("{0}")]
    Invalid(String),
    /// The edited scene does not build (a value out of range, say); the message names the field.
    #[error(transparent)]
    Scene(#[from] SceneError),
}

/// Why a save failed. The document is unchanged and still marked unsaved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The scene could not be written as text.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The file could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// Where.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// A scene being edited and run.
#[derive(Debug)]
pub struct Document {
    /// Structure and start state; geometry defaults resolved.
    file: SceneFile,
    /// Time of the start state, s.
    start_time: f64,
    /// The running model, built from `file`.
    model: Model,
    /// Where it was read from or last saved to.
    path: Option<PathBuf>,
    /// Changed since loaded or saved.
    dirty: bool,
}

impl Document {
    /// An empty scene of dimension 2 or 3 with gravity, to build a model from scratch.
    ///
    /// ```
    /// let doc = bead_viewer::Document::new(2);
    /// assert_eq!(doc.model().system.dim(), 2);
    /// assert!(doc.file().particles.is_empty());
    /// ```
    pub fn new(dim: usize) -> Document {
        let dim = if dim == 3 { 3 } else { 2 };
        let mut g = vec![0.0; dim];
        g[dim - 1] = -9.81;
        let file = SceneFile {
            format: 1,
            name: Some("untitled".into()),
            simulation: Simulation {
                dimension: dim,
                dt: 1e-3,
                duration: 10.0,
                integrator: Some("rk4".into()),
                solver: Some("sparse".into()),
                newton_tolerance: None,
                newton_relative_tolerance: None,
                newton_iterations: None,
                tolerance: None,
                feedback: Some(FeedbackSpec {
                    ks: 100.0,
                    kd: 20.0,
                }),
                baumgarte_tau: None,
                inequality: None,
                impacts: None,
                restitution: None,
                friction: None,
                output_every: Some(10),
                projection: None,
                assemble: None,
            },
            particles: vec![],
            bodies: vec![],
            parametric: vec![],
            forces: vec![ForceSpec::Gravity { g, name: None }],
            constraints: vec![],
            contacts: vec![],
        };
        match file.build("untitled") {
            Ok(model) => Document {
                file: model.resolved.clone(),
                start_time: 0.0,
                model,
                path: None,
                dirty: false,
            },
            Err(e) => unreachable!("the empty scene builds: {e}"),
        }
    }

    /// The scene file at `path` (TOML, or JSON for `.json`).
    pub fn open(path: &Path) -> Result<Document, SceneError> {
        Document::from_scene(&Scene::load(path)?, Some(path.to_path_buf()))
    }

    /// A scene from text; `origin` names it in errors.
    pub fn from_text(text: &str, format: Format, origin: &str) -> Result<Document, SceneError> {
        Document::from_scene(&Scene::parse(text, format, origin)?, None)
    }

    fn from_scene(scene: &Scene, path: Option<PathBuf>) -> Result<Document, SceneError> {
        let model = scene.build()?;
        Ok(Document {
            file: model.resolved.clone(),
            start_time: 0.0,
            model,
            path,
            dirty: false,
        })
    }

    /// The running model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The running model, to step it or to add a mouse spring.
    pub fn model_mut(&mut self) -> &mut Model {
        &mut self.model
    }

    /// The scene: structure and start state.
    pub fn file(&self) -> &SceneFile {
        &self.file
    }

    /// Time of the start state, in seconds.
    pub fn start_time(&self) -> f64 {
        self.start_time
    }

    /// Where the scene was read from or last saved to.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether there are changes not saved.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The scene's name.
    pub fn name(&self) -> &str {
        self.file.name.as_deref().unwrap_or("untitled")
    }

    fn origin(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| self.name().to_string(), |p| p.display().to_string())
    }

    /// Applies an edit to the scene: captures the running state as the new start state, lets
    /// `edit` change the scene, and rebuilds the model, which goes on from that state at the same
    /// time. If `edit` refuses or the result does not build, nothing changes.
    ///
    /// ```
    /// use bead_scene::format::{ConstraintSpec, PointRef};
    /// let mut doc = bead_viewer::Document::new(2);
    /// doc.edit(|file| {
    ///     let a = bead_viewer::edit::add_particle(file, vec![0.0, 0.0], f64::INFINITY, 0.0);
    ///     let b = bead_viewer::edit::add_particle(file, vec![1.0, 0.0], 1.0, 0.05);
    ///     bead_viewer::edit::add_rod(file, [PointRef::Particle(a), PointRef::Particle(b)], 1.0)
    /// })?;
    /// let model = doc.model();
    /// assert_eq!((model.particles.len(), model.constraints.len()), (2, 1));
    /// # Ok::<(), bead_viewer::EditError>(())
    /// ```
    pub fn edit<T>(
        &mut self,
        edit: impl FnOnce(&mut SceneFile) -> Result<T, String>,
    ) -> Result<T, EditError> {
        let mut file = self.file.clone();
        capture(&mut file, &self.model);
        let out = edit(&mut file).map_err(EditError::Invalid)?;
        let t = self.model.system.time();
        let model = self.build(&file, t)?;
        // New entries' geometry defaults are resolved by the build, as at load.
        self.file = model.resolved.clone();
        self.model = model;
        self.start_time = t;
        self.dirty = true;
        Ok(out)
    }

    /// The Coulomb coefficient the scene's contacts have now: `[simulation] friction`, or the
    /// first shape group's own; `None` without shape contact groups (particle groups without
    /// friction collide as non-penetration only).
    pub fn friction(&self) -> Option<f64> {
        if self.model.contacts.is_empty() {
            return None;
        }
        let group = self.file.contacts.iter().find_map(|c| c.friction);
        Some(group.or(self.file.simulation.friction).unwrap_or(0.0))
    }

    /// Gives every shape contact group the Coulomb coefficient `mu`, in the running system at
    /// once and in the file (`[simulation] friction` and each group's `friction`, which then
    /// overrides the bodies' own, as it does in the system).
    pub fn edit_friction(&mut self, mu: f64) -> Result<(), EditError> {
        if self.model.contacts.is_empty() {
            return Err(EditError::Invalid(
                "the scene has no contact group of shapes to give friction to".into(),
            ));
        }
        for group in &self.model.contacts {
            self.model
                .system
                .set_contact_friction(group.id, mu)
                .map_err(|e| EditError::Invalid(e.to_string()))?;
        }
        let shape_groups: Vec<&str> = self
            .model
            .contacts
            .iter()
            .map(|g| g.name.as_str())
            .collect();
        for (i, spec) in self.file.contacts.iter_mut().enumerate() {
            let name = spec.name.clone().unwrap_or_else(|| format!("contacts{i}"));
            if shape_groups.contains(&name.as_str()) {
                spec.friction = Some(mu);
            }
        }
        self.file.simulation.friction = Some(mu);
        self.dirty = true;
        Ok(())
    }

    /// Changes the `[simulation]` settings of the running model in place: integrator, solver,
    /// tolerance, feedback, projection, dt. They are checked as a scene file's are, saved with
    /// the scene, and leave the start state where it was.
    pub fn edit_settings(&mut self, edit: impl FnOnce(&mut Simulation)) -> Result<(), EditError> {
        let mut simulation = self.file.simulation.clone();
        edit(&mut simulation);
        if simulation.dimension != self.file.simulation.dimension {
            return Err(EditError::Invalid(
                "the dimension of a scene cannot change".into(),
            ));
        }
        if simulation == self.file.simulation {
            return Ok(());
        }
        // The scene crate checks settings and turns them into an engine's: build them alone.
        let probe = SceneFile {
            format: 1,
            name: None,
            simulation: simulation.clone(),
            particles: vec![],
            bodies: vec![],
            parametric: vec![],
            forces: vec![],
            constraints: vec![],
            contacts: vec![],
        }
        .build(&self.origin())?;
        let system = &mut self.model.system;
        if let Some(integrator) = probe.run.make_integrator() {
            system.set_integrator_boxed(integrator);
        }
        if probe.run.solver != system.solver().name()
            && let Some(solver) = bead::solve::by_name(&probe.run.solver)
        {
            system.set_solver_boxed(solver);
        }
        system
            .set_settings(*probe.system.settings())
            .map_err(|e| EditError::Invalid(e.to_string()))?;
        self.model.run = probe.run;
        self.file.simulation = simulation;
        self.dirty = true;
        Ok(())
    }

    /// Back to the start state.
    pub fn reset(&mut self) -> Result<(), SceneError> {
        self.model = self.build(&self.file, self.start_time)?;
        Ok(())
    }

    fn build(&self, file: &SceneFile, t: f64) -> Result<Model, SceneError> {
        let mut model = file.build(&self.origin())?;
        model.system.set_time(t);
        Ok(model)
    }

    /// The scene as it would be saved: the start state, as a scene that starts at t = 0.
    pub fn saved_scene(&self) -> SceneFile {
        self.file.starting_at(self.start_time)
    }

    /// Writes the scene to `path` (JSON for `.json`, TOML otherwise); later saves go there.
    pub fn save(&mut self, path: &Path) -> Result<(), SaveError> {
        let text = self.saved_scene().to_text(Format::of(path))?;
        std::fs::write(path, text).map_err(|source| SaveError::Io {
            path: path.display().to_string(),
            source,
        })?;
        self.path = Some(path.to_path_buf());
        self.dirty = false;
        Ok(())
    }
}

/// Writes the running state of `model` (built from `file`) into `file`'s start state.
fn capture(file: &mut SceneFile, model: &Model) {
    let system = &model.system;
    let moving = |v: &[f64]| v.iter().any(|x| *x != 0.0).then(|| v.to_vec());
    for (spec, (_, id)) in file.particles.iter_mut().zip(&model.particles) {
        spec.position = system.position(*id).to_vec();
        spec.velocity = moving(system.velocity(*id));
    }
    for (spec, (_, id)) in file.bodies.iter_mut().zip(&model.bodies) {
        let (q, v) = (system.coordinates(*id), system.coordinate_velocities(*id));
        spec.position = q[..2].to_vec();
        spec.angle = q[2];
        spec.velocity = moving(&v[..2]);
        spec.angular_velocity = bead_scene::format::AngularVelocitySpec::Rate(v[2]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit;
    use bead_scene::format::{ConstraintSpec, PointRef};

    fn pendulum() -> Document {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/pendulum.toml");
        Document::open(&path).unwrap()
    }

    /// An edit mid-swing: the model goes on from where it was, at the same time; Reset returns
    /// to the moment of the edit.
    #[test]
    fn an_edit_keeps_the_running_state_and_becomes_the_start() {
        let mut doc = pendulum();
        for _ in 0..300 {
            doc.model_mut().system.step(1e-3).unwrap();
        }
        let (t, q, v) = {
            let s = &doc.model().system;
            (s.time(), s.q().to_vec(), s.q_dot().to_vec())
        };
        doc.edit(|file| {
            edit::add_particle(file, vec![2.0, 2.0], 1.0, 0.0);
            Ok(())
        })
        .unwrap();
        let s = &doc.model().system;
        assert_eq!(s.time(), t);
        assert_eq!(&s.q()[..q.len()], &q[..]);
        assert_eq!(&s.q_dot()[..v.len()], &v[..]);
        assert_eq!(doc.start_time(), t);
        assert!(doc.is_dirty());
        for _ in 0..100 {
            doc.model_mut().system.step(1e-3).unwrap();
        }
        doc.reset().unwrap();
        assert_eq!(doc.model().system.time(), t);
        assert_eq!(&doc.model().system.q()[..q.len()], &q[..]);
    }

    /// A 3D scene's contacts carry friction under every stepper: the μ control is there and
    /// edits the group, under the implicit steppers and under RK4.
    #[test]
    fn a_3d_contact_scene_has_a_friction_control_under_every_stepper() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/box_stack_3d.toml");
        let mut doc = Document::open(&path).unwrap();
        assert_eq!(doc.friction(), Some(0.0));
        doc.edit_friction(0.5).unwrap();
        assert_eq!(doc.friction(), Some(0.5));
        doc.model_mut().system.step(2e-3).unwrap();
        doc.edit_settings(|s| s.integrator = Some("rk4".into()))
            .unwrap();
        assert_eq!(doc.friction(), Some(0.5));
        doc.edit_friction(0.3).unwrap();
        assert_eq!(doc.friction(), Some(0.3));
        doc.model_mut().system.step(2e-3).unwrap();
    }

    /// The μ control: lowering the incline scene's friction below tan 25° lets the crate that
    /// stuck slide, at once, and the file saves the new coefficient.
    #[test]
    fn lowering_friction_lets_the_sticking_crate_slide() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/incline-crate.toml");
        let mut doc = Document::open(&path).unwrap();
        assert_eq!(doc.friction(), Some(0.5));
        let crate_ = doc
            .model()
            .bodies
            .iter()
            .find(|(n, _)| n == "sticking")
            .unwrap()
            .1;
        let start = doc.model().system.coordinates(crate_).to_vec();
        for _ in 0..100 {
            doc.model_mut().system.step(1e-3).unwrap();
        }
        assert_eq!(doc.model().system.coordinates(crate_), &start[..]);
        doc.edit_friction(0.3).unwrap();
        assert_eq!(doc.friction(), Some(0.3));
        assert_eq!(doc.file().simulation.friction, Some(0.3));
        for _ in 0..100 {
            doc.model_mut().system.step(1e-3).unwrap();
        }
        let moved = doc.model().system.coordinates(crate_)[0] - start[0];
        // Down the 25° slope: a = g (sin 25° − 0.3 cos 25°) = 1.48 m/s², 7.4 mm in 0.1 s.
        assert!(
            (moved.abs() - 0.5 * 1.48 * 0.01 * 25f64.to_radians().cos()).abs() < 5e-4,
            "{moved}"
        );
        assert!(doc.edit_friction(-1.0).is_err());
        assert!(doc.is_dirty());
    }

    /// A refused edit, or one that does not build, changes nothing.
    #[test]
    fn a_failed_edit_changes_nothing() {
        let mut doc = pendulum();
        let before = doc.file().clone();
        let err = doc
            .edit(|file| {
                edit::add_rod(
                    file,
                    [
                        PointRef::Particle("bob".into()),
                        PointRef::Particle("nobody".into()),
                    ],
                    1.0,
                )
            })
            .unwrap_err();
        assert!(err.to_string().contains("nobody"), "{err}");
        assert_eq!(doc.file(), &before);
        assert!(!doc.is_dirty());
        let err = doc.edit(|file| {
            if let ConstraintSpec::Distance { length, .. } = &mut file.constraints[0] {
                *length = Some(-1.0);
            }
            Ok(())
        });
        assert!(matches!(err, Err(EditError::Scene(_))), "{err:?}");
        assert_eq!(doc.file(), &before);
    }

    /// Settings change the running system and the saved file, not the start state.
    #[test]
    fn settings_change_in_place() {
        let mut doc = pendulum();
        for _ in 0..10 {
            doc.model_mut().system.step(1e-3).unwrap();
        }
        doc.edit_settings(|s| {
            s.integrator = Some("symplectic-euler".into());
            s.solver = Some("dense".into());
            s.feedback = Some(FeedbackSpec { ks: 4.0, kd: 3.0 });
            s.baumgarte_tau = None;
        })
        .unwrap();
        let system = &doc.model().system;
        assert_eq!(system.integrator().name(), "symplectic-euler");
        assert_eq!(system.solver().name(), "dense");
        assert_eq!(system.settings().feedback.ks, 4.0);
        assert!(system.time() > 0.0 && doc.start_time() == 0.0);
        let bad = doc.edit_settings(|s| s.dt = -1.0);
        assert!(bad.unwrap_err().to_string().contains("simulation.dt"));
        assert_eq!(doc.file().simulation.dt, 1e-3);
    }

    /// Saved and read back: the same scene.
    #[test]
    fn save_and_reload() {
        let mut doc = pendulum();
        doc.edit(|file| {
            let p = edit::add_particle(file, vec![0.5, 0.5], 2.0, 0.1);
            edit::add_rod(
                file,
                [PointRef::Particle("bob".into()), PointRef::Particle(p)],
                0.5f64.sqrt(),
            )
        })
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        for name in ["saved.toml", "saved.json"] {
            let path = dir.path().join(name);
            doc.save(&path).unwrap();
            assert!(!doc.is_dirty());
            let again = Document::open(&path).unwrap();
            assert_eq!(again.file(), &doc.saved_scene());
            assert_eq!(again.model().system.q(), doc.model().system.q());
        }
    }
}
