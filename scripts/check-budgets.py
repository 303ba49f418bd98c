#!/usr/bin/env python3
"""Checks the size budgets of docs/design.md §11 on the C++/CUDA sources and prints every offending place.

Budgets: .cpp/.cu files <= 800 lines, .h/.cuh/.hpp <= 400, functions <= 60 lines, lines <= 120 columns.
Places already over budget when the check was introduced are listed in scripts/budget-exceptions.txt
with their size then; they may shrink but not grow, and new places may not exceed the budget.
Exit status 1 when anything is over. Usage: scripts/check-budgets.py [--write-exceptions]
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = ["scorch", "tests", "bench", "examples", "fuzz"]
SUFFIXES = {".cpp": 800, ".cu": 800, ".h": 400, ".cuh": 400, ".hpp": 400}
FUNCTION_LINES, LINE_COLUMNS = 60, 120
EXCEPTIONS = ROOT / "scripts" / "budget-exceptions.txt"
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|return|namespace|struct|class|enum|union)\b")
SIGNATURE_END = re.compile(r"\)\s*(const|noexcept|override|final|mutable|->\s*[^{;]+|requires\s+[^{;]+|\s)*$")


def strip_code(text):
    """Blanks comments and string/char literals, keeping line structure."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(text):
    """Yields (first line, line count) of each outermost function body longer than the budget."""
    code = strip_code(text)
    stack, head_start = [], 0
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = code[head_start:i]
            in_function = any(kind == "function" for kind, _ in stack)
            is_function = not in_function and SIGNATURE_END.search(head) and not CONTROL.match(head.strip())
            stack.append(("function" if is_function else "block", line))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, start = stack.pop()
                if kind == "function" and line - start + 1 > FUNCTION_LINES:
                    yield start, line - start + 1
            head_start = i + 1
        elif c == ";":
            head_start = i + 1


def measure(path):
    """Yields (place, kind, size, budget) for everything over budget in one file."""
    rel = path.relative_to(ROOT).as_posix()
    text = path.read_text(errors="replace")
    lines = text.split("\n")
    budget = SUFFIXES[path.suffix]
    if len(lines) > budget:
        yield rel, "file lines", len(lines), budget
    for number, content in enumerate(lines, 1):
        if len(content) > LINE_COLUMNS:
            yield f"{rel}:{number}", "columns", len(content), LINE_COLUMNS
    for start, size in long_functions(text):
        yield f"{rel}:{start}", "function lines", size, FUNCTION_LINES


def sources():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES and "fixtures" not in path.parts:
                yield path


def load_exceptions():
    allowed = {}
    if EXCEPTIONS.exists():
        for row in EXCEPTIONS.read_text().splitlines():
            if row.strip() and not row.startswith("#"):
                place, kind, size = row.rsplit("\t", 2)
                allowed[(re.sub(r":\d+$", "", place), kind, size)] = int(size)
    return allowed


def main():
    found = [item for path in sources() for item in measure(path)]
    if "--write-exceptions" in sys.argv:
        rows = [f"{place}\t{kind}\t{size}" for place, kind, size, _ in found]
        EXCEPTIONS.write_text("# Places over the size budgets when scripts/check-budgets.py was introduced: shrink them.\n"
                              + "\n".join(rows) + "\n")
        return 0
    allowed = {}
    for (file, kind, size), limit in load_exceptions().items():
        allowed.setdefault((file, kind), []).append(limit)
    over = []
    for place, kind, size, budget in found:
        limits = allowed.get((re.sub(r":\d+$", "", place), kind), [])
        fitting = [limit for limit in limits if size <= limit]
        if fitting:
            limits.remove(min(fitting))
        else:
            over.append(f"{place}: {kind} {size} > {budget}")
    for row in over:
        print(row)
    print(f"check-budgets: {len(over)} place(s) over budget" if over else "check-budgets: all within budget")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
