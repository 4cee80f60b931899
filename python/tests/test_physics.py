"""The same physics checks as the Rust side, through the Python package."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import bead

G = 9.81


def crossings(t: npt.NDArray[np.float64], x: npt.NDArray[np.float64]) -> list[float]:
    """Times where x crosses zero upwards, linearly interpolated between rows."""
    out = []
    for k in range(len(x) - 1):
        if x[k] < 0.0 <= x[k + 1]:
            out.append(float(t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])))
    return out


def elliptic_k(k: float) -> float:
    """The complete elliptic integral of the first kind, by the arithmetic-geometric mean."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    while abs(a - b) > 1e-15:
        a, b = (a + b) / 2.0, math.sqrt(a * b)
    return math.pi / (2.0 * a)


def test_pendulum_period_at_60_degrees_is_the_elliptic_integral(scenes: Path) -> None:
    # 1 m rod, released at 60°: T = 4 √(L/g) K(sin 30°).
    run = bead.load(scenes / "pendulum.toml", output_every=1, duration=8.0).run()
    t = run.trajectory["t"]
    upward = crossings(t, run.trajectory["bob.x"])
    assert len(upward) >= 3
    periods = np.diff(upward)
    expected = 4.0 * math.sqrt(1.0 / G) * elliptic_k(math.sin(math.radians(30.0)))
    assert np.all(np.abs(periods / expected - 1.0) < 1e-5), (periods, expected)


def test_a_hanging_chain_carries_the_weight_below_each_link() -> None:
    n, m, link = 6, 0.3, 0.25
    scene = bead.Scene("chain", dt=1e-3, duration=0.5, solver="sparse")
    scene.particle("top", [0.0, 0.0], mass=math.inf)
    scene.force("gravity", g=[0.0, -G])
    for k in range(1, n + 1):
        scene.particle(f"p{k}", [0.0, -k * link], mass=m)
        scene.constraint("distance", between=[f"p{k - 1}" if k > 1 else "top", f"p{k}"], name=f"rod{k}")
    sim = scene.build()
    lam = sim.diagnostics()["lambda"]
    for k in range(1, n + 1):
        below = n - k + 1
        # λ < 0 is tension: the rod pulls its ends together with m g (links below).
        assert abs(lam[f"rod{k}"][0] + m * G * below) < 1e-9, (k, lam[f"rod{k}"])
    # At rest it stays at rest: the tensions hold the weight exactly.
    run = sim.run()
    assert np.max(np.abs(run.trajectory[f"p{n}.y"] + n * link)) < 1e-9
    assert np.allclose(run.constraints["rod1.lambda"], -m * G * n, rtol=0, atol=1e-8)


def test_energy_and_rod_lengths_are_kept_on_the_double_pendulum(scenes: Path) -> None:
    run = bead.load(scenes / "double_pendulum.toml", duration=3.0).run()
    s = run.summary
    assert s["completed"] is True
    assert s["max_abs_C"] < 1e-6
    assert abs(s["energy_end"] - s["energy_start"]) < 1e-3
    x, y = run.trajectory["a.x"], run.trajectory["a.y"]
    assert np.max(np.abs(np.hypot(x, y) - 1.0)) < 1e-6


def test_steps_and_state_follow_the_equations_of_motion() -> None:
    scene = bead.Scene("fall", dt=0.01, duration=1.0)
    scene.particle("ball", [0.0, 10.0], velocity=[1.0, 0.0])
    scene.force("gravity", g=[0.0, -G])
    sim = scene.build(integrator="rk4")
    for _ in range(50):
        sim.step()
    state = sim.state
    assert abs(state.t - 0.5) < 1e-12
    # RK4 integrates a constant acceleration exactly.
    assert np.allclose(state.q, [0.5, 10.0 - 0.5 * G * 0.25], rtol=0, atol=1e-12)
    assert np.allclose(state.v, [1.0, -G * 0.5], rtol=0, atol=1e-12)


def test_a_free_3d_body_keeps_its_angular_momentum_through_the_flip() -> None:
    # A box spinning near its middle axis turns over (the Dzhanibekov flip); the columns give its
    # quaternion and world angular velocity, from which its world angular momentum is
    # R I Rᵀ ω, constant without torques.
    inertia = np.array([1.0, 2.0, 3.0])
    scene = bead.Scene("flip", dimension=3, dt=1e-3, duration=3.0, integrator="rk4", output_every=10)
    scene.body("box", [0.0, 0.0, 0.0], mass=1.0, inertia=list(inertia),
               angular_velocity=[0.01, 5.0, 0.02])
    run = scene.build().run()
    tr = run.trajectory

    def momentum(k: int) -> npt.NDArray[np.float64]:
        w, x, y, z = (tr[f"box.q{c}"][k] for c in "wxyz")
        r = np.array([
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ])
        omega = np.array([tr[f"box.w{c}"][k] for c in "xyz"])
        return np.asarray(r @ np.diag(inertia) @ r.T @ omega, dtype=np.float64)

    first, last = momentum(0), momentum(len(tr["t"]) - 1)
    assert np.linalg.norm(last - first) < 1e-8 * np.linalg.norm(first)
    # It flipped: ω along the body's middle axis reversed.
    w, x, y, z = (tr[f"box.q{c}"][-1] for c in "wxyz")
    body_y = np.array([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)])
    omega = np.array([tr[f"box.w{c}"][-1] for c in "xyz"])
    assert float(body_y @ omega) < -4.0


def test_the_piston_follows_its_crank(scenes: Path) -> None:
    # scenes/piston.toml: a motor turns the crank about y, a rod on two ball joints drives a
    # piston on a prismatic joint along x, at x = r cos θ + √(L² − r² sin² θ).
    run = bead.load(scenes / "piston.toml", duration=0.5).run()
    tr = run.trajectory
    theta = 2.0 * np.arctan2(tr["crank.qy"], tr["crank.qw"])
    r, length = 0.1, 0.3
    x = r * np.cos(theta) + np.sqrt(length**2 - (r * np.sin(theta)) ** 2)
    assert np.max(np.abs(tr["piston.x"] - x)) < 1e-12
    # The motor holds its speed; its torque is its λ.
    assert np.max(np.abs(tr["crank.wy"][1:] - 5.0)) < 1e-9
    assert np.all(np.isfinite(run.constraints["motor.lambda"]))


def test_the_lift_stops_at_its_travel_limit(scenes: Path) -> None:
    # scenes/lift.toml: a 2 kg car driven up a vertical slider at 0.25 m/s by a motor of at most
    # 40 N, into its travel limit 0.5 m up. At the top the motor gives its 40 N and the upper
    # stop the rest of what the weight does not take, 40 − m g.
    run = bead.load(scenes / "lift.toml").run()
    tr, c = run.trajectory, run.constraints
    assert np.max(tr["car.z"]) <= 0.5 + 1e-9
    assert abs(tr["car.z"][-1] - 0.5) < 1e-9
    assert abs(c["drive.lambda"][-1] - 40.0) < 1e-9
    assert abs(c["stops.lambda1"][-1] - (40.0 - 2.0 * 9.81)) < 1e-6


def test_the_3d_tower_stands_exactly_until_the_ball_arrives(scenes: Path) -> None:
    # scenes/box_stack_3d.toml: four cubes of 2.4 kg stacked on a floor, a 28 kg ball rolled
    # at them from 1.5 m at 2 m/s. Until it arrives (t ≈ 0.6 s) the contacts carry each cube's
    # weight once for every cube below it and the floor, 10 cube weights, and the ball's.
    run = bead.load(scenes / "box_stack_3d.toml").run(duration=0.5)
    tr, c = run.trajectory, run.constraints
    cube, ball = 0.2**3 * 300.0, 2000.0 * 4.0 / 3.0 * math.pi * 0.15**3
    expected = (10.0 * cube + ball) * G
    assert np.all(np.abs(c["tower.normal_force"] - expected) < 1e-9 * expected)
    assert np.max(c["tower.max_penetration"]) < 1e-12
    assert np.all(c["tower.contacts"] == 5)
    for k in range(4):
        assert np.max(np.abs(tr[f"cube{k}.z"] - (0.1 + 0.2 * k))) < 1e-12


@pytest.mark.parametrize(
    ("integrator", "duration", "creep"),
    # The scene's BDF2 holds to Newton's tolerance; RK4, which solves a 3D contact's circular
    # cone as the implicit steppers do, to rounding.
    [("bdf2", 1.0, 1e-10), ("rk4", 0.4, 1e-12)],
)
def test_the_3d_pinch_grip_holds_its_box_by_friction_without_creep(
    scenes: Path, integrator: str, duration: float, creep: float
) -> None:
    # scenes/pinch_grip_3d.toml: two fingers close on a 0.5 kg box, their slider motors stalling
    # at 20 N each; friction (μ = 0.5) holds its weight at four times what it needs. Once
    # gripped the box's height holds, and the grip presses with the motors' 40 N.
    run = bead.load(scenes / "pinch_grip_3d.toml", integrator=integrator).run(duration=duration)
    tr, c = run.trajectory, run.constraints
    gripped = tr["t"] >= 0.2
    z = tr["box.z"][gripped]
    assert z[0] < -1e-3
    assert np.max(z) - np.min(z) < creep
    assert np.all(np.abs(c["grip.normal_force"][gripped] - 40.0) < 1e-6)


def test_cylinders_roll_stand_and_stack(scenes: Path) -> None:
    # scenes/cans_3d.toml: a log (r = 5 cm) rolls down a 15° ramp at (2/3) g sin 15° on its
    # rims' lowest points, a can let go tipped 20° onto its rim falls back, rocks and stands
    # by 0.55 s, three coins stand stacked. Implicit Euler at dt = 2 ms is first order: the log
    # is within 2 mm of the closed form.
    run = bead.load(scenes / "cans_3d.toml").run(duration=0.8)
    tr, c = run.trajectory, run.constraints
    t = tr["t"]
    along = 0.5 * (2.0 / 3.0) * 9.81 * np.sin(np.radians(15.0)) * t**2
    expected = -1.2704 + along * np.cos(np.radians(15.0))
    assert np.max(np.abs(tr["log.x"] - expected)) < 2e-3
    settled = t >= 0.6
    assert np.max(np.abs(tr["tipped.z"][settled] - 0.075)) < 1e-9
    for k in range(3):
        for axis in "xyz":
            column = tr[f"coin{k}.{axis}"]
            assert np.max(np.abs(column - column[0])) < 1e-9
    assert np.max(c["things.max_penetration"]) < 1e-9


def test_the_3d_arch_of_convex_hulls_stands_on_friction(scenes: Path) -> None:
    # scenes/arch_3d.toml: nine voussoirs, each a convex hull of eight corners, on a floor with
    # μ = 0.6 at every joint. They hold to nanometres; without friction the crown falls.
    arch = bead.load(scenes / "arch_3d.toml")
    tr = arch.run(duration=0.4).trajectory
    for k in range(9):
        for axis in "xyz":
            column = tr[f"stone{k}.{axis}"]
            assert np.max(np.abs(column - column[0])) < 5e-9
    text = (scenes / "arch_3d.toml").read_text().replace("friction = 0.6", "friction = 0.0")
    fallen = bead.loads(text).run(duration=0.5).trajectory
    assert fallen["stone4.z"][-1] < 0.8


def test_a_ball_rolls_in_a_bowl_at_the_rolling_pendulums_period(scenes: Path) -> None:
    # scenes/ball_in_bowl_3d.toml let go from rest, 0.6 rad up a hemisphere of radius 0.5 m:
    # rolling, the 5 cm ball swings as a pendulum 7/5 as long as the 0.45 m its centre moves on,
    # with period 4 √(7(R − r)/5g) K(sin 0.3); without friction it slides, as one of 0.45 m.
    text = (scenes / "ball_in_bowl_3d.toml").read_text()
    text = text.replace("velocity = [0.0, 0.25, 0.0]", "velocity = [0.0, 0.0, 0.0]")
    text = re.sub(r"angular_velocity = \[[^\]]*\]", "angular_velocity = [0.0, 0.0, 0.0]", text)
    text = text.replace("dt = 0.002", "dt = 0.001").replace("output_every = 5", "output_every = 1")

    def k(m: float) -> float:
        a, b = 1.0, math.sqrt(1.0 - m * m)
        for _ in range(40):
            a, b = (a + b) / 2.0, math.sqrt(a * b)
        return math.pi / (2.0 * a)

    for friction, length in (("0.8", 0.63), ("0.0", 0.45)):
        run = bead.loads(text.replace("friction = 0.8", f"friction = {friction}"))
        tr = run.run(duration=3.5).trajectory
        t, x = np.asarray(tr["t"]), np.asarray(tr["ball.x"])
        down = np.nonzero((x[:-1] > 0.0) & (x[1:] <= 0.0))[0]
        crossings = t[down] + (t[down + 1] - t[down]) * x[down] / (x[down] - x[down + 1])
        period = crossings[1] - crossings[0]
        closed = 4.0 * math.sqrt(length / 9.81) * k(math.sin(0.3))
        assert abs(period - closed) < 1e-4, (friction, period, closed)
