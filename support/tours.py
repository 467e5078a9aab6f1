"""The README's tours, as the shell scripts they are: the literal block that follows a heading."""

from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.rst"


def script(heading):
    """The commands of the first literal block after `heading`, unindented."""
    text = README.read_text()
    block = text[text.index(f"{heading}\n") :].split("::\n\n", 1)[1].split("\n\n", 1)[0]
    return "\n".join(line.removeprefix("    ") for line in block.splitlines())
