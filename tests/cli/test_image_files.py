"""``pi-sdk chat``'s image files: named after the session, never overwritten, bad data refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_sdk import ImageContent
from pi_sdk._cli.image_files import save_image


def test_names_follow_the_session_and_the_media_type(tmp_path: Path):
    session = tmp_path / "talk.jsonl"
    png = ImageContent(data="iVBORw==", mime_type="image/png")
    odd = ImageContent(data="AAEC", mime_type="image/x-unknown-kind")
    assert save_image(png, session) == tmp_path / "talk-image-1.png"
    assert save_image(png, session) == tmp_path / "talk-image-2.png"
    assert save_image(odd, session) == tmp_path / "talk-image-1.bin"
    assert (tmp_path / "talk-image-1.bin").read_bytes() == b"\x00\x01\x02"


def test_data_that_is_not_base64_is_refused_and_nothing_is_written(tmp_path: Path):
    with pytest.raises(ValueError, match="image/webp image's data is not base64"):
        save_image(ImageContent(data="not base64!", mime_type="image/webp"), tmp_path / "s.jsonl")
    assert list(tmp_path.iterdir()) == []
