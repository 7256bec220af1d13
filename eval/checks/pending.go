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
		"compare_audios":     "needs librosa's MFCC features: librosa is not a Debian package, and nothing here can fetch it",
		"compare_image_text": "needs EasyOCR and its model: neither is a Debian package, and nothing here can fetch them",
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
		"audio_in_slide": "its only use feeds compare_audios, which cannot run here (librosa); not implemented",
	}
	out := map[string]Getter{}
	for name, why := range reasons {
		out[name] = Getter{Fn: unavailable(name + ": " + why)}
	}
	return out
}
