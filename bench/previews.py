"""What a preview or a schema inference costs in a process of its own, against in the server.

    python bench/previews.py [--repeat 50]

Over the demo's pipelines and sample data (`manage.py seed_demo`'s), each job is done
`--repeat` times in this process (`runtime.execution.preview`, `runtime.checks.inference`, as the
web server did before) and in a job process forked by the pre-started server (`editor.runs.jobs`, as
it does now: the spare process warmed up after the last job, the document and answer as JSON),
with a pause between jobs as between saves; median and p95 in ms. Every save answers with an
inference, so its cost is each save's.
"""

from __future__ import annotations

import argparse
import base64
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAUSE_S = 0.2
"""Between two jobs, as between two saves: the pool's spare process is warm again by then."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    repeat = parser.parse_args().repeat
    sys.path.insert(0, str(ROOT))
    for name in ("PIPEWRIGHT_SECRET_KEY", "PIPEWRIGHT_ENCRYPTION_KEY"):  # else written to ROOT
        os.environ.setdefault(name, base64.urlsafe_b64encode(os.urandom(32)).decode())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pipewright.settings")
    import django

    django.setup()
    from bench.table import print_table
    from editor.management.commands.seed_demo import DEMO_DOCUMENTS, write_sample_data
    from editor.runs import jobs, local
    from runtime.checks.inference import infer_schemas
    from runtime.document.spec import load_document
    from runtime.execution.preview import preview
    from runtime.io.paths import FileArea

    folder = Path(tempfile.mkdtemp(prefix="pw-previews-"))
    write_sample_data(folder)
    area = {"data_root": FileArea(folder), "connections": {}}
    local.fork_server.start()
    rows = []
    for path in DEMO_DOCUMENTS:
        document = load_document(path.read_text())
        node = document.nodes[-1].id
        cases = [
            ("infer schemas", partial(infer_schemas, document, **area),
             partial(jobs.infer_schemas, document, **area)),
            (f"preview {node}", partial(preview, document, node, **area),
             partial(jobs.preview, document, node, **area)),
        ]  # fmt: skip
        for job, here, pooled in cases:
            assert here().to_json() == pooled(), job  # and warm: imports, the server's first fork
            rows.append([document.name, job, *_timed(here, repeat), *_timed(pooled, repeat)])
    local.fork_server.stop()
    print(f"demo pipelines over the demo's sample data, {repeat} times each, ms")
    print_table(
        ["pipeline", "job", "in the server: median", "p95", "own process: median", "p95"], rows
    )


def _timed(job, repeat: int) -> list[str]:
    seconds = []
    for _ in range(repeat):
        time.sleep(PAUSE_S)
        started = time.perf_counter()
        job()
        seconds.append(time.perf_counter() - started)
    p95 = statistics.quantiles(seconds, n=20, method="inclusive")[-1]
    return [f"{statistics.median(seconds) * 1e3:.1f}", f"{p95 * 1e3:.1f}"]


if __name__ == "__main__":
    main()
