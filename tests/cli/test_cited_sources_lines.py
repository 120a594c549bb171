"""The chat's ``[source]`` lines for a text block's citations, every shape a citation takes.

A citation may carry a URL and a title, a URL alone, or a title alone (a document's
citation has no URL); each shows once (the first of a repeated place wins), in order; one
with neither is not shown.
"""

from __future__ import annotations

from pi_sdk import Citation, ImageContent, TextContent
from pi_sdk._cli.render import cited_sources


def block(*citations: Citation) -> TextContent:
    return TextContent(text="Answer.", citations=list(citations))


def test_each_shape_of_a_citation_has_its_line():
    lines = cited_sources(
        block(
            Citation(type="url", url="https://a.example/x", title="Page A"),
            Citation(type="url", url="https://b.example/y"),
            Citation(type="document", title="report.pdf"),
            Citation(type="document"),
        )
    )
    assert lines == [
        "[source] Page A https://a.example/x",
        "[source] https://b.example/y",
        "[source] report.pdf",
    ]


def test_a_place_cited_twice_shows_once_with_its_first_title():
    lines = cited_sources(
        block(
            Citation(type="document", title="report.pdf"),
            Citation(type="url", url="https://a.example/x", title="First"),
            Citation(type="url", url="https://a.example/x", title="Second"),
            Citation(type="document", title="report.pdf", cited_text="again"),
        )
    )
    assert lines == ["[source] report.pdf", "[source] First https://a.example/x"]


def test_blocks_without_citations_have_no_lines():
    assert cited_sources(block()) == []
    assert cited_sources(ImageContent(data="AAAA", mime_type="image/png")) == []
