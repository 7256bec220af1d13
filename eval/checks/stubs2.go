package checks

import (
	"context"
	"deskpilot/a11y"
)

func checkAccessibilityTree(context.Context, Call) (Score, error) { return Score{}, nil }
func runSqlite3(context.Context, Call) (Score, error)             { return Score{}, nil }
func fuzzyPlaceMath(context.Context, Call) (Score, error)         { return Score{}, nil }

func TreeXML(els []a11y.Element) string { return "" }
