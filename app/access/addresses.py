"""Where the service may connect on a user's word: a source's repository (`SOURCE_HOSTS`,
`SOURCE_PRIVATE`) and an environment's engine or repository (`ENVIRONMENT_HOSTS`,
`ENVIRONMENT_PRIVATE`). A URL names a host (and port) the operator's list names, at an address
that is public (never loopback, private, link-local, multicast or reserved, nor one of this
machine's own) unless the `*_PRIVATE` switch is on. The address is checked when the URL is
written and again at every connection, and the connection goes to the address checked, never to
what a second lookup might give (no DNS rebinding)."""

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

PORTS = {"https": 443, "ssh": 22}
NOUNS = {"SOURCE": "sources", "ENVIRONMENT": "environments"}  # the settings' prefix -> who names hosts


@dataclass(frozen=True)
class Remote:
    """A URL as checked: its scheme, host and port, and the address to connect to."""

    url: str
    scheme: str
    host: str
    port: int
    address: str


def parsed(url, ports=PORTS):
    """(scheme, host, port) of a repository's URL (a scheme of `ports`); ValueError saying what is
    wrong with it."""
    if not url.isascii() or any(char.isspace() or ord(char) < 32 for char in url):
        raise ValueError("A URL of printable ASCII characters, without spaces.")
    parts = urlsplit(url)
    if parts.scheme not in ports:
        raise ValueError("Only https:// and ssh:// URLs (for scp-like `git@host:path`, write ssh://git@host/path).")
    host, port = host_and_port(parts, ports)
    if not host:
        raise ValueError("The URL names no host.")
    if parts.password is not None or (parts.scheme == "https" and parts.username is not None):
        raise ValueError("Credentials go in `token` or `deployKey`, never in the URL.")
    if parts.query or parts.fragment or not parts.path.strip("/"):
        raise ValueError("A repository's URL: a path, without a query or a fragment.")
    return parts.scheme, host.lower(), port


def host_and_port(parts, ports):
    """(host, port) of a split URL whose scheme `ports` gives a default port for; ValueError for a
    port that is no number from 1 to 65535."""
    try:
        return parts.hostname, parts.port or ports[parts.scheme]
    except ValueError:
        raise ValueError("The port is not a number from 1 to 65535.") from None


def checked(url, config, kind="SOURCE", known_hosts=None):
    """The `Remote` of a repository's `url` under the operator's `kind` settings (`SOURCE_*` or
    `ENVIRONMENT_*`); ValueError saying why it is refused. An ssh URL needs host keys: `known_hosts`,
    else `SOURCE_KNOWN_HOSTS`. Nothing connects to the host: it is only looked up."""
    scheme, host, port = parsed(url)
    if scheme == "ssh" and not (known_hosts or config["SOURCE_KNOWN_HOSTS"]):
        raise ValueError(f"ssh:// {NOUNS[kind]} need the hosts' keys the operator trusts (SOURCE_KNOWN_HOSTS).")
    return reached(url, (scheme, host, port), PORTS[scheme], config, kind)


def reached(url, place, default, config, kind):
    """The `Remote` of `url` at `place` (scheme, host, port; `default`: the scheme's own port)
    where the `kind` settings allow it; ValueError saying why not."""
    scheme, host, port = place
    hosts = config[f"{kind}_HOSTS"]
    if not _allowed(host, port, default, hosts):
        allowed = ", ".join(hosts) or f"none: {NOUNS[kind]} are off until {kind}_HOSTS names hosts"
        raise ValueError(f"{host} is not a host {NOUNS[kind]} may name ({kind}_HOSTS: {allowed}).")
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise ValueError(f"{host} does not resolve.") from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    if not config[f"{kind}_PRIVATE"]:
        for address in addresses:
            if why := _not_public(address):
                raise ValueError(f"{host} resolves to {why} address; {NOUNS[kind]} reach public ones ({kind}_PRIVATE).")
    return Remote(url, scheme, host, port, addresses[0])


def _allowed(host, port, default, hosts):
    """Whether `host` at `port` is one of `hosts`, each a name or `*.domain` (any name below it),
    with `:port` where it is not the scheme's `default` one (a name alone allows that port only:
    any other port of an allowed host may be another service's listener)."""
    for one in hosts:
        name, _, allowed = one.rpartition(":") if one.rpartition(":")[2].isdigit() else (one, "", "")
        if (int(allowed) if allowed else default) != port:
            continue
        if host == name or (name.startswith("*.") and host.endswith(name[1:])):
            return True
    return False


def _not_public(text):
    """Why `text` is not a public address ("a loopback"...), or None."""
    address = ipaddress.ip_address(text.split("%")[0])
    address = getattr(address, "ipv4_mapped", None) or address
    for attribute, why in (
        ("is_loopback", "a loopback"),
        ("is_link_local", "a link-local"),
        ("is_private", "a private"),
        ("is_multicast", "a multicast"),
        ("is_reserved", "a reserved"),
        ("is_unspecified", "an unspecified"),
    ):
        if getattr(address, attribute):
            return why
    return "this machine's own" if _own(address) else None


def _own(address):
    """Whether `address` is one of this machine's: only a local address can be bound to."""
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((str(address), 0))
        except OSError:
            return False
    return True
