"""The store declaration (``memstore.json``) and the store configuration (``config.toml``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import StoreInvalidError, UnsupportedFormatError
from mem.format.rules.layout import CONFIG_FILE as CONFIG_FILE
from mem.format.rules.layout import DECLARATION_FILE as DECLARATION_FILE
from mem.format.rules.layout import FORMAT_NAME as FORMAT_NAME
from mem.format.rules.layout import FORMAT_VERSION as FORMAT_VERSION
from mem.format.rules.settings import EMBED_GRAPHS as EMBED_GRAPHS
from mem.format.rules.settings import EMBED_PROVIDERS as EMBED_PROVIDERS
from mem.format.rules.settings import MAX_K as MAX_K
from mem.format.rules.settings import MAX_THREADS as MAX_THREADS
from mem.format.rules.settings import SECTION_RULES as SECTION_RULES
from mem.format.rules.settings import SETTINGS as SETTINGS
from mem.format.rules.settings import Setting as Setting
from mem.format.rules.settings import accept as accept
from mem.format.rules.settings import config_findings as config_findings
from mem.format.rules.settings import config_problems as config_problems
from mem.format.rules.settings import default as default
from mem.format.rules.settings import value_in
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
    """Settings of a store. Unknown sections are kept for the parts of mem that read them; the
    settings of :data:`SETTINGS` are read with :meth:`value`."""

    embedder: dict[str, Any] = field(default_factory=dict)
    verify: dict[str, Any] = field(default_factory=dict)
    search: dict[str, Any] = field(default_factory=dict)
    capture: dict[str, Any] = field(default_factory=dict)
    permissions: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    #: The file the settings were read from (errors name it); ``config.toml`` when none.
    path: Path | None = None

    def value(self, section: str, key: str) -> Any:
        """The setting's value (its default when unset, :data:`SETTINGS`); a bad value raises
        the setting's error (``settings.setting_error``), in the words ``mem verify`` uses."""
        table = getattr(self, section) if section in _FIELDS else self.raw.get(section)
        return value_in({section: table}, section, key, self.path if self.path is not None else CONFIG_FILE)

    @property
    def file_mode(self) -> int:
        mode: int = self.value("permissions", "file_mode")
        return mode

    @property
    def dir_mode(self) -> int:
        mode: int = self.value("permissions", "dir_mode")
        return mode


_FIELDS = frozenset({"embedder", "verify", "search", "capture", "permissions"})


DEFAULT_CONFIG = f"""\
# mem store configuration. Every key is optional; see spec/format.md, "Configuration".

[embedder]
# provider = "{default('embedder', 'provider')}"   # the default offline model; "hashing" is for tests only
# threads = 1           # ONNX threads; on a busy 2-core machine one thread is fastest
# graph = "int8"        # minilm's graph; unset, a store keeps the one its vectors were made with
# bulk_nice = {default('embedder', 'bulk_nice')}        # bulk embedding threads run this much nicer (Linux); 0: off

[search]
# default_k = {default('search', 'default_k')}

[verify]
# Lower or silence a finding, as `git fsck` allows:
# severity = {{ W101 = "ignore", W301 = "error" }}
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
        path=path,
    )
