package checks

import "maps"

// miscMetrics gathers the metrics of sqlrun.go, htmlcmp.go, slidefill.go,
// pysuite.go, epub.go, video.go and the other files written for single tasks.
func miscMetrics() map[string]Metric {
	m := map[string]Metric{}
	for _, part := range []map[string]Metric{sqlMetrics(), {
		"compare_htmls": {Fn: compareHTMLs, Check: filePair},
		"evaluate_presentation_fill_to_rgb_distance": {Fn: slideFillRGB, Check: both(fileResult, rulesWith("rgb"))},
		"fuzzy_place_math":                           {Fn: fuzzyPlaceMath, Check: both(fileResult, rulesWith("expected"))},
		"compare_pdf_images":                         {Fn: comparePDFImages, Kwargs: true, Check: filePair},
		"check_python_file_by_test_suite":            {Fn: checkPythonFileByTestSuite, Kwargs: true, Check: filePair},
		"compare_epub":                               {Fn: compareEpub, Check: filePair},
		"compare_videos":                             {Fn: compareVideos, Options: []string{"max_frames_to_check", "threshold"}, Check: filePair},
	}} {
		maps.Copy(m, part)
	}
	return m
}
