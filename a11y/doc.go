// Package a11y is deskpilot's model of accessible elements, without any platform
// code: what an element is (Element: name, role, text, states, visible bounds,
// application), how a query selects and orders them (Query, Match, ParseRole: AT-SPI
// role names with friendly aliases, states with negation), what a walk reports
// about itself (Note), the errors a model can act on (QueryError, and
// UnavailableError, which points to find_text), and the linearised table an
// --observe a11y observation shows (Linearize). The engine that reads the tree, on
// Linux through AT-SPI2 over D-Bus, is package a11y/atspi; the agent and its
// builtins need only this package.
package a11y
