"""The exit hook waits for native threads inside Python, and only for them."""

from __future__ import annotations

import _thread
import threading

from pi_sdk_temporal._exit import native_threads_in_python, settle_native_threads


def test_a_native_thread_in_python_holds_the_exit_until_it_leaves() -> None:
    inside, gate = _thread.allocate_lock(), _thread.allocate_lock()
    inside.acquire()
    gate.acquire()

    def native() -> None:  # started by _thread: unknown to threading, as a Tokio thread is
        inside.release()
        gate.acquire()  # blocked in Python with the GIL released, as in a socket write

    ident = _thread.start_new_thread(native, ())
    inside.acquire()
    assert ident in native_threads_in_python()
    assert settle_native_threads(timeout_s=0.05) is False  # still there: the wait gives up
    gate.release()
    assert settle_native_threads() is True
    assert ident not in native_threads_in_python()


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
