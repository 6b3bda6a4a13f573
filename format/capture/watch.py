"""``mem capture --watch``: capture new host sessions as the hosts write them.

Each pass lists the transcript files under the watched folders (:func:`.transcripts.host_files`:
``*.jsonl`` and ``conversations.json`` at any depth) and captures every file whose size or
modification time changed since the previous pass (all of them on the first pass). The capture
watermark (``spec/capture.md`` section 7) does the rest: an appended session yields only its new
turns, an unchanged one nothing, so a watcher stopped and started again loses and repeats
nothing. A file that cannot be read (half-written, not a transcript) is reported and tried again
when it changes; it never stops the watch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mem.format.base.errors import MemError
from mem.format.capture.engine import CaptureReport, capture, unchanged_since_capture
from mem.format.capture.transcripts import host_files, read_transcripts

if TYPE_CHECKING:
    from mem.format.store.store import Store


@dataclass
class WatchState:
    """What a watcher has seen: (size, mtime_ns) per file; totals for the closing summary."""

    seen: dict[Path, tuple[int, int]] = field(default_factory=dict)
    passes: int = 0
    files_read: int = 0
    captured: int = 0


def changed_files(folders: Iterable[Path], state: WatchState) -> list[Path]:
    """Files under ``folders`` that are new or changed since the last pass (recorded in ``state``)."""
    out: list[Path] = []
    for folder in folders:
        files = host_files(folder) if folder.is_dir() else [folder]
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue  # removed between listing and stat
            sig = (st.st_size, st.st_mtime_ns)
            if state.seen.get(f) != sig:
                out.append(f)
                state.seen[f] = sig
    return out


def watch_pass(
    store: Store,
    folders: list[Path],
    state: WatchState,
    *,
    fmt: str = "auto",
    scope: str | None = "default",
    scope_from: str | None = None,
    on_report: Callable[[Path, CaptureReport], None],
    on_error: Callable[[Path, MemError], None],
) -> None:
    """One pass: capture every changed file, each on its own (one bad file stops nothing)."""
    state.passes += 1
    for f in changed_files(folders, state):
        if unchanged_since_capture(store, f):
            continue  # as its last capture (maybe by an earlier watcher) read it
        try:
            report = capture(store, read_transcripts(f, fmt), scope=scope, scope_from=scope_from)
        except MemError as exc:
            on_error(f, exc)
            continue
        state.files_read += 1
        state.captured += report.counts()["captured"]
        on_report(f, report)


def watch(
    store: Store,
    folders: list[Path],
    *,
    interval: float,
    fmt: str = "auto",
    scope: str | None = "default",
    scope_from: str | None = None,
    on_report: Callable[[Path, CaptureReport], None],
    on_error: Callable[[Path, MemError], None],
    state: WatchState,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Pass after pass until interrupted (KeyboardInterrupt propagates; ``state`` has the totals)."""
    while True:
        watch_pass(store, folders, state, fmt=fmt, scope=scope, scope_from=scope_from,
                   on_report=on_report, on_error=on_error)
        sleep(interval)
