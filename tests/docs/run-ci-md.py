#!/usr/bin/env python3
"""tests/docs/run-ci-md.py: runs every command docs/ci.md shows, literally, so the page cannot rot.

From the YAML recipes it takes each `run:` step and each `script:` item, in order, and runs them
in the repository root as a CPU-only runner would (SMOKE_REQUIRE='CPU>=1'; a `sudo` that is
absent when running as root is stood in for by running the command directly); they must exit 0.
From the indented example lines that start with BK_SIM_DEVICES= or bkctl it runs each one and
checks the exit code its comment states ("exit N"). Packages the recipes install are removed
again, and dist/ is deleted. Standard library only.

Usage: run-ci-md.py BUILD_DIR   (bkctl for the examples: BUILD_DIR/bin/bkctl)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "ci.md")


def yaml_blocks(text):
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def recipe_commands(block):
    """The `run:` values and `script:` items of one YAML block, in order."""
    commands, in_script = [], False
    for line in block.splitlines():
        stripped = line.strip()
        if stripped.startswith("script:"):
            in_script = True
            continue
        run = re.match(r"^-?\s*run:\s*(.+)$", stripped)
        if run:
            commands.append(run.group(1))
        elif in_script and stripped.startswith("- "):
            commands.append(stripped[2:])
        elif in_script and stripped and not line.startswith(" " * 4):
            in_script = False
    return commands


def example_lines(text):
    """(command, expected exit code) for the indented bkctl examples."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^    ((?:BK_SIM_DEVICES=\S+ )?bkctl .*?)\s+# .*?exit (\d+)", line)
        if m:
            out.append((m.group(1), int(m.group(2))))
    return out


def shell(command, env, cwd):
    return subprocess.run(["bash", "-c", command], env=env, cwd=cwd, timeout=900, check=False,
                          capture_output=True, text=True)


def main():
    build = os.path.abspath(sys.argv[1])
    text = open(PAGE, encoding="utf-8").read()
    env = dict(os.environ, SMOKE_REQUIRE="CPU>=1")
    shims = tempfile.mkdtemp()
    if os.geteuid() == 0 and shutil.which("sudo") is None:
        with open(os.path.join(shims, "sudo"), "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\nexec "$@"\n')
        os.chmod(os.path.join(shims, "sudo"), 0o755)
    env["PATH"] = shims + os.pathsep + env["PATH"]
    failures = []
    recipes = [recipe_commands(b) for b in yaml_blocks(text)]
    if not any(recipes):
        failures.append("no recipe commands found in docs/ci.md")
    try:
        for commands in recipes:
            for command in commands:
                print(f"== ci.md: {command}", file=sys.stderr)
                result = shell(command, env, ROOT)
                if result.returncode != 0:
                    failures.append(f"'{command}' exited {result.returncode}: {result.stderr[-2000:]}")
            # Each recipe starts from a machine without bk's packages.
            shell("apt-get remove -y -qq libbk0 >/dev/null 2>&1 || true", env, ROOT)
        examples = example_lines(text)
        if not examples:
            failures.append("no bkctl examples found in docs/ci.md")
        env["PATH"] = os.path.join(build, "bin") + os.pathsep + env["PATH"]
        for command, expected in examples:
            print(f"== ci.md: {command}  (expect exit {expected})", file=sys.stderr)
            result = shell(command, env, ROOT)
            if result.returncode != expected:
                failures.append(f"'{command}' exited {result.returncode}, the page says {expected}")
    finally:
        shell("apt-get remove -y -qq libbk0 >/dev/null 2>&1 || true", env, ROOT)
        shutil.rmtree(os.path.join(ROOT, "dist"), ignore_errors=True)
        for name in ("smoke.xml",):
            if os.path.exists(os.path.join(ROOT, name)):
                os.remove(os.path.join(ROOT, name))
        shutil.rmtree(shims, ignore_errors=True)
    for failure in failures:
        print(f"run-ci-md: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
