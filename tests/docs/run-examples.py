#!/usr/bin/env python3
"""tests/docs/run-examples.py: runs every bkctl example in README.md and docs/*.md as written.

An example is a code line (indented four spaces, or in a fenced block) or an inline code span
that starts with `bkctl ` or `build/bin/bkctl `, optionally after VAR=value assignments. In a
synopsis line the optional parts in [brackets] are left out and the description after three or
more spaces is dropped; a trailing `# comment` may state the exit code ("exit N"), else 0 is
expected. Each page runs in its own temporary directory (its examples in page order, so one may
write a file the next reads), with docs/ copied in, build/ linked to BUILD_DIR and tests/data/
linked (the model fixtures the examples plan and run), bkctl first on PATH. docs/ci.md is left to run-ci-md.py, which also runs its CI recipes; docs/performance.md
is a log of commands as they ran on the machines measured (the H200 among them), not
instructions, and is not run.

What cannot run as written here is accepted only for its stated reason, and counted:
- a command naming a CUDA device or family on a machine without one must exit 3 (not found);
- an inline span that ends in an option taking a value (`bkctl smoke --expect`) refers to the
  option: it must exit 2 (usage);
- `--baseline` compares two noisy runs of this machine: 1 (a regression) is a verdict, not an
  error, so 0 or 1.

Usage: run-examples.py BUILD_DIR PAGE...   (exit 1 listing every example that failed)
Standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = r"(?:[A-Z_]+=(?:'[^']*'|\S+) )*(?:build/bin/)?bkctl(?: [^`]*)?"
OPTIONS_WITH_VALUES = ("--graph-file", "--expect", "--junit", "--devices", "--baseline", "--plot", "--device")


def code_lines(text):
    """Lines of code blocks: indented four spaces outside fences, or inside ``` fences."""
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            yield line.strip()
        elif line.startswith("    "):
            yield line[4:]


def from_code(line):
    """(command, expected exit or None) from one code line, or None when it is no bkctl example."""
    match = re.match(rf"^({COMMAND})$", line.split("  #")[0].rstrip()) if line else None
    if not match:
        return None
    exit_code = re.search(r"#.*\bexit (\d+)", line)
    command = re.split(r" {3,}", match.group(1))[0]  # a synopsis' description
    command = re.sub(r"\s*\[[^\]]*\]", "", command).strip()  # its optional parts
    return command, int(exit_code.group(1)) if exit_code else None


def examples(text):
    """Every example of a page, in page order, each once."""
    found = []
    for line in code_lines(text):
        example = from_code(line)
        if example:
            found.append((example[0], example[1], False))
    for span in re.findall(r"`([^`\n]+)`", text):
        # The program's bare name is prose, not an example.
        if re.fullmatch(COMMAND, span) and span not in ("bkctl", "build/bin/bkctl"):
            found.append((span, None, True))
    seen, unique = set(), []
    for command, code, inline in found:
        if command not in seen:
            seen.add(command)
            unique.append((command, code, inline))
    return unique


def has_cuda(bkctl, env):
    result = subprocess.run([bkctl, "devices"], env=env, capture_output=True, text=True, timeout=300, check=False)
    return re.search(r"(?m)^\s*CUDA\d", result.stdout) is not None


def accepted(command, stated, inline, cuda):
    """The exit codes that count as running as written, and why when it is not plain 0."""
    if stated is not None:
        return {stated}, "the page says so"
    if re.search(r"\bCUDA", command) and not cuda:
        return {3}, "no CUDA device here"
    if inline and command.split()[-1] in OPTIONS_WITH_VALUES:
        return {2}, "names an option, not a whole command"
    if "--baseline" in command:
        return {0, 1}, "a regression against this machine's own run is a verdict"
    return {0}, ""


def run_page(page, build, env, cuda):
    text = open(page, encoding="utf-8").read()
    work = tempfile.mkdtemp(prefix="bk-examples-")
    failures, ran = [], 0
    try:
        shutil.copytree(os.path.join(ROOT, "docs"), os.path.join(work, "docs"))
        os.symlink(build, os.path.join(work, "build"))
        os.makedirs(os.path.join(work, "tests"))
        os.symlink(os.path.join(ROOT, "tests", "data"), os.path.join(work, "tests", "data"))
        for command, stated, inline in examples(text):
            codes, why = accepted(command, stated, inline, cuda)
            print(f"== {os.path.relpath(page, ROOT)}: {command}  (exit {sorted(codes)}{': ' + why if why else ''})",
                  file=sys.stderr)
            result = subprocess.run(["bash", "-c", command], env=env, cwd=work, capture_output=True, text=True,
                                    timeout=900, check=False)
            ran += 1
            if result.returncode not in codes:
                failures.append(f"{os.path.relpath(page, ROOT)}: '{command}' exited {result.returncode}, "
                                f"expected {sorted(codes)}: {result.stderr.strip()[-1500:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ran, failures


def main():
    build = os.path.abspath(sys.argv[1])
    pages = [os.path.abspath(p) for p in sys.argv[2:]]
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env["PATH"]
    env.setdefault("COLUMNS", "80")
    cuda = has_cuda(os.path.join(build, "bin", "bkctl"), env)
    failures, total = [], 0
    for page in pages:
        ran, failed = run_page(page, build, env, cuda)
        if ran == 0 and page.endswith("README.md"):
            failed.append("README.md: no bkctl example found (the extraction is broken)")
        total += ran
        failures += failed
    for failure in failures:
        print(f"run-examples: {failure}", file=sys.stderr)
    print(f"run-examples: {total} examples, {len(failures)} failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
