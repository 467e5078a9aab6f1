"""The diff of two renderings of an instance, as helm-diff shows one: a line that holds a secret
value (a `writeOnly` or generated parameter's, before or after) or a Secret's `data` or
`stringData` entry is shown as `<key>: (secret, changed)` where it changed and `(secret)` where it
did not, never its value.

Each secret value is swapped, before the diff is taken, for a stand-in of its own that no rendering
holds (the same value the same stand-in in both), so that a changed secret is still a changed line;
the stand-ins are swapped for the words once the diff is made and never leave this module."""

import difflib
import re

STAND_IN = "\0secret{}\0"
STAND_INS = re.compile("\0secret\\d+\0")
SECRET_KINDS = re.compile(r"^kind:\s*['\"]?Secret['\"]?\s*$", re.MULTILINE)
DATA = re.compile(r"^(\s*)(data|stringData):\s*$")
ENTRY = re.compile(r"^(\s*)([^:#\s][^:]*):\s*(\S.*)$")


def unified(before, after, names, secrets):
    """The unified diff of the texts `before` and `after`, named `names` (a pair), with every
    value of `secrets` (texts) and every Secret's data hidden."""
    table = {}
    lines = [_hidden(text, secrets, table) for text in (before, after)]
    diff = difflib.unified_diff(*lines, *names)
    return "".join(_worded(line) for line in diff)


def _hidden(text, secrets, table):
    """`text`'s lines with each secret value, and each Secret's data value, as its stand-in."""
    values = sorted((value for value in secrets if value), key=len, reverse=True)
    lines = []
    for document in re.split(r"(?m)^(?=---)", text):
        secret_kind = SECRET_KINDS.search(document) is not None
        under = None  # the indent of a Secret's `data:` or `stringData:` whose entries are being read
        for line in document.splitlines(keepends=True):
            indent = len(line) - len(line.lstrip())
            if secret_kind and (found := DATA.match(line)):
                under = len(found[1])
            elif under is not None and line.strip() and indent > under:
                entry = ENTRY.match(line)
                if entry:  # `key: value`
                    line = f"{entry[1]}{entry[2]}: {_stand_in(entry[3], table)}\n"
                else:  # a line of a block scalar's value
                    line = f"{line[:indent]}{_stand_in(line.strip(), table)}\n"
            elif line.strip():
                under = None
            for value in values:
                if value in line:
                    line = line.replace(value, _stand_in(value, table))
            lines.append(line)
    return lines


def _stand_in(value, table):
    return table.setdefault(value, STAND_IN.format(len(table)))


def _worded(line):
    """A diff line with its stand-ins swapped for what may be shown: the key and `(secret)`."""
    if not STAND_INS.search(line):
        return line
    mark, body = line[:1], line[1:]
    said = "(secret, changed)" if mark in "+-" else "(secret)"
    key = re.match(r"(\s*(?:-\s+)?)([^=:\s\0]+)\s*[=:]", body)
    where = f"{key[1]}{key[2]}: " if key else re.match(r"\s*", body)[0]
    return f"{mark}{where}{said}\n"
