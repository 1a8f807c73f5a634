"""Content-addressed results: what a node computed, stored under a key of everything it
depends on, so a run re-executes only what changed (docs/cache.md).

- `store.ResultStore`: Parquet entries by key, atomic, bounded, least recently used first out.
- `keys`: each node's key (operator, version, params, inputs' keys, what an input reads).
- `reuse`: the plan pass that replaces reused nodes by reads of their results and marks
  which results a run stores.
- `recording`: what the executor does with those marks after a node ran.
"""
