"""Content-addressed results: the store itself (docs/cache.md).

- `store.ResultStore`: Parquet entries by key, atomic, bounded, least recently used first out.
- `write_behind`: writes entries after the node that produced them moved on.

Deciding what is reused is a plan pass (`runtime.plan.reuse`); recording what a run produced
is the executor's side (`runtime.execution.recording`).
"""
