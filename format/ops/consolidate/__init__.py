"""Consolidation: roll windows of episodes up into summaries and facts through any program.

``spec/consolidate.md`` is the normative description. In short:

* Episodes (records of the episode kinds, status active or candidate) are grouped into
  *streams* per scope and conversation (``source.conversation``), ordered oldest first by
  (``recorded_at``, ``id``), and cut into bounded *windows*: up to ``overlap`` already
  consolidated episodes as context, then new ones, ``window`` records at most.
* Each window is written as JSON to the summarizer's stdin (a program run without a shell);
  its stdout is the answer: ``{"summary", "facts", "supersedes"?}``, or ``NONE`` /
  ``{"none": true}`` (nothing durable; the watermark still advances).
* Guards: an answer that is empty, too large, not JSON, off-schema or too short, or a program
  that fails or times out, is *refused*: nothing changes, the refusal (a code and a message that
  never quotes content) is logged (op ``consolidate``) and reported, and the stream stops there.
* Writes: supersessions (through :meth:`Store.supersede`, reason in the audit log), then facts,
  then the summary, each with ``derived_from`` = the window's episodes and
  ``source.window`` = the window key (a digest of the ordered episode ids and body digests).
  Only then does the watermark (``state/consolidate.json``) advance. A summary whose
  ``source.window`` equals a window's key marks that window done, so a lost watermark write
  never yields a second summary; a validated answer is journaled under ``.mem/`` before the
  first write, so a crash in the middle of a window is finished from the journal on the next
  run, without asking the summarizer again.

The package: :mod:`.model` (options, windows, answers), :mod:`.answer` (validation),
:mod:`.summarizer` (running the program), :mod:`.state` (watermark and journal), :mod:`.report`
(results), :mod:`.run` (the run itself).
"""

from __future__ import annotations

from mem.format.ops.consolidate.answer import parse_answer
from mem.format.ops.consolidate.model import (
    DEFAULT_CONFIDENCE,
    DEFAULT_EXISTING,
    DEFAULT_KINDS,
    DEFAULT_MIN_FACT_CHARS,
    DEFAULT_MIN_SUMMARY_CHARS,
    DEFAULT_OVERLAP,
    DEFAULT_TIMEOUT,
    DEFAULT_WINDOW,
    JOURNAL_DIR,
    JOURNAL_FORMAT,
    MAX_ANSWER_BYTES,
    MAX_FACTS,
    MAX_SUPERSEDES,
    MAX_TAGS,
    STATE_FILE,
    STDERR_TAIL,
    VERSION,
    WATERMARK_FORMAT,
    WINDOW_FORMAT,
    Answer,
    Fact,
    Options,
    Refusal,
    Supersession,
    Window,
    window_key,
)
from mem.format.ops.consolidate.report import Report, WindowResult
from mem.format.ops.consolidate.run import Consolidation, consolidate
from mem.format.ops.consolidate.state import (
    Mark,
    load_watermark,
    save_watermark,
    state_path,
)
from mem.format.ops.consolidate.summarizer import find_program, run_summarizer

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_EXISTING",
    "DEFAULT_KINDS",
    "DEFAULT_MIN_FACT_CHARS",
    "DEFAULT_MIN_SUMMARY_CHARS",
    "DEFAULT_OVERLAP",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WINDOW",
    "JOURNAL_DIR",
    "JOURNAL_FORMAT",
    "MAX_ANSWER_BYTES",
    "MAX_FACTS",
    "MAX_SUPERSEDES",
    "MAX_TAGS",
    "STATE_FILE",
    "STDERR_TAIL",
    "VERSION",
    "WATERMARK_FORMAT",
    "WINDOW_FORMAT",
    "Answer",
    "Consolidation",
    "Fact",
    "Mark",
    "Options",
    "Refusal",
    "Report",
    "Supersession",
    "Window",
    "WindowResult",
    "consolidate",
    "find_program",
    "load_watermark",
    "parse_answer",
    "run_summarizer",
    "save_watermark",
    "state_path",
    "window_key",
]
