"""The C archives (dist/c, scripts/c_package.py): each one's libraries checked as files; the book's C examples
built against the archive and run: on Linux x86-64 with pkg-config (shared and static) and with CMake
(`find_package(cuecard)`, both targets); on Linux ARM64 under qemu and musl x86-64 natively, cross-compiled with
zig; on Windows under wine, linked with the import library."""

import os
import subprocess
import tempfile

from . import common
from .binaries import c_libraries, check_elf_library, check_macho, check_pe
from .common import ARM64_SYSROOT, VERSION, missing, qemu, read_bytes, report, skipped, wine, zig

TARGETS = ("x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu", "x86_64-unknown-linux-musl",
           "aarch64-unknown-linux-musl", "x86_64-apple-darwin", "aarch64-apple-darwin", "x86_64-pc-windows-gnu")
EXAMPLES = ("quickstart", "front_page")
CMAKE_PROJECT = """cmake_minimum_required(VERSION 3.16)
project(cuecard_user C)
find_package(cuecard {version} REQUIRED)
add_executable(quickstart_shared quickstart.c)
target_link_libraries(quickstart_shared PRIVATE cuecard::cuecard)
add_executable(quickstart_static quickstart.c)
target_link_libraries(quickstart_static PRIVATE cuecard::cuecard_static)
"""


def ran(command, label, **kwargs):
    """Runs a build or an example; reports a failure with its output, and returns whether it succeeded."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    if done.returncode != 0:
        report(False, f"{label}: {' '.join(command[:3])}... failed: {(done.stderr or done.stdout).strip()[-300:]}")
    return done.returncode == 0


# What each example prints when it worked: the quickstart's closing line, the front page's scripted answer.
EXPECTED = {"quickstart": f"quickstart (C): ok, cuecard {VERSION}", "front_page": '"text":"Hello!"'}


def example_passes(example, command, label, **kwargs):
    """An example ran to its end and printed what it prints when it worked."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)
    report(done.returncode == 0 and EXPECTED[example] in done.stdout,
           f"{label} ({done.stdout.strip().splitlines()[-1:] or done.stderr.strip()[-200:]})")


def check_files(root, target):
    for part in ("include/cuecard.h", "lib/pkgconfig/cuecard.pc", "lib/cmake/cuecard/cuecard-config.cmake",
                 "lib/cmake/cuecard/cuecard-config-version.cmake", "lib/libcuecard_ffi.a"):
        report(os.path.exists(os.path.join(root, part)), f"c {target}: has {part}")
    if "windows" in target:
        check_pe(f"c {target}: bin/cuecard_ffi.dll", read_bytes(os.path.join(root, "bin", "cuecard_ffi.dll")), dll=True)
    elif "apple" in target:
        cpu = "arm64" if target.startswith("aarch64") else "x86_64"
        check_macho(f"c {target}: lib/libcuecard_ffi.dylib", read_bytes(os.path.join(root, "lib",
                                                                                      "libcuecard_ffi.dylib")), cpu)
        skipped(f"c {target}: not run (no macOS here)")
    else:
        machine = "aarch64" if target.startswith("aarch64") else "x86-64"
        allowed = c_libraries(musl=target.endswith("musl"))
        check_elf_library(f"c {target}: lib/libcuecard_ffi.so", read_bytes(os.path.join(root, "lib",
                                                                                         "libcuecard_ffi.so")),
                          machine, allowed)


def pkg_config(root, *flags):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(root, "lib", "pkgconfig"))
    printed = subprocess.run(["pkg-config", *flags, "cuecard"], env=env, capture_output=True, text=True)
    return printed.stdout.split() if printed.returncode == 0 else None


def check_native(root):
    """Linux x86-64 (glibc): pkg-config's version, then each example shared and static, then CMake."""
    target = "x86_64-unknown-linux-gnu"
    report(pkg_config(root, "--modversion") == [VERSION], f"c {target}: pkg-config says version {VERSION}")
    out = tempfile.mkdtemp(prefix="cuecard-c-user-")
    shared, static = pkg_config(root, "--cflags", "--libs"), pkg_config(root, "--cflags", "--libs", "--static")
    for example in EXAMPLES:
        source = os.path.join(root, "examples", f"{example}.c")
        program = os.path.join(out, example)
        if ran(["cc", "-std=c11", source, *shared, f"-Wl,-rpath,{root}/lib", "-o", program], f"c {target}"):
            example_passes(example, [program], f"c {target}: {example} built with pkg-config, shared")
        # The static library before the shared one: link it by its path, with what --static adds.
        static_flags = [flag for flag in static if flag not in ("-lcuecard_ffi",)]
        if ran(["cc", "-std=c11", source, os.path.join(root, "lib", "libcuecard_ffi.a"), *static_flags,
                "-o", program + "_static"], f"c {target}"):
            needs = subprocess.run(["ldd", program + "_static"], capture_output=True, text=True).stdout
            example_passes(example, [program + "_static"], f"c {target}: {example} built with pkg-config --static"
                           + (" (FAILS: links libcuecard_ffi.so)" if "cuecard" in needs else ""))
    cmake = os.path.join(out, "cmake")
    os.makedirs(cmake)
    with open(os.path.join(cmake, "CMakeLists.txt"), "w") as f:
        f.write(CMAKE_PROJECT.format(version=VERSION))
    with open(os.path.join(root, "examples", "quickstart.c")) as source, open(os.path.join(cmake, "quickstart.c"),
                                                                              "w") as copy:
        copy.write(source.read())
    build = os.path.join(cmake, "build")
    if ran(["cmake", "-S", cmake, "-B", build, f"-DCMAKE_PREFIX_PATH={root}"], f"c {target}: cmake") and \
            ran(["cmake", "--build", build], f"c {target}: cmake --build"):
        example_passes("quickstart", [os.path.join(build, "quickstart_shared")], f"c {target}: find_package(cuecard), shared")
        example_passes("quickstart", [os.path.join(build, "quickstart_static")], f"c {target}: find_package(cuecard), static")


def cross_compile(root, target, zig_target, example, out, static):
    """The example built with zig for `zig_target` against the archive: the path of the program, or None."""
    source = os.path.join(root, "examples", f"{example}.c")
    program = os.path.join(out, f"{example}-{'static' if static else 'shared'}")
    if "windows" in target:
        program += ".exe"
    command = zig() + ["cc", "-target", zig_target, "-std=c11", f"-I{root}/include", source, "-o", program]
    if static:
        system = [flag for flag in pkg_config(root, "--libs-only-l", "--static") if flag != "-lcuecard_ffi"]
        command += [os.path.join(root, "lib", "libcuecard_ffi.a"), *system]
        if "musl" in target:
            command += ["-static"]
        if "windows" in target:
            # MinGW's gcc links its unwinder (libgcc_eh) by itself; zig's clang needs its libunwind named.
            command += ["-lunwind"]
    elif "windows" in target:
        command += [os.path.join(root, "lib", "libcuecard_ffi.dll.a")]
    else:
        command += [f"-L{root}/lib", "-lcuecard_ffi", f"-Wl,-rpath,{root}/lib"]
    return program if ran(command, f"c {target}: zig cc {example}") else None


def check_arm64(root):
    target = "aarch64-unknown-linux-gnu"
    emulator = qemu()
    if emulator is None or not os.path.isdir(ARM64_SYSROOT):
        skipped(f"c {target}: not run (install qemu-user-static and libc6-arm64-cross)")
        return
    out = tempfile.mkdtemp(prefix="cuecard-c-arm64-")
    for example in EXAMPLES:
        for static in (False, True):
            program = cross_compile(root, target, "aarch64-linux-gnu.2.17", example, out, static)
            if program:
                example_passes(example, [emulator, "-L", ARM64_SYSROOT, program],
                               f"c {target} under qemu: {example}, {'static' if static else 'shared'}")


def check_musl(root, target):
    """musl: the examples linked fully statically (no musl loader is installed here) and run, ARM64 under qemu."""
    arch = target.split("-")[0]
    runner = [] if arch == "x86_64" else [qemu()] if qemu() else None
    if runner is None:
        skipped(f"c {target}: not run (install qemu-user-static)")
        return
    out = tempfile.mkdtemp(prefix="cuecard-c-musl-")
    for example in EXAMPLES:
        program = cross_compile(root, target, f"{arch}-linux-musl", example, out, static=True)
        if program:
            example_passes(example, runner + [program], f"c {target}{' under qemu' if runner else ''}: {example}, static")


def check_windows(root):
    target = "x86_64-pc-windows-gnu"
    emulator = wine()
    if emulator is None:
        skipped(f"c {target}: not run (no wine here)")
        return
    program_wine, env = emulator
    out = tempfile.mkdtemp(prefix="cuecard-c-windows-")
    # The DLL beside the program, where Windows looks first.
    with open(os.path.join(root, "bin", "cuecard_ffi.dll"), "rb") as dll, \
            open(os.path.join(out, "cuecard_ffi.dll"), "wb") as copy:
        copy.write(dll.read())
    for example in EXAMPLES:
        for static in (False, True):
            program = cross_compile(root, target, "x86_64-windows-gnu", example, out, static)
            if program:
                example_passes(example, [program_wine, program], f"c {target} under wine: {example}, "
                               + ("static" if static else "shared, with the import library"), env=env, cwd=out)


def check():
    for target in TARGETS:
        root = common.unpack_archive("c", f"cuecard-c-{VERSION}-{target}")
        if root is None:
            missing(f"c {target}: no archive in {common.DIST}/c")
            continue
        check_files(root, target)
        if target == "x86_64-unknown-linux-gnu":
            check_native(root)
        elif target == "aarch64-unknown-linux-gnu":
            check_arm64(root)
        elif target.endswith("-musl"):
            check_musl(root, target)
        elif "windows" in target:
            check_windows(root)
