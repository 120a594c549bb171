"""Where the CLI keeps its files: the user's config and data folders (platformdirs).

``keys.json`` lives in the config folder (``~/.config/pi-sdk`` on Linux, honouring
``XDG_CONFIG_HOME``), chat sessions in ``sessions/`` of the data folder (``~/.local/share/pi-sdk``,
honouring ``XDG_DATA_HOME``). Folders the CLI creates are owner-only (mode 0700).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["config_dir", "data_dir", "private_dir", "sessions_dir"]

_APP = "pi-sdk"


def config_dir() -> Path:
    """The user's pi-sdk config folder (not created)."""
    import platformdirs

    return platformdirs.user_config_path(_APP)


def data_dir() -> Path:
    """The user's pi-sdk data folder (not created)."""
    import platformdirs

    return platformdirs.user_data_path(_APP)


def sessions_dir() -> Path:
    """The folder of chat session files (not created)."""
    return data_dir() / "sessions"


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) if needed and make it owner-only (mode 0700)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)
    return path
