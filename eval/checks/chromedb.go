package checks

import (
	"context"
	"path/filepath"
)

// chromeDBGetters are get_cookie_data and get_history: a copy of the
// profile's SQLite database (Default/Cookies, Default/History) in the cache
// folder as dest, and the rows of "SELECT * FROM cookies" and "SELECT url,
// title, last_visit_time FROM urls" as lists; None when the file is missing
// or does not read, as OSWorld logs and returns.
func chromeDBGetters() map[string]Getter {
	return map[string]Getter{
		"cookie_data": {Fn: chromeDB("Cookies", "cookies", nil)},
		"history":     {Fn: chromeDB("History", "urls", []string{"url", "title", "last_visit_time"})},
	}
}

func chromeDB(file, table string, cols []string) func(context.Context, Env, map[string]any) (any, error) {
	return func(_ context.Context, env Env, cfg map[string]any) (any, error) {
		dest, ok := cfg["dest"].(string)
		if !ok || !filepath.IsLocal(dest) {
			return nil, nil
		}
		dst := filepath.Join(env.CacheDir(), dest)
		if copyFile(filepath.Join(chromeProfile(env), "Default", file), dst) != nil {
			return nil, nil
		}
		db, err := openSQLite(dst)
		if err != nil {
			return nil, nil
		}
		rows, err := db.rows(table, cols)
		if err != nil {
			return nil, nil
		}
		return rows, nil
	}
}
