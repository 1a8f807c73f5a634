"""Reuse is a pass: nodes whose results are stored stop running (docs/cache.md).

- `keys`: each node's key (operator, version, params, inputs' keys, what an input reads).
- `reuse_pass`: replaces reused nodes by reads of their stored results and marks which results
  a run stores; also the store bookkeeping of what outputs wrote.
- `stored_result`: the operator a reused parent becomes, reading its stored Parquet.
- `boundaries`: where a preview or a run "up to a node" can start from stored results.

Does not belong here: the store itself (`runtime.cache`) or what the executor does with the
marks after a node ran (`runtime.execution.recording`).
"""
