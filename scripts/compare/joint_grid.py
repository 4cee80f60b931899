#!/usr/bin/env python3
"""Box3D's benchmark ``joint_grid``, run in MuJoCo and pybullet.

The scene bead's ``bead bench joint-grid`` runs (``bead::models::joint_grid``), built in the
engines of ``chain3d.py`` (whose machinery this script shares). One engine per call; CSV to
stdout, one line per grid size::

    engine,n,s_per_step,link_error,energy_drift,status

The scene
---------
Box3D's ``CreateJointGrid`` (``shared/benchmarks.c`` of erincatto/box3d, read at commit
30c67b5, where n = 100), with Box3D's defaults written out:

* n x n spheres of radius 0.4 m and density 1000 kg/m^3 (Box3D's ``b3DefaultShapeDef``):
  m = 268.08 kg, moment 2/5 m r^2 = 17.16 kg m^2 about every axis. Sphere (k, i), column k
  and row i, at (k, -i, 0) m, at rest. Row i = 0 is static; the spheres collide with nothing
  (Box3D filters them out of each other's collisions, and there is nothing else).
* Spherical joints halfway between neighbours: (k, i-1) to (k, i) at (0, -0.5, 0) in the
  upper sphere's frame and (0, 0.5, 0) in the lower's, for i >= 1; (k-1, i) to (k, i) at
  (0.5, 0, 0) and (-0.5, 0, 0), for k >= 1 and i >= 1 (Box3D also joins the static spheres
  of row 0 to each other, which holds nothing).
* Gravity (0, -10, 0) m/s^2 (Box3D's ``b3DefaultWorldDef``).
* Box3D steps it 100 times at 1/60 s with 4 substeps. Hanging straight down from the static
  row, the grid is in equilibrium: the joints down carry the spheres below them (the top ones
  98 spheres, 263 kN), the joints across nothing, and an exact solver leaves every sphere
  where it is. What the benchmark measures is the cost of a step of 10,000 bodies and 19,800
  joints, and here also how far each engine's joints give under that load.

The engines (``--engine``)
--------------------------
Each step of the table is one step of 1/60 s (``--dt``) made of 4 substeps (``--substeps``),
as Box3D makes it.

* ``mujoco-rk4-ball``, ``mujoco-implicitfast-ball`` (and ``-hinge``, with three hinges for
  each ball, as in ``chain3d.py``): each column a chain of bodies in reduced coordinates, its
  first body on a ball joint at (0, 0.5, 0) in its frame, hung from the world where the
  static sphere's joint is, each next body (0, -1, 0) below its parent on a ball joint at
  (0, 0.5, 0); mass and inertia of the sphere, explicit. The joints across, which close the
  grid's loops, are MuJoCo ``connect`` equality constraints (anchor (0.5, 0, 0) in the left
  sphere's frame) at MuJoCo's defaults: solref (0.02, 1), solimp (0.9, 0.95, 0.001, 0.5, 2),
  Newton solver, 100 iterations, tolerance 1e-8; an arena of 4 GiB (the default is too small
  for n = 100). A step of 1/60 s is 4 ``mj_step`` of 1/240 s. Contacts disabled.
* ``pybullet-p2p``: maximal coordinates, as Box3D and bead have it: a free rigid body per
  sphere (its sphere shape, filtered out of every collision; mass and moments set and
  checked; no damping), the top row static, every joint a ``JOINT_POINT2POINT`` constraint
  with no force limit (pybullet's default is 500 N). ``numSubSteps`` 4, the solver's
  defaults (50 iterations).
* ``pybullet-multibody``: each column a Featherstone multibody, its static sphere the fixed
  base and the spheres below links on ``JOINT_SPHERICAL`` joints, the joints across
  ``JOINT_POINT2POINT`` constraints between the columns' links (Bullet's
  ``btMultiBodyPoint2Point``), no force limit; pybullet reports the state of at most 42
  spherical joints a multibody, so it runs up to n = 43 (``not run`` beyond).

The columns are those of ``chain3d.py``: ``link_error`` the largest distance between the two
points of any joint over all steps (from the bodies' frames), ``energy_drift``
(E_end - E_0) / |E_0| with the potential zero at y = 0, ``status`` ok, ``diverged at step
s``, ``stopped at step s (time limit)``, ``not run: ...`` or ``not installed``.

Use
---
    python3 joint_grid.py --engine pybullet-p2p --n 10,30,100 --steps 100
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Sequence

import numpy as np

import chain3d as c3

RADIUS = 0.4  # m
DENSITY = 1000.0  # kg/m^3
MASS = DENSITY * 4.0 / 3.0 * math.pi * RADIUS**3  # kg
INERTIA = 0.4 * MASS * RADIUS**2  # kg m^2, about every axis
G = 10.0  # m/s^2, along -y
ARENA = 4 << 30  # bytes, MuJoCo's arena (MJCF <size memory="4G">)
UP, DOWN = np.array([0.0, 0.5, 0.0]), np.array([0.0, -0.5, 0.0])
LEFT, RIGHT = np.array([-0.5, 0.0, 0.0]), np.array([0.5, 0.0, 0.0])


def start(n: int) -> np.ndarray:
    """Sphere centres at t = 0, (n, n, 3) indexed [k, i]."""
    k, i = np.meshgrid(np.arange(n, dtype=float), np.arange(n, dtype=float), indexing="ij")
    return np.stack([k, -i, np.zeros_like(k)], axis=-1)


def grid_gap(x: np.ndarray, rot: np.ndarray) -> float:
    """The largest joint gap of the grid from its spheres' centres (n, n, 3) and rotations
    (n, n, 3, 3), the static row included."""
    point = lambda sel, local: x[sel] + rot[sel] @ local  # noqa: E731
    down = c3.largest_gap(
        point((slice(None), slice(1, None)), UP).reshape(-1, 3),
        point((slice(None), slice(None, -1)), DOWN).reshape(-1, 3),
    )
    across = c3.largest_gap(
        point((slice(1, None), slice(1, None)), LEFT).reshape(-1, 3),
        point((slice(None, -1), slice(1, None)), RIGHT).reshape(-1, 3),
    )
    return math.nan if math.isnan(down) or math.isnan(across) else max(down, across)


def full(n: int, x: np.ndarray, rot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grid's centres and rotations from those of its moving spheres, (n * (n-1), ...) in
    column order, with the static row put back."""
    xs, rs = start(n), np.broadcast_to(np.eye(3), (n, n, 3, 3)).copy()
    xs[:, 1:] = x.reshape(n, n - 1, 3)
    rs[:, 1:] = rot.reshape(n, n - 1, 3, 3)
    return xs, rs


def energy_of(x, rot, v, w) -> float:
    count = len(x)
    return c3.rigid_energy(
        np.full(count, MASS), np.full((count, 3), INERTIA), x, rot, v, w, np.array([0.0, -G, 0.0])
    )


# --- MuJoCo ---------------------------------------------------------------------------------


def build_mujoco(n: int, dt: float, integrator: str, joint: str):  # -> mujoco.MjModel
    import mujoco

    spec = mujoco.MjSpec()
    spec.modelname = "joint_grid"
    spec.option.timestep = dt
    spec.option.integrator = c3.mujoco_integrator(integrator)
    spec.option.gravity = [0.0, -G, 0.0]
    spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    # MuJoCo's default arena is too small for the n = 100 grid's 29,403 constraint rows.
    spec.memory = ARENA
    for k in range(n):
        parent = spec.worldbody
        for i in range(1, n):
            body = parent.add_body(
                name=f"s{k}_{i}",
                pos=[float(k), -1.0, 0.0] if i == 1 else [0.0, -1.0, 0.0],
                mass=MASS,
                ipos=[0.0, 0.0, 0.0],
                inertia=[INERTIA] * 3,
                explicitinertial=True,
            )
            if joint == "ball":
                body.add_joint(type=mujoco.mjtJoint.mjJNT_BALL, pos=list(UP))
            else:
                for axis in ([1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]):
                    body.add_joint(type=mujoco.mjtJoint.mjJNT_HINGE, axis=axis, pos=list(UP))
            parent = body
    for k in range(1, n):
        for i in range(1, n):
            eq = spec.add_equality()
            eq.type = mujoco.mjtEq.mjEQ_CONNECT
            eq.objtype = mujoco.mjtObj.mjOBJ_BODY
            eq.name1, eq.name2 = f"s{k - 1}_{i}", f"s{k}_{i}"
            data = np.zeros_like(eq.data)
            data[0:3] = RIGHT
            eq.data = data
    return spec.compile()


def run_mujoco(engine: str, n: int, steps: int, dt: float, substeps: int, time_limit: float) -> c3.Result:
    import mujoco

    integrator, joint = c3.mujoco_settings(engine)
    try:
        model = build_mujoco(n, dt / substeps, integrator, joint)
        data = mujoco.MjData(model)
    except ValueError as e:
        print(f"# {engine}: {e}", file=sys.stderr)
        return c3.Result(engine, n, math.nan, math.nan, math.nan, "not run: MuJoCo could not build it")
    mujoco.mj_forward(model, data)
    bodies = np.arange(1, model.nbody)  # column by column, top first: the order of `full`

    def step() -> None:
        mujoco.mj_step(model, data, nstep=substeps)

    def gap() -> float:
        mujoco.mj_kinematics(model, data)
        x, rot = full(n, data.xpos[bodies], data.xmat[bodies].reshape(-1, 3, 3))
        return grid_gap(x, rot)

    return c3.mujoco_run(engine, n, steps, model, data, step, gap, time_limit)


# --- pybullet -------------------------------------------------------------------------------


def run_pybullet_p2p(n: int, steps: int, dt: float, substeps: int, time_limit: float) -> c3.Result:
    import pybullet as p

    client = c3.pybullet_connect(dt, (0.0, -G, 0.0), substeps)
    try:
        c3.pybullet_report(client, "point-to-point")
        ball = p.createCollisionShape(p.GEOM_SPHERE, radius=RADIUS, physicsClientId=client)
        x0 = start(n)
        ids = np.zeros((n, n), dtype=int)
        for k in range(n):
            for i in range(n):
                mass, shape = (0.0, -1) if i == 0 else (MASS, ball)
                ids[k, i] = c3.pybullet_free_body(client, shape, mass, [INERTIA] * 3, x0[k, i])
                if i > 0:
                    c3.pybullet_p2p(client, int(ids[k, i - 1]), int(ids[k, i]), DOWN, UP)
                if k > 0 and i > 0:
                    c3.pybullet_p2p(client, int(ids[k - 1, i]), int(ids[k, i]), RIGHT, LEFT)
        moving = [int(b) for b in ids[:, 1:].reshape(-1)]

        def gap() -> float:
            x, rot, _, _ = c3.pybullet_states(client, moving)
            return grid_gap(*full(n, x, rot))

        def energy() -> float:
            return energy_of(*c3.pybullet_states(client, moving))

        step = lambda: p.stepSimulation(physicsClientId=client)  # noqa: E731
        return c3.run_loop("pybullet-p2p", n, steps, step, gap, energy, time_limit)
    finally:
        p.disconnect(client)


def run_pybullet_multibody(n: int, steps: int, dt: float, substeps: int, time_limit: float) -> c3.Result:
    import pybullet as p

    if n - 1 > c3.MULTIBODY_LINKS:
        return c3.Result("pybullet-multibody", n, math.nan, math.nan, math.nan, f"not run: over {c3.MULTIBODY_LINKS} links")
    client = c3.pybullet_connect(dt, (0.0, -G, 0.0), substeps)
    try:
        c3.pybullet_report(client, "multibody")
        links = n - 1
        # Link frames at the joints, the sphere (its centre of mass) 0.5 m below each.
        ball = p.createCollisionShape(
            p.GEOM_SPHERE, radius=RADIUS, collisionFramePosition=list(DOWN), physicsClientId=client
        )
        columns = []
        for k in range(n):
            body = p.createMultiBody(
                baseMass=0.0,
                basePosition=[float(k), 0.0, 0.0],
                linkMasses=[MASS] * links,
                linkCollisionShapeIndices=[ball] * links,
                linkVisualShapeIndices=[-1] * links,
                linkPositions=[list(DOWN)] + [[0.0, -1.0, 0.0]] * (links - 1),
                linkOrientations=[[0, 0, 0, 1]] * links,
                linkInertialFramePositions=[list(DOWN)] * links,
                linkInertialFrameOrientations=[[0, 0, 0, 1]] * links,
                linkParentIndices=list(range(links)),
                linkJointTypes=[p.JOINT_SPHERICAL] * links,
                linkJointAxis=[[0, 0, 1]] * links,
                physicsClientId=client,
            )
            p.changeDynamics(body, -1, linearDamping=0.0, angularDamping=0.0, physicsClientId=client)
            for j in range(links):
                p.setCollisionFilterGroupMask(body, j, 0, 0, physicsClientId=client)
                c3.check_mass(client, body, j, MASS, [INERTIA] * 3)
                p.setJointMotorControlMultiDof(
                    body, j, p.POSITION_CONTROL, targetPosition=[0, 0, 0, 1], targetVelocity=[0, 0, 0],
                    positionGain=0, velocityGain=0, force=[0, 0, 0], physicsClientId=client,
                )  # fmt: skip
            columns.append(body)
        for k in range(1, n):
            for j in range(links):
                # Frame positions of a multibody link are from its centre of mass.
                c = p.createConstraint(
                    columns[k - 1], j, columns[k], j, p.JOINT_POINT2POINT, [0, 0, 0], list(RIGHT), list(LEFT),
                    physicsClientId=client,
                )  # fmt: skip
                p.changeConstraint(c, maxForce=c3.BIG_FORCE, physicsClientId=client)

        def states():
            x, q, v, w = [], [], [], []
            for body in columns:
                for j in range(links):
                    st = p.getLinkState(body, j, computeLinkVelocity=1, computeForwardKinematics=1, physicsClientId=client)
                    x.append(st[0]), q.append(st[1]), v.append(st[6]), w.append(st[7])
            return np.array(x), c3.quat_to_matrix(np.array(q)), np.array(v), np.array(w)

        def gap() -> float:
            x, rot, _, _ = states()
            return grid_gap(*full(n, x, rot))

        def energy() -> float:
            return energy_of(*states())

        step = lambda: p.stepSimulation(physicsClientId=client)  # noqa: E731
        return c3.run_loop("pybullet-multibody", n, steps, step, gap, energy, time_limit)
    finally:
        p.disconnect(client)


# --- command line ---------------------------------------------------------------------------


def run(engine: str, n: int, steps: int = 100, dt: float = 1 / 60, substeps: int = 4, time_limit: float = 300.0):
    """Box3D's joint grid of `n` x `n` spheres in `engine` (one of chain3d.ENGINES)."""
    if n < 2:
        raise ValueError(f"a joint grid needs at least 2 x 2 spheres, got n = {n}")
    if engine in c3.MUJOCO_ENGINES:
        return run_mujoco(engine, n, steps, dt, substeps, time_limit)
    if engine == "pybullet-p2p":
        return run_pybullet_p2p(n, steps, dt, substeps, time_limit)
    if engine == "pybullet-multibody":
        return run_pybullet_multibody(n, steps, dt, substeps, time_limit)
    raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(c3.ENGINES)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=c3.ENGINES, required=True)
    parser.add_argument("--n", type=c3.sizes_argument, default=[10, 30, 100], help="spheres along a side, e.g. 10,30")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--dt", type=float, default=1 / 60)
    parser.add_argument("--substeps", type=int, default=4)
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds of stepping per run")
    parser.add_argument("--no-header", action="store_true", help="omit the CSV header line")
    args = parser.parse_args(argv)
    if any(n < 2 for n in args.n):
        parser.error("a joint grid needs n >= 2")
    if not args.no_header:
        print(c3.HEADER, flush=True)
    v = c3.version(args.engine)
    if v is None:
        print(f"# {args.engine} not installed", file=sys.stderr)
        for n in args.n:
            print(c3.not_installed(args.engine, n), flush=True)
        return 0
    print(f"# {args.engine}: {v}, {args.substeps} substeps a step", file=sys.stderr, flush=True)
    for n in args.n:
        print(run(args.engine, n, args.steps, args.dt, args.substeps, args.time_limit).csv(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
