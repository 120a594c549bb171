"""A function tool's descriptions come from its Google-style docstring, in every layout.

:func:`pi_sdk.tool` reads the tool's description (the text before the first section) and each
parameter's description (the ``Args:`` / ``Arguments:`` / ``Parameters:`` section) from the
docstring. The model sees these texts, so each layout a docstring takes must give the whole
text to the right parameter: a description continued on deeper-indented lines (also lines that
look like ``key: value``, however long or short), a type in parentheses, a description that
starts on the next line, blank lines inside the section, other sections (``Returns:``,
``Raises:``, ``Example:``) before and after, a second ``Args:`` section, none at all.
"""

from __future__ import annotations

import pytest

import pi_sdk


def _described(doc: str | None) -> tuple[str, dict[str, str | None]]:
    """The description and each parameter's description of a tool with docstring ``doc``."""

    async def search(query: str = "", options: str = "", limit: int = 0, see: str = "") -> str:
        return query

    search.__doc__ = doc
    tool = pi_sdk.tool(search)
    properties = tool.parameters["properties"]
    return tool.description, {name: spec.get("description") for name, spec in properties.items()}


NONE: dict[str, str | None] = {"query": None, "options": None, "limit": None, "see": None}


def _params(**descriptions: str) -> dict[str, str | None]:
    return {**NONE, **descriptions}


LAYOUTS = {
    "one line each": (
        """Search.

        Args:
            query: What to look for.
            limit: At most this many.
        """,
        _params(query="What to look for.", limit="At most this many."),
    ),
    "continuations that look like key: value, short and long": (
        """Search.

        Args:
            options: How to search, as a dict:
                see: x
                mode: fast or slow, the default being fast unless the index is cold.
              depth: how far.
            query: What to look for.
        """,
        _params(
            options=(
                "How to search, as a dict: see: x mode: fast or slow, the default being fast"
                " unless the index is cold. depth: how far."
            ),
            query="What to look for.",
        ),
    ),
    "a short continuation deep under a long name": (
        """Search.

        Args:
            options:
                        a: b
            see: Also.
        """,
        _params(options="a: b", see="Also."),
    ),
    "an indented line that looks like a section header continues the description": (
        """Search.

        Args:
            query: What to look for.
                Note:
                quoted phrases match exactly.
            limit: At most this many.
        """,
        _params(
            query="What to look for. Note: quoted phrases match exactly.",
            limit="At most this many.",
        ),
    ),
    "types in parentheses and stars": (
        """Search.

        Arguments:
            query (str): What to look for.
            limit (int, optional): At most
                this many.
        """,
        _params(query="What to look for.", limit="At most this many."),
    ),
    "the description on the next line, blank lines between": (
        """Search.

        Parameters:
            query:
                What to look for.

            limit: At most this many.

        """,
        _params(query="What to look for.", limit="At most this many."),
    ),
    "other sections before and after are not parameters": (
        """Search the archive.

        Second paragraph.

        Example:
            query: not a parameter here.

        Args:
            query: What to look for.

        Returns:
            limit: not a parameter either.
        Raises:
            see: nor this.
        """,
        _params(query="What to look for."),
    ),
    "a second Args section, indented otherwise": (
        """Search.

        Args:
          query: What to look for.

        Returns:
            Hits.

        Args:
                see: Also.
        """,
        _params(query="What to look for.", see="Also."),
    ),
    "arguments less indented than the first end its continuation": (
        """Search.

        Args:
              query: What to look for,
                  in plain words.
            limit: At most this many.
        """,
        _params(query="What to look for, in plain words.", limit="At most this many."),
    ),
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_docstring_layout_gives_each_parameter_its_whole_description(layout: str):
    doc, expected = LAYOUTS[layout]
    _, described = _described(doc)
    assert described == expected


@pytest.mark.parametrize(
    ("doc", "description"),
    [
        (None, ""),
        ("", ""),
        ("One line.", "One line."),
        (
            """Search the archive.

            Use it for anything older than a week.

            Args:
                query: What to look for.
            """,
            "Search the archive.\n\nUse it for anything older than a week.",
        ),
        ("Args:\n    query: What to look for.", ""),
    ],
)
def test_the_tool_description_is_the_text_before_the_first_section(
    doc: str | None, description: str
):
    assert _described(doc)[0] == description


@pytest.mark.parametrize(
    ("doc", "description", "query"),
    [
        (
            """Search the archive.

            Supported filters:
            - date
            - author

            Args:
                query: What to look for.
            """,
            "Search the archive.\n\nSupported filters:\n- date\n- author",
            "What to look for.",
        ),
        (
            """Search the archive.

            Use it for anything older than a week:
            it reads the index.

            Note:
                Slow.
            Args:
                query: What to look for.
            """,
            "Search the archive.\n\nUse it for anything older than a week:\nit reads the index.",
            "What to look for.",
        ),
        (
            """Search.

            See Also:
                Other tools.
            Keyword Arguments:
                query: not a parameter of this tool's Args.
            """,
            "Search.",
            None,
        ),
    ],
)
def test_only_a_google_style_section_name_ends_the_description(
    doc: str, description: str, query: str | None
):
    """A line like ``Supported filters:`` is description text, not an unknown section."""
    assert _described(doc) == (description, _params(**({"query": query} if query else {})))
