#!/usr/bin/env bash
# Generation and prompt speed of GGUF models larger than the caches on one device, next to the
# device's memory bandwidth, in one run (issue 24's criterion: tg tokens/s x weight bytes read per
# token >= 0.8x the STREAM-triad-like bandwidth; results in docs/performance.md).
#
# Makes llama models of ~0.85 G parameters with random weights (bench/make_model.cpp: q4_0 and
# q4_k ~0.45 GB, q8_0 ~0.9 GB) in $BK_MODEL_DIR, kept between runs, then runs on DEVICE:
#   bkctl bench --op add --size 12288      a = b + c over 576 MiB arrays: the memory bandwidth
#                                          (arrays past any last-level cache: some hosts' L3
#                                          holds 64 MiB arrays, and add then measures the cache)
#   bkctl bench --model M --pp 512 --tg 128  per model
# and prints, per model, tg tokens/s, the weight bytes one token reads (every tensor but the
# token embedding, of which it reads one row), their product in GB/s and its ratio to the
# bandwidth, and pp tokens/s with the GFLOP/s it means.
#
# With BK_LLAMA_BENCH=path/to/llama-bench (llama.cpp's, e.g. built by scripts/compare-llama-cpp.sh's
# tree with -DLLAMA_BUILD_TOOLS=ON), it also runs llama-bench on the same files with the same
# sizes and thread count (BK_THREADS, default all cores), and prints bk / llama.cpp ratios.
#
#   scripts/bench-model.sh [DEVICE=CPU] [TYPES=q4_0,q8_0,q4_k]
#   BK_MODEL_DIR=/tmp/bk-models   BK_PP=512 BK_TG=128   BK_BUDGET=2s   BK_THREADS=$(nproc)
# Takes about 2 minutes per model on a 2-core host (most of it pp512), after a Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-CPU}
types=${2:-q4_0,q8_0,q4_k}
dir=${BK_MODEL_DIR:-/tmp/bk-models}
pp=${BK_PP:-512}
tg=${BK_TG:-128}
budget=${BK_BUDGET:-2s}
threads=${BK_THREADS:-$(nproc)}
llama_bench=${BK_LLAMA_BENCH:-}

scripts/bootstrap.sh
cmake --build build -j"$(nproc)" --target bk_make_model >/dev/null
mkdir -p "$dir"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

build/bin/bkctl bench --device "$device" --op add --size 12288 --budget "$budget" --json >"$out/bandwidth.json"
for type in ${types//,/ }; do
  model="$dir/bench-$type.gguf"
  [ -s "$model" ] || build/bin/bk_make_model "$model" "$type"
  build/bin/bkctl bench --device "$device" --model "$model" --pp "$pp" --tg "$tg" --budget "$budget" \
    --warmup 1 --threads "$threads" --json >"$out/model-$type.json"
  if [ -n "$llama_bench" ]; then
    "$llama_bench" -m "$model" -p "$pp" -n "$tg" -t "$threads" -r 3 -o json >"$out/llama-$type.json" 2>/dev/null
  fi
done

echo "bench-model: $device, $(uptime | sed 's/.*load/load/')"
python3 - "$out" "$dir" "$types" <<'EOF'
import json, os, struct, sys

out, model_dir, types = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
BLOCKS = {0: (1, 4), 1: (1, 2), 2: (32, 18), 8: (32, 34), 12: (256, 144), 14: (256, 210)}


def bytes_per_token(path):
    """Weight bytes one decoded token reads: every tensor, of the token embedding one row."""
    with open(path, "rb") as f:
        data = f.read(1 << 20)
    pos = 24
    def u(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, data, pos)[0]
        pos += struct.calcsize(fmt)
        return v
    def s():
        nonlocal pos
        n = u("Q")
        pos += n
    n_tensors, n_kv = struct.unpack_from("<QQ", data, 8)
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    def value(t):
        nonlocal pos
        if t == 8:
            s()
        elif t == 9:  # an array: element type, count, elements
            element, count = u("I"), u("Q")
            for _ in range(count):
                value(element)
        else:
            pos += sizes[t]
    for _ in range(n_kv):
        s()
        value(u("I"))
    total = 0
    for _ in range(n_tensors):
        n = u("Q"); name = data[pos:pos + n].decode(); pos += n
        ne = [u("Q") for _ in range(u("I"))]
        typ = u("I"); u("Q")
        block, size = BLOCKS[typ]
        row = ne[0] // block * size
        rows = 1
        for d in ne[1:]:
            rows *= d
        total += row if name == "token_embd.weight" else row * rows
    return total


def test(path, op):
    with open(path) as f:
        for t in json.load(f)["devices"][0]["tests"]:
            if t["op"] == op:
                return t


bw = test(os.path.join(out, "bandwidth.json"), "add")
bandwidth = bw["median"] if bw and bw["status"] == "ok" else float("nan")
print(f"bandwidth (add, a = b + c, 576 MiB arrays): {bandwidth:.1f} GB/s")
print(f"{'model':8} {'tg tok/s':>9} {'MB/token':>9} {'GB/s':>7} {'x bw':>6} {'pp tok/s':>9} {'GFLOP/s':>8}"
      f"  {'llama.cpp pp / tg':>18} {'bk/llama pp':>11} {'tg':>5}")
for t in types:
    path = os.path.join(out, f"model-{t}.json")
    tg, pp = test(path, "tg"), test(path, "pp")
    per_token = bytes_per_token(os.path.join(model_dir, f"bench-{t}.gguf"))
    def value(r):
        return r["median"] if r and r["status"] == "ok" else float("nan")
    gbps = value(tg) * per_token / 1e9
    pp_gflops = value(pp) * pp["flops"] / pp["size"] / 1e9 if pp and pp["flops"] else float("nan")
    peer = os.path.join(out, f"llama-{t}.json")
    lpp = ltg = float("nan")
    if os.path.exists(peer):
        for r in json.load(open(peer)):
            if r.get("n_gen", 0) == 0:
                lpp = r["avg_ts"]
            else:
                ltg = r["avg_ts"]
    print(f"{t:8} {value(tg):9.2f} {per_token / 1e6:9.1f} {gbps:7.2f} {gbps / bandwidth:6.2f} "
          f"{value(pp):9.1f} {pp_gflops:8.1f}  {lpp:8.1f} / {ltg:7.2f} {value(pp) / lpp:11.2f} {value(tg) / ltg:5.2f}")
EOF
