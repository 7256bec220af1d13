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

// fileGetters are OSWorld's getters/file.py.
func fileGetters() map[string]Getter {
	return map[string]Getter{
		"vm_file":              {Fn: getVMFile, Check: checkFileConfig},
		"cloud_file":           {Fn: getCloudFile, Check: checkFileConfig},
		"cache_file":           {Fn: getCacheFile, Check: needStrings("path")},
		"content_from_vm_file": {Fn: getContentFromVMFile, Check: needStrings("path", "file_type", "file_content")},
	}
}

// needStrings checks at load time that cfg has string fields keys.
func needStrings(keys ...string) func(map[string]any) error {
	return func(cfg map[string]any) error {
		for _, k := range keys {
			if _, err := strKey(cfg, k); err != nil {
				return err
			}
		}
		return nil
	}
}

// fileConfig is a vm_file or cloud_file config: one path and dest, or with
// multi, lists of them; gives picks the indexes returned (default [0]).
type fileConfig struct {
	paths, dests []string
	gives        map[int]bool
	single       bool
}

func checkFileConfig(cfg map[string]any) error {
	_, err := parseFileConfig(cfg, time.Time{})
	return err
}

// parseFileConfig reads a file getter's config; now is for vm_file's
// time_suffix (zero at load time).
func parseFileConfig(cfg map[string]any, now time.Time) (fileConfig, error) {
	fc := fileConfig{gives: map[int]bool{0: true}}
	if PyTruthy(cfg["multi"]) {
		var err error
		if fc.paths, err = strList(cfg["path"], "path"); err != nil {
			return fc, err
		}
		if fc.dests, err = strList(cfg["dest"], "dest"); err != nil {
			return fc, err
		}
	} else {
		p, err := strKey(cfg, "path")
		if err != nil {
			return fc, err
		}
		d, err := strKey(cfg, "dest")
		if err != nil {
			return fc, err
		}
		if PyTruthy(cfg["time_suffix"]) && cfg["type"] == "vm_file" {
			format := "%Y_%m_%d"
			if f, ok := cfg["time_format"].(string); ok {
				format = f
			}
			suffix, err := strftime(format, now)
			if err != nil {
				return fc, err
			}
			p, d = timeSuffix(p, suffix), timeSuffix(d, suffix)
		}
		fc.paths, fc.dests, fc.single = []string{p}, []string{d}, true
	}
	if g, ok := cfg["gives"]; ok {
		l, ok := g.([]any)
		if !ok {
			return fc, errors.New("gives must be a list of indexes")
		}
		fc.gives = map[int]bool{}
		for _, x := range l {
			i, ok := pyInt(x)
			if !ok {
				return fc, errors.New("gives must be a list of indexes")
			}
			fc.gives[i] = true
		}
	}
	for _, d := range fc.dests {
		if !filepath.IsLocal(d) || strings.ContainsRune(d, '/') {
			return fc, fmt.Errorf("dest %q must be a file name", d)
		}
	}
	return fc, nil
}

// timeSuffix is vm_file's time_suffix: p.split(".")[0] + suffix + "." +
// p.split(".")[1] when p has a dot.
func timeSuffix(p, suffix string) string {
	parts := strings.Split(p, ".")
	if len(parts) < 2 {
		return p
	}
	return parts[0] + suffix + "." + parts[1]
}

// strftime formats t with the C directives the tasks use.
func strftime(format string, t time.Time) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'b':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case '%':
			b.WriteByte('%')
		default:
			return "", fmt.Errorf("time format %q: directive %%%c is not supported", format, format[i])
		}
	}
	return b.String(), nil
}

// gave returns the getter's value: the one path when one index is given, else
// the list.
func gave(paths []any) any {
	if len(paths) == 1 {
		return paths[0]
	}
	if paths == nil {
		return []any{}
	}
	return paths
}

// getVMFile copies files of the task's desktop into the cache folder under
// their dest names; a missing file gives None in its place.
func getVMFile(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	fc, err := parseFileConfig(cfg, time.Now())
	if err != nil {
		return nil, err
	}
	var out []any
	for i := 0; i < min(len(fc.paths), len(fc.dests)); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dst := filepath.Join(env.CacheDir(), fc.dests[i])
		if err := copyFile(env.Path(fc.paths[i]), dst); err != nil {
			if fc.gives[i] {
				out = append(out, nil)
			}
			continue
		}
		if fc.gives[i] {
			out = append(out, dst)
		}
	}
	return gave(out), nil
}

// getCloudFile puts the downloads of the config's URLs into the cache folder
// under their dest names (a file already there is kept, as OSWorld does).
func getCloudFile(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	fc, err := parseFileConfig(cfg, time.Time{})
	if err != nil {
		return nil, err
	}
	var out []any
	for i := 0; i < min(len(fc.paths), len(fc.dests)); i++ {
		dst := filepath.Join(env.CacheDir(), fc.dests[i])
		if fc.gives[i] {
			out = append(out, dst)
		}
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		src, err := env.CloudFile(ctx, fc.paths[i])
		if err != nil {
			return nil, fmt.Errorf("cloud_file %s: %w", fc.paths[i], err)
		}
		if err := copyFile(src, dst); err != nil {
			return nil, fmt.Errorf("cloud_file %s: %w", fc.paths[i], err)
		}
	}
	return gave(out), nil
}

// CloudURLs lists the URLs a getter config downloads (cloud_file), for the
// harness to fetch into its cache before the task runs.
func CloudURLs(cfg map[string]any) []string {
	if cfg["type"] != "cloud_file" {
		return nil
	}
	fc, err := parseFileConfig(cfg, time.Time{})
	if err != nil {
		return nil
	}
	return fc.paths[:min(len(fc.paths), len(fc.dests))]
}

// getCacheFile is a file of the cache folder; a missing one is Python's
// AssertionError.
func getCacheFile(_ context.Context, env Env, cfg map[string]any) (any, error) {
	p, err := strKey(cfg, "path")
	if err != nil {
		return nil, err
	}
	if !filepath.IsLocal(p) {
		return nil, fmt.Errorf("cache_file: %q is not inside the cache folder", p)
	}
	full := filepath.Join(env.CacheDir(), p)
	if _, err := os.Stat(full); err != nil {
		return nil, fmt.Errorf("cache_file: %s does not exist", p)
	}
	return full, nil
}

// copyFile copies the regular file src to dst (at most maxDocFile bytes).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", src)
	}
	if fi.Size() > maxDocFile {
		return fmt.Errorf("%s: %d bytes, more than the %d allowed", src, fi.Size(), maxDocFile)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, maxDocFile)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// fetchVMFile is get_vm_file for one path, as other getters call it.
func fetchVMFile(env Env, path, dest string) (string, bool) {
	dst := filepath.Join(env.CacheDir(), dest)
	if copyFile(env.Path(path), dst) != nil {
		return "", false
	}
	return dst, true
}
