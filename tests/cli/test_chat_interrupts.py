"""Ctrl-C in ``pi-sdk chat``: every state, in process (issue 34; the pexpect tests in
``test_chat.py`` show the same on a real terminal for two of them).

The rules (docs/cli.md): at the prompt, one Ctrl-C says how to leave and a second one in a row
leaves; anything typed in between starts the count again. During a turn, the first Ctrl-C aborts
the turn (the agent is told, the turn's tool or stream ends), and a Ctrl-C at the next prompt
leaves; a second Ctrl-C during the same turn leaves at once. A turn that ends normally starts
the count again.

:func:`run_prompt` is run with real SIGINTs sent to this process; the chat loop with a scripted
keyboard and a scripted turn (how many times Ctrl-C was pressed during it).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from pi_sdk._cli import chat as chat_module
from pi_sdk._cli.turn import run_prompt

# --- run_prompt: real signals -------------------------------------------------------------------


class _Agent:
    """An agent whose turn presses Ctrl-C ``presses`` times, then waits for its abort."""

    def __init__(self, presses: int) -> None:
        self.presses = presses
        self.aborts: list[str] = []
        self.finished = False

    def abort(self, reason: str) -> None:
        self.aborts.append(reason)

    async def prompt(self, text: str) -> None:
        for _ in range(self.presses):
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(0.05)  # the loop runs the handler
        await asyncio.sleep(0)
        self.finished = True


@pytest.fixture
def default_sigint() -> Iterator[None]:
    """Python's own SIGINT handler during the test, whatever the process started with (a
    background job ignores SIGINT); the one it had afterwards."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
        # The loop's handler was removed again: asyncio puts Python's default back.
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("default_sigint")
async def test_a_turn_without_ctrl_c() -> None:
    agent, notes = _Agent(0), []
    assert await run_prompt(agent, "hi", notes.append) == 0  # pyright: ignore[reportArgumentType]
    assert (agent.aborts, notes, agent.finished) == ([], [], True)


@pytest.mark.usefixtures("default_sigint")
@pytest.mark.parametrize(
    ("second_leaves", "note"),
    [(True, "^C aborting the turn… (Ctrl-C again leaves)"), (False, "^C aborting…")],
)
async def test_one_ctrl_c_aborts_the_turn(second_leaves: bool, note: str) -> None:
    agent, notes = _Agent(1), []
    presses = await run_prompt(agent, "hi", notes.append, second_leaves=second_leaves)  # pyright: ignore[reportArgumentType]
    assert presses == 1
    assert agent.aborts == ["interrupted with Ctrl-C"]
    assert notes == [note]
    assert agent.finished  # the abort is the agent's to carry out: the turn ran to its end


@pytest.mark.usefixtures("default_sigint")
async def test_a_second_ctrl_c_in_the_same_turn_ends_it_at_once() -> None:
    agent, notes = _Agent(2), []
    presses = await run_prompt(agent, "hi", notes.append)  # pyright: ignore[reportArgumentType]
    assert presses == 2  # no CancelledError escapes: the caller leaves
    assert agent.aborts == ["interrupted with Ctrl-C"]  # aborted once, then cancelled
    assert not agent.finished
    assert len(notes) == 1


@pytest.mark.parametrize("missing", [NotImplementedError, RuntimeError])
async def test_a_loop_without_signal_handlers_runs_the_turn_without_one(
    monkeypatch: pytest.MonkeyPatch, missing: type[Exception]
) -> None:
    """Windows' loops have no signal handlers, nor has a loop outside the main thread."""
    loop = asyncio.get_running_loop()
    asked: list[str] = []

    def refuse(name: str) -> Any:
        def handler(*args: Any) -> None:
            asked.append(name)
            raise missing

        return handler

    monkeypatch.setattr(loop, "add_signal_handler", refuse("add"))
    monkeypatch.setattr(loop, "remove_signal_handler", refuse("remove"))
    agent, notes = _Agent(0), []
    assert await run_prompt(agent, "hi", notes.append) == 0  # pyright: ignore[reportArgumentType]
    assert (agent.finished, notes, asked) == (True, [], ["add", "remove"])


class _Waiting:
    """An agent whose turn presses Ctrl-C ``presses`` times (the loop's handler called), then
    waits until it is cancelled from outside."""

    def __init__(self, presses: int, handler: list[Any]) -> None:
        self.presses, self.handler = presses, handler
        self.aborts: list[str] = []
        self.waiting = asyncio.Event()

    def abort(self, reason: str) -> None:
        self.aborts.append(reason)

    async def prompt(self, text: str) -> None:
        for _ in range(self.presses):
            self.handler[0]()
        self.waiting.set()
        await asyncio.Event().wait()


@pytest.mark.parametrize("presses", [0, 1])
async def test_a_turn_cancelled_from_outside_stays_cancelled(
    monkeypatch: pytest.MonkeyPatch, presses: int
) -> None:
    """Only a second Ctrl-C turns the cancellation into a return: any other cancel is raised."""
    loop = asyncio.get_running_loop()
    handlers: list[Any] = []
    removed: list[int] = []
    monkeypatch.setattr(loop, "add_signal_handler", lambda sig, fn: handlers.append(fn))
    monkeypatch.setattr(loop, "remove_signal_handler", removed.append)
    agent, notes = _Waiting(presses, handlers), []
    task = asyncio.create_task(run_prompt(agent, "hi", notes.append))  # pyright: ignore[reportArgumentType]
    await agent.waiting.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert removed == [signal.SIGINT]  # the loop's handler removed all the same
    assert (len(agent.aborts), len(notes)) == (presses, presses)


@pytest.mark.parametrize("presses", [2, 3, 5])
async def test_a_second_ctrl_c_ends_the_turn_and_the_task_runs_on(
    monkeypatch: pytest.MonkeyPatch, presses: int
) -> None:
    """More presses before the cancellation lands count as two: one cancel, undone once."""
    loop = asyncio.get_running_loop()
    handlers: list[Any] = []
    monkeypatch.setattr(loop, "add_signal_handler", lambda sig, fn: handlers.append(fn))
    monkeypatch.setattr(loop, "remove_signal_handler", lambda sig: None)
    agent, notes = _Waiting(presses, handlers), []

    async def turn_then_more() -> tuple[int, str]:
        presses = await run_prompt(agent, "hi", notes.append)  # pyright: ignore[reportArgumentType]
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0  # not left cancelling: it goes on
        await asyncio.sleep(0)
        return presses, "went on"

    task = asyncio.create_task(turn_then_more())
    assert await task == (2, "went on")
    assert agent.aborts == ["interrupted with Ctrl-C"] and len(notes) == 1


# --- the chat loop: a scripted keyboard ---------------------------------------------------------

CTRL_C, CTRL_D = KeyboardInterrupt, EOFError


class _Output:
    closed = False


class _Console:
    def print(self, *args: Any, **kwargs: Any) -> None:
        pass


def _chat(keys: list[Any], monkeypatch: pytest.MonkeyPatch, presses: dict[str, int]) -> Any:
    """A ``_Chat`` reading ``keys`` (lines, or CTRL_C / CTRL_D) whose turns are scripted."""
    chat: Any = chat_module._Chat.__new__(chat_module._Chat)  # pyright: ignore[reportPrivateUsage]
    chat.as_json, chat.mcp, chat.output, chat.console = False, None, _Output(), _Console()
    chat.agent = object()
    chat.notes_seen, chat.turns, chat.reads = [], [], 0

    def read() -> str:
        key = keys[chat.reads]
        chat.reads += 1
        if isinstance(key, type):
            raise key
        return key

    async def turn(agent: object, line: str, warn: Any) -> int:
        chat.turns.append(line)
        return presses.get(line, 0)

    chat._read = read
    chat.note = lambda text, style="dim": chat.notes_seen.append(text)
    chat.start = lambda: None
    chat._autosave = lambda: None
    chat._bye = lambda: 0
    monkeypatch.setattr(chat_module, "run_prompt", turn)
    return chat


AGAIN = "(Ctrl-C again or Ctrl-D leaves)"
ABORTED = "✘ turn aborted (Ctrl-C); Ctrl-C again or Ctrl-D leaves"


@pytest.mark.parametrize(
    ("keys", "presses", "reads", "turns", "notes"),
    [
        ([CTRL_C, CTRL_C, "never"], {}, 2, [], [AGAIN]),  # twice at the prompt: leave
        ([CTRL_C, "hi", CTRL_C, "/quit"], {}, 4, ["hi"], [AGAIN, AGAIN]),  # typing resets
        ([CTRL_C, "", CTRL_C, "/quit"], {}, 4, [], [AGAIN, AGAIN]),  # even an empty line
        (["slow", CTRL_C, "never"], {"slow": 1}, 2, ["slow"], [ABORTED]),  # aborted, then leave
        (["slow", "never"], {"slow": 2}, 1, ["slow"], []),  # twice during a turn: leave at once
        (["slow", "ok", CTRL_C, CTRL_D], {"slow": 1}, 4, ["slow", "ok"], [ABORTED, AGAIN]),
        (["hi", CTRL_D, "never"], {}, 2, ["hi"], []),
    ],
)
def test_the_chat_loop_counts_ctrl_c_by_state(
    monkeypatch: pytest.MonkeyPatch,
    keys: list[Any],
    presses: dict[str, int],
    reads: int,
    turns: list[str],
    notes: list[str],
) -> None:
    chat = _chat(keys, monkeypatch, presses)
    assert chat.run() == 0
    assert (chat.reads, chat.turns, chat.notes_seen) == (reads, turns, notes)
