"""Shared fixtures: the repository's scenes and the `bead` command-line binary."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scenes() -> Path:
    return ROOT / "scenes"


@pytest.fixture
def bead_cli() -> str:
    """The `bead` binary: $BEAD_CLI, else the workspace's build (release, then debug), else
    one on PATH. `cargo build -p bead-cli` makes it."""
    candidates = [os.environ.get("BEAD_CLI")]
    candidates += [str(ROOT / "target" / p / "bead") for p in ("release", "debug")]
    for c in candidates:
        if c and Path(c).is_file():
            return c
    found = shutil.which("bead")
    if found is None:
        pytest.fail("no bead binary: run `cargo build -p bead-cli` or set BEAD_CLI")
    return found
