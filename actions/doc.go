// Package actions owns the vocabulary of deskpilot's input primitives as pure
// types: screen points (Point, CheckPoint), mouse buttons (Button), scroll
// directions (Direction) and key combinations (Combo, ParseCombo, KeyNames).
//
// Everything here is validation and naming: the package never talks to X,
// never logs and imports nothing above it (the X adapter is actions/robot).
// Errors are written for the model to read: an unknown key name lists the
// accepted names and suggests the closest one, a point outside the target
// display says which edge it crossed.
//
// All functions are safe for concurrent use; the types are plain values.
package actions
