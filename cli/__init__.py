"""The ``mem`` command line: a thin typer shell over :mod:`mem.format`, one module per command."""
