package main

import (
	"context"

	"deskpilot/agent"
	"deskpilot/agent/script"
)

// extraTools are the builtins beyond the desktop: the text browser and the file
// inspector.
func extraTools(ctx context.Context, cfg agent.Config, d *desktop) ([]script.Tool, error) {
	return nil, nil
}
