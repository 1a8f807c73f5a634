"""Runs get a number per pipeline (existing runs: 1, 2, 3 … in the order they were made) and
the revision they started from (unknown for existing runs); node runs keep each attempt's
start and end (none for existing runs)."""

from django.db import migrations, models


def number_existing_runs(apps, schema_editor):
    Run = apps.get_model("editor", "Run")
    numbered, pipeline, number = [], None, 0
    for run in Run.objects.order_by("pipeline_id", "created_at", "id").only("pk", "pipeline_id"):
        number = number + 1 if run.pipeline_id == pipeline else 1
        pipeline, run.number = run.pipeline_id, number
        numbered.append(run)
    Run.objects.bulk_update(numbered, ["number"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("editor", "0009_pipeline_revisions")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="number",
            field=models.PositiveIntegerField(null=True, editable=False),
        ),
        migrations.RunPython(number_existing_runs, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="run",
            name="number",
            field=models.PositiveIntegerField(
                editable=False,
                help_text="1, 2, 3 … per pipeline, in the order its runs were made.",
            ),
        ),
        migrations.AddConstraint(
            model_name="run",
            constraint=models.UniqueConstraint(
                fields=("pipeline", "number"), name="unique_run_number"
            ),
        ),
        migrations.AddField(
            model_name="run",
            name="revision",
            field=models.PositiveIntegerField(
                blank=True,
                editable=False,
                help_text="The pipeline's revision the run started from (unknown for runs made "
                "before run numbers).",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="noderun",
            name="attempt_spans",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Each attempt's start and end: "
                '[{"attempt", "started_at", "finished_at" (null while running), "status"}].',
            ),
        ),
    ]
