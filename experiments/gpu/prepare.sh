#!/usr/bin/env bash
# Prepares the carry of experiments/gpu/run.sh for a GPU machine: target/gpu/kalaha.gz (the
# release binary with the `wgpu` feature, stripped and gzipped: about 16 MiB) and
# target/gpu/lib/libvulkan.so.1 (this machine's Vulkan loader, for a machine without one).
#
#   experiments/gpu/prepare.sh [BINARY]     BINARY: a `--features wgpu` build (default: builds one)
#
# Then, on the GPU machine: experiments/gpu/run.sh, with `target/gpu` carried.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-}
if [ -z "$BIN" ]; then
    cargo build --release --features wgpu
    BIN=${CARGO_TARGET_DIR:-target}/release/kalaha
fi
mkdir -p target/gpu/lib
rm -f target/gpu/kalaha target/gpu/kalaha.gz
cp "$BIN" target/gpu/kalaha
strip target/gpu/kalaha
gzip -9 target/gpu/kalaha
LOADER=$( (ldconfig -p 2>/dev/null | grep -o '/[^ ]*libvulkan\.so\.1$'; \
           ls /usr/lib/x86_64-linux-gnu/libvulkan.so.1 2>/dev/null) | head -n1)
if [ -n "$LOADER" ]; then
    cp -L "$LOADER" target/gpu/lib/libvulkan.so.1
else
    echo "prepare.sh: no Vulkan loader here (Debian: apt-get install libvulkan1); none carried" >&2
fi
du -sh target/gpu
