"""A configuration file that cannot be read: the whole message names the file and the reason.

The reason is the operating system's own words (``strerror``) when it gave some, else the
error's text (an ``OSError`` raised without an errno, e.g. by a file system layer).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pi_sdk_mcp import load_config

from pi_sdk import ConfigurationError


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda folder: folder / "nope.json", "No such file or directory"),
        (lambda folder: folder, "Is a directory"),
    ],
    ids=["missing", "a-folder"],
)
def test_an_unreadable_file_is_named_with_the_systems_reason(tmp_path: Path, make, reason: str):
    path = make(tmp_path)
    with pytest.raises(ConfigurationError) as caught:
        load_config(path)
    assert str(caught.value) == f"cannot read {path}: {reason}"


def test_a_read_error_without_a_system_reason_gives_its_own_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}', encoding="utf-8")

    def broken_read(self: Path, *args: object, **kwargs: object) -> str:
        raise OSError("the volume went away")

    monkeypatch.setattr(Path, "read_text", broken_read)
    with pytest.raises(ConfigurationError) as caught:
        load_config(path)
    assert str(caught.value) == f"cannot read {path}: the volume went away"
