"""A Traefik router's `rule` read with its grammar (matchers such as Host(`a`) joined by `&&`,
`||` and parentheses), as the alternatives it matches: each a set of hosts and of paths. Only
what a host and a path prefix can hold is read; any other matcher (`HostRegexp`, `HostSNI`,
`ClientIP`, `Header`, `Query`...) or a negation routes traffic no hold can keep to one tenant,
and is refused by name."""

import re

HELD = ("Host", "Path", "PathPrefix")
MOST_ALTERNATIVES = 64  # a rule's `||` branches after expansion: past that it is refused
MOST_PARENTHESES = 64  # which bounds how deep the reading recurses
TOKEN = re.compile(r"\s*(?:(&&|\|\||[()!,])|([A-Za-z]+)|(`[^`]*`|\"[^\"]*\"|'[^']*'))")


class Unholdable(ValueError):
    """A rule that names something no hold can keep (a matcher other than HELD, a negation, or a
    rule that does not read as Traefik's grammar)."""


def alternatives(rule):
    """[(hosts, paths)] of `rule`: each branch of its `||`s, the hosts and paths it requires
    (a branch with no Host matches any host, one with no path any path)."""
    tokens = _tokens(rule)
    found, at = _either(tokens, 0)
    if at != len(tokens):
        raise Unholdable("does not read as a Traefik rule")
    return found


def _tokens(rule):
    tokens, at = [], 0
    while at < len(rule.rstrip()):
        match = TOKEN.match(rule, at)
        if match is None:
            raise Unholdable("does not read as a Traefik rule")
        tokens.append(match[1] or match[2] or ("text", match[3][1:-1]))
        at = match.end()
    if tokens.count("(") > MOST_PARENTHESES:
        raise Unholdable(f"has more than {MOST_PARENTHESES} parentheses")
    return tokens


def _either(tokens, at):
    branches, at = _both(tokens, at)
    while at < len(tokens) and tokens[at] == "||":
        more, at = _both(tokens, at + 1)
        branches += more
        if len(branches) > MOST_ALTERNATIVES:
            raise Unholdable(f"has more than {MOST_ALTERNATIVES} alternatives")
    return branches, at


def _both(tokens, at):
    branches, at = _one(tokens, at)
    while at < len(tokens) and tokens[at] == "&&":
        more, at = _one(tokens, at + 1)
        branches = [
            (hosts | other_hosts, paths | other_paths) for hosts, paths in branches for other_hosts, other_paths in more
        ]
        if len(branches) > MOST_ALTERNATIVES:
            raise Unholdable(f"has more than {MOST_ALTERNATIVES} alternatives")
    return branches, at


def _one(words, at):
    word = words[at] if at < len(words) else None
    if word == "(":
        branches, at = _either(words, at + 1)
        if at >= len(words) or words[at] != ")":
            raise Unholdable("does not read as a Traefik rule")
        return branches, at + 1
    if word == "!":
        raise Unholdable("negates a matcher, which matches hosts and paths no hold can name")
    if not isinstance(word, str) or word in ("&&", "||", ")", ","):
        raise Unholdable("does not read as a Traefik rule")
    if word not in HELD:
        raise Unholdable(f"uses {word[:40]}, which the service cannot hold to one tenant (only {', '.join(HELD)})")
    args, at = _arguments(words, at + 1)
    if word == "Host":
        return [({arg.lower()}, frozenset()) for arg in args], at  # Traefik v2's Host(`a`, `b`): either
    return [(frozenset(), {arg}) for arg in args], at


def _arguments(tokens, at):
    if at >= len(tokens) or tokens[at] != "(":
        raise Unholdable("does not read as a Traefik rule")
    args, at = [], at + 1
    while at < len(tokens) and isinstance(tokens[at], tuple):
        args.append(tokens[at][1])
        at += 1
        if at < len(tokens) and tokens[at] == ",":
            at += 1
    if not args or at >= len(tokens) or tokens[at] != ")":
        raise Unholdable("does not read as a Traefik rule")
    return args, at + 1
