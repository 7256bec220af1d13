// Package robot is deskpilot's input adapter for X11: it moves and clicks the
// mouse, drags, scrolls, presses key combos, holds keys and types any Unicode
// text on one X display, within the bounds of the target monitor.
//
// # Why XTest over jezek/xgb and not robotgo
//
// The design named github.com/go-vgo/robotgo v1.1.0 for this edge. Reading its
// X11 backend (base/xdisplay_c.h, key.go, key/keypress_c.h, robotgo.go) shows
// defects that matter for an agent driving a real desktop, so this package
// sends the same XTest requests robotgo would send (XTestFakeKeyEvent,
// XTestFakeButtonEvent, motion), but itself, over a jezek/xgb connection:
//
//   - Display selection is process-global and silently wrong. robotgo keeps one
//     cached Display* for the whole process (XGetMainDisplay), chosen by
//     SetXDisplayName, itself a C global. Two displays in one process (eval
//     --parallel) would fight over it; worse, when the named display cannot be
//     opened robotgo falls back to $DISPLAY and then to ":0.0" without an
//     error. Checked on Xvfb: SetXDisplayName(":78") with no :78 running
//     returned nil, and robotgo.Move then moved the pointer on $DISPLAY. For
//     deskpilot that is input sent to the wrong desktop. Here every Robot owns
//     its connection, and New fails when the display does not answer.
//   - Unicode typing is slow and racy. robotgo.Type sleeps about 5 ms per
//     character (10 s for 2,000 characters); characters outside the keymap go
//     through input_utf, which opens XOpenDisplay(NULL) (ignoring the chosen
//     display), rewrites the same keycode for every character (a client that
//     refreshes its keymap late reads the next character's mapping) and never
//     restores it.
//   - Errors are dropped: Move and Scroll return nothing, and X errors from
//     the fake input requests are never reported.
//
// Using xgb also keeps cgo out of this package.
//
// robotgo does run in deskpilot, as a backend of its own behind
// internal/desktop (--backend robotgo; the default on Windows and macOS),
// where these limits are handled: it refuses any display but $DISPLAY,
// refuses keys missing from the keymap (Unmapped) rather than letting Xlib
// end the process, and pastes the text its typing would garble.
//
// # How typing works
//
// Type sends one key press and release per character, with Shift when the
// character sits on the shifted level of its key; Caps Lock, when on, is
// switched off while typing and back on after. A character that no key
// produces in the current keymap (ü on a US layout, 東, ✓) gets a spare
// keycode (one with no symbols; Xvfb has 19) remapped to its keysym (the
// Latin-1 keysym, else 0x01000000+code point) with ChangeKeyboardMapping.
//
// All the characters of a call that need spares are mapped first, then Type
// waits 50 ms before the first key event: some toolkits translate a key
// event as soon as they read it from the connection but apply the
// MappingNotify only when they dispatch it (Tk with an input method does), so
// a key event that arrives right behind the MappingNotify of its keycode is
// read with the old mapping and lost. The tests reproduced that loss under
// CPU load when each character was mapped just before its key event, and
// never with the wait. A spare keeps its character across calls, so typing
// the same characters again neither remaps nor waits. A text with more
// distinct unmapped characters than there are spares is typed in segments,
// remapping the least recently used spares, never sooner than 200 ms after
// their last use (about 250 ms per extra segment). Close restores the spares.
// A Press of a key missing from the keymap (f13 on Xvfb) borrows a spare the
// same way.
//
// Key events are pipelined and checked with a round trip every 64
// characters: 100 ASCII characters take about 3 ms on Xvfb. "\n" and "\r\n"
// press Return and "\t" Tab; other control characters and invalid UTF-8 are
// refused before anything is typed. Clipboard paste was not chosen: it
// depends on each application's paste shortcut (terminals differ) and
// overwrites the user's clipboard.
//
// # Safety and concurrency
//
// Every primitive checks its points against the target bounds
// (actions.CheckPoint) and its context before sending anything, and ends with
// a round trip, so when it returns the X server has processed its events and
// any X error is reported. A Robot remembers the keys and buttons it holds
// down; ReleaseAll releases them (deskpilot calls it on Stop), and a primitive
// cancelled halfway releases what it pressed.
//
// A Robot is safe for concurrent use: a mutex serializes the primitives so
// their events never interleave. Hold releases the mutex while it waits, so
// ReleaseAll (or another primitive, such as a click with a key held) can run
// during a hold; during any other primitive ReleaseAll waits for it to end
// (a drag takes about 0.3 s; cancel its context to end it sooner).
package robot
