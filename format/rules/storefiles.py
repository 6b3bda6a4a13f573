"""Whether a store's declaration (``memstore.json``) and configuration (``config.toml``) are
accepted: one rule each, which opening a store (:mod:`mem.format.rules.config`), ``mem verify``
(E002-E005) and the one-shot search (:mod:`mem.format.search.lexfast`) all call (spec/format.md §2 and §18).

Standard library only and cheap to import: JSON through :mod:`mem.format.base.jsonlite` (json's own
results and errors), TOML through :mod:`mem.format.base.tomlplain` for the file ``mem init`` writes,
:mod:`tomllib` otherwise.
"""

from __future__ import annotations

from mem.format.base.jsonlite import loads as _json_loads
from mem.format.base.tomlplain import plain_tables
from mem.format.rules.layout import FORMAT_NAME, FORMAT_VERSION

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (lean search path)
if TYPE_CHECKING:
    from typing import Any

#: Extensions this implementation understands (none yet beyond the core format).
KNOWN_EXTENSIONS: frozenset[str] = frozenset()
#: The sections of config.toml that mem reads; each, when present, must be a table.
CONFIG_SECTIONS = ("embedder", "verify", "search", "capture", "permissions", "mcp", "audit")


class Refusal:
    """Why a declaration or configuration is refused: the rule it breaks (``rule``: a verify
    sub-code such as ``E002.2``, or E004, a code of one rule), its code (``code``: E002 not a
    declaration, E003 another format or version, E004 an extension not understood, E005 not a
    configuration), the message, and a hint or None."""

    __slots__ = ("hint", "message", "rule")

    def __init__(self, rule: str, message: str, hint: str | None = None) -> None:
        self.rule = rule
        self.message = message
        self.hint = hint

    @property
    def code(self) -> str:
        return self.rule.partition(".")[0]

    def __repr__(self) -> str:
        return f"Refusal({self.rule!r}, {self.message!r}, {self.hint!r})"


def accept_declaration(raw: bytes) -> dict[str, Any] | Refusal:
    """The declaration's object from its bytes, or why it is refused (a ``Refusal``). Undecodable bytes are a
    refusal (E002.1), never an exception."""
    try:
        obj = _json_loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return Refusal("E002.1", f"the declaration is not valid JSON: {exc}")
    except RecursionError:
        return Refusal("E002.1", "the declaration is not valid JSON: nested too deeply")
    if not isinstance(obj, dict):
        return Refusal("E002.1", "the declaration is not a JSON object")
    if obj.get("format") != FORMAT_NAME:
        return Refusal("E003.1", f"format {obj.get('format')!r} is not {FORMAT_NAME!r}")
    version = obj.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        return Refusal("E002.2", f"the declaration's version {version!r} is not an integer")
    if version != FORMAT_VERSION:
        return Refusal(
            "E003.2", f"format version {version} is not supported by this mem (it reads version {FORMAT_VERSION})",
            "upgrade mem" if version > FORMAT_VERSION else None)
    exts = obj.get("extensions", [])
    if not isinstance(exts, list) or not all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in exts):
        return Refusal("E002.3", "extensions must be a list of objects, each with a name")
    # must_understand defaults to true: only an explicit false lets a reader ignore an extension
    unknown = [e["name"] for e in exts if e.get("must_understand", True) is not False and e["name"] not in KNOWN_EXTENSIONS]
    if unknown:
        return Refusal(
            "E004", "the store uses extension(s) this mem does not understand: " + ", ".join(unknown),
            "upgrade mem, or use a tool that knows this extension")
    return obj


def accept_config(text: str) -> dict[str, Any] | Refusal:
    """The configuration's tables from its text, or why it is refused (a ``Refusal``, E005: not TOML, or a
    section of ``CONFIG_SECTIONS`` that is not a table). The values' own rules
    (``config.config_findings``, E007) are checked where they are read."""
    tables = plain_tables(text)  # the file `mem init` writes: no tomllib import needed
    if tables is not None:
        return {name: {} for name in tables}
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Refusal("E005.1", f"the configuration is not valid TOML: {exc}")
    for name in CONFIG_SECTIONS:
        if not isinstance(data.get(name, {}), dict):
            return Refusal("E005.2", f"[{name}] must be a table")
    return data
