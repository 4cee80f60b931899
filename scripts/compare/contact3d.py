#!/usr/bin/env python3
"""3D contact, a pinch grip, a box stack and a sphere pile, in MuJoCo, pybullet and bead.

This script measures, on this machine, three scenes of 3D rigid bodies in contact in the engines
users would pick instead of bead, MuJoCo 4.0 and pybullet 3.2.7, and in bead itself through its
command line (``bead run``), so that bead's claims about exact contact with friction can be
checked row by row against them. One engine and one scene per call; it prints one CSV line to
stdout (``--header`` adds the header)::

    engine,scene,n,friction,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,creep_um_per_s,energy_drift,status

The scenes
----------
All are three-dimensional with gravity (0, 0, -9.81) m/s^2, restitution 0, Coulomb friction mu
(``--friction``) at every contact, every body awake throughout (no sleeping), and every body a
uniform solid box or ball with the principal moments of one (m (b^2 + c^2) / 12 for a box of
edges a, b, c; 2/5 m r^2 for a ball). Each runs round(T / dt) steps of dt (``--dt``, a number or
a fraction such as 1/60; T = ``--seconds``).

* ``grip`` (n = 1): bead's scene ``scenes/pinch_grip_3d.toml``, read from the file (its bodies,
  rails, motors, contact friction, gravity, dt and duration; ``--grip-scene`` names another).
  As committed: a box of 0.1 m edge and density 500 kg/m^3 (0.5 kg, a weight of 4.905 N) at
  the origin, unturned and at rest, between two fingers, boxes 0.04 x 0.1 x 0.1 m of 500 kg/m^3
  (0.2 kg) centred at x = -0.073 and 0.073 m, 3 mm from its sides. Each finger slides on a rail
  along x from the fixed palm (a prismatic joint: it moves only along x and does not turn), and
  a slider motor drives it towards the box at 0.1 m/s with at most 20 N, so that it stalls
  against the box at 20 N. mu = 0.5 between box and fingers (nothing else touches), so friction
  can hold 2 x 0.5 x 20 N = 20 N, four times the weight. dt = 1 ms, T = 3 s; bead runs it under
  the scene's BDF2 (and implicit Euler as well). There is no floor: the box falls freely
  until the fingers catch it (in the first 30 ms or so) and should then hang still.
* ``stack`` (n = 10 boxes; ``--n``): cubes of 0.2 m edge and density 300 kg/m^3 (2.4 kg) on a
  fixed floor, a box 20 x 20 x 1 m whose top is z = 0 (centred at (0, 0, -0.5)). Cube k = 0..n-1
  starts at (0, 0, 0.1 + 0.2 k), unturned and at rest: each face on the one below exactly, so
  an exact solver holds the stack where it is. mu = 0.5 by default; T = 3 s.
* ``pile`` (n = 1000 balls; ``--n``): balls of radius r = 0.025 m and density 1000 kg/m^3
  (0.06545 kg) in an open box whose inside is 0.6 x 0.6 m: a fixed floor, a box
  1.0 x 1.0 x 0.1 m whose top is z = 0 (centred at (0.3, 0.3, -0.05)), and four fixed walls,
  boxes 0.1 m thick and 2 m tall standing on it, their inner faces at x = 0, x = 0.6, y = 0 and
  y = 0.6 (those at x = 0 and 0.6 m are 0.8 m long in y, covering the corners). Ball k = 0..n-1 starts at::

      per = floor(0.6 / (2.5 r)) = 9       (81 to a layer)
      layer, rest = divmod(k, per^2);  j, i = divmod(rest, per)
      x = min(1.25 r + 2.5 r i + s, 0.6 - r),  y = min(1.25 r + 2.5 r j + s, 0.6 - r)
      z = 1.5 r + 2.5 r layer             (s = 0.6 r on odd layers, 0 on even ones)

  with velocity (0.2 sin(1.7 k), 0.2 cos(1.3 k), 0) m/s and no spin: 1000 balls in 13 layers up
  to z = 0.79 m, which fall and land on one another. Frictionless by default (mu = 0); T = 3 s.

The engines (``--engine``)
--------------------------
* ``mujoco`` (MuJoCo 4.0, ``mujoco`` on PyPI): the scene as MJCF (``--mjcf`` prints it). Each
  moving box or ball a body on a free joint with one geom (box or sphere) of its mass (MuJoCo
  gives it the moments of the uniform solid); fixed boxes geoms of the world body. Every geom
  ``condim="3"`` (sliding friction only) with ``friction="mu 0 0"`` (two geoms combine as the
  larger: mu), or ``condim="1"`` (frictionless) when mu = 0; ``margin`` 0, ``solref`` and
  ``solimp`` at their defaults (0.02 1 and 0.9 0.95 0.001 0.5 2: soft contacts, which sink in
  and, under a tangential load, slip). The grip's fingers are bodies on ``slide`` joints along
  the rail's axis (exact: reduced coordinates), each driven by a ``motor`` actuator whose
  control is held at +-20 N (the motor's force limit, towards the box) with joint ``damping``
  20 N / 0.1 m/s = 200 N s/m: a free finger closes at the motor's 0.1 m/s (time constant
  0.2 kg / 200 N s/m = 1 ms) and a stalled one presses with 20 N, the two regimes of bead's
  slider motor (the damping acts only along the rail, on the finger's own speed, which is zero
  once it stalls). MuJoCo's defaults otherwise: integrator Euler, Newton solver, 100
  iterations, tolerance 1e-8, no noslip iterations, pyramidal friction cones, impratio 1 (all
  printed on stderr). ``mujoco-elliptic`` has ``cone="elliptic"``; ``mujoco-elliptic-impratio10``
  also ``impratio="10"`` (MuJoCo's documented recipe against slip in a grasp, the one of its
  issue #3328); ``mujoco-cg`` the default cone with ``solver="CG"``, MuJoCo's solver that
  does not factorize the constraint Hessian (on the 1000-ball pile, one island of 6000 degrees
  of freedom and 4000 contacts, the default Newton solver takes seconds a step). The pile's model gets 512 MB of
  arena (``<size memory>``). Warnings of bad accelerations, positions or velocities end the run
  as a divergence.
* ``pybullet`` (pybullet 3.2.7): DIRECT client, ``setGravity``, ``fixedTimeStep`` dt with no
  substeps, its defaults otherwise (50 solver iterations, printed on stderr). Each moving box
  or ball a free rigid body (``createMultiBody`` with ``useMaximalCoordinates=True``: a
  ``btRigidBody``) with a ``GEOM_BOX`` / ``GEOM_SPHERE`` collision shape, its mass, and the
  moments pybullet computes from the shape (those above: checked with ``getDynamicsInfo``); the
  fixed boxes bodies of mass 0. Every body's ``lateralFriction`` is sqrt(mu), since Bullet
  multiplies the two bodies' coefficients (so a contact has mu), spinning and rolling friction
  0, restitution 0, linear and angular damping 0, and sleeping
  disabled (``ACTIVATION_STATE_DISABLE_SLEEPING``). The grip's fingers are the two links of one
  Featherstone multibody (``btMultiBody``) with a fixed, shapeless base at the palm: each a box
  link of 0.2 kg on a ``JOINT_PRISMATIC`` along the rail's axis, driven by
  ``setJointMotorControl2(VELOCITY_CONTROL, targetVelocity=0.1 m/s towards the box,
  force=20 N)``, which is bead's slider motor exactly (a velocity held with a force limit).
* ``bead-implicit-euler``, ``bead-bdf2``: bead's CLI (``--bead``, by default
  ``target/release/bead``) runs a scene file: for the grip ``scenes/pinch_grip_3d.toml`` itself
  with only ``output_every`` changed, for the stack and the pile a file this script writes into
  a temporary directory (``--toml`` prints it): the same bodies, as ``[[bodies]]`` with
  explicit ``mass``, principal ``inertia`` and ``shape`` (the fixed ones ``mass = "infinity"``),
  a ``gravity`` force, and one ``[[contacts]]`` group of ``bodies = "all"`` with ``friction =
  mu``. The command is ``bead run FILE --out DIR -q --dt DT --duration T --integrator I``, with
  bead's defaults otherwise (sparse KKT solver, Newton tolerance 1e-10 m). bead solves each
  contact as an exact inequality with Coulomb friction on its circular cone (in 3D, only under
  ``implicit-euler`` and ``bdf2``).

What is measured
----------------
Every figure comes from the bodies' states after every step, as the engine reports them:
MuJoCo's ``xpos``/``xmat`` (after ``mj_kinematics``) and ``qvel``, pybullet's base and link
states, and for bead its ``trajectory.csv`` written at every step (``output_every = 1``:
position, orientation quaternion, velocity and world angular velocity of each body). The
script computes the columns itself, the same way for every engine; bead's own
``<group>.max_penetration`` column is printed on stderr beside them as a check.

* ``s_per_step``: wall-clock seconds per step, the best of ``--repeats`` runs (3). MuJoCo and
  pybullet: ``time.perf_counter`` around ``mj_step`` / ``stepSimulation`` only; the first run
  also measures (untimed), the others only step, and they stop repeating once the runs have
  stepped for ``--time-limit`` seconds together. bead: the run's ``wall_seconds`` from its
  ``summary.json`` (its stepping loop, including the rows it records) over the steps, in runs
  that record only the first and last rows (``output_every`` = steps), after the measuring
  run; the same rule for repeats. ``cpu_s_per_sim_s``: CPU seconds per simulated second, best
  of the same runs: MuJoCo and pybullet ``time.process_time`` around the step calls; bead the
  whole ``bead run`` process's user and system time (``getrusage`` of the child, so it also
  counts reading the scene and building the model).
* ``max_penetration``: the deepest overlap of any two bodies at the end of any step, metres,
  from their positions and orientations: box-box the separating-axis depth (the smallest
  overlap of the two boxes' projections on the 15 axes: 6 face normals, 9 edge cross products
  that are not degenerate); a box on the stack's floor the depth of its lowest corner below
  z = 0; ball-ball max(0, 2r - distance) over the pairs a uniform grid finds; ball-wall r minus
  the distance to the floor's or a wall's inner face.
* ``creep`` (m) and ``creep_um_per_s`` (um/s):
  - grip: how far the box has come down, z(t_h) - z(T), from t_h = 1 s (the fingers closed
    within the first 0.05 s and the grip has settled) to the end, signed (negative: it rose);
    the rate is that over T - t_h. stderr also has the box's height at each whole second and its drop in each
    second: a steady rate is creep, not settling.
  - stack: the largest distance of the top cube from its start at any step (``creep``), and
    the distance it moved over the last second (``creep_um_per_s``: how fast it still moves).
  - pile: the largest distance any ball moved over the last second, and that per second.
* ``energy_drift``: stack, (E(T) - E(0)) / |E(0)|; pile, (E(T) - E(T - 1 s)) / |E(T - 1 s)|;
  E = sum of 1/2 m v^2 + 1/2 w.(R I R^T) w + m g z over the moving bodies, z from the floor's
  top, with the scene's nominal masses and moments. Empty for the grip (its motors do work;
  its loss of energy at rest is the box's creep).
* ``status``: ``ok``; ``diverged at step s`` (a NaN, a body out of the scene: a cube below the
  floor or 100 m away, a ball out of its box, anything 100 m away in the grip; or MuJoCo's
  warning of bad accelerations); ``stopped at step s (time limit)`` after ``--time-limit``
  seconds of stepping in the first run (bead's process is killed then, and s is the last step
  in its trajectory.csv: bead writes through a buffer, so it may have got a few steps further,
  and ``s_per_step`` is then the time limit over s, an upper bound); ``failed at t = ... s
  (step s): MESSAGE`` when bead reports a failed step (its ``summary.json`` error); ``not
  installed`` / ``not built``. A run that stops early leaves ``creep`` and ``energy_drift``
  empty, and its other columns cover the steps before. A note follows ``ok`` in parentheses
  when the stack collapsed (the top cube more than half an edge below its start) or the grip
  dropped its box (more than its edge below its start), with the time it happened.

Use
---
    python3 contact3d.py --engine mujoco-elliptic-impratio10 --scene grip --header
    python3 contact3d.py --engine bead-implicit-euler --scene stack --dt 1/60 --friction 0.5
    python3 contact3d.py --engine pybullet --scene pile --n 1000 --dt 1/240

Versions, solver settings and notes (the grip's heights, where the stack's top cube went,
why a run diverged) go to stderr as ``# ...`` lines, so that stdout stays clean CSV.
``scripts/compare/run contact3d`` runs every engine on every scene and prints the table.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from chain3d import quat_to_matrix

ROOT = Path(__file__).resolve().parents[2]
GRIP_SCENE = ROOT / "scenes" / "pinch_grip_3d.toml"
BEAD = ROOT / "target" / "release" / "bead"
G = 9.81  # m/s^2, along -z
HEADER = (
    "engine,scene,n,friction,dt,s_per_step,cpu_s_per_sim_s,max_penetration,creep,creep_um_per_s,energy_drift,status"
)
SCENES = ("grip", "stack", "pile")
MUJOCO_ENGINES = ("mujoco", "mujoco-cg", "mujoco-elliptic", "mujoco-elliptic-impratio10")
BEAD_ENGINES = ("bead-implicit-euler", "bead-bdf2")
ENGINES = MUJOCO_ENGINES + ("pybullet",) + BEAD_ENGINES

# The stack and the pile (the grip is read from its scene file).
STACK_EDGE = 0.2  # m
STACK_DENSITY = 300.0  # kg/m^3
FLOOR_SIZE = (20.0, 20.0, 1.0)  # m, the stack's floor, its top at z = 0
PILE_RADIUS = 0.025  # m
PILE_DENSITY = 1000.0  # kg/m^3
PILE_WIDTH = 0.6  # m, the inside of the pile's box, square
WALL = 0.1  # m, thickness of the pile's floor and walls
WALL_HEIGHT = 2.0  # m
GRIP_HOLD = 1.0  # s: the grip's creep is measured from here to the end


# --- the scenes, engine-neutral -------------------------------------------------------------


@dataclass
class Body:
    """A box (`size` its full edges) or a sphere (`size` = (radius,)), fixed if mass is inf."""

    name: str
    kind: str
    size: tuple[float, ...]
    mass: float
    pos: tuple[float, float, float]
    vel: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def half(self) -> np.ndarray:
        return np.array(self.size) / 2 if self.kind == "box" else np.full(3, self.size[0])

    @property
    def inertia(self) -> np.ndarray:
        """Principal moments of the uniform solid about its centre, kg m^2."""
        if self.kind == "sphere":
            return np.full(3, 0.4 * self.mass * self.size[0] ** 2)
        a, b, c = self.size
        return self.mass / 12.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])


@dataclass
class Finger:
    """A body on a rail (a prismatic joint to the fixed palm) driven by a slider motor."""

    body: int  # index in Scene.moving
    axis: np.ndarray  # unit, world
    speed: float  # m/s along axis
    max_force: float  # N


@dataclass
class Scene:
    name: str
    n: int
    friction: float
    dt: float
    seconds: float
    fixed: list[Body]
    moving: list[Body]
    fingers: list[Finger] = field(default_factory=list)
    integrator: str = "implicit-euler"  # bead's, for the grip the scene's
    source: Path | None = None  # the grip's scene file

    @property
    def steps(self) -> int:
        return max(1, round(self.seconds / self.dt))


def box_mass(size: Sequence[float], density: float) -> float:
    return density * size[0] * size[1] * size[2]


def grip_scene(path: Path, dt: float | None, seconds: float | None, friction: float | None) -> Scene:
    """The pinch grip as bead's scene file has it: its box, its fingers on rails to the palm, their
    motors, its contact group's friction, gravity, dt and duration."""
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    sim = doc["simulation"]
    g = [c for c in doc.get("forces", []) if c["kind"] == "gravity"]
    if len(g) != 1 or list(g[0]["g"]) != [0.0, 0.0, -G]:
        raise ValueError(f"{path}: expected gravity (0, 0, -{G})")
    cons = {c.get("name"): c for c in doc.get("constraints", [])}
    bodies = {}
    for b in doc["bodies"]:
        if b.get("mass") == "infinity":
            bodies[b["name"]] = None  # the palm
            continue
        shape = b["shape"]
        if shape["kind"] != "box" or "orientation" in b or "velocity" in b:
            raise ValueError(f"{path}: body {b['name']}: expected an unturned box at rest")
        size = tuple(float(s) for s in shape["size"])
        mass = float(b["mass"]) if "mass" in b else box_mass(size, float(b["density"]))
        bodies[b["name"]] = Body(b["name"], "box", size, mass, tuple(float(p) for p in b["position"]))
    moving = [b for b in bodies.values() if b is not None]
    index = {b.name: k for k, b in enumerate(moving)}
    fingers = []
    for c in cons.values():
        if c["kind"] != "slider-motor":
            continue
        rail = cons[c["joint"]]
        palm, finger = rail["between"]
        if bodies.get(palm) is not None or rail["kind"] != "prismatic":
            raise ValueError(f"{path}: motor {c['name']}: expected a prismatic joint from the fixed palm")
        axis = np.array(rail["axis"], dtype=float)
        fingers.append(Finger(index[finger], axis / np.linalg.norm(axis), float(c["speed"]), float(c["max_force"])))
    held = [b for k, b in enumerate(moving) if k not in {f.body for f in fingers}]
    if len(held) != 1 or held[0] is not moving[0] or len(fingers) != 2:
        raise ValueError(f"{path}: expected one held box (the first body with a shape) and two fingers")
    groups = doc.get("contacts", [])
    mu = float(groups[0].get("friction", sim.get("friction", 0.0))) if groups else 0.0
    return Scene(
        "grip",
        1,
        mu if friction is None else friction,
        float(sim["dt"]) if dt is None else dt,
        float(sim["duration"]) if seconds is None else seconds,
        [],
        moving,
        fingers,
        integrator=sim.get("integrator", "rk4"),
        source=path,
    )


def stack_scene(n: int, friction: float, dt: float, seconds: float) -> Scene:
    edge = STACK_EDGE
    floor = Body("floor", "box", FLOOR_SIZE, math.inf, (0.0, 0.0, -FLOOR_SIZE[2] / 2))
    mass = box_mass((edge,) * 3, STACK_DENSITY)
    boxes = [Body(f"box{k}", "box", (edge,) * 3, mass, (0.0, 0.0, edge / 2 + edge * k)) for k in range(n)]
    return Scene("stack", n, friction, dt, seconds, [floor], boxes)


def pile_walls() -> list[Body]:
    w, t, h = PILE_WIDTH, WALL, WALL_HEIGHT
    return [
        Body("floor", "box", (w + 4 * t, w + 4 * t, t), math.inf, (w / 2, w / 2, -t / 2)),
        Body("wall_x0", "box", (t, w + 2 * t, h), math.inf, (-t / 2, w / 2, h / 2)),
        Body("wall_x1", "box", (t, w + 2 * t, h), math.inf, (w + t / 2, w / 2, h / 2)),
        Body("wall_y0", "box", (w, t, h), math.inf, (w / 2, -t / 2, h / 2)),
        Body("wall_y1", "box", (w, t, h), math.inf, (w / 2, w + t / 2, h / 2)),
    ]


def pile_scene(n: int, friction: float, dt: float, seconds: float) -> Scene:
    r, w = PILE_RADIUS, PILE_WIDTH
    mass = PILE_DENSITY * 4.0 / 3.0 * math.pi * r**3
    per = math.floor(w / (2.5 * r))
    balls = []
    for k in range(n):
        layer, rest = divmod(k, per * per)
        j, i = divmod(rest, per)
        shift = 0.6 * r if layer % 2 else 0.0
        x = min(1.25 * r + 2.5 * r * i + shift, w - r)
        y = min(1.25 * r + 2.5 * r * j + shift, w - r)
        z = 1.5 * r + 2.5 * r * layer
        v = (0.2 * math.sin(1.7 * k), 0.2 * math.cos(1.3 * k), 0.0)
        balls.append(Body(f"s{k}", "sphere", (r,), mass, (x, y, z), v))
    return Scene("pile", n, friction, dt, seconds, pile_walls(), balls)


def make_scene(name: str, n: int | None, friction: float | None, dt: float | None, seconds: float | None,
               grip_path: Path = GRIP_SCENE) -> Scene:  # fmt: skip
    if name == "grip":
        return grip_scene(grip_path, dt, seconds, friction)
    dt = 1.0 / 60.0 if dt is None else dt
    seconds = 3.0 if seconds is None else seconds
    if name == "stack":
        return stack_scene(10 if n is None else n, 0.5 if friction is None else friction, dt, seconds)
    return pile_scene(1000 if n is None else n, 0.0 if friction is None else friction, dt, seconds)


# --- measuring ------------------------------------------------------------------------------


def quat_wxyz_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (k, 3, 3) of quaternions (k, 4) given as [w, x, y, z] (normalized here)."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    return quat_to_matrix(q[:, [1, 2, 3, 0]])


def box_overlap(c1: np.ndarray, r1: np.ndarray, h1: np.ndarray, c2: np.ndarray, r2: np.ndarray, h2: np.ndarray) -> float:
    """Penetration depth of two oriented boxes (centres, rotations, half edges): the smallest
    overlap of their projections on the 15 separating axes (the 6 face normals and the 9 edge
    cross products that are not degenerate); 0 if some axis separates them."""
    a, b = r1.T, r2.T  # rows: the boxes' axes in the world
    cross = np.cross(a[:, None, :], b[None, :, :]).reshape(9, 3)
    norm = np.linalg.norm(cross, axis=1)
    axes = np.vstack([a, b, cross[norm > 1e-6] / norm[norm > 1e-6, None]])
    reach = np.abs(axes @ a.T) @ h1 + np.abs(axes @ b.T) @ h2
    overlap = reach - np.abs(axes @ (c2 - c1))
    return max(0.0, float(overlap.min()))


def sphere_overlaps(x: np.ndarray, r: float) -> float:
    """Largest 2r - |x_i - x_j| over all pairs of spheres of radius r (0 if none touch), found
    with a uniform grid of cells of 2r: each sphere against those in its own and the 26
    neighbouring cells."""
    if len(x) < 2:
        return 0.0
    c = np.floor(x / (2 * r)).astype(np.int64)
    c -= c.min(axis=0)
    dims = c.max(axis=0) + 3
    key = ((c[:, 0] + 1) * dims[1] + (c[:, 1] + 1)) * dims[2] + (c[:, 2] + 1)
    order = np.argsort(key, kind="stable")
    sk = key[order]
    best = 0.0
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dz in (-1, 0, 1):
                nk = key + (dx * dims[1] + dy) * dims[2] + dz
                lo = np.searchsorted(sk, nk, "left")
                hi = np.searchsorted(sk, nk, "right")
                for j in range(int((hi - lo).max())):
                    idx = lo + j
                    ok = idx < hi
                    i_ = np.nonzero(ok)[0]
                    o = order[idx[ok]]
                    keep = o > i_
                    if keep.any():
                        d = x[i_[keep]] - x[o[keep]]
                        gap = 2 * r - np.sqrt(np.einsum("ij,ij->i", d, d))
                        best = max(best, float(gap.max()))
    return best


def energy(scene: Scene, x: np.ndarray, rot: np.ndarray, v: np.ndarray, w: np.ndarray) -> float:
    """Sum over the moving bodies of 1/2 m v^2 + 1/2 w.(R I R^T) w + m g z, from the scene's
    nominal masses and moments (w in the world frame)."""
    mass = np.array([b.mass for b in scene.moving])
    inertia = np.array([b.inertia for b in scene.moving])
    wb = np.einsum("kji,kj->ki", rot, w)
    kinetic = 0.5 * (mass * np.einsum("ij,ij->i", v, v)).sum() + 0.5 * (inertia * wb * wb).sum()
    return float(kinetic + (mass * G * x[:, 2]).sum())


class Meter:
    """Takes the moving bodies' states after every step and makes the columns of them."""

    def __init__(self, scene: Scene):
        self.scene = scene
        self.steps = scene.steps
        self.per_second = max(1, round(1.0 / scene.dt))
        self.last_second = max(0, self.steps - self.per_second)
        self.hold = min(self.steps, round(GRIP_HOLD / scene.dt))
        self.penetration = 0.0
        self.snap: dict[int, tuple[np.ndarray, float]] = {}
        self.top_start: np.ndarray | None = None
        self.top_drift = 0.0
        self.heights: list[tuple[float, float]] = []  # grip: (t, z) of the box each whole second
        self.half = np.array([b.half for b in scene.moving])
        self.event = ""  # the stack collapsing, the grip dropping its box: a note in the status

    def add(self, s: int, x: np.ndarray, rot: np.ndarray, v: np.ndarray, w: np.ndarray) -> str | None:
        """The state after step s (0: the start). Returns a reason if it diverged."""
        sc = self.scene
        if not (np.isfinite(x).all() and np.isfinite(rot).all() and np.isfinite(v).all()):
            return "a coordinate is NaN"
        if sc.name == "grip":
            if np.abs(x).max() > 100.0:
                return "a body is over 100 m away"
            pen = max(box_overlap(x[0], rot[0], self.half[0], x[f.body], rot[f.body], self.half[f.body])
                      for f in sc.fingers)  # fmt: skip
            if s % self.per_second == 0:
                self.heights.append((s * sc.dt, float(x[0, 2])))
            if not self.event and x[0, 2] < sc.moving[0].pos[2] - sc.moving[0].size[2]:
                self.event = f"dropped the box at t = {s * sc.dt:.3g} s"
        elif sc.name == "stack":
            h = STACK_EDGE / 2
            if (x[:, 2] < -h).any() or np.abs(x).max() > 100.0:
                return f"box {int(np.argmax((x[:, 2] < -h) | (np.abs(x).max(axis=1) > 100)))} left the floor"
            corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
            lowest = (x[:, None, :] + np.einsum("kij,cj->kci", rot, corners))[:, :, 2].min()
            pen = max(0.0, -float(lowest))
            for i in range(len(x)):
                for j in range(i + 1, len(x)):
                    if np.linalg.norm(x[i] - x[j]) < 2 * math.sqrt(3) * h:
                        pen = max(pen, box_overlap(x[i], rot[i], self.half[i], x[j], rot[j], self.half[j]))
            if self.top_start is None:
                self.top_start = x[-1].copy()
            self.top_drift = max(self.top_drift, float(np.linalg.norm(x[-1] - self.top_start)))
            if not self.event and x[-1, 2] < self.top_start[2] - h:
                self.event = f"collapsed at t = {s * sc.dt:.3g} s"
            self.top_end = x[-1].copy()
        else:
            r, wd = PILE_RADIUS, PILE_WIDTH
            out = (x[:, 0] < -r) | (x[:, 0] > wd + r) | (x[:, 1] < -r) | (x[:, 1] > wd + r) | (x[:, 2] < -r)
            out |= x[:, 2] > 1000.0
            if out.any():
                return f"sphere {int(np.argmax(out))} left the box"
            walls = np.concatenate([r - x[:, 2], r - x[:, 0], x[:, 0] + r - wd, r - x[:, 1], x[:, 1] + r - wd])
            pen = max(0.0, float(walls.max()), sphere_overlaps(x, r))
        self.penetration = max(self.penetration, pen)
        if s in (0, self.hold, self.last_second, self.steps):
            self.snap[s] = (x.copy(), energy(sc, x, rot, v, w))
        return None

    def columns(self) -> tuple[float, float, float]:
        """(creep m, creep um/s, energy drift) of a run that reached the end."""
        sc, snap = self.scene, self.snap
        x_end, e_end = snap[self.steps]
        if sc.name == "grip":
            x0, _ = snap[self.hold]
            window = (self.steps - self.hold) * sc.dt
            creep = float(x0[0, 2] - x_end[0, 2])  # the box's drop, m (positive down)
            return creep, creep / window * 1e6 if window > 0 else math.nan, math.nan
        x1, e1 = snap[self.last_second]
        window = (self.steps - self.last_second) * sc.dt
        if sc.name == "stack":
            late = float(np.linalg.norm(x_end[-1] - x1[-1]))
            _, e0 = snap[0]
            return self.top_drift, late / window * 1e6, (e_end - e0) / abs(e0)
        moved = float(np.linalg.norm(x_end - x1, axis=1).max())
        return moved, moved / window * 1e6, (e_end - e1) / abs(e1) if e1 != 0 else math.nan

    def notes(self) -> str:
        if self.scene.name == "stack" and self.top_start is not None:
            d = self.top_end - self.top_start
            return f"the top box moved ({d[0]:.4g}, {d[1]:.4g}, {d[2]:.4g}) m from its start by the last state measured"
        if self.scene.name != "grip" or len(self.heights) < 2:
            return ""
        drops = ", ".join(
            f"{(z0 - z1) / (t1 - t0) * 1e6:.4g}" for (t0, z0), (t1, z1) in zip(self.heights, self.heights[1:])
        )
        return f"box z at t = 0, 1, ... s: {', '.join(f'{z:.9f}' for _, z in self.heights)} m; drop each second {drops} um/s"


@dataclass
class Result:
    engine: str
    scene: Scene
    s_per_step: float = math.nan
    cpu_per_sim_s: float = math.nan
    max_penetration: float = math.nan
    creep: float = math.nan
    creep_rate: float = math.nan
    energy_drift: float = math.nan
    status: str = "ok"

    def csv(self) -> str:
        def num(x: float) -> str:
            return "" if x is None or math.isnan(x) else f"{x:.6e}"

        sc = self.scene
        cols = (self.s_per_step, self.cpu_per_sim_s, self.max_penetration, self.creep, self.creep_rate,
                self.energy_drift)  # fmt: skip
        status = self.status.replace(",", ";").replace("\n", " ")
        return f"{self.engine},{sc.name},{sc.n},{sc.friction:g},{sc.dt:.6f},{','.join(num(c) for c in cols)},{status}"


def finish(result: Result, meter: Meter, reached_end: bool) -> Result:
    result.max_penetration = meter.penetration
    if meter.event:
        result.status += f" ({meter.event})"
    if reached_end:
        result.creep, result.creep_rate, result.energy_drift = meter.columns()
    note = meter.notes()
    if note:
        print(f"# {result.engine} {result.scene.name} dt {result.scene.dt:g}: {note}", file=sys.stderr, flush=True)
    return result


# --- engines that step in this process ------------------------------------------------------

# build() -> (step, states, failed): step advances one dt; states() gives (x, rot, v, w) of the
# moving bodies in the scene's order; failed() says whether the engine reported a failure.
Build = Callable[[], tuple[Callable[[], None], Callable[[], tuple[np.ndarray, ...]], Callable[[], str | None]]]


def run_in_process(label: str, scene: Scene, build: Build, time_limit: float, repeats: int) -> Result:
    """Steps the scene: the first run measures after every step (untimed), the others only step;
    s_per_step and cpu_s_per_sim_s are the best of the runs. A first run that steps for more
    than time_limit seconds stops there and is not repeated; the others stop repeating once all
    have stepped for time_limit seconds together."""
    result = Result(label, scene)
    meter = Meter(scene)
    clock, cpu = time.perf_counter, time.process_time
    walls, cpus = [], []
    for run in range(max(1, repeats)):
        step, states, failed = build()
        if run == 0:
            meter.add(0, *states())
        elapsed = used = 0.0
        for s in range(1, scene.steps + 1):
            t0, c0 = clock(), cpu()
            step()
            elapsed += clock() - t0
            used += cpu() - c0
            if run > 0:
                continue
            why = failed() or meter.add(s, *states())
            if why is not None:
                print(f"# {label} {scene.name}: diverged at step {s}: {why}", file=sys.stderr, flush=True)
                result.status = f"diverged at step {s}"
                result.s_per_step, result.cpu_per_sim_s = elapsed / s, used / (s * scene.dt)
                return finish(result, meter, False)
            if elapsed > time_limit and s < scene.steps:
                result.status = f"stopped at step {s} (time limit)"
                result.s_per_step, result.cpu_per_sim_s = elapsed / s, used / (s * scene.dt)
                return finish(result, meter, False)
        walls.append(elapsed)
        cpus.append(used)
        if sum(walls) > time_limit:
            break  # enough: the runs have stepped for the time limit together
    result.s_per_step = min(walls) / scene.steps
    result.cpu_per_sim_s = min(cpus) / (scene.steps * scene.dt)
    return finish(result, meter, True)


def mujoco_variant(engine: str) -> tuple[str, float, str]:
    """(cone, impratio, solver) of a MuJoCo engine name."""
    return {
        "mujoco": ("pyramidal", 1.0, "Newton"),
        "mujoco-cg": ("pyramidal", 1.0, "CG"),
        "mujoco-elliptic": ("elliptic", 1.0, "Newton"),
        "mujoco-elliptic-impratio10": ("elliptic", 10.0, "Newton"),
    }[engine]


def mjcf(scene: Scene, engine: str) -> str:
    """The scene as a MuJoCo model (MJCF)."""
    cone, impratio, solver = mujoco_variant(engine)
    mu = scene.friction
    # condim 3: sliding friction only (MuJoCo ignores the torsional and rolling coefficients);
    # condim 1 frictionless. Two geoms' friction combine as the larger, here both mu.
    condim = 3 if mu > 0 else 1

    def geom(b: Body, extra: str = "") -> str:
        if b.kind == "box":
            size = " ".join(repr(float(h)) for h in b.half)
            shape = f'type="box" size="{size}"'
        else:
            shape = f'type="sphere" size="{b.size[0]!r}"'
        mass = "" if math.isinf(b.mass) else f' mass="{b.mass!r}"'
        return f'<geom name="{b.name}" {shape}{mass}{extra}/>'

    def vec(p: Sequence[float]) -> str:
        return " ".join(repr(float(c)) for c in p)

    lines = [
        f'<mujoco model="{scene.name}">',
        f'  <option timestep="{scene.dt!r}" gravity="0 0 {-G!r}" cone="{cone}" impratio="{impratio!r}" '
        f'solver="{solver}"/>',
    ]
    if scene.name == "pile":
        lines.append('  <size memory="512M"/>')
    lines += [
        "  <default>",
        f'    <geom condim="{condim}" friction="{mu!r} 0 0"/>',
        "  </default>",
        "  <worldbody>",
    ]
    for b in scene.fixed:
        pos = f' pos="{vec(b.pos)}"'
        lines.append(f"    {geom(b, pos)}")
    fingers = {f.body: f for f in scene.fingers}
    for k, b in enumerate(scene.moving):
        lines.append(f'    <body name="{b.name}" pos="{vec(b.pos)}">')
        if k in fingers:
            f = fingers[k]
            lines.append(
                f'      <joint name="{b.name}" type="slide" axis="{vec(f.axis)}" '
                f'damping="{f.max_force / abs(f.speed)!r}"/>'
            )
        else:
            lines.append(f'      <freejoint name="{b.name}"/>')
        lines.append(f"      {geom(b)}")
        lines.append("    </body>")
    lines.append("  </worldbody>")
    if scene.fingers:
        lines.append("  <actuator>")
        for f in scene.fingers:
            lines.append(f'    <motor name="{scene.moving[f.body].name}" joint="{scene.moving[f.body].name}" gear="1"/>')
        lines.append("  </actuator>")
    lines.append("</mujoco>")
    return "\n".join(lines) + "\n"


def mujoco_build(scene: Scene, engine: str) -> Build:
    import mujoco

    xml = mjcf(scene, engine)
    fingers = {f.body: f for f in scene.fingers}

    def build():
        model = mujoco.MjModel.from_xml_string(xml)
        data = mujoco.MjData(model)
        for b in scene.moving:  # free bodies' velocities (qvel: linear, world; angular, local)
            j = model.joint(b.name)
            if j.type[0] == mujoco.mjtJoint.mjJNT_FREE:
                data.qvel[j.dofadr[0] : j.dofadr[0] + 3] = b.vel
        for i, f in enumerate(scene.fingers):  # a constant push of max_force towards the box
            data.ctrl[i] = math.copysign(f.max_force, f.speed)
        mujoco.mj_forward(model, data)
        ids = np.array([model.body(b.name).id for b in scene.moving])
        dofs = [model.joint(b.name).dofadr[0] for b in scene.moving]
        warnings = [int(w) for w in (mujoco.mjtWarning.mjWARN_BADQACC, mujoco.mjtWarning.mjWARN_BADQPOS,
                                     mujoco.mjtWarning.mjWARN_BADQVEL)]  # fmt: skip

        def step():
            mujoco.mj_step(model, data)

        def states():
            mujoco.mj_kinematics(model, data)  # mj_step leaves the kinematics of the step's start
            x = data.xpos[ids].copy()
            rot = data.xmat[ids].reshape(-1, 3, 3).copy()
            v, w = np.zeros((len(ids), 3)), np.zeros((len(ids), 3))
            for k, d in enumerate(dofs):
                if k in fingers:
                    v[k] = fingers[k].axis * data.qvel[d]
                else:
                    v[k] = data.qvel[d : d + 3]
                    w[k] = rot[k] @ data.qvel[d + 3 : d + 6]
            return x, rot, v, w

        def failed():
            bad = [w for w in warnings if data.warning[w].number > 0]
            return f"MuJoCo warning {bad}" if bad else None

        return step, states, failed

    return build


def mujoco_run(scene: Scene, engine: str, time_limit: float, repeats: int) -> Result:
    import mujoco

    cone, impratio, solver = mujoco_variant(engine)
    label = f"mujoco {mujoco.__version__} {cone}" + (f" impratio={impratio:g}" if impratio != 1 else "")
    label += " CG" if solver == "CG" else ""
    m = mujoco.MjModel.from_xml_string(mjcf(scene, engine))
    o = m.opt
    print(
        f"# {label}: integrator {mujoco.mjtIntegrator(o.integrator).name}, solver {mujoco.mjtSolver(o.solver).name}, "
        f"iterations {o.iterations}, tolerance {o.tolerance:g}, noslip_iterations {o.noslip_iterations}, "
        f"geom solref {m.geom_solref[0]}, solimp {m.geom_solimp[0]}, margin {m.geom_margin[0]:g}",
        file=sys.stderr,
        flush=True,
    )
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda msg: print(f"# mujoco warning: {msg}", file=sys.stderr))
    try:
        return run_in_process(label, scene, mujoco_build(scene, engine), time_limit, repeats)
    finally:
        mujoco.set_mju_user_warning(previous)


def pybullet_build(scene: Scene, clients: list[int]) -> Build:
    """`build` for pybullet; each build disconnects the last one's client, and leaves its own in
    `clients` for the caller to disconnect."""
    import pybullet as p

    lateral = math.sqrt(scene.friction)  # Bullet multiplies two bodies' friction

    def shape(client: int, b: Body) -> int:
        if b.kind == "box":
            return p.createCollisionShape(p.GEOM_BOX, halfExtents=list(b.half), physicsClientId=client)
        return p.createCollisionShape(p.GEOM_SPHERE, radius=b.size[0], physicsClientId=client)

    def dynamics(client: int, body: int, link: int) -> None:
        p.changeDynamics(
            body, link, lateralFriction=lateral, spinningFriction=0.0, rollingFriction=0.0, restitution=0.0,
            linearDamping=0.0, angularDamping=0.0, activationState=p.ACTIVATION_STATE_DISABLE_SLEEPING,
            physicsClientId=client,
        )  # fmt: skip

    def check(client: int, body: int, link: int, b: Body) -> None:
        info = p.getDynamicsInfo(body, link, physicsClientId=client)
        if abs(info[0] - b.mass) > 1e-9 * b.mass or np.abs(np.subtract(info[2], b.inertia)).max() > 1e-9 * b.inertia.max():
            raise RuntimeError(f"pybullet holds mass {info[0]}, inertia {info[2]} for {b.name}, not {b.mass}, {b.inertia}")

    def build():
        while clients:
            p.disconnect(clients.pop())
        client = p.connect(p.DIRECT)
        clients.append(client)
        p.setGravity(0.0, 0.0, -G, physicsClientId=client)
        p.setPhysicsEngineParameter(fixedTimeStep=scene.dt, numSubSteps=0, physicsClientId=client)
        for b in scene.fixed:
            body = p.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape(client, b), basePosition=list(b.pos),
                                     physicsClientId=client)  # fmt: skip
            p.changeDynamics(body, -1, lateralFriction=lateral, restitution=0.0, physicsClientId=client)
        fingers = {f.body: f for f in scene.fingers}
        free, links = {}, {}
        for k, b in enumerate(scene.moving):
            if k in fingers:
                continue
            body = p.createMultiBody(baseMass=b.mass, baseCollisionShapeIndex=shape(client, b), basePosition=list(b.pos),
                                     useMaximalCoordinates=True, physicsClientId=client)  # fmt: skip
            dynamics(client, body, -1)
            check(client, body, -1, b)
            p.resetBaseVelocity(body, list(b.vel), [0.0, 0.0, 0.0], physicsClientId=client)
            free[k] = body
        hand = None
        if scene.fingers:
            fs = scene.fingers
            hand = p.createMultiBody(
                baseMass=0.0,
                basePosition=[0.0, 0.0, 0.0],
                linkMasses=[scene.moving[f.body].mass for f in fs],
                linkCollisionShapeIndices=[shape(client, scene.moving[f.body]) for f in fs],
                linkVisualShapeIndices=[-1] * len(fs),
                linkPositions=[list(scene.moving[f.body].pos) for f in fs],
                linkOrientations=[[0, 0, 0, 1]] * len(fs),
                linkInertialFramePositions=[[0, 0, 0]] * len(fs),
                linkInertialFrameOrientations=[[0, 0, 0, 1]] * len(fs),
                linkParentIndices=[0] * len(fs),
                linkJointTypes=[p.JOINT_PRISMATIC] * len(fs),
                linkJointAxis=[list(f.axis) for f in fs],
                physicsClientId=client,
            )
            p.changeDynamics(hand, -1, linearDamping=0.0, angularDamping=0.0, physicsClientId=client)
            for j, f in enumerate(fs):
                dynamics(client, hand, j)
                check(client, hand, j, scene.moving[f.body])
                p.setJointMotorControl2(hand, j, p.VELOCITY_CONTROL, targetVelocity=f.speed, force=f.max_force,
                                        physicsClientId=client)  # fmt: skip
                links[f.body] = j
        n = len(scene.moving)

        def step():
            p.stepSimulation(physicsClientId=client)

        def states():
            x, q, v, w = np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3))
            for k in range(n):
                if k in free:
                    pos, orn = p.getBasePositionAndOrientation(free[k], physicsClientId=client)
                    lin, ang = p.getBaseVelocity(free[k], physicsClientId=client)
                else:
                    st = p.getLinkState(hand, links[k], computeLinkVelocity=1, computeForwardKinematics=1,
                                        physicsClientId=client)  # fmt: skip
                    pos, orn, lin, ang = st[4], st[5], st[6], st[7]
                x[k], v[k], w[k] = pos, lin, ang
                q[k] = (orn[3], orn[0], orn[1], orn[2])
            return x, quat_wxyz_to_matrix(q), v, w

        return step, states, lambda: None

    return build


def pybullet_run(scene: Scene, time_limit: float, repeats: int) -> Result:
    import importlib.metadata

    import pybullet as p

    label = f"pybullet {importlib.metadata.version('pybullet')}"
    clients: list[int] = []
    build = pybullet_build(scene, clients)
    client = p.connect(p.DIRECT)
    params = p.getPhysicsEngineParameters(physicsClientId=client)
    p.disconnect(client)
    shown = ", ".join(f"{k} {v}" for k, v in params.items() if not k.startswith("gravity") and k != "fixedTimeStep")
    print(f"# {label}: defaults {shown}; fixedTimeStep {scene.dt:g}", file=sys.stderr, flush=True)
    try:
        return run_in_process(label, scene, build, time_limit, repeats)
    finally:
        for c in clients:
            p.disconnect(c)


# --- bead, through its command line ---------------------------------------------------------


def bead_toml(scene: Scene, integrator: str, output_every: int) -> str:
    """bead's scene file for the scene: the grip's own file with output_every set, or the stack
    or pile written out."""
    if scene.source is not None:
        text = scene.source.read_text()
        text, count = re.subn(r"(?m)^output_every\s*=.*$", f"output_every = {output_every}", text)
        if count == 0:
            text = text.replace("[simulation]\n", f"[simulation]\noutput_every = {output_every}\n", 1)
        return text

    def vec(p: Sequence[float]) -> str:
        return "[" + ", ".join(repr(float(c)) for c in p) + "]"

    out = [
        "format = 1",
        f'name = "{scene.name} (scripts/compare/contact3d.py)"',
        "",
        "[simulation]",
        "dimension = 3",
        f"dt = {scene.dt!r}",
        f"duration = {scene.seconds!r}",
        f'integrator = "{integrator}"',
        f"output_every = {output_every}",
    ]
    for b in scene.fixed + scene.moving:
        out += ["", "[[bodies]]", f'name = "{b.name}"', f"position = {vec(b.pos)}"]
        if any(b.vel):
            out.append(f"velocity = {vec(b.vel)}")
        if math.isinf(b.mass):
            out += ['mass = "infinity"', 'inertia = "infinity"']
        else:
            out += [f"mass = {b.mass!r}", f"inertia = {vec(b.inertia)}"]
        if b.kind == "box":
            out.append(f'shape = {{ kind = "box", size = {vec(b.size)} }}')
        else:
            out.append(f'shape = {{ kind = "sphere", radius = {b.size[0]!r} }}')
    out += ["", "[[forces]]", 'kind = "gravity"', f"g = [0.0, 0.0, {-G!r}]", "", "[[contacts]]",
            f'name = "{scene.name}"', 'bodies = "all"', f"friction = {scene.friction!r}"]  # fmt: skip
    return "\n".join(out) + "\n"


def read_trajectory(path: Path, scene: Scene) -> list[tuple[float, np.ndarray]]:
    """The complete rows of bead's trajectory.csv: (t, the moving bodies' 13 columns each)."""
    rows = []
    with open(path) as f:
        header = f.readline().rstrip("\n").split(",")
        col = {name: k for k, name in enumerate(header)}
        pick = np.array([col[f"{b.name}.{c}"] for b in scene.moving for c in
                         ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")])  # fmt: skip
        for line in f:
            if not line.endswith("\n"):
                break  # cut off by the time limit
            cells = line.split(",")
            if len(cells) != len(header):
                break
            values = np.array(cells, dtype=float)
            rows.append((float(values[0]), values[pick].reshape(-1, 13)))
    return rows


def bead_run(scene: Scene, engine: str, bead: Path, time_limit: float, repeats: int) -> Result:
    integrator = engine.removeprefix("bead-")
    result = Result(f"bead {integrator}", scene)
    work = Path(tempfile.mkdtemp(prefix="bead-contact3d-"))
    try:
        return bead_measure(scene, integrator, bead, time_limit, repeats, result, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bead_process(bead: Path, scene_file: Path, out: Path, scene: Scene, integrator: str, limit: float):
    """Runs `bead run` with a wall-clock limit: (wall seconds, CPU seconds, finished)."""
    cmd = [str(bead), "run", str(scene_file), "--out", str(out), "-q", "--dt", repr(scene.dt),
           "--duration", repr(scene.seconds), "--integrator", integrator]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=limit)
        finished = True
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        finished = False
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if finished and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode}: {err.strip()}")
    for line in err.strip().splitlines():
        print(f"# bead: {line}", file=sys.stderr)
    return wall, cpu, finished


def bead_measure(scene: Scene, integrator: str, bead: Path, time_limit: float, repeats: int, result: Result,
                 work: Path) -> Result:  # fmt: skip
    import json

    measured = work / "measured.toml"
    measured.write_text(bead_toml(scene, integrator, 1))
    out = work / "measured"
    wall, cpu, finished = bead_process(bead, measured, out, scene, integrator, time_limit)
    rows = read_trajectory(out / "trajectory.csv", scene) if (out / "trajectory.csv").exists() else []
    meter = Meter(scene)
    last = 0
    reason = None
    for t, cols in rows:
        s = round(t / scene.dt)
        x, q, v, w = cols[:, 0:3], cols[:, 3:7], cols[:, 7:10], cols[:, 10:13]
        reason = meter.add(s, x, quat_wxyz_to_matrix(q), v, w)
        if reason is not None:
            print(f"# bead {integrator} {scene.name}: diverged at step {s}: {reason}", file=sys.stderr, flush=True)
            result.status = f"diverged at step {s}"
            last = s
            break
        last = s
    summary = json.loads((out / "summary.json").read_text()) if finished and (out / "summary.json").exists() else None
    own = bead_own_penetration(out / "constraints.csv", scene.name)
    if own is not None:
        print(f"# bead {integrator} {scene.name} dt {scene.dt:g}: its own {scene.name}.max_penetration "
              f"column's largest value {own:.3e} m", file=sys.stderr)  # fmt: skip
    if not finished:
        result.status = f"stopped at step {last} (time limit)"
        result.s_per_step = wall / last if last else math.nan
        result.cpu_per_sim_s = cpu / (last * scene.dt) if last else math.nan
        print(f"# bead {integrator} {scene.name}: killed after {wall:.1f} s; the last step in its output is {last} "
              f"(it writes through a buffer, so it may have got a few steps further)", file=sys.stderr)  # fmt: skip
        return finish(result, meter, False)
    assert summary is not None
    if reason is not None:
        result.s_per_step = summary["wall_seconds"] / max(1, summary["steps"])
        return finish(result, meter, False)
    if not summary["completed"] or summary.get("error"):
        result.status = f"failed at t = {summary['t_end']:.6g} s (step {summary['steps']}): {summary.get('error')}"
        result.s_per_step = summary["wall_seconds"] / max(1, summary["steps"])
        result.cpu_per_sim_s = cpu / max(scene.dt, summary["t_end"])
        return finish(result, meter, False)
    # Timing: the same run writing only its first and last rows, best of `repeats`; the runs
    # stop repeating once they have taken the time limit together.
    timed = work / "timed.toml"
    timed.write_text(bead_toml(scene, integrator, scene.steps))
    walls, cpus, spent = [], [], 0.0
    for _ in range(max(1, repeats)):
        tout = work / "timed"
        w_, c_, done = bead_process(bead, timed, tout, scene, integrator, time_limit)
        if not done:
            break
        walls.append(json.loads((tout / "summary.json").read_text())["wall_seconds"])
        cpus.append(c_)
        spent += w_
        shutil.rmtree(tout, ignore_errors=True)
        if spent > time_limit:
            break
    if walls:
        result.s_per_step = min(walls) / scene.steps
        result.cpu_per_sim_s = min(cpus) / scene.seconds
    else:
        result.s_per_step = summary["wall_seconds"] / scene.steps
        result.cpu_per_sim_s = cpu / scene.seconds
    return finish(result, meter, True)


def bead_own_penetration(path: Path, group: str) -> float | None:
    """The largest value of bead's own `<group>.max_penetration` column, if it wrote one."""
    if not path.exists():
        return None
    with open(path) as f:
        header = f.readline().rstrip("\n").split(",")
        name = f"{group}.max_penetration"
        if name not in header:
            return None
        k = header.index(name)
        best = 0.0
        for line in f:
            cells = line.rstrip("\n").split(",")
            if len(cells) == len(header) and line.endswith("\n"):
                best = max(best, float(cells[k]))
    return best


# --- command line ---------------------------------------------------------------------------


def version(engine: str) -> str | None:
    try:
        if engine in MUJOCO_ENGINES:
            import mujoco

            return f"mujoco {mujoco.__version__}"
        if engine == "pybullet":
            import importlib.metadata

            import pybullet  # noqa: F401

            return f"pybullet {importlib.metadata.version('pybullet')}"
    except ImportError:
        return None
    return "bead"


def run(engine: str, scene: Scene, time_limit: float = 120.0, repeats: int = 3, bead: Path = BEAD) -> Result:
    if engine in MUJOCO_ENGINES:
        return mujoco_run(scene, engine, time_limit, repeats)
    if engine == "pybullet":
        return pybullet_run(scene, time_limit, repeats)
    return bead_run(scene, engine, bead, time_limit, repeats)


def seconds_argument(text: str) -> float:
    """A number or a fraction such as 1/60."""
    try:
        return float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"expected a number or a fraction such as 1/60, got {text!r}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=ENGINES, required=True)
    parser.add_argument("--scene", choices=SCENES, required=True)
    parser.add_argument("--n", type=int, help="boxes of the stack (10), spheres of the pile (1000)")
    parser.add_argument("--dt", type=seconds_argument, help="step, s (grip: the scene's; stack, pile: 1/60)")
    parser.add_argument("--seconds", type=seconds_argument, help="simulated time (grip: the scene's; else 3)")
    parser.add_argument("--friction", type=float, help="mu (grip: the scene's; stack 0.5; pile 0)")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds of stepping per run")
    parser.add_argument("--repeats", type=int, default=3, help="timing runs, the best counts")
    parser.add_argument("--header", action="store_true", help="print the CSV header line first")
    parser.add_argument("--bead", type=Path, default=BEAD, help="the bead CLI binary")
    parser.add_argument("--grip-scene", type=Path, default=GRIP_SCENE)
    parser.add_argument("--mjcf", action="store_true", help="print the MuJoCo model (MJCF) and exit")
    parser.add_argument("--toml", action="store_true", help="print bead's scene file and exit")
    args = parser.parse_args(argv)

    scene = make_scene(args.scene, args.n, args.friction, args.dt, args.seconds, args.grip_scene)
    if args.mjcf:
        sys.stdout.write(mjcf(scene, args.engine if args.engine in MUJOCO_ENGINES else "mujoco"))
        return 0
    if args.toml:
        integrator = args.engine.removeprefix("bead-") if args.engine in BEAD_ENGINES else scene.integrator
        sys.stdout.write(bead_toml(scene, integrator, 1))
        return 0
    if args.header:
        print(HEADER, flush=True)
    v = version(args.engine)
    if v is None:
        print(f"# {args.engine} not installed", file=sys.stderr)
        print(Result(args.engine, scene, status="not installed").csv(), flush=True)
        return 0
    if args.engine in BEAD_ENGINES and not os.access(args.bead, os.X_OK):
        print(Result(f"bead {args.engine.removeprefix('bead-')}", scene, status="not built").csv(), flush=True)
        return 0
    print(Result.csv(run(args.engine, scene, args.time_limit, args.repeats, args.bead)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
