package checks

// CompareURLs is OSWorld's compare_urls (metrics/utils.py) on two URLs: the
// harness's chrome_close_tabs step picks tabs with it, as OSWorld's does.
func CompareURLs(a, b string) bool { return compareURLs(a, b) }
