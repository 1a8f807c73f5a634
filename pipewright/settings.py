"""Django settings for Pipewright: embedded defaults, overridden by environment variables.

- `DATABASE_URL`: default a SQLite file in the project folder (`sqlite:///…`, `postgres://…`).
- `REDIS_URL`: unset means the in-memory channel layer (one server process).
- `PIPEWRIGHT_DATA_ROOT`: the folder file operators read and write (default `data/`).
- `PIPEWRIGHT_DEBUG=1`: debug pages. `PIPEWRIGHT_SECRET_KEY`: else one is generated once and
  kept in the ignored file `.secret_key`. `PIPEWRIGHT_ENCRYPTION_KEY`: Fernet keys for stored
  passwords, comma-separated, newest first (else one generated into `.encryption_key`).
  `PIPEWRIGHT_ALLOWED_HOSTS`: comma list (loopback).
- `PIPEWRIGHT_PRODUCTION=1`: the hardened settings that `manage.py check --deploy` accepts.
- `PIPEWRIGHT_KEEP_RUNS` (default 100), `PIPEWRIGHT_KEEP_REVISIONS` (versions of a pipeline that
  history keeps, default 200) and `PIPEWRIGHT_KEEP_REVISIONS_MB` (their documents' size, 50),
  `PIPEWRIGHT_MAX_RUNS` (runs executing at once, each in a process of its own, default 2),
  `PIPEWRIGHT_RUN_MEMORY` (what one run may use, read by `runtime.budget`),
  `PIPEWRIGHT_RUN_TIMEOUT` (seconds a run may last, default 6 h),
  `PIPEWRIGHT_RUN_STALE_AFTER` (seconds without a heartbeat before a run of another host
  counts as abandoned and is reaped, default 60, at least 15),
  `PIPEWRIGHT_MAX_UPLOAD_MB` (largest file upload, default 100),
  `PIPEWRIGHT_MAX_PIN_MB` (largest pinned rows' Parquet file, default 50),
  `PIPEWRIGHT_MAX_RUNS_PER_USER` (queued and running runs of one user, default 5),
  `PIPEWRIGHT_MAX_RUNNING_PER_USER` (runs of one user executing at once, across every worker;
  default half of `PIPEWRIGHT_MAX_RUNS`, at least 1),
  `PIPEWRIGHT_WORKERS` (`embedded`, the default: this process executes runs; `service`:
  `manage.py runworkers` does, see docs/deploy.md), `PIPEWRIGHT_QUEUE_LOOK_S` (how often an
  embedded web server looks for runs other processes queued, default 30; 0: never, its workers
  take waiting runs only once it queues one itself),
  `PIPEWRIGHT_SCHEDULER` (`embedded`, the default: this process fires schedules; `service`:
  `manage.py runscheduler` does, see docs/schedules.md),
  `PIPEWRIGHT_MAX_PREVIEWS` (previews and schema inferences executing at once, each in a
  process of its own, default 2), `PIPEWRIGHT_PREVIEW_TIMEOUT` (seconds one may last, 30),
  `PIPEWRIGHT_CHANNEL_PREFIX` (Redis key prefix, to keep deployments or test runs apart).
- `PIPEWRIGHT_DASK_SCHEDULER` (`tcp://host:port` or `tls://host:port`): runs execute on that
  Dask cluster instead of in local processes; `PIPEWRIGHT_DASK_WAIT` (seconds a run waits for
  a worker while the cluster has none, default 300). TLS is Dask's own configuration's.
- `PIPEWRIGHT_BASE_URL` (e.g. `https://pipewright.example.com`): where notifications link runs
  to. `PIPEWRIGHT_WEBHOOK_ALLOW`: comma list of hosts and networks (CIDR) that webhooks may
  call although they are private or loopback (e.g. `127.0.0.1,10.0.0.0/8`).
  `PIPEWRIGHT_CONNECTION_ALLOW`: comma list of non-public hosts, networks (CIDR) and ports
  (`db.internal:5432`, `10.0.0.0/8`) that database connections saved by staff may reach
  (empty: public addresses only); the app's own database and Redis never. E-mail: the
  variables `EMAIL_HOST`, `EMAIL_PORT`, `EMAIL_HOST_USER`, `EMAIL_HOST_PASSWORD`,
  `EMAIL_USE_TLS` and `DEFAULT_FROM_EMAIL` set Django's settings of the same names.
"""

import base64
import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def _count(name: str, default: int) -> int:
    """A setting that counts things at once (runs, previews): a whole number, at least 1 (0
    would let nothing run, and say nothing about why)."""
    text = os.environ.get(name, str(default))
    if not text.strip().isdigit() or int(text) < 1:
        raise ImproperlyConfigured(f"{name} is '{text}'; it must be a whole number, at least 1")
    return int(text)


def _run_stale_after() -> float:
    """Seconds without a heartbeat after which a run's process counts as gone (default 60):
    at least 15, three of its 5-second heartbeats, so that one late beat never reaps a live
    run. Every process of a deployment should be given the same."""
    text = os.environ.get("PIPEWRIGHT_RUN_STALE_AFTER", "60")
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 15 <= seconds < float("inf"):
        raise ImproperlyConfigured(
            f"PIPEWRIGHT_RUN_STALE_AFTER is '{text}'; it must be a number of seconds, at least 15"
        )
    return seconds


def _dask_scheduler() -> str | None:
    """The Dask scheduler's address, if runs go to a cluster; refused unless tcp:// or tls://."""
    address = os.environ.get("PIPEWRIGHT_DASK_SCHEDULER", "").strip()
    if address and not address.startswith(("tcp://", "tls://")):
        raise ImproperlyConfigured(
            f"PIPEWRIGHT_DASK_SCHEDULER is '{address}': write tcp://host:port, or tls://host:port "
            "with Dask's TLS configuration (docs/deploy.md)"
        )
    return address or None


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "") == "1"


def _local_secret(variable: str, filename: str, generate) -> str:
    """From the environment, else generated once and kept in an ignored local file."""
    if value := os.environ.get(variable):
        return value
    path = BASE_DIR / filename
    try:  # created readable by its owner only; a process that loses the race reads it
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
            file.write(generate())
    except FileExistsError:
        pass
    return path.read_text().strip()


SECRET_KEY = _local_secret(
    "PIPEWRIGHT_SECRET_KEY", ".secret_key", lambda: secrets.token_urlsafe(50)
)
PIPEWRIGHT_ENCRYPTION_KEYS = [
    key.strip()
    for key in _local_secret(
        "PIPEWRIGHT_ENCRYPTION_KEY",
        ".encryption_key",
        lambda: base64.urlsafe_b64encode(secrets.token_bytes(32)).decode(),
    ).split(",")
    if key.strip()
]
DEBUG = _env_flag("PIPEWRIGHT_DEBUG")
PRODUCTION = _env_flag("PIPEWRIGHT_PRODUCTION")
ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get("PIPEWRIGHT_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",")
    if host.strip()
]
CSRF_TRUSTED_ORIGINS = [
    origin.strip()
    for origin in os.environ.get("PIPEWRIGHT_CSRF_TRUSTED_ORIGINS", "").split(",")
    if origin.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "ninja",
    "axes",
    "csp",
    "editor",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "editor.pages.headers.NoStoreAPIMiddleware",
    "editor.audit.log.AuditContextMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes requires
]
ROOT_URLCONF = "pipewright.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
ASGI_APPLICATION = "pipewright.asgi.application"
WSGI_APPLICATION = "pipewright.wsgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=0,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Runs write from worker threads while the server reads and writes too. IMMEDIATE: a
    # transaction takes the write lock when it starts, so it waits for it (up to `timeout`)
    # instead of failing at once when it upgrades from reading; WAL: readers never block it.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=20,
        transaction_mode="IMMEDIATE",
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    )
    # A file, not memory: runs execute on other threads (and, in browser tests, processes).
    (BASE_DIR / "var").mkdir(exist_ok=True)
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("PIPEWRIGHT_TEST_DB")
        or str(BASE_DIR / "var" / f"test-db-{os.getpid()}.sqlite3")
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

if os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {
        "default": {
            # Redis Pub/Sub: a frame is one PUBLISH, pushed to each web process once and handed
            # to its watchers there. The list-based layer (`channels_redis.core`) took four
            # round trips and a Lua script per frame, and each watcher a lock and two tasks per
            # message: with two web processes and 50 watchers, p95 290 ms from event to
            # receipt (bench/live.py). Nothing is kept for a watcher that is not there: a
            # client that misses a frame sees the gap in `seq` and asks for a snapshot.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                # redis-py 8's default socket timeout is 5 s, which closed every idle socket
                # of the list-based layer (its blocking receive lasts 5 s too). Reads get room;
                # a Redis that cannot be reached still fails within 5 s.
                "hosts": [
                    {
                        "address": os.environ["REDIS_URL"],
                        "socket_timeout": 30,
                        "socket_connect_timeout": 5,
                    }
                ],
                "prefix": os.environ.get("PIPEWRIGHT_CHANNEL_PREFIX", "pipewright"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 2000}}
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Sign-in throttling (django-axes) on both sign-in pages: failures count per username AND
# address together, so that an attacker elsewhere cannot lock the admin out. The address is
# the connection's own (REMOTE_ADDR; behind a proxy, daphne's --proxy-headers sets it), never a
# header the client writes. Bearer tokens do not go through `authenticate`, so they are unaffected.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"  # answered with status 429
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)

# Content-Security-Policy (django-csp) on every page: scripts, styles, images and sockets from
# this server only; nothing may frame our pages or change their base URL. `'self'` covers ws:
# and wss: to the same host and port in current browsers (CSP level 3). A page that reads
# `request.csp_nonce` (the editor's: CodeMirror adds <style> elements, marked with it) also
# allows the style elements carrying that page's nonce; style attributes stay refused.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", NONCE],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"  # not in cookies
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "var" / "static" if PRODUCTION else None  # collectstatic target
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True  # serve from the source folders too: no collectstatic needed
WHITENOISE_AUTOREFRESH = DEBUG  # in development, a rebuilt bundle is served without a restart
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 2**20  # a pipeline document is far smaller

# Absolute: a run's paths travel to other processes and Dask workers, whose folder is not ours.
PIPEWRIGHT_DATA_ROOT = Path(os.environ.get("PIPEWRIGHT_DATA_ROOT") or BASE_DIR / "data").absolute()
PIPEWRIGHT_KEEP_RUNS = int(os.environ.get("PIPEWRIGHT_KEEP_RUNS", "100"))
PIPEWRIGHT_KEEP_REVISIONS = _count("PIPEWRIGHT_KEEP_REVISIONS", 200)
PIPEWRIGHT_KEEP_REVISIONS_MB = _count("PIPEWRIGHT_KEEP_REVISIONS_MB", 50)
PIPEWRIGHT_MAX_RUNS = _count("PIPEWRIGHT_MAX_RUNS", 2)
PIPEWRIGHT_WORKERS = os.environ.get("PIPEWRIGHT_WORKERS", "embedded")
if PIPEWRIGHT_WORKERS not in ("embedded", "service"):
    raise ImproperlyConfigured(
        f"PIPEWRIGHT_WORKERS is '{PIPEWRIGHT_WORKERS}'; it must be 'embedded' (this process "
        "executes runs) or 'service' (`manage.py runworkers` does)"
    )
PIPEWRIGHT_QUEUE_LOOK_S = float(os.environ.get("PIPEWRIGHT_QUEUE_LOOK_S", "30"))
PIPEWRIGHT_MAX_RUNS_PER_USER = _count("PIPEWRIGHT_MAX_RUNS_PER_USER", 5)
PIPEWRIGHT_MAX_RUNNING_PER_USER = _count(
    "PIPEWRIGHT_MAX_RUNNING_PER_USER", max(1, PIPEWRIGHT_MAX_RUNS // 2)
)
PIPEWRIGHT_SCHEDULER = os.environ.get("PIPEWRIGHT_SCHEDULER", "embedded")
if PIPEWRIGHT_SCHEDULER not in ("embedded", "service"):
    raise ImproperlyConfigured(
        f"PIPEWRIGHT_SCHEDULER is '{PIPEWRIGHT_SCHEDULER}'; it must be 'embedded' (this process "
        "fires schedules) or 'service' (`manage.py runscheduler` does)"
    )
PIPEWRIGHT_RUN_TIMEOUT_S = float(os.environ.get("PIPEWRIGHT_RUN_TIMEOUT", 6 * 3600))
PIPEWRIGHT_RUN_STALE_AFTER_S = _run_stale_after()
PIPEWRIGHT_MAX_PREVIEWS = _count("PIPEWRIGHT_MAX_PREVIEWS", 2)
PIPEWRIGHT_PREVIEW_TIMEOUT_S = float(os.environ.get("PIPEWRIGHT_PREVIEW_TIMEOUT", "30"))
PIPEWRIGHT_LOG_LINES = 200
PIPEWRIGHT_MAX_UPLOAD_BYTES = int(os.environ.get("PIPEWRIGHT_MAX_UPLOAD_MB", "100")) * 2**20
PIPEWRIGHT_MAX_PIN_BYTES = _count("PIPEWRIGHT_MAX_PIN_MB", 50) * 2**20
PIPEWRIGHT_DASK_SCHEDULER = _dask_scheduler()
PIPEWRIGHT_BASE_URL = os.environ.get("PIPEWRIGHT_BASE_URL", "").rstrip("/")
PIPEWRIGHT_WEBHOOK_ALLOW = [
    item.strip()
    for item in os.environ.get("PIPEWRIGHT_WEBHOOK_ALLOW", "").split(",")
    if item.strip()
]
PIPEWRIGHT_CONNECTION_ALLOW = [
    item.strip()
    for item in os.environ.get("PIPEWRIGHT_CONNECTION_ALLOW", "").split(",")
    if item.strip()
]
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _env_flag("EMAIL_USE_TLS")
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "pipewright@localhost")
PIPEWRIGHT_DASK_WAIT_S = float(os.environ.get("PIPEWRIGHT_DASK_WAIT", "300"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"editor": {"level": "INFO"}},
}

if PRODUCTION:
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"
    STORAGES["staticfiles"]["BACKEND"] = "whitenoise.storage.CompressedManifestStaticFilesStorage"
