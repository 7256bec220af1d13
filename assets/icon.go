package assets

import _ "embed"

//go:embed icon.png
var iconPNG []byte

// IconPNG returns deskpilot's app icon, a 512×512 PNG. The slice is shared: do not
// modify it. It is safe for concurrent use.
func IconPNG() []byte { return iconPNG }
