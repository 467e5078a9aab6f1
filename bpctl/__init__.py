"""`bpctl`: the service's command-line client, for scripts and CI. It speaks the HTTP API like any
other client (nothing a script could not do with curl) and writes only what was asked for to
standard output, so that `bpctl render web | docker compose -f - up` works."""
