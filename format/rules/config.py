"""The store declaration (``memstore.json``) and the store configuration (``config.toml``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import StoreInvalidError, UnsupportedFormatError
from mem.format.rules.layout import CONFIG_FILE as CONFIG_FILE
from mem.format.rules.layout import DECLARATION_FILE as DECLARATION_FILE
from mem.format.rules.layout import FORMAT_NAME as FORMAT_NAME
from mem.format.rules.layout import FORMAT_VERSION as FORMAT_VERSION
from mem.format.rules.storefiles import KNOWN_EXTENSIONS as KNOWN_EXTENSIONS
from mem.format.rules.storefiles import Refusal, accept_config, accept_declaration


@dataclass(frozen=True)
class Declaration:
    format: str
    version: int
    extensions: tuple[dict[str, Any], ...]
    created_at: str | None

    def to_json(self) -> str:
        obj: dict[str, Any] = {
            "format": self.format,
            "version": self.version,
            "extensions": list(self.extensions),
        }
        if self.created_at:
            obj["created_at"] = self.created_at
        return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def read_declaration(root: Path) -> Declaration:
    path = root / DECLARATION_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise StoreInvalidError(
            "the store declaration is missing", path=path, hint="run `mem init` to create a store", rule="E001"
        ) from None
    except OSError as exc:
        raise StoreInvalidError(f"cannot read the declaration: {exc.strerror}", path=path, rule="E002.1") from None
    obj = accept_declaration(raw)  # the one rule (storefiles); verify reports the same
    if isinstance(obj, Refusal):
        refused = obj
        error = StoreInvalidError if refused.code == "E002" else UnsupportedFormatError  # E003, E004
        raise error(refused.message, path=path, hint=refused.hint, rule=refused.rule)
    created = obj.get("created_at")
    return Declaration(FORMAT_NAME, FORMAT_VERSION, tuple(obj.get("extensions", [])),
                       created if isinstance(created, str) else None)


@dataclass
class Config:
    """Settings of a store. Unknown sections are kept for the parts of mem that read them."""

    embedder: dict[str, Any] = field(default_factory=dict)
    verify: dict[str, Any] = field(default_factory=dict)
    search: dict[str, Any] = field(default_factory=dict)
    capture: dict[str, Any] = field(default_factory=dict)
    permissions: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def file_mode(self) -> int:
        return self._mode("file_mode", "0600")

    @property
    def dir_mode(self) -> int:
        return self._mode("dir_mode", "0700")

    def _mode(self, key: str, default: str) -> int:
        v = self.permissions.get(key, default)
        problem = _check_mode(key, v)
        if problem is not None:
            raise StoreInvalidError(f"[permissions] {problem}", path=CONFIG_FILE, rule=SECTION_RULES["permissions"],
                                    hint="fix config.toml; `mem verify` reports it (E007)")
        return int(str(v), 8)


#: The largest ``[embedder] threads``: more threads than this only cost memory (each holds
#: its own buffers; 1,000,000 reached 16.7 GB).
MAX_THREADS = 256


def _check_mode(key: str, v: Any) -> str | None:
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


def parse_threads(raw: Any) -> int:
    """``[embedder] threads`` (or ``MEM_EMBED_THREADS``) as a number of threads; ValueError
    names the problem (not a whole number, or outside 1..MAX_THREADS)."""
    try:
        n = int(raw) if not isinstance(raw, bool | float) else None
    except (TypeError, ValueError):
        n = None
    if n is None or not 1 <= n <= MAX_THREADS:
        raise ValueError(f"embedder threads {raw!r} is not a whole number from 1 to {MAX_THREADS}")
    return n


def _threads_ok(v: Any) -> bool:
    try:
        parse_threads(v)
    except ValueError:
        return False
    return True


def _whole(lo: int, hi: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _number(lo: float, hi: float) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int | float) and not isinstance(v, bool) and lo <= v <= hi


#: ``[embedder] graph``: MiniLM's graph (mem.format.embed.minilm): int8 products or float ones.
EMBED_GRAPHS: tuple[str, ...] = ("int8", "float")

#: Every setting mem reads, with its rule (section, key) -> (check, what it must be). One place:
#: ``mem verify`` reports each value that breaks its rule (E007); the code that reads a value
#: refuses the same values.
SETTINGS: dict[tuple[str, str], tuple[Callable[[Any], bool], str]] = {
    ("embedder", "provider"): (lambda v: isinstance(v, str), "a provider name"),
    ("embedder", "threads"): (_threads_ok, f"a whole number from 1 to {MAX_THREADS}"),
    ("embedder", "graph"): (lambda v: v in EMBED_GRAPHS, " or ".join(f'"{g}"' for g in EMBED_GRAPHS)),
    ("embedder", "bulk_nice"): (_whole(0, 19), "a whole number from 0 (off) to 19"),
    ("search", "default_k"): (_whole(1, 1000), "a whole number from 1 to 1000"),
    ("search", "rerank"): (lambda v: isinstance(v, bool), "true or false"),
    ("search", "fusion"): (lambda v: v in ("convex", "rrf"), '"convex" or "rrf"'),
    ("search", "vector_weight"): (_number(0, 1), "a number from 0 to 1"),
    ("search", "full_scan_seconds"): (_number(0, 86400 * 365), "a number of seconds, 0 or more"),
    ("mcp", "min_score"): (_number(0, 1), "a number from 0 to 1"),
}


#: The sub-rule of E007 (spec/validation-codes.md) that each section's values fall under.
SECTION_RULES: dict[str, str] = {"permissions": "E007.1", "embedder": "E007.2", "search": "E007.3", "mcp": "E007.4"}


def config_findings(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Every value of a parsed config.toml that breaks its rule (see :data:`SETTINGS`), as the
    sub-rule it breaks (:data:`SECTION_RULES`) and the problem."""
    out: list[tuple[str, str]] = []
    for (section, key), (ok, what) in SETTINGS.items():
        table = data.get(section)
        if isinstance(table, dict) and key in table and not ok(table[key]):
            out.append((SECTION_RULES[section], f"[{section}] {key} = {table[key]!r} must be {what}"))
    perms = data.get("permissions")
    if isinstance(perms, dict):
        for key in ("file_mode", "dir_mode"):
            if key in perms:
                problem = _check_mode(key, perms[key])
                if problem is not None:
                    out.append((SECTION_RULES["permissions"], f"[permissions] {problem}"))
    return out


def config_problems(data: dict[str, Any]) -> list[str]:
    """The problems of :func:`config_findings`, without their sub-rules."""
    return [problem for _, problem in config_findings(data)]


DEFAULT_CONFIG = """\
# mem store configuration. Every key is optional; see spec/format.md, "Configuration".

[embedder]
# provider = "minilm"   # the default offline model; "hashing" is for tests only
# threads = 1           # ONNX threads; on a busy 2-core machine one thread is fastest
# graph = "int8"        # minilm's graph; unset, a store keeps the one its vectors were made with
# bulk_nice = 10        # bulk embedding threads run this much nicer (Linux); 0: off

[search]
# default_k = 10

[verify]
# Lower or silence a finding, as `git fsck` allows:
# severity = { W101 = "ignore", W301 = "error" }
"""


def read_config(root: Path) -> Config:
    path = root / CONFIG_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise StoreInvalidError(f"cannot read the configuration: {exc.strerror}", path=path, rule="E005.1") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreInvalidError(f"the configuration is not valid TOML: {exc}", path=path, rule="E005.1") from None
    data = accept_config(text)  # the one rule (storefiles); verify reports the same (E005)
    if isinstance(data, Refusal):
        raise StoreInvalidError(data.message, path=path, rule=data.rule)

    def sect(name: str) -> dict[str, Any]:
        v: dict[str, Any] = data.get(name, {})
        return v

    return Config(
        embedder=sect("embedder"),
        verify=sect("verify"),
        search=sect("search"),
        capture=sect("capture"),
        permissions=sect("permissions"),
        raw=data,
    )
