#!/usr/bin/env bash
# The C surface: the header compiles as C11 and C++17 with every warning an error; the C suite passes plainly,
# under valgrind (no leaks, no errors) and under ASan + UBSan; the README example runs linked dynamically and
# statically; a build without the `testing` feature exports no test-only symbol. Needs cc, c++, valgrind and
# Debian's libcjson-dev. Prints its own closing line.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT="$PWD"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET/c"
mkdir -p "$OUT"
WARN=(-Wall -Wextra -Werror -pedantic)
LIB="$TARGET/debug"
STATIC_LIBS=(-lpthread -ldl -lm -lrt -lutil -lgcc_s -lc)

# The header alone, as C11 and as C++17.
printf '#include "cuecard.h"\nint main(void) { return cuecard_version_number() == CUECARD_VERSION_NUMBER ? 0 : 1; }\n' > "$OUT/header.c"
cc -std=c11 "${WARN[@]}" -Iinclude -c "$OUT/header.c" -o "$OUT/header_c.o"
c++ -std=c++17 "${WARN[@]}" -Iinclude -x c++ -c "$OUT/header.c" -o "$OUT/header_cpp.o"

# The suite, against the test build of the library. With the `jni` feature, as the JVM's build (jvm/build-native.sh
# with the dev profile, which tests/run-all.sh uses): the three builds of this script and the JVM's share one core.
cargo build -q --locked -p cuecard-ffi --features jni,testing
cc -std=c11 "${WARN[@]}" -g -Iinclude ffi/tests/c/test_ffi.c -L"$LIB" -lcuecard_ffi -lcjson -o "$OUT/test_ffi"
LD_LIBRARY_PATH="$LIB" "$OUT/test_ffi" "$ROOT"
LD_LIBRARY_PATH="$LIB" valgrind -q --leak-check=full --errors-for-leak-kinds=definite,possible --error-exitcode=1 \
  --suppressions=ffi/tests/c/valgrind.supp \
  "$OUT/test_ffi" "$ROOT" | sed 's/^c ffi:/c ffi under valgrind:/'
cc -std=c11 "${WARN[@]}" -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -Iinclude \
  ffi/tests/c/test_ffi.c -L"$LIB" -lcuecard_ffi -lcjson -o "$OUT/test_ffi_asan"
LD_LIBRARY_PATH="$LIB" ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$OUT/test_ffi_asan" "$ROOT" \
  | sed 's/^c ffi:/c ffi under ASan+UBSan:/'

# A build without the test-only exports: none of them in the symbol table; the example, linked both ways.
cargo build -q --locked -p cuecard-ffi --features jni
if nm -D --defined-only "$LIB/libcuecard_ffi.so" | grep -q cuecard_testing_; then
  echo "a build without the testing feature exports cuecard_testing_* symbols" >&2; exit 1
fi
cc -std=c11 "${WARN[@]}" -Iinclude examples/c/quickstart.c -L"$LIB" -lcuecard_ffi -o "$OUT/quickstart"
LD_LIBRARY_PATH="$LIB" "$OUT/quickstart" > "$OUT/quickstart.out"
cc -std=c11 "${WARN[@]}" -Iinclude examples/c/quickstart.c "$LIB/libcuecard_ffi.a" "${STATIC_LIBS[@]}" -o "$OUT/quickstart_static"
"$OUT/quickstart_static" > "$OUT/quickstart_static.out"
if ldd "$OUT/quickstart_static" | grep -q cuecard; then echo "the static example links libcuecard dynamically" >&2; exit 1; fi
tail -1 "$OUT/quickstart.out"
# The README's front-page example.
cc -std=c11 "${WARN[@]}" -Iinclude examples/c/front_page.c -L"$LIB" -lcuecard_ffi -o "$OUT/front_page"
LD_LIBRARY_PATH="$LIB" "$OUT/front_page" | grep -q '"text":"Hello!"'
# The per-call benchmark compiles (it is run by hand against a release library: see its header).
cc -std=c11 "${WARN[@]}" -O2 -Iinclude ffi/bench/bench_calls.c -L"$LIB" -lcuecard_ffi -o "$OUT/bench_calls"
echo "c: header C11 + C++17, suite plain + valgrind + ASan/UBSan, example dynamic + static, no test symbols: 7 passed, 0 failed"
