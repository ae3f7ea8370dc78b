"""Runs mccabe over many files in one Python process.

Reads file paths (one per line) on stdin; prints one JSON object per function graph
(file, line, name, complexity) and, last, {"seconds": ..., "cpu_seconds": ...} for the
analysis alone (reading, parsing and graphing every file).
Run with Debian's interpreter: /usr/bin/python3 bench/quality/mccabe_all.py < files.txt
"""

import ast
import json
import sys
import time

import mccabe


def main():
    paths = [line.strip() for line in sys.stdin if line.strip()]
    started = time.perf_counter()
    cpu_started = time.process_time()
    rows = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                tree = compile(handle.read(), path, "exec", ast.PyCF_ONLY_AST)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        visitor = mccabe.PathGraphingAstVisitor()
        visitor.preorder(tree, visitor)
        for graph in visitor.graphs.values():
            rows.append((path, graph.lineno, graph.entity, graph.complexity()))
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    out = sys.stdout
    for path, line, name, complexity in rows:
        out.write(json.dumps({"file": path, "line": line, "name": name, "complexity": complexity}) + "\n")
    out.write(json.dumps({"seconds": elapsed, "cpu_seconds": cpu, "files": len(paths)}) + "\n")


if __name__ == "__main__":
    main()
