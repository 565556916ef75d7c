//! The `cuecard` binary: the command of `cuecard_cli` (see `lib.rs`) with a fast allocator.

// The server allocates per request (JSON in, JSON out, journal copies); mimalloc makes that markedly cheaper
// than the system allocator under load (see the note of the wire-server issue for the figures). macOS builds use
// the system's (cli/Cargo.toml says why).
#[cfg(not(target_os = "macos"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cuecard_cli::run(std::env::args_os()))
}
