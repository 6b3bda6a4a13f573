"""One module per `mem` command, each exposing ``register(app)``; the infrastructure (app, options, rendering, pager, the lean search path) stays in `mem.cli`."""
