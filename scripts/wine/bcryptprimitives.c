/* Wine 8 (Debian 12) lacks bcryptprimitives.dll, whose ProcessPrng Rust's std calls on Windows 10+; this stand-in,
   used only to run the release's cuecard.exe under that wine, fills the buffer from RtlGenRandom. */
#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk; len -= chunk;
    }
    return TRUE;
}
