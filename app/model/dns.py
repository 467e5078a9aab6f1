"""The names Kubernetes, Compose and DNS take, in one place: RFC 1123's label (a namespace, an
instance, a team, a container, a pod's hostname), RFC 1035's (a Service), Kubernetes' object name
(a DNS subdomain: labels of any length, 253 characters in all), a host a route answers on (labels
of at most 63, `*.` first at most) and a port's name (an IANA service name, as DNS SRV records
name services). The grammars are k8s.io/apimachinery's, written so that Python's and ECMA's
regular expressions read them alike: the OpenAPI document publishes the very patterns the server
checks."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Grammar:
    """A name's grammar: what such a name is called, what it holds, its most characters (None: no
    bound), its pattern."""

    called: str
    holds: str
    most: int | None
    regex: re.Pattern

    def problem(self, value):
        """Why the string `value` is no such name, or None."""
        if self.most is not None and len(value) > self.most:
            return f"{value[:80]!r} is longer than {self.called} may be ({self.most} characters)"
        if not self.regex.fullmatch(value):
            return f"{value[:80]!r} is not {self.called} ({self.holds})"
        return None


_LABEL = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
_ANY_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_ENDS = "starting and ending with a letter or digit"

LABEL = Grammar("a DNS label", f"lowercase letters, digits and '-', {_ENDS}", 63, re.compile(_LABEL))
DNS1035_LABEL = Grammar(
    "a DNS-1035 label",
    "lowercase letters, digits and '-', starting with a letter, ending with a letter or digit",
    63,
    re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?"),
)
SUBDOMAIN = Grammar(
    "a DNS subdomain",
    f"lowercase letters, digits, '-' and '.', {_ENDS}",
    253,
    re.compile(rf"(?=.{{1,253}}$){_ANY_LABEL}(\.{_ANY_LABEL})*"),
)
HOST = Grammar(
    "a host name",
    f"labels of lowercase letters, digits and '-', {_ENDS}, joined by '.'; '*.' first at most",
    253,
    re.compile(rf"(?=.{{1,253}}$)(\*\.)?{_LABEL}(\.{_LABEL})*"),
)
PORT_NAME = Grammar(  # IsValidPortName
    "a port name",
    f"lowercase letters, digits and '-', a letter among them, no '--', {_ENDS}",
    15,
    re.compile(r"(?=[^a-z]*[a-z])(?!.*--)[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?"),
)
