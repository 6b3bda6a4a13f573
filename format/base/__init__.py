"""Primitives with no format knowledge: errors and exit codes, atomic file writes, the writer lock, JSON/TOML helpers, worker pools. Standard library only."""
