package checks

func docsMetrics() map[string]Metric   { return nil }
func slidesMetrics() map[string]Metric { return nil }
func imageMetrics() map[string]Metric  { return nil }
func chromeMetrics() map[string]Metric { return nil }
func vlcMetrics() map[string]Metric    { return nil }
func appMetrics() map[string]Metric    { return nil }
func chromeGetters() map[string]Getter { return nil }
func appGetters() map[string]Getter    { return nil }
