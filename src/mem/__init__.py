"""mem: a portable, git-friendly memory store for personal AI agents.

The core library lives in :mod:`mem.format` (typed, no CLI dependencies);
the command-line interface lives in :mod:`mem.cli`.
"""

__version__ = "0.1.0"
