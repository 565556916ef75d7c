#!/usr/bin/env bash
# Builds every release artifact of cuecard into dist/ from a clean clone, on Linux x86-64 (issue #58):
#   dist/cli/cuecard-VERSION-TARGET.tar.gz (.zip for Windows) and .sha256: the static `cuecard` for each target
#     (musl on Linux, so it runs on any distribution and FROM scratch);
#   dist/image/: the container image, FROM scratch, amd64 and arm64, as an OCI image layout (scripts/oci_image.py);
#   dist/python/: one abi3 wheel per platform tag (manylinux2014, musllinux_1_2, macOS, Windows) and the sdist;
#   dist/npm/: the npm packages in the napi-rs layout: `cuecard` and one `cuecard-<platform>` per target
#     (scripts/npm_packages.py);
#   dist/c/cuecard-c-VERSION-TARGET.tar.gz (.zip for Windows): include/cuecard.h, the shared and static libraries,
#     a pkg-config file and a CMake package (scripts/c_package.py);
#   dist/jvm/cuecard-VERSION.jar: the JVM package with the JNI library of every target in its resources;
#   dist/go/cuecard.dev/cuecard/@v/vVERSION.zip and .mod: the Go module, with the engine's WebAssembly (every
#     platform; GO_MODULE=0 skips it);
#   dist/SHA256SUMS: every archive's sum.
# Every cross build uses cargo-zigbuild: zig is the C compiler and linker of every target (ring and mimalloc have
# C), and links Linux's GNU builds against glibc 2.17 (manylinux2014).
#
#   scripts/release.sh                       # everything, the dist profile (fat LTO): about an hour on 2 cores
#   CLI_TARGETS=aarch64-unknown-linux-musl PY_TARGETS= NODE_TARGETS= LIB_TARGETS= scripts/release.sh
#   PROFILE=release scripts/release.sh       # quicker, less optimised (CI's check)
#   DIST=/somewhere scripts/release.sh       # dist/ by default
# An empty *_TARGETS skips that kind; the JVM jar is built when LIB_TARGETS is not empty.
#
# Tools it installs when missing: the Rust targets (rustup), ziglang, cargo-zigbuild and maturin from PyPI into
# $CARGO_TARGET_DIR/release-tools, the Node package's npm dependencies and wasm-bindgen-cli (the browser bundle).
# It needs Node, npm, a JDK and Maven for those packages, and MinGW-w64's gcc for the Windows wheel (Debian's
# gcc-mingw-w64-x86-64, installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PROFILE="${PROFILE:-dist}"
LINUX="x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl"
OTHERS="x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu"
CLI_TARGETS="${CLI_TARGETS-x86_64-unknown-linux-musl aarch64-unknown-linux-musl $OTHERS}"
PY_TARGETS="${PY_TARGETS-$LINUX $OTHERS}"
NODE_TARGETS="${NODE_TARGETS-$LINUX $OTHERS}"
LIB_TARGETS="${LIB_TARGETS-$LINUX $OTHERS}"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
DIST="${DIST:-$ROOT/dist}"
started=$SECONDS

tools="$CARGO_TARGET_DIR/release-tools"
if [ ! -x "$tools/bin/cargo-zigbuild" ] || [ ! -x "$tools/bin/maturin" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q ziglang==0.15.2 cargo-zigbuild==0.24.1 maturin==1.16.0
fi
export PATH="$tools/bin:$PATH"
# zig's clang makes __DATE__ an error (-Werror=date-time, for reproducible builds); mimalloc prints it in a
# verbose banner that is never shown.
export TARGET_CFLAGS="${TARGET_CFLAGS:-} -Wno-error=date-time"
# napi's build script on Windows with MinGW insists on finding a libnode.dll to link; the addon resolves N-API from
# node.exe at run time instead (node/Cargo.toml, `dyn-symbols`), so an empty stand-in satisfies the search.
mkdir -p "$tools/libnode"
[ -f "$tools/libnode/libnode.a" ] || printf '!<arch>\n' > "$tools/libnode/libnode.a"
touch "$tools/libnode/libnode.dll"
export LIBNODE_PATH="$tools/libnode"
# Deterministic archives: sorted names, no owner, the time of the release's commit.
EPOCH="$(git log -1 --format=%ct 2>/dev/null || echo 0)"

add_target() {
  rustup target list --installed | grep -qx "$1" || rustup target add "$1" >/dev/null
}

# Builds with zig for one target: `zig_build bin|lib TARGET zigbuild|rustc CARGO-ARGUMENTS...` (`lib`: a cdylib,
# which on musl must link libc dynamically). Rust's own minimum macOS versions are set, or zig's linker would stamp
# a newer one.
zig_build() {
  local kind="$1" target="$2" zig_target="$2" command="$3"
  shift 3
  add_target "$target"
  local env=()
  case "$target" in
    aarch64-apple-darwin) env+=(MACOSX_DEPLOYMENT_TARGET=11.0) ;;
    x86_64-apple-darwin) env+=(MACOSX_DEPLOYMENT_TARGET=10.12) ;;
    *-linux-gnu) zig_target="$target.2.17" ;;
    *-linux-musl)
      if [ "$kind" = lib ]; then
        local variable
        variable="CARGO_TARGET_$(echo "$target" | tr 'a-z-' 'A-Z_')_RUSTFLAGS"
        env+=("$variable=-C target-feature=-crt-static")
      fi ;;
  esac
  env "${env[@]}" cargo-zigbuild "$command" --locked --profile "$PROFILE" --target "$zig_target" "$@"
}

# The file a cdylib named NAME is built as for TARGET.
library_file() {
  local name="$1" target="$2"
  case "$target" in
    *windows*) echo "$CARGO_TARGET_DIR/$target/$PROFILE/$name.dll" ;;
    *apple*) echo "$CARGO_TARGET_DIR/$target/$PROFILE/lib$name.dylib" ;;
    *) echo "$CARGO_TARGET_DIR/$target/$PROFILE/lib$name.so" ;;
  esac
}

# `archive STAGING NAME OUT`: STAGING/NAME packed into OUT (.zip or .tar.gz), deterministically, with OUT.sha256.
archive() {
  local staging="$1" name="$2" out="$3"
  case "$out" in
    *.zip)
      (cd "$staging" && python3 - "$name" "$out" "$EPOCH" <<'PY'
import os, sys, time, zipfile
name, out, epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
stamp = time.gmtime(max(epoch, 315532800))[:6]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
    for folder, dirs, files in sorted(os.walk(name)):
        dirs.sort()
        for file in sorted(files):
            path = os.path.join(folder, file)
            info = zipfile.ZipInfo(path, stamp)
            info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            with open(path, "rb") as handle:
                archive.writestr(info, handle.read(), zipfile.ZIP_DEFLATED)
PY
      ) ;;
    *)
      tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$EPOCH" -C "$staging" -cf - "$name" \
        | gzip -n -9 > "$out" ;;
  esac
  (cd "$(dirname "$out")" && sha256sum "$(basename "$out")" > "$(basename "$out").sha256")
}

# The CLI: a static `cuecard` per target.
if [ -n "$CLI_TARGETS" ]; then
  mkdir -p "$DIST/cli"
  for target in $CLI_TARGETS; do
    step_started=$SECONDS
    zig_build bin "$target" zigbuild -q -p cuecard-cli
    exe=cuecard
    case "$target" in *windows*) exe=cuecard.exe ;; esac
    built="$CARGO_TARGET_DIR/$target/$PROFILE/$exe"
    name="cuecard-$VERSION-$target"
    rm -f "$DIST/cli/cuecard-"*"-$target".*
    staging="$(mktemp -d)"
    mkdir "$staging/$name"
    cp "$built" "$staging/$name/$exe"
    cp README.md "$staging/$name/"
    case "$target" in *windows*) out="$DIST/cli/$name.zip" ;; *) out="$DIST/cli/$name.tar.gz" ;; esac
    archive "$staging" "$name" "$out"
    rm -rf "$staging"
    echo "release: $(basename "$out") ($(du -h "$built" | cut -f1) binary, $((SECONDS - step_started)) s)"
  done
fi

# Python: one abi3 wheel (CPython 3.10+) per platform tag, and the sdist.
if [ -n "$PY_TARGETS" ]; then
  rm -rf "$DIST/python"
  for target in $PY_TARGETS; do
    add_target "$target"
    step_started=$SECONDS
    options=(--zig)
    case "$target" in
      *-linux-gnu) options+=(--compatibility manylinux2014) ;;
      *-linux-musl) options+=(--compatibility musllinux_1_2) ;;
      aarch64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET=11.0 ;;
      x86_64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET=10.12 ;;
      # Windows with MinGW-w64's gcc, not zig: with zig, maturin 1.16 exports `PyInit_<module-name>` through a
      # .def file, and for the dotted name `cuecard._cuecard` that symbol does not exist (the link fails).
      *windows*)
        options=()
        command -v x86_64-w64-mingw32-gcc >/dev/null || apt-get install -y -q gcc-mingw-w64-x86-64 >/dev/null ;;
    esac
    (cd python && maturin build -q --locked --profile "$PROFILE" --target "$target" "${options[@]}" \
      --out "$DIST/python")
    unset MACOSX_DEPLOYMENT_TARGET
    echo "release: the Python wheel for $target ($((SECONDS - step_started)) s)"
  done
  (cd python && maturin sdist --out "$DIST/python" > /dev/null)
  (cd "$DIST/python" && sha256sum ./* > SHA256SUMS)
fi

# Node: the addon for each target, packed in the napi-rs layout with the package's JS and its browser bundle.
if [ -n "$NODE_TARGETS" ]; then
  [ -d node/node_modules ] || (cd node && npm ci --no-audit --no-fund --silent)
  wasm-bindgen --version 2>/dev/null | grep -q " 0.2.130" || cargo install -q wasm-bindgen-cli --version 0.2.130
  (cd node && npm run --silent build:browser)
  addons=()
  for target in $NODE_TARGETS; do
    step_started=$SECONDS
    zig_build lib "$target" zigbuild -q -p cuecard-node
    addons+=("$target=$(library_file cuecard_node "$target")")
    echo "release: the Node addon for $target ($((SECONDS - step_started)) s)"
  done
  python3 scripts/npm_packages.py "$DIST/npm" "${addons[@]}"
  (cd "$DIST/npm" && sha256sum ./*.tgz > SHA256SUMS)
fi

# C and the JVM: one build of the ffi crate per target (the C ABI, and the JNI exports the jar loads), made into a C
# archive per target and one jar.
if [ -n "$LIB_TARGETS" ]; then
  rm -rf "$DIST/c" && mkdir -p "$DIST/c"
  natives="$(mktemp -d)"
  for target in $LIB_TARGETS; do
    step_started=$SECONDS
    # `rustc -- --print native-static-libs`: the build itself, which also says what the static library needs.
    printed="$(zig_build lib "$target" rustc -q -p cuecard-ffi --lib --features jni \
      -- --print native-static-libs 2>&1)" || { echo "$printed" >&2; exit 1; }
    static_libs="$(echo "$printed" | sed -n 's/.*native-static-libs: //p' | tail -1)"
    [ -n "$static_libs" ] || { echo "release: rustc said nothing of native-static-libs for $target" >&2; exit 1; }
    out="$DIST/c/cuecard-c-$VERSION-$target.tar.gz"
    case "$target" in *windows*) out="${out%.tar.gz}.zip" ;; esac
    staging="$(mktemp -d)"
    python3 scripts/c_package.py "$staging/cuecard-c-$VERSION-$target" "$target" "$VERSION" \
      "$CARGO_TARGET_DIR/$target/$PROFILE" "$static_libs"
    archive "$staging" "cuecard-c-$VERSION-$target" "$out"
    rm -rf "$staging"
    # The jar's resource folder for this target, as dev.cuecard.internal.Native looks for it.
    case "$target" in
      x86_64-unknown-linux-gnu) platform=linux-x86_64 ;;
      aarch64-unknown-linux-gnu) platform=linux-aarch64 ;;
      x86_64-unknown-linux-musl) platform=linux-x86_64-musl ;;
      aarch64-unknown-linux-musl) platform=linux-aarch64-musl ;;
      x86_64-apple-darwin) platform=macos-x86_64 ;;
      aarch64-apple-darwin) platform=macos-aarch64 ;;
      x86_64-pc-windows-gnu) platform=windows-x86_64 ;;
    esac
    library="$(library_file cuecard_ffi "$target")"
    mkdir -p "$natives/dev/cuecard/native/$platform"
    cp "$library" "$natives/dev/cuecard/native/$platform/"
    echo "release: $(basename "$out") and the JNI library for $platform ($((SECONDS - step_started)) s)"
  done
  step_started=$SECONDS
  rm -rf "$DIST/jvm" && mkdir -p "$DIST/jvm"
  (cd jvm && mvn -B -ntp -q -Dstyle.color=never package -Dmaven.test.skip=true -Dcuecard.natives="$natives" \
    -Dproject.build.outputTimestamp="$EPOCH")
  cp "jvm/target/cuecard-$VERSION.jar" "$DIST/jvm/"
  (cd "$DIST/jvm" && sha256sum ./*.jar > SHA256SUMS)
  rm -rf "$natives"
  echo "release: cuecard-$VERSION.jar ($((SECONDS - step_started)) s)"
fi

# Go: the module (go/ without its tests) with the engine's WebAssembly in it (go/build.sh), zipped as a Go module
# proxy serves a version: dist/go/cuecard.dev/cuecard/@v/vVERSION.zip (paths under `cuecard.dev/cuecard@vVERSION/`)
# and its go.mod beside it. One module serves every GOOS/GOARCH: the engine runs on wazero, in pure Go.
if [ "${GO_MODULE:-1}" = 1 ]; then
  step_started=$SECONDS
  go/build.sh > /dev/null
  module_dir="$DIST/go/cuecard.dev/cuecard/@v"
  rm -rf "$DIST/go" && mkdir -p "$module_dir"
  staging=$(mktemp -d)
  root="$staging/cuecard.dev/cuecard@v$VERSION"
  mkdir -p "$root"
  for file in go/go.mod go/go.sum go/cuecard.wasm go/*.go; do
    case "$file" in *_test.go) ;; *) cp "$file" "$root/" ;; esac
  done
  # The unpacked module builds and vets as a user's `go get` would build it (the embed included).
  (cd "$root" && "${GO:-$(command -v go || echo /usr/local/go/bin/go)}" vet ./...)
  archive "$staging" "cuecard.dev" "$module_dir/v$VERSION.zip"
  cp go/go.mod "$module_dir/v$VERSION.mod"
  echo "v$VERSION" > "$module_dir/list"
  printf '{"Version":"v%s","Time":"%s"}\n' "$VERSION" "$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)" \
    > "$module_dir/v$VERSION.info"
  rm -rf "$staging"
  echo "release: the Go module cuecard.dev/cuecard v$VERSION ($((SECONDS - step_started)) s)"
fi

# The container image: the Linux builds of this run, amd64 and arm64.
images=()
for pair in amd64=x86_64-unknown-linux-musl arm64=aarch64-unknown-linux-musl; do
  binary="$CARGO_TARGET_DIR/${pair#*=}/$PROFILE/cuecard"
  case " $CLI_TARGETS " in *" ${pair#*=} "*) images+=("${pair%%=*}=$binary") ;; esac
done
if [ "${#images[@]}" -gt 0 ]; then
  rm -rf "$DIST/image"
  python3 scripts/oci_image.py "$DIST/image" "$VERSION" "${images[@]}"
fi
(cd "$DIST" && find cli c -name '*.sha256' 2>/dev/null | sort | xargs -r cat > SHA256SUMS)
echo "release: cuecard $VERSION into $DIST in $((SECONDS - started)) s"
