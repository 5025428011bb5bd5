"""`xcli storage`: attach, create, detach and delete data and checkpoint storage (plans)."""
