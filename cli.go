package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"deskpilot/agent"
)

// settings are the flags shared by the commands that touch a desktop or a model.
type settings struct {
	configPath string
	cfg        agent.Config // flag values; applied only when the flag was set
	flags      *pflag.FlagSet
}

func newRootCmd() *cobra.Command { return newRootCmdFor(&settings{}) }

// newRootCmdFor builds the command tree around s, which the flags fill.
func newRootCmdFor(s *settings) *cobra.Command {
	root := &cobra.Command{
		Use:   "deskpilot",
		Short: "A desktop agent: a vision model drives your desktop by writing code",
		Long: `deskpilot shows a vision language model your screen and runs the short programs it
answers with (mouse, keyboard, web and file tools), step by step, recording every
run as a trace. Without a subcommand it opens the app.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runApp(cmd.Context(), s)
		},
	}
	pf := root.PersistentFlags()
	s.flags = pf
	pf.StringVar(&s.configPath, "config", agent.ConfigPath(), "config file")
	pf.StringVar(&s.cfg.Preset, "preset", "", "model preset (openai, openrouter, ollama, vllm, lmstudio, llamacpp, custom)")
	pf.StringVar(&s.cfg.Model, "model", "", "model name (env DESKPILOT_MODEL)")
	pf.StringVar(&s.cfg.BaseURL, "base-url", "", "OpenAI-compatible endpoint (env OPENAI_BASE_URL)")
	pf.StringVar(&s.cfg.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY)")
	pf.IntVar(&s.cfg.MaxSteps, "max-steps", 0, "step limit (default 30)")
	pf.StringVar(&s.cfg.CoordMode, "coords", "", "coordinate mode: pixels or norm1000")
	pf.IntVar(&s.cfg.MaxSide, "image-size", 0, "longest side of the screenshots the model sees (default 1366)")
	pf.IntVar(&s.cfg.KeepImages, "keep-images", 0, "screenshots kept in the prompt (default 3)")
	pf.IntVar(&s.cfg.PlanEvery, "plan-every", 0, "plan every N steps (0: never)")
	pf.StringVar(&s.cfg.TraceDir, "trace-dir", "", "where traces are written")
	pf.StringVar(&s.cfg.XDisplay, "x-display", "", "X display to drive (default $DISPLAY)")
	pf.IntVar(&s.cfg.Display, "display", 0, "index of the monitor to drive")
	root.AddCommand(newRunCmd(s), newConsoleCmd(s), newTracesCmd(s), newReplayCmd(s), newBenchCmd(s), newDoctorCmd(s))
	return root
}

// load resolves the settings: flags > environment > config file > defaults.
func (s *settings) load() (agent.Config, error) {
	cfg, err := agent.LoadConfig(s.configPath)
	if err != nil {
		return cfg, &exitError{exitUsage, err}
	}
	cfg, err = cfg.ApplyEnv(os.LookupEnv)
	if err != nil {
		return cfg, &exitError{exitUsage, err}
	}
	set := func(name string, apply func()) {
		if f := s.flags.Lookup(name); f != nil && f.Changed {
			apply()
		}
	}
	set("preset", func() { cfg.Preset = s.cfg.Preset })
	set("model", func() { cfg.Model = s.cfg.Model })
	set("base-url", func() { cfg.BaseURL = s.cfg.BaseURL })
	set("api-key-env", func() { cfg.APIKeyEnv = s.cfg.APIKeyEnv })
	set("max-steps", func() { cfg.MaxSteps = s.cfg.MaxSteps })
	set("coords", func() { cfg.CoordMode = s.cfg.CoordMode })
	set("image-size", func() { cfg.MaxSide = s.cfg.MaxSide })
	set("keep-images", func() { cfg.KeepImages = s.cfg.KeepImages })
	set("plan-every", func() { cfg.PlanEvery = s.cfg.PlanEvery })
	set("trace-dir", func() { cfg.TraceDir = s.cfg.TraceDir })
	set("x-display", func() { cfg.XDisplay = s.cfg.XDisplay })
	set("display", func() { cfg.Display = s.cfg.Display })
	cfg, err = applyPreset(cfg)
	if err != nil {
		return cfg, &exitError{exitUsage, err}
	}
	if m := strings.ToLower(cfg.CoordMode); m != "" && m != "pixels" && m != "norm1000" {
		return cfg, &exitError{exitUsage, fmt.Errorf("--coords: %q is not a coordinate mode (pixels, norm1000)", cfg.CoordMode)}
	}
	return cfg.Resolved(), nil
}
