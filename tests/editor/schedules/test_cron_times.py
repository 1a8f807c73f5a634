"""Cron expressions in a time zone: the times they fire, daylight saving by the documented
rules (a time that does not exist is skipped, one that occurs twice fires once), and the
expressions refused, each naming the field that is wrong."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from editor.schedules.cron_times import CronError, check_cron, check_zone, next_times

PARIS = ZoneInfo("Europe/Paris")
NEW_YORK = ZoneInfo("America/New_York")


def local(times, zone):
    return [moment.astimezone(zone).strftime("%m-%d %H:%M %Z") for moment in times]


@pytest.mark.parametrize(
    ("zone", "after", "expected"),
    [
        (PARIS, datetime(2026, 3, 28, 12, tzinfo=UTC), ["03-30 02:30 CEST", "03-31 02:30 CEST"]),
        (NEW_YORK, datetime(2026, 3, 7, 12, tzinfo=UTC), ["03-09 02:30 EDT", "03-10 02:30 EDT"]),
    ],
    ids=["paris", "new-york"],
)
def test_a_daily_time_that_clocks_going_forward_skip_does_not_fire_that_day(zone, after, expected):
    assert local(next_times("30 2 * * *", zone, after, 2), zone) == expected


@pytest.mark.parametrize(
    ("zone", "after", "expected"),
    [
        (PARIS, datetime(2026, 10, 24, 12, tzinfo=UTC), ["10-25 01:30 CEST", "10-26 01:30 CET"]),
        (NEW_YORK, datetime(2026, 10, 31, 12, tzinfo=UTC), ["11-01 01:30 EDT", "11-02 01:30 EST"]),
    ],
    ids=["paris", "new-york"],
)
def test_a_daily_time_that_clocks_going_back_repeat_fires_once_at_its_first_occurrence(
    zone, after, expected
):
    assert local(next_times("30 1 * * *", zone, after, 2), zone) == expected


def test_a_half_hourly_schedule_fires_each_wall_clock_time_once_across_the_repeated_hour():
    after = datetime(2026, 11, 1, 4, 45, tzinfo=UTC)  # 00:45 EDT
    assert local(next_times("*/30 * * * *", NEW_YORK, after, 4), NEW_YORK) == [
        "11-01 01:00 EDT",
        "11-01 01:30 EDT",
        "11-01 02:00 EST",  # the repeated 01:00 and 01:30 (EST) do not fire again
        "11-01 02:30 EST",
    ]


def test_a_time_asked_for_from_inside_the_repeated_hour_is_never_one_already_passed():
    after = datetime(2026, 10, 25, 1, 10, tzinfo=UTC)  # 02:10 CET, the second 02:10
    assert local(next_times("*/30 * * * *", PARIS, after, 2), PARIS) == [
        "10-25 03:00 CET",
        "10-25 03:30 CET",
    ]


def test_every_minute_is_the_finest_step():
    after = datetime(2026, 1, 1, tzinfo=UTC)
    times = next_times("* * * * *", UTC, after, 5)
    assert [moment.minute for moment in times] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("* * * * * *", "has 5 fields .* not 6; a minute is the finest step"),
        ("* * * *", "not 4"),
        ("61 * * * *", "the minute field '61' is not valid"),
        ("0 25 * * *", "the hour field '25' is not valid"),
        ("0 0 32 * *", "the day of month field '32' is not valid"),
        ("0 0 * 13 *", "the month field '13' is not valid"),
        ("0 0 * * FUNDAY", "the day of week field 'FUNDAY' is not valid"),
        ("H * * * *", "H and R values are not supported"),
        ("@reboot", "'@reboot' is not one of"),
        ("0 0 30 2 *", "never fires"),
        ("", "give a cron expression"),
        ("1," * 150 + "1 * * * *", "at most 200 characters"),
    ],
    ids=[
        "seconds", "four-fields", "minute", "hour", "day", "month", "weekday", "hashed",
        "reboot", "february-30", "empty", "huge",
    ],
)  # fmt: skip
def test_an_invalid_expression_is_refused_naming_its_field(expression, message):
    with pytest.raises(CronError, match=message) as refused:
        check_cron(expression)
    assert refused.value.field == "cron"


def test_expressions_are_kept_with_single_spaces_and_nicknames_are_read():
    assert check_cron("  0  6 * *   MON-FRI ") == "0 6 * * MON-FRI"
    assert next_times(check_cron("@daily"), UTC, datetime(2026, 1, 1, 5, tzinfo=UTC), 1) == [
        datetime(2026, 1, 2, tzinfo=UTC)
    ]


@pytest.mark.parametrize(
    "name", ["Mars/Olympus", "../../etc/passwd", "", "x" * 100, "europe/paris"]
)
def test_a_time_zone_that_is_not_iana_is_refused(name):
    with pytest.raises(CronError, match="IANA time zone") as refused:
        check_zone(name)
    assert refused.value.field == "timezone"
