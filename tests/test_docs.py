"""The repository explains itself: a short README, docs that stand alone, and links that lead somewhere."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dqx_gx.cli import main
from tests.conftest import ROOT
from tests.docs import DOCS, README, anchors, code_blocks, headings, links, pages, section

CONTRIBUTORS = [ROOT / "DEVELOPERS.md", ROOT / "CONTRIBUTING.md"]


def test_the_readme_is_short() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 150
    assert [i + 1 for i, line in enumerate(lines) if len(line) > 200] == []


@pytest.mark.parametrize("page", [*pages(), *CONTRIBUTORS], ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_points_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    assert "../shared" not in text
    assert "/work/" not in text


@pytest.mark.parametrize("page", [*pages(), *CONTRIBUTORS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(page: Path) -> None:
    assert broken_links(page) == []


def test_the_readme_links_every_page() -> None:
    """Every page of docs/ and the contributors' pages are reachable from the README's table."""
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(README.read_text())}
    assert [str(p.relative_to(ROOT)) for p in [*pages()[1:], *CONTRIBUTORS] if p.resolve() not in linked] == []


def test_the_link_checker_sees_broken_links_and_anchors(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("## Foreign keys (`--only foreignkey`)\n## Foreign keys (`--only foreignkey`)\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# A `code` title\n\nSee [here](#a-code-title), [the\nother](#nowhere), [this](other.md#foreign-keys---only-"
        "foreignkey-1),\n[that](other.md#foreign-keys), [gone](gone.md) and <https://example.com>.\n"
        "```\n[not a link](x.md)\n# not a heading\n```\n"
    )
    assert broken_links(page) == [
        "#nowhere: no such heading in page.md",
        "other.md#foreign-keys: no such heading in other.md",
        "gone.md: no such file",
    ]
    assert anchors(page.read_text()) == {"a-code-title"}


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` that lead to no file, or to no heading of a Markdown file."""
    broken = []
    for target in links(page.read_text()):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: …
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text()):
            broken.append(f"{target}: no such heading in {file.name}")
    return broken


def test_the_readme_installs_as_ci_does() -> None:
    (install,) = code_blocks(section(README.read_text(), "Try it"), "bash")[:1]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "python3 -m venv .venv" in ci
    readme_steps = [shlex.split(step) for step in install.strip().split("&&")]
    assert readme_steps[0] == ["python3", "-m", "venv", ".venv"]
    assert _requirements(readme_steps[1]) == _requirements(
        shlex.split(next(line for line in ci if "pip install" in line and "-e" in line))
    )


def test_the_readme_tests_as_ci_does() -> None:
    (command,) = code_blocks(section(README.read_text(), "Run the tests"), "bash")
    assert command.strip() == ".venv/bin/python -m pytest"
    assert command.strip() in (ROOT / ".ci" / "run").read_text().splitlines()


SOURCES = [*ROOT.glob("dqx_gx/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/*.py")]
# "docs/semantics.md, 'Title'", the title possibly wrapped onto the next line of a docstring
_CITATION = re.compile(r"docs/semantics\.md, '(.+?)'(?=[\s).,:;]|$)", re.DOTALL)


def test_the_semantics_have_every_title_the_code_cites() -> None:
    """Code and tests cite docs/semantics.md by the title of a section or of a bold paragraph ('Operators')."""
    text = (DOCS / "semantics.md").read_text()
    titles = {re.sub(r"^\d+\. ", "", title) for _, title in headings(text).values()}
    titles |= {lead.rstrip(".") for lead in re.findall(r"^\*\*([^*]+)\*\*", text, re.MULTILINE)}
    cited = {
        (str(path.relative_to(ROOT)), " ".join(title.split()))
        for path in SOURCES
        if path != Path(__file__)
        for title in _CITATION.findall(path.read_text())
    }
    assert len(cited) > 50
    assert sorted(f"{path}: {title!r}" for path, title in cited if title not in titles) == []


def test_the_code_cites_the_repositorys_own_pages() -> None:
    """The repository stands alone: code cites docs/semantics.md by title, never a specification outside it."""
    outside = "SPEC" + " §"
    assert [str(path.relative_to(ROOT)) for path in SOURCES if outside in path.read_text()] == []


def _requirements(command: list[str]) -> list[str]:
    """What a ``pip install`` command installs: its arguments after ``install`` without the quiet/upgrade flags."""
    after = command[command.index("install") + 1 :]
    return [arg for arg in after if arg not in ("--quiet", "-q", "--upgrade", "-U")]


def test_the_documented_regeneration_translates_every_example() -> None:
    """gx/ is what translating every example makes (tests/run/test_gx_project.py regenerates it from all of
    examples/**/*.yaml); the command the docs give must name the same contracts."""
    (command,) = code_blocks(section((DOCS / "gx-and-platforms.md").read_text(), "The project in `gx/`"), "bash")
    words = shlex.split(command.strip())
    assert words[:2] == [".venv/bin/dqx-gx", "translate"]
    assert words[-2:] == ["--gx-dir", "."]
    named = {path for pattern in words[2:-2] for path in ROOT.glob(pattern)}
    assert named == set(ROOT.glob("examples/**/*.yaml"))
    assert len(named) == 10


def test_the_lint_output_the_cli_page_shows_is_lints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odcs = code_blocks(section((DOCS / "contracts.md").read_text(), "A contract to start from"), "yaml")[0]
    (tmp_path / "orders.yaml").write_text(odcs)
    assert main(["lint", str(tmp_path / "orders.yaml")]) == 0
    (shown,) = code_blocks(section((DOCS / "cli.md").read_text(), "`lint`"), "text")
    assert capsys.readouterr().out == shown
