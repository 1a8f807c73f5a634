"""The browser editor's build: the committed bundle matches its sources, and its unit tests pass.

Running Pipewright needs no Node.js because `static/editor/dist/` is committed; these tests
make sure that what is committed is what the sources build to. They need Node.js and npm:
without them they are skipped on a developer's machine and fail in CI (`CI` is set).
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from runtime.execution.statuses import status_catalog

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "static" / "editor" / "dist"
STALE = "the committed bundle is stale: run `npm run build` and commit static/editor/dist"


def _run(command: list[str], timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def npm() -> str:
    """npm, with the locked packages installed in node_modules (`npm ci` when missing)."""
    found = shutil.which("npm")
    if found is None:
        message = "npm is not installed: the editor's bundle and unit tests cannot be checked"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if not (ROOT / "node_modules").is_dir():
        installed = _run([found, "ci", "--no-audit", "--no-fund"], timeout=600)
        assert installed.returncode == 0, f"npm ci failed:\n{installed.stdout}\n{installed.stderr}"
    return found


def test_committed_bundle_is_what_the_sources_build_to(npm, tmp_path):
    built = tmp_path / "dist"
    result = _run(["npx", "vite", "build", "--outDir", str(built), "--emptyOutDir"], timeout=300)
    assert result.returncode == 0, f"the Vite build failed:\n{result.stdout}\n{result.stderr}"
    names = sorted(path.name for path in built.iterdir())
    assert {"editor.css", "editor.js", "ExpressionEditor.js"} <= set(names), names
    assert all(name.endswith((".js", ".css")) for name in names), f"unexpected output: {names}"
    committed = sorted(path.name for path in DIST.iterdir()) if DIST.is_dir() else []
    assert committed == names, STALE
    for name in names:
        assert filecmp.cmp(built / name, DIST / name, shallow=False), f"{name}: {STALE}"


def test_editor_unit_tests_pass(npm):
    result = _run(["npx", "vitest", "run"], timeout=300)
    assert result.returncode == 0, f"the editor's tests failed:\n{result.stdout}\n{result.stderr}"


def test_pipeline_page_loads_the_bundle_with_the_pipeline_token_and_user(client, pipeline_id):
    page = client.get(f"/pipelines/{pipeline_id}/").content.decode()
    assert '<script type="module" src="/static/editor/dist/editor.js"></script>' in page
    assert 'href="/static/editor/dist/editor.css"' in page
    assert f'data-pipeline-id="{pipeline_id}"' in page
    assert 'data-csrf-token="' in page
    assert 'data-user-name="owner"' in page


def test_home_page_loads_the_bundle_with_the_token_and_user(client):
    page = client.get("/").content.decode()
    assert 'data-page="home"' in page
    assert '<script type="module" src="/static/editor/dist/editor.js"></script>' in page
    assert 'data-csrf-token="' in page
    assert 'data-user-name="owner"' in page


def test_each_page_preloads_every_chunk_the_bundle_imports_and_nothing_else(client, pipeline_id):
    """A chunk found only once editor.js has arrived costs a round trip before anything runs;
    a preload of a chunk the build no longer makes is a 404 on every page."""
    imported = set(re.findall(r'from"\./([\w.-]+\.js)"', (DIST / "editor.js").read_text()))
    assert imported, "editor.js imports no chunk: this test no longer looks at the right thing"
    for path in ("/", f"/pipelines/{pipeline_id}/"):
        page = client.get(path).content.decode()
        preloaded = set(re.findall(r'rel="modulepreload" href="/static/editor/dist/([^"]+)"', page))
        assert preloaded == imported, path


def test_the_unit_tests_statuses_are_the_catalogs():
    """The editor's unit tests read the catalog's statuses from a file: it must be the server's."""
    fixture = DIST.parent / "src" / "pages" / "pipeline" / "document" / "statuses.json"
    assert json.loads(fixture.read_text()) == status_catalog(), (
        f"{fixture.relative_to(ROOT)} is not runtime.execution.statuses.status_catalog():"
        " write it again"
    )


def test_every_stylesheet_closes_each_rule_it_opens():
    """A rule left open swallows every rule after it, silently (the bundler keeps it as
    nested CSS): count the braces of each source stylesheet, comments left out."""
    for sheet in (ROOT / "static" / "editor" / "src").rglob("*.css"):
        text = re.sub(r"/\*.*?\*/", "", sheet.read_text(encoding="utf-8"), flags=re.S)
        depth = 0
        for number, line in enumerate(text.splitlines(), 1):
            depth += line.count("{") - line.count("}")
            assert depth >= 0, f"{sheet.name}:{number} closes a rule it never opened"
        assert depth == 0, f"{sheet.name} leaves {depth} rule(s) open"
