#!/usr/bin/env bash
# Builds the native library for the JVM (the ffi crate with its `jni` feature: the C ABI and the JNI exports in one
# library) and copies it where dev.cuecard.internal.Native looks on the classpath:
# <classes>/dev/cuecard/native/<os>-<arch>/<library>. Maven runs it in process-resources.
#   build-native.sh <cargo profile: release|dev|dist> <classes directory> [prebuilt natives]
# With a third argument (Maven's -Dcuecard.natives=DIR, as scripts/release.sh gives it), it builds nothing and copies
# DIR/dev/cuecard/native/* instead: the release's libraries for every target.
set -euo pipefail
profile="${1:-release}"
classes="${2:?the classes directory}"
natives="${3:-}"
if [ -n "$natives" ]; then
  mkdir -p "$classes/dev/cuecard/native"
  cp -R "$natives/dev/cuecard/native/." "$classes/dev/cuecard/native/"
  echo "cuecard: native libraries for $(ls "$natives/dev/cuecard/native" | tr '\n' ' ')from $natives"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
(cd "$root" && cargo build -q --locked -p cuecard-ffi --features jni --profile "$profile")
case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
case "$(uname -s)" in
  Linux) os=linux; lib=libcuecard_ffi.so ;;
  Darwin) os=macos; lib=libcuecard_ffi.dylib ;;
  *) os=windows; lib=cuecard_ffi.dll ;;
esac
case "$(uname -m)" in x86_64|amd64) arch=x86_64 ;; arm64|aarch64) arch=aarch64 ;; *) arch="$(uname -m)" ;; esac
mkdir -p "$classes/dev/cuecard/native/$os-$arch"
cp "$target/$dir/$lib" "$classes/dev/cuecard/native/$os-$arch/$lib"
echo "cuecard: native library $target/$dir/$lib -> classpath dev/cuecard/native/$os-$arch/"
