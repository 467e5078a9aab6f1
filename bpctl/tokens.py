"""The tokens `bpctl login` keeps, one per service URL, in `tokens.json` of the user's configuration
folder ($XDG_CONFIG_HOME/bpctl, else ~/.config/bpctl): a folder only the user may enter (0700) and
a file only the user may read (0600). A file that others may read is not used, as ssh does."""

import json
import os
from pathlib import Path

import click

from bpctl.errors import Misused


def path():
    return Path(click.get_app_dir("bpctl")) / "tokens.json"


def load():
    """{url: {"token", "expiresAt", "username"}}; {} when nothing is stored."""
    file = path()
    try:
        mode = file.stat().st_mode
    except FileNotFoundError:
        return {}
    if mode & 0o077:
        raise Misused(f"{file} may be read by others, so it is not used: `chmod 600 {file}`, then sign in again.")
    return json.loads(file.read_text())


def save(url, entry):
    _write({**load(), url: entry})


def forget(url):
    """The entry of `url` removed; whether there was one."""
    stored = load()
    found = stored.pop(url, None)
    if found is not None:
        _write(stored)
    return found


def _write(stored):
    file = path()
    file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = file.with_suffix(".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # also when a partial file was left behind with another mode
    with os.fdopen(descriptor, "w") as out:
        json.dump(stored, out, indent=2)
    os.replace(partial, file)
