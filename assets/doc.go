// Package assets embeds the files deskpilot ships inside its binary: the prompt
// templates the agent renders and the app's icon. Nothing is looked up on disk.
package assets
