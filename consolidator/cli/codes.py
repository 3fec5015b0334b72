"""Exit codes: 0 done, nothing to do, or a gate closed; 1 a root failed (or an ``apply``
whose every chosen action was refused); 2 usage or config error; 75 a root's lock was held
(``run --force``, ``undo``, ``apply``)."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LOCKED = 0, 1, 2, 75
