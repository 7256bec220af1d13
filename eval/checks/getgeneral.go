package checks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// generalGetters are OSWorld's getters/general.py, misc.py and info.py.
func generalGetters() map[string]Getter {
	return map[string]Getter{
		"rule":                 {Fn: getRule, Check: func(cfg map[string]any) error { _, err := key(cfg, "rules"); return err }},
		"rule_relativeTime":    {Fn: getRuleRelativeTime, Check: checkRelativeTime},
		"time_diff_range":      {Fn: getTimeDiffRange},
		"vm_command_line":      {Fn: getCommand("output")},
		"vm_command_error":     {Fn: getCommand("error")},
		"vm_terminal_output":   {Fn: getTerminalOutput},
		"accessibility_tree":   {Fn: getAccessibilityTree},
		"vm_screen_size":       {Fn: getScreenSize},
		"vm_window_size":       {Fn: getWindowSize, Check: needStrings("app_class_name")},
		"vm_wallpaper":         {Fn: getWallpaper, Check: needStrings("dest")},
		"list_directory":       {Fn: getListDirectory, Check: needStrings("path")},
		"default_video_player": {Fn: getDefaultVideoPlayer},
		"shortcuts_on_desktop": {Fn: getShortcutsOnDesktop},
	}
}

// Bounds of shortcuts_on_desktop.
const (
	maxShortcuts     = 1000
	maxShortcutBytes = 1 << 20
)

// getShortcutsOnDesktop is OSWorld's get_shortcuts_on_desktop on Linux: the
// .desktop files right in ~/Desktop, by name, each with its text. No desktop
// folder gives none.
func getShortcutsOnDesktop(_ context.Context, env Env, _ map[string]any) (any, error) {
	dir := env.Path("~/Desktop")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return map[string]any{}, nil
	}
	out := map[string]any{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".desktop") || !e.Type().IsRegular() {
			continue
		}
		if len(out) == maxShortcuts {
			return nil, fmt.Errorf("shortcuts_on_desktop: more than %d shortcuts on the desktop", maxShortcuts)
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("shortcuts_on_desktop: %w", err)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxShortcutBytes+1))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("shortcuts_on_desktop: %w", err)
		}
		if len(data) > maxShortcutBytes {
			return nil, fmt.Errorf("shortcuts_on_desktop: %s is larger than %d bytes", e.Name(), maxShortcutBytes)
		}
		out[e.Name()] = string(data)
	}
	return out, nil
}

// unavailable is a getter this machine cannot serve: its check fails with
// ErrUnavailable and the reason, never passes.
func unavailable(reason string) func(context.Context, Env, map[string]any) (any, error) {
	return func(context.Context, Env, map[string]any) (any, error) {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, reason)
	}
}

func getRule(_ context.Context, _ Env, cfg map[string]any) (any, error) {
	return key(cfg, "rules")
}

func getTimeDiffRange(_ context.Context, _ Env, cfg map[string]any) (any, error) {
	return cfg["diff_range_in_minutes"], nil // None when absent, as OSWorld logs and returns
}

// getCommand runs the config's command in the task's box and gives its stdout
// ("output") or stderr ("error"); a command that cannot run gives None, as
// OSWorld's server answering with an error status does.
func getCommand(field string) func(context.Context, Env, map[string]any) (any, error) {
	return func(ctx context.Context, env Env, cfg map[string]any) (any, error) {
		res, err := env.Exec(ctx, cfg["command"], PyTruthy(cfg["shell"]))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, nil
		}
		if field == "error" {
			return res.Stderr, nil
		}
		return res.Stdout, nil
	}
}

func getAccessibilityTree(ctx context.Context, env Env, _ map[string]any) (any, error) {
	return env.AccessibilityTree(ctx)
}

func getScreenSize(_ context.Context, env Env, _ map[string]any) (any, error) {
	s := env.Screen()
	return map[string]any{"width": s.X, "height": s.Y}, nil
}

// getWindowSize gives the size of the first window whose WM_CLASS has
// app_class_name (either part, case-insensitively), else None.
func getWindowSize(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	name, err := strKey(cfg, "app_class_name")
	if err != nil {
		return nil, err
	}
	wins, err := env.Windows(ctx)
	if err != nil {
		return nil, err
	}
	for _, w := range wins {
		for _, c := range w.Class {
			if strings.EqualFold(c, name) {
				return map[string]any{"width": w.Size.X, "height": w.Size.Y}, nil
			}
		}
	}
	return nil, nil
}

// getWallpaper copies the file GNOME's picture-uri names into the cache
// folder.
func getWallpaper(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	dest, err := strKey(cfg, "dest")
	if err != nil {
		return nil, err
	}
	res, err := env.Exec(ctx, []any{"gsettings", "get", "org.gnome.desktop.background", "picture-uri"}, false)
	if err != nil || res.Code != 0 {
		return nil, fmt.Errorf("the wallpaper is unknown: gsettings failed")
	}
	p := strings.ReplaceAll(strings.ReplaceAll(pyStrip(res.Stdout), "file://", ""), "'", "")
	if p == "" {
		return nil, errors.New("the wallpaper is unknown: picture-uri is empty")
	}
	dst, ok := fetchVMFile(env, p, dest)
	if !ok {
		return nil, fmt.Errorf("the wallpaper %s cannot be read", p)
	}
	return dst, nil
}

// getListDirectory is the directory tree OSWorld's server lists:
// {"type": "directory", "name", "children"} with files as {"type": "file",
// "name"}; None when path is no directory.
func getListDirectory(_ context.Context, env Env, cfg map[string]any) (any, error) {
	p, err := strKey(cfg, "path")
	if err != nil {
		return nil, err
	}
	full := env.Path(p)
	if fi, err := os.Stat(full); err != nil || !fi.IsDir() {
		return nil, nil
	}
	n := 0
	return dirTree(full, &n), nil
}

// maxTreeEntries bounds list_directory.
const maxTreeEntries = 20000

func dirTree(dir string, n *int) map[string]any {
	tree := map[string]any{"type": "directory", "name": filepath.Base(dir)}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	children := []any{}
	for _, e := range entries {
		if *n++; *n > maxTreeEntries {
			break
		}
		full := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(full); err == nil && fi.IsDir() && e.Type()&os.ModeSymlink == 0 {
			children = append(children, dirTree(full, n))
		} else {
			children = append(children, map[string]any{"type": "file", "name": e.Name()})
		}
	}
	tree["children"] = children
	return tree
}

// videoTypes are the video MIME subtypes OSWorld asks xdg-mime about.
func videoTypes() []string {
	return strings.Fields("3gp 3gpp 3gpp2 avi divx dv fli flv mp2t mp4 mp4v-es mpeg mpeg-system msvideo ogg quicktime vnd.divx vnd.mpegurl vnd.rn-realvideo webm x-anim x-avi x-flc x-fli x-flv x-m4v x-matroska x-mpeg x-mpeg-system x-mpeg2 x-ms-asf x-ms-asf-plugin x-ms-asx x-ms-wm x-ms-wmv x-ms-wmx x-ms-wvx x-msvideo x-nsv x-ogm x-ogm+ogg x-theora x-theora+ogg")
}

// getDefaultVideoPlayer is the desktop file xdg-mime names most often as the
// default for video types (each output as printed, newline included), or
// "unknown".
func getDefaultVideoPlayer(ctx context.Context, env Env, _ map[string]any) (any, error) {
	counts := map[string]int{}
	var order []string
	for _, t := range videoTypes() {
		res, err := env.Exec(ctx, []any{"xdg-mime", "query", "default", "video/" + t}, false)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil || res.Stdout == "" {
			continue
		}
		if counts[res.Stdout] == 0 {
			order = append(order, res.Stdout)
		}
		counts[res.Stdout]++
	}
	best := "unknown"
	for _, a := range order {
		if best == "unknown" || counts[a] > counts[best] {
			best = a
		}
	}
	return best, nil
}

// checkRelativeTime checks a rule_relativeTime config names times it knows.
func checkRelativeTime(cfg map[string]any) error {
	r, err := obj(cfg["rules"], "rules")
	if err != nil {
		return err
	}
	rt, err := obj(r["relativeTime"], "rules.relativeTime")
	if err != nil {
		return err
	}
	exp, err := obj(r["expected"], "rules.expected")
	if err != nil {
		return err
	}
	for _, k := range []string{"from", "to"} {
		v, ok := rt[k]
		if !ok {
			if k == "from" {
				return errors.New("rules.relativeTime needs from")
			}
			continue
		}
		s, _ := v.(string)
		if _, err := relativeDay(s, "", time.Now()); err != nil {
			return err
		}
		field := k
		if _, hasTo := rt["to"]; !hasTo {
			field = "time"
		}
		if _, err := strKey(exp, field); err != nil {
			return fmt.Errorf("rules.expected: %w", err)
		}
	}
	return nil
}

// getRuleRelativeTime fills rules["expected"]'s time formats ({DoW}, {Month},
// {DayD}, {Year}, {Month0D}, {month}, {MonthFull}, {Day0D}) with the day the
// relative times name, counted from today.
func getRuleRelativeTime(_ context.Context, _ Env, cfg map[string]any) (any, error) {
	r, err := obj(cfg["rules"], "rules")
	if err != nil {
		return nil, err
	}
	rt, err := obj(r["relativeTime"], "rules.relativeTime")
	if err != nil {
		return nil, err
	}
	exp, err := obj(r["expected"], "rules.expected")
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := map[string]any{}
	for k, v := range r {
		out[k] = v
	}
	newExp := map[string]any{}
	for k, v := range exp {
		newExp[k] = v
	}
	from, _ := rt["from"].(string)
	if to, hasTo := rt["to"].(string); hasTo {
		for _, p := range [][2]string{{"from", from}, {"to", to}} {
			day, err := relativeDay(p[1], from, now)
			if err != nil {
				return nil, err
			}
			f, err := strKey(exp, p[0])
			if err != nil {
				return nil, err
			}
			newExp[p[0]] = timeFormat(f, day)
		}
	} else {
		day, err := relativeDay(from, "", now)
		if err != nil {
			return nil, err
		}
		f, err := strKey(exp, "time")
		if err != nil {
			return nil, err
		}
		newExp["time"] = timeFormat(f, day)
	}
	out["expected"] = newExp
	return out, nil
}

// relativeDay is the day a relative time names, as OSWorld's
// get_rule_relativeTime computes it (weekday 0 is Monday). from is the "from"
// time when computing a "to" one.
func relativeDay(rel, from string, now time.Time) (time.Time, error) {
	wd := (int(now.Weekday()) + 6) % 7
	nextMonth := func(day int) time.Time {
		return time.Date(now.Year(), now.Month()+1, day, 0, 0, 0, 0, now.Location())
	}
	switch rel {
	case "tomorrow":
		return now.AddDate(0, 0, 1), nil
	case "5th next month":
		return nextMonth(5), nil
	case "10th next month":
		return nextMonth(10), nil
	case "11th next month":
		return nextMonth(11), nil
	case "this month":
		return now, nil
	case "next Monday":
		return now.AddDate(0, 0, 6-wd+1), nil
	case "this Saturday":
		return now.AddDate(0, 0, 5-wd), nil
	case "this Sunday":
		return now.AddDate(0, 0, 6-wd), nil
	case "next Friday":
		if wd < 4 && from == "next Monday" {
			return now.AddDate(0, 0, 4-wd+7), nil
		}
		if wd < 4 {
			return now.AddDate(0, 0, 4-wd), nil
		}
		return now.AddDate(0, 0, 6-wd+5), nil
	case "first monday four months later":
		year := now.Year()
		if now.Month() >= 9 {
			year++
		}
		m := (int(now.Month()) + 4) % 12
		if m == 0 {
			return time.Time{}, errors.New("first monday four months later: month 0 (OSWorld's datetime raises in August)")
		}
		first := time.Date(year, time.Month(m), 1, 0, 0, 0, 0, now.Location())
		fwd := (int(first.Weekday()) + 6) % 7
		return first.AddDate(0, 0, (6-fwd+1)%7), nil
	}
	return time.Time{}, fmt.Errorf("relative time %q is not known", rel)
}

// timeFormat is OSWorld's apply_rules_to_timeFormat: each placeholder's first
// occurrence is replaced.
func timeFormat(f string, day time.Time) string {
	wd := (int(day.Weekday()) + 6) % 7
	repl := [][2]string{
		{"{DoW}", []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}[wd]},
		{"{Month}", day.Format("Jan")},
		{"{DayD}", fmt.Sprint(day.Day())},
		{"{Year}", fmt.Sprint(day.Year())},
		{"{Month0D}", fmt.Sprintf("%02d", int(day.Month()))},
		{"{month}", strings.ToLower(day.Format("January"))},
		{"{MonthFull}", day.Format("January")},
		{"{Day0D}", fmt.Sprintf("%02d", day.Day())},
	}
	for _, r := range repl {
		f = strings.Replace(f, r[0], r[1], 1)
	}
	return f
}
