"""Runs can be labelled `backfill` (those of backfill intervals already made are), and a
webhook trigger keeps its secret from before a rotation for a grace period."""

from django.db import migrations, models


def label_backfill_runs(apps, schema_editor):
    """An interval's run was recorded as `manual`: it says `backfill` now."""
    Run = apps.get_model("editor", "Run")
    Run.objects.filter(backfill_intervals__isnull=False).update(trigger="backfill")


class Migration(migrations.Migration):
    dependencies = [("editor", "0023_backfill")]

    operations = [
        migrations.AlterField(
            model_name="run",
            name="trigger",
            field=models.CharField(
                choices=[
                    ("manual", "manual"),
                    ("schedule", "scheduled"),
                    ("trigger", "triggered"),
                    ("backfill", "backfill"),
                ],
                default="manual",
                help_text="Who started it: a person (manual), one of the pipeline's schedules, "
                "one of its triggers, or a backfill (an interval's run, `BackfillInterval.run`).",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="trigger",
            name="secret",
            field=models.TextField(
                blank=True,
                help_text="webhook: the signing secret, encrypted (shown once, at creation or "
                "rotation).",
            ),
        ),
        migrations.AddField(
            model_name="trigger",
            name="old_secret",
            field=models.TextField(
                blank=True, help_text="webhook: the secret before the last rotation, encrypted."
            ),
        ),
        migrations.AddField(
            model_name="trigger",
            name="old_secret_until",
            field=models.DateTimeField(
                blank=True,
                null=True,
                help_text="webhook: until when `old_secret` still signs calls.",
            ),
        ),
        migrations.RunPython(label_backfill_runs, migrations.RunPython.noop),
    ]
