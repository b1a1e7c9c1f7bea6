"""No internal issue numbers in the repository's text: a reader of the code, the docs or the changelog cannot look
them up, so the text says what it means instead. Every file git tracks or would track is read (git ls-files;
without git, a walk of the checkout), whatever its extension: the Makefile and .ci/run too. References to a public
project's issue (`aws/aws-cdk#34629`, a link to its issues page) are not internal and do not match."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Folders of installed, built or generated files: not the project's own text.
SKIPPED = {".git", ".venv", "node_modules", "cdk.out", ".local", "lambda_deps", "dist", "build", "generated"}
# The word, singular or plural, any case of its first letter, then a number: after a space, a hash or a hyphen
# (a heading's anchor); not after a slash (a URL's path) or inside a word.
INTERNAL = re.compile(r"(?<![\w/])[Ii]ssues?[\s_#-]*\d+")  # \s: a number wrapped onto the next line too


def tracked_files() -> list[Path]:
    try:
        command = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
        listed = subprocess.run(command, cwd=ROOT, capture_output=True, check=True, timeout=30).stdout.decode()
        names = [n for n in listed.split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    return [ROOT / n for n in names if not SKIPPED & set(Path(n).parts[:-1])]


def text_of(path: Path) -> str | None:
    """The file's text, or None for a binary file (or one gone from the work tree)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


FILES = tracked_files()


def test_the_scan_reads_every_kind_of_file_it_should():
    """Guards the test below against reading nothing: files without an extension are read too."""
    names = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert {"Makefile", ".ci/run", "README.md", "CHANGELOG.md", "pyproject.toml"} <= names
    assert not any(part in SKIPPED for name in names for part in Path(name).parts[:-1])


def test_the_pattern_finds_internal_numbers_and_leaves_public_references_alone():
    word = "iss" + "ue"  # spelled apart, so that this file passes its own test
    found = (f"({word} 40)", f"({word}\n  40: before", f"Since {word} 41", f"{word} 23's subject", f"{word.title()}s 21 and 22", f"#a-{word}-25")
    kept = ("aws/aws-cdk#34629", f"https://github.com/aws/aws-cdk/{word}s/34629", f"{word}s were found", "tissue 4")
    assert [text for text in found if not INTERNAL.search(text)] == []
    assert [text for text in kept if INTERNAL.search(text)] == []


def test_no_tracked_text_names_an_internal_issue_number():
    found = []
    for path in FILES:
        text = text_of(path)
        if text is None or not INTERNAL.search(text):
            continue
        for match in INTERNAL.finditer(text):
            number = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(ROOT)}:{number}: {' '.join(match.group().split())}")
    assert not found, "say what is meant instead of an internal issue number:\n" + "\n".join(found)
