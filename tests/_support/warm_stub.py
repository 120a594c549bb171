"""``python -I -S warm_stub.py SOCKET SCRIPT ARGS``: ``python SCRIPT ARGS``, forked warm.

The command the tests give a program that starts a Python server as a subprocess of its own (the
MCP servers the ``mcp`` SDK starts over stdio, ``_support/mcp_servers.py``): this stub starts in
a few milliseconds (isolated, no ``site``, the standard library only), hands its standard
streams, environment and working directory to the warm server on ``SOCKET``
(``_support/cli_forkserver.py``, which imported the server's libraries once), and stays in the
place of the child forked there:

* its own stdin and stdout are let go once handed over, so the pipes end when the child does;
* SIGTERM, SIGINT and SIGHUP sent to it are sent on to the child; if it is killed (the SDK kills
  the process group it started), the warm server kills the child (a ``tied`` request);
* it ends as the child ended: the same exit status, or killed by the same signal.

When the warm server is gone, or the environment would change what its imports did (the facts
in ``SOCKET.json``, as ``_support/warm_cli.py`` checks them), the stub becomes a fresh
``python SCRIPT ARGS`` instead (``exec``).
"""

import json
import os
import signal
import socket
import sys

_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _takes(facts: dict, env: dict) -> bool:
    """As ``warm_cli.WarmServer.takes``: the interpreter's settings and the variables the
    server's imports read are the same in ``env``."""
    if "*" in facts["read"]:
        return False
    names = {n for n in env if n.startswith(("PYTHON", "LC_")) or n == "LANG"}
    names |= set(facts["read"])
    names -= {"PYTHONPATH", "HOME"}
    return {name: env.get(name) for name in sorted(names)} == facts["settings"]


def _cold(script: str, args: list) -> None:
    os.execv(sys.executable, [sys.executable, script, *args])


def _ignored() -> list:
    numbers = set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP}
    numbers -= {signal.SIGPIPE, signal.SIGXFSZ}
    return sorted(n for n in numbers if signal.getsignal(n) is signal.SIG_IGN)


def main() -> None:
    path, script, *args = sys.argv[1:]
    try:
        with open(path + ".json", encoding="utf-8") as file:
            facts = json.load(file)
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
    except OSError:
        return _cold(script, args)
    # What this interpreter added at start (PEP 538's LC_CTYPE) the server's added too.
    env = {k: v for k, v in os.environ.items() if facts["added"].get(k) != v}
    if not _takes(facts, env):
        conn.close()
        return _cold(script, args)
    request = {
        "script": script,
        "args": args,
        "env": {**facts["added"], **env},
        "cwd": os.getcwd(),
        "blocked": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "ignored": _ignored(),
        "tied": True,
    }
    socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    reader = conn.makefile("rb")
    pid = int(reader.readline())

    def forward(received: int, _frame: object) -> None:
        try:
            os.kill(pid, received)
        except ProcessLookupError:
            pass  # it has ended: its status is on its way

    for number in _FORWARDED:
        signal.signal(number, forward)
    line = reader.readline()
    code = int(line) if line.strip() else -signal.SIGKILL
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


if __name__ == "__main__":
    main()
