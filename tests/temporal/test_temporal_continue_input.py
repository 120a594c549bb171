"""A run given a transcript and no prompt continues it, as ``Agent.continue_()`` does (issue 34)."""

from __future__ import annotations

import uuid

from pi_sdk_temporal import AgentRunInput, message_to_json, start_agent

from pi_sdk import UserMessage


async def test_a_transcript_without_a_prompt_is_continued(client, shared_worker) -> None:
    asked = message_to_json(UserMessage(content="are you there"))
    run = await start_agent(
        client,
        AgentRunInput(model="a", messages=[asked]),
        id=f"continue-{uuid.uuid4().hex}",
        task_queue=shared_worker.task_queue,
    )
    result = await run.result()
    assert [m["role"] for m in result.messages] == ["user", "assistant"]
    assert result.messages[0] == asked  # the transcript is kept, not asked again
    assert result.messages[1]["content"][0]["text"] == "echo: are you there (scripted-a)"  # type: ignore[index]
    assert result.aborted is False


async def test_no_prompt_and_no_transcript_runs_nothing(client, shared_worker) -> None:
    run = await start_agent(
        client,
        AgentRunInput(model="a"),
        id=f"nothing-{uuid.uuid4().hex}",
        task_queue=shared_worker.task_queue,
    )
    result = await run.result()
    assert (result.messages, result.aborted) == ([], False)
