#!/usr/bin/env python3
"""Contact-rich 2D scenes, a ball pile and box pyramids, run in pymunk and Box2D.

This script measures pymunk and Box2D on this machine, on the scenes that
``bead bench pile`` and ``bead bench pyramid`` run and on Box2D v3's benchmark
pyramid, so that bead's claims about contact can be checked against the
engines a user would pick instead.
It prints CSV to stdout, one line per size (``--header`` adds the header)::

    engine,scene,n,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,energy_drift,status

The scenes
----------
All are two-dimensional, in the x-y plane, with gravity (0, -9.81) m/s^2,
restitution 0, Coulomb friction MU at every contact (``--friction``), and
every body awake for the whole run (no sleeping).

* ``pile`` (N = ``--n`` balls): balls of radius r = 0.02 m and mass 0.01 kg,
  each with the moment of inertia of a solid disc, m r^2 / 2, in a box of
  width W = 0.6 m if N <= 1000, else W = 0.6 sqrt(N / 500) rounded to 0.01 m
  (printed on stderr). The box is a floor y = 0 and walls x = 0 and x = W,
  all infinitely tall: static segments of radius 0 (pymunk) or static edge
  shapes (Box2D), the floor from x = -1 to W + 1 and the walls from y = -1 to
  y = 1000 m. Ball k = 0..N-1 starts at::

      per_row = floor(W / (2.5 r))     (in floating point, as bead does:
                                        0.6 / 0.05 is 11.999..., so 11)
      i, j = k mod per_row, k div per_row
      x = 1.25 r + 2.5 r i + (0.6 r if j is odd else 0), then min(x, W - r)
      y = 1.5 r + 2.5 r j

  with velocity (0.2 sin(1.7 k), 0) and no rotation.
* ``pyramid`` (N = ``--n`` rows R): square boxes 0.5 m x 0.5 m of 25 kg
  (density 100 kg/m^2) on a static floor whose top is y = 0 (a segment / edge
  from x = -50 m to 50 m). Row rho = 0..R-1 from the bottom holds R - rho
  boxes; box k of it starts at x = (k - (R - rho - 1) / 2) * 0.5 * 1.05,
  y = 0.25 + 0.5 rho, at rest and unrotated, so neighbours in a row are
  2.5 cm apart and each box stands on the two below it.
* ``large-pyramid`` (N = ``--n`` rows R): Box2D v3's benchmark ``large_pyramid``
  (``CreateLargePyramid`` in its shared/benchmarks.c, where R = 100: 5050
  boxes). Square boxes 1 m x 1 m of 1 kg (density 1 kg/m^2, Box2D v3's
  default) on a static floor whose top is y = 0 (a segment / edge from
  x = -100 m to 100 m, the top face of v3's ground box of 200 m x 2 m; from
  -R to R m if R > 100). Row i = 0..R-1 from the bottom holds R - i boxes;
  box j = i..R-1 of it starts at x = 0.5 (i + 1) + (j - i) - 0.5 R,
  y = 0.5 (2 i + 1), at rest and unrotated: neighbours in a row touch, and
  each box stands across the two below it, half on each. Unlike v3's
  benchmark, gravity is this script's 9.81 m/s^2, not 10.
* ``many-pyramids`` (N = ``--n``): Box2D v3's benchmark ``many_pyramids``
  (``CreateManyPyramids``, where N = 20: 400 pyramids, 22,000 boxes). N floors,
  static segments at y = 11 i (i = 0..N-1) from x = -11 N to 11 N m; on each
  floor N small pyramids of 10 rows (55 boxes) of the large pyramid's boxes
  (1 m, 1 kg), pyramid j's base centred near x = -5.5 N + 11 j + 0.5: box
  l = k..9 of row k starts at x = 0.5 (k + 1) + (l - k) - 5.5 N + 11 j,
  y = 11 i + 0.5 (2 k + 1), touching as in ``large-pyramid``. Penetration and
  divergence count each box against its own floor.
* ``tumbler`` (N = ``--n``): Box2D v3's benchmark ``tumbler`` (``CreateTumbler``,
  where N = 45: 2025 boxes). A dynamic container at (0, 10) m of four walls,
  boxes of density 50 kg/m^2: half extents 0.5 x 10 m centred at (+-10, 0) and
  10 x 0.5 m centred at (0, +-10) in its frame, hinged to the world at its
  centre and driven by a motor at 25 degrees/s (counterclockwise) with a torque
  limit of 1e8 N m. Inside, an N x N grid of square boxes 0.25 m of 0.0625 kg
  (density 1): box (i, j) starts at x = -0.2 N + 0.4 j, y = -0.2 N + 10 + 0.4 i,
  at rest. Penetration counts box-box and box-wall overlaps (separating axes of
  the oriented boxes); a box whose centre leaves the container's inside
  (|x|, |y| > 10 m in its frame) diverges. ``creep`` and ``energy_drift`` are
  left empty: the boxes tumble, and the motor drives the container.

How each engine builds them
---------------------------
* pymunk (7.x): one ``pymunk.Body(m, I)`` per ball / box with a
  ``pymunk.Circle`` (moment ``moment_for_circle(m, 0, r)``) or
  ``pymunk.Poly.create_box(body, (s, s))`` (moment ``moment_for_box``, s the
  box's side);
  walls are ``pymunk.Segment`` shapes of radius 0 on the space's static body.
  pymunk (Chipmunk) combines the friction of two shapes by multiplying them
  (checked in 7.3: two shapes of 0.7 give an arbiter friction of 0.49), so
  every shape, walls included, gets sqrt(MU). Elasticity 0.
  ``space.iterations = 10`` (pymunk's default), ``space.collision_slop =
  0.0005`` m (the default of 0.1 is meant for pixels; in metres it would let
  balls of 2 cm sink 5 times their radius, so a user working in metres lowers
  it), ``collision_bias`` and everything else at their defaults
  (``sleep_time_threshold`` is infinite by default: no sleeping; the space is
  not threaded). Each step is ``space.step(dt)``.
* Box2D (PyPI ``box2d``, 2.3.x, module ``Box2D``; single precision):
  ``b2World(gravity=(0, -9.81), doSleep=False)``, dynamic bodies with
  ``allowSleep=False``, circle fixtures of radius r / polygon fixtures
  ``b2PolygonShape(box=(s / 2, s / 2))`` with the density that gives the mass
  (Box2D computes a centred circle's inertia as m r^2 / 2), friction MU on
  every fixture (Box2D combines two by sqrt(mu_a mu_b)), restitution 0; the
  walls and floor are edge fixtures on one static body. Each step is
  ``world.Step(dt, 8, 3)`` (the testbed's velocity and position iterations),
  warm starting and continuous collision at their defaults (on). Box2D's
  tolerances are fixed at compile time for objects of 0.1 to 10 m: contacts
  settle 5 mm deep (``b2_linearSlop``) and polygons and edges carry a 1 cm
  skin (``b2_polygonRadius``), so boxes rest about 1.5 cm apart and balls
  about 5 mm above the floor; this is what a user gets, and it shows in the
  columns below.

What is measured
----------------
The run is round(T / dt) steps of dt (T = ``--seconds``).

* ``s_per_step``: wall-clock seconds per step (``time.perf_counter`` around
  the step calls only; building and measuring are not timed);
  ``cpu_s_per_sim_s``: CPU seconds of the process (``time.process_time``
  around the step calls only) per simulated second. Each is the best of
  ``--repeats`` runs (3), the scene rebuilt for each run; the first run also
  measures, the others only step.
* ``max_penetration``: the deepest overlap of any contact at the end of any
  step, in metres, measured from the bodies' positions and angles by this
  script, not taken from the engine: ball-ball max(0, 2r - distance) over the
  pairs found by a uniform-grid search; ball-wall max(0, r - distance to the
  wall); box-box the separating-axis overlap depth of the two oriented boxes
  (the smallest overlap of their projections on the four face normals);
  box-floor the depth of the lowest corner below y = 0.
* ``creep``: pile, the largest displacement of any ball between t_end - 1 s
  and t_end; pyramids, the largest distance of any box from where it started,
  over the whole run (the maximum over all steps). Metres.
* ``energy_drift``: (E(t_end) - E(t_end - 1 s)) / |E(t_end - 1 s)|, E the
  sum of 1/2 m |v|^2 + 1/2 I w^2 + m g y (y of the centre, from the floor),
  with the scene's nominal masses and moments. If T <= 1 s, over the whole run.
* ``status``: ``ok``; ``diverged at step s`` if a coordinate became NaN, a
  body's centre went below the floor by more than its radius / half-size
  (y < -r, y < -s / 2), or it left the box (pile: x < -r, x > W + r or
  y > 1000 m; pyramids: off the floor's ends, |x| > 50 m or 100 m, or
  y > 1000 m). The run stops there;
  timing and penetration cover the steps before and ``creep`` and
  ``energy_drift`` are left empty. ``stopped at step s (time limit)`` if the
  first run took longer than ``--time-limit`` seconds (then likewise, and the
  run is not repeated). ``not installed`` if the engine cannot be imported.

Use
---
    python3 piles.py --engine pymunk --scene pile --n 500 --dt 1/240 --seconds 5 --friction 0 --header

``--dt`` takes a number or a fraction such as 1/240. The engine's name goes to
stderr as a ``# engine version (iterations)`` line, and after each row a few
notes: the pile's width, which body left the box when a run diverged, the
deepest overlap over the last second (the resting overlap, where
``max_penetration`` is usually set by the landing), and for Box2D how many
contact pairs its broad phase holds. stdout stays clean CSV.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from chain_swing import sizes_argument

G = 9.81  # m/s^2
HEADER = "engine,scene,n,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,energy_drift,status"
ENGINES = ("pymunk", "box2d")
SCENES = ("pile", "pyramid", "large-pyramid", "many-pyramids", "tumbler")

# pile
RADIUS = 0.02  # m
BALL_MASS = 0.01  # kg
WALL_TOP = 1000.0  # m, how far up the walls reach
# pyramid
SIDE = 0.5  # m
BOX_MASS = 25.0  # kg (100 kg/m^2)
FLOOR_HALF = 50.0  # m, the floor reaches from -50 m to 50 m
# large-pyramid, as Box2D v3's benchmark
LARGE_SIDE = 1.0  # m
LARGE_BOX_MASS = 1.0  # kg (1 kg/m^2)
LARGE_FLOOR_HALF = 100.0  # m
# many-pyramids, as Box2D v3's benchmark
SMALL_PYRAMID_ROWS = 10
# tumbler, as Box2D v3's benchmark
TUMBLER_CENTRE = (0.0, 10.0)  # m, the container's centre and hinge
TUMBLER_WALLS = ((0.5, 10.0, 10.0, 0.0), (0.5, 10.0, -10.0, 0.0), (10.0, 0.5, 0.0, 10.0), (10.0, 0.5, 0.0, -10.0))  # (hx, hy, cx, cy) in its frame
TUMBLER_DENSITY = 50.0  # kg/m^2
TUMBLER_SPEED = math.radians(25.0)  # rad/s
TUMBLER_TORQUE = 1e8  # N m
TUMBLER_BOX = 0.125  # m, the small boxes' half side
TUMBLER_BOX_MASS = 0.0625  # kg (1 kg/m^2)
# engines
PYMUNK_ITERATIONS = 10
PYMUNK_SLOP = 0.0005  # m
BOX2D_VELOCITY_ITERATIONS = 8
BOX2D_POSITION_ITERATIONS = 3


@dataclass
class Scene:
    """A scene as every engine builds it: initial state and the bodies' constants."""

    kind: str  # "pile", "pyramid", "large-pyramid" or "many-pyramids"
    n: int  # balls, or rows
    pos: np.ndarray  # (m, 2) initial centres
    vel: np.ndarray  # (m, 2) initial velocities
    mass: float  # of each body
    inertia: float  # of each body, about its centre
    size: float  # the ball's radius, or the box's half side
    width: float = 0.0  # the pile's box
    floor_half: float = FLOOR_HALF  # the pyramids' floor reaches from -floor_half to floor_half
    floors: tuple[float, ...] = (0.0,)  # the pyramids' floors' heights
    floor_of: np.ndarray | None = None  # each body's floor height (None: 0 for all)

    def floor_y(self) -> np.ndarray:
        return np.zeros(len(self.pos)) if self.floor_of is None else self.floor_of


def pile_width(n: int) -> float:
    """The pile's box width: 0.6 m up to 1000 balls, else 0.6 sqrt(n/500) to the centimetre.

    Halves round up, as Rust's f64::round does for bead (Python's round() would go to even).
    """
    return 0.6 if n <= 1000 else math.floor(0.6 * math.sqrt(n / 500.0) * 100.0 + 0.5) / 100.0


def pile(n: int, r: float = RADIUS) -> Scene:
    width = pile_width(n)
    per_row = max(1, math.floor(width / (2.5 * r)))
    pos = np.empty((n, 2))
    vel = np.zeros((n, 2))
    for k in range(n):
        i, j = k % per_row, k // per_row
        x = r * 1.25 + 2.5 * r * i + (0.6 * r if j % 2 == 1 else 0.0)
        pos[k] = (min(x, width - r), r * 1.5 + 2.5 * r * j)
        vel[k, 0] = 0.2 * math.sin(k * 1.7)
    return Scene("pile", n, pos, vel, BALL_MASS, 0.5 * BALL_MASS * r * r, r, width)


def pyramid(rows: int) -> Scene:
    centres = []
    for rho in range(rows):
        count = rows - rho
        for k in range(count):
            centres.append(((k - (count - 1) / 2.0) * SIDE * 1.05, SIDE / 2.0 + rho * SIDE))
    pos = np.array(centres, dtype=float).reshape(-1, 2)
    inertia = BOX_MASS * (SIDE * SIDE + SIDE * SIDE) / 12.0
    return Scene("pyramid", rows, pos, np.zeros_like(pos), BOX_MASS, inertia, SIDE / 2.0)


def large_pyramid(rows: int) -> Scene:
    a = LARGE_SIDE / 2.0
    centres = []
    for i in range(rows):
        y = (2.0 * i + 1.0) * a
        for j in range(i, rows):
            # Box2D v3's expression term for term: its x are exact in f32 and f64 alike.
            centres.append(((i + 1.0) * a + 2.0 * (j - i) * a - a * rows, y))
    pos = np.array(centres, dtype=float).reshape(-1, 2)
    inertia = LARGE_BOX_MASS * (LARGE_SIDE * LARGE_SIDE + LARGE_SIDE * LARGE_SIDE) / 12.0
    # v3's ground is 200 m whatever the rows; past 100 rows this one grows to twice the base.
    floor_half = max(LARGE_FLOOR_HALF, float(rows))
    vel = np.zeros_like(pos)
    return Scene("large-pyramid", rows, pos, vel, LARGE_BOX_MASS, inertia, a, floor_half=floor_half)


def many_pyramids(count: int) -> Scene:
    a = LARGE_SIDE / 2.0
    b = SMALL_PYRAMID_ROWS
    level = 2.0 * a * (b + 1.0)  # 11 m between floors
    ground_width = 2.0 * a * count * (b + 1.0)
    centres, floor_of = [], []
    for i in range(count):
        base_y = i * level
        for j in range(count):
            # Box2D v3's expressions term for term.
            center_x = -0.5 * ground_width + j * (2.0 * a * b + 2.0 * a) + a
            for k in range(b):
                y = (2.0 * k + 1.0) * a + base_y
                for m in range(k, b):
                    centres.append(((k + 1.0) * a + 2.0 * (m - k) * a + center_x - 0.5, y))
                    floor_of.append(base_y)
    pos = np.array(centres, dtype=float).reshape(-1, 2)
    inertia = LARGE_BOX_MASS * (LARGE_SIDE * LARGE_SIDE + LARGE_SIDE * LARGE_SIDE) / 12.0
    return Scene(
        "many-pyramids",
        count,
        pos,
        np.zeros_like(pos),
        LARGE_BOX_MASS,
        inertia,
        a,
        floor_half=ground_width,
        floors=tuple(i * level for i in range(count)),
        floor_of=np.array(floor_of, dtype=float),
    )


def tumbler(count: int) -> Scene:
    centres = []
    y = -0.2 * count + 10.0
    for _ in range(count):
        x = -0.2 * count
        for _ in range(count):
            centres.append((x, y))
            x += 0.4
        y += 0.4
    pos = np.array(centres, dtype=float).reshape(-1, 2)
    side = 2.0 * TUMBLER_BOX
    inertia = TUMBLER_BOX_MASS * (side * side + side * side) / 12.0
    return Scene("tumbler", count, pos, np.zeros_like(pos), TUMBLER_BOX_MASS, inertia, TUMBLER_BOX)


def build_scene(kind: str, n: int) -> Scene:
    if kind == "pile":
        return pile(n)
    if kind == "tumbler":
        return tumbler(n)
    if kind == "many-pyramids":
        return many_pyramids(n)
    return pyramid(n) if kind == "pyramid" else large_pyramid(n)


# --- measuring ------------------------------------------------------------------------------


def neighbour_pairs(pos: np.ndarray, cutoff: float) -> tuple[np.ndarray, np.ndarray]:
    """All pairs of points closer than `cutoff`, each once, by a uniform grid of cell `cutoff`.

    Only the occupied cells are stored (sorted by cell key), so a stray body far away costs
    nothing. Each cell is paired with itself and four of its neighbours (right, up, up-right,
    down-right), so that every pair of neighbouring cells is visited once.
    """
    n = len(pos)
    if n < 2:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    cell = np.floor((pos - pos.min(axis=0)) / cutoff).astype(np.int64)
    ny = int(cell[:, 1].max()) + 1
    key = cell[:, 0] * ny + cell[:, 1]
    order = np.argsort(key, kind="stable")
    sorted_keys = key[order]
    first = np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]
    starts = np.flatnonzero(first)
    cell_of = np.cumsum(first) - 1  # occupied-cell index of each sorted point
    rank = np.arange(n) - starts[cell_of]  # its place within its cell
    keys = sorted_keys[starts]  # the occupied cells' keys, increasing
    depth = int(rank.max()) + 1
    table = np.full((len(keys), depth), -1, dtype=np.int64)
    table[cell_of, rank] = order
    cx, cy = keys // ny, keys % ny
    out_i, out_j = [], []
    for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1), (1, -1)):
        if (dx, dy) == (0, 0):
            a_cells = np.arange(len(keys))
            b_cells = a_cells
        else:
            ok = (cy + dy >= 0) & (cy + dy < ny)
            target = (cx + dx) * ny + (cy + dy)
            where = np.searchsorted(keys, target)
            where_c = np.minimum(where, len(keys) - 1)
            ok &= keys[where_c] == target
            a_cells = np.flatnonzero(ok)
            b_cells = where_c[ok]
        if len(a_cells) == 0:
            continue
        a = table[a_cells][:, :, None]  # (m, depth, 1)
        b = table[b_cells][:, None, :]  # (m, 1, depth)
        mask = (a >= 0) & (b >= 0)
        if (dx, dy) == (0, 0):
            mask &= np.triu(np.ones((depth, depth), dtype=bool), 1)[None]
        aa, bb = np.broadcast_arrays(a, b)
        out_i.append(aa[mask])
        out_j.append(bb[mask])
    i = np.concatenate(out_i) if out_i else np.empty(0, dtype=np.int64)
    j = np.concatenate(out_j) if out_j else np.empty(0, dtype=np.int64)
    d = pos[i] - pos[j]
    close = np.einsum("ij,ij->i", d, d) < cutoff * cutoff
    return i[close], j[close]


def pile_penetration(pos: np.ndarray, r: float, width: float) -> float:
    """The deepest ball-ball or ball-wall overlap, metres."""
    x, y = pos[:, 0], pos[:, 1]
    worst = max(0.0, float(np.max(np.maximum(np.maximum(r - y, r - x), r - (width - x)))))
    i, j = neighbour_pairs(pos, 2.0 * r)
    if len(i):
        d = np.hypot(*(pos[i] - pos[j]).T)
        worst = max(worst, float(np.max(2.0 * r - d)))
    return worst


def pyramid_penetration(pos: np.ndarray, angle: np.ndarray, h: float, floor_y: np.ndarray) -> float:
    """The deepest box-box (separating-axis depth) or box-floor (lowest corner) overlap, metres."""
    c, s = np.abs(np.cos(angle)), np.abs(np.sin(angle))
    # The lowest corner below the box's floor.
    worst = max(0.0, float(np.max(h * (c + s) - (pos[:, 1] - floor_y))))
    return max(worst, box_box_penetration(pos, angle, h))


def box_box_penetration(pos: np.ndarray, angle: np.ndarray, h: float) -> float:
    """The deepest overlap of two of the square boxes of half side h (separating axes), metres."""
    i, j = neighbour_pairs(pos, 2.0 * math.sqrt(2.0) * h)
    if len(i) == 0:
        return 0.0
    half = np.full((len(pos), 2), h)
    return float(np.max(obb_depth(pos[i], angle[i], half[i], pos[j], angle[j], half[j])))


def obb_depth(
    ci: np.ndarray, ai: np.ndarray, hi: np.ndarray, cj: np.ndarray, aj: np.ndarray, hj: np.ndarray
) -> np.ndarray:
    """The separating-axis overlap depth of oriented boxes i and j (centres (m, 2), angles (m,),
    half extents (m, 2)): the smallest overlap of their projections on the four face normals,
    negative where they are apart."""

    def axes(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.stack([np.cos(a), np.sin(a)], -1), np.stack([-np.sin(a), np.cos(a)], -1)

    def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", a, b)

    ui, uj = axes(ai), axes(aj)
    d = cj - ci
    depth = np.full(len(ci), np.inf)
    for u in ui + uj:
        extent_i = hi[:, 0] * np.abs(dot(u, ui[0])) + hi[:, 1] * np.abs(dot(u, ui[1]))
        extent_j = hj[:, 0] * np.abs(dot(u, uj[0])) + hj[:, 1] * np.abs(dot(u, uj[1]))
        depth = np.minimum(depth, extent_i + extent_j - np.abs(dot(u, d)))
    return depth


def tumbler_walls(centre: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The container's walls in the world: centres (4, 2) and half extents (4, 2)."""
    c, s = math.cos(angle), math.sin(angle)
    centres = np.array([(centre[0] + c * x - s * y, centre[1] + s * x + c * y) for _, _, x, y in TUMBLER_WALLS])
    return centres, np.array([(hx, hy) for hx, hy, _, _ in TUMBLER_WALLS])


def tumbler_penetration(pos: np.ndarray, angle: np.ndarray, h: float, container: tuple[np.ndarray, float]) -> float:
    """The deepest box-box or box-wall overlap, metres."""
    worst = box_box_penetration(pos, angle, h)
    m = len(pos)
    half = np.full((m, 2), h)
    centres, extents = tumbler_walls(*container)
    for c, e in zip(centres, extents):
        depth = obb_depth(
            pos, angle, half, np.broadcast_to(c, (m, 2)), np.full(m, container[1]), np.broadcast_to(e, (m, 2))
        )
        worst = max(worst, float(np.max(depth)))
    return max(worst, 0.0)


def outside_tumbler(pos: np.ndarray, container: tuple[np.ndarray, float]) -> np.ndarray:
    """Whether each box's centre has left the container's inside (its frame's |x|, |y| > 10 m)."""
    centre, angle = container
    d = pos - centre
    c, s = math.cos(angle), math.sin(angle)
    x, y = c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]
    return ~np.isfinite(pos).all(axis=1) | (np.abs(x) > 10.0) | (np.abs(y) > 10.0)


def energy(scene: Scene, pos: np.ndarray, vel: np.ndarray, omega: np.ndarray) -> float:
    """Kinetic (translation and rotation) plus gravitational potential m g y, joules."""
    kinetic = 0.5 * scene.mass * float(np.sum(vel * vel))
    kinetic += 0.5 * scene.inertia * float(np.sum(omega * omega))
    return kinetic + scene.mass * G * float(np.sum(pos[:, 1]))


def diverged(scene: Scene, pos: np.ndarray) -> bool:
    if not np.isfinite(pos).all():
        return True
    x, y = pos[:, 0], pos[:, 1]
    h = scene.size
    if (y - scene.floor_y() < -h).any() or (y > WALL_TOP).any():
        return True
    if scene.kind == "pile":
        return bool((x < -h).any() or (x > scene.width + h).any())
    return bool((np.abs(x) > scene.floor_half).any())


# --- the engines ----------------------------------------------------------------------------


@dataclass
class Sim:
    """A built scene in one engine: how to step it and how to read its bodies."""

    step: Callable[[], None]
    pose: Callable[[], tuple[np.ndarray, np.ndarray]]  # centres (m, 2), angles (m,)
    motion: Callable[[], tuple[np.ndarray, np.ndarray]]  # velocities (m, 2), angular (m,)
    note: Callable[[], str] | None = None  # something worth saying on stderr after the run
    container: Callable[[], tuple[np.ndarray, float]] | None = None  # the tumbler's centre, angle


def pymunk_label() -> str:
    import pymunk

    return f"pymunk {pymunk.version} ({PYMUNK_ITERATIONS} iterations)"


def pose(bodies) -> tuple[np.ndarray, np.ndarray]:
    """Positions and angles of pymunk or Box2D bodies (both name them `position`, `angle`)."""
    return (
        np.array([tuple(b.position) for b in bodies], dtype=float),
        np.array([b.angle for b in bodies], dtype=float),
    )


def container_pose(body) -> Callable[[], tuple[np.ndarray, float]] | None:
    """The tumbler's container's centre and angle, of a pymunk or Box2D body (None: no tumbler)."""
    if body is None:
        return None
    return lambda: (np.array(tuple(body.position), dtype=float), float(body.angle))


def build_pymunk(scene: Scene, dt: float, mu: float) -> Sim:
    import pymunk

    space = pymunk.Space()
    space.gravity = (0.0, -G)
    space.iterations = PYMUNK_ITERATIONS
    space.collision_slop = PYMUNK_SLOP
    shape_friction = math.sqrt(mu)  # pymunk multiplies the two shapes' frictions

    def static_segment(a, b):
        seg = pymunk.Segment(space.static_body, a, b, 0.0)
        seg.friction = shape_friction
        seg.elasticity = 0.0
        space.add(seg)

    drum = None
    if scene.kind == "pile":
        w = scene.width
        static_segment((-1.0, 0.0), (w + 1.0, 0.0))
        static_segment((0.0, -1.0), (0.0, WALL_TOP))
        static_segment((w, -1.0), (w, WALL_TOP))
    elif scene.kind == "tumbler":
        # Mass and moment from the walls' density; a pivot at the centre and a motor. pymunk's
        # SimpleMotor holds w_a - w_b = rate, a the first body: the static body first, so
        # -rate turns the container counterclockwise.
        drum = pymunk.Body()
        drum.position = TUMBLER_CENTRE
        space.add(drum)
        for hx, hy, cx, cy in TUMBLER_WALLS:
            corners = [(cx - hx, cy - hy), (cx + hx, cy - hy), (cx + hx, cy + hy), (cx - hx, cy + hy)]
            wall = pymunk.Poly(drum, corners)
            wall.density = TUMBLER_DENSITY
            wall.friction = shape_friction
            wall.elasticity = 0.0
            space.add(wall)
        space.add(pymunk.PivotJoint(space.static_body, drum, TUMBLER_CENTRE))
        motor = pymunk.SimpleMotor(space.static_body, drum, -TUMBLER_SPEED)
        motor.max_force = TUMBLER_TORQUE
        space.add(motor)
    else:
        for y in scene.floors:
            static_segment((-scene.floor_half, y), (scene.floor_half, y))

    bodies = []
    side = 2.0 * scene.size
    for (x, y), (vx, vy) in zip(scene.pos, scene.vel):
        if scene.kind == "pile":
            body = pymunk.Body(scene.mass, pymunk.moment_for_circle(scene.mass, 0.0, scene.size))
            shape = pymunk.Circle(body, scene.size)
        else:
            body = pymunk.Body(scene.mass, pymunk.moment_for_box(scene.mass, (side, side)))
            shape = pymunk.Poly.create_box(body, (side, side))
        body.position = (float(x), float(y))
        body.velocity = (float(vx), float(vy))
        shape.friction = shape_friction
        shape.elasticity = 0.0
        space.add(body, shape)
        bodies.append(body)

    def motion():
        return (
            np.array([tuple(b.velocity) for b in bodies], dtype=float),
            np.array([b.angular_velocity for b in bodies], dtype=float),
        )

    return Sim(lambda: space.step(dt), lambda: pose(bodies), motion, None, container_pose(drum))


def box2d_label() -> str:
    import Box2D

    return f"box2d {Box2D.__version__} ({BOX2D_VELOCITY_ITERATIONS}+{BOX2D_POSITION_ITERATIONS} iterations)"


def build_box2d(scene: Scene, dt: float, mu: float) -> Sim:
    import Box2D

    world = Box2D.b2World(gravity=(0.0, -G), doSleep=False)
    ground = world.CreateStaticBody(position=(0.0, 0.0))

    def static_edge(a, b):
        ground.CreateEdgeFixture(vertices=[a, b], friction=mu, restitution=0.0)

    drum = None
    if scene.kind == "pile":
        w = scene.width
        static_edge((-1.0, 0.0), (w + 1.0, 0.0))
        static_edge((0.0, -1.0), (0.0, WALL_TOP))
        static_edge((w, -1.0), (w, WALL_TOP))
    elif scene.kind == "tumbler":
        drum = world.CreateDynamicBody(position=TUMBLER_CENTRE, allowSleep=False, awake=True)
        for hx, hy, cx, cy in TUMBLER_WALLS:
            drum.CreateFixture(
                shape=Box2D.b2PolygonShape(box=(hx, hy, (cx, cy), 0.0)),
                density=TUMBLER_DENSITY,
                friction=mu,
                restitution=0.0,
            )
        world.CreateRevoluteJoint(
            bodyA=ground,
            bodyB=drum,
            anchor=TUMBLER_CENTRE,
            enableMotor=True,
            motorSpeed=TUMBLER_SPEED,
            maxMotorTorque=TUMBLER_TORQUE,
        )
    else:
        for y in scene.floors:
            static_edge((-scene.floor_half, y), (scene.floor_half, y))

    bodies = []
    for (x, y), (vx, vy) in zip(scene.pos, scene.vel):
        body = world.CreateDynamicBody(
            position=(float(x), float(y)),
            linearVelocity=(float(vx), float(vy)),
            angle=0.0,
            allowSleep=False,
            awake=True,
        )
        if scene.kind == "pile":
            density = scene.mass / (math.pi * scene.size**2)
            body.CreateCircleFixture(radius=scene.size, density=density, friction=mu, restitution=0.0)
        else:
            body.CreateFixture(
                shape=Box2D.b2PolygonShape(box=(scene.size, scene.size)),
                density=scene.mass / (4.0 * scene.size * scene.size),
                friction=mu,
                restitution=0.0,
            )
        bodies.append(body)


    def motion():
        return (
            np.array([tuple(b.linearVelocity) for b in bodies], dtype=float),
            np.array([b.angularVelocity for b in bodies], dtype=float),
        )

    def note():
        # Box2D pairs fixtures whose fattened AABBs overlap (b2_aabbExtension = 0.1 m, plus
        # twice the step's displacement): for 2 cm balls that is far more pairs than touch.
        pairs = world.contactCount
        if pairs > 100_000:  # too many to walk through from Python
            return f"box2d: {pairs} contact pairs in the broad phase at the end"
        touching = sum(1 for c in world.contacts if c.touching)
        return f"box2d: {pairs} contact pairs in the broad phase at the end, {touching} touching"

    return Sim(
        lambda: world.Step(dt, BOX2D_VELOCITY_ITERATIONS, BOX2D_POSITION_ITERATIONS),
        lambda: pose(bodies),
        motion,
        note,
        container_pose(drum),
    )


BUILDERS = {"pymunk": build_pymunk, "box2d": build_box2d}
LABELS = {"pymunk": pymunk_label, "box2d": box2d_label}


def label(engine: str) -> str | None:
    """The engine's name, version and iteration settings, or None if it cannot be imported."""
    try:
        return LABELS[engine]()
    except ImportError:
        return None


# --- running --------------------------------------------------------------------------------


@dataclass
class Result:
    engine: str
    scene: str
    n: int
    dt: float
    s_per_step: float
    cpu_s_per_sim_s: float
    max_penetration: float
    creep: float
    energy_drift: float
    status: str
    late_penetration: float = math.nan  # the deepest overlap over the last second (stderr only)
    notes: list[str] = field(default_factory=list)  # for stderr

    def csv(self) -> str:
        def num(v: float) -> str:
            return "" if math.isnan(v) else f"{v:.6e}"

        return ",".join(
            [
                self.engine.replace(",", ";"),
                self.scene,
                str(self.n),
                f"{self.dt:.6f}",
                num(self.s_per_step),
                num(self.cpu_s_per_sim_s),
                num(self.max_penetration),
                num(self.creep),
                num(self.energy_drift),
                self.status.replace(",", ";"),
            ]
        )


def measured_run(
    engine: str, scene: Scene, dt: float, steps: int, mu: float, time_limit: float | None = None
) -> tuple[Result, int]:
    """The first run: step, timing the steps alone, and measure after each. Returns the steps timed.

    With `time_limit` (seconds of this run, stepping and measuring), the run stops at the
    first step's end past it, with status ``stopped at step s (time limit)``.
    """
    sim = BUILDERS[engine](scene, dt, mu)
    mark_step = max(0, steps - round(1.0 / dt))  # t_end - 1 s
    start = scene.pos.copy()
    penetration = 0.0
    late_penetration = 0.0  # over the last second: the resting overlap, for the stderr note
    creep = 0.0
    mark_pos = start
    mark_energy = energy(scene, scene.pos, scene.vel, np.zeros(len(scene.pos)))
    drift = math.nan
    wall = cpu = 0.0
    status = "ok"
    notes = []
    began = time.perf_counter()
    ran = 0
    for s in range(1, steps + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        sim.step()
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        ran = s
        pos, angle = sim.pose()
        drum = sim.container() if sim.container is not None else None
        if (drum is not None and bool(outside_tumbler(pos, drum).any())) or (
            drum is None and diverged(scene, pos)
        ):
            status = f"diverged at step {s}"
            bad = np.flatnonzero(~np.isfinite(pos).all(axis=1))
            if len(bad) == 0:
                x, y = pos[:, 0], pos[:, 1]
                low = (y - scene.floor_y() < -scene.size) | (y > WALL_TOP)
                if scene.kind == "pile":
                    side = (x < -scene.size) | (x > scene.width + scene.size)
                else:
                    side = np.abs(x) > scene.floor_half
                bad = np.flatnonzero(outside_tumbler(pos, drum) if drum is not None else low | side)
            k = int(bad[0])
            notes.append(
                f"{len(bad)} {'body' if len(bad) == 1 else 'bodies'} out at step {s}: body {k}"
                f" at ({pos[k, 0]:.4g}; {pos[k, 1]:.4g})"
            )
            break
        if scene.kind == "pile":
            depth = pile_penetration(pos, scene.size, scene.width)
        elif drum is not None:
            depth = tumbler_penetration(pos, angle, scene.size, drum)
        else:
            depth = pyramid_penetration(pos, angle, scene.size, scene.floor_y())
            creep = max(creep, float(np.max(np.hypot(*(pos - start).T))))
        penetration = max(penetration, depth)
        if s > mark_step:
            late_penetration = max(late_penetration, depth)
        if s == mark_step or s == steps:
            e = energy(scene, pos, *sim.motion())
            if s == mark_step:
                mark_pos, mark_energy = pos, e
            else:
                drift = (e - mark_energy) / abs(mark_energy)
                if scene.kind == "pile":
                    creep = float(np.max(np.hypot(*(pos - mark_pos).T)))
        if time_limit is not None and s < steps and time.perf_counter() - began > time_limit:
            status = f"stopped at step {s} (time limit)"
            notes.append(
                f"stopped after {time.perf_counter() - began:.0f} s at t = {s * dt:.3f} s"
                f" of {steps * dt:.3f} s"
            )
            break
    if sim.note is not None:
        notes.append(sim.note())
    ok = status == "ok"
    result = Result(
        "",
        scene.kind,
        scene.n,
        dt,
        wall / ran,
        cpu / (ran * dt),
        penetration,
        # The tumbler's boxes tumble and its motor drives it: no creep or drift to speak of.
        creep if ok and scene.kind != "tumbler" else math.nan,
        drift if scene.kind != "tumbler" else math.nan,
        status,
        late_penetration if ok else math.nan,
        notes,
    )
    return result, ran


def timed_run(engine: str, scene: Scene, dt: float, steps: int, mu: float) -> tuple[float, float]:
    """A later run: rebuild, step `steps` times; (wall s per step, CPU s per simulated s)."""
    sim = BUILDERS[engine](scene, dt, mu)
    step = sim.step
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        step()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return wall / steps, cpu / (steps * dt)


def run(
    engine: str,
    scene_kind: str,
    n: int,
    dt: float,
    seconds: float,
    mu: float,
    repeats: int = 3,
    time_limit: float | None = None,
) -> Result:
    """Run one scene in one engine: the best timing of `repeats` runs, the first run's accuracy.

    A first run stopped by `time_limit` is not repeated.
    """
    scene = build_scene(scene_kind, n)
    steps = max(1, round(seconds / dt))
    result, ran = measured_run(engine, scene, dt, steps, mu, time_limit)
    if not result.status.startswith("stopped"):
        for _ in range(repeats - 1):
            wall, cpu = timed_run(engine, scene, dt, ran, mu)
            result.s_per_step = min(result.s_per_step, wall)
            result.cpu_s_per_sim_s = min(result.cpu_s_per_sim_s, cpu)
    result.engine = LABELS[engine]()
    return result


# --- command line ---------------------------------------------------------------------------


def _positive(text: str) -> float:
    try:
        value = float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"expected a number such as 0.004 or 1/240, got {text!r}")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _friction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"friction must be 0 or more, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=ENGINES, required=True)
    parser.add_argument("--scene", choices=SCENES, required=True)
    parser.add_argument(
        "--n",
        type=sizes_argument,
        required=True,
        help="balls of the pile, rows of a pyramid, or floors (and pyramids a floor) of many-pyramids, e.g. 500 or 50,500",
    )
    parser.add_argument(
        "--dt", type=_positive, default=1.0 / 60.0, help="time step, s (a number or a fraction: 1/240)"
    )
    parser.add_argument("--seconds", type=_positive, default=5.0, help="simulated seconds per run")
    parser.add_argument(
        "--friction", type=_friction, default=0.0, help="Coulomb coefficient of every contact"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per size; the best time counts")
    parser.add_argument(
        "--time-limit",
        type=_positive,
        default=None,
        metavar="SECONDS",
        help="stop a run after this many seconds (status 'stopped at step s (time limit)'; "
        "not repeated)",
    )
    parser.add_argument("--header", action="store_true", help="print the CSV header line first")
    args = parser.parse_args(argv)

    if args.header:
        print(HEADER, flush=True)
    name = label(args.engine)
    if name is None:
        print(f"# {args.engine} not installed", file=sys.stderr)
        for n in args.n:
            print(f"{args.engine},{args.scene},{n},{args.dt:.6f},,,,,,not installed", flush=True)
        return 0
    print(f"# {name}", file=sys.stderr, flush=True)
    for n in args.n:
        if args.scene == "pile":
            print(f"# pile of {n} balls: box width W = {pile_width(n):.2f} m", file=sys.stderr)
        elif args.scene == "tumbler":
            print(f"# tumbler: {n * n} boxes in a container turning at 25 degrees/s", file=sys.stderr)
        elif args.scene == "many-pyramids":
            boxes = n * n * SMALL_PYRAMID_ROWS * (SMALL_PYRAMID_ROWS + 1) // 2
            print(f"# {args.scene}: {n} floors of {n} pyramids, {boxes} boxes", file=sys.stderr)
        else:
            print(f"# {args.scene} of {n} rows: {n * (n + 1) // 2} boxes", file=sys.stderr)
        sys.stderr.flush()
        started = time.perf_counter()
        result = run(
            args.engine,
            args.scene,
            n,
            args.dt,
            args.seconds,
            args.friction,
            repeats=max(1, args.repeats),
            time_limit=args.time_limit,
        )
        print(result.csv(), flush=True)
        for note in result.notes:
            print(f"# {note}", file=sys.stderr, flush=True)
        late = ""
        if not math.isnan(result.late_penetration):
            late = f"; deepest overlap over the last second {result.late_penetration:.3e} m"
        print(f"# ({time.perf_counter() - started:.1f} s{late})", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
