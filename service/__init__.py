"""symguard's edges: the CLI, the HTTP service, workers, cache and client. Imports ``solver``."""
