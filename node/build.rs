//! Links the addon as a Node module (napi-build sets the linker flags for unresolved N-API symbols), except on
//! Windows with MinGW: there napi-build would link a MinGW `libnode.dll`, and the addon instead resolves N-API from
//! the running node.exe (napi-sys's `dyn-symbols`, Cargo.toml).

fn main() {
    let windows_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("windows")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if !windows_gnu {
        napi_build::setup();
    }
}
