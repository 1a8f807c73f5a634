"""Runs: everything between "queued" and "rows written", and the jobs that run like them.

The chain of a run, one hand-off a line:
1. `actions.start_run` checks the snapshot in a job's process (`jobs.infer_schemas`: any
   problem refuses it unless `allow_problems` leaves those nodes out), writes the `queued`
   `Run` row and its pending node rows, and on commit calls `launcher.submit`.
2. The database is the queue: a `worker_pool.WorkerPool` (this web process's, woken by
   `submit`, or `manage.py runworkers`') claims the row in fair order (`queue.claim_next`).
3. `launcher.execute` builds the plan and hands it to a `supervision.Supervisor` picked from
   `launcher.SUPERVISORS`: `local.LocalSupervisor`, or `dask.DaskSupervisor` when
   `PIPEWRIGHT_DASK_SCHEDULER` is set. Both share one `supervision.Supervision`.
4. `local` takes a process the fork server (`runtime.worker.zygote`) forked ahead (`spare`);
   the supervision sends it its `RunOrder` and keeps its limits; `runtime.worker` executes the
   plan there (on a cluster: `dask_cluster`, a task on a Dask worker).
5. The process's events come back to the supervisor's sinks: `recorder.RunRecorder` writes
   them as rows in batches (`logs`, `attempt_spans`, `node_rows`; `unwritten_events` holds
   what the database did not take yet), and the run's end with them.
6. After each committed batch the recorder calls `editor.live.relay.broadcast`, which the
   live view's consumers relay to every browser watching the pipeline.
7. At the end `launcher` has `editor.notifications.dispatch.run_ended` tell people; `watch`
   beats for held runs and reaps those whose process died (`leftovers`, `stale_outputs`).

Belongs here besides: per-user limits (`limits`), incremental inputs' positions
(`positions`), reading a finished run's results and comparing two (`results`,
`comparisons`), what ran inside its sub-pipeline nodes (`inside`), and the job pool (`jobs`:
previews, schema inference, the check before a run, plans, comparisons and scripts, each in a
forked process). Does not belong here: executing a
plan (the runtime), who may start or see a run (`editor.workspaces.permissions`), or the live
view's sockets (`editor.live`).
"""
