"""The exit hook waits for native threads inside Python, and only for them."""

from __future__ import annotations

import subprocess
import sys
import threading

from pi_sdk_temporal._exit import native_threads_in_python

_NATIVE_THREAD = """
import _thread

from pi_sdk_temporal._exit import native_threads_in_python, settle_native_threads

inside, gate = _thread.allocate_lock(), _thread.allocate_lock()
inside.acquire()
gate.acquire()


def native() -> None:  # started by _thread: unknown to threading, as a Tokio thread is
    inside.release()
    gate.acquire()  # blocked in Python with the GIL released, as in a socket write


ident = _thread.start_new_thread(native, ())
inside.acquire()
assert native_threads_in_python() == {ident}
assert settle_native_threads(timeout_s=0.05) is False  # still there: the wait gives up
gate.release()
assert settle_native_threads() is True
assert ident not in native_threads_in_python()
print("settled")
"""


def test_a_native_thread_in_python_holds_the_exit_until_it_leaves() -> None:
    # In a fresh interpreter: a test runner may hold native threads of its own (pytest-xdist's
    # execnet reads its channel in one, blocked in Python for the whole run).
    result = subprocess.run(
        [sys.executable, "-c", _NATIVE_THREAD], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and result.stdout.strip() == "settled", result.stderr


def test_threads_python_started_are_not_waited_for() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        assert thread.ident not in native_threads_in_python()
        assert threading.get_ident() not in native_threads_in_python()
    finally:
        stop.set()
        thread.join()
