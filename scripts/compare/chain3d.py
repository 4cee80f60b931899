#!/usr/bin/env python3
"""The 3D chain of rigid bars on spherical joints, run in MuJoCo and pybullet.

This script measures, on this machine, the scene that bead's own ``bead bench chain3d``
runs, in the engines users would pick instead, so that bead's claims of exactness and cost
on it can be checked. One engine per call; it prints CSV to stdout, one line per chain
size::

    engine,n,s_per_step,link_error,energy_drift,status

The scene (``bead::models::chain_3d``)
--------------------------------------
* Three-dimensional, gravity g = (0, 0, -9.81) m/s^2, no contacts.
* N bars, 1 m long in all: bar k (k = 0..N-1) is a box of length L = 1/N along z and
  w = L/2 across (x and y), of mass 1 kg, with its centre at (0, 0, -(k + 1/2) L) and
  unturned. Its principal moments of inertia about its centre are
  I_x = I_y = m (w^2 + L^2) / 12 across and I_z = m w^2 / 6 along (a uniform box).
* Spherical joints: the top of bar 0, (0, 0, L/2) in its frame, is held at the origin;
  the top of bar k is held to the bottom of bar k-1, (0, 0, -L/2) in its frame.
* At t = 0 the chain turns rigidly about the origin at omega = (1, 0, 0.5) rad/s: each
  bar's centre moves at omega x r and each bar turns at omega, so the chain swings and the
  bars spin about their lengths.
* dt = 1e-3 s, 200 steps (``--dt``, ``--steps``).

The engines (``--engine``)
--------------------------
* ``mujoco-rk4-ball``, ``mujoco-implicitfast-ball`` (MuJoCo 4.0): reduced coordinates.
  A chain of N nested bodies, body k placed at the top of bar k (the origin for k = 0,
  (0, 0, -L) from its parent otherwise), with one ball joint at its origin and an explicit
  ``<inertial>`` of 1 kg at (0, 0, -L/2) with the moments above. Initial state: every
  joint at its reference orientation; the first ball joint's velocity omega (its qvel is
  the angular velocity in the body's frame, which is the world's at t = 0), every other
  0 (joint velocities are relative, so that is a rigid rotation). Integrator RK4 or
  implicitfast, contacts disabled, MuJoCo's default solver settings (no constraint rows
  here: joints are exact by construction). Built with ``mujoco.MjSpec`` (a 1000-deep
  nesting is more than the XML parser accepts); ``--mjcf N`` prints the model as MJCF.
* ``mujoco-rk4-hinge``, ``mujoco-implicitfast-hinge``: the same, with each ball joint
  replaced by three hinges about x, y and z at the same point (a spherical joint as Euler
  angles, as a model built of hinges has it); the first bar's three hinge velocities are
  omega's components (at zero angles the hinge axes are the world's), every other 0.
* ``pybullet-p2p`` (pybullet 3.2.7): maximal coordinates, the analogue of bead's. One free
  rigid body per bar (``createMultiBody`` with ``useMaximalCoordinates=True``, the bar's box
  as its collision shape, filtered out of every collision, mass 1 and
  ``localInertiaDiagonal`` set to the moments above, linear and angular damping 0), with its
  velocity and angular velocity set; each joint a ``createConstraint`` of type
  ``JOINT_POINT2POINT`` (Bullet's ``btPoint2PointConstraint``), the first to a static body
  at the origin (pybullet refuses one to the world), with its ``maxForce`` raised from pybullet's default 500 N to 1e30
  (the top joint carries about 10 kN at N = 1000). pybullet's sequential-impulse solver at
  its defaults: ``numSolverIterations`` 50, one substep, error reduction (ERP) 0.2 (printed
  on stderr from ``getPhysicsEngineParameters``).
* ``pybullet-multibody``: reduced coordinates, Bullet's Featherstone ``btMultiBody``: a
  fixed base at the origin and N links, each on a ``JOINT_SPHERICAL`` joint at its top,
  inertia as above (each link has the bar's box as its collision shape, filtered out of every
  collision, and pybullet's moments of a box are those above, checked with
  ``getDynamicsInfo``: without a shape pybullet gives a link no inertia, and setting a link's
  mass with ``changeDynamics`` sets its fixed base free),
  damping 0, the joints' default motors switched off (zero force). Initial state: the first joint's velocity
  omega (``resetJointStateMultiDof``), every other 0. pybullet reports a multibody's state
  in buffers of 128 degrees of freedom, 42 spherical joints (past them ``getLinkState``
  returns NaN or misplaced frames), so this engine runs up to N = 42 and reports
  ``not run: over 42 links`` beyond; the frames it reports are rounded to single precision
  (about 1e-7 m at 1 m), which bounds the gaps measured on it.

What is measured
----------------
* ``s_per_step``: wall-clock seconds per step, timing only the calls that advance the
  engine (``mj_step``, ``stepSimulation``); building the model and measuring are not timed.
* ``link_error``: the largest gap of any joint over all steps, in metres: the distance in
  world coordinates between the joint's point on the child bar and its point on the parent
  (or the origin), each computed from the body's frame (position and orientation) as the
  engine reports it. For reduced coordinates it is rounding; for pybullet's point-to-point
  constraints it is how far the iterative solver leaves the joints apart.
* ``energy_drift``: (E_end - E_0) / |E_0|, E = sum of 1/2 m v^2 + 1/2 omega.I omega + m g z
  (potential zero at the anchor's height), from the same body states; MuJoCo's own
  ``mj_energyPos`` + ``mj_energyVel``. Empty when the run stops early.
* ``status``: ``ok``; ``diverged at step s`` if a state became NaN, a joint gap went over
  1 m, or MuJoCo reported bad accelerations, positions or velocities (it answers them by
  resetting the simulation); ``stopped at step s (time limit)`` past ``--time-limit``
  seconds of stepping; or ``not installed``. When a run stops early the columns cover the
  steps before.

Use
---
    python3 chain3d.py --engine mujoco-rk4-ball --n 10,100,300,1000 --steps 200

The engine's version and settings go to stderr as ``# ...`` lines, so that stdout stays
clean CSV. ``joint_grid.py`` beside this file uses the same engines on Box3D's grid.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

OMEGA = (1.0, 0.0, 0.5)  # rad/s, the chain's initial rigid rotation about the anchor
G = 9.81  # m/s^2, along -z
MASS = 1.0  # kg, each bar
BLOW_UP = 1.0  # m, a joint gap over this counts as divergence
HEADER = "engine,n,s_per_step,link_error,energy_drift,status"
MUJOCO_ENGINES = (
    "mujoco-rk4-ball",
    "mujoco-implicitfast-ball",
    "mujoco-rk4-hinge",
    "mujoco-implicitfast-hinge",
)
PYBULLET_ENGINES = ("pybullet-p2p", "pybullet-multibody")
ENGINES = MUJOCO_ENGINES + PYBULLET_ENGINES
BIG_FORCE = 1e30  # N, pybullet constraints' maxForce: no limit


@dataclass
class Result:
    """One engine's run at one size."""

    engine: str
    n: int
    s_per_step: float
    link_error: float
    energy_drift: float
    status: str

    def csv(self) -> str:
        cost, gap, drift = (
            "" if math.isnan(x) else f"{x:.6e}" for x in (self.s_per_step, self.link_error, self.energy_drift)
        )
        return f"{self.engine},{self.n},{cost},{gap},{drift},{self.status}"


def not_installed(engine: str, n: int) -> str:
    return f"{engine},{n},,,,not installed"


# --- shared machinery (joint_grid.py uses it too) -------------------------------------------


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (k, 3, 3) of unit quaternions (k, 4) given as [x, y, z, w]."""
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    r = np.empty((len(q), 3, 3))
    r[:, 0, 0] = 1 - 2 * (y * y + z * z)
    r[:, 0, 1] = 2 * (x * y - z * w)
    r[:, 0, 2] = 2 * (x * z + y * w)
    r[:, 1, 0] = 2 * (x * y + z * w)
    r[:, 1, 1] = 1 - 2 * (x * x + z * z)
    r[:, 1, 2] = 2 * (y * z - x * w)
    r[:, 2, 0] = 2 * (x * z - y * w)
    r[:, 2, 1] = 2 * (y * z + x * w)
    r[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return r


def largest_gap(a: np.ndarray, b: np.ndarray) -> float:
    """max |a_j - b_j| over the rows of two (k, 3) arrays of joint points; NaN if any is NaN."""
    d = a - b
    gaps = np.sqrt(np.einsum("ij,ij->i", d, d))
    return math.nan if np.isnan(gaps).any() else float(gaps.max(initial=0.0))


def rigid_energy(
    mass: np.ndarray, inertia: np.ndarray, x: np.ndarray, rot: np.ndarray, v: np.ndarray, w: np.ndarray, g: np.ndarray
) -> float:
    """Sum of 1/2 m v^2 + 1/2 w.(R I R^T) w - m g.x over bodies: masses (k,), principal moments
    (k, 3), centres (k, 3), rotations (k, 3, 3), velocities (k, 3), world angular velocities
    (k, 3), gravity (3,)."""
    wb = np.einsum("kji,kj->ki", rot, w)  # angular velocity in the body frame, R^T w
    kinetic = 0.5 * (mass * np.einsum("ij,ij->i", v, v)).sum() + 0.5 * (inertia * wb * wb).sum()
    return float(kinetic - (mass * (x @ g)).sum())


def run_loop(
    engine: str,
    n: int,
    steps: int,
    step: Callable[[], None],
    gap: Callable[[], float],
    energy: Callable[[], float],
    time_limit: float,
    engine_failed: Callable[[], bool] | None = None,
) -> Result:
    """Step `steps` times, timing only `step`, tracking the largest joint gap after each step,
    and the energy at the start and at the end."""
    e0 = energy()
    worst = gap()
    elapsed = 0.0
    clock = time.perf_counter
    for s in range(1, steps + 1):
        t0 = clock()
        step()
        elapsed += clock() - t0
        err = gap()
        bad = math.isnan(err) or err > BLOW_UP or (engine_failed is not None and engine_failed())
        if not math.isnan(err):
            worst = max(worst, err)
        if bad:
            return Result(engine, n, elapsed / s, worst, math.nan, f"diverged at step {s}")
        if elapsed > time_limit and s < steps:
            return Result(engine, n, elapsed / s, worst, math.nan, f"stopped at step {s} (time limit)")
    e1 = energy()
    drift = (e1 - e0) / abs(e0) if e0 != 0.0 else math.nan
    return Result(engine, n, elapsed / steps, worst, drift, "ok")


def mujoco_settings(engine: str) -> tuple[str, str]:
    """(integrator, joint) of a MuJoCo engine name such as mujoco-rk4-ball."""
    _, integrator, joint = engine.split("-")
    return integrator, joint


def mujoco_integrator(name: str):  # -> mujoco.mjtIntegrator
    import mujoco

    return {"rk4": mujoco.mjtIntegrator.mjINT_RK4, "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}[name]


def mujoco_run(engine, n, steps, model, data, step, gap, time_limit) -> Result:
    """`run_loop` for MuJoCo: its warnings to stderr, its own blow-up detection, its energy."""
    import mujoco

    previous = mujoco.get_mju_user_warning()
    # MuJoCo's default handler appends to MUJOCO_LOG.TXT in the working directory.
    mujoco.set_mju_user_warning(lambda msg: print(f"# mujoco warning: {msg}", file=sys.stderr))
    warnings = [
        int(mujoco.mjtWarning.mjWARN_BADQACC),
        int(mujoco.mjtWarning.mjWARN_BADQPOS),
        int(mujoco.mjtWarning.mjWARN_BADQVEL),
    ]

    def energy() -> float:
        mujoco.mj_forward(model, data)  # derived quantities only; the state is untouched
        mujoco.mj_energyPos(model, data)
        mujoco.mj_energyVel(model, data)
        return float(data.energy[0] + data.energy[1])

    def engine_failed() -> bool:
        return any(data.warning[w].number > 0 for w in warnings)

    try:
        return run_loop(engine, n, steps, step, gap, energy, time_limit, engine_failed)
    finally:
        mujoco.set_mju_user_warning(previous)


def pybullet_connect(dt: float, gravity: Sequence[float], substeps: int = 0) -> int:
    """A DIRECT (no GUI) pybullet client with the step, gravity and substeps; the rest default."""
    import pybullet as p

    client = p.connect(p.DIRECT)
    p.setGravity(*gravity, physicsClientId=client)
    p.setPhysicsEngineParameter(fixedTimeStep=dt, numSubSteps=substeps, physicsClientId=client)
    return client


def pybullet_free_body(
    client: int, shape: int, mass: float, inertia: Sequence[float], pos, vel=(0, 0, 0), spin=(0, 0, 0)
) -> int:
    """A free rigid body (maximal coordinates) of collision shape `shape` (-1: none), which
    collides with nothing; mass 0 is static. A moving body needs a shape (pybullet leaves one
    without a shape where it is), and its mass and principal moments are set explicitly (they
    are the shape's anyway: pybullet's box and sphere give the exact moments of a uniform
    solid) and checked."""
    import pybullet as p

    body = p.createMultiBody(
        baseMass=mass,
        baseCollisionShapeIndex=shape,
        basePosition=list(pos),
        useMaximalCoordinates=True,
        physicsClientId=client,
    )
    p.setCollisionFilterGroupMask(body, -1, 0, 0, physicsClientId=client)
    if mass > 0:
        set_mass(client, body, -1, mass, inertia)
        p.resetBaseVelocity(body, list(vel), list(spin), physicsClientId=client)
    return body


def set_mass(client: int, body: int, link: int, mass: float, inertia: Sequence[float]) -> None:
    """Sets a pybullet body's (or link's) mass and principal moments, no damping, and checks
    them (changeDynamics given the moments without the mass zeroes the mass)."""
    import pybullet as p

    p.changeDynamics(
        body,
        link,
        mass=mass,
        localInertiaDiagonal=list(inertia),
        linearDamping=0.0,
        angularDamping=0.0,
        physicsClientId=client,
    )
    check_mass(client, body, link, mass, inertia)


def check_mass(client: int, body: int, link: int, mass: float, inertia: Sequence[float]) -> None:
    """Raises unless pybullet holds this mass and these principal moments for the body (link)."""
    import pybullet as p

    info = p.getDynamicsInfo(body, link, physicsClientId=client)
    if abs(info[0] - mass) > 1e-12 * mass or np.abs(np.subtract(info[2], inertia)).max() > 1e-12 * max(inertia):
        raise RuntimeError(f"pybullet kept mass {info[0]} and inertia {info[2]}, not {mass} and {list(inertia)}")


def pybullet_p2p(client: int, parent: int, child: int, at_parent, at_child) -> int:
    """A point-to-point constraint (a spherical joint) between two free bodies' points, in their
    frames. No force limit."""
    import pybullet as p

    c = p.createConstraint(
        parent, -1, child, -1, p.JOINT_POINT2POINT, [0, 0, 0], list(at_parent), list(at_child), physicsClientId=client
    )
    p.changeConstraint(c, maxForce=BIG_FORCE, physicsClientId=client)
    return c


def pybullet_states(client: int, bodies: Sequence[int]) -> tuple[np.ndarray, ...]:
    """Centres, rotations, velocities and angular velocities of free bodies."""
    import pybullet as p

    x, q, v, w = [], [], [], []
    for b in bodies:
        pos, orn = p.getBasePositionAndOrientation(b, physicsClientId=client)
        lin, ang = p.getBaseVelocity(b, physicsClientId=client)
        x.append(pos), q.append(orn), v.append(lin), w.append(ang)
    return np.array(x), quat_to_matrix(np.array(q)), np.array(v), np.array(w)


def pybullet_report(client: int, what: str) -> None:
    import pybullet as p

    params = p.getPhysicsEngineParameters(physicsClientId=client)
    shown = ", ".join(f"{k} {v}" for k, v in params.items() if not k.startswith("gravity"))
    print(f"# pybullet {what}: {shown}", file=sys.stderr, flush=True)


# --- the chain ------------------------------------------------------------------------------


def bar_inertia(n: int) -> tuple[float, float]:
    """(across, along): a bar's principal moments about its centre, kg m^2."""
    link = 1.0 / n
    w = 0.5 * link
    return MASS * (w * w + link * link) / 12.0, MASS * w * w / 6.0


def initial_chain(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres, velocities and the angular velocity of the bars at t = 0."""
    link = 1.0 / n
    r = np.zeros((n, 3))
    r[:, 2] = -(np.arange(n) + 0.5) * link
    omega = np.array(OMEGA)
    return r, np.cross(omega, r), omega


def mjcf(n: int, dt: float = 1e-3, integrator: str = "rk4", joint: str = "ball") -> str:
    """The MuJoCo model as MJCF text (what `build_mujoco` makes with MjSpec), to read."""
    link = 1.0 / n
    across, along = bar_inertia(n)
    name = {"rk4": "RK4", "implicitfast": "implicitfast"}[integrator]
    lines = [
        '<mujoco model="chain3d">',
        f'  <option timestep="{dt!r}" integrator="{name}" gravity="0 0 {-G}">',
        '    <flag contact="disable"/>',
        "  </option>",
        "  <worldbody>",
    ]
    indent = "    "
    for k in range(n):
        pos = "0 0 0" if k == 0 else f"0 0 {-link!r}"
        lines.append(f'{indent}<body name="b{k}" pos="{pos}">')
        if joint == "ball":
            lines.append(f'{indent}  <joint name="j{k}" type="ball"/>')
        else:
            for a, axis in zip("xyz", ("1 0 0", "0 1 0", "0 0 1")):
                lines.append(f'{indent}  <joint name="j{k}{a}" type="hinge" axis="{axis}"/>')
        lines.append(
            f'{indent}  <inertial pos="0 0 {-link / 2!r}" mass="{MASS!r}" '
            f'diaginertia="{across!r} {across!r} {along!r}"/>'
        )
        indent += "  "
    for _ in range(n):
        indent = indent[:-2]
        lines.append(f"{indent}</body>")
    lines += ["  </worldbody>", "</mujoco>"]
    return "\n".join(lines) + "\n"


def build_mujoco(n: int, dt: float, integrator: str, joint: str):  # -> mujoco.MjModel
    import mujoco

    link = 1.0 / n
    across, along = bar_inertia(n)
    spec = mujoco.MjSpec()
    spec.modelname = "chain3d"
    spec.option.timestep = dt
    spec.option.integrator = mujoco_integrator(integrator)
    spec.option.gravity = [0.0, 0.0, -G]
    spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    parent = spec.worldbody
    for k in range(n):
        body = parent.add_body(
            name=f"b{k}",
            pos=[0.0, 0.0, 0.0 if k == 0 else -link],
            mass=MASS,
            ipos=[0.0, 0.0, -link / 2],
            inertia=[across, across, along],
            explicitinertial=True,
        )
        if joint == "ball":
            body.add_joint(name=f"j{k}", type=mujoco.mjtJoint.mjJNT_BALL)
        else:
            for a, axis in zip("xyz", ([1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0])):
                body.add_joint(name=f"j{k}{a}", type=mujoco.mjtJoint.mjJNT_HINGE, axis=axis)
        parent = body
    return spec.compile()


def run_mujoco(engine: str, n: int, steps: int, dt: float, time_limit: float) -> Result:
    import mujoco

    integrator, joint = mujoco_settings(engine)
    model = build_mujoco(n, dt, integrator, joint)
    data = mujoco.MjData(model)
    data.qvel[:] = 0.0
    data.qvel[0:3] = OMEGA  # the first joint's three velocities; relative, so a rigid turn
    mujoco.mj_forward(model, data)
    link = 1.0 / n
    bottom = np.array([0.0, 0.0, -link])  # in body k's frame: where body k+1's joint is
    bodies = np.arange(1, n + 1)

    def gap() -> float:
        mujoco.mj_kinematics(model, data)  # mj_step leaves the kinematics of the step's start
        x = data.xpos[bodies]
        rot = data.xmat[bodies].reshape(-1, 3, 3)
        above = np.vstack([np.zeros((1, 3)), x[:-1] + rot[:-1] @ bottom])
        return largest_gap(x, above)

    return mujoco_run(engine, n, steps, model, data, lambda: mujoco.mj_step(model, data), gap, time_limit)


def run_pybullet_p2p(n: int, steps: int, dt: float, time_limit: float) -> Result:
    import pybullet as p

    client = pybullet_connect(dt, (0.0, 0.0, -G))
    try:
        pybullet_report(client, "point-to-point")
        link = 1.0 / n
        across, along = bar_inertia(n)
        inertia = np.array([[across, across, along]] * n)
        r, v, omega = initial_chain(n)
        bar = p.createCollisionShape(p.GEOM_BOX, halfExtents=[link / 4, link / 4, link / 2], physicsClientId=client)
        bodies = [pybullet_free_body(client, bar, MASS, inertia[k], r[k], v[k], omega) for k in range(n)]
        top, bottom = np.array([0.0, 0.0, link / 2]), np.array([0.0, 0.0, -link / 2])
        # pybullet will not hold a free body's point to the world: a static body at the origin.
        anchor = pybullet_free_body(client, -1, 0.0, [0.0] * 3, [0.0] * 3)
        pybullet_p2p(client, anchor, bodies[0], [0.0, 0.0, 0.0], top)
        for k in range(1, n):
            pybullet_p2p(client, bodies[k - 1], bodies[k], bottom, top)
        mass, g = np.full(n, MASS), np.array([0.0, 0.0, -G])

        def gap() -> float:
            x, rot, _, _ = pybullet_states(client, bodies)
            above = np.vstack([np.zeros((1, 3)), x[:-1] + rot[:-1] @ bottom])
            return largest_gap(x + rot @ top, above)

        def energy() -> float:
            x, rot, vel, spin = pybullet_states(client, bodies)
            return rigid_energy(mass, inertia, x, rot, vel, spin, g)

        step = lambda: p.stepSimulation(physicsClientId=client)  # noqa: E731
        return run_loop("pybullet-p2p", n, steps, step, gap, energy, time_limit)
    finally:
        p.disconnect(client)


# pybullet passes a multibody's state in buffers of 128 degrees of freedom (MAX_DEGREE_OF_FREEDOM):
# 42 spherical joints of 3. Past them getLinkState returns NaN or misplaced frames.
MULTIBODY_LINKS = 42


def run_pybullet_multibody(n: int, steps: int, dt: float, time_limit: float) -> Result:
    import pybullet as p

    if n > MULTIBODY_LINKS:
        return Result("pybullet-multibody", n, math.nan, math.nan, math.nan, f"not run: over {MULTIBODY_LINKS} links")
    client = pybullet_connect(dt, (0.0, 0.0, -G))
    try:
        pybullet_report(client, "multibody")
        link = 1.0 / n
        across, along = bar_inertia(n)
        # A shape, so that pybullet keeps the links' inertia; it collides with nothing.
        bar = p.createCollisionShape(
            p.GEOM_BOX, halfExtents=[link / 4, link / 4, link / 2], collisionFramePosition=[0.0, 0.0, -link / 2],
            physicsClientId=client,
        )  # fmt: skip
        body = p.createMultiBody(
            baseMass=0.0,
            basePosition=[0.0, 0.0, 0.0],
            linkMasses=[MASS] * n,
            linkCollisionShapeIndices=[bar] * n,
            linkVisualShapeIndices=[-1] * n,
            linkPositions=[[0.0, 0.0, 0.0]] + [[0.0, 0.0, -link]] * (n - 1),
            linkOrientations=[[0, 0, 0, 1]] * n,
            linkInertialFramePositions=[[0.0, 0.0, -link / 2]] * n,
            linkInertialFrameOrientations=[[0, 0, 0, 1]] * n,
            linkParentIndices=list(range(n)),  # 0 is the base, k the link k - 1
            linkJointTypes=[p.JOINT_SPHERICAL] * n,
            linkJointAxis=[[0, 0, 1]] * n,
            physicsClientId=client,
        )
        links = list(range(n))
        for j in links:
            p.setCollisionFilterGroupMask(body, j, 0, 0, physicsClientId=client)
            # The box's own moments; setting a link's mass with changeDynamics frees the base.
            check_mass(client, body, j, MASS, [across, across, along])
            p.setJointMotorControlMultiDof(
                body, j, p.POSITION_CONTROL, targetPosition=[0, 0, 0, 1], targetVelocity=[0, 0, 0],
                positionGain=0, velocityGain=0, force=[0, 0, 0], physicsClientId=client,
            )  # fmt: skip
        p.changeDynamics(body, -1, linearDamping=0.0, angularDamping=0.0, physicsClientId=client)
        p.resetJointStateMultiDof(body, 0, targetValue=[0, 0, 0, 1], targetVelocity=list(OMEGA), physicsClientId=client)
        mass, g = np.full(n, MASS), np.array([0.0, 0.0, -G])
        inertia = np.array([[across, across, along]] * n)
        bottom = np.array([0.0, 0.0, -link])  # in link k's frame (the joint's): link k+1's joint

        def states() -> list:
            # One link at a time: getLinkStates returns garbage for some links of a long chain.
            return [
                p.getLinkState(body, j, computeLinkVelocity=1, computeForwardKinematics=1, physicsClientId=client)
                for j in links
            ]

        def gap() -> float:
            s = states()
            frame = np.array([st[4] for st in s])  # the link frames: the joints
            rot = quat_to_matrix(np.array([st[5] for st in s]))
            above = np.vstack([np.zeros((1, 3)), frame[:-1] + rot[:-1] @ bottom])
            return largest_gap(frame, above)

        def energy() -> float:
            s = states()
            x = np.array([st[0] for st in s])  # centres of mass
            rot = quat_to_matrix(np.array([st[1] for st in s]))
            vel, spin = np.array([st[6] for st in s]), np.array([st[7] for st in s])
            return rigid_energy(mass, inertia, x, rot, vel, spin, g)

        step = lambda: p.stepSimulation(physicsClientId=client)  # noqa: E731
        return run_loop("pybullet-multibody", n, steps, step, gap, energy, time_limit)
    finally:
        p.disconnect(client)


# --- command line ---------------------------------------------------------------------------


def run(engine: str, n: int, steps: int = 200, dt: float = 1e-3, time_limit: float = 300.0) -> Result:
    """The 3D chain of `n` bars in `engine` (one of ENGINES)."""
    if engine in MUJOCO_ENGINES:
        return run_mujoco(engine, n, steps, dt, time_limit)
    if engine == "pybullet-p2p":
        return run_pybullet_p2p(n, steps, dt, time_limit)
    if engine == "pybullet-multibody":
        return run_pybullet_multibody(n, steps, dt, time_limit)
    raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")


def version(engine: str) -> str | None:
    """The engine's version, or None if it cannot be imported."""
    try:
        if engine in MUJOCO_ENGINES:
            import mujoco

            return f"mujoco {mujoco.__version__}"
        import importlib.metadata

        import pybullet  # noqa: F401

        return f"pybullet {importlib.metadata.version('pybullet')}"
    except ImportError:
        return None


def sizes_argument(text: str) -> list[int]:
    """`--n`'s parser: a comma-separated list of positive integers."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of integers, got {text!r}")
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"sizes must be positive integers, got {text!r}")
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=ENGINES)
    parser.add_argument("--n", type=sizes_argument, default=[10, 100, 300, 1000], help="chain sizes, e.g. 10,100")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds of stepping per run")
    parser.add_argument("--no-header", action="store_true", help="omit the CSV header line")
    parser.add_argument("--mjcf", type=int, metavar="N", help="print the MuJoCo model for N as MJCF and exit")
    args = parser.parse_args(argv)

    if args.mjcf is not None:
        integrator, joint = mujoco_settings(args.engine) if args.engine in MUJOCO_ENGINES else ("rk4", "ball")
        sys.stdout.write(mjcf(args.mjcf, args.dt, integrator, joint))
        return 0
    if args.engine is None:
        parser.error("--engine is required")
    if not args.no_header:
        print(HEADER, flush=True)
    v = version(args.engine)
    if v is None:
        print(f"# {args.engine} not installed", file=sys.stderr)
        for n in args.n:
            print(not_installed(args.engine, n), flush=True)
        return 0
    print(f"# {args.engine}: {v}", file=sys.stderr, flush=True)
    for n in args.n:
        print(run(args.engine, n, args.steps, args.dt, args.time_limit).csv(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
