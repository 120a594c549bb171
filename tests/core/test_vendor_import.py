import asyncio
import sys
import threading

import pi_sdk


async def test_first_import_runs_off_the_event_loop(tmp_path, monkeypatch):
    module_dir = tmp_path / "slowvendor"
    module_dir.mkdir()
    (module_dir / "__init__.py").write_text(
        "import threading, time\nIMPORTED_IN = threading.current_thread().name\ntime.sleep(0.3)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    module = await pi_sdk.provider.import_vendor("slowvendor")
    task.cancel()
    assert module.IMPORTED_IN != threading.main_thread().name
    assert ticks >= 10  # the loop kept running during the 0.3 s import
    assert await pi_sdk.provider.import_vendor("slowvendor") is sys.modules["slowvendor"]
    del sys.modules["slowvendor"]


async def test_missing_module_raises_import_error():
    import pytest

    with pytest.raises(ImportError):
        await pi_sdk.provider.import_vendor("no_such_vendor_sdk_xyz")
