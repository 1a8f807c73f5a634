from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("editor", "0024_backfill_runs"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="tuning",
            field=models.BooleanField(
                default=True,
                help_text="Planned from the figures of past runs (off: untuned, the fixed rules).",
            ),
        ),
        migrations.AddField(
            model_name="schedule",
            name="tuning",
            field=models.BooleanField(
                default=True,
                help_text="Its runs are planned from the figures of past runs (off: untuned).",
            ),
        ),
    ]
