"""The README a newcomer reads: valid reStructuredText, and every setting the service reads is in
its configuration table."""

from pathlib import Path

import docutils.core
import docutils.utils

from app import config

README = Path(__file__).resolve().parent.parent / "README.rst"


def test_the_readme_is_valid_restructuredtext():
    docutils.core.publish_doctree(
        README.read_text(), settings_overrides={"halt_level": docutils.utils.Reporter.WARNING_LEVEL, "report_level": 5}
    )


def test_every_setting_is_documented():
    text = README.read_text()
    table = text[text.index("Configuration\n") : text.index("Layout\n")]
    missing = [name for name in config.VARIABLES if f"``{name}``" not in table and name != "PROMETHEUS_MULTIPROC_DIR"]
    assert missing == []
    assert "PROMETHEUS_MULTIPROC_DIR" in text
