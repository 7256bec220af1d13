package atspi

// Bit numbers of the states the walk itself looks at.
const (
	stateChecked    = 4
	stateEditable   = 7
	stateEnabled    = 8
	stateFocusable  = 11
	stateFocused    = 12
	stateSelectable = 22
	stateSensitive  = 24
	stateShowing    = 25
	stateVisible    = 30
	stateManages    = 31 // manages-descendants
)

// Role numbers the walk treats specially.
const (
	roleCheckBox     = 7
	roleDialog       = 16
	roleFiller       = 20
	roleFrame        = 23
	roleLabel        = 29
	rolePanel        = 39
	rolePasswordText = 40
	roleTableCell    = 56
	roleText         = 61
	roleWindow       = 69
	roleApplication  = 75
	roleEntry        = 79
	roleStatic       = 116
)
