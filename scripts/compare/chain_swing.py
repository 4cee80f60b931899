#!/usr/bin/env python3
"""The "chain swing" scene, run in engines users might pick instead of bead.

This script measures pymunk and MuJoCo on this machine, on the same scene that
bead's own ``bead bench chain`` runs, so that anyone can check bead's
performance claims. It prints CSV to stdout, one line per chain size::

    engine,n,s_per_step,link_error,status

The scene
---------
* Two-dimensional, in the x-y plane, gravity g = (0, -9.81) m/s^2.
* A fixed anchor at the origin, x_0 = (0, 0).
* N point particles of mass 1 kg each, joined by rigid rods of length 1/N, so
  the chain is 1 m long in all. At t = 0 it hangs straight down: particle k
  (k = 1..N) is at x_k = (0, -k/N).
* Initial velocity: a rigid rotation about the anchor at omega = 1 rad/s, so a
  particle at r = (x, y) moves with omega x r = (-omega*y, omega*x); particle k
  starts with velocity (omega*k/N, 0).
* Time step dt = 1e-3 s, 2000 steps (``--dt``, ``--steps``).

How each engine builds it
-------------------------
* pymunk (7.x): one ``pymunk.Body`` of mass 1 per particle with no shape (so
  no collisions) and an infinite moment of inertia, i.e. a true point mass
  that never rotates (the rods attach at the body centres, so they exert no
  torque and the moment would not matter anyway). Consecutive bodies, and the
  first body and the space's static body at the origin, are joined by
  ``pymunk.PinJoint`` with distance exactly 1/N. ``space.iterations`` is 10
  (pymunk's default; ``--iterations``). Each step is ``space.step(dt)``.
* MuJoCo (3.x or newer): reduced coordinates. A chain of N bodies, each with
  one hinge joint about z placed at its parent's particle (the first at the
  anchor), and its mass of 1 kg at the end of its link, 1/N further down
  (an explicit ``<inertial>`` with a tiny rotational inertia of 1e-6 m L^2,
  L = 1/N, so it is a point mass to one part in a million). A site at each
  particle gives its position. Integrator RK4, timestep dt, contacts
  disabled. Initial joint velocities: the first hinge 1 rad/s, every other 0
  (joint angles are relative, so that is a rigid rotation at 1 rad/s). The
  model is built with ``mujoco.MjSpec`` (a 1000-deep nesting of ``<body>``
  elements is more than MuJoCo's XML parser accepts); ``mjcf(n)`` returns the
  same model as MJCF text for reading.

What is measured
----------------
* ``s_per_step``: wall-clock seconds per step, timing only the calls that
  advance the engine (model building and the link-error measurement are not
  timed).
* ``link_error``: the largest | |x_k - x_{k-1}| - 1/N | over all links and all
  steps, in metres (the anchor counts as x_0). Rods are exact in MuJoCo's
  reduced coordinates, so there it is at rounding level; in pymunk it is how
  far the iterative solver leaves the rods stretched.
* ``status``: ``ok``, or ``diverged at step s`` if the state became NaN, the
  link error went over 1 m, or (MuJoCo) the engine reported bad
  accelerations/positions/velocities, which it answers by silently resetting
  the simulation. The run stops there, and the other columns describe the
  steps up to that point.

Use
---
    python3 chain_swing.py --engine pymunk --n 100,300,1000 --steps 2000

or from Python::

    from chain_swing import run
    result = run("mujoco", n=100, steps=2000, dt=1e-3)

The engines' versions are printed to stderr as ``# engine version`` lines, so
that stdout stays clean CSV.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

OMEGA = 1.0  # rad/s, the initial rigid rotation about the anchor
GRAVITY = (0.0, -9.81)  # m/s^2
LENGTH = 1.0  # m, the chain's total length
MASS = 1.0  # kg, each particle
BLOW_UP = 1.0  # m, a link error over this counts as divergence
HEADER = "engine,n,s_per_step,link_error,status"
ENGINES = ("pymunk", "mujoco")


@dataclass
class Result:
    """One engine's run of the chain swing at one chain size."""

    engine: str
    n: int
    s_per_step: float
    link_error: float
    status: str

    def csv(self) -> str:
        return f"{self.engine},{self.n},{self.s_per_step:.6e},{self.link_error:.6e},{self.status}"


def initial_state(n: int, omega: float = OMEGA) -> tuple[np.ndarray, np.ndarray]:
    """Positions and velocities of particles 1..n at t = 0, as (n, 2) arrays."""
    k = np.arange(1, n + 1, dtype=float)
    pos = np.column_stack([np.zeros(n), -k * (LENGTH / n)])
    vel = np.column_stack([-omega * pos[:, 1], omega * pos[:, 0]])
    return pos, vel


def link_error(pos: np.ndarray, n: int) -> float:
    """max_k | |x_k - x_{k-1}| - 1/n | for particle positions pos (n, 2 or 3), x_0 = origin.

    NaN positions give NaN.
    """
    d = np.diff(pos, axis=0, prepend=np.zeros((1, pos.shape[1])))
    err = np.abs(np.sqrt(np.einsum("ij,ij->i", d, d)) - LENGTH / n)
    return float(err.max()) if not np.isnan(err).any() else math.nan


def _loop(
    engine: str,
    n: int,
    steps: int,
    step: Callable[[], None],
    positions: Callable[[], np.ndarray],
    extra_check: Callable[[], bool] | None = None,
) -> Result:
    """Step `steps` times, timing only `step`, and track the link error after each step."""
    worst = link_error(positions(), n)
    elapsed = 0.0
    clock = time.perf_counter
    for s in range(1, steps + 1):
        t0 = clock()
        step()
        elapsed += clock() - t0
        err = link_error(positions(), n)
        bad = math.isnan(err) or err > BLOW_UP or (extra_check is not None and extra_check())
        if not math.isnan(err):
            worst = max(worst, err)
        if bad:
            return Result(engine, n, elapsed / s, worst, f"diverged at step {s}")
    return Result(engine, n, elapsed / steps, worst, "ok")


# --- pymunk ---------------------------------------------------------------------------------


def pymunk_version() -> str:
    import pymunk

    return pymunk.version


def run_pymunk(n: int, steps: int, dt: float, iterations: int = 10) -> Result:
    """The chain swing in pymunk: point-mass bodies joined by PinJoints."""
    import pymunk

    space = pymunk.Space()
    space.gravity = GRAVITY
    space.iterations = iterations
    pos, vel = initial_state(n)
    link = LENGTH / n
    bodies: list[pymunk.Body] = []
    parent = space.static_body  # at the origin: the anchor
    for k in range(n):
        body = pymunk.Body(mass=MASS, moment=math.inf)
        body.position = (float(pos[k, 0]), float(pos[k, 1]))
        body.velocity = (float(vel[k, 0]), float(vel[k, 1]))
        joint = pymunk.PinJoint(parent, body, (0.0, 0.0), (0.0, 0.0))
        joint.distance = link
        space.add(body, joint)
        bodies.append(body)
        parent = body

    def positions() -> np.ndarray:
        return np.array([tuple(b.position) for b in bodies], dtype=float)

    return _loop("pymunk", n, steps, lambda: space.step(dt), positions)


# --- MuJoCo ---------------------------------------------------------------------------------


def mujoco_version() -> str:
    import mujoco

    return mujoco.__version__


def _tiny_inertia(n: int) -> float:
    """Each body's rotational inertia about its centre: a millionth of m L^2."""
    return 1e-6 * MASS * (LENGTH / n) ** 2


def mjcf(n: int, dt: float = 1e-3) -> str:
    """The MuJoCo model as MJCF text (the same model `build_mujoco` makes with MjSpec).

    MuJoCo's XML parser limits nesting depth, so for large n this text may not load;
    it is here to read.
    """
    link = LENGTH / n
    inertia = _tiny_inertia(n)
    lines = [
        '<mujoco model="chain_swing">',
        f'  <option timestep="{dt!r}" integrator="RK4" gravity="{GRAVITY[0]} {GRAVITY[1]} 0">',
        '    <flag contact="disable"/>',
        "  </option>",
        "  <worldbody>",
    ]
    indent = "    "
    for k in range(1, n + 1):
        pos = "0 0 0" if k == 1 else f"0 {-link!r} 0"
        lines.append(f'{indent}<body name="b{k}" pos="{pos}">')
        lines.append(f'{indent}  <joint name="j{k}" type="hinge" axis="0 0 1" pos="0 0 0"/>')
        lines.append(
            f'{indent}  <inertial pos="0 {-link!r} 0" mass="{MASS!r}" '
            f'diaginertia="{inertia!r} {inertia!r} {inertia!r}"/>'
        )
        lines.append(f'{indent}  <site name="p{k}" pos="0 {-link!r} 0"/>')
        indent += "  "
    for _ in range(n):
        indent = indent[:-2]
        lines.append(f"{indent}</body>")
    lines += ["  </worldbody>", "</mujoco>"]
    return "\n".join(lines) + "\n"


def build_mujoco(n: int, dt: float):  # -> mujoco.MjModel
    """Compile the chain with mujoco.MjSpec (no XML nesting limit)."""
    import mujoco

    link = LENGTH / n
    inertia = _tiny_inertia(n)
    spec = mujoco.MjSpec()
    spec.modelname = "chain_swing"
    spec.option.timestep = dt
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_RK4
    spec.option.gravity = [GRAVITY[0], GRAVITY[1], 0.0]
    spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    parent = spec.worldbody
    for k in range(1, n + 1):
        body = parent.add_body(
            name=f"b{k}",
            pos=[0.0, 0.0 if k == 1 else -link, 0.0],
            mass=MASS,
            ipos=[0.0, -link, 0.0],
            inertia=[inertia, inertia, inertia],
            explicitinertial=True,
        )
        body.add_joint(name=f"j{k}", type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0.0, 0.0, 1.0])
        body.add_site(name=f"p{k}", pos=[0.0, -link, 0.0])
        parent = body
    return spec.compile()


def run_mujoco(n: int, steps: int, dt: float) -> Result:
    """The chain swing in MuJoCo: a hinge chain in reduced coordinates, RK4."""
    import mujoco

    # MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the working
    # directory; send its warnings to stderr instead.
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda msg: print(f"# mujoco warning: {msg}", file=sys.stderr))
    try:
        return _run_mujoco(n, steps, dt)
    finally:
        mujoco.set_mju_user_warning(previous)


def _run_mujoco(n: int, steps: int, dt: float) -> Result:
    import mujoco

    model = build_mujoco(n, dt)
    data = mujoco.MjData(model)
    data.qpos[:] = 0.0
    data.qvel[:] = 0.0
    data.qvel[0] = OMEGA  # relative angles: only the first hinge turns
    mujoco.mj_forward(model, data)
    # The engine's own blow-up detection resets the simulation and leaves a warning.
    warnings = [
        int(mujoco.mjtWarning.mjWARN_BADQACC),
        int(mujoco.mjtWarning.mjWARN_BADQPOS),
        int(mujoco.mjtWarning.mjWARN_BADQVEL),
    ]

    def positions() -> np.ndarray:
        # After mj_step the kinematics describe the state before the step; bring them
        # up to date (not timed).
        mujoco.mj_kinematics(model, data)
        return data.site_xpos.copy()

    def engine_reset() -> bool:
        return any(data.warning[w].number > 0 for w in warnings)

    return _loop("mujoco", n, steps, lambda: mujoco.mj_step(model, data), positions, engine_reset)


# --- command line ---------------------------------------------------------------------------


def run(engine: str, n: int, steps: int = 2000, dt: float = 1e-3, iterations: int = 10) -> Result:
    """Run the chain swing with `n` particles in `engine` ("pymunk" or "mujoco")."""
    if engine == "pymunk":
        return run_pymunk(n, steps, dt, iterations)
    if engine == "mujoco":
        return run_mujoco(n, steps, dt)
    raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")


def version(engine: str) -> str | None:
    """The engine's version, or None if it cannot be imported."""
    try:
        return pymunk_version() if engine == "pymunk" else mujoco_version()
    except ImportError:
        return None


def sizes_argument(text: str) -> list[int]:
    """`--n`'s parser: a comma-separated list of positive integers (piles.py uses it too)."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of integers, got {text!r}")
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"sizes must be positive integers, got {text!r}")
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=ENGINES, required=True)
    parser.add_argument("--n", type=sizes_argument, default=[100, 300, 1000], help="chain sizes, e.g. 100,300,1000")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--iterations", type=int, default=10, help="pymunk's space.iterations")
    parser.add_argument("--no-header", action="store_true", help="omit the CSV header line")
    parser.add_argument("--mjcf", type=int, metavar="N", help="print the MuJoCo model for N as MJCF and exit")
    args = parser.parse_args(argv)

    if args.mjcf is not None:
        sys.stdout.write(mjcf(args.mjcf, args.dt))
        return 0

    if not args.no_header:
        print(HEADER, flush=True)
    v = version(args.engine)
    if v is None:
        print(f"# {args.engine} not installed", file=sys.stderr)
        for n in args.n:
            print(f"{args.engine},{n},,,not installed", flush=True)
        return 0
    extra = f", iterations {args.iterations}" if args.engine == "pymunk" else ", integrator RK4"
    print(f"# {args.engine} {v}{extra}", file=sys.stderr, flush=True)
    for n in args.n:
        print(run(args.engine, n, args.steps, args.dt, args.iterations).csv(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
