package assets

import "embed"

// Prompts holds the prompt templates the agent renders (text/template syntax):
// prompts/plan.tmpl (the planning request),
// prompts/final.tmpl (the request for a best answer after the step limit).
//
//go:embed prompts/*.tmpl
var Prompts embed.FS
