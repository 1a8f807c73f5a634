"""Run logs live in `RunLog` alone: the old per-node `log_tail` lines become `RunLog` rows.

Only runs without any `RunLog` row get them (a run recorded since 0005 has every line there
already). A tail line reads "<ISO time> <LEVEL> <message>"; the copies are numbered in time
order, as no sequence number was kept. Backwards, each node's lines are written into its
tail again, the latest `PIPEWRIGHT_LOG_LINES` of them, as the recorder used to keep them.
"""

from datetime import datetime

from django.conf import settings
from django.db import migrations


def _parsed(line: str, fallback: datetime) -> tuple[datetime, str, str]:
    """`(time, level, message)` of a tail line; the run's own time where the line has none."""
    stamp, _, rest = str(line).partition(" ")
    level, _, message = rest.partition(" ")
    try:
        return datetime.fromisoformat(stamp), level.lower(), message
    except ValueError:
        return fallback, "info", str(line)


def tails_into_run_logs(apps, schema_editor) -> None:
    Run = apps.get_model("editor", "Run")
    RunLog = apps.get_model("editor", "RunLog")
    for run in Run.objects.filter(logs__isnull=True).iterator():
        fallback = run.finished_at or run.started_at or run.created_at
        lines = [
            (*_parsed(line, fallback), node.node_id)
            for node in run.node_runs.all()
            for line in node.log_tail or []
        ]
        lines.sort(key=lambda line: line[0])
        RunLog.objects.bulk_create(
            RunLog(run=run, seq=seq, time=time, level=level, node=node, message=message)
            for seq, (time, level, message, node) in enumerate(lines, start=1)
        )


def run_logs_into_tails(apps, schema_editor) -> None:
    NodeRun = apps.get_model("editor", "NodeRun")
    RunLog = apps.get_model("editor", "RunLog")
    keep = settings.PIPEWRIGHT_LOG_LINES
    for node in NodeRun.objects.iterator():
        lines = RunLog.objects.filter(run_id=node.run_id, node=node.node_id).order_by("seq", "pk")
        tail = [f"{line.time.isoformat()} {line.level.upper()} {line.message}" for line in lines]
        if tail:
            node.log_tail = tail[-keep:]
            node.save(update_fields=["log_tail"])


class Migration(migrations.Migration):
    dependencies = [
        ("editor", "0006_pipeline_notes_and_groups"),
    ]

    operations = [
        migrations.RunPython(tails_into_run_logs, run_logs_into_tails),
        migrations.RemoveField(model_name="noderun", name="log_tail"),
    ]
