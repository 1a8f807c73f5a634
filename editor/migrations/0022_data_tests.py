from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("editor", "0021_triggers"),
    ]

    operations = [
        migrations.AddField(
            model_name="node",
            name="expect",
            field=models.JSONField(
                blank=True, default=list, help_text="The node's data tests (docs/data-tests.md)."
            ),
        ),
    ]
