"""A warm start for the tests' ``python -m MODULE`` runs: a process that has imported the vendor
SDK once and forks a child per run (run as a script by :mod:`_support.warm_cli`).

A fresh ``python -m pi_sdk._cli prompt -m anthropic/...`` spends most of its CPU importing
``anthropic`` (about 1.5 of 2 s); the CLI tests start dozens, the pytest plugin's tests run
pytest on projects whose tests call the same SDK. This server imports the modules named on its
command line (third-party only: never ``pi_sdk`` nor a provider or plugin of this repository,
which each child imports itself, plugins found from its own environment), then for each request
forks a child that becomes what ``python -m MODULE ARGS`` would be:

* file descriptors 0, 1 and 2 are the ones sent with the request: pipes, or a pseudo-terminal's
  end (``terminal``), which becomes the controlling terminal of a new session the child leads,
  as ``pexpect.spawn`` makes it (the tests' runs that send Ctrl-C start a fresh interpreter
  still, as a forked child did not always die of it);
* the signal mask and the ignored signals are the requester's (as ``fork`` and ``exec`` keep them);
* the environment, the working directory, ``sys.argv``/``sys.orig_argv``, ``sys.path[0]`` (the
  working directory) and the ``PYTHONPATH`` entries are the request's, so entry points and
  ``--tools MODULE:ATTR`` resolve from them;
* the standard streams are line-buffered on a terminal, as the interpreter makes them;
* the module runs as ``__main__`` in a fresh namespace (``runpy``, as ``-m`` does); the exit
  status is the interpreter's: ``SystemExit``'s code, 1 and the traceback for an uncaught
  exception, death by SIGINT for an uncaught ``KeyboardInterrupt``, 120 when flushing stdout
  fails; non-daemon threads are joined and ``atexit`` functions run first.

A warm child cannot stand for a fresh interpreter whose environment would have changed what the
imported modules did at import: the server records every environment variable they read while
importing and prints the names (with its environment: a child gets what the interpreter adds at
start, such as PEP 538's ``LC_CTYPE``); :mod:`_support.warm_cli` gives a request that sets one of
them (or ``PYTHON*``, ``LANG``, ``LC_*``) to another value a server started with it, or a fresh
interpreter. ``HOME`` is the exception: only ``sysconfig``'s cached user base comes from it, and
the child derives that again.
The imported objects are frozen for the garbage collector (``gc.freeze``) so that a child's
collections do not copy their pages; the children leave them frozen.

Protocol (a Unix socket named on the command line): the request is one JSON object (``module``
or ``script``, ``args``, ``env``, ``cwd``, ``blocked``, ``ignored``, optionally ``terminal``
and ``tied``) sent with the child's three descriptors; the answer is the child's pid, then its
return code (negative: the signal that ended it), one line each. A ``script`` runs as ``python
SCRIPT ARGS`` (its folder first on ``sys.path``). A ``tied`` child is killed when its requester's
connection closes before it ends (``warm_stub.py``: the stub killed with its process group). The
server ends when its standard input closes, killing children still running.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import select
import signal
import socket
import sys


def _record_reads(names: set[str]):
    """Patch ``os.environ`` so that every variable read is added to ``names``."""
    environ_type = type(os.environ)
    getitem, iterate = environ_type.__getitem__, environ_type.__iter__

    def recording_getitem(self, key):  # get(), getenv() and `in` come through here too
        names.add(key)
        return getitem(self, key)

    def recording_iter(self):
        names.add("*")  # the whole environment: any difference counts
        return iterate(self)

    environ_type.__getitem__ = recording_getitem
    environ_type.__iter__ = recording_iter

    def restore() -> None:
        environ_type.__getitem__ = getitem
        environ_type.__iter__ = iterate

    return restore


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _python_path(entries: str) -> list[str]:
    """``PYTHONPATH``'s entries as the interpreter adds them (absolute, empty ones the cwd)."""
    return [os.path.abspath(entry) for entry in entries.split(os.pathsep)] if entries else []


def _user_base_again() -> None:
    """``sysconfig``'s cached user base (``~/.local``) under the child's ``HOME``: the one thing
    the imported modules derive from ``HOME`` at import (so ``HOME`` may differ)."""
    sysconfig = sys.modules.get("sysconfig")
    cached = getattr(sysconfig, "_CONFIG_VARS", None)
    if sysconfig is not None and cached and "userbase" in cached:
        cached["userbase"] = sysconfig._getuserbase()  # type: ignore[attr-defined]


def _signals_of_the_requester(blocked: list[int], ignored: list[int]) -> None:
    """What a process started by the requester inherits: its thread's signal mask, and the
    signals it ignores (which the interpreter leaves ignored; the others get its defaults)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    for number in ignored:
        signal.signal(number, signal.SIG_IGN)


def _become_module(request: dict, fds: list[int], base_path: list[str]) -> None:
    """In the forked child: become ``python -m MODULE ARGS`` (``python SCRIPT ARGS`` for a
    request naming a ``script``); never returns."""
    code = 1
    try:
        if request.get("terminal"):
            os.setsid()  # a session of its own, without a controlling terminal yet
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds):
            if fd > 2:
                os.close(fd)
        if request.get("terminal"):
            import fcntl
            import termios

            fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # the terminal is the session's: Ctrl-C, hangup
        _signals_of_the_requester(request["blocked"], request["ignored"])
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])  # with what the interpreter adds at start (LC_CTYPE)
        _user_base_again()
        script = request.get("script")
        first = os.path.dirname(os.path.abspath(script)) if script else os.getcwd()
        path = [first, *_python_path(request["env"].get("PYTHONPATH", "")), *base_path]
        sys.path[:] = list(dict.fromkeys(path))  # site's removeduppaths: first one wins
        importlib.invalidate_caches()
        module = request.get("module")
        sys.argv = [script, *request["args"]] if script else ["-m", *request["args"]]
        sys.orig_argv = [sys.executable, *([script] if script else ["-m", module])]
        sys.orig_argv += request["args"]
        if not sys.flags.ignore_environment and not os.environ.get("PYTHONUNBUFFERED"):
            sys.stdin.reconfigure(line_buffering=sys.stdin.isatty())
            sys.stdout.reconfigure(line_buffering=sys.stdout.isatty())
        import runpy
        import types

        main = types.ModuleType("__main__")  # not this script's namespace
        main.__annotations__ = {}  # as the interpreter's __main__ starts
        sys.modules["__main__"] = main

        try:
            if script:
                runpy.run_path(script, run_name="__main__")
            else:
                runpy._run_module_as_main(module, alter_argv=True)  # type: ignore[attr-defined]
            code = 0
        except SystemExit as exc:
            code = _exit_status(exc)
        except KeyboardInterrupt:
            sys.excepthook(*sys.exc_info())
            code = -signal.SIGINT
        except BaseException:
            sys.excepthook(*sys.exc_info())
            code = 1
        import atexit
        import threading

        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                code = 120 if code == 0 else code
    finally:
        if code == -signal.SIGINT:  # as the interpreter ends after an uncaught Ctrl-C
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(code & 0xFF)


def _serve(listener: socket.socket) -> None:
    base_path = sys.path[1:]  # started without PYTHONPATH: what site made, less the script dir
    children: dict[int, socket.socket] = {}
    tied: dict[socket.socket, int] = {}  # a tied child's requester, whose leaving kills it
    while True:
        waiting = 0.02 if children else None  # a child's end is polled for, not signalled
        readable, _, _ = select.select([listener, sys.stdin, *tied], [], [], waiting)
        if sys.stdin in readable and not sys.stdin.buffer.read1(1):
            break
        for conn in [c for c in readable if c in tied]:
            if not conn.recv(1):  # the requester is gone (killed): so is its child
                os.kill(tied.pop(conn), signal.SIGKILL)
        if listener in readable:
            conn, _ = listener.accept()
            message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
            if not message:  # a requester that went cold instead (warm_stub.py)
                conn.close()
                continue
            request = json.loads(message)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                for other in (listener, conn, *children.values()):
                    other.close()
                _become_module(request, fds, base_path)
            for fd in fds:
                os.close(fd)
            conn.sendall(f"{pid}\n".encode())
            children[pid] = conn
            if request.get("tied"):
                tied[conn] = pid
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                tied.pop(conn, None)
                try:
                    conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                except OSError:
                    pass  # the requester no longer waits for it (a terminal left unclosed)
                conn.close()
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    for pid in children:
        os.waitpid(pid, 0)


def main() -> None:
    path, *modules = sys.argv[1:]
    read: set[str] = set()
    restore = _record_reads(read)
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        restore()
    gc.collect()
    gc.freeze()  # the imported objects stay shared with the children, not copied by the GC
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    ready = {"read": sorted(read), "environ": dict(os.environ)}  # as the interpreter left it
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()
    _serve(listener)


if __name__ == "__main__":
    main()
