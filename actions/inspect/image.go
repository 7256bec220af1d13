package inspect

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/gif" // decoders for image.DecodeConfig
	_ "image/jpeg"
	"image/png"
	"strings"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
)

// imageExts are the image file extensions the inspector reads.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"}

// maxPixels bounds images decoded for conversion to PNG.
const maxPixels = 50_000_000

// imageFile is an image's header information and bytes.
type imageFile struct {
	format        string // "png", "jpeg", ...
	width, height int
	data          []byte
}

// imageFormat names the image format from the file's first bytes, "" when
// it is not an image.
func imageFormat(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "webp"
	case bytes.HasPrefix(data, []byte("BM")):
		return "bmp"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "tiff"
	}
	return ""
}

func readImage(_ string, data []byte) (*imageFile, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return &imageFile{format: format, width: cfg.Width, height: cfg.Height, data: data}, nil
}

// forModel returns the image in a format model APIs accept, converting BMP
// and TIFF to PNG.
func (im *imageFile) forModel(name string) (Image, error) {
	out := Image{Name: name, Width: im.width, Height: im.height}
	switch im.format {
	case "png", "jpeg", "gif", "webp":
		out.MIME, out.Data = "image/"+im.format, im.data
		return out, nil
	}
	if im.width*im.height > maxPixels {
		return Image{}, fmt.Errorf("the image is too large to convert (%d × %d pixels)", im.width, im.height)
	}
	img, _, err := image.Decode(bytes.NewReader(im.data))
	if err != nil {
		return Image{}, fmt.Errorf("%s: %w", im.format, err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Image{}, err
	}
	out.MIME, out.Data = "image/png", buf.Bytes()
	return out, nil
}

// describeImage answers for an image: its format and size, plus a caption
// from the model when one is configured; with a question, the model's answer.
func (in *Inspector) describeImage(ctx context.Context, f *file, question string) (string, error) {
	im := f.image
	info := fmt.Sprintf("# Image: %s\n\nFormat: %s\nSize: %d × %d pixels\nFile size: %s",
		f.name, strings.ToUpper(im.format), im.width, im.height, humanBytes(int64(len(im.data))))
	if in.opts.Ask == nil {
		if question != "" {
			return "No model is configured to look at images, so the question cannot be answered.\n\n" + info, nil
		}
		return info, nil
	}
	img, err := im.forModel(f.name)
	if err != nil {
		if question != "" {
			return "", fmt.Errorf("inspect: %s: %w", f.name, err)
		}
		return info + "\n\n(No caption: " + err.Error() + ")", nil
	}
	if question == "" {
		caption, err := in.opts.Ask(ctx, "Describe this image in one or two sentences.", info, img)
		if err != nil {
			return info + "\n\n(No caption: the model could not be asked: " + err.Error() + ")", nil
		}
		return info + "\nCaption: " + strings.TrimSpace(caption), nil
	}
	answer, err := in.opts.Ask(ctx, question, info, img)
	if err != nil {
		return "", fmt.Errorf("inspect: ask the model about %s: %w", f.name, err)
	}
	return answer, nil
}
