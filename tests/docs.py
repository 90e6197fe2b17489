"""Reading the repository's Markdown as the tests need it: sections, code blocks, links and heading anchors."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_INLINE_CODE = re.compile(r"`+[^`]*`+")


def pages() -> list[Path]:
    """The README and every page of docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code removed (links in code are not links)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(_INLINE_CODE.sub("", line))
    return lines


def links(text: str) -> list[str]:
    """Every link target of the prose (a link's text may wrap onto the next line)."""
    return _LINK.findall("\n".join(prose_lines(text)))


def anchors(text: str) -> set[str]:
    """The ids GitHub gives the headings of a page: the heading's text in lower case, punctuation dropped,
    spaces as hyphens; a repeated id numbered (-1, -2, …)."""
    seen: dict[str, int] = {}
    ids = set()
    for _, title in headings(text).values():
        words = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).replace("`", "")  # a link's text stays
        slug = re.sub(r"[^\w\- ]", "", words.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def headings(text: str) -> dict[int, tuple[int, str]]:
    """Line index → (level, title) of every heading outside fenced code (a ``# comment`` in a shell block is none)."""
    found, fenced = {}, False
    for i, line in enumerate(text.splitlines()):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found[i] = (len(match.group(1)), match.group(2))
    return found


def section(text: str, heading: str) -> str:
    """The text under the heading ``heading`` (any level) up to the next heading of the same or a higher level."""
    lines, found = text.splitlines(), headings(text)
    for i, (level, title) in found.items():
        if title == heading:
            end = next((j for j, (other, _) in found.items() if j > i and other <= level), len(lines))
            return "\n".join(lines[i + 1 : end])
    raise AssertionError(f"no heading {heading!r}")


def code_blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of ``text`` written as ```language."""
    return re.findall(rf"^```{re.escape(language)}\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
