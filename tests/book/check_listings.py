#!/usr/bin/env python3
"""Checks that the Scorch Book (docs/book/*.md) and README.md quote real, compiled files verbatim.

A code block in the book is preceded by a marker naming what it quotes:

    <!-- listing: docs/book/listings/tensors.cpp -->            the whole file
    <!-- listing: examples/records/main.cpp#config -->           the lines between `// [book:config]` and
                                                                 `// [/book:config]` in that file, dedented
    <!-- output: book_tensors -->                                what the program book_tensors prints (run from
                                                                 --bin-dir), verbatim

Every ```cpp block of the book must carry a listing marker; every file of docs/book/listings must be quoted
somewhere. Exits 1 and names the chapter, line and file of each mismatch. With --write, every marked block is
rewritten from what it quotes instead (write a marker and an empty fence, then run it).
"""
import argparse
import difflib
import pathlib
import re
import subprocess
import sys
import textwrap

MARKER = re.compile(r"<!--\s*(listing|output):\s*(\S+?)\s*-->")
FENCE = re.compile(r"^```(\w*)\s*$")


def region(text, name, where):
    """The dedented lines between the region's markers, or raises naming where it was asked for."""
    begin, end = f"// [book:{name}]", f"// [/book:{name}]"
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == begin]
    ends = [i for i, line in enumerate(lines) if line.strip() == end]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError(f"{where}: region '{name}' needs exactly one '{begin}' line and one '{end}' after it")
    return textwrap.dedent("\n".join(lines[starts[0] + 1:ends[0]]))


def blocks(path):
    """(line, marker kind, marker target, fence language, block text) for every fenced block of a Markdown file."""
    lines = path.read_text().splitlines()
    out, i, pending = [], 0, None
    while i < len(lines):
        if lines[i].startswith("````"):  # an example of the markup itself: skipped whole
            i += 1
            while i < len(lines) and not lines[i].startswith("````"):
                i += 1
            i, pending = i + 1, None
            continue
        m = MARKER.search(lines[i])
        if m:
            pending = (i + 1, m.group(1), m.group(2))
            i += 1
            continue
        f = FENCE.match(lines[i])
        if f:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            marker = pending if pending and pending[0] >= i - 1 else None
            out.append((i + 1, marker[1] if marker else None, marker[2] if marker else None, f.group(1),
                        "\n".join(lines[i + 1:j])))
            pending, i = None, j + 1
            continue
        if lines[i].strip():
            pending = None
        i += 1
    return out


def expected(kind, target, root, bin_dir, where):
    if kind == "output":
        binary = pathlib.Path(bin_dir) / target
        if not binary.exists():
            raise ValueError(f"{where}: program {binary} is not built")
        run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=600, cwd=root)
        if run.returncode != 0:
            raise ValueError(f"{where}: {target} exited with {run.returncode}: {run.stderr.strip()[-400:]}")
        return run.stdout.rstrip("\n")
    file, _, name = target.partition("#")
    source = root / file
    if not source.exists():
        raise ValueError(f"{where}: {file} does not exist")
    text = source.read_text()
    return region(text, name, where) if name else text.rstrip("\n")


def rewrite(page, root, bin_dir):
    """Fills every marked block of page with what it quotes."""
    lines = page.read_text().splitlines()
    for line, kind, target, _, text in reversed(blocks(page)):
        if kind is None:
            continue
        want = expected(kind, target, root, bin_dir, f"{page}:{line}")
        end = line + (len(text.split("\n")) if text else 0)
        lines[line:end] = want.splitlines()
    page.write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True, help="the repository")
    parser.add_argument("--bin-dir", required=True, help="the build directory (programs named relative to it)")
    parser.add_argument("--write", action="store_true", help="rewrite the marked blocks from what they quote")
    a = parser.parse_args()
    root = pathlib.Path(a.root)
    pages = sorted((root / "docs" / "book").glob("*.md")) + [root / "README.md"]
    if a.write:
        for page in pages:
            rewrite(page, root, a.bin_dir)
    errors, quoted, checked = [], set(), 0
    for page in pages:
        for line, kind, target, language, text in blocks(page):
            where = f"{page.relative_to(root)}:{line}"
            if kind is None:
                if language == "cpp" and page.parent.name == "book":
                    errors.append(f"{where}: a cpp block without a '<!-- listing: FILE -->' marker")
                continue
            try:
                want = expected(kind, target, root, a.bin_dir, where)
            except (ValueError, subprocess.TimeoutExpired) as e:
                errors.append(str(e))
                continue
            checked += 1
            if kind == "listing":
                quoted.add(target.partition("#")[0])
            if text.rstrip("\n") != want:
                diff = difflib.unified_diff(want.splitlines(), text.splitlines(), target, "the book", lineterm="")
                errors.append(f"{where}: the block differs from {target}:\n" + "\n".join(list(diff)[:40]))
    for listing in sorted((root / "docs" / "book" / "listings").glob("*.cpp")):
        name = str(listing.relative_to(root))
        if name not in quoted:
            errors.append(f"{name}: no chapter quotes this listing")
    for e in errors:
        print(e, file=sys.stderr)
    print(f"book: {checked} quoted blocks checked, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
