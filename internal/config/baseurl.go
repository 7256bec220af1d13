package config

import (
	"fmt"
	"net/url"
	"strings"
)

// checkBaseURL refuses an endpoint address no request can be sent to, so a run
// does not start (and leave a failed trace) on one: it needs http:// or https://
// and a host. "" (no endpoint yet) passes; HasModel tells that case.
func checkBaseURL(key, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	switch {
	case strings.ContainsAny(raw, " \t\n"):
		return fmt.Errorf("%s %q has a space in it; give the endpoint's address, e.g. http://localhost:11434/v1", key, raw)
	case err != nil:
		return fmt.Errorf("%s %q is not an address: %v; e.g. http://localhost:11434/v1", key, raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%s %q must start with http:// or https://, e.g. http://localhost:11434/v1", key, raw)
	case u.Host == "":
		return fmt.Errorf("%s %q names no host; e.g. http://localhost:11434/v1", key, raw)
	}
	return nil
}
