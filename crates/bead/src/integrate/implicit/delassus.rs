//! The Delassus matrix `A = J_b K⁻¹ J_bᵀ` of the bounded rows' own problem
//! ([`super::contact_lcp`]), column by column from the Newton matrix's factor, several columns a
//! solve.
//!
//! Column `k` is the response of every bounded row to a unit multiplier on row `k`: one solve
//! with the factor `K` of the Newton matrix. A right-hand side within one component of that
//! matrix moves only that component's coordinates
//! ([`ConstrainedModel::coupled_coordinates`]), so rows whose bodies lie in different
//! components can share a solve, each reading its response off its own components. The rows are
//! coloured greedily, no two of a colour touching one component, and each colour costs one
//! solve. The matrix of a pile or a pyramid keeps only each body's own stiffness, so each body
//! is a component of its own and a pile of 100 balls' 1,500 rows take a few dozen solves
//! instead of 1,500; rows whose bodies the matrix couples (the links of a chain, held together
//! by their joints) keep a solve each.
//!
//! Each entry is the same sum of the same products as with one solve per row, so the matrix is
//! too, to the last bit.

use crate::error::EvalError;
use crate::integrate::{ConstrainedModel, Factorization, NewtonSystem, Role};
use crate::math::sparse::BlockSparse;
use crate::solve::coulomb::contact_problem::ContactProblem;

/// No row or component.
const NONE: usize = usize::MAX;

/// Scratch of [`build`]: the components and colours.
#[derive(Clone, Debug, Default)]
pub(super) struct Colouring {
    /// Each coordinate's component ([`ConstrainedModel::coupled_coordinates`]).
    labels: Vec<usize>,
    /// The components each bounded row touches, as compressed lists.
    touch_start: Vec<usize>,
    touch: Vec<usize>,
    /// The bounded rows (positions) touching each component, as compressed lists.
    component_start: Vec<usize>,
    component_rows: Vec<usize>,
    /// The colours taken in each component so far, and a scratch mark per colour.
    taken: Vec<Vec<usize>>,
    marked: Vec<bool>,
    /// Each bounded row's colour, and the rows of each colour as compressed lists.
    colour: Vec<usize>,
    colour_start: Vec<usize>,
    colour_rows: Vec<usize>,
    /// The row of the colour being solved that owns each component, and which column last
    /// counted each row.
    owner: Vec<usize>,
    seen: Vec<usize>,
    /// `(column, row, value)` of every entry of `A` that is not zero, and each diagonal.
    entries: Vec<(usize, usize, f64)>,
}

/// Fills `A` in `p` (its compressed columns, for the `b` rows of `p.rows`) from the Newton
/// matrix factored last, with `roles` (the bounded rows fixed): the response of every bounded
/// row to a unit multiplier on each, by as few solves as the matrix's components allow (see the
/// module's notes), `c` its scratch. Returns the solves it took.
pub(super) fn build(
    model: &mut dyn ConstrainedModel,
    roles: &[Role],
    h2: f64,
    p: &mut ContactProblem,
    c: &mut Colouring,
) -> Result<usize, EvalError> {
    let m = roles.len();
    let n = p.dq.len();
    let b = p.rows.len();
    model.coupled_coordinates(&mut c.labels);
    touches(model.jacobian(), &p.rows, c);
    colour(c, b, n);
    p.unit.clear();
    p.unit.resize(m, 0.0);
    p.zero_lambda.clear();
    p.zero_lambda.resize(m, 0.0);
    p.force.resize(n, 0.0);
    c.owner.clear();
    c.owner.resize(n, NONE);
    c.seen.clear();
    c.seen.resize(b, NONE);
    c.entries.clear();
    for colour in 0..c.colour_start.len() - 1 {
        let rows_of_colour = c.colour_start[colour]..c.colour_start[colour + 1];
        // A fixed row's multiplier is out of the matrix: its force is in the momentum residual
        // `M (q − q̃) − ĥ² Q − Jᵀμ`, which a unit more of it lowers by the row of `J`.
        for &k in &c.colour_rows[rows_of_colour.clone()] {
            p.unit[p.rows[k]] = 1.0;
        }
        model.jacobian().mul_transpose(&p.unit, &mut p.force);
        for &k in &c.colour_rows[rows_of_colour.clone()] {
            p.unit[p.rows[k]] = 0.0;
        }
        for f in &mut p.force {
            *f = -*f;
        }
        let system = NewtonSystem {
            h2,
            proximal: 0.0,
            lambda: &p.zero_lambda,
            roles,
            momentum: &p.force,
            rows: &p.unit,
        };
        model.newton_step(Factorization::Reuse, system, &mut p.dq, &mut p.dmu)?;
        let jacobian = model.jacobian();
        for &k in &c.colour_rows[rows_of_colour.clone()] {
            for &l in &c.touch[c.touch_start[k]..c.touch_start[k + 1]] {
                c.owner[l] = k;
            }
        }
        for i in rows_of_colour.clone() {
            let k = c.colour_rows[i];
            column(jacobian, p, c, k);
        }
        for &k in &c.colour_rows[rows_of_colour] {
            for &l in &c.touch[c.touch_start[k]..c.touch_start[k + 1]] {
                c.owner[l] = NONE;
            }
        }
    }
    // Each column's rows in order.
    c.entries.sort_unstable_by_key(|&(k, j, _)| (k, j));
    p.set_columns(&c.entries);
    Ok(c.colour_start.len() - 1)
}

/// Column `k` of `A` from the solve of its colour in `p.dq`: every bounded row touching one of
/// `k`'s components, summed over that row's blocks in the components `k` owns, in the order of
/// [`BlockSparse::mul`].
fn column(jacobian: &BlockSparse, p: &ContactProblem, c: &mut Colouring, k: usize) {
    let mut diagonal = false;
    for &l in &c.touch[c.touch_start[k]..c.touch_start[k + 1]] {
        for &j in &c.component_rows[c.component_start[l]..c.component_start[l + 1]] {
            if c.seen[j] == k {
                continue;
            }
            c.seen[j] = k;
            let row = p.rows[j];
            let mut sum = 0.0;
            for (col, values) in jacobian.row(row) {
                let l = label(&c.labels, col, values.len());
                if l != NONE && c.owner[l] == k {
                    let dq = &p.dq[col..col + values.len()];
                    sum += values.iter().zip(dq).map(|(a, x)| a * x).sum::<f64>();
                }
            }
            diagonal |= j == k;
            if j == k || sum != 0.0 {
                c.entries.push((k, j, sum));
            }
        }
    }
    if !diagonal {
        // A row between bodies that cannot move: its column is zero, its diagonal indexed.
        c.entries.push((k, k, 0.0));
    }
}

/// The component of a block of `J` over coordinates `col..col + len` (one body's: a block's
/// movable coordinates share one), or [`NONE`] where none of them moves. Components are
/// labelled by a coordinate, so the label indexes per-coordinate arrays.
fn label(labels: &[usize], col: usize, len: usize) -> usize {
    labels[col..col + len]
        .iter()
        .copied()
        .find(|&l| l != NONE)
        .unwrap_or(NONE)
}

/// Each bounded row's components (`touch`), and each component's bounded rows.
fn touches(jacobian: &BlockSparse, rows: &[usize], c: &mut Colouring) {
    let n = c.labels.len();
    c.touch_start.clear();
    c.touch.clear();
    c.touch_start.push(0);
    c.component_start.clear();
    c.component_start.resize(n + 1, 0);
    for &row in rows {
        let first = c.touch.len();
        for (col, values) in jacobian.row(row) {
            let l = label(&c.labels, col, values.len());
            if l != NONE && !c.touch[first..].contains(&l) {
                c.touch.push(l);
                c.component_start[l + 1] += 1;
            }
        }
        c.touch_start.push(c.touch.len());
    }
    for l in 0..n {
        c.component_start[l + 1] += c.component_start[l];
    }
    c.component_rows.clear();
    c.component_rows.resize(c.touch.len(), 0);
    let mut next = c.component_start.clone();
    for k in 0..rows.len() {
        for &l in &c.touch[c.touch_start[k]..c.touch_start[k + 1]] {
            c.component_rows[next[l]] = k;
            next[l] += 1;
        }
    }
}

/// Colours the `b` bounded rows greedily, each with the first colour none of its components has
/// taken, and lists the rows of each colour.
fn colour(c: &mut Colouring, b: usize, n: usize) {
    c.taken.resize_with(n, Vec::new);
    c.colour.clear();
    let mut colours = 0;
    for k in 0..b {
        let touched = &c.touch[c.touch_start[k]..c.touch_start[k + 1]];
        c.marked.clear();
        c.marked.resize(colours + 1, false);
        for &l in touched {
            for &t in &c.taken[l] {
                c.marked[t] = true;
            }
        }
        let chosen = c.marked.iter().position(|&t| !t).unwrap_or(colours);
        for &l in touched {
            c.taken[l].push(chosen);
        }
        colours = colours.max(chosen + 1);
        c.colour.push(chosen);
    }
    for &l in &c.touch {
        c.taken[l].clear();
    }
    c.colour_start.clear();
    c.colour_start.resize(colours + 1, 0);
    for &chosen in &c.colour {
        c.colour_start[chosen + 1] += 1;
    }
    for k in 0..colours {
        c.colour_start[k + 1] += c.colour_start[k];
    }
    c.colour_rows.clear();
    c.colour_rows.resize(b, 0);
    let mut next = c.colour_start.clone();
    for (k, &chosen) in c.colour.iter().enumerate() {
        c.colour_rows[next[chosen]] = k;
        next[chosen] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::System;
    use crate::constraint::Distance;
    use crate::integrate::ImplicitEuler;

    /// A landing frictional pile's `A` from coloured solves, against one solve per row as it
    /// was built before: the same matrix to the last bit, and its column index the same rows,
    /// from a tenth of the solves.
    #[test]
    fn coloured_solves_give_the_matrix_of_a_solve_per_row() {
        let (sys, _) = crate::models::frictional_ball_pile(40, 0.02, 0.3, 0.5)
            .unwrap_or_else(|e| panic!("{e}"));
        let (rows, solves) = matrix_both_ways(sys, 30);
        assert!(rows > 250, "{rows} bounded rows: the pile has not landed");
        assert!(10 * solves < rows, "{solves} solves for {rows} rows");
    }

    /// The same with three pairs of balls joined by rods: their held rows join each pair's
    /// components, and the matrix is still the one of a solve per row.
    #[test]
    fn rows_on_bodies_joined_by_a_rod_share_their_solves_with_neither() {
        let (mut sys, balls) = crate::models::frictional_ball_pile(40, 0.02, 0.3, 0.5)
            .unwrap_or_else(|e| panic!("{e}"));
        for pair in balls.chunks_exact(2).take(3) {
            let (a, b) = (sys.position(pair[0]), sys.position(pair[1]));
            let length = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
            sys.add_constraint(Distance::new(pair[0], pair[1], length))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let (rows, solves) = matrix_both_ways(sys, 9);
        assert!(rows > 250, "{rows} bounded rows: the pile has not landed");
        assert!(5 * solves < rows, "{solves} solves for {rows} rows");
    }

    /// Lands `sys` for `steps` steps of implicit Euler at 1/60 s, then builds its bounded
    /// rows' `A` by [`build`] and column by column with a solve each, and asserts the two equal
    /// entry by entry (and the column index the nonzero rows); returns the rows and the solves
    /// `build` took.
    fn matrix_both_ways(mut sys: System, steps: usize) -> (usize, usize) {
        sys.set_integrator(ImplicitEuler::default());
        for _ in 0..steps {
            sys.step(1.0 / 60.0).unwrap_or_else(|e| panic!("{e}"));
        }
        let h2 = (1.0_f64 / 60.0).powi(2);
        sys.with_stage(|model, state| {
            model
                .assemble(state.t, &state.q, &state.v)
                .unwrap_or_else(|e| panic!("{e}"));
            let (m, n) = (model.values().len(), state.q.len());
            let mut p = ContactProblem::default();
            let zero = vec![0.0; m];
            {
                let bounds = crate::integrate::implicit::row_bounds(model, h2);
                p.rows.extend((0..m).filter(|&r| {
                    let (lo, hi) = bounds.get(r, &zero);
                    lo > f64::NEG_INFINITY || hi < f64::INFINITY
                }));
            }
            let roles: Vec<Role> = (0..m)
                .map(|r| {
                    if p.rows.contains(&r) {
                        Role::Fixed(0.0)
                    } else {
                        Role::Held
                    }
                })
                .collect();
            let (mut dq, mut dmu) = (vec![0.0; n], vec![0.0; m]);
            let system = NewtonSystem {
                h2,
                proximal: 0.0,
                lambda: &zero,
                roles: &roles,
                momentum: &vec![0.0; n],
                rows: &zero,
            };
            model
                .newton_step(Factorization::Fresh, system, &mut dq, &mut dmu)
                .unwrap_or_else(|e| panic!("{e}"));
            p.dq.resize(n, 0.0);
            p.dmu.resize(m, 0.0);
            let solves = build(model, &roles, h2, &mut p, &mut Colouring::default())
                .unwrap_or_else(|e| panic!("{e}"));
            let b = p.rows.len();
            let (mut unit, mut force, mut j_dq) = (vec![0.0; m], vec![0.0; n], vec![0.0; m]);
            for k in 0..b {
                unit[p.rows[k]] = 1.0;
                model.jacobian().mul_transpose(&unit, &mut force);
                unit[p.rows[k]] = 0.0;
                force.iter_mut().for_each(|f| *f = -*f);
                let system = NewtonSystem {
                    momentum: &force,
                    rows: &unit,
                    ..system
                };
                model
                    .newton_step(Factorization::Reuse, system, &mut dq, &mut dmu)
                    .unwrap_or_else(|e| panic!("{e}"));
                model.jacobian().mul(&dq, &mut j_dq);
                let indexed = &p.column_rows[p.column_start[k]..p.column_start[k + 1]];
                let nonzero: Vec<usize> = (0..b)
                    .filter(|&j| j == k || j_dq[p.rows[j]] != 0.0)
                    .collect();
                assert_eq!(indexed, nonzero.as_slice(), "column {k}'s rows");
                for (j, &r) in p.rows.iter().enumerate() {
                    assert_eq!(p.entry(j, k), j_dq[r], "A[{j}, {k}]");
                }
            }
            (b, solves)
        })
    }
}
