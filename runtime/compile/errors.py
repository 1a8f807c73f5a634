"""The one error of compiling: what cannot become a script that runs exactly like a run."""

from __future__ import annotations

from runtime.errors import PipewrightError


class CompileRefused(PipewrightError):
    """The pipeline (or one node of it, named in `node`) cannot be compiled exactly."""

    def __init__(self, message: str, node: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.node = node

    def __str__(self) -> str:
        return f"node '{self.node}': {self.message}" if self.node else self.message

    def at(self, node: str) -> CompileRefused:
        """This refusal, naming `node` (kept when one is named already)."""
        return self if self.node else CompileRefused(self.message, node)
