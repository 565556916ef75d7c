"""The JVM jar (dist/jvm): its manifest names the release; its resources hold the JNI library of every target,
each checked as a file; on this machine a program on the jar (and its Jackson) loads the library from the jar's
resources and answers."""

import os
import shutil
import subprocess
import tempfile
import zipfile

from . import common
from .binaries import c_libraries, check_elf_library, check_macho, check_pe
from .common import ROOT, VERSION, missing, report, skipped

# dev.cuecard.internal.Native's resource folder per target -> how to check its library.
PLATFORMS = {
    "linux-x86_64": ("libcuecard_ffi.so", "x86-64"), "linux-aarch64": ("libcuecard_ffi.so", "aarch64"),
    "linux-x86_64-musl": ("libcuecard_ffi.so", "x86-64"), "linux-aarch64-musl": ("libcuecard_ffi.so", "aarch64"),
    "macos-x86_64": ("libcuecard_ffi.dylib", "x86_64"), "macos-aarch64": ("libcuecard_ffi.dylib", "arm64"),
    "windows-x86_64": ("cuecard_ffi.dll", None),
}
SMOKE = """
import dev.cuecard.Cuecard;
import dev.cuecard.CuecardAssertions;
import dev.cuecard.MockModel;

public class Smoke {
    public static void main(String[] args) {
        MockModel model = MockModel.thatResponds("Hello!");
        String text = model.chat("Hi").text();
        CuecardAssertions.assertThat(model).scriptFullyUsed();
        System.out.println(text + " " + Cuecard.version() + " " + Cuecard.class.getPackage().getImplementationVersion());
    }
}
"""


def check_library(jar, platform):
    file, machine = PLATFORMS[platform]
    name = f"dev/cuecard/native/{platform}/{file}"
    if name not in jar.namelist():
        missing(f"jvm: no {name} in the jar")
        return
    data, label = jar.read(name), f"jvm: {platform}/{file}"
    if file.endswith(".so"):
        check_elf_library(label, data, machine, c_libraries(musl=platform.endswith("musl")))
    elif file.endswith(".dylib"):
        check_macho(label, data, machine)
    else:
        check_pe(label, data, dll=True)


def check():
    path = os.path.join(common.DIST, "jvm", f"cuecard-{VERSION}.jar")
    if not os.path.exists(path):
        missing("jvm: no jar in dist/jvm")
        return
    with zipfile.ZipFile(path) as jar:
        manifest = jar.read("META-INF/MANIFEST.MF").decode()
        report(f"Implementation-Version: {VERSION}" in manifest, f"jvm: the manifest says Implementation-Version {VERSION}")
        for platform in PLATFORMS:
            check_library(jar, platform)
    if shutil.which("java") is None or shutil.which("mvn") is None:
        skipped("jvm: not run (no java or mvn here)")
        return
    scratch = tempfile.mkdtemp(prefix="cuecard-jvm-user-")
    classpath_file = os.path.join(scratch, "classpath")
    resolved = subprocess.run(["mvn", "-B", "-ntp", "-q", "dependency:build-classpath", "-Dmdep.includeScope=runtime",
                               f"-Dmdep.outputFile={classpath_file}"], cwd=os.path.join(ROOT, "jvm"),
                              capture_output=True, text=True, timeout=600)
    if resolved.returncode != 0:
        report(False, f"jvm: the jar's dependencies resolve ({resolved.stdout.strip()[-200:]})")
        return
    with open(classpath_file) as f:
        classpath = os.pathsep.join([path, f.read().strip()])
    with open(os.path.join(scratch, "Smoke.java"), "w") as f:
        f.write(SMOKE)
    # No cuecard.library property and no cargo: the library can only come from the jar.
    done = subprocess.run(["java", "-cp", classpath, "Smoke.java"], cwd=scratch, capture_output=True, text=True,
                          timeout=300)
    report(done.stdout.strip() == f"Hello! {VERSION} {VERSION}",
           f"jvm: a program on the jar loads linux-x86_64 from its resources and answers "
           f"({done.stdout.strip() or done.stderr.strip()[-200:]})")
