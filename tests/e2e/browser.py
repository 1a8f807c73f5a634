"""Debian's Chromium driven by Playwright, for the browser tests and bench/editor.py.

No `playwright install`: `launch_chromium` starts the system's /usr/bin/chromium (or
`PIPEWRIGHT_CHROMIUM`) headless, with flags that keep it off the network; pages go to
127.0.0.1 (the resolver rule makes every other host fail, `localhost` included).
`ConsoleErrors` keeps what a page reports as errors; `sign_in_with_session` hands a context a
session made in the test process, so that only the sign-in test pays for the password hash.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, Page, Playwright

CHROMIUM = Path(os.environ.get("PIPEWRIGHT_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
VIEWPORT = {"width": 1440, "height": 900}


async def launch_chromium(playwright: Playwright) -> Browser:
    """Headless Chromium from the system; FileNotFoundError when it is not installed."""
    if not CHROMIUM.exists():
        raise FileNotFoundError(
            f"Chromium is needed at {CHROMIUM} (apt-get install chromium, or set "
            "PIPEWRIGHT_CHROMIUM); browser tests never download one"
        )
    return await playwright.chromium.launch(
        executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
    )


async def sign_in_with_session(context: BrowserContext, base_url: str, session_key: str) -> None:
    """Give the context an existing session's cookie (a row in the server's database)."""
    await context.add_cookies([{"name": "sessionid", "value": session_key, "url": base_url}])


class ConsoleErrors:
    """Every console message of type error and every uncaught exception of a page."""

    def __init__(self, page: Page):
        self.messages: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.messages.append(f"page error: {error}"))

    def _console(self, message) -> None:
        if message.type == "error":
            location = message.location.get("url", "")
            self.messages.append(f"console error: {message.text} ({location})")

    def unexpected(self, allowed: tuple[str, ...] = ()) -> list[str]:
        """The messages that contain none of the `allowed` fragments."""
        return [text for text in self.messages if not any(part in text for part in allowed)]
