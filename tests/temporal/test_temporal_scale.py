"""50 concurrent runs on two worker processes all complete, each tool call executed once."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import pytest
from _support.temporal import WorkerProcess
from _support.temporal_agent import log_lines
from pi_sdk_temporal import prompt_input, start_agent

RUNS = 50


@pytest.mark.slow  # 50 runs on two worker processes
async def test_fifty_concurrent_runs_on_two_workers(
    client, temporal_address, task_queue, files
) -> None:
    log, gates = files
    settings = {
        "address": temporal_address,
        "task_queue": task_queue,
        "log": str(log),
        "gates": str(gates),
    }
    workers = [WorkerProcess(settings), WorkerProcess(settings)]
    try:
        await asyncio.gather(*(w.ready() for w in workers))
        prefix = uuid.uuid4().hex[:8]
        runs = await asyncio.gather(
            *(
                start_agent(
                    client,
                    prompt_input("a", f"tools:r{i}:add,weather", tools=["add", "weather"]),
                    id=f"scale-{prefix}-{i}",
                    task_queue=task_queue,
                )
                for i in range(RUNS)
            )
        )
        results = await asyncio.wait_for(asyncio.gather(*(run.result() for run in runs)), 150)
    finally:
        for worker in workers:
            worker.stop()

    for result in results:
        assert [m["role"] for m in result.messages] == [
            "user",
            "assistant",
            "toolResult",
            "toolResult",
            "assistant",
        ]
        text = result.messages[-1]["content"][0]["text"]
        assert text == 'results: add=5; weather={"city": "Paris", "celsius": 21}'
    lines = log_lines(log)
    ends = Counter(line[2] for line in lines if line[1] == "end" and line[0] != "stream")
    assert ends == Counter({f"r{i}-{tool}": 1 for i in range(RUNS) for tool in ("add", "weather")})
    model_calls = Counter(line[2] for line in lines if line[:2] == ["stream", "done"])
    assert model_calls == Counter({f"scale-{prefix}-{i}": 2 for i in range(RUNS)})
    assert len({line[3] for line in lines if line[0] != "stream"}) == 2  # both workers ran tools
