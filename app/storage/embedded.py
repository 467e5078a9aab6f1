"""The embedded MongoDB-wire server (SecantusDB), run as a child process of whoever needs it.

gunicorn's master starts it once (gunicorn.conf.py) and hands its URI to the workers through
MONGO_URI; the development server and the CLI start it from create_app. It runs standalone,
because in replica-set mode its insert rate collapses as data grows (docs/performance.md, "The
embedded database, measured").
A URI file in the data directory lets a second process (the CLI next to a running service) use
the server that already holds the files instead of starting another on them; it is believed
only when the server at that address is the one serving this directory, so that two services
never share one database, whatever their directories' names and however a port was reused.
Everything of a data directory (the files, the URI, the server's log) stays inside it.
"""

import atexit
import contextlib
import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import time

log = logging.getLogger(__name__)

START_TIMEOUT = 60.0
_server = None  # (process, uri, pid of the process that started it)


def _uri_file(data_dir):
    return os.path.join(data_dir, "embedded-mongo.uri")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ask(uri, command, timeout_ms=300):
    """The answer of the server at `uri` to an admin `command`, or None when it gives none."""
    from pymongo import MongoClient
    from pymongo.errors import PyMongoError

    client = MongoClient(uri, serverSelectionTimeoutMS=timeout_ms, connectTimeoutMS=timeout_ms)
    try:
        return client.admin.command(command)
    except PyMongoError:
        return None
    finally:
        client.close()


def _serves(uri, data_dir):
    """Whether the server at `uri` is one serving `data_dir` (its process names the directory)."""
    status = _ask(uri, "serverStatus") or {}
    try:
        with open(f"/proc/{int(status['pid'])}/cmdline", "rb") as fh:
            return f"\0--storage-path\0{os.path.abspath(data_dir)}\0".encode() in fh.read()
    except (OSError, KeyError, TypeError, ValueError):
        return False


def _die_with_parent():
    """Linux: the server gets SIGTERM if its parent dies without stopping it (kill -9)."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def launch(data_dir, port=0, attempts=3):
    """A new server process on `data_dir` (port 0: any free one), returned with its URI once it
    answers as the server of `data_dir`: another server on that port is never taken for it.
    A free port is only free when it is chosen; where another process took it meanwhile, the
    server exits at once and starts again on another (a port given is tried once)."""
    data_dir = os.path.abspath(data_dir)
    os.makedirs(data_dir, exist_ok=True)
    log_path = os.path.join(data_dir, "embedded-mongo.log")
    for _ in range(1 if port else attempts):
        chosen = port or free_port()
        uri = f"mongodb://127.0.0.1:{chosen}/?directConnection=true"
        process = _spawn(data_dir, chosen, log_path)
        if _started(process, uri, data_dir):
            return process, uri
    raise RuntimeError(f"the embedded database did not start; see {log_path}")


def _started(process, uri, data_dir):
    """Whether `process` came to serve `data_dir` at `uri` within START_TIMEOUT; killed if not."""
    deadline = time.monotonic() + START_TIMEOUT
    while not _serves(uri, data_dir):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            return False
        time.sleep(0.1)
    return True


def _spawn(data_dir, port, log_path):
    """The server's process on `data_dir` at `port`, its output appended to `log_path`."""
    with open(log_path, "ab") as log_file:
        return subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from secantus.cli import main; sys.exit(main())",
                "--standalone",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--storage-path",
                data_dir,
                "--log-level",
                "WARNING",
            ],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )


def start(data_dir):
    """The URI of a running embedded server on `data_dir`, started unless one already serves it."""
    global _server
    if _server and _server[0].poll() is None and _serves(_server[1], data_dir):
        return _server[1]
    uri_file = _uri_file(data_dir)
    if os.path.exists(uri_file):
        with open(uri_file) as fh:
            uri = fh.read().strip()
        if _serves(uri, data_dir):
            return uri
    process, uri = launch(data_dir)
    _server = (process, uri, os.getpid())
    with open(uri_file, "w") as fh:
        fh.write(uri)
    atexit.register(stop)
    log.info("embedded database serving %s at %s", data_dir, uri)
    return uri


def stop():
    """Stop the server this process started (never from a forked worker), letting it flush."""
    global _server
    if not _server or _server[2] != os.getpid():
        return
    process, _, _ = _server
    _server = None
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
