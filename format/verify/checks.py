"""``mem verify``: check a store against every rule of the format that a store can break.

Each rule has a stable code (``E…`` errors, ``W…`` warnings), a default severity, a meaning and
a fix; the table is :data:`RULES` and is documented, code by code, in
``spec/validation-codes.md`` (a test keeps the two and ``spec/fixtures/<CODE>/`` in sync).

Two levels, as BagIt's *complete*/*valid* and restic's ``check``/``--read-data``:

* **fast** (default): the declaration, the configuration, every record file is read and parsed
  (frontmatter and body validated, file name/id and folder/scope agreement, duplicate ids),
  tombstones (resurrection by id, by normalized content and by source item), lineage and
  supersession links, the audit log (hash chains, torn tails, agreement with the records using
  the records' stored ``digest:`` lines), derived indexes (staleness, corruption, counts, the
  embedding space), leftover temp files and unknown files.
* **full**: everything above, and every record's content digest is recomputed and compared with
  its stored ``digest:`` line, and every record is checked for canonical form.

On a store of at least :data:`POOL_MIN_RECORDS` records the record files and the audit log are
checked in forked worker processes (one per CPU) that send back compact per-file results; the
report is the same as with one process.

Verification never writes anything: no lock, no clone id, no index refresh. Per-code severity
can be changed in ``config.toml`` (``[verify] severity = { W101 = "ignore" }``), as
``git fsck`` allows with ``fsck.<msg-id>``; every such choice is reported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from mem.format.base.errors import RecordParseError
from mem.format.base.fsutil import TMP_MARKER
from mem.format.base.jsonl import read_jsonl
from mem.format.base.workers import pool_size, worker_pool
from mem.format.model.audit import event_hash
from mem.format.model.record import (
    MAX_FRONTMATTER_BYTES,
    MAX_RECORD_BYTES,
    Record,
    canonical_body,
    content_digest,
    dump_record,
    match_digest,
    parse_record,
    split_record_text,
)
from mem.format.model.tombstones import TombstoneSet
from mem.format.rules import ids
from mem.format.rules.config import (
    CONFIG_FILE,
    DECLARATION_FILE,
    config_problems,
)
from mem.format.rules.recordtext import canonical_pattern, scan_canonical
from mem.format.rules.storefiles import Refusal, accept_config, accept_declaration
from mem.format.store.store import source_key

SEVERITIES = ("error", "warning")
#: Values accepted in ``[verify] severity``.
OVERRIDE_LEVELS = ("error", "warning", "ignore")


@dataclass(frozen=True, slots=True)
class Rule:
    """One code: a rule of the format that a store can break (or several, told apart by its
    sub-rules, :data:`SUBRULES`)."""

    code: str
    severity: str  # default: "error" or "warning"
    title: str
    meaning: str
    hint: str  # what to do about it
    level: str = "fast"  # "fast": found by `mem verify`; "full": only by `mem verify --full`
    fatal: bool = False  # verification cannot go on; severity cannot be changed
    section: str = ""  # where the spec states the rule, e.g. "spec/format.md §7.1"

    @property
    def fix(self) -> str:
        """The fix a finding prints: the hint and the spec section that states the rule."""
        return f"{self.hint}; see {self.section}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "title": self.title,
            "meaning": self.meaning,
            "fix": self.fix,
            "level": self.level,
            "section": self.section,
        }


@dataclass(frozen=True, slots=True)
class SubRule:
    """One rule of a code that covers several (``E103.5``: the code, a dot, a number).

    A finding keeps its code (severity, level, overrides and exit status are the code's) and
    names the sub-rule in ``rule``; its fix is the code's hint with the sub-rule's section.
    ``match``: for a finding made from the message of a rule applied elsewhere (the declaration
    and configuration refusals of ``rules/storefiles``, the record reader's errors: E002, E003,
    E005, E102, E103), the pattern that tells which sub-rule the message is about (the first that matches; the fixtures of
    ``spec/fixtures/_rules/`` pin every one); a check that knows its sub-rule names it itself.
    """

    code: str
    title: str
    section: str
    match: str = ""

    @property
    def parent(self) -> str:
        return self.code.partition(".")[0]

    @property
    def fix(self) -> str:
        return f"{RULES[self.parent].hint}; see {self.section}"


_RULES: tuple[Rule, ...] = (
    # -- the store: declaration and configuration ------------------------------------------
    Rule("E001", "error", "declaration missing",
         "The directory has no memstore.json, so it is not a readable mem store.",
         "run `mem init` in the directory, or restore memstore.json (e.g. `git checkout -- memstore.json`)",
         fatal=True,
         section="spec/format.md §2"),
    Rule("E002", "error", "declaration invalid",
         "memstore.json is not valid UTF-8 JSON, is not an object, or its version or extensions "
         "have the wrong type.",
         "restore memstore.json from version control, or write it as the spec describes",
         fatal=True,
         section="spec/format.md §2"),
    Rule("E003", "error", "unsupported format or version",
         "memstore.json names a format other than mem-store, or a format version this mem does "
         "not read.",
         "use a mem that reads this version (upgrade mem), or check that this is a mem store",
         fatal=True,
         section="spec/format.md §2"),
    Rule("E004", "error", "unknown must-understand extension",
         "memstore.json lists an extension that this mem does not understand and that is not "
         "marked must_understand: false; reading the store could misread it.",
         "upgrade mem, or use a tool that knows the extension",
         fatal=True,
         section="spec/format.md §2"),
    Rule("E005", "error", "configuration invalid",
         "config.toml is not valid UTF-8 TOML, or one of its sections is not a table.",
         "fix the TOML syntax in config.toml (every key is optional; an empty file is valid)",
         fatal=False,
         section="spec/format.md §18"),
    Rule("E006", "error", "records folder unusable",
         "records/ is a symbolic link or not a directory; mem refuses to follow it.",
         "replace records/ with a real directory holding the record files",
         section="spec/format.md §3"),
    Rule("E007", "error", "configuration value invalid",
         "A setting in config.toml has a value mem refuses: a [permissions] mode that is not "
         "octal, sets setuid/setgid/sticky bits, lets others write or takes the owner's access "
         "away; [embedder] threads outside 1-256; a [search] or [mcp] value of the wrong kind or "
         "range. The commands that read it refuse it too.",
         "correct the value (the spec lists every setting and its range), or remove the key to "
         "use the default",
         fatal=False,
         section="spec/format.md §18"),
    Rule("W001", "warning", "verify setting ignored",
         "config.toml [verify] severity names an unknown code, an unknown level, or a code whose "
         "severity cannot be changed (E001-E005).",
         "edit [verify] severity in config.toml: known codes only, levels error, warning or ignore",
         section="spec/format.md §18"),
    # -- records --------------------------------------------------------------------------
    Rule("E101", "error", "record not UTF-8",
         "A record file contains bytes that are not valid UTF-8.",
         "re-save the file as UTF-8 (or restore it from version control)",
         section="spec/format.md §5"),
    Rule("E102", "error", "record unparseable",
         "A record file has no frontmatter block opened and closed by '---' lines, its "
         "frontmatter is not valid YAML or not a mapping, or it is too large.",
         "repair the frontmatter by hand (`mem show --raw` of a good record shows the layout), or "
         "restore the file from version control",
         section="spec/format.md §5"),
    Rule("E103", "error", "record invalid",
         "A record's frontmatter parses but breaks a rule: a required key (id, scope, kind, status, "
         "recorded_at, digest) is missing, or a value is malformed (id, scope, status, confidence, "
         "times, tags, links).",
         "correct the named key in the file (the spec gives every key's grammar)",
         section="spec/format.md §5"),
    Rule("E104", "error", "record body empty",
         "A record file has frontmatter but no content after it.",
         "write the memory's content below the closing '---', or `mem forget` the record",
         section="spec/format.md §5"),
    Rule("E105", "error", "file name and id disagree",
         "A record file is named <ID>.md but its frontmatter id is a different id.",
         "rename the file to the frontmatter id (or correct the id), keeping ids unique",
         section="spec/format.md §3"),
    Rule("E106", "error", "folder and scope disagree",
         "A record file lies in records/<scope>/ but its frontmatter names another scope.",
         "move the file to records/<its scope>/ or correct its scope (prefer `mem update --scope`)",
         section="spec/format.md §3"),
    Rule("E107", "error", "duplicate id",
         "The same record id has a file in more than one scope folder; ids are unique in a store.",
         "keep one of the files (compare them with `mem diff` or a text diff) and remove the others",
         section="spec/format.md §4.1"),
    Rule("E108", "error", "content digest mismatch",
         "A record's stored `digest:` line differs from the digest of its content, recomputed: "
         "the content was changed without mem, or the file is damaged.",
         "if the edit was intended, `mem repair --adopt` rewrites the digest and logs the change; "
         "otherwise restore the file from version control",
         level="full",
         section="spec/format.md §7.1"),
    Rule("E109", "error", "scope name reserved on Windows",
         "A folder of records/ is named like a scope but its name is a device name Windows "
         "reserves (con, prn, aux, nul, com0-9, lpt0-9, alone or before a '.'): the store cannot "
         "be checked out on Windows, and mem does not read the records in it.",
         "rename the folder to a valid scope and set the same scope in each record's frontmatter "
         "(e.g. `git mv records/con records/con-x`), then run `mem verify`",
         section="spec/format.md §4.2"),
    Rule("E110", "error", "record holds merge conflict markers",
         "A record file holds lines a git merge leaves where it could not merge ('<<<<<<< ' "
         "and '>>>>>>> '): the merge was committed unfinished. Readers skip the file when its "
         "frontmatter is broken, and its content is not what either side wrote.",
         "finish the merge: keep the right side's lines in the file and remove the markers "
         "(then `mem verify --full`)",
         section="spec/format.md §6.4"),
    Rule("W101", "warning", "record not in canonical form",
         "A record parses but is not written in canonical form (key order, quoting, newlines, "
         "trailing newline); the next save by mem will change the file and make a git diff.",
         "`mem repair --adopt` rewrites it canonically and logs it (`mem edit` leaves a file "
         "saved unchanged as it is)",
         level="full",
         section="spec/format.md §6"),
    # -- tombstones and links ---------------------------------------------------------------
    Rule("E201", "error", "forgotten record present",
         "A record file exists whose id is tombstoned in its scope: a forget was interrupted "
         "after the tombstone was written and before the file was removed (or the file was "
         "brought back, e.g. by a git merge). Every read path already treats it as forgotten.",
         "run `mem repair`, which completes interrupted forgets (removes the file and logs it)",
         section="spec/format.md §8"),
    Rule("E202", "error", "forgotten content present",
         "A live record's normalized content matches a tombstone of its scope (not lifted): "
         "forgotten content came back through a path that bypassed mem (hand copy, merge, "
         "restore).",
         "`mem forget ID` the record; if it is really meant to come back, store it again with "
         "`mem add --allow-forgotten` (the override is logged)",
         section="spec/format.md §8"),
    Rule("E203", "error", "forgotten source item present",
         "A live record comes from an import or capture source item whose key is tombstoned in "
         "its scope.",
         "`mem forget ID` the record; forgotten source items must not be re-imported",
         section="spec/format.md §8"),
    Rule("E204", "error", "tombstone line invalid",
         "A line of tombstones/<scope>.jsonl is not a JSON object, lacks id or digest, or names "
         "another scope than its file.",
         "restore the tombstones file from version control; never delete tombstone lines",
         section="spec/format.md §8"),
    Rule("E205", "error", "tombstones file torn",
         "The last line of a tombstones file is incomplete (a write was interrupted).",
         "run `mem repair`, which moves the torn line aside to .mem/quarantine/",
         section="spec/format.md §8"),
    Rule("E206", "error", "dangling derived_from",
         "A record lists in derived_from an id that is neither a record of the store nor "
         "tombstoned (a link to a forgotten record is fine).",
         "restore the missing source record, or remove the id from derived_from (`mem edit ID`)",
         section="spec/format.md §12"),
    Rule("E207", "error", "dangling supersession link",
         "A record's supersedes or superseded_by names an id that is neither a record of the "
         "store nor tombstoned.",
         "restore the missing record, or correct the link (`mem edit ID`)",
         section="spec/format.md §5"),
    Rule("E208", "error", "status and supersession disagree",
         "A record has status superseded but no superseded_by, or has superseded_by but a status "
         "other than superseded.",
         "set status and superseded_by consistently (`mem edit ID`); `mem supersede` writes both",
         section="spec/format.md §5.2"),
    Rule("E209", "error", "tombstone missing",
         "The audit log records the forget of a record, but its scope's tombstones file has no "
         "tombstone for that id (lines removed or the file emptied by hand): nothing would stop "
         "an old export or backup from bringing the record back.",
         "restore tombstones/<scope>.jsonl from version control (`git log -p -- tombstones/`); "
         "meanwhile writes refuse the ids the log says were forgotten",
         level="full",
         section="spec/format.md §8"),
    Rule("W201", "warning", "supersession not mutual",
         "A record names a successor (superseded_by) whose supersedes does not name it back, or a "
         "record supersedes one whose superseded_by names another record.",
         "make the two links agree (`mem edit ID`); `mem supersede` writes both sides",
         section="spec/format.md §5.2"),
    # -- audit log --------------------------------------------------------------------------
    Rule("E301", "error", "audit line invalid",
         "A line of an audit log (log/<clone-id>.jsonl) is not a JSON object.",
         "restore the log file from version control; the log is append-only",
         section="spec/format.md §9.2"),
    Rule("E302", "error", "audit event tampered",
         "An audit event's hash does not match its content: the event was edited after it was "
         "written. (The fast level checks that each event links to the previous event's stored "
         "hash; --full recomputes every event's hash.)",
         "restore the log file from version control; investigate who changed it",
         level="full",
         section="spec/format.md §9.2"),
    Rule("E303", "error", "audit chain broken",
         "An audit event does not name the previous event's hash, or its sequence number is out "
         "of order: events were removed, inserted or reordered.",
         "restore the log file from version control; a merge must keep each clone's file whole",
         section="spec/format.md §9.2"),
    Rule("E304", "error", "audit log torn",
         "The last line of an audit log is incomplete (a write was interrupted).",
         "run `mem repair`, which moves the torn line aside to .mem/quarantine/",
         section="spec/format.md §9.2"),
    Rule("W301", "warning", "record not in the audit log",
         "A live record has no event in any audit log: it was created outside mem (copied in, "
         "written by another tool), so its history is unknown.",
         "if the record is meant to be there, `mem repair` logs it as adopted (a write cut off between the record and its log line leaves this too)",
         section="spec/format.md §9.1"),
    Rule("W302", "warning", "record changed outside mem",
         "A live record's digest differs from the digest of its latest audit event (or the log "
         "says it was forgotten): it was changed or restored without mem.",
         "review the change (`mem diff`, `git log -p`); if it is right, `mem repair --adopt` logs "
         "it as adopted",
         section="spec/format.md §9.1"),
    Rule("W303", "warning", "record removed outside mem",
         "The audit log says a record is live, but its file is gone and no tombstone forgets it: "
         "it was deleted without `mem forget`, so nothing stops it from coming back.",
         "restore the file from version control, or, if the removal was meant, restore it and "
         "`mem forget ID` it so a tombstone is written",
         section="spec/format.md §9.1"),
    # -- derived indexes -------------------------------------------------------------------
    Rule("E401", "error", "index corrupt",
         "A derived index (lexical or vector) cannot be used: its pointer file does not parse, "
         "its generation directory is missing, tantivy cannot open it, or a vector matrix "
         "disagrees with its rows. Not when the file system refuses (a full disk, a read-only "
         "store): verify then exits 11 naming the file (spec/index.md).",
         "run `mem rebuild` (indexes are derived from the records; nothing is lost)",
         section="spec/format.md §17"),
    Rule("W401", "warning", "index stale",
         "The lexical index does not reflect the records: records were added, changed or "
         "removed outside mem (git pull, editor) since it was updated.",
         "nothing is wrong with the records; the next search catches up, or run `mem rebuild`",
         section="spec/format.md §17"),
    Rule("W402", "warning", "embedding space mismatch",
         "The vector index was built with another embedding space (provider, model, digest, "
         "dimension...) than the configured embedder: vector search is refused until rebuilt.",
         "run `mem rebuild --vectors` with the configured embedder",
         section="spec/format.md §17"),
    Rule("W403", "warning", "index counts disagree",
         "The number of documents in the lexical index, or of valid vectors, differs from the "
         "number of live records.",
         "run `mem rebuild` (or `mem compact` to drop dead vectors)",
         section="spec/format.md §17"),
    Rule("W404", "warning", "index leftovers",
         "A folder in .mem/index/ that no index pointer names: a build folder or an old or "
         "half-swapped generation left by an interrupted `mem rebuild` or `mem compact` (or one "
         "running right now). The live indexes do not use it; it only takes space.",
         "run `mem compact` (or `mem rebuild`), which deletes it",
         section="spec/format.md §17"),
    # -- files -------------------------------------------------------------------------------
    Rule("W501", "warning", "leftover temporary file",
         "A file whose name contains '.mem-tmp-' is left over from a write that was interrupted "
         "(or one running right now). It holds no committed data.",
         "run `mem compact`, which removes stale temporary files, or delete the file",
         section="spec/format.md §14"),
    Rule("W502", "warning", "unknown file",
         "A file or folder in records/, tombstones/ or log/ that the format does not define "
         "(a record must be records/<scope>/<ID>.md; symbolic links are never followed).",
         "move the file out of the store, or rename it as the format requires",
         section="spec/format.md §3"),
)

RULES: dict[str, Rule] = {r.code: r for r in _RULES}

_TIMES = "(?:valid_from|valid_to|recorded_at|updated_at|superseded_at)"
_SUBRULES: tuple[SubRule, ...] = (
    # -- the declaration and the configuration -------------------------------------------------
    SubRule("E002.1", "declaration not a UTF-8 JSON object", "spec/format.md §2",
            r"^(?:cannot read the declaration|the declaration is not (?:valid JSON|a JSON object))"),
    SubRule("E002.2", "version not an integer", "spec/format.md §2", r"^the declaration's version"),
    SubRule("E002.3", "extensions not a list of named objects", "spec/format.md §2", r"^extensions must be"),
    SubRule("E003.1", "another format", "spec/format.md §2", r"^format (?!version)"),
    SubRule("E003.2", "unsupported format version", "spec/format.md §2", r"^format version"),
    SubRule("E005.1", "configuration not UTF-8 TOML", "spec/format.md §18",
            r"^(?:cannot read the configuration|the configuration is not valid TOML)"),
    SubRule("E005.2", "configuration section not a table", "spec/format.md §18", r"must be a table$"),
    SubRule("E007.1", "[permissions] mode refused", "spec/format.md §18", r"^\[permissions\] "),
    SubRule("E007.2", "[embedder] value out of its kind or range", "spec/format.md §18", r"^\[embedder\] "),
    SubRule("E007.3", "[search] value out of its kind or range", "spec/format.md §18", r"^\[search\] "),
    SubRule("E007.4", "[mcp] value out of its kind or range", "spec/format.md §18", r"^\[mcp\] "),
    # -- a record file: the frontmatter block (from the reader's message) ----------------------
    SubRule("E102.1", "frontmatter not delimited by '---' lines", "spec/format.md §5",
            r"^record does not start with a '---'|^frontmatter is not closed"),
    SubRule("E102.2", "frontmatter not a YAML mapping", "spec/format.md §5",
            r"^frontmatter is not (?:valid YAML|a mapping)"),
    SubRule("E102.3", "record or frontmatter too large", "spec/format.md §5",
            r"^(?:frontmatter|record file) is larger than"),
    SubRule("E102.4", "YAML anchor or alias", "spec/format.md §5", r"^YAML (?:anchors|aliases) are not allowed"),
    SubRule("E102.5", "frontmatter key repeated", "spec/format.md §5", r"^frontmatter key .* appears more than once"),
    SubRule("E102.6", "frontmatter nests too deeply", "spec/format.md §6.4", r"^frontmatter nests too deeply"),
    # -- a record's values (from the reader's message) -------------------------------------------
    SubRule("E103.1", "required key missing", "spec/format.md §5", r"^frontmatter lacks required key"),
    SubRule("E103.2", "id not a record id", "spec/format.md §4.1", r"^id "),
    SubRule("E103.3", "scope not valid", "spec/format.md §4.2", r"^scope "),
    SubRule("E103.4", "kind not valid", "spec/format.md §4.3", r"^kind "),
    SubRule("E103.5", "status not one of the four states", "spec/format.md §5", r"^status "),
    SubRule("E103.6", "confidence not a number from 0 to 1", "spec/format.md §5", r"^confidence "),
    SubRule("E103.7", "time not valid", "spec/format.md §6.2", rf"^{_TIMES} (?!is earlier than)"),
    SubRule("E103.8", "valid_to earlier than valid_from", "spec/format.md §5", r"^valid_to is earlier than valid_from"),
    SubRule("E103.9", "tag not valid", "spec/format.md §4.4", r"^tags? "),
    SubRule("E103.10", "link not a valid id, or to the record itself", "spec/format.md §5",
            r"^(?:linked id|supersedes|superseded_by|derived_from) |^record \S+ links to itself"),
    SubRule("E103.11", "source not a mapping of named keys", "spec/format.md §5.3", r"^source"),
    SubRule("E103.12", "extension key not valid", "spec/format.md §5.4", r"^frontmatter key .* extension key"),
    SubRule("E103.13", "digest not a string", "spec/format.md §5", r"^digest "),
    SubRule("E103.14", "content larger than 4 MiB", "spec/format.md §5", r"^content is larger than"),
    # -- tombstones and links ----------------------------------------------------------------------
    SubRule("E204.1", "tombstone line not a JSON object", "spec/format.md §8"),
    SubRule("E204.2", "tombstone without id or digest", "spec/format.md §8"),
    SubRule("E204.3", "tombstone of another scope", "spec/format.md §8"),
    SubRule("E207.1", "supersedes names a missing record", "spec/format.md §5"),
    SubRule("E207.2", "superseded_by names a missing record", "spec/format.md §5"),
    SubRule("E208.1", "superseded without superseded_by", "spec/format.md §5.2"),
    SubRule("E208.2", "superseded_by on a record not superseded", "spec/format.md §5.2"),
    SubRule("W201.1", "supersession links not mutual", "spec/format.md §5.2"),
    SubRule("W201.2", "supersession interrupted", "spec/format.md §5.2"),
    # -- the audit log -------------------------------------------------------------------------------
    SubRule("E303.1", "event not linked to the previous event", "spec/format.md §9.2"),
    SubRule("E303.2", "sequence number out of order", "spec/format.md §9.2"),
    SubRule("E401.1", "lexical index unusable (pointer, generation, tantivy, state table)", "spec/format.md §17"),
    SubRule("E401.2", "vector index unusable (pointer, generation, matrices)", "spec/format.md §17"),
    SubRule("W401.1", "records changed since the lexical index was updated", "spec/format.md §17"),
    SubRule("W401.2", "lexical index of an older schema", "spec/format.md §17"),
    SubRule("W403.1", "lexical documents differ from the live records", "spec/format.md §17"),
    SubRule("W403.2", "valid vectors outnumber the live records", "spec/format.md §17"),
    SubRule("W502.1", "not a tombstones file in tombstones/", "spec/format.md §3"),
    SubRule("W502.2", "not a scope folder in records/", "spec/format.md §3"),
    SubRule("W502.3", "not a record file in a scope folder", "spec/format.md §3"),
    SubRule("W502.4", "not an audit log file in log/", "spec/format.md §3"),
)
#: Every sub-rule, by sub-code (``E103.5``).
SUBRULES: dict[str, SubRule] = {r.code: r for r in _SUBRULES}
#: The sub-rules told apart by the message of a reader's error, per code, in table order.
_BY_MESSAGE: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    code: tuple((re.compile(r.match), r.code) for r in _SUBRULES if r.parent == code and r.match)
    for code in {r.parent for r in _SUBRULES if r.match}
}


def subrule_of(code: str, message: str) -> str | None:
    """The sub-rule of ``code`` that a reader's error ``message`` is about (None: not told)."""
    for pattern, sub in _BY_MESSAGE.get(code, ()):
        if pattern.search(message):
            return sub
    return None



@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: str  # "error" or "warning" (after configured overrides)
    path: str  # relative to the store root, '/'-separated; "." for the store itself
    message: str
    fix: str  # the hint and the spec section of the rule (sub-rule) broken
    rule: str | None = None  # the sub-rule (``E103.5``) when the code covers several

    def to_dict(self) -> dict[str, str]:
        out = {
            "code": self.code,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
            "fix": self.fix,
        }
        if self.rule is not None:
            out["rule"] = self.rule
        return out

    def line(self) -> str:
        rule = f"{self.rule}; " if self.rule is not None else ""
        return f"[{self.code}] {self.path}: {self.message} ({rule}fix: {self.fix})"


@dataclass
class VerifyReport:
    """What ``verify`` found. ``valid`` is False when any finding has severity error."""

    root: Path
    level: str
    findings: list[Finding] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)  # code -> findings hidden by config
    overrides: dict[str, str] = field(default_factory=dict)  # code -> configured level
    records: int = 0
    tombstones: int = 0
    events: int = 0

    @property
    def valid(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, Any]:
        by_code: dict[str, int] = {}
        for f in self.findings:
            by_code[f.code] = by_code.get(f.code, 0) + 1
        return {
            "errors": sum(1 for f in self.findings if f.severity == "error"),
            "warnings": sum(1 for f in self.findings if f.severity == "warning"),
            "ignored": sum(self.ignored.values()),
            "by_code": dict(sorted(by_code.items())),
            "records": self.records,
            "tombstones": self.tombstones,
            "events": self.events,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "level": self.level,
            "store": str(self.root),
            "findings": [f.to_dict() for f in self.findings],
            "counts": self.counts(),
            "overrides": dict(sorted(self.overrides.items())),
        }


class _Verifier:
    def __init__(self, root: Path, full: bool, indexes: bool, workers: int | None = None) -> None:
        self.root = root
        self.full = full
        self.indexes = indexes
        self.workers = workers
        self.report = VerifyReport(root, "full" if full else "fast")
        self.overrides: dict[str, str] = {}
        self.forgotten: dict[str, str] = {}  # id -> scope, from the audit log's forget events
        self._waited_for_writer = False

    # -- reporting -----------------------------------------------------------------------------

    def rel(self, path: Path) -> str:
        try:
            r = path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()
        return r or "."

    def add(self, code: str, path: Path | str, message: str) -> None:
        """Report a finding of ``code`` or of one of its sub-rules (``E204.3``); a code whose
        sub-rules are told by the message (E102, E103) gets its sub-rule here."""
        parent = code.partition(".")[0]
        rule = RULES[parent]
        level = self.overrides.get(parent, rule.severity)
        if level == "ignore":
            self.report.ignored[parent] = self.report.ignored.get(parent, 0) + 1
            return
        p = path if isinstance(path, str) else self.rel(path)
        sub = SUBRULES[code] if code != parent else None
        if sub is None and parent in _BY_MESSAGE:
            told = subrule_of(parent, message)
            sub = SUBRULES[told] if told is not None else None
        if sub is None:
            self.report.findings.append(Finding(parent, level, p, message, rule.fix))
        else:
            self.report.findings.append(Finding(parent, level, p, message, sub.fix, sub.code))

    # -- the run ---------------------------------------------------------------------------------

    def run(self) -> VerifyReport:
        if not self.check_declaration():
            return self.report
        self.check_config()
        tombs = self.check_tombstones()
        job = self.list_records(tombs)
        with _run_checks(job, self.root, self.full, self.workers) as (log, results):
            files = self.check_records(tombs, job, results)
            last = self.apply_log(log())
        self.check_links(files, tombs)
        self.check_log(files, tombs, last)
        if self.indexes:
            self.check_indexes(files)
        self.check_temp_files()
        self.report.findings.sort(key=lambda f: (f.path, f.code, f.message))
        return self.report

    # -- declaration and configuration -------------------------------------------------------

    def check_declaration(self) -> bool:
        path = self.root / DECLARATION_FILE
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            self.add("E001", path, "the store declaration memstore.json is missing")
            return False
        except OSError as exc:
            self.add("E002.1", path, f"cannot read the declaration: {exc.strerror}")
            return False
        refused = accept_declaration(raw)  # the rule Store.open applies (E002-E004)
        if isinstance(refused, Refusal):
            self.add(refused.code, path, refused.message)
            return False
        return True

    def check_config(self) -> None:
        path = self.root / CONFIG_FILE
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.add("E005.1", path, f"cannot read the configuration: {exc.strerror}")
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.add("E005", path, f"the configuration is not valid TOML: {exc}")
            return
        data = accept_config(text)  # the rule Store.open applies (E005)
        if isinstance(data, Refusal):
            self.add(data.code, path, data.message)
            return
        for problem in config_problems(data):
            self.add("E007", path, problem)
        sev = data.get("verify", {}).get("severity", {})
        if not isinstance(sev, dict):
            self.add("W001", path, "[verify] severity must be a table of CODE = level")
            return
        for code, level in sev.items():
            rule = RULES.get(code)
            if rule is None:
                self.add("W001", path, f"[verify] severity names unknown code {code!r}")
            elif level not in OVERRIDE_LEVELS:
                self.add(
                    "W001",
                    path,
                    f"[verify] severity {code} = {level!r}: use one of {', '.join(OVERRIDE_LEVELS)}",
                )
            elif rule.fatal or code == "E005":
                self.add("W001", path, f"the severity of {code} cannot be changed")
            else:
                self.overrides[code] = level
        self.report.overrides = dict(self.overrides)

    # -- tombstones -------------------------------------------------------------------------

    def check_tombstones(self) -> TombstoneSet:
        tdir = self.root / "tombstones"
        n = 0
        for entry in _scan(tdir):
            p = tdir / entry.name
            if _skip_name(entry.name):
                continue
            scope = entry.name[:-6] if entry.name.endswith(".jsonl") else None
            if (
                scope is None
                or not ids.is_scope(scope)
                or not entry.is_file(follow_symlinks=False)
            ):
                self.add("W502.1", p, "not a tombstones file (tombstones/<scope>.jsonl)")
                continue
            lines, tail = read_jsonl(p)
            for ln in lines:
                v = ln.value
                if v is None:
                    self.add("E204.1", p, f"line {ln.lineno} is {ln.error}")
                    continue
                if v.get("type") == "lift":
                    if not isinstance(v.get("digest"), str):
                        self.add("E204.2", p, f"line {ln.lineno}: a lift entry lacks its digest")
                    continue
                if not (ids.is_id(v.get("id")) and isinstance(v.get("digest"), str)):
                    self.add("E204.2", p, f"line {ln.lineno}: a tombstone needs a record id and a digest")
                    continue
                if v.get("scope", scope) != scope:
                    self.add(
                        "E204.3",
                        p,
                        f"line {ln.lineno}: tombstone names scope {v.get('scope')!r}, file is for {scope!r}",
                    )
                    continue
                n += 1
            if tail is not None:
                self.add(
                    "E205",
                    p,
                    f"last line is incomplete ({len(tail)} bytes after the last newline)",
                )
        self.report.tombstones = n
        return TombstoneSet(tdir)

    # -- records ----------------------------------------------------------------------------

    def list_records(self, tombs: TombstoneSet) -> _Job | None:
        """The record files to read, per scope folder (anything else in records/ is W502).

        None when records/ itself is unusable (E006).
        """
        rdir = self.root / "records"
        if rdir.is_symlink() or (rdir.exists() and not rdir.is_dir()):
            self.add("E006", rdir, "records/ is a symbolic link or not a directory")
            return None
        scopes: list[_ScopeFiles] = []
        for entry in _scan(rdir):
            scope = entry.name
            if _skip_name(scope):
                continue
            if (
                entry.is_dir(follow_symlinks=False)
                and ids.is_windows_reserved(scope)
                and ids.is_scope("x" + scope)  # the grammar's other rules hold
            ):
                self.add("E109", f"records/{scope}",
                         f"{scope.split('.', 1)[0]!r} is a device name Windows reserves; the "
                         "records in this folder are not read")
                continue
            if not entry.is_dir(follow_symlinks=False) or not ids.is_scope(scope):
                what = "a symbolic link" if entry.is_symlink() else "not a scope folder"
                self.add(
                    "W502.2",
                    f"records/{scope}",
                    f"{what} in records/ (records live in records/<scope>/<ID>.md)",
                )
                continue
            names: list[str] = []
            for e in _scan(rdir / scope):
                name = e.name
                if _skip_name(name):
                    continue
                if name.endswith(".md") and _ID_MATCH(name[:-3]) and e.is_file(follow_symlinks=False):
                    names.append(name)
                else:
                    what = "a symbolic link" if e.is_symlink() else "not a record file (<ID>.md)"
                    self.add("W502.3", f"records/{scope}/{name}", what)
            st = tombs.load(scope)
            scopes.append(_ScopeFiles(scope, tuple(names), frozenset(st.ids), bool(st.digests)))
        return _Job(str(rdir), self.full, tuple(scopes))

    def check_records(
        self, tombs: TombstoneSet, job: _Job | None, results: Iterator[_TaskResult]
    ) -> _Files:
        """Merge the per-file results (in file order) with the checks that need the whole store:
        duplicate ids (E107), forgotten ids (E201), forgotten content and source items (E202,
        E203)."""
        files = _Files()
        if job is None:
            files.unusable = True
            return files
        add = self.add
        where, live, digests = files.where, files.live, files.digests
        for si, start, res in results:
            sf = job.scopes[si]
            scope = sf.scope
            st = tombs.load(scope)
            for name, r in zip(sf.names[start : start + len(res)], res, strict=True):
                rid = name[:-3]
                prior = where.setdefault(rid, scope)
                if prior != scope:
                    add(
                        "E107",
                        f"records/{scope}/{name}",
                        f"id {rid} also has a file in scope {prior!r} (records/{prior}/{name})",
                    )
                    continue
                t = st.ids.get(rid)
                if t is not None and self._removed_by_a_writer(Path(job.rdir) / scope / name):
                    continue  # a forget was between its tombstone and the removal: not E201
                if t is not None:
                    add(
                        "E201",
                        f"records/{scope}/{name}",
                        f"record {rid} was forgotten on {t.forgotten_at or '?'} (tombstone in "
                        f"tombstones/{scope}.jsonl) but its file is still here",
                    )
                    files.forgotten.add(rid)
                    continue
                assert r is not None  # only forgotten files are not read
                found, links, stored, md, skey = r
                for code, message in found:
                    add(code, f"records/{scope}/{name}", message)
                if links is None:
                    continue
                live[rid] = _Links(scope, *links)
                digests[rid] = stored
                if md is not None:
                    hit = st.digests.get(md)
                    if hit is not None:
                        add(
                            "E202",
                            f"records/{scope}/{name}",
                            f"its content was forgotten in scope {scope!r} (tombstone of {hit})",
                        )
                    elif skey is not None and skey in st.digests:
                        add(
                            "E203",
                            f"records/{scope}/{name}",
                            f"its source item was forgotten in scope {scope!r} "
                            f"(tombstone of {st.digests[skey]})",
                        )
        files.count = job.total  # every file is counted once, whatever was found in it
        self.report.records = files.count
        return files

    def _removed_by_a_writer(self, path: Path) -> bool:
        """Whether ``path`` is gone once the writer that holds the lock (if any) is done.

        A forget appends the tombstone, then removes the file, under the writer lock; a verify
        that read the tombstones in between sees both. It waits (a shared lock, taken and
        released at once: no write) for that writer, then looks again."""
        if not self._waited_for_writer:
            self._waited_for_writer = True
            import fcntl
            import time

            try:
                fd = os.open(self.root / ".mem" / "lock", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                fd = -1
            if fd >= 0:
                try:
                    deadline = time.monotonic() + 10.0
                    while True:
                        try:
                            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                            fcntl.flock(fd, fcntl.LOCK_UN)
                            break
                        except OSError:
                            if time.monotonic() >= deadline:
                                break
                            time.sleep(0.01)
                finally:
                    os.close(fd)
        return not os.path.lexists(path)

    # -- links ------------------------------------------------------------------------------

    def check_links(self, files: _Files, tombs: TombstoneSet) -> None:
        def known(i: str) -> bool:
            return i in files.where or tombs.find_id(i) is not None

        for rid, rec in files.live.items():
            if not (rec.derived_from or rec.supersedes or rec.superseded_by) and rec.status != "superseded":
                continue  # no link, not superseded: nothing below can be found
            path = f"records/{rec.scope}/{rid}.md"
            for d in rec.derived_from:
                if not known(d):
                    self.add("E206", path, f"derived_from names {d}, which is not in the store")
            for s in rec.supersedes:
                if not known(s):
                    self.add("E207.1", path, f"supersedes names {s}, which is not in the store")
            sb = rec.superseded_by
            if sb is not None and not known(sb):
                self.add("E207.2", path, f"superseded_by names {sb}, which is not in the store")
            if rec.status == "superseded" and sb is None:
                self.add("E208.1", path, "status is superseded but superseded_by is not set")
            elif sb is not None and rec.status != "superseded":
                self.add("E208.2", path, f"superseded_by is set but status is {rec.status}")
            if sb is not None and sb in files.live and rid not in files.live[sb].supersedes:
                self.add(
                    "W201.1", path, f"superseded_by names {sb}, whose supersedes does not name {rid}"
                )
            for s in rec.supersedes:
                old = files.live.get(s)
                if old is not None and old.superseded_by is None and old.status in ("active", "candidate"):
                    self.add(
                        "W201.2",
                        path,
                        f"supersedes {s}, which is still {old.status} (an interrupted supersession)",
                    )
                elif old is not None and old.superseded_by not in (None, rid):
                    self.add(
                        "W201.1",
                        path,
                        f"supersedes {s}, whose superseded_by names {old.superseded_by}",
                    )

    # -- audit log --------------------------------------------------------------------------

    def apply_log(self, result: _LogResult) -> dict[str, tuple[str, str | None]]:
        """Report what :func:`_check_log_files` found; return the replayed state of the records."""
        found, self.report.events, last, self.forgotten = result
        for code, path, message in found:
            self.add(code, path, message)
        return last

    def check_log(
        self, files: _Files, tombs: TombstoneSet, last: dict[str, tuple[str, str | None]]
    ) -> None:
        """The audit log agrees with the records (W301, W302, W303)."""
        digests = files.digests
        for rid, rec in files.live.items():
            state = last.get(rid)
            if state is not None and state[1] == digests.get(rid) and state[0] != "forget":
                continue  # the usual case: the last logged digest is the file's
            path = f"records/{rec.scope}/{rid}.md"
            if state is None:
                self.add("W301", path, f"record {rid} has no event in the audit log")
            elif state[0] == "forget":
                self.add(
                    "W302", path, f"the audit log says {rid} was forgotten, but the file is here"
                )
            else:
                self.add(
                    "W302",
                    path,
                    f"digest {digests.get(rid)} differs from the last logged digest "
                    f"{state[1]} ({state[0]})",
                )
        if self.full:
            # every forget the log records left its tombstone (a tombstones file emptied or
            # cut by hand would let an old export bring the record back)
            for rid, scope in sorted(self.forgotten.items()):
                if ids.is_scope(scope) and rid not in tombs.load(scope).ids:
                    self.add("E209", f"tombstones/{scope}.jsonl",
                             f"the audit log says {rid} was forgotten in scope {scope!r}, but no "
                             "tombstone for it is here")
        if files.unusable:
            return
        where = files.where
        for rid in sorted(r for r, (op, _) in last.items() if op != "forget" and r not in where):
            if tombs.find_id(rid) is not None:
                continue
            self.add(
                "W303",
                "records",
                f"record {rid} is live in the audit log (last event: {last[rid][0]}) but has no "
                "file and no tombstone",
            )

    # -- derived indexes ----------------------------------------------------------------------

    def check_indexes(self, files: _Files) -> None:
        """Derived indexes, through the index API (spec/index.md). No index: nothing to check."""
        idx_dir = self.root / ".mem" / "index"
        if not idx_dir.is_dir():
            return
        from mem.format.base.errors import MemError, StoreIOError
        from mem.format.index.derived import index_stats, staleness
        from mem.format.store.store import Store

        live = len(files.live)
        try:
            store = Store(self.root)
            stats = index_stats(store).to_dict()
        except StoreIOError:
            raise  # the file system refused (a full disk): exit 11 with the truth, not E401
        except MemError as exc:  # (neither index in particular: no sub-rule)
            self.add("E401", Path(exc.path) if exc.path else idx_dir, exc.message)
            return
        lex, vec = stats.get("lexical", {}), stats.get("vectors", {})
        for name in stats.get("garbage") or []:
            self.add("W404", idx_dir / name, "index folder that no pointer names (left by an "
                     "interrupted rebuild or compact, or one in progress)")
        corrupt = False
        for name, part, fname in (("lexical", lex, "lexical.json"), ("vector", vec, "vectors.json")):
            if part.get("corrupt"):
                corrupt = True
                sub = "E401.1" if name == "lexical" else "E401.2"
                self.add(sub, idx_dir / fname, f"the {name} index is corrupt: {part['corrupt']}")
        if not lex.get("present") and lex.get("generation") and not lex.get("corrupt"):
            self.add("W401.2", idx_dir / "lexical.json",
                     "the lexical index was built by an older mem (another schema): the next search "
                     "rebuilds it, as do `mem compact` and `mem rebuild`")
        if lex.get("present") and not lex.get("corrupt"):
            try:
                st = staleness(store, full=self.full).to_dict()
            except StoreIOError:
                raise
            except MemError as exc:
                if not corrupt:  # the same damage is reported once
                    self.add("E401.1", Path(exc.path) if exc.path else idx_dir, exc.message)
                return
            n_stale = sum(len(st.get(k) or []) for k in ("added", "changed", "removed"))
            if n_stale:
                scopes = ", ".join(st.get("scopes_changed") or []) or "?"
                self.add(
                    "W401.1",
                    idx_dir / "lexical.json",
                    f"{n_stale} record(s) added, changed or removed since the index was updated "
                    f"(scopes: {scopes})",
                )
            elif lex.get("docs") is not None and lex["docs"] != live and not lex.get("pending"):
                # (journaled writes of mem's own are applied by the next search: not a finding)
                self.add(
                    "W403.1",
                    idx_dir / "lexical.json",
                    f"the lexical index holds {lex['docs']} documents for {live} live records",
                )
        if vec.get("present") and not vec.get("corrupt"):
            if vec.get("space_matches") is False:
                self.add(
                    "W402",
                    idx_dir / "vectors.json",
                    "the vectors were built in another embedding space than the configured "
                    "embedder's",
                )
            valid = int(vec.get("vectors") or 0)  # live vectors: main rows - dead + delta
            if valid > live:
                self.add(
                    "W403.2",
                    idx_dir / "vectors.json",
                    f"the vector index holds {valid} valid vectors for {live} live records",
                )

    # -- files --------------------------------------------------------------------------------

    def check_temp_files(self) -> None:
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for f in filenames:
                if TMP_MARKER in f:
                    self.add(
                        "W501",
                        Path(dirpath) / f,
                        "temporary file left by an interrupted write (or one in progress)",
                    )


@dataclass
class _Files:
    where: dict[str, str] = field(default_factory=dict)  # id -> scope of every record file
    live: dict[str, _Links] = field(default_factory=dict)  # parsed, consistent, not forgotten
    digests: dict[str, str | None] = field(default_factory=dict)  # id -> stored digest line
    forgotten: set[str] = field(default_factory=set)
    count: int = 0
    unusable: bool = False  # records/ could not be read: no "removed outside mem" findings


class _Lite(NamedTuple):
    """The keys of a record that the fast level checks (the others are checked by --full)."""

    id: str
    scope: str
    status: str
    supersedes: tuple[str, ...]
    superseded_by: str | None
    derived_from: tuple[str, ...]
    source: dict[str, Any]
    content: str


canonical_pattern()  # compiled before any worker is forked (workers share it)


#: Lines a merge leaves in a file it could not merge (``git merge``'s conflict markers).
_CONFLICT_MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)", re.MULTILINE)


def _lite_record(text: str) -> _Lite | None:
    """The keys of a record that link records, read by the rules layer's reader
    (:func:`mem.format.rules.recordtext.scan_canonical`, the canonical layout); None: a file it
    leaves to the full reader, which the caller then calls (it accepts hand-written YAML or names
    the problem)."""
    f = scan_canonical(text)
    if f is None:
        return None
    return _Lite(f[0], f[1], f[3], f[11], f[12], f[13], f[14], f[15])


# -- the audit log (in a worker process on a large store) ------------------------------------

#: What the audit log check found: findings (code, path, message), the number of events, and
#: the replayed state of every record: id -> (last op, the digest it left; None after a forget).
#: (findings, events, the last state of each id, the scope of each id's forget event)
_LogResult = tuple[list[tuple[str, str, str]], int, dict[str, tuple[str, str | None]], dict[str, str]]
_Event = tuple[str, str, int, dict[str, Any]]  # (ts, chain, seq, event)
_Line = tuple[int, dict[str, Any] | None, str | None]  # (line number, object, error)
#: What json.loads runs on a line, without its wrappers: (object, end index).
_SCAN_JSON: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _read_lines(path: Path) -> tuple[list[_Line], bytes | None]:
    """:func:`mem.format.base.jsonl.read_jsonl`, faster when every line is exactly one JSON object
    (the usual case); any other line makes it defer to ``read_jsonl`` for the whole file, so
    the lines and messages are the same."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], None
    cut = data.rfind(b"\n")
    try:
        lines = data[: cut + 1].decode("utf-8").split("\n")
        lines.pop()
        out: list[_Line] = []
        for i, line in enumerate(lines, start=1):
            obj, end = _SCAN_JSON(line, 0)
            if end != len(line) or type(obj) is not dict:
                raise ValueError(line)
            out.append((i, obj, None))
    except (UnicodeDecodeError, StopIteration, ValueError):
        jl, tail = read_jsonl(path)
        return [(ln.lineno, ln.value, ln.error) for ln in jl], tail
    return out, (data[cut + 1 :] if cut != len(data) - 1 else None)


def _check_chain(path: Path, rel: str, full: bool, found: list[tuple[str, str, str]]) -> list[_Event]:
    """Verify one hash chain (as :func:`mem.format.model.audit.verify_chain`) in the same pass that
    collects its events for the replay."""
    lines, tail = _read_lines(path)
    out: list[_Event] = []
    chain = path.stem
    prev: str | None = None
    expect = 1
    for lineno, ev, error in lines:
        if ev is None:
            found.append(("E301", rel, f"line {lineno} is {error}"))
            prev = None
            continue
        h = ev.get("hash")
        if full and h != event_hash(ev):
            found.append(("E302", rel, f"line {lineno}: event hash does not match its content"))
        seq = ev.get("seq")
        if ev.get("prev") != prev:
            found.append(("E303.1", rel, f"line {lineno}: event does not link to the previous event's hash"))
        if seq != expect:
            found.append(("E303.2", rel, f"line {lineno}: sequence number {seq!r}, expected {expect}"))
        prev = h if isinstance(h, str) else None
        expect = (seq if isinstance(seq, int) else expect) + 1
        out.append((str(ev.get("ts", "")), chain, seq if isinstance(seq, int) else 0, ev))
    if tail is not None:
        found.append(("E304", rel, f"last line is incomplete ({len(tail)} bytes after the last newline)"))
    return out


def _check_log_files(root: str, full: bool) -> _LogResult:
    """Check every audit chain (E301-E304; W502 in log/) and replay the events by time."""
    ldir = Path(root) / "log"
    found: list[tuple[str, str, str]] = []
    chains: list[str] = []
    for entry in _scan(ldir):
        if _skip_name(entry.name):
            continue
        if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
            chains.append(entry.name)
        else:
            found.append(("W502.4", f"log/{entry.name}", "not an audit log file (log/<clone-id>.jsonl)"))
    events: list[_Event] = []
    for name in sorted(chains):
        events.extend(_check_chain(ldir / name, f"log/{name}", full, found))
    events.sort(key=itemgetter(0, 1, 2))  # by time, then chain and sequence number
    last: dict[str, tuple[str, str | None]] = {}
    forgotten: dict[str, str] = {}
    for _, _, _, ev in events:
        rid, op = ev.get("id"), ev.get("op")
        if not isinstance(rid, str) or op in ("lift-tombstone", "init"):
            continue
        after = ev.get("after")
        if op == "forget":
            last[rid] = ("forget", None)
            if isinstance(ev.get("scope"), str):
                forgotten[rid] = ev["scope"]
        elif isinstance(after, str):
            last[rid] = (str(op), after)
    return found, len(events), last, forgotten


# -- reading the record files (in worker processes on a large store) -------------------------

#: Below this many record files verify reads them in its own process: a pool costs more than it
#: saves. (``verify_store(workers=...)`` overrides the choice.)
POOL_MIN_RECORDS = 2000
_CHUNK_MAX = 4000  # record files per task of a worker
_READ_LIMIT = MAX_RECORD_BYTES + MAX_FRONTMATTER_BYTES
_FIRST_READ = 1 << 16
_O_READ = os.O_RDONLY | getattr(os, "O_BINARY", 0)
_ID_MATCH = ids.is_id
#: ASCII characters that are not letters or digits: the edge characters ``normalize_for_match``
#: strips (``[\s\W_]``), restricted to ASCII.
_ASCII_EDGE = "".join(c for c in map(chr, range(128)) if not c.isalnum())


class _Links(NamedTuple):
    """What the checks across records need of a live record."""

    scope: str
    status: str
    supersedes: tuple[str, ...]
    superseded_by: str | None
    derived_from: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _ScopeFiles:
    scope: str
    names: tuple[str, ...]  # the record files (<ID>.md), sorted
    forgotten: frozenset[str]  # ids tombstoned in the scope: their files are not read (E201)
    match: bool  # the scope has tombstone digests: compute match digests and source keys


@dataclass(frozen=True, slots=True)
class _Job:
    rdir: str
    full: bool
    scopes: tuple[_ScopeFiles, ...]

    @property
    def total(self) -> int:
        return sum(len(s.names) for s in self.scopes)


#: One record file, checked on its own: findings (code, message), its status and links when it
#: is usable (None: it is not), its stored digest and, in a scope with tombstones, its match digest and
#: source key. Compact on purpose: this is what a worker sends back, never the file's text.
_LinkFields = tuple[str, tuple[str, ...], str | None, tuple[str, ...]]  # _Links without scope
_FileResult = tuple[
    tuple[tuple[str, str], ...], _LinkFields | None, str | None, str | None, str | None
]
#: One task: (scope index, index of its first file, one result per file; None: forgotten, unread).
_TaskResult = tuple[int, int, list[_FileResult | None]]


def _match_digest(content: str) -> str:
    """:func:`mem.format.model.record.match_digest`, with a fast path for ASCII content.

    For ASCII text NFKC is the identity, casefold is lower(), ``str.split`` splits on the
    whitespace ``\\s`` matches, and the edge characters ``[\\s\\W_]`` are the non-alphanumerics;
    the result is the same digest (a property test checks it against the original).
    """
    if content.isascii():
        t = " ".join(content.lower().split()).strip(_ASCII_EDGE)
        return "sha256:" + hashlib.sha256(t.encode("ascii")).hexdigest()
    return match_digest(content)


def _read_fd(fd: int) -> bytes | None:
    """The whole file; None when it is larger than a record may be.

    One read holds every ordinary record (a regular file reads short only at its end); a
    larger file is read on to its end, or to the size limit.
    """
    data = os.read(fd, _FIRST_READ)
    if len(data) < _FIRST_READ:
        return data
    parts, n = [data], len(data)
    while n <= _READ_LIMIT:
        b = os.read(fd, 1 << 20)
        if not b:
            break
        parts.append(b)
        n += len(b)
    return None if n > _READ_LIMIT else b"".join(parts)


def _check_file(path: str, rid: str, scope: str, full: bool, match: bool) -> _FileResult:
    """Every check of one record file that needs no other file.

    The fast level scans the frontmatter with :func:`_lite_record` (canonical layout only) and
    falls back to :func:`parse_record`, which accepts hand-written YAML or names the problem;
    --full parses every file, recomputes its digest and checks its canonical form.
    """
    try:
        fd = os.open(path, _O_READ)
        try:
            raw = _read_fd(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        return (("E102", f"cannot read: {exc.strerror}"),), None, None, None, None
    if raw is None:
        return (("E102", f"record file is larger than {MAX_RECORD_BYTES} bytes"),), None, None, None, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return (("E101", f"not valid UTF-8 (byte {exc.start}, line {line})"),), None, None, None, None
    found: list[tuple[str, str]] = []
    if ("<<<<<<<" in text or ">>>>>>>" in text) and _CONFLICT_MARKER.search(text):
        m = _CONFLICT_MARKER.search(text)
        assert m is not None
        found.append(("E110", f"git conflict marker on line {text.count(chr(10), 0, m.start()) + 1}"))
    rec: Record | _Lite | None = None if full else _lite_record(text)
    if rec is None:
        try:
            rec = parse_record(text)
        except RecordParseError as exc:
            return (*found, _classify(text, exc)), None, None, None, None
    if rec.id != rid:
        found.append(("E105", f"file is named {rid} but its frontmatter id is {rec.id}"))
    if rec.scope != scope:
        found.append(("E106", f"file is in records/{scope}/ but its frontmatter scope is {rec.scope!r}"))
    if found and found[-1][0] in ("E105", "E106"):
        return tuple(found), None, None, None, None
    stored = _stored_digest(text)
    md = skey = None
    if match:
        md = _match_digest(rec.content)
        skey = source_key(rec.source)
    if full and not found:  # (conflict markers: the digest and the form are that problem's)
        assert isinstance(rec, Record)
        actual = content_digest(rec.content)
        if stored != actual:
            found.append(("E108", f"stored digest {stored or '(none)'} but the content's digest is {actual}"))
        else:
            canon = dump_record(rec)
            if canon != text:
                found.append(("W101", "not in canonical form; " + _first_difference(canon, text)))
    return tuple(found), (rec.status, rec.supersedes, rec.superseded_by, rec.derived_from), stored, md, skey


def _tasks(job: _Job, chunk: int) -> list[tuple[int, int, int]]:
    """(scope index, start, stop): runs of at most ``chunk`` files of one scope, in file order."""
    return [
        (si, start, min(start + chunk, len(sf.names)))
        for si, sf in enumerate(job.scopes)
        for start in range(0, len(sf.names), chunk)
    ]


def _run_task(job: _Job, task: tuple[int, int, int]) -> _TaskResult:
    si, start, stop = task
    sf = job.scopes[si]
    sdir = os.path.join(job.rdir, sf.scope, "")
    full, match, forgotten, scope = job.full, sf.match, sf.forgotten, sf.scope
    return si, start, [
        None if n[:-3] in forgotten else _check_file(sdir + n, n[:-3], scope, full, match)
        for n in sf.names[start:stop]
    ]


def _pool_size(total: int, workers: int | None) -> int:
    """How many processes read ``total`` record files; 1: this one, no pool (see
    :func:`mem.format.base.workers.pool_size`: one per CPU from :data:`POOL_MIN_RECORDS` files on)."""
    return pool_size(total, workers, POOL_MIN_RECORDS)


@contextlib.contextmanager
def _run_checks(
    job: _Job | None, root: Path, full: bool, workers: int | None
) -> Iterator[tuple[Callable[[], _LogResult], Iterator[_TaskResult]]]:
    """The audit log check (a call that returns its result) and the per-file results of
    ``job``, task by task in file order.

    On a large store (or when ``workers`` asks for it) a pool of forked worker processes starts
    at once (:mod:`mem.format.base.workers`): one checks the audit log while the others read record
    files, then it reads record files too; this process only merges. Otherwise everything runs
    lazily in this process. A worker that dies makes the check fail (BrokenProcessPool), never
    hang.
    """
    if job is None:
        yield (lambda: _check_log_files(str(root), full)), iter(())
        return
    total = job.total
    with worker_pool(job, _pool_size(total, workers)) as pool:
        log = pool.call(_check_log_files, str(root), full)  # queued first: a worker starts on it
        chunk = _CHUNK_MAX if pool.size < 2 else min(_CHUNK_MAX, max(1, -(-total // (pool.size * 8))))
        yield log, pool.map(_run_task, _tasks(job, chunk))

def _scan(d: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(d) as it:
            return sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _skip_name(name: str) -> bool:
    """Names every folder may hold: .gitkeep, and temp files (reported once, as W501)."""
    return name == ".gitkeep" or TMP_MARKER in name


def _stored_digest(text: str) -> str | None:
    """The value of the frontmatter's ``digest:`` line (the body is not searched)."""
    end = text.find("\n---\n", 3)
    fm = text[: end + 1] if end != -1 else text
    i = fm.find("\ndigest: ")
    if i == -1:
        return None
    j = fm.find("\n", i + 1)
    return fm[i + 9 : j if j != -1 else len(fm)].strip().strip('"') or None


def _classify(text: str, exc: RecordParseError) -> tuple[str, str]:
    """Tell an unparseable record (E102), an empty body (E104) and an invalid one (E103) apart."""
    msg = exc.message + (f" (line {exc.line})" if exc.line is not None else "")
    try:
        fm, body, _ = split_record_text(text)
    except RecordParseError:
        return "E102", msg
    if not canonical_body(body):
        return "E104", "the record has no content after its frontmatter"
    if subrule_of("E102", msg) is not None:  # anchors, aliases, a repeated key: YAML reads them
        return "E102", msg
    import yaml

    try:
        data = yaml.safe_load(fm)
    except (yaml.YAMLError, RecursionError):
        return "E102", msg
    except (ValueError, OverflowError):  # a value YAML cannot build (February 30): the value's rule
        return "E103", msg
    if data is not None and not isinstance(data, dict):
        return "E102", msg
    return "E103", msg


def _first_difference(canonical: str, text: str) -> str:
    a, b = canonical.split("\n"), text.split("\n")
    for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            return f"line {i} is {y[:60]!r}, canonical form is {x[:60]!r}"
    if len(a) != len(b):
        return f"the file has {len(b)} lines, canonical form has {len(a)}"
    return "the file differs from its canonical form"


def verify_store(
    root: str | Path, *, full: bool = False, indexes: bool = True, workers: int | None = None
) -> VerifyReport:
    """Check the store at ``root``; never modifies it. See the module docstring for the levels.

    ``workers``: processes that read the record files; None chooses (one per CPU on a store of
    at least :data:`POOL_MIN_RECORDS` records, else 1, in this process). The report is the same
    whatever the number.
    """
    return _Verifier(Path(root), full, indexes, workers).run()


def rules() -> Iterable[Rule]:
    return RULES.values()


__all__ = ["RULES", "Finding", "Rule", "VerifyReport", "rules", "verify_store"]
