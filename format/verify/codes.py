"""The codes of ``mem verify``: each rule of the format a store can break, its severity, level,
meaning, fix and spec section (:data:`RULES`), and the sub-rules of a code that covers several
(:data:`SUBRULES`). Documented in ``spec/validation-codes.md``; part of
:mod:`mem.format.verify.checks`, which re-exports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Values accepted in ``[verify] severity`` (the setting's rule: format/rules/settings.py).
from mem.format.rules.settings import OVERRIDE_LEVELS as OVERRIDE_LEVELS

SEVERITIES = ("error", "warning")


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
    Where a rule is applied decides its sub-rule: a check of ``mem verify`` names it, and so do
    the rules applied elsewhere, for verify to report (the declaration's and the
    configuration's ``Refusal.rule``, ``config.config_findings``, the record reader's
    ``MemError.rule``: E002, E003, E005, E007, E102, E103). The fixtures of
    ``spec/fixtures/_rules/`` pin every one.
    """

    code: str
    title: str
    section: str

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
         "away; an [embedder], [search], [mcp] or [audit] value of the wrong kind or range (such "
         "as [embedder] threads outside 1-256). The commands that read it refuse it too, in the "
         "same words (exit 10 for an [embedder] value, 4 for a [search] or [mcp] one, 5 for the others).",
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
    Rule("W405", "warning", "vectors of another text recipe",
         "The vector index was made from another recipe of each record's embedded text than this "
         "mem's (an older mem embedded a turn written \"Name: text\" with its speaker's name; "
         "spec/index.md, \"The embedded text\"). Its vectors are of the same model and space and "
         "stay in use; a record with an own-speaker prefix is found less well until re-embedded.",
         "run `mem rebuild --vectors` (or `mem compact`, which re-embeds only the records whose "
         "embedded text changed)",
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

_SUBRULES: tuple[SubRule, ...] = (
    # -- the declaration and the configuration -------------------------------------------------
    SubRule("E002.1", "declaration not a UTF-8 JSON object", "spec/format.md §2"),
    SubRule("E002.2", "version not an integer", "spec/format.md §2"),
    SubRule("E002.3", "extensions not a list of named objects", "spec/format.md §2"),
    SubRule("E003.1", "another format", "spec/format.md §2"),
    SubRule("E003.2", "unsupported format version", "spec/format.md §2"),
    SubRule("E005.1", "configuration not UTF-8 TOML", "spec/format.md §18"),
    SubRule("E005.2", "configuration section not a table", "spec/format.md §18"),
    SubRule("E007.1", "[permissions] mode refused", "spec/format.md §18"),
    SubRule("E007.2", "[embedder] value out of its kind or range", "spec/format.md §18"),
    SubRule("E007.3", "[search] value out of its kind or range", "spec/format.md §18"),
    SubRule("E007.4", "[mcp] value out of its kind or range", "spec/format.md §18"),
    SubRule("E007.5", "[audit] value out of its kind or range", "spec/format.md §18"),
    # -- a record file: the frontmatter block (named by the reader's error) ---------------------
    SubRule("E102.1", "frontmatter not delimited by '---' lines", "spec/format.md §5"),
    SubRule("E102.2", "frontmatter not a YAML mapping", "spec/format.md §5"),
    SubRule("E102.3", "record or frontmatter too large", "spec/format.md §5"),
    SubRule("E102.4", "YAML anchor or alias", "spec/format.md §5"),
    SubRule("E102.5", "frontmatter key repeated", "spec/format.md §5"),
    SubRule("E102.6", "frontmatter nests too deeply", "spec/format.md §6.4"),
    # -- a record's values (named by the reader's error) ------------------------------------------
    SubRule("E103.1", "required key missing", "spec/format.md §5"),
    SubRule("E103.2", "id not a record id", "spec/format.md §4.1"),
    SubRule("E103.3", "scope not valid", "spec/format.md §4.2"),
    SubRule("E103.4", "kind not valid", "spec/format.md §4.3"),
    SubRule("E103.5", "status not one of the four states", "spec/format.md §5"),
    SubRule("E103.6", "confidence not a number from 0 to 1", "spec/format.md §5"),
    SubRule("E103.7", "time not valid", "spec/format.md §6.2"),
    SubRule("E103.8", "valid_to earlier than valid_from", "spec/format.md §5"),
    SubRule("E103.9", "tag not valid", "spec/format.md §4.4"),
    SubRule("E103.10", "link not a valid id, or to the record itself", "spec/format.md §5"),
    SubRule("E103.11", "source not a mapping of named keys", "spec/format.md §5.3"),
    SubRule("E103.12", "extension key not valid", "spec/format.md §5.4"),
    SubRule("E103.13", "digest not a string", "spec/format.md §5"),
    SubRule("E103.14", "content larger than 4 MiB", "spec/format.md §5"),
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
