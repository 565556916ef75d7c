#!/usr/bin/env python3
"""Lays out the C package of one target (issue #58): the header, the shared and static libraries, a pkg-config file
and a CMake package, so that either of these builds a program against it:

    cc app.c $(PKG_CONFIG_PATH=<root>/lib/pkgconfig pkg-config --cflags --libs cuecard)
    cmake -DCMAKE_PREFIX_PATH=<root> ...   # find_package(cuecard) gives cuecard::cuecard and cuecard::cuecard_static

    scripts/c_package.py OUT TARGET VERSION BUILD_DIR "STATIC_LIBS"

BUILD_DIR holds the ffi crate's build for TARGET; STATIC_LIBS is what rustc printed (`--print native-static-libs`)
that the static library needs at link time. scripts/release.sh archives OUT.
"""

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def libraries(target):
    """(shared library, where it goes, import library or None, static library) file names for TARGET."""
    if "windows" in target:
        return "cuecard_ffi.dll", "bin", "libcuecard_ffi.dll.a", "libcuecard_ffi.a"
    if "apple" in target:
        return "libcuecard_ffi.dylib", "lib", None, "libcuecard_ffi.a"
    return "libcuecard_ffi.so", "lib", None, "libcuecard_ffi.a"


def cmake_link_items(static_libs):
    """rustc's `-lfoo -framework Bar` as CMake's INTERFACE_LINK_LIBRARIES items."""
    items, words = [], static_libs.split()
    i = 0
    while i < len(words):
        if words[i] == "-framework" and i + 1 < len(words):
            items.append(f"-framework {words[i + 1]}")
            i += 2
            continue
        items.append(words[i][2:] if words[i].startswith("-l") else words[i])
        i += 1
    # rustc repeats some (the order matters to a one-pass linker); CMake keeps a list as given.
    return ";".join(items)


def pkg_config(version, static_libs):
    return f"""prefix=${{pcfiledir}}/../..
libdir=${{prefix}}/lib
includedir=${{prefix}}/include

Name: cuecard
Description: A deterministic stand-in for the LLM in tests (the C ABI of cuecard)
Version: {version}
Cflags: -I${{includedir}}
Libs: -L${{libdir}} -lcuecard_ffi
Libs.private: {static_libs}
"""


def cmake_config(target, static_libs):
    shared, folder, implib, static = libraries(target)
    shared_location = f"${{_cuecard_prefix}}/{folder}/{shared}"
    implib_line = f'\n  IMPORTED_IMPLIB "${{_cuecard_prefix}}/lib/{implib}"' if implib else ""
    if "apple" in target:
        soname = f'\n  IMPORTED_SONAME "@rpath/{shared}"'
    elif "windows" in target:
        soname = ""
    else:
        soname = f'\n  IMPORTED_NO_SONAME TRUE'
    return f"""# find_package(cuecard): the C ABI of cuecard for {target}.
#   cuecard::cuecard         the shared library ({shared})
#   cuecard::cuecard_static  the static library ({static}), with the system libraries it needs
get_filename_component(_cuecard_prefix "${{CMAKE_CURRENT_LIST_DIR}}/../../.." ABSOLUTE)

if(NOT TARGET cuecard::cuecard)
  add_library(cuecard::cuecard SHARED IMPORTED)
  set_target_properties(cuecard::cuecard PROPERTIES
  IMPORTED_LOCATION "{shared_location}"{implib_line}{soname}
  INTERFACE_INCLUDE_DIRECTORIES "${{_cuecard_prefix}}/include")
endif()

if(NOT TARGET cuecard::cuecard_static)
  add_library(cuecard::cuecard_static STATIC IMPORTED)
  set_target_properties(cuecard::cuecard_static PROPERTIES
  IMPORTED_LOCATION "${{_cuecard_prefix}}/lib/{static}"
  INTERFACE_INCLUDE_DIRECTORIES "${{_cuecard_prefix}}/include"
  INTERFACE_LINK_LIBRARIES "{cmake_link_items(static_libs)}")
endif()

unset(_cuecard_prefix)
"""


def cmake_version(version):
    major, minor = version.split(".")[:2]
    # Before 1.0 a minor release may break the ABI: the same major and minor are compatible, not older ones.
    return f"""set(PACKAGE_VERSION "{version}")
if(PACKAGE_FIND_VERSION_MAJOR EQUAL {major} AND PACKAGE_FIND_VERSION_MINOR EQUAL {minor}
   AND NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
else()
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
endif()
"""


README = """# cuecard {version} for C ({target})

- `include/cuecard.h`: the C ABI (docs/reference/c.md in the repository).
- `{folder}/{shared}`: the shared library; `lib/{static}`: the static library.
- `lib/pkgconfig/cuecard.pc` and `lib/cmake/cuecard/`: for pkg-config and CMake.
- `examples/`: the book's quickstart and front-page examples.

With pkg-config (`--static` adds the system libraries the static library needs):

    export PKG_CONFIG_PATH="$PWD/lib/pkgconfig"
    cc examples/quickstart.c $(pkg-config --cflags --libs cuecard) -Wl,-rpath,"$PWD/lib" -o quickstart

With CMake:

    find_package(cuecard {version} REQUIRED)   # cmake -DCMAKE_PREFIX_PATH=<this folder>
    target_link_libraries(app PRIVATE cuecard::cuecard)   # or cuecard::cuecard_static

The static library needs, after it on the link line: {static_libs}{unwinder}
"""

WINDOWS_UNWINDER = """
(MinGW's gcc adds its unwinder, libgcc_eh, by itself; with clang or `zig cc`, add `-lunwind` as well.)"""


def main(out, target, version, build, static_libs):
    out, build = Path(out), Path(build)
    shared, folder, implib, static = libraries(target)
    for folder_name in ("include", "lib/pkgconfig", "lib/cmake/cuecard", "examples", folder):
        (out / folder_name).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "include" / "cuecard.h", out / "include" / "cuecard.h")
    shutil.copy2(build / shared, out / folder / shared)
    shutil.copyfile(build / static, out / "lib" / static)
    if implib:
        shutil.copyfile(build / implib, out / "lib" / implib)
    for example in ("quickstart.c", "front_page.c"):
        shutil.copyfile(ROOT / "examples" / "c" / example, out / "examples" / example)
    (out / "lib" / "pkgconfig" / "cuecard.pc").write_text(pkg_config(version, static_libs))
    (out / "lib" / "cmake" / "cuecard" / "cuecard-config.cmake").write_text(cmake_config(target, static_libs))
    (out / "lib" / "cmake" / "cuecard" / "cuecard-config-version.cmake").write_text(cmake_version(version))
    (out / "README.md").write_text(README.format(version=version, target=target, folder=folder, shared=shared,
                                                 static=static, static_libs=static_libs,
                                                 unwinder=WINDOWS_UNWINDER if "windows" in target else ""))


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
