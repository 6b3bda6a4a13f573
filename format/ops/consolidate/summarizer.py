"""Running the summarizer program: no shell, a timeout, bounded output, the whole process group ended."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Sequence

from mem.format.base.errors import NotFoundError
from mem.format.ops.consolidate.model import MAX_ANSWER_BYTES, STDERR_TAIL, Refusal


def run_summarizer(argv: Sequence[str], payload: bytes, timeout: float) -> bytes:
    """Run ``argv`` (no shell), feed ``payload`` on stdin, return stdout; raise :class:`Refusal`.

    Stdout is read up to :data:`MAX_ANSWER_BYTES` (+1, to detect an oversized answer); the
    process (and its process group) is killed at the deadline.
    """
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise Refusal("no-program", f"summarizer program {argv[0]!r} was not found") from None
    except PermissionError:
        raise Refusal("no-program", f"summarizer program {argv[0]!r} is not executable") from None
    except OSError as exc:
        raise Refusal("no-program", f"cannot start the summarizer: {exc.strerror}") from None
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    err_chunks: list[bytes] = []

    def _feed() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(OSError):
            proc.stdin.write(payload)
        with contextlib.suppress(OSError):
            proc.stdin.close()

    def _drain_err() -> None:
        assert proc.stderr is not None
        size = 0
        fd = proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            err_chunks.append(chunk)
            size += len(chunk)
            while size > 4 * STDERR_TAIL and len(err_chunks) > 1:
                size -= len(err_chunks.pop(0))

    feeder = threading.Thread(target=_feed, daemon=True)
    drainer = threading.Thread(target=_drain_err, daemon=True)
    feeder.start()
    drainer.start()
    out = bytearray()
    deadline = time.monotonic() + timeout
    timed_out = oversized = False
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if not sel.select(min(left, 0.5)):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            out += chunk
            if len(out) > MAX_ANSWER_BYTES:
                oversized = True
                break
        if not timed_out and not oversized:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        sel.close()
        if timed_out or oversized:
            _kill(proc)
        proc.wait()
        feeder.join(timeout=5)
        drainer.join(timeout=5)
        for f in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                f.close()
    stderr = b"".join(err_chunks)[-STDERR_TAIL:].decode("utf-8", "replace")
    if timed_out:
        raise Refusal("timeout", f"the summarizer did not answer within {timeout:g} s", stderr)
    if oversized:
        raise Refusal("too-large", f"answer is larger than {MAX_ANSWER_BYTES} bytes", stderr)
    if proc.returncode != 0:
        rc = proc.returncode
        what = f"was killed by signal {-rc}" if rc < 0 else f"exited with status {rc}"
        raise Refusal("exit-status", f"the summarizer {what}", stderr)
    return bytes(out)


def find_program(argv: Sequence[str]) -> str:
    """The summarizer's executable, checked before a run; raises NotFoundError (exit 3)."""
    import shutil

    prog = argv[0]
    found = shutil.which(prog)
    if found is None:
        what = "is not an executable file" if os.path.exists(prog) else "was not found"
        raise NotFoundError(
            f"summarizer program {prog!r} {what}",
            hint="give a program on PATH or a path to an executable script; no shell is used",
        )
    return found


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
