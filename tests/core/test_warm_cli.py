"""The warm server's children are what a fresh ``python -m MODULE`` is (tests/_support/warm_cli.py).

The CLI tests and the pytest plugin's tests fork their ``python -m`` runs from a server that
imported the vendor SDK once. Each fact a program can see of its own start (arguments, paths,
environment, working directory, standard streams, exit status, ``atexit``, threads)
is compared here between a child of the server and a fresh interpreter given the same request;
a request the server cannot stand for runs fresh.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _support import warm_cli

PROBE = """
    import atexit, json, os, signal, sys, threading, time

    mode = sys.argv[1]
    main = sys.modules["__main__"]
    if mode == "facts":
        data = sys.stdin.read()
        streams = {
            name: [s.encoding, s.errors, s.line_buffering, s.write_through, s.isatty()]
            for name, s in (("in", sys.stdin), ("out", sys.stdout), ("err", sys.stderr))
        }
        facts = {
            "argv": sys.argv, "orig_argv": sys.orig_argv[1:], "path": sys.path[:3],
            "cwd": os.getcwd(), "environ": dict(os.environ), "stdin": data, "streams": streams,
            "main": [main.__name__, main.__spec__.name, main.__file__, sorted(vars(main))],
            "flags": [sys.flags.ignore_environment, sys.flags.utf8_mode],
            "signals": [sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
                        [str(signal.getsignal(n)) for n in (2, 1, 13, 15)]],
        }
        print(json.dumps(facts))
        print("to stderr", file=sys.stderr)
    elif mode == "terminal":
        streams = [[s.isatty(), s.line_buffering] for s in (sys.stdin, sys.stdout, sys.stderr)]
        facts = {
            "streams": streams, "same": len({os.ttyname(fd) for fd in (0, 1, 2)}) == 1,
            "leader": os.getsid(0) == os.getpid(), "foreground": os.tcgetpgrp(0) == os.getpgrp(),
            "size": list(os.get_terminal_size()), "controlling": os.open("/dev/tty", os.O_RDWR) > 2,
        }
        print(json.dumps(facts))
        print("line:", input("> "))
        try:
            input()
        except EOFError:
            print("end of input")
        sys.exit(3)
    elif mode == "exit":
        sys.exit(int(sys.argv[2]) if sys.argv[2].isdigit() else sys.argv[2])
    elif mode == "raise":
        raise ValueError("probe failure")
    elif mode == "atexit":
        atexit.register(lambda: print("atexit ran", flush=True))
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread ran", flush=True))).start()
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the module ``warm_probe`` (put on ``PYTHONPATH``)."""
    folder = tmp_path_factory.mktemp("warm-probe")
    (folder / "warm_probe.py").write_text(textwrap.dedent(PROBE), encoding="utf-8")
    return folder


def _env(probe: Path, home: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": os.pathsep.join([str(probe), "relative-entry"]),
        "PYTHONUNBUFFERED": "1",
        "PI_PROBE": "a value",
        **extra,
    }


def _both(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    server = warm_cli.server_for(env)
    assert server is not None, "the warm server refused a plain request"
    warm = server.run(args, env, stdin, timeout=60, module="warm_probe", cwd=cwd)
    cold = subprocess.run(
        [sys.executable, "-m", "warm_probe", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    return warm, cold


@pytest.fixture
def odd_signals():
    """This thread blocks SIGUSR1 and this process ignores SIGHUP (a child inherits both)."""
    hangup = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
    yield
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1])
    signal.signal(signal.SIGHUP, hangup)


@pytest.mark.parametrize("signals", ["plain", "odd"])
def test_a_warm_child_sees_the_start_a_fresh_interpreter_sees(
    probe: Path, tmp_path: Path, signals: str, request: pytest.FixtureRequest
):
    if signals == "odd":
        request.getfixturevalue("odd_signals")
    env = _env(probe, tmp_path)
    warm, cold = _both(["facts", "x y"], env, tmp_path, stdin="line one\nline two\n")
    assert cold.returncode == 0, cold.stderr
    assert (warm.returncode, warm.stderr) == (cold.returncode, cold.stderr) == (0, "to stderr\n")
    facts = json.loads(warm.stdout)
    assert facts == json.loads(cold.stdout)
    assert facts["path"][:2] == [str(tmp_path), str(probe)]  # cwd first, then PYTHONPATH
    assert facts["environ"]["PI_PROBE"] == "a value" and facts["stdin"] == "line one\nline two\n"
    blocked, handlers = facts["signals"]
    # The child's mask and ignored signals are the runner's own (`nohup` ignores SIGHUP), plus
    # what the "odd" fixture set: SIGUSR1 blocked, SIGHUP ignored.
    runner_blocks = signal.SIGUSR1 in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    runner_ignores = signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    assert (signal.SIGUSR1 in blocked) is runner_blocks
    assert (handlers[1] == str(signal.SIG_IGN)) is runner_ignores
    if signals == "odd":
        assert runner_blocks and runner_ignores


@pytest.mark.parametrize(
    ("args", "code"), [(["exit", "7"], 7), (["exit", "text"], 1), (["raise"], 1), (["atexit"], 0)]
)
def test_a_warm_child_ends_as_a_fresh_interpreter_does(
    probe: Path, tmp_path: Path, args: list[str], code: int
):
    """``sys.exit(n)``, ``sys.exit(text)`` (printed), an uncaught exception (its traceback), and
    the end of a program with an ``atexit`` function and a thread still running."""
    warm, cold = _both(args, _env(probe, tmp_path), tmp_path)
    assert warm.returncode == cold.returncode == code
    assert warm.stdout == cold.stdout
    assert warm.stderr.splitlines()[-1:] == cold.stderr.splitlines()[-1:]
    if args == ["atexit"]:
        assert warm.stdout == "thread ran\natexit ran\n"


def test_a_warm_child_on_a_terminal_sees_the_terminal_a_spawned_interpreter_sees(
    probe: Path, tmp_path: Path
):
    """On a pseudo-terminal (``_support/warm_terminal.py``, what ``_support.cli.spawn`` gives):
    the standard streams (unbuffered: PYTHONUNBUFFERED), the session and controlling terminal,
    the window size, a line typed (echoed), Ctrl-D, the exit status; and Ctrl-C is refused (it
    takes a fresh interpreter)."""
    pexpect = pytest.importorskip("pexpect")
    from _support.warm_terminal import WarmTerminal

    env = _env(probe, tmp_path)
    server = warm_cli.server_for(env)
    assert server is not None
    warm = WarmTerminal(server, ["terminal"], env, module="warm_probe", dimensions=(50, 200))
    cold = pexpect.spawn(
        sys.executable, ["-m", "warm_probe", "terminal"], env=env, encoding="utf-8",
        timeout=20, dimensions=(50, 200),
    )  # fmt: skip
    seen = []
    for child in (warm, cold):
        child.expect(r"(\{.*\})\r\n")
        seen.append(json.loads(child.match.group(1)))
        child.expect("> ")
        child.sendline("typed words")
        child.expect("typed words\r\nline: typed words\r\n")  # the echo, then the program's
        child.sendeof()
        child.expect("end of input")
        child.expect(pexpect.EOF)
        child.close()
    assert seen[0] == seen[1]
    assert seen[0] == {
        "streams": [[True, False]] * 3, "same": True, "leader": True, "foreground": True,
        "size": [200, 50], "controlling": True,
    }  # fmt: skip
    assert (warm.exitstatus, warm.signalstatus) == (cold.exitstatus, cold.signalstatus) == (3, None)
    with pytest.raises(AssertionError, match="interrupts=True"):
        warm.sendintr()


@pytest.fixture
def own_servers(monkeypatch: pytest.MonkeyPatch):
    """The test's own warm servers (ended after it), not the ones this process shares."""
    servers: list[warm_cli.WarmServer] = []
    monkeypatch.setattr(warm_cli, "_SERVERS", servers)
    yield servers
    for server in servers:
        server.close()


@pytest.mark.slow  # starts three warm servers
def test_a_request_the_imports_would_have_seen_gets_a_server_started_for_it(
    probe: Path, tmp_path: Path, own_servers: list[warm_cli.WarmServer]
):
    """A variable the preimported SDK reads at import (``ANTHROPIC_LOG``) or an interpreter
    setting (``PYTHONHASHSEED``) with another value: a server started with it, or none;
    ``PI_SDK_TEST_COLD_CLI=1``: a fresh interpreter."""
    plain = warm_cli.server_for(_env(probe, tmp_path))
    assert plain is not None and "ANTHROPIC_LOG" in plain.read
    logging = warm_cli.server_for(_env(probe, tmp_path, ANTHROPIC_LOG="debug"))
    assert logging is not None and logging is not plain
    assert logging.settings["ANTHROPIC_LOG"] == "debug" and plain.settings["ANTHROPIC_LOG"] is None
    assert warm_cli.server_for(_env(probe, tmp_path, PYTHONHASHSEED="1")) not in (plain, logging)
    assert warm_cli.server_for(_env(probe, tmp_path, LANG="C")) is None  # a fourth: none
    assert warm_cli.server_for(_env(probe, tmp_path, PI_SDK_TEST_COLD_CLI="1")) is None
    assert len(own_servers) == 3
