#!/usr/bin/env bash
# Holds bk's logits against llama.cpp's on the same GGUF file and the same token ids: both
# evaluate the tokens in one batch (positions 0..n-1, causal attention, empty F16 KV cache, CPU)
# and the script prints, per model, a table with one row per token list: positions, the largest
# per-position NMSE = sum((bk - ref)^2) / sum(ref^2) over the vocabulary, the largest absolute
# difference, and on how many positions the argmax agrees. llama.cpp is the reference.
# Not part of the test suite; nothing here runs in CI.
#
#   scripts/compare-llama-cpp.sh [-t TOKENS]... [-p] [MODEL.gguf...]
#     -t 1,260,300,42   a token list (repeatable; default: 1,260,300,42 and a 20-token list)
#     -p                also print every position's NMSE, max |diff| and both argmaxes
#     MODEL.gguf        default: the five tiny llama fixtures (f32, f16 from ../shared/fixtures/gguf,
#                       q8_0, q4_0, q4_k_m from tests/data/gguf)
#
# Needs: bash, git, cmake, a C++17 compiler, python3 (no numpy), npm (only for the first run,
# to fetch llama.cpp), and build/bin/bkctl (scripts/bootstrap.sh builds it).
# llama.cpp: the source that ships inside the npm package node-llama-cpp (llama/gitRelease.bundle,
# a git bundle), cloned and built CPU-only, Release, library only, in the work directory.
# Time: the first run fetches the npm package (~35 MB) and builds llama.cpp's libllama, about
# 11 minutes on 2 shared cores (less with more cores or a warm ccache); afterwards a run of the
# five tiny models takes about 5 seconds.
#
# What to expect: f32 NMSE ~1e-7 and f16 ~3e-7 (llama.cpp rounds Q and the softmax to f16 to
# multiply them with its f16 KV cache, bk keeps them f32); ~1e-4 to 3e-4 for q8_0, q4_0 and q4_k_m
# (llama.cpp quantizes the activations to q8_0 / q8_K for quantized weights, bk decodes the
# weights to f32). Argmax may differ where the top two logits are within that noise.
#
# Environment:
#   BK_LLAMACPP_DIR      work directory, kept between runs (default /tmp/bk-llamacpp)
#   BK_LLAMACPP_SRC      an existing llama.cpp source tree to build instead of fetching one
#   BK_LLAMACPP_NPM      the npm package spec to take the bundle from (default node-llama-cpp@3.22.1)
#   BK_LLAMACPP_JOBS     build jobs (default 2)
#   BK_THREADS           threads for both tools (default 1)
#   BKCTL                bk's CLI (default build/bin/bkctl)
#   BK_FIXTURES          the shared GGUF fixtures (default ../shared/fixtures/gguf)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

work=${BK_LLAMACPP_DIR:-/tmp/bk-llamacpp}
npm_spec=${BK_LLAMACPP_NPM:-node-llama-cpp@3.22.1}
jobs=${BK_LLAMACPP_JOBS:-2}
threads=${BK_THREADS:-1}
bkctl=${BKCTL:-$repo/build/bin/bkctl}
fixtures=${BK_FIXTURES:-$repo/../shared/fixtures/gguf}

token_lists=()
per_position=0
while getopts "t:ph" opt; do
  case $opt in
    t) token_lists+=("$OPTARG") ;;
    p) per_position=1 ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ ${#token_lists[@]} -gt 0 ] || token_lists=(
  "1,260,300,42"
  "1,300,311,280,265,500,290,301,42,7,128,384,261,299,310,277,450,33,271,511"
)
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(
    "$fixtures/tiny-llama-f32.gguf" "$fixtures/tiny-llama-f16.gguf"
    "$repo/tests/data/gguf/tiny-llama-q8_0.gguf" "$repo/tests/data/gguf/tiny-llama-q4_0.gguf"
    "$repo/tests/data/gguf/tiny-llama-q4_k_m.gguf"
  )
fi
for m in "${models[@]}"; do [ -f "$m" ] || { echo "compare-llama-cpp: no model file $m" >&2; exit 2; }; done
[ -x "$bkctl" ] || { echo "compare-llama-cpp: no $bkctl; build it first (scripts/bootstrap.sh)" >&2; exit 2; }
log() { echo "compare-llama-cpp: $*" >&2; }

# 1. llama.cpp's source.
mkdir -p "$work"
src=${BK_LLAMACPP_SRC:-$work/src}
if [ ! -f "$src/include/llama.h" ]; then
  [ -z "${BK_LLAMACPP_SRC:-}" ] || { log "BK_LLAMACPP_SRC=$src has no include/llama.h"; exit 2; }
  log "fetching $npm_spec into $work/npm"
  rm -rf "$work/npm" "$src"
  mkdir -p "$work/npm"
  (cd "$work/npm" && npm pack --silent "$npm_spec" >/dev/null && tar xzf ./*.tgz package/llama)
  bundle="$work/npm/package/llama/gitRelease.bundle"
  [ -f "$bundle" ] || { log "$npm_spec has no llama/gitRelease.bundle"; exit 1; }
  git -c advice.detachedHead=false clone --quiet "$bundle" "$src"
fi
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
tag=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("tag", "?"))' \
  "$work/npm/package/llama/llama.cpp.info.json" 2>/dev/null || echo "?")

# 2. Its library: CPU only, Release, no tools, static.
build="$work/build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON -DGGML_LLAMAFILE=ON -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF "${launcher[@]}" >"$work/configure.log" 2>&1 ||
    { tail -20 "$work/configure.log" >&2; exit 1; }
fi
log "building llama.cpp's libllama ($commit) with $jobs jobs; the first time takes a while"
cmake --build "$build" --target llama -j "$jobs" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }

# 3. The logits program, against llama.h and the static libraries.
peer="$work/llama-cpp-logits"
libs=("$build/src/libllama.a" "$build/ggml/src/libggml.a" "$build/ggml/src/libggml-cpu.a"
  "$build/ggml/src/libggml-base.a")
if [ ! -x "$peer" ] || [ "$repo/scripts/llama-cpp-logits.cpp" -nt "$peer" ] || [ "$build/src/libllama.a" -nt "$peer" ]; then
  extra=()
  grep -q "GGML_OPENMP:BOOL=ON" "$build/CMakeCache.txt" && extra+=(-fopenmp)
  "${CXX:-c++}" -std=c++17 -O2 -I"$src/include" -I"$src/ggml/include" "$repo/scripts/llama-cpp-logits.cpp" \
    -o "$peer" "${libs[@]}" "${libs[@]}" "${extra[@]}" -lpthread -ldl -lm
fi

# 4. Both tools on every model and token list, then the tables.
out="$work/out"
mkdir -p "$out"
runs=()
for m in "${models[@]}"; do
  name=$(basename "$m" .gguf)
  i=0
  for t in "${token_lists[@]}"; do
    i=$((i + 1))
    "$bkctl" bench --device CPU --threads "$threads" --model "$m" --tokens "$t" --logits "$out/$name.$i.bk.json" \
      2>"$out/$name.$i.bk.log" || { cat "$out/$name.$i.bk.log" >&2; exit 1; }
    "$peer" "$m" "$t" "$out/$name.$i.llama.json" "$threads" 2>"$out/$name.$i.llama.log" ||
      { cat "$out/$name.$i.llama.log" >&2; exit 1; }
    runs+=("$name" "$out/$name.$i.bk.json" "$out/$name.$i.llama.json")
  done
done

origin="from $npm_spec, tag $tag"
[ -z "${BK_LLAMACPP_SRC:-}" ] || origin="from $src"
echo "bk ($("$bkctl" --version 2>/dev/null | head -1)) vs llama.cpp $commit ($origin), CPU, $threads thread(s)"
python3 - "$per_position" "${runs[@]}" <<'EOF'
import json, math, sys

per_position = sys.argv[1] == "1"
args = sys.argv[2:]
tables = {}
for k in range(0, len(args), 3):
    name, bk_path, ref_path = args[k:k + 3]
    bk, ref = json.load(open(bk_path)), json.load(open(ref_path))
    bp, rp = bk["positions"], ref["positions"]
    if [p["token"] for p in bp] != [p["token"] for p in rp]:
        sys.exit(f"{name}: the two files hold different tokens")
    rows = []
    for a, b in zip(bp, rp):
        x, y = a["logits"], b["logits"]
        if len(x) != len(y):
            sys.exit(f"{name}: vocab {len(x)} (bk) vs {len(y)} (llama.cpp)")
        if any(v is None for v in x + y):
            rows.append((a["position"], math.inf, math.inf, a["argmax"], b["argmax"], math.nan))
            continue
        err = sum((p - q) ** 2 for p, q in zip(x, y))
        norm = sum(q * q for q in y)
        nmse = err / norm if norm > 0 else (0.0 if err == 0 else math.inf)
        top2 = sorted(y, reverse=True)[:2]
        gap = top2[0] - top2[1] if len(top2) == 2 else math.inf
        rows.append((a["position"], nmse, max(abs(p - q) for p, q in zip(x, y)), a["argmax"], b["argmax"], gap))
    tables.setdefault(name, []).append((bk["tokens"], rows))

worst = 0.0
for name, runs in tables.items():
    print(f"\n{name}")
    print(f"  {'tokens':<28} {'pos':>4} {'max NMSE':>10} {'worst pos':>9} {'max |diff|':>11} {'argmax agree':>12}")
    for tokens, rows in runs:
        shown = ",".join(map(str, tokens))
        shown = shown if len(shown) <= 28 else shown[:25] + "..."
        top = max(rows, key=lambda r: r[1])
        agree = sum(1 for r in rows if r[3] == r[4])
        worst = max(worst, top[1])
        print(f"  {shown:<28} {len(rows):>4} {top[1]:>10.3e} {top[0]:>9} {max(r[2] for r in rows):>11.3e}"
              f" {agree:>5}/{len(rows):<6}")
        if per_position:
            for pos, nmse, diff, am_bk, am_ref, gap in rows:
                mark = "" if am_bk == am_ref else f"  <- argmax differs (llama.cpp's top-2 gap {gap:.3e})"
                print(f"      pos {pos:>3}: NMSE {nmse:.3e}  max |diff| {diff:.3e}  argmax bk {am_bk} llama.cpp {am_ref}{mark}")
print(f"\nlargest NMSE over all models and positions: {worst:.3e}")
EOF
