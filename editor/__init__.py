"""Pipewright's web app: one Django app, one folder per domain.

- `pages/`: the HTML views, the docs pages and the headers every answer carries.
- `pipelines/`: what users do to a pipeline (save, delete, duplicate), its rows and revisions,
  what leaves the server of it (exports, pictures).
- `workspaces/`: membership, the one module that decides permissions, connections, files, tokens.
- `runs/`: everything between "queued" and "rows written" (its `__init__` is the chain of a run)
  and the jobs forked like runs (previews, inference, checks).
- `live/`: the websocket consumer and what it relays; `schedules/`, `audit/`, `notifications/`;
  `database/`: the app's own database file and its outages.
- The core beside them: `models/` (by domain), `api/` (one router a file, schemas in
  `api/schemas/`), `admin/`, `management/` (commands and the demo), `encryption`, `errors`,
  `signals`, `apps`.

The engine is `runtime`, imported through its public surface where it can be (`from runtime
import load_document`); nothing in `runtime` imports this package.
"""
