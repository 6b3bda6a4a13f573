"""The record model: records and their canonical bytes, field merge, tombstones, the hash-chained audit log."""
