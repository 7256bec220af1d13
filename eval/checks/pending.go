package checks

import (
	"context"
	"fmt"
)

// This file names OSWorld's getters and metrics that this package does not
// implement yet, each with the reason. Tasks using them load (nothing they
// use is unknown) and their check fails with ErrUnavailable and the reason:
// never a pass.

// pendingMetrics are metrics not implemented here, by reason.
func pendingMetrics() map[string]Metric {
	reasons := map[string]string{
		"compare_pptx_files":                          "not implemented yet (needs a python-pptx reader)",
		"compare_pdfs":                                "not implemented yet (needs PyMuPDF's text extraction)",
		"compare_pdf_images":                          "not implemented yet (needs PyMuPDF rendering and borb)",
		"check_pdf_pages":                             "not implemented yet",
		"compare_images":                              "not implemented yet (needs PIL's image loading)",
		"compare_image_list":                          "not implemented yet",
		"compare_archive":                             "not implemented yet",
		"compare_zip_files":                           "not implemented yet",
		"compare_htmls":                               "not implemented yet (needs BeautifulSoup's tree walk)",
		"compare_epub":                                "not implemented yet",
		"compare_audios":                              "needs librosa's MFCC features, which Go has no equivalent of here",
		"compare_videos":                              "needs OpenCV's frame decoding, not available here",
		"check_mp3_meta":                              "not implemented yet (needs mutagen's ID3 reading)",
		"compare_image_text":                          "needs EasyOCR's model, which cannot be downloaded here",
		"check_accessibility_tree":                    "not implemented yet (needs lxml's CSS selectors over the tree)",
		"check_left_panel":                            "not implemented yet",
		"run_sqlite3":                                 "not implemented yet",
		"fuzzy_place_math":                            "not implemented yet",
		"check_python_file_by_test_suite":             "not implemented yet (runs the task's Python test in the box)",
		"check_structure_sim":                         "not implemented yet (needs scikit-image's SSIM)",
		"check_structure_sim_resized":                 "not implemented yet (needs scikit-image's SSIM)",
		"check_brightness_decrease_and_structure_sim": "not implemented yet (needs scikit-image's SSIM)",
		"check_contrast_increase_and_structure_sim":   "not implemented yet (needs scikit-image's SSIM)",
		"check_saturation_increase_and_structure_sim": "not implemented yet (needs scikit-image's SSIM)",
		"check_file_exists_and_structure_sim":         "not implemented yet (needs scikit-image's SSIM)",
		"check_palette_and_structure_sim":             "not implemented yet (needs scikit-image's SSIM)",
		"check_config_status":                         "not implemented yet",
		"check_image_size":                            "not implemented yet",
		"check_image_mirror":                          "not implemented yet",
		"check_image_file_size":                       "not implemented yet",
		"check_green_background":                      "not implemented yet",
		"check_textbox_on_leftside":                   "not implemented yet",
		"check_triangle_position":                     "not implemented yet",
		"check_image_stretch_and_center":              "not implemented yet (needs a python-pptx reader)",
		"check_slide_orientation_Portrait":            "not implemented yet (needs a python-pptx reader)",
		"evaluate_presentation_fill_to_rgb_distance":  "not implemented yet (needs a python-pptx reader)",
		"check_transition":                            "not implemented yet",
		"check_page_number_colors":                    "not implemented yet",
		"check_auto_saving_time":                      "not implemented yet",
		"check_presenter_console_disable":             "not implemented yet",
		"check_tabstops":                              "not implemented yet",
		"compare_line_spacing":                        "not implemented yet",
		"compare_subscript_contains":                  "not implemented yet",
		"has_page_numbers_in_footers":                 "not implemented yet",
		"compare_font_names":                          "not implemented yet",
		"check_highlighted_words":                     "not implemented yet (needs odfpy's style lookup)",
		"compare_contains_image":                      "not implemented yet",
		"evaluate_strike_through_last_paragraph":      "not implemented yet",
		"evaluate_colored_words_in_tables":            "not implemented yet (needs scikit-image's CIEDE2000)",
		"check_italic_font_size_14":                   "not implemented yet",
		"find_default_font":                           "not implemented yet",
		"compare_references":                          "not implemented yet",
		"compare_docx_images":                         "not implemented yet",
		"check_thunderbird_prefs":                     "not implemented yet",
		"check_thunderbird_filter":                    "not implemented yet",
		"check_thunderbird_folder":                    "not implemented yet",
		"is_vlc_playing":                              "not implemented yet",
		"is_vlc_recordings_folder":                    "not implemented yet",
		"is_vlc_fullscreen":                           "not implemented yet",
		"check_qt_bgcone":                             "not implemented yet",
		"check_qt_max_volume":                         "not implemented yet",
		"check_qt_minimal_view":                       "not implemented yet",
		"check_qt_slider_colours":                     "not implemented yet",
		"check_one_instance_when_started_from_file":   "not implemented yet",
		"check_global_key_play_pause":                 "not implemented yet",
		"check_gnome_favorite_apps":                   "not implemented yet",
		"is_utc_0":                                    "not implemented yet",
		"check_text_enlarged":                         "not implemented yet",
		"check_moved_jpgs":                            "not implemented yet",
		"is_in_vm_clickboard":                         "not implemented yet",
	}
	out := map[string]Metric{}
	for name, why := range reasons {
		out[name] = Metric{Kwargs: true, Fn: func(context.Context, Call) (Score, error) {
			return Score{}, fmt.Errorf("%w: %s: %s", ErrUnavailable, name, why)
		}}
	}
	return out
}

// pendingGetters are getters not implemented here, by reason.
func pendingGetters() map[string]Getter {
	reasons := map[string]string{
		"googledrive_file":                        "needs Google Drive credentials (OSWorld's settings.yml), which a public harness does not have",
		"info_from_website":                       "needs the live website through Playwright; not implemented yet",
		"gotoRecreationPage_and_get_html_content": "needs the live recreation.gov site; not implemented yet",
		"page_info":                               "needs a DevTools page session; not implemented yet",
		"pdf_from_url":                            "needs DevTools' Page.printToPDF; not implemented yet",
		"active_tab_info":                         "needs the address bar from the accessibility tree and a DevTools page session; not implemented yet",
		"active_url_from_accessTree":              "needs Chrome's address bar in the accessibility tree; not implemented yet",
		"active_tab_html_parse":                   "needs the address bar from the accessibility tree and a DevTools page session; not implemented yet",
		"active_tab_url_parse":                    "needs Chrome's address bar in the accessibility tree; not implemented yet",
		"url_dashPart":                            "needs Chrome's address bar in the accessibility tree; not implemented yet",
		"cookie_data":                             "not implemented yet (reads Chrome's Cookies SQLite database)",
		"history":                                 "not implemented yet (reads Chrome's History SQLite database)",
		"shortcuts_on_desktop":                    "not implemented yet",
		"audio_in_slide":                          "not implemented yet",
		"background_image_in_slide":               "not implemented yet",
	}
	out := map[string]Getter{}
	for name, why := range reasons {
		out[name] = Getter{Fn: unavailable(name + ": " + why)}
	}
	return out
}
