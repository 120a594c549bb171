"""Fixtures of the core tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from _support.wheels import build_all, fresh_venv, readme_requirements


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every package built once per run (``uv build --all-packages``): the wheels' folder."""
    return build_all(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def user_cli(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``pi-sdk`` command of a fresh venv holding what the README's install block installs
    (the core with its ``cli`` extra and pi-sdk-anthropic, from the built wheels)."""
    python = fresh_venv(tmp_path_factory.mktemp("user"), *readme_requirements(dist))
    return python.with_name("pi-sdk")
