"""Bad input raises the right exception, with where and what; never a crash."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import bead

GOOD = """format = 1
[simulation]
dimension = 2
dt = 0.01
duration = 1.0
[[particles]]
name = "p"
position = [0.0, 0.0]
"""


def test_a_scene_error_carries_file_line_column_and_field() -> None:
    text = GOOD.replace("[0.0, 0.0]", "[0.0, 0.0, 0.0]")
    with pytest.raises(bead.SceneError) as info:
        bead.loads(text)
    e = info.value
    assert (e.line, e.column, e.field) == (8, 12, "particles[0].position")
    assert e.file == "<string>"
    assert "3 components" in e.message and e.hint is not None
    assert isinstance(e, ValueError)


def test_a_syntax_error_is_located(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(GOOD.replace('name = "p"', 'name = "p'))
    with pytest.raises(bead.SceneError) as info:
        bead.load(path)
    assert info.value.file == str(path)
    assert info.value.line == 7


def test_a_missing_file_is_a_scene_error(tmp_path: Path) -> None:
    with pytest.raises(bead.SceneError) as info:
        bead.load(tmp_path / "nowhere.toml")
    assert "nowhere.toml" in str(info.value)


def test_bad_settings_name_the_keyword() -> None:
    with pytest.raises(bead.SceneError) as info:
        bead.loads(GOOD, integrator="leapfrog")
    assert info.value.field == "simulation.integrator"
    assert info.value.line is None and "keyword" in info.value.message
    with pytest.raises(bead.SceneError) as info:
        bead.loads(GOOD, dtt=0.1)
    assert "dtt" in info.value.message
    with pytest.raises(ValueError):
        bead.loads(GOOD, format="yaml")
    with pytest.raises(ValueError):
        bead.loads(GOOD, dt=float("nan"))


def test_unknown_names_in_the_builder_are_scene_errors() -> None:
    scene = bead.Scene("bad")
    scene.particle("a", [0.0, 0.0])
    scene.constraint("distance", between=["a", "b"])
    with pytest.raises(bead.SceneError) as info:
        scene.build()
    assert info.value.field == "constraints[0].between[1]"
    assert "'b'" in str(info.value)


def test_a_failed_step_raises_simulation_error_with_when_and_which() -> None:
    text = GOOD + """[[constraints]]
kind = "nail"
point = "p"
[[constraints]]
kind = "nail"
point = "p"
at = [1.0, 0.0]
name = "elsewhere"
"""
    with pytest.warns(bead.OffConstraintsWarning, match="'elsewhere' \\|C\\| = 1.000e0"):
        sim = bead.loads(text)
    with pytest.raises(bead.SimulationError) as info:
        sim.run()
    e = info.value
    assert e.step == 1 and e.t == 0.0
    assert "elsewhere" in str(e)
    assert e.run is not None and e.run.summary["completed"] is False
    assert isinstance(e, RuntimeError)
    with pytest.raises(bead.SimulationError):
        sim.step()


def test_bad_arguments_raise_value_errors() -> None:
    sim = bead.loads(GOOD)
    for dt in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError):
            sim.step(dt)
    with pytest.raises(ValueError):
        sim.run(duration=-1.0)


def test_a_restitution_the_integrator_ignores_warns() -> None:
    def ball(integrator: str) -> bead.Scene:
        scene = bead.Scene("bounce", dt=1e-3, duration=0.1, integrator=integrator)
        scene.particle("ball", [0.0, 1.0])
        scene.constraint(
            "half-plane",
            point="ball",
            through=[0.0, 0.0],
            normal=[0.0, 1.0],
            restitution=0.8,
            name="floor",
        )
        return scene

    with pytest.warns(UserWarning, match=r"restitution is ignored: the implicit-euler .*'floor'"):
        ball("implicit-euler").build()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ball("rk4").build()
