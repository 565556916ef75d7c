"""Reads the executable formats of the release from their bytes (no binutils for foreign targets here): ELF's
loader and needed libraries, PE's header and imports, Mach-O's CPU, minimum macOS, libraries and undefined symbols;
and the checks on them that every artifact shares (the CLI, the Node addons, the C and JNI libraries)."""

import struct

from .common import report

ELF_MACHINES = {62: "x86-64", 183: "aarch64"}


def elf_dynamic(data):
    """(machine, has a loader, the DT_NEEDED libraries) of a 64-bit little-endian ELF file; None if it is not one."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    has_loader, needed_offsets, strtab_address, load_segments = False, [], None, []
    for i in range(phnum):
        header = phoff + i * phentsize
        p_type, = struct.unpack_from("<I", data, header)
        p_offset, p_vaddr = struct.unpack_from("<QQ", data, header + 8)
        p_filesz, = struct.unpack_from("<Q", data, header + 32)
        if p_type == 1:  # PT_LOAD: to turn the dynamic section's addresses into file offsets
            load_segments.append((p_vaddr, p_filesz, p_offset))
        if p_type == 3:  # PT_INTERP
            has_loader = True
        if p_type == 2:  # PT_DYNAMIC (a static-pie has one too, with no DT_NEEDED)
            for j in range(0, p_filesz, 16):
                tag, value = struct.unpack_from("<qQ", data, p_offset + j)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED: an offset into the string table
                    needed_offsets.append(value)
                if tag == 5:  # DT_STRTAB
                    strtab_address = value
    def file_offset(address):
        for vaddr, size, offset in load_segments:
            if vaddr <= address < vaddr + size:
                return address - vaddr + offset
        raise ValueError(f"address {address:#x} is in no loaded segment")

    needed = []
    for name in needed_offsets:
        start = file_offset(strtab_address) + name
        needed.append(data[start:data.index(b"\0", start)].decode())
    machine, = struct.unpack_from("<H", data, 18)
    return ELF_MACHINES.get(machine, f"machine {machine}"), has_loader, needed


def elf_is_static(data):
    """(whether the file runs with no loader and no shared library, what was found)."""
    parsed = elf_dynamic(data)
    if parsed is None:
        return False, "not a 64-bit ELF file"
    machine, has_loader, needed = parsed
    if has_loader:
        return False, "it names a dynamic loader"
    if needed:
        return False, f"it needs {', '.join(needed)}"
    return True, machine


def c_libraries(musl):
    """The name prefixes of the only libraries a Linux shared library of the release may need: the C library's
    (glibc's split into its parts; musl's one `libc.so`, which its loader answers itself)."""
    if musl:
        return ("libc.so",)
    return ("libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libgcc_s.so", "ld-linux", "libutil.so")


def check_elf_library(label, data, machine, allowed):
    """A shared library for `machine` that needs only libraries whose names start with one of `allowed`."""
    parsed = elf_dynamic(data)
    if parsed is None:
        report(False, f"{label}: a 64-bit ELF file")
        return
    found, _, needed = parsed
    report(found == machine, f"{label}: an ELF shared library for {found}")
    report(all(n.startswith(allowed) for n in needed), f"{label}: needs only the C library ({', '.join(needed)})")


# Windows' own libraries, and the Universal CRT's API sets (part of Windows since 10).
WINDOWS_OWN = ("kernel32", "kernelbase", "ntdll", "ws2_32", "advapi32", "bcrypt", "userenv", "api-ms-win-", "user32",
               "shell32", "ole32", "secur32", "crypt32", "iphlpapi", "ucrtbase", "msvcrt", "dbghelp")


def pe_header(data):
    """(offset of the PE header, machine, subsystem, whether it is a DLL)."""
    pe, = struct.unpack_from("<I", data, 0x3C)
    if data[pe:pe + 4] != b"PE\0\0":
        return pe, None, None, None
    machine, = struct.unpack_from("<H", data, pe + 4)
    characteristics, = struct.unpack_from("<H", data, pe + 22)
    subsystem, = struct.unpack_from("<H", data, pe + 24 + 68)
    return pe, machine, subsystem, bool(characteristics & 0x2000)


def pe_imports(data, pe):
    """The DLLs a PE32+ file imports from, read from its import directory."""
    sections_count, = struct.unpack_from("<H", data, pe + 6)
    optional_size, = struct.unpack_from("<H", data, pe + 20)
    optional = pe + 24
    import_rva, _ = struct.unpack_from("<II", data, optional + 112 + 8)  # data directory 1 of a PE32+ header
    sections = []
    for i in range(sections_count):
        at = optional + optional_size + i * 40
        virtual_size, virtual_address, raw_size, raw_pointer = struct.unpack_from("<IIII", data, at + 8)
        sections.append((virtual_address, max(virtual_size, raw_size), raw_pointer))

    def offset(rva):
        for address, size, pointer in sections:
            if address <= rva < address + size:
                return rva - address + pointer
        raise ValueError(f"RVA {rva:#x} is in no section")

    names, at = [], offset(import_rva)
    while True:
        name_rva, = struct.unpack_from("<I", data, at + 12)
        if name_rva == 0:
            break
        start = offset(name_rva)
        names.append(data[start:data.index(b"\0", start)].decode().lower())
        at += 20
    return sorted(set(names))  # MinGW's ld may write one DLL in several descriptors


def check_pe(label, data, dll, also=()):
    """An x86-64 PE32+ file (a console program, or a DLL) that imports only Windows' own libraries (and `also`)."""
    pe, machine, subsystem, is_dll = pe_header(data)
    kind = "DLL" if dll else "console program"
    report(machine == 0x8664 and is_dll == dll and (dll or subsystem == 3),
           f"{label}: an x86-64 PE32+ {kind} (machine {machine}, subsystem {subsystem})")
    dlls = pe_imports(data, pe) if machine else []
    report(bool(dlls) and all(d.startswith(WINDOWS_OWN + also) for d in dlls),
           f"{label}: imports only Windows' own libraries ({', '.join(dlls)})")


MACHO_CPU = {0x01000007: "x86_64", 0x0100000C: "arm64"}
# libSystem, and libiconv with its libcharset and libresolv (Rust's std links them): all ship in /usr/lib.
MACOS_OWN = ("/usr/lib/libSystem.B.dylib", "/usr/lib/libiconv.2.dylib", "/usr/lib/libcharset.1.dylib",
             "/usr/lib/libresolv.9.dylib")
# The library ordinals of a symbol left to the process that loads the file: ld64 writes 0xFE (dynamic lookup), zig's
# linker 0 (flat lookup); either way the loading process (node, python) must provide it.
HOST_ORDINALS = (0, 0xFE)


def macho(data):
    """(cpu, minimum macOS, the libraries it loads, its undefined symbols as (name, library ordinal))."""
    magic, cpu, _, _, ncmds, _, _ = struct.unpack_from("<IiiIIII", data, 0)
    if magic != 0xFEEDFACF:
        return None
    offset, dylibs, minimum, undefined = 32, [], None, []
    for _ in range(ncmds):
        command, size = struct.unpack_from("<II", data, offset)
        if command in (0xC, 0x80000018, 0x1F):  # LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB
            name_offset, = struct.unpack_from("<I", data, offset + 8)
            dylibs.append(data[offset + name_offset:offset + size].split(b"\0")[0].decode())
        if command == 0x32:  # LC_BUILD_VERSION
            _, minos = struct.unpack_from("<II", data, offset + 8)
            minimum = f"{minos >> 16}.{(minos >> 8) & 0xFF}"
        if command == 0x24:  # LC_VERSION_MIN_MACOSX
            minos, = struct.unpack_from("<I", data, offset + 8)
            minimum = f"{minos >> 16}.{(minos >> 8) & 0xFF}"
        if command == 0x2:  # LC_SYMTAB: nlist_64 entries
            symoff, nsyms, stroff, _ = struct.unpack_from("<IIII", data, offset + 8)
            for i in range(nsyms):
                strx, n_type, _, n_desc, _ = struct.unpack_from("<IBBHQ", data, symoff + i * 16)
                if n_type & 0x0E == 0 and n_type & 0x01:  # N_UNDF | N_EXT
                    name = data[stroff + strx:data.index(b"\0", stroff + strx)].decode()
                    undefined.append((name, (n_desc >> 8) & 0xFF))
        offset += size
    return MACHO_CPU.get(cpu & 0xFFFFFFFF), minimum, dylibs, undefined


def check_macho(label, data, expected_cpu, host_symbols=()):
    """A Mach-O file for `expected_cpu` with a minimum macOS, loading only macOS's own libraries, whose undefined
    symbols all come from them, except those the loading process provides (`host_symbols`: name prefixes, such
    as N-API's or Python's)."""
    parsed = macho(data)
    if parsed is None:
        report(False, f"{label}: a 64-bit Mach-O file")
        return
    cpu, minimum, dylibs, undefined = parsed
    report(cpu == expected_cpu, f"{label}: a 64-bit Mach-O for {cpu}")
    report(minimum is not None, f"{label}: minimum macOS {minimum}")
    report(bool(dylibs) and all(d in MACOS_OWN for d in dylibs),
           f"{label}: links only macOS's own libraries ({', '.join(dylibs)})")
    strays = [name for name, ordinal in undefined
              if not (1 <= ordinal <= len(dylibs) or (ordinal in HOST_ORDINALS and name.startswith(host_symbols)))]
    host = sum(1 for _, ordinal in undefined if ordinal in HOST_ORDINALS)
    report(not strays, f"{label}: {len(undefined)} undefined symbols, each from those libraries"
                       + (f" or the host ({host})" if host_symbols else "") + (f"; not: {strays[:5]}" if strays else ""))
