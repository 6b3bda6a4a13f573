"""What the lexical index keeps of a record: its tantivy schema, the fields of a record
(:class:`DocFields`, read by the rules layer's reader from a record file: :func:`fast_fields`) and
the tantivy document made of them. Part of :mod:`mem.format.index.lexical`, which re-exports it."""

from __future__ import annotations

import datetime as _dt
import hashlib
from typing import TYPE_CHECKING, Any, NamedTuple

from mem.format.model.record import Record
from mem.format.rules.embedtext import embedding_text, source_speaker
from mem.format.rules.lexicon import CONTENT_TOKENIZER, SCHEMA_VERSION, nfc
from mem.format.rules.recordtext import canonical_body, scan_canonical
from mem.format.rules.timeutil import epoch_ms

if TYPE_CHECKING:

    pass


def _ms(t: _dt.datetime | None) -> int:
    return -1 if t is None else epoch_ms(t)


def build_schema() -> Any:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("key", stored=False, tokenizer_name="raw")  # scope/id: unique per doc
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    sb.add_text_field("scope", stored=True, tokenizer_name="raw")
    sb.add_text_field("kind", stored=False, tokenizer_name="raw")
    sb.add_text_field("status", stored=False, tokenizer_name="raw")
    sb.add_text_field("tags", stored=False, tokenizer_name="raw")
    sb.add_text_field("digest", stored=True, tokenizer_name="raw")
    sb.add_text_field("content", stored=False, tokenizer_name=CONTENT_TOKENIZER, index_option="position")
    sb.add_integer_field("recorded_at", stored=False, indexed=True, fast=True)
    sb.add_integer_field("valid_from", stored=False, indexed=True, fast=True)
    sb.add_integer_field("valid_to", stored=False, indexed=True, fast=True)
    sb.add_float_field("confidence", stored=False, fast=True)
    return sb.build()


def older_schema(m: dict[str, Any]) -> bool:
    """Whether the lexical manifest ``m`` names a generation of an older schema than this mem's:
    derived data this mem cannot use as it is, rebuilt on the next refresh (``build_if_absent``)
    instead of failing every search until ``mem rebuild``. A newer schema is an error (a newer mem
    wrote it: never replaced behind its back)."""
    got = m.get("schema")
    return isinstance(got, int) and not isinstance(got, bool) and got < SCHEMA_VERSION


class DocFields(NamedTuple):
    """What the indexes keep of a record (a tuple: cheap to build, and to send from a worker)."""

    id: str
    scope: str
    kind: str
    status: str
    tags: tuple[str, ...]
    digest: str
    content: str
    recorded_ms: int
    valid_from_ms: int
    valid_to_ms: int
    confidence: float
    speaker: str  # who said it, as its source names it (rules/embedtext.py); "": no one

    @classmethod
    def from_record(cls, rec: Record) -> DocFields:
        return cls(rec.id, rec.scope, rec.kind, rec.status, tuple(rec.tags), rec.digest, rec.content,
                   _ms(rec.recorded_at), _ms(rec.valid_from), _ms(rec.valid_to), float(rec.confidence),
                   source_speaker(rec.source) or "")

    @property
    def embedding_text(self) -> str:
        """The text its vector is made from (:func:`mem.format.rules.embedtext.embedding_text`)."""
        return embedding_text(self.content, self.kind, self.speaker or None)


def fast_fields(raw: bytes) -> DocFields | None:
    """The index fields of a record file in the canonical layout, read by the rules layer's
    reader (:func:`mem.format.rules.recordtext.scan_canonical`), or None: a file it leaves to the
    full reader (hand-written YAML, extension keys, anything it might read differently)."""
    try:
        f = scan_canonical(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    if f is None:
        return None
    content = f[15]
    digest = "sha256:" + hashlib.sha256(canonical_body(content).encode("utf-8")).hexdigest()  # Record.digest
    return DocFields(f[0], f[1], f[2], f[3], f[5], digest, content, epoch_ms(f[8]), _ms(f[6]), _ms(f[7]), f[4],
                     source_speaker(f[14]) or "")


def make_doc(rec: DocFields) -> Any:
    import tantivy

    # from_dict: the same document as Document(**fields), in half the time
    return tantivy.Document.from_dict({
        "key": f"{rec.scope}/{rec.id}",
        "id": rec.id,
        "scope": rec.scope,
        "kind": rec.kind,
        "status": rec.status,
        "tags": list(rec.tags),
        "digest": rec.digest,
        "content": nfc(rec.content),  # composed and decomposed accents index as one term
        "recorded_at": rec.recorded_ms,
        "valid_from": rec.valid_from_ms,
        "valid_to": rec.valid_to_ms,
        "confidence": rec.confidence,
    })
