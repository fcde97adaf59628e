"""The documentation as a reader meets it: a README short enough to read, and docs/ built as a site
in strict mode, where a broken link or a page left out of the navigation fails the build."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = os.path.join(os.path.dirname(sys.executable), "mkdocs")


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MKDOCS, "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )


def copy_of_the_docs(tmp_path: Path) -> Path:
    copy = tmp_path / "suite"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    return copy


def test_the_readme_is_short_and_has_a_table_of_contents() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 400
    assert len(readme.encode()) <= 24 * 1024
    contents = readme.split("## Contents", 1)[1].split("\n## ", 1)[0]
    headings = re.findall(r"^## (.+)$", readme, flags=re.MULTILINE)
    assert re.findall(r"^- \[(.+?)\]\(#", contents, flags=re.MULTILINE) == headings[1:]


def test_the_mcp_configuration_stands_near_the_top_of_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index('"mcpServers"') < readme.index("## Quick start")


def test_every_page_the_readme_links_to_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert linked
    assert [link for link in linked if not (ROOT / link).is_file()] == []


def test_the_docs_build_in_strict_mode(tmp_path: Path) -> None:
    built = build(ROOT, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "apps" / "agentic-to-do" / "index.html").is_file()


@pytest.mark.parametrize(
    ("page", "text"),
    [
        ("cli.md", "\n[a page](no-such-page.md)\n"),  # a link to no page
        ("cli.md", "\n[a section](dates.md#no-such-heading)\n"),  # an anchor no heading has
        ("left-out.md", "# A page no one can reach\n"),  # not in the navigation
    ],
)
def test_a_broken_link_or_a_page_left_out_fails_the_build(tmp_path: Path, page: str, text: str) -> None:
    copy = copy_of_the_docs(tmp_path)
    with (copy / "docs" / page).open("a", encoding="utf-8") as file:
        file.write(text)
    built = build(copy, tmp_path / "site")
    assert built.returncode != 0
    assert "WARNING" in built.stderr
