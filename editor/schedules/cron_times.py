"""When a schedule fires: a five-field cron expression read in an IANA time zone.

croniter parses the expression; the times are found on the zone's wall clock and then placed
on the timeline, which is where daylight saving is decided (the contract in
docs/schedules.md):

- a wall-clock time that does not exist (the hour skipped when clocks go forward) is
  skipped: nothing fires for it, not even later;
- a wall-clock time that occurs twice (the hour repeated when clocks go back) fires once, at
  its first occurrence.

Expressions have five fields (a minute is the finest step), so no schedule fires more often
than once a minute; seconds, years, `@reboot` and croniter's hashed or random values are
refused. Every search is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from croniter import CroniterBadDateError, CroniterError, croniter

FIELDS = ("minute", "hour", "day of month", "month", "day of week")
CRON_MAX_LENGTH = 200
ZONE_MAX_LENGTH = 64
NICKNAMES = {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
YEARS_BETWEEN_FIRES = 8
"""How far ahead a next time is looked for: a leap day's expression fires every 4 years;
one that never fires (the 30th of February) is refused after this search."""
STEPS_PER_TIME = 200
"""Wall-clock times tried per fire time: a minute-by-minute schedule meets at most 60 that do
not exist (clocks forward) and 60 already fired (clocks back) around one change."""
_HASHED = re.compile(r"(?<![a-z])[hr](?![a-z])", re.IGNORECASE)


class CronError(ValueError):
    """A cron expression or time zone that cannot be used; `field` names what is wrong."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


def check_zone(name: str) -> ZoneInfo:
    """The IANA zone called `name` (e.g. 'Europe/Paris'), or a CronError."""
    if not isinstance(name, str) or not name or len(name) > ZONE_MAX_LENGTH:
        raise CronError("give an IANA time zone such as 'Europe/Paris' or 'UTC'", "timezone")
    if name not in _zones():
        raise CronError(
            f"'{name}' is not an IANA time zone (such as 'Europe/Paris' or 'UTC')", "timezone"
        )
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise CronError(f"time zone '{name}' cannot be loaded", "timezone") from None


def _zones() -> set[str]:
    global _ZONES
    if _ZONES is None:
        _ZONES = available_timezones() | {"UTC"}
    return _ZONES


_ZONES: set[str] | None = None


def check_cron(expression: str) -> str:
    """The expression, stripped, if croniter reads it as five fields that fire at least once
    in `YEARS_BETWEEN_FIRES` years; else a CronError naming the field that is wrong."""
    if not isinstance(expression, str) or not expression.strip():
        raise CronError("give a cron expression such as '0 6 * * *' (06:00 every day)", "cron")
    expression = " ".join(expression.split())
    if len(expression) > CRON_MAX_LENGTH:
        raise CronError(f"a cron expression has at most {CRON_MAX_LENGTH} characters", "cron")
    if expression.startswith("@"):
        if expression.lower() not in NICKNAMES:
            raise CronError(f"'{expression}' is not one of {', '.join(sorted(NICKNAMES))}", "cron")
    else:
        _check_fields(expression)
    try:
        times = croniter(
            expression, datetime(2000, 1, 1), max_years_between_matches=YEARS_BETWEEN_FIRES
        )
        times.get_next(datetime)
    except CroniterBadDateError:
        raise CronError(
            f"'{expression}' never fires (no matching date within {YEARS_BETWEEN_FIRES} years)",
            "cron",
        ) from None
    except (CroniterError, ValueError, KeyError, TypeError) as error:
        raise CronError(f"'{expression}' is not a valid cron expression: {error}", "cron") from None
    return expression


def _check_fields(expression: str) -> None:
    fields = expression.split(" ")
    if len(fields) != len(FIELDS):
        raise CronError(
            f"a cron expression has {len(FIELDS)} fields ({', '.join(FIELDS)}), "
            f"not {len(fields)}; a minute is the finest step (no seconds field)",
            "cron",
        )
    for index, (field, name) in enumerate(zip(fields, FIELDS, strict=True)):
        if _HASHED.search(field):
            raise CronError(f"the {name} field '{field}': H and R values are not supported", "cron")
        alone = ["*"] * len(FIELDS)
        alone[index] = field
        try:
            croniter(" ".join(alone), datetime(2000, 1, 1))
        except (CroniterError, ValueError, KeyError, TypeError):
            raise CronError(f"the {name} field '{field}' is not valid", "cron") from None


def next_times(expression: str, zone: ZoneInfo, after: datetime, count: int) -> list[datetime]:
    """The next `count` fire times strictly after `after` (aware), in UTC, by the daylight-
    saving rules above. `expression` must have passed `check_cron`."""
    wall = after.astimezone(zone).replace(tzinfo=None)
    times = croniter(
        expression,
        wall.replace(second=0, microsecond=0),
        max_years_between_matches=YEARS_BETWEEN_FIRES,
    )
    found: list[datetime] = []
    for _ in range(STEPS_PER_TIME * count):
        if len(found) == count:
            break
        try:
            candidate = times.get_next(datetime)
        except CroniterBadDateError:
            break
        instant = on_timeline(candidate, zone)
        if instant is not None and instant > after:
            found.append(instant)
    return found


def next_time(expression: str, zone: ZoneInfo, after: datetime) -> datetime | None:
    """The first fire time strictly after `after`, or None if there is none to find."""
    found = next_times(expression, zone, after, 1)
    return found[0] if found else None


def on_timeline(wall: datetime, zone: ZoneInfo) -> datetime | None:
    """The UTC instant of the naive wall-clock time `wall` in `zone`: its first occurrence when
    clocks going back repeat it, None when clocks going forward skip it."""
    first = wall.replace(tzinfo=zone, fold=0)
    instant = first.astimezone(UTC)
    if instant.astimezone(zone).replace(tzinfo=None) != wall:
        return None
    return instant


def within(after: datetime, until: datetime, expression: str, zone: ZoneInfo) -> datetime | None:
    """The latest fire time in (`after`, `until`], if any; bounded by the window's minutes."""
    latest = None
    moment = after
    minutes = int((until - after) / timedelta(minutes=1)) + 1
    for _ in range(minutes):
        following = next_time(expression, zone, moment)
        if following is None or following > until:
            break
        latest = moment = following
    return latest


def times_between(
    expression: str, zone: ZoneInfo, start: datetime, end: datetime
) -> Iterator[datetime]:
    """The fire times in [`start`, `end`] (aware), in UTC and in order, by the daylight-saving
    rules above; lazily, so a caller stops when it has seen enough. `expression` must have
    passed `check_cron`."""
    wall = (start - timedelta(microseconds=1)).astimezone(zone).replace(tzinfo=None)
    times = croniter(
        expression,
        wall.replace(second=0, microsecond=0),
        max_years_between_matches=YEARS_BETWEEN_FIRES,
    )
    while True:
        try:
            candidate = times.get_next(datetime)
        except CroniterBadDateError:
            return
        instant = on_timeline(candidate, zone)
        if instant is None or instant < start:
            continue
        if instant > end:
            return
        yield instant
