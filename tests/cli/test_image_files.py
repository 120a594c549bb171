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


@pytest.mark.parametrize(
    ("mime_type", "extension"),
    [
        ("image/jpeg", ".jpg"),
        ("image/png", ".png"),
        ("image/webp", ".webp"),
        ("image/gif", ".gif"),
        ("image/x-unknown-kind", ".bin"),
    ],
)
def test_an_image_goes_into_a_new_session_folder_with_its_media_type_s_extension(
    tmp_path: Path, mime_type: str, extension: str
):
    session = tmp_path / "not" / "made" / "yet.jsonl"  # the folders are made as needed
    written = save_image(ImageContent(data="AAEC", mime_type=mime_type), session)
    assert written == tmp_path / "not" / "made" / f"yet-image-1{extension}"
    assert written.read_bytes() == b"\x00\x01\x02"


def test_the_first_free_number_is_taken_and_earlier_files_are_kept(tmp_path: Path):
    session = tmp_path / "s.jsonl"
    for number in (1, 2, 4):
        (tmp_path / f"s-image-{number}.png").write_bytes(b"old")
    png = ImageContent(data="AAEC", mime_type="image/png")
    assert save_image(png, session) == tmp_path / "s-image-3.png"
    assert save_image(png, session) == tmp_path / "s-image-5.png"
    assert [(tmp_path / f"s-image-{n}.png").read_bytes() for n in (1, 2, 4)] == [b"old"] * 3


def test_a_media_type_outside_the_table_takes_the_systems_extension(tmp_path: Path):
    written = save_image(ImageContent(data="AAEC", mime_type="image/bmp"), tmp_path / "s.jsonl")
    assert written == tmp_path / "s-image-1.bmp"


@pytest.mark.parametrize("data", ["AA!EC", "AAE C", "AAEC\n"])
def test_data_with_any_character_outside_base64_is_refused(tmp_path: Path, data: str):
    # a lenient decoder would drop the stray character and write other bytes than were sent
    with pytest.raises(ValueError, match="image/png image's data is not base64"):
        save_image(ImageContent(data=data, mime_type="image/png"), tmp_path / "s.jsonl")
    assert list(tmp_path.iterdir()) == []
