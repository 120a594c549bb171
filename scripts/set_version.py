"""Set the version of every package of the repository, in step (docs/releasing.md).

    python3 scripts/set_version.py X.Y.Z [--root DIR]

Rewrites ``version = "..."`` of the core's ``pyproject.toml`` and of every ``providers/*`` and
``plugins/*`` one, the pins of their dependencies on each other (``pi-sdk-core~=X.Y.Z``), and the
wheel file names of the README's install block. Exit status 2 for a version that is not X.Y.Z.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def set_version(root: Path, version: str) -> list[Path]:
    """Rewrite the files under ``root``; returns those changed."""
    changed: list[Path] = []
    projects = [root / "pyproject.toml", *sorted(root.glob("providers/*/pyproject.toml"))]
    projects += sorted(root.glob("plugins/*/pyproject.toml"))
    for path in projects:
        text = path.read_text(encoding="utf-8")
        new = re.sub(r'(?m)^version = "[^"]+"$', f'version = "{version}"', text, count=1)
        new = re.sub(r'"(pi-sdk-[a-z-]+)~=[^"]+"', rf'"\1~={version}"', new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    new = re.sub(r"(pi_sdk_[a-z_]+)-[0-9.]+(-py3-none-any\.whl)", rf"\g<1>-{version}\2", text)
    if new != text:
        readme.write_text(new, encoding="utf-8")
        changed.append(readme)
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="the new version, X.Y.Z")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    if not _VERSION.match(args.version):
        print(f"set_version: the version must be X.Y.Z, not {args.version!r}", file=sys.stderr)
        return 2
    for path in set_version(args.root, args.version):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
