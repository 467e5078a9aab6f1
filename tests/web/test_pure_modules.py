"""The page's pure modules (units, answers, what the editor reads off a draft) under Node's own test
runner: tests/web/pure/*.test.mjs import them as the browser does, without a DOM."""

import shutil
import subprocess
from pathlib import Path

PURE = Path(__file__).parent / "pure"


def test_the_pages_pure_modules_pass_their_node_tests():
    done = subprocess.run([shutil.which("node"), "--test", str(PURE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
