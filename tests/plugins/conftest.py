"""Fixtures of the plugin tests: a `bash` tool that records the commands it ran."""

import pytest

from pi_sdk import tool


@pytest.fixture
def ran():
    """The commands the `bash` tool ran, in order."""
    return []


@pytest.fixture
def bash(ran):
    """A `bash` agent tool that appends its command to `ran` and returns `ran <command>`."""

    @tool
    async def bash(command: str) -> str:
        """Run a shell command.

        Args:
            command: The command line.
        """
        ran.append(command)
        return f"ran {command}"

    return bash
