#!/usr/bin/env python3
"""Imports a Hugging Face dataset into a SQLite file Scorch's SqliteDataset reads: one table per
split, a row_id column (0, 1, ...) and one column per feature (int → INTEGER, float → REAL,
str → TEXT, bytes and images → BLOB (PNG), anything else → JSON TEXT).

  hf_import.py NAME --db FILE [--subset S]          download with the `datasets` library
  hf_import.py NAME --db FILE --local DIR           import DIR/<split>.jsonl instead (offline)

In local files, {"png_base64": ...} and {"bytes_base64": ...} values become BLOBs. Failures print
one line starting with "hf_import:" saying why, and exit 1; nothing is left at FILE."""
import argparse
import base64
import io
import json
import os
import sqlite3
import sys


def fail(message):
    print(f"hf_import: {message}", file=sys.stderr)
    sys.exit(1)


def to_column(value):
    if value is None or isinstance(value, (int, float, str, bytes)):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("png_base64", "bytes_base64"):
        return base64.b64decode(next(iter(value.values())))
    if hasattr(value, "save"):  # a PIL image
        buffer = io.BytesIO()
        value.save(buffer, format="PNG")
        return buffer.getvalue()
    return json.dumps(value)


def write_split(db, split, rows):
    columns = None
    for row_id, row in enumerate(rows):
        if columns is None:
            columns = list(row.keys())
            names = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
            db.execute(f'CREATE TABLE "{split}" (row_id INTEGER PRIMARY KEY, {names})')
            insert = f'INSERT INTO "{split}" VALUES (?{", ?" * len(columns)})'
        db.execute(insert, [row_id] + [to_column(row.get(c)) for c in columns])


def local_splits(folder):
    if not os.path.isdir(folder):
        fail(f"local source {folder} is not a folder")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jsonl"):
            with open(os.path.join(folder, name)) as f:
                yield name[:-6], [json.loads(line) for line in f if line.strip()]


def hub_splits(name, subset):
    try:
        import datasets
    except ImportError:
        fail("the Python package 'datasets' is not installed (pip install datasets), so nothing can be downloaded")
    try:
        loaded = datasets.load_dataset(name, subset)
    except Exception as e:  # network, unknown dataset, ...
        fail(f"could not download '{name}' from Hugging Face ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'no details'}); "
             "without network, import a local copy with --local")
    for split, rows in loaded.items():
        yield split, rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("--db", required=True)
    parser.add_argument("--subset")
    parser.add_argument("--local")
    args = parser.parse_args()
    tmp = args.db + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp)
    try:
        splits = local_splits(args.local) if args.local else hub_splits(args.name, args.subset)
        count = 0
        for split, rows in splits:
            write_split(db, split, rows)
            count += 1
        if count == 0:
            fail(f"no splits found for '{args.name}'")
        db.commit()
        db.close()
        os.replace(tmp, args.db)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


if __name__ == "__main__":
    main()
