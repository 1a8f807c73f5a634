"""One side of a comparison of two runs: what its record holds, without the web's models.

The editor makes it from a `Run` and its `NodeRun`s, asking the result store for the file of
each key the nodes recorded (`metrics["results"] = {port: key}`); a job's process gets it as
JSON. It imports neither DuckDB nor pandas: the web process makes it and stays small.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunRecord:
    """One side of a comparison, as its run's record holds it."""

    name: str
    """How messages name it: "run #3"."""
    document: dict
    """The document that ran, in its JSON form."""
    nodes: Mapping[str, Mapping]
    """Node id → `{"status", "metrics", "error"}` for the nodes the run recorded."""
    stored: Mapping[str, Path]
    """The Parquet file of each of its results' keys that is still kept."""

    def to_json(self) -> dict:
        """The record as JSON (for a job's process)."""
        stored = {key: str(path) for key, path in self.stored.items()}
        return {"name": self.name, "document": self.document, "nodes": self.nodes, "stored": stored}

    @classmethod
    def from_json(cls, fields: Mapping) -> RunRecord:
        stored = {key: Path(path) for key, path in fields["stored"].items()}
        return cls(fields["name"], fields["document"], fields["nodes"], stored)

    def result_keys(self) -> set[str]:
        """The keys of every result its nodes recorded."""
        return {key for node_id in self.nodes for key in self.results_of(node_id).values()}

    def results_of(self, node_id: str) -> dict[str, str]:
        """`{port: key}` of the results the node recorded (`metrics["results"]`)."""
        metrics = (self.nodes.get(node_id) or {}).get("metrics")
        results = metrics.get("results") if isinstance(metrics, Mapping) else None
        if not isinstance(results, Mapping):  # a record edited by hand, say
            return {}
        return {port: key for port, key in results.items() if isinstance(key, str)}
