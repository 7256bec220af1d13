package vision

import "image"

// drawBoxes draws set-of-marks boxes given in root coordinates on img, the
// model's image of m.Display, and returns the rectangles of img it painted
// (each box with its halo, and each label).
func drawBoxes(img *image.RGBA, m Mapper, boxes []BoxMark) []image.Rectangle {
	if len(boxes) == 0 {
		return nil
	}
	marks := make([]BoxMark, len(boxes))
	for i, b := range boxes {
		marks[i] = BoxMark{N: b.N, Box: ImageRect(m, b.Box)}
	}
	labels := DrawBoxMarks(img, marks)
	painted := make([]image.Rectangle, 0, 2*len(marks))
	for i, b := range marks {
		if !labels[i].Empty() {
			painted = append(painted, b.Box.Canon().Inset(-1), labels[i])
		}
	}
	return painted
}
