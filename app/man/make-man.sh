#!/usr/bin/env bash
# make-man.sh BKCTL OUT: writes bkctl's man page to OUT (gzipped, as Debian ships them) with
# help2man, from `bkctl --help`, plus a COMMANDS section holding every subcommand's --help, so the page says what
# the binary says and cannot drift from it. Run by the build (app/CMakeLists.txt).
set -euo pipefail
bkctl=$1
out=$2
include=$(mktemp)
trap 'rm -f "$include" "$out.tmp" "$out.tmp.1"' EXIT

# The subcommands are the indented words under "Subcommands:" in the top-level help.
commands=$("$bkctl" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
{
  echo "[COMMANDS]"
  for command in $commands; do
    echo ".SS \"bkctl $command\""
    echo ".nf"
    # roff: a backslash is \e; a line that starts with . or ' would be a request.
    "$bkctl" "$command" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    echo ".fi"
  done
  echo "[SEE ALSO]"
  echo "The guides in bk's source tree: docs/ci.md (smoke in CI), docs/bench.md, docs/sched.md and"
  echo "docs/architecture.md."
} >"$include"

# The first line of --version is "bkctl X.Y.Z"; the rest (commit, compiler) is not for the page.
version=$("$bkctl" --version | head -n 1 | cut -d' ' -f2)
help2man --no-info --section=1 --source="bk $version" --manual="User Commands" \
  --version-string="$version" --name="list compute devices and check what they can do" \
  --include="$include" --output="$out.tmp.1" "$bkctl"
gzip -9n <"$out.tmp.1" >"$out.tmp"
rm -f "$out.tmp.1"
mv "$out.tmp" "$out"
