"""Images a model made, written to files ``pi-sdk chat`` names.

An :class:`~pi_sdk.types.ImageContent` in a reply (a Gemini image model's output, an OpenAI
image generation) is saved beside the session file: ``<session>-image-<n>.<ext>`` in the
session file's folder, ``n`` the first number from 1 whose file does not exist yet (a continued
chat never overwrites an earlier image), ``<ext>`` from the media type (``image/jpeg`` ->
``.jpg``, ``image/png`` -> ``.png``...; ``.bin`` for an unknown one). The image stays in the
transcript as well.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from pathlib import Path

from pi_sdk.types import ImageContent

__all__ = ["save_image"]

_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/webp": ".webp",
    "image/gif": ".gif",
}


def _extension(mime_type: str) -> str:
    return _EXTENSIONS.get(mime_type) or mimetypes.guess_extension(mime_type) or ".bin"


def save_image(image: ImageContent, session_file: Path) -> Path:
    """Write ``image`` beside ``session_file`` under a new name (module docstring).

    Returns:
        The file written.

    Raises:
        ValueError: ``image.data`` is not base64 (nothing is written).
        OSError: the file could not be written.
    """
    try:
        data = base64.b64decode(image.data, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"the {image.mime_type} image's data is not base64") from None
    folder = session_file.parent
    folder.mkdir(parents=True, exist_ok=True)
    extension = _extension(image.mime_type)
    number = 1
    while True:
        target = folder / f"{session_file.stem}-image-{number}{extension}"
        try:
            with target.open("xb") as out:  # "x": never replace an earlier image
                out.write(data)
        except FileExistsError:
            number += 1
            continue
        return target
