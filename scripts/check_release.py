#!/usr/bin/env python3
"""Runs the release in dist/ where it can run here (issue #58 §2, §3), and checks what cannot run.

    python3 scripts/check_release.py [DIST] [--all] [--only cli,image,python,npm,c,jvm,go,action]

One module of scripts/release_checks/ per kind of artifact, each saying in its docstring what it checks:
- cli: the static CLI, run on Linux x86-64, under qemu-user on ARM64, under wine on Windows; Mach-O files checked.
- image: the container image's layout, its root filesystems run under chroot (arm64 under qemu).
- python: the wheels' tags (auditwheel), the macOS and Windows extension modules as files, the x86-64 wheel
  installed into a clean venv with no cargo and running the README example.
- npm: the packages installed from their tarballs into clean projects (npm choosing the platform package), the
  README example run on x86-64, on ARM64 under qemu and on Windows under wine.
- c: the archives' libraries; the examples built with pkg-config and CMake here, cross-built with zig and run
  under qemu (ARM64) and wine (Windows).
- jvm: the jar's manifest and its JNI library for every target; a program on the jar run here.
- go: the Go module fetched from dist/go as a module proxy by a new module, its first test run; built for other
  platforms without cgo.
- action: the CI action (action.yml) run as a runner runs it.
Emulators missing here (qemu-user-static, Debian's arm64 cross libc, wine64) make their runs skipped, and said.

Each check prints one line; the script exits 1 when one fails. An artifact that is not there is skipped (CI builds
a subset), unless `--all` is given (after scripts/release.sh of every target): then it fails.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from release_checks import action, c, cli, common, go, image, jvm, node, python  # noqa: E402

KINDS = {"cli": cli, "image": image, "python": python, "npm": node, "c": c, "jvm": jvm, "go": go, "action": action}


def main(arguments):
    only = list(KINDS)
    if "--only" in arguments:
        at = arguments.index("--only")
        only = arguments[at + 1].split(",")
        del arguments[at:at + 2]
        unknown = [kind for kind in only if kind not in KINDS]
        if unknown:
            sys.exit(f"check_release: no such kind {unknown}; kinds: {', '.join(KINDS)}")
    require_all = "--all" in arguments
    folders = [a for a in arguments if a != "--all"]
    common.configure(folders[0] if folders else os.path.join(common.ROOT, "dist"), require_all)
    for kind in only:
        KINDS[kind].check()
    if common.failures:
        print(f"release check: {len(common.failures)} failed")
        sys.exit(1)
    print("release check: passed")


if __name__ == "__main__":
    main(sys.argv[1:])
