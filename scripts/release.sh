#!/usr/bin/env bash
# Builds cuecard's release artifacts into dist/ from a clean clone, on Linux x86-64 (issue #58). So far:
#   dist/cli/cuecard-VERSION-TARGET.tar.gz (.zip for Windows) and .sha256: the static `cuecard` for each target
#     (musl on Linux, so it runs on any distribution and FROM scratch), cross-compiled with cargo-zigbuild;
#   dist/image/: the container image, FROM scratch, amd64 and arm64, as an OCI image layout (scripts/oci_image.py);
#   dist/SHA256SUMS: every archive's sum.
#   dist/python/: the abi3 wheels for manylinux2014 x86-64 and ARM64 (zig), and the sdist.
# The npm platform packages, the JVM jar with every target's library and the C archives are the issue's next
# steps; they are not built yet (nor the macOS, Windows and musllinux wheels).
#
#   scripts/release.sh                      # every target
#   TARGETS="x86_64-unknown-linux-musl" scripts/release.sh
#   PROFILE=release scripts/release.sh      # quicker, less optimised (CI's check); dist by default
#
# Tools it installs when missing: the Rust targets (rustup), and ziglang with cargo-zigbuild from PyPI into
# $CARGO_TARGET_DIR/release-tools (zig is the C compiler and linker of every cross target: ring and mimalloc have C).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
PROFILE="${PROFILE:-dist}"
ALL_TARGETS="x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-pc-windows-gnu x86_64-apple-darwin aarch64-apple-darwin"
TARGETS="${TARGETS-$ALL_TARGETS}"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
DIST="${DIST:-$PWD/dist}"
started=$SECONDS

tools="$CARGO_TARGET_DIR/release-tools"
if [ ! -x "$tools/bin/cargo-zigbuild" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q ziglang==0.15.2 cargo-zigbuild==0.24.1
fi
export PATH="$tools/bin:$PATH"
# zig's clang makes __DATE__ an error (-Werror=date-time, for reproducible builds); mimalloc prints it in a
# verbose banner that is never shown.
export TARGET_CFLAGS="${TARGET_CFLAGS:-} -Wno-error=date-time"

mkdir -p "$DIST/cli"
for target in $TARGETS; do
  rustup target list --installed | grep -qx "$target" || rustup target add "$target" >/dev/null
  step_started=$SECONDS
  # Rust's own minimum macOS versions (zig's linker would otherwise stamp a newer one).
  case "$target" in
    aarch64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET=11.0 ;;
    x86_64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET=10.12 ;;
    *) unset MACOSX_DEPLOYMENT_TARGET ;;
  esac
  cargo zigbuild -q --locked --profile "$PROFILE" -p cuecard-cli --target "$target"
  exe=cuecard
  case "$target" in *windows*) exe=cuecard.exe ;; esac
  built="$CARGO_TARGET_DIR/$target/$PROFILE/$exe"
  name="cuecard-$VERSION-$target"
  rm -f "$DIST/cli/cuecard-"*"-$target".*
  staging="$(mktemp -d)"
  mkdir "$staging/$name"
  cp "$built" "$staging/$name/$exe"
  cp README.md "$staging/$name/"
  # Deterministic archives: sorted names, no owner, the time of the release's commit.
  epoch="$(git log -1 --format=%ct 2>/dev/null || echo 0)"
  case "$target" in
    *windows*)
      (cd "$staging" && python3 - "$name" "$DIST/cli/$name.zip" "$epoch" <<'PY'
import os, sys, time, zipfile
name, out, epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
stamp = time.gmtime(max(epoch, 315532800))[:6]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
    for file in sorted(os.listdir(name)):
        info = zipfile.ZipInfo(f"{name}/{file}", stamp)
        info.external_attr = 0o755 << 16
        with open(os.path.join(name, file), "rb") as handle:
            archive.writestr(info, handle.read(), zipfile.ZIP_DEFLATED)
PY
      )
      archive="$name.zip" ;;
    *)
      tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$staging" -cf - "$name" \
        | gzip -n -9 > "$DIST/cli/$name.tar.gz"
      archive="$name.tar.gz" ;;
  esac
  rm -rf "$staging"
  (cd "$DIST/cli" && sha256sum "$archive" > "$archive.sha256")
  echo "release: $archive ($(du -h "$built" | cut -f1) binary, $((SECONDS - step_started)) s)"
done

# Python: one abi3 wheel (CPython 3.10+) per Linux platform tag, built with zig for glibc 2.17 (manylinux2014),
# and the sdist. PY_TARGETS="" skips them.
PY_TARGETS="${PY_TARGETS-x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu}"
if [ -n "$PY_TARGETS" ]; then
  [ -x "$tools/bin/maturin" ] || "$tools/bin/pip" install -q maturin==1.16.0
  rm -rf "$DIST/python"
  for target in $PY_TARGETS; do
    rustup target list --installed | grep -qx "$target" || rustup target add "$target" >/dev/null
    step_started=$SECONDS
    (cd python && maturin build -q --locked --profile "$PROFILE" --zig --target "$target" \
      --compatibility manylinux2014 --out "$DIST/python")
    echo "release: the Python wheel for $target ($((SECONDS - step_started)) s)"
  done
  (cd python && maturin sdist --out "$DIST/python" > /dev/null)
  (cd "$DIST/python" && sha256sum ./* > SHA256SUMS)
fi

# The container image: the Linux builds of this run, amd64 and arm64.
images=()
for pair in amd64=x86_64-unknown-linux-musl arm64=aarch64-unknown-linux-musl; do
  binary="$CARGO_TARGET_DIR/${pair#*=}/$PROFILE/cuecard"
  case " $TARGETS " in *" ${pair#*=} "*) images+=("${pair%%=*}=$binary") ;; esac
done
if [ "${#images[@]}" -gt 0 ]; then
  rm -rf "$DIST/image"
  python3 scripts/oci_image.py "$DIST/image" "$VERSION" "${images[@]}"
fi
(cd "$DIST/cli" && cat ./*.sha256 > "$DIST/SHA256SUMS")
echo "release: cuecard $VERSION into $DIST in $((SECONDS - started)) s"
