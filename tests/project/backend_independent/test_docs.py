"""The README and docs/ stay true to the tree: a short README whose links all resolve, and an architecture table that
names every package of the library and every page of the explorer."""

import pathlib
import re

from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
MAX_README_LINES = 300
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _relative_links(path: pathlib.Path) -> list[str]:
    return [target for target in LINK.findall(path.read_text(encoding="utf-8")) if "://" not in target]


def test_readme_is_read_in_ten_minutes():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move detail to docs/"


def test_every_doc_page_is_one_click_from_the_readme():
    linked = {(ROOT / target).resolve() for target in _relative_links(README)}
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert page.resolve() in linked, f"README.md does not link {page.relative_to(ROOT)}"


def test_links_resolve():
    for document in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for target in _relative_links(document):
            assert (document.parent / target).exists(), f"{document.relative_to(ROOT)} links a missing {target}"


def _architecture_rows() -> dict[str, str]:
    """``{first cell: whole row}`` of the package table in docs/architecture.md."""
    rows = {}
    for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2 and cells[0].startswith("`"):
            rows[cells[0]] = line
    return rows


def _library_packages() -> list[str]:
    packages = ROOT / "elmo_keras"
    return sorted(f"elmo_keras/{init.parent.relative_to(packages).as_posix()}/"
                  for init in packages.rglob("__init__.py") if init.parent != packages)


def test_the_architecture_table_names_every_package():
    named = " ".join(_architecture_rows())
    missing = [package for package in _library_packages() if f"`{package}`" not in named]
    assert not missing, f"docs/architecture.md has no row for {missing}"


def test_the_architecture_table_names_only_what_exists():
    for first_cell in _architecture_rows():
        for path in re.findall(r"`([^`]+)`", first_cell):
            assert (ROOT / path).exists(), f"docs/architecture.md names {path}, which does not exist"


def test_the_architecture_table_names_every_page():
    pages_row = next(row for cell, row in _architecture_rows().items() if "`elmo_keras/explorer/app/`" in cell)
    pages = sorted((ROOT / "elmo_keras" / "explorer" / "app" / "pages").glob("*.py"))
    missing = [page.stem for page in pages if f"`{page.stem}`" not in pages_row]
    assert not missing, f"the pages row of docs/architecture.md does not name {missing}"
