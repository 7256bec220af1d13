package wl

// protocols.go is generated from XML that Debian 12 packages ship (the
// list is wlgen/files.txt): libwayland-dev (wayland.xml), wayland-protocols
// (xdg-output, xdg-shell), librust-wayland-protocols-dev (the wlr
// protocols) and plasma-wayland-protocols (idle). TestGenerated checks it
// against the installed files. virtual_keyboard.go comes from
// virtual-keyboard-unstable-v1.xml, which lives only in wlroots' source
// tree: WLGEN_EXTRA names the folder holding it.

//go:generate sh -c "go run ./wlgen -o protocols.go -only $(paste -sd, wlgen/interfaces.txt) $(cat wlgen/files.txt)"
//go:generate sh -c "test -n \"$WLGEN_EXTRA\" && go run ./wlgen -o virtual_keyboard.go -extern wl_seat $WLGEN_EXTRA/virtual-keyboard-unstable-v1.xml || echo 'WLGEN_EXTRA unset: virtual_keyboard.go kept'"
