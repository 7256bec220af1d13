// Package atspi reads the accessibility tree of the applications on an X display:
// AT-SPI2 over D-Bus (github.com/godbus/dbus/v5; no libatspi, no Python, no cgo).
// It owns finding the accessibility bus, walking the registry's applications within
// bounds, and keeping only what is visible on the driven display; it returns
// a11y.Elements, which package a11y matches and linearises.
//
// # Finding the bus
//
// Connect tries, in order: Options.A11yAddress; $AT_SPI_BUS_ADDRESS (only when
// Options.BusAddress is empty); the AT_SPI_BUS property of the display's root window
// (set by at-spi-bus-launcher, so it names the bus of that very display); and
// org.a11y.Bus.GetAddress on the session bus (Options.BusAddress, else
// $DBUS_SESSION_BUS_ADDRESS), which starts the launcher if needed. A candidate that
// does not answer is skipped for the next. When none works, or off Linux, the error
// is an *a11y.UnavailableError (errors.Is a11y.ErrUnavailable) whose text tells the model to use
// find_text instead.
//
// # Walking
//
// Each application registered with the AT-SPI registry is read in one of two ways.
// The fast way is org.a11y.atspi.Cache.GetItems, one call that returns every object
// with its name, role, states and interfaces (ATK's bridge only serves it after a
// client asked for the application's bus address, which the walk does first). Then
// only the objects that are showing, visible and under showing ancestors get their
// extents (screen coordinates), text and label relations, all pipelined. An
// application without the Cache interface, or one whose cache held more than
// Options.MaxNodes objects last time (a browser page), is walked object by object
// instead, breadth first, one pipelined round trip per level and field, without
// descending into hidden subtrees; children beyond the node budget are fetched one
// by one with GetChildAtIndex rather than as a huge list. Containers that manage
// their descendants (list and table views, whose children may number thousands)
// are asked for what is in view only: a large table for its column headers and
// the rows that fit its visible part, found from the cell at a point in view
// (Component.GetAccessibleAtPoint, then the cell's row); other such containers for
// their showing children (Collection.GetMatches).
//
// Bounds: Options.MaxDepth, MaxNodes and MaxTime cut a walk (the Note says where,
// and what was read by then is returned); an application from which no reply
// arrives for Options.CallTimeout is hung: it is skipped, and not asked again for
// Options.HungRetry, so a hung application costs one timeout, not one per query; an
// application that vanishes mid-walk (its name leaves the bus) is skipped; an
// object met again under its own descendants is a cycle and is not followed again.
// Cancelling ctx ends a walk at once with ctx's error. Replies are capped by godbus
// at 128 MiB each; the objects read by MaxNodes.
//
// # Which elements
//
// Only elements visible on the driven display: an application is read only when one
// of the display's top-level windows belongs to its process (_NET_WM_PID, compared
// with the process the accessibility bus reports for the application's connection);
// for windows whose process is unknown, an application's top-level whose extents
// match such a window is taken too. Elements must be showing and visible, with
// extents that, clipped to their window, scroll viewport and Options.Bounds, are not
// empty; a11y.Element.Bounds is that visible part. Structural containers with neither name
// nor text (fillers, unnamed panels, viewports) are left out.
//
// The walk also names what toolkits leave nameless, as a person reading the screen
// would: a text field is named after its labelled-by relation, else after the label
// on its left on the same line or just above it; a nameless table cell is named
// after the cells it holds, else the other cells of its row, and one whose default
// action is Toggle (GTK's check boxes in lists) is reported with role "check box".
// Password fields never have their text read.
//
// A Client is safe for concurrent use. Off Linux, Connect fails with an
// *a11y.UnavailableError.
package atspi
