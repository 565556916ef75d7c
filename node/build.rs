//! Links the addon as a Node module (napi-build sets the linker flags for unresolved N-API symbols).

fn main() {
    napi_build::setup();
}
