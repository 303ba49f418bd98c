#!/usr/bin/env python3
"""Fails when a public member of the Tensor API has no API comment (issue 64: "the docs build fails on an
undocumented public member").

Rule: in the public part of every class in the given headers, each member declaration has a `///` comment on the line
above it. Overloads of one name that follow each other without a blank line (an lvalue form and its rvalue twin,
`reshape(Shape)` and `reshape(array)`) share the comment of the first. Using-declarations that re-export a base's
name (`using Base::name;`), friends and static_asserts need none.

Usage: scripts/check-api-comments.py [--root DIR] [HEADER ...]   (default: the Tensor API headers)
"""
import argparse
import pathlib
import re
import sys

DEFAULT_HEADERS = ["scorch/tensor/tensor.h"] + [f"scorch/tensor/tensor_{part}.h" for part in
                                                  ("autodiff", "float", "index", "int_bool", "numeric", "ordered",
                                                   "shape")]
CLASS_HEAD = re.compile(r"^\s*(?:template\s*<.*>\s*)?(class|struct)\s+\w+")
ACCESS = re.compile(r"^\s*(public|private|protected)\s*:")
NAME_PATTERNS = [
    re.compile(r"\busing\s+(\w+)\s*="),
    re.compile(r"\boperator\s*(\(\)|\[\]|[^\s(]+)\s*\("),
    re.compile(r"(~?\w+)\s*\("),
    re.compile(r"(\w+)\s*(?:=|\{|;)"),
]


def code_of(line):
    """The line without its // comment and with string and char literals blanked."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(?:\\.|[^'\\])*'", "''", line)
    return line.split("//", 1)[0]


def member_name(statement):
    """The declared name of a member statement (its text joined), or None for what needs no comment."""
    text = re.sub(r"^\s*template\s*<[^>]*(?:<[^>]*>[^>]*)*>\s*", "", statement)
    if re.match(r"\s*(friend|static_assert)\b", text) or re.match(r"\s*using\s+[\w:<>, ]+::\w+\s*;", text):
        return None
    text = re.sub(r"\brequires\b.*", "", text)
    for pattern in NAME_PATTERNS:
        m = pattern.search(text)
        if m:
            return m.group(1)
    return text.strip()[:40]


def check(path):
    """(line, name) of each undocumented public member of the classes in path."""
    lines = path.read_text().splitlines()
    problems = []
    depth = 0
    classes = []  # [body depth, access] of the classes the line is in
    statement = None  # [first line index, text, documented]
    pending_class = None  # "class" or "struct" between a class head and its opening brace
    previous_name, previous_end = None, -2
    for i, raw in enumerate(lines):
        code = code_of(raw)
        stripped = raw.strip()
        in_body = bool(classes) and depth == classes[-1][0]
        if statement is None and pending_class is None and (not classes or in_body):
            head = CLASS_HEAD.match(code)
            if head and ";" not in code.split("{")[0]:
                pending_class = head.group(1)
        if statement is None and pending_class is None and in_body:
            access = ACCESS.match(code)
            if access:
                classes[-1][1] = access.group(1)
                previous_name = None
            elif stripped and not stripped.startswith("//") and not stripped.startswith("}"):
                statement = [i, code, i > 0 and lines[i - 1].strip().startswith("///")]
        elif statement is not None:
            statement[1] += " " + code
        before = depth
        depth += code.count("{") - code.count("}")
        if pending_class is not None and "{" in code:
            if depth > before:
                classes.append([depth, "public" if pending_class == "struct" else "private"])
            pending_class = None
            continue
        while classes and depth < classes[-1][0]:
            classes.pop()
        if statement is None or not classes or depth != classes[-1][0]:
            continue
        text = statement[1].strip()
        if not (text.endswith(";") or text.endswith("}")):
            continue
        first, _, documented = statement
        name = member_name(text)
        joins = name is not None and name == previous_name and previous_end == first - 1
        if classes[-1][1] == "public" and name is not None and not documented and not joins:
            problems.append((first + 1, name))
        previous_name, previous_end = (name, i) if documented or joins else (None, -2)
        statement = None
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", help="the repository root (default: .)")
    parser.add_argument("headers", nargs="*", help="headers to check (default: the Tensor API's)")
    args = parser.parse_args()
    root = pathlib.Path(args.root)
    total = 0
    for header in args.headers or DEFAULT_HEADERS:
        for line, name in check(root / header):
            print(f"{header}:{line}: public member '{name}' has no /// comment above it")
            total += 1
    if total:
        print(f"api comments: {total} undocumented public members; write a /// line saying what each guarantees")
        return 1
    print("api comments: every public member of the checked headers is documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
