package checks

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"deskpilot/internal/smallfile"
)

// vlcMetrics are OSWorld's metrics/vlc.py over VLC's status and settings.
func vlcMetrics() map[string]Metric {
	setting := func(key, ruleKey, def string) Metric {
		return Metric{Fn: vlcSetting(key, ruleKey, def), Check: rulesWith(ruleKey)}
	}
	return map[string]Metric{
		"is_vlc_playing":           {Fn: isVLCPlaying, Check: rulesWith("type")},
		"is_vlc_recordings_folder": {Fn: isVLCRecordingsFolder, Check: rulesWith("recording_file_path")},
		"is_vlc_fullscreen":        {Fn: isVLCFullscreen},
		"check_qt_bgcone":          setting("qt-bgcone=", "expected_qt_bgcone", "1"),
		"check_qt_max_volume":      setting("qt-max-volume=", "expected_qt_max_volume", "125"),
		"check_qt_minimal_view":    setting("qt-minimal-view=", "expected_qt_minimal_view", "0"),
		"check_one_instance_when_started_from_file": setting("one-instance-when-started-from-file=",
			"expected_one_instance_when_started_from_file", "1"),
		"check_global_key_play_pause": {Fn: checkGlobalKeyPlayPause, Check: rulesWith("expected_global_key_play_pause")},
		"check_qt_slider_colours":     {Fn: checkQtSliderColours},
	}
}

// readUTF8 is open(path, 'rb').read().decode('utf-8'): no newline
// translation, invalid UTF-8 an error.
func readUTF8(v any) (string, error) {
	p, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("TypeError: want a file path, got %s", PyType(v))
	}
	data, err := smallfile.Read(p, maxTextFile)
	if err != nil {
		return "", err
	}
	if !isUTF8(data) {
		return "", fmt.Errorf("%s: UnicodeDecodeError: not UTF-8", p)
	}
	return string(data), nil
}

func isUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// expectedStr is the rule's expected value as the Python compares it: an
// int becomes its decimal string; a string stays; anything else never
// equals a setting.
func expectedStr(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return "", false
	}
	if i, ok := pyInt(v); ok {
		return strconv.Itoa(i), true
	}
	return "", false
}

// vlcSetting is check_qt_bgcone and its kind: the value after the last "="
// of the last vlcrc line containing name (commented lines too), else def,
// equal to the rule's expected value.
func vlcSetting(name, ruleKey, def string) func(context.Context, Call) (Score, error) {
	return func(_ context.Context, c Call) (Score, error) {
		text, err := readUTF8(c.Result)
		if err != nil {
			return Score{}, err
		}
		r, err := rules(c)
		if err != nil {
			return Score{}, err
		}
		raw, err := key(r, ruleKey)
		if err != nil {
			return Score{}, err
		}
		want, ok := expectedStr(raw)
		got := def
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, name) {
				got = lastField(line)
			}
		}
		return verdict(ok && got == want, "%s is %q, expected %s", strings.TrimSuffix(name, "="), got, show(raw))
	}
}

// lastField is line.split('=')[-1].strip().
func lastField(line string) string {
	parts := strings.Split(line, "=")
	return pyStrip(parts[len(parts)-1])
}

func checkGlobalKeyPlayPause(_ context.Context, c Call) (Score, error) {
	text, err := readUTF8(c.Result)
	if err != nil {
		return Score{}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	raw, err := key(r, "expected_global_key_play_pause")
	if err != nil {
		return Score{}, err
	}
	want, ok := expectedStr(raw)
	got := "0"
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "global-key-play-pause=") {
			got = "1"
			if lastField(line) == "" {
				got = "0"
			}
		}
	}
	return verdict(ok && got == want, "a global play/pause key is %s, expected %s", map[string]string{"0": "unset", "1": "set"}[got], show(raw))
}

// checkQtSliderColours is check_qt_slider_colours: the volume slider's
// colours equal to the rule's ("match") or all blackish ("blackish": every
// component below 100). Errors inside score 0, as the Python catches them.
func checkQtSliderColours(_ context.Context, c Call) (Score, error) {
	text, err := readUTF8(c.Result)
	if err != nil {
		return Score{}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	colours := "153;210;153;20;210;20;255;199;15;245;39;29"
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "qt-slider-colours") {
			colours = lastField(line)
		}
	}
	switch r["type"] {
	case "match":
		want, ok := r["expected_qt_slider_colours"]
		if !ok {
			return Score{Note: "the rule has no expected_qt_slider_colours"}, nil
		}
		return verdict(PyEqual(colours, want), "the slider colours are %s", colours)
	case "blackish":
		var vals []int
		for _, s := range strings.Split(colours, ";") {
			v, err := strconv.Atoi(pyStrip(s))
			if err != nil {
				return Score{Note: fmt.Sprintf("the slider colours %q do not parse", colours)}, nil
			}
			vals = append(vals, v)
		}
		for i := 0; i+2 < len(vals); i += 3 {
			if vals[i] >= 100 || vals[i+1] >= 100 || vals[i+2] >= 100 {
				return Score{Note: fmt.Sprintf("the slider colours %s are not all blackish", colours)}, nil
			}
		}
		return Score{Value: 1}, nil
	}
	return Score{Note: "the metric gives None for this rule type"}, nil
}

func isVLCRecordingsFolder(_ context.Context, c Call) (Score, error) {
	text, err := readUTF8(c.Result)
	if err != nil {
		return Score{}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "recording_file_path")
	if err != nil {
		return Score{}, err
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") || pyStrip(line) == "" {
			continue
		}
		if strings.Contains(line, "input-record-path") {
			got := lastField(line)
			return verdict(PyEqual(got, want), "the recordings folder is %q", got)
		}
	}
	return Score{Note: "no recordings folder is set"}, nil
}

// vlcStatus is the part of VLC's status.xml is_vlc_playing reads.
type vlcStatus struct {
	State *string `xml:"state"`
	Info  struct {
		Categories []struct {
			Name  string `xml:"name,attr"`
			Infos []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:",chardata"`
			} `xml:"info"`
		} `xml:"category"`
	} `xml:"information"`
}

func (s vlcStatus) meta(name string) (string, bool) {
	for _, c := range s.Info.Categories {
		if c.Name != "meta" {
			continue
		}
		for _, i := range c.Infos {
			if i.Name == name {
				return i.Value, true
			}
		}
	}
	return "", false
}

// isVLCPlaying is is_vlc_playing: VLC plays, and the file name (or URL) it
// plays ends with the rule's.
func isVLCPlaying(_ context.Context, c Call) (Score, error) {
	text, err := readUTF8(c.Result)
	if err != nil {
		return Score{}, err
	}
	var st vlcStatus
	if err := xml.Unmarshal([]byte(text), &st); err != nil {
		return Score{}, fmt.Errorf("status.xml: %w", err)
	}
	if st.State == nil {
		return Score{}, errors.New("AttributeError: status.xml has no state")
	}
	if *st.State != "playing" {
		return Score{Note: "VLC is " + *st.State}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	typ, _ := r["type"].(string)
	field := map[string]string{"file_name": "filename", "url": "url"}[typ]
	if field == "" {
		return Score{Note: fmt.Sprintf("unknown rule type %s", show(r["type"]))}, nil
	}
	want, err := key(r, typ)
	if err != nil {
		return Score{}, err
	}
	got, ok := st.meta(field)
	if !ok {
		return Score{}, fmt.Errorf("AttributeError: status.xml has no %s", field)
	}
	if got == "" {
		return Score{Note: "the metric gives None: VLC reports an empty " + field}, nil
	}
	ws, ok := want.(string)
	if !ok {
		return Score{}, fmt.Errorf("TypeError: the rule's %s is not a string", typ)
	}
	return verdict(strings.HasSuffix(got, ws), "VLC plays %q", got)
}

// isVLCFullscreen is is_vlc_fullscreen: the window's size is the screen's.
func isVLCFullscreen(_ context.Context, c Call) (Score, error) {
	win, err := obj(c.Result, "window size")
	if err != nil {
		return Score{}, err
	}
	scr, err := obj(c.Expected, "screen size")
	if err != nil {
		return Score{}, err
	}
	for _, k := range []string{"width", "height"} {
		a, err := key(win, k)
		if err != nil {
			return Score{}, err
		}
		b, err := key(scr, k)
		if err != nil {
			return Score{}, err
		}
		if !PyEqual(a, b) {
			return Score{Note: fmt.Sprintf("the window is %vx%v, the screen %vx%v", win["width"], win["height"], scr["width"], scr["height"])}, nil
		}
	}
	return Score{Value: 1}, nil
}
