package wl

// The XML files come from Debian 12 packages: libwayland-dev (wayland.xml),
// wayland-protocols (xdg-output, xdg-shell), librust-wayland-protocols-dev (the wlr
// protocols), plasma-wayland-protocols (idle); virtual-keyboard-unstable-v1
// is in wlroots' source tree only, so WLGEN_EXTRA names a folder holding it.
// TestGenerated checks protocols.go against the installed files.

//go:generate sh -c "go run ./wlgen -o protocols.go -only $(cat wlgen/interfaces.txt | tr '\\n' , | sed 's/,$//') $(cat wlgen/files.txt | sed \"s|^extra/|$WLGEN_EXTRA/|\")"
