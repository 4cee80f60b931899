//! Located impacts: the first activation of an inequality inside a step is found by rewinding,
//! and resolved there with impulses ([`super::impulses`]).
//!
//! Seed 004 assumes the engine "may rewind time until the first constraint activation is
//! detected". The rows that can activate inside a step are the inequality rows left out of the
//! set chosen at its start ([`crate::dynamics::active_set`]): apart (`g > tolerance`), or
//! touching but separating. A row apart that ends the step with `g < 0`, or one touching that
//! ends it deeper than the tolerance, has crossed its boundary inside the step. The step is then
//! redone from its start to a shorter end time found by bisection (each trial is a full
//! integrator step, so the motion up to the impact is integrated as accurately as any other
//! step), until the crossing rows are touching. Only rows touching at that instant receive
//! impulses: a row still apart, however fast it closes, is the next event's.
//!
//! A slide that comes to rest is located the same way. A friction row that slides at the
//! step's start carries the cone's edge force against its slide through the step; where its
//! contact's tangential speed would fall to zero inside the step, the step is cut at the
//! instant it does (to within the stick speed, [`stick_speed`]), and the next step starts with
//! the contact sticking: its row then holds the speed at zero exactly. Without the cut, the
//! edge force would carry the contact past rest and back, a slide that never ends. A 3D
//! contact's slide stops where its velocity no longer has a part along the slide it had at the
//! step's start; one that has only turned that far, still fast, slides on from there in its new
//! direction.

use super::Pipeline;
use super::impulses::resolve_impacts;
use crate::dynamics::stick_speed;
use crate::error::{StepError, StepFailure};
use crate::model::Model;
use crate::settings::{Settings, StepStats};
use crate::state::State;

/// More events than this in one step means the model keeps re-colliding (a Zeno cascade the rest
/// rule did not stop); the step fails rather than loop.
const MAX_EVENTS: usize = 1000;
/// Bisection halvings of the step when locating an impact.
const MAX_BISECTIONS: usize = 60;

/// Advances to `t_end`, stopping at every impact on the way to resolve it.
pub(super) fn advance(
    p: &mut Pipeline,
    model: &Model,
    state: &mut State,
    settings: &Settings,
    t_end: f64,
) -> Result<StepStats, StepError> {
    let mut total = StepStats::default();
    for _ in 0..MAX_EVENTS {
        resolve_touching_approaches(p, model, state, settings)?;
        // The first stage at the start state: it chooses the rows held through the step.
        p.evaluate_current(model, state, settings, false)?;
        let tol = settings.contact_tolerance;
        let (ev, acceleration) = (&p.evaluator, &p.acceleration);
        let (c, inequality) = (ev.c(), &ev.layout().inequality);
        // Rows that may hit within the step: the inequality rows left out of the chosen set.
        // A row already below zero is the solve's to correct (its feedback), not an event.
        let free: Vec<Option<f64>> = (0..c.len())
            .map(|k| {
                let event = inequality[k] && !acceleration.is_held(k) && c[k] >= 0.0;
                // Apart: any crossing of zero. Touching (and separating, or it would be
                // held): a dip below the tolerance that the solve did not see coming.
                event.then_some(if c[k] > tol { 0.0 } else { -tol })
            })
            .collect();
        // Contacts sliding at the start, each by its friction rows and its slide along them (a
        // 2D contact's one row twice, its sign and 0): each may stop.
        let bounds = ev.layout().bounds();
        let slides: Vec<Slide> = (0..c.len())
            .filter_map(|k| {
                let (s, j) = (acceleration.slide(k), bounds.sibling(k));
                match j {
                    Some(j) if j > k && (s != 0.0 || acceleration.slide(j) != 0.0) => {
                        Some(([k, j], [s, acceleration.slide(j)]))
                    }
                    None if s != 0.0 => Some(([k, k], [s, 0.0])),
                    _ => None,
                }
            })
            .collect();
        let events = Events {
            free: &free,
            slides: &slides,
            stick: stick_speed(settings, p.velocity_rate(settings)),
        };
        let start = (state.t, state.q.clone(), state.v.clone());
        accumulate(&mut total, p.integrate_to(model, state, settings, t_end)?);
        if crossing(p, model, state, &events)?.is_none() {
            return Ok(total);
        }
        // Bisect the end time: `lo` keeps every crossing row at g ≥ 0, `hi` has one below 0.
        let (mut lo, mut hi) = (start.0, t_end);
        for _ in 0..MAX_BISECTIONS {
            let mid = 0.5 * (lo + hi);
            if !(mid > lo && mid < hi) {
                break;
            }
            restore(p, state, &start);
            accumulate(&mut total, p.integrate_to(model, state, settings, mid)?);
            match crossing(p, model, state, &events)? {
                // Rest found to a millionth of the stick speed: a slower residue than the
                // bisection's last halvings would leave.
                Some(Event::Stop) if events.stopped(p, 1e-6) => {
                    hi = mid;
                    break;
                }
                Some(_) => hi = mid,
                None => {
                    lo = mid;
                    if touching_and_closing(p, events.free, tol) {
                        break;
                    }
                }
            }
        }
        // A slide that stopped first: the step goes on from the instant it stopped, sticking.
        restore(p, state, &start);
        accumulate(&mut total, p.integrate_to(model, state, settings, hi)?);
        if crossing(p, model, state, &events)? == Some(Event::Stop) && events.stopped(p, 1.0) {
            if state.t >= t_end {
                return Ok(total);
            }
            continue;
        }
        restore(p, state, &start);
        accumulate(&mut total, p.integrate_to(model, state, settings, lo)?);
        // The rows touching now: the located crossing ones among them, and the contacts
        // resting on their supports, through which the impact's pulse travels as through any
        // contact. A row still apart gets no impulse, however fast it closes (an impulse acts at
        // contact, never at a distance); if it crosses later in the step, the next event finds
        // it.
        p.evaluate_constraints(model, state)?;
        let (c, inequality) = (p.evaluator.c(), &p.evaluator.layout().inequality);
        let touching: Vec<bool> = (0..free.len())
            .map(|k| inequality[k] && p.acceleration.in_contact(k, c[k], settings))
            .collect();
        resolve_impacts(
            p,
            model,
            state,
            settings,
            &touching,
            &vec![0.0; touching.len()],
        )?;
        if state.t >= t_end {
            return Ok(total);
        }
    }
    Err(p.step_error(model, state, StepFailure::TooManyImpacts(MAX_EVENTS)))
}

/// Rows already touching (`g ≤ tolerance`) but still approaching (`ġ < 0`) are impacts too:
/// a step ended just short of contact, or a pulse arrived through another contact. Left to the
/// active-set solve, the feedback term would stop them softly over a step and leak momentum.
/// A contact resting on its support approaches by up to the last step's integration error
/// (on an accelerating support, `½ h a` under the Euler schemes), which its feedback holds:
/// that is no impact (an impulse every step would remove it, and the gap the step leaves would
/// grow unopposed). It takes the impulses of another row's impact, as any contact.
fn resolve_touching_approaches(
    p: &mut Pipeline,
    model: &Model,
    state: &mut State,
    settings: &Settings,
) -> Result<(), StepError> {
    p.evaluate_constraints(model, state)?;
    let (ev, acceleration) = (&p.evaluator, &p.acceleration);
    let (c, c_dot, inequality) = (ev.c(), ev.c_dot(), &ev.layout().inequality);
    let touching: Vec<bool> = (0..c.len())
        .map(|k| inequality[k] && acceleration.in_contact(k, c[k], settings))
        .collect();
    // Slower approaches are resting contacts: the solve's feedback settles them.
    if (0..touching.len())
        .any(|k| touching[k] && acceleration.approach_is_impact(k, c_dot[k], settings))
    {
        resolve_impacts(
            p,
            model,
            state,
            settings,
            &touching,
            &vec![0.0; touching.len()],
        )?;
    }
    Ok(())
}

/// Puts the state back where the step started, for another try.
fn restore(p: &mut Pipeline, state: &mut State, start: &(f64, Vec<f64>, Vec<f64>)) {
    state.t = start.0;
    state.q.copy_from_slice(&start.1);
    state.v.copy_from_slice(&start.2);
    p.current_acceleration = None;
}

/// A contact sliding at a step's start: its friction rows and the slide's unit direction along
/// them (a 2D contact's row twice, with its slide's sign and 0).
type Slide = ([usize; 2], [f64; 2]);

/// A sliding contact's speed along its slide at the start, and its tangential speed, from the
/// friction rows' `ċ`.
fn along(&([i, j], [si, sj]): &Slide, c_dot: &[f64]) -> (f64, f64) {
    let speed = if i == j {
        c_dot[i].abs()
    } else {
        c_dot[i].hypot(c_dot[j])
    };
    (c_dot[i] * si + c_dot[j] * sj, speed)
}

/// What can happen inside a step: rows apart that may cross their boundary, and sliding
/// contacts that may stop.
struct Events<'a> {
    /// Per row, the threshold below which an inequality left out has crossed (`None`: no event).
    free: &'a [Option<f64>],
    /// Contacts sliding at the step's start, with their slides.
    slides: &'a [Slide],
    /// The tangential speed below which a contact sticks.
    stick: f64,
}

impl Events<'_> {
    /// Whether every slide that stopped at the last evaluation stopped within `fraction` of the
    /// stick speed (rather than running past rest): the instant to cut the step at.
    fn stopped(&self, p: &Pipeline, fraction: f64) -> bool {
        let c_dot = p.evaluator.c_dot();
        let band = fraction * self.stick;
        self.slides.iter().all(|slide| {
            let (ahead, speed) = along(slide, c_dot);
            ahead > self.stick || speed <= band
        })
    }
}

/// The first kind of event found at a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// An inequality row left out crossed its threshold.
    Crossing,
    /// A sliding contact's speed fell to zero or reversed.
    Stop,
}

/// The event at the current state, if any (evaluates C and Ċ there): a crossing takes
/// precedence over a stop.
fn crossing(
    p: &mut Pipeline,
    model: &Model,
    state: &State,
    events: &Events<'_>,
) -> Result<Option<Event>, StepError> {
    p.evaluate_constraints(model, state)?;
    let (c, c_dot) = (p.evaluator.c(), p.evaluator.c_dot());
    let free = events.free;
    if (0..free.len()).any(|k| free[k].is_some_and(|limit| c[k] < limit)) {
        return Ok(Some(Event::Crossing));
    }
    let stopped = events
        .slides
        .iter()
        .any(|slide| along(slide, c_dot).0 <= 0.0);
    Ok(stopped.then_some(Event::Stop))
}

/// Whether a `free` row is within `tol` of contact and closing (`ġ = J q̇ + ∂g/∂t < 0`), at
/// the last evaluation.
fn touching_and_closing(p: &Pipeline, free: &[Option<f64>], tol: f64) -> bool {
    let (c, c_dot) = (p.evaluator.c(), p.evaluator.c_dot());
    (0..free.len()).any(|k| free[k].is_some() && c[k] <= tol && c_dot[k] < 0.0)
}

/// Adds a trial step's effort to the step's.
fn accumulate(total: &mut StepStats, s: StepStats) {
    total.evaluations += s.evaluations;
    total.solver_iterations = total.solver_iterations.max(s.solver_iterations);
    total.solver_residual = total.solver_residual.max(s.solver_residual);
    total.active_set_passes = total.active_set_passes.max(s.active_set_passes);
    total.halved += s.halved;
}
