package checks

import (
	"context"
	"fmt"
)

// fuzzyPlaceMath is OSWorld's fuzzy_place_math: the words of a Writer
// document's paragraphs, each scored by its best fuzz ratio against
// rules.expected; exactly three words give their mean, any other count 0.
func fuzzyPlaceMath(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no result"}, nil
	}
	p, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("fuzzy_place_math: want a file path, got %s", PyType(c.Result))
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	v, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	answers, err := strList(v, "rules.expected")
	if err != nil {
		return Score{}, err
	}
	d, err := openDocx(p)
	if err != nil {
		return Score{}, err
	}
	var words []string
	for _, t := range d.texts() {
		words = append(words, pySplit(t)...)
	}
	scores := make([]float64, len(words))
	for i, w := range words {
		for _, a := range answers {
			s, err := fuzzRatio(w, a)
			if err != nil {
				return Score{}, err
			}
			scores[i] = max(scores[i], s)
		}
	}
	if len(scores) != 3 {
		return Score{Note: fmt.Sprintf("the document has %d words, not 3", len(scores))}, nil
	}
	s := Score{Value: (scores[0] + scores[1] + scores[2]) / 3}
	if s.Value < 1 {
		s.Note = fmt.Sprintf("the words' best ratios are %s, %s, %s", PyFloatRepr(scores[0]), PyFloatRepr(scores[1]), PyFloatRepr(scores[2]))
	}
	return s, nil
}
