"""The Python package and the command line give the same numbers for the same scene."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import bead


def read_csv(path: Path) -> dict[str, np.ndarray]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    return {name: values[:, k] for k, name in enumerate(header)}


@pytest.mark.parametrize(
    "name", ["double_pendulum.toml", "crank_slider.toml", "corner_m2.toml", "hybrid.toml"]
)
def test_arrays_equal_the_cli_csv(name: str, scenes: Path, bead_cli: str, tmp_path: Path) -> None:
    subprocess.run(
        [bead_cli, "run", "-q", "--duration", "0.5", "--out", str(tmp_path), str(scenes / name)],
        check=True,
    )
    run = bead.load(scenes / name, duration=0.5).run()
    for file, columns in (("trajectory.csv", run.trajectory), ("constraints.csv", run.constraints)):
        expected = read_csv(tmp_path / file)
        assert list(expected) == list(columns), file
        for column, values in expected.items():
            # The CSV holds shortest round-trip decimals: parsing them gives the same doubles.
            np.testing.assert_array_equal(columns[column], values, err_msg=f"{file} {column}")
    summary = json.loads((tmp_path / "summary.json").read_text())
    for key, value in summary.items():
        if key != "wall_seconds":
            assert run.summary[key] == value, key
