#!/usr/bin/env bash
# Prepares the carry of experiments/gpu/run.sh for a GPU machine: target/gpu/kalaha.gz (the
# release binary with the `wgpu` feature, stripped and gzipped: about 16 MiB) and
# target/gpu/lib/libvulkan.so.1 (this machine's Vulkan loader, for a machine without one) and
# target/gpu/cache/*.xz (solver cache files, below; device-env.sh unpacks them).
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
# The solver cache files a supervised run needs (CACHE_FILES, names in this machine's cache), xz-packed:
# Kalah(6,4)'s two 100,000-position held-out sets (6.8 MB each, 0.9 MB packed). The 18-seed
# database is not carried: it is 22 MB packed, and the device builds it in seconds. Where a file
# is missing here the device builds it.
CACHE=${KALAHA_CACHE:-$HOME/.cache/kalaha}
CACHE_FILES=${CACHE_FILES-heldout-kalah64-judge-100000-db18.bin heldout-kalah64-train-100000-db18.bin}
mkdir -p target/gpu/cache
for name in $CACHE_FILES; do
    if [ -e "$CACHE/$name" ] && [ ! -e "target/gpu/cache/$name.xz" ]; then
        xz -9 -T0 -c "$CACHE/$name" >"target/gpu/cache/$name.xz.part" \
            && mv "target/gpu/cache/$name.xz.part" "target/gpu/cache/$name.xz"
    elif [ ! -e "$CACHE/$name" ]; then
        echo "prepare.sh: $name is not in $CACHE; the device will build it" >&2
    fi
done
du -sh target/gpu
