//! An implicit Euler step that Newton's iteration cannot finish, taken again in halves: the
//! step-size control of the implicit steppers (seed 004's time stepping, with the step as the
//! user set it wherever it converges).
//!
//! A step fails where its iteration does not converge: a contact problem that the sweeps and
//! Lemke's pivoting leave a hair above the tolerance (a frictional pile packing at 4 ms), or a
//! landing whose impulses travel further in one step than Newton's matrix describes (there the
//! iteration may end reading its rows as conflicting, at an iterate far from any answer: a
//! conflict too is halved, and reported only if the smallest part still finds it). Two steps
//! of `h/2` start from a state closer to the end of each, and usually converge; each is halved
//! again where it does not, [`HALVINGS`] times at most, before the failure is reported. Every
//! sub-step meets the step's own tolerances, so the result is as exact as an unhalved step,
//! only with a finer first-order error there; [`Work::halved`] counts them for the steppers'
//! reports, and [`StepStats::halved`](crate::StepStats::halved) for the step's.

use super::newton::{Stopping, advance};
use super::work::Work;
use crate::error::EvalError;
use crate::integrate::{Dynamics, PastState};

/// Times a step is halved at most before its failure is reported: down to 1/16 of it.
pub(super) const HALVINGS: u32 = 4;

/// An implicit Euler step from `(q, v)` at `t_start` to `t_end`, into `(q_out, v_out)`: where
/// Newton's iteration does not converge, taken again as two halves, each halved again as it
/// needs, `depth` times at most. The deepest failure is returned.
pub(super) fn euler_in_halves(
    w: &mut Work,
    f: &mut dyn Dynamics,
    (t_start, t_end): (f64, f64),
    (q, v): (&[f64], &[f64]),
    (q_out, v_out): (&mut [f64], &mut [f64]),
    stop: Stopping,
    depth: u32,
) -> Result<(), EvalError> {
    let h = t_end - t_start;
    w.predict_euler(q, v, h);
    let past = [PastState {
        position_weight: 1.0,
        velocity_weight: 1.0,
        t: t_start,
        q,
        v,
    }];
    let result = advance(
        w,
        f,
        (t_start, t_end),
        h,
        (q, v),
        (q, &past),
        q_out,
        v_out,
        stop,
    );
    match result {
        Err(
            EvalError::NoConvergence { .. }
            | EvalError::ContactsUnsettled { .. }
            | EvalError::Conflict { .. }
            | EvalError::WholeTurn { .. },
        ) if depth > 0 => {
            w.halved += 1;
            if let Some(model) = f.constrained() {
                model.note_halved();
            }
            let middle = t_start + 0.5 * h;
            // Allocated only on the rare failure.
            let (mut q_mid, mut v_mid) = (q.to_vec(), v.to_vec());
            let halves = (&mut q_mid[..], &mut v_mid[..]);
            euler_in_halves(w, f, (t_start, middle), (q, v), halves, stop, depth - 1)?;
            let start = (&q_mid[..], &v_mid[..]);
            euler_in_halves(
                w,
                f,
                (middle, t_end),
                start,
                (q_out, v_out),
                stop,
                depth - 1,
            )
        }
        other => other,
    }
}
