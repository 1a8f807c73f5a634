"""The deployments of docs/deploy.md as the page writes them: its shell blocks, read from it.

A block opens with a fence named after it (```` ```sh deploy:service ````). `commands` gives
its commands (comments dropped, `\\` continuations joined), `exports` the variables its
`export` lines set, and `here` a command rewritten for this machine: the page's host names
and ports become loopback and free ports, and nothing else changes.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

DEPLOY_MD = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def block(name: str) -> str:
    """The text of the shell block `deploy:<name>`; fails when the page has none."""
    found = re.search(rf"^```sh deploy:{re.escape(name)}\n(.*?)^```$", _page(), re.M | re.S)
    assert found, f"docs/deploy.md has no ```sh deploy:{name} block"
    return found.group(1)


def commands(name: str) -> list[str]:
    """The block's commands, one string each, in order (`export` lines included)."""
    joined = block(name).replace("\\\n", " ")
    lines = (line.strip() for line in joined.splitlines())
    return [" ".join(line.split()) for line in lines if line and not line.startswith("#")]


def exports(name: str) -> dict[str, str]:
    """The variables the block's `export` lines set."""
    variables = {}
    for command in commands(name):
        words = shlex.split(command)
        if words[0] == "export":
            variables.update(word.split("=", 1) for word in words[1:])
    return variables


def programs(name: str) -> list[str]:
    """The block's commands other than `export`."""
    return [command for command in commands(name) if not command.startswith("export ")]


def here(command: str, replacements: dict[str, str]) -> list[str]:
    """`command` as words, with each of the page's placeholders (a host, a port) replaced."""
    for written, actual in replacements.items():
        command = command.replace(written, actual)
    return shlex.split(command)


def _page() -> str:
    return DEPLOY_MD.read_text(encoding="utf-8")
