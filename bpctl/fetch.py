"""What `bpctl import` reads: a file, standard input or a URL (fetched here, never by the service,
within a size and a time limit), and the stack files a Portainer catalog's templates name, from a
local checkout (`--files-from DIR`) or from their repositories' raw files."""

import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from bpctl.errors import Misused, Unreachable

MAX_BYTES = 16 * 1024 * 1024  # what the service takes in one import
SECONDS = 30  # for one URL, from the request to the last byte
GITHUB = re.compile(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?")


def read(source):
    """The text of `source`: "-" for standard input, an http(s) URL, or a path."""
    if source == "-":
        return sys.stdin.read()
    if is_url(source):
        return fetch(source)
    try:
        data = Path(source).read_bytes()
    except OSError as exc:
        raise Misused(f"cannot read {source}: {exc.strerror}.") from None
    return text(data, source)


def is_url(source):
    """Whether `source` names an http(s) URL rather than a path."""
    return source.startswith(("http://", "https://"))


def fetch(url):
    """The text at `url`; Unreachable when it cannot be had within the limits."""
    deadline = time.monotonic() + SECONDS
    try:
        with httpx.stream("GET", url, timeout=SECONDS, follow_redirects=True) as response:
            if response.status_code != 200:
                raise Unreachable(f"could not fetch {url}: {response.status_code} {response.reason_phrase}.")
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > MAX_BYTES:
                    raise Unreachable(f"could not fetch {url}: larger than {MAX_BYTES // 1024**2} MiB.")
                if time.monotonic() > deadline:
                    raise Unreachable(f"could not fetch {url}: it took longer than {SECONDS} s.")
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        failure = Unreachable(f"could not fetch {url}: {exc}.")
        failure.offline = True  # no connection at all: the network, or the host, is not there
        raise failure from None
    except httpx.HTTPError as exc:
        raise Unreachable(f"could not fetch {url}: {exc}.") from None
    return text(bytes(data), url)


def text(data, where):
    """`data` as UTF-8 text; Misused (exit 2) naming `where` when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Misused(f"{where} is not UTF-8 text.") from None


def stack_files(catalog, files_from=None, raw_base=None, warn=print):
    """{repository.stackfile: text} for the stack templates (types 2 and 3) of a Portainer catalog:
    read under `files_from`, else fetched from `raw_base` + path, else from the raw files of the
    template's GitHub repository. Those that cannot be had are left out, said in one warning that
    counts them (the service then reports their templates as skipped); when the first fetch finds
    no connection at all, the rest are not tried."""
    wanted = {}
    for template in catalog.get("templates", []) if isinstance(catalog, dict) else []:
        repository = template.get("repository") if isinstance(template, dict) else None
        if template.get("type") in (2, 3) and isinstance(repository, dict):
            path, url = repository.get("stackfile"), repository.get("url")
            if isinstance(path, str) and path and isinstance(url, str):
                wanted.setdefault(path, url)
    if files_from is not None:
        return {path: text for path in wanted if (text := _local(Path(files_from), path, warn)) is not None}
    sources = {path: _raw_url(url, path, raw_base) for path, url in wanted.items()}
    failures = {path: f"{wanted[path]} is not on GitHub" for path, source in sources.items() if source is None}
    fetched = _fetched_all([(path, source) for path, source in sources.items() if source is not None], failures)
    if failures:
        reasons = sorted(set(failures.values()))
        others = f" (and {len(reasons) - 1} other reasons)" if len(reasons) > 1 else ""
        warn(
            f"not fetched: {len(failures)} stack file{'s' if len(failures) > 1 else ''} of {len(wanted)}; "
            f"{reasons[0]}{others}; give --files-from DIR or --raw-base URL"
        )
    return fetched


def _fetched_all(sources, failures):
    """{path: text} of the (path, URL) `sources` that could be fetched, eight at a time; why the
    others could not goes into `failures`. The first is fetched alone: when it finds no connection
    at all, the rest would wait and fail alike, and are not tried."""
    if not sources:
        return {}
    first = _fetched(sources[0][1])
    if getattr(first[1], "offline", False):
        failures.update(dict.fromkeys((path for path, _ in sources), f"no connection ({first[1].message})"))
        return {}
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = [first, *pool.map(lambda one: _fetched(one[1]), sources[1:])]
    failures.update(
        {path: failure.message for (path, _), (_, failure) in zip(sources, answers, strict=True) if failure is not None}
    )
    return {path: got for (path, _), (got, _) in zip(sources, answers, strict=True) if got is not None}


def _local(root, path, warn):
    file = (root / path).resolve()
    if not file.is_relative_to(root.resolve()):
        warn(f"not read: {path} lies outside {root}")
        return None
    try:
        return text(file.read_bytes(), file)
    except (OSError, Misused) as exc:
        warn(f"not read: {file}: {getattr(exc, 'strerror', None) or exc}")
        return None


def _raw_url(repository, path, raw_base):
    if raw_base:
        return raw_base.rstrip("/") + "/" + path.lstrip("/")
    match = GITHUB.fullmatch(repository)
    if match is None:
        return None
    return f"https://raw.githubusercontent.com/{match[1]}/{match[2]}/HEAD/{path.lstrip('/')}"


def _fetched(source):
    """(text, None), or (None, the failure)."""
    try:
        return fetch(source), None
    except (Unreachable, Misused) as exc:
        return None, exc
