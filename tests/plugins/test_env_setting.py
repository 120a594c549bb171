"""EnvSetting: a hook plugin's value from configure(), else from the file an env var names."""

from __future__ import annotations

import pytest

from pi_sdk.plugins import EnvSetting

ENV = "PI_SDK_TEST_SETTING"


class Opened:
    def __init__(self, path: str) -> None:
        self.path = path
        self.closed = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.delenv(ENV, raising=False)
    return []


def _setting(loads: list[str]) -> EnvSetting[Opened]:
    def load(path: str) -> Opened:
        loads.append(path)
        return Opened(path)

    return EnvSetting(ENV, load, Opened.close)


def test_the_env_var_is_read_once_on_first_use_and_reset_closes_what_it_opened(
    loads: list[str], monkeypatch: pytest.MonkeyPatch
):
    setting = _setting(loads)
    monkeypatch.setenv(ENV, "/tmp/a.jsonl")
    assert loads == []  # nothing opened before the first get
    first = setting.get()
    assert first is not None and first.path == "/tmp/a.jsonl"
    monkeypatch.setenv(ENV, "/tmp/b.jsonl")
    assert setting.get() is first
    assert loads == ["/tmp/a.jsonl"]
    setting.reset()
    assert first.closed
    second = setting.get()
    assert second is not None and second.path == "/tmp/b.jsonl"


def test_an_unset_or_empty_env_var_is_no_value(loads: list[str], monkeypatch: pytest.MonkeyPatch):
    setting = _setting(loads)
    assert setting.get() is None
    monkeypatch.setenv(ENV, "")
    setting.reset()
    assert setting.get() is None
    assert loads == []


def test_configure_wins_over_the_env_var_and_its_value_is_never_closed(
    loads: list[str], monkeypatch: pytest.MonkeyPatch
):
    setting = _setting(loads)
    monkeypatch.setenv(ENV, "/tmp/a.jsonl")
    mine = Opened("mine")
    setting.configure(mine)
    assert setting.get() is mine
    setting.configure(None)
    assert setting.get() is None
    assert loads == []
    setting.configure(mine)
    setting.reset()
    assert not mine.closed
    loaded = setting.get()
    assert loaded is not None and loaded.path == "/tmp/a.jsonl"


def test_a_failing_load_propagates_keeps_nothing_and_is_tried_again(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv(ENV, "/missing/log.jsonl")
    attempts: list[str] = []

    def load(path: str) -> str:
        attempts.append(path)
        if len(attempts) == 1:
            raise OSError(f"cannot open {path}")
        return path

    setting: EnvSetting[str] = EnvSetting(ENV, load)
    with pytest.raises(OSError, match="cannot open /missing/log.jsonl"):
        setting.get()
    assert setting.get() == "/missing/log.jsonl"
    assert attempts == ["/missing/log.jsonl", "/missing/log.jsonl"]
