"""Every class of pi-sdk-openai with field annotations resolves them (``typing.get_type_hints``).

The modules use ``from __future__ import annotations``: a dataclass's field annotations stay
text until something reads them (``dataclasses.fields`` users, pydantic models built on
them, ``typing.get_type_hints``). Each must be a type expression that evaluates.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing

import pi_sdk_openai
import pytest


def _annotated_classes() -> list[type]:
    found: list[type] = []
    names = [m.name for m in pkgutil.walk_packages(pi_sdk_openai.__path__, "pi_sdk_openai.")]
    for name in ["pi_sdk_openai", *names]:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == name:
                if value.__dict__.get("__annotations__"):
                    found.append(value)
    return found


CLASSES = _annotated_classes()


def test_the_classes_with_fields_are_found() -> None:
    names = {cls.__name__ for cls in CLASSES}
    assert {"Answer", "ModelLister", "CompletionsCompat", "ResponsesCompat"} <= names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_every_field_annotation_resolves(cls: type) -> None:
    hints = typing.get_type_hints(cls)
    assert set(cls.__dict__["__annotations__"]) <= set(hints)
    assert not any(isinstance(hint, str) for hint in hints.values())
