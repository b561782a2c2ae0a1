# Sourced by experiments/gpu/run.sh and supervised.sh (from the repository root, with WORK a scratch
# folder and SCRIPT the caller's name): sets BIN to the kalaha binary and prepares Vulkan.
# BIN: $KALAHA_BIN, else target/gpu/kalaha, else target/gpu/kalaha.gz (unpacked into $WORK), else
# target/release/kalaha. Vulkan: a carried loader (target/gpu/lib/libvulkan.so.1) and the NVIDIA
# driver's ICD: its own JSON file where the driver is mounted outside the system paths (the lent GPU
# machine), else one written for libGLX_nvidia.so.0 where no JSON file names it. ICD_NOTE says which.
# KALAHA_CACHE: ~/.cache/kalaha unless set, with target/gpu/cache/*.xz unpacked into it.
BIN=${KALAHA_BIN:-}
if [ -z "$BIN" ] && [ -x target/gpu/kalaha ]; then
    BIN=target/gpu/kalaha
elif [ -z "$BIN" ] && [ -e target/gpu/kalaha.gz ]; then
    gunzip -c target/gpu/kalaha.gz >"$WORK/kalaha" && chmod +x "$WORK/kalaha" && BIN="$WORK/kalaha"
elif [ -z "$BIN" ] && [ -x target/release/kalaha ]; then
    BIN=target/release/kalaha
fi
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
    echo "$SCRIPT: no kalaha binary (set KALAHA_BIN, or make the carry: experiments/gpu/prepare.sh)" >&2
    exit 2
fi

if [ -e target/gpu/lib/libvulkan.so.1 ]; then
    export LD_LIBRARY_PATH="$PWD/target/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# Mesa's window-system probing wants one (it only complains without).
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    export XDG_RUNTIME_DIR="$WORK/xdg" && mkdir -m 700 "$XDG_RUNTIME_DIR"
fi
ICD_NOTE="system"
DRIVER_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] && [ -e "$DRIVER_ICD" ]; then
    export VK_DRIVER_FILES="$DRIVER_ICD"
    ICD_NOTE="$DRIVER_ICD"
fi
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] \
    && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
    NV=$( (ldconfig -p 2>/dev/null | grep -o '/[^ ]*libGLX_nvidia\.so\.0$'; \
           ls /usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0 /usr/lib64/libGLX_nvidia.so.0 2>/dev/null) | head -n1)
    if [ -n "$NV" ]; then
        printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' \
            "$NV" > "$WORK/nvidia_icd.json"
        export VK_ICD_FILENAMES="$WORK/nvidia_icd.json"
        ICD_NOTE="written for $NV"
    fi
fi
# One endgame database cache for every run of the call, seeded with the carried cache files
# (target/gpu/cache/*.xz, packed by prepare.sh: the held-out sets, which would otherwise be built
# again on the device).
export KALAHA_CACHE=${KALAHA_CACHE:-$HOME/.cache/kalaha}
mkdir -p "$KALAHA_CACHE"
for packed in target/gpu/cache/*.xz; do
    [ -e "$packed" ] || continue
    dest="$KALAHA_CACHE/$(basename "$packed" .xz)"
    [ -e "$dest" ] && continue
    if command -v xz >/dev/null; then
        xz -dc "$packed" >"$dest.part"
    else
        python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' \
            "$packed" >"$dest.part"
    fi && mv "$dest.part" "$dest" && echo "$SCRIPT: unpacked $(basename "$dest") into $KALAHA_CACHE" >&2
done
