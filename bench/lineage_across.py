"""Column lineage across a chain of pipelines: each reads the file the one before writes.

    python bench/lineage_across.py [--pipelines N] [--columns C] [--repeat R]

Pipeline i reads f{i-1}.csv (C columns), computes `c0 = c0 + 1` and writes f{i}.csv. The
last one's `c0` is traced upstream with the default bound (10 pipelines) and with none (N),
each pipeline's lineage worked out once (schema inference included). Prints the best of R.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.overhead import best_of  # noqa: E402
from bench.table import print_table  # noqa: E402
from runtime.checks.lineage import column_lineage  # noqa: E402
from runtime.checks.lineage_across import MAX_DEPTH, LinkedPipeline, upstream_hops  # noqa: E402
from runtime.document.spec import load_document  # noqa: E402


def chain(root: Path, pipelines: int, columns: int) -> list[LinkedPipeline]:
    """The pipelines, first to last, with their files written under `root`."""
    header = ",".join(f"c{i}" for i in range(columns))
    found = []
    for index in range(pipelines + 1):
        (root / f"f{index}.csv").write_text(f"{header}\n{','.join(['1'] * columns)}\n")
    for index in range(1, pipelines + 1):
        nodes = [
            {"id": "read", "operator": "csv_input", "params": {"path": f"f{index - 1}.csv"}},
            {"id": "step", "operator": "transform",
             "params": {"mappings": [{"target": "c0", "expression": "c0 + 1"}]}},
            {"id": "write", "operator": "csv_output", "params": {"path": f"f{index}.csv"}},
        ]  # fmt: skip
        edges = [
            {"source": a, "source_port": "out", "target": b, "target_port": "in"}
            for a, b in pairwise(["read", "step", "write"])
        ]
        name = f"P{index}"
        document = load_document({"name": name, "nodes": nodes, "edges": edges})
        found.append(LinkedPipeline(name, name, document))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipelines", type=int, default=20)
    parser.add_argument("--columns", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        *upstreams, last = chain(root, args.pipelines, args.columns)

        def lineage_of(pipeline):
            return column_lineage(pipeline.document, data_root=root)

        path = lineage_of(last).path(("write", "in", "c0"))
        for label, depth in (("default bound", MAX_DEPTH), ("unbounded", args.pipelines)):
            found = upstream_hops(last, path, upstreams, lineage_of, max_depth=depth)
            seconds = best_of(
                args.repeat,
                lambda depth=depth: upstream_hops(
                    last, path, upstreams, lineage_of, max_depth=depth
                ),
            )
            rows.append([label, args.pipelines, args.columns, len(found.hops),
                         len(found.stops), f"{seconds:.3f}"])  # fmt: skip
    print_table(["trace", "pipelines", "columns", "hops", "stops", "seconds"], rows)


if __name__ == "__main__":
    main()
