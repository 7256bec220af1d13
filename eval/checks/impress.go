package checks

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// impressGetters are OSWorld's getters/impress.py.
func impressGetters() map[string]Getter {
	return map[string]Getter{
		"background_image_in_slide": {Fn: getBackgroundImageInSlide, Check: needKeys("ppt_file_path", "slide_index", "dest")},
	}
}

// getBackgroundImageInSlide is get_background_image_in_slide: the picture
// slide slide_index's background (p:bgPr's a:blip) embeds, unpacked next to
// the presentation's copy in the cache folder, or for a linked picture
// (file://) a copy of that file as dest; None when the slide or its
// background picture is missing.
func getBackgroundImageInSlide(_ context.Context, env Env, cfg map[string]any) (any, error) {
	pptPath, err := strKey(cfg, "ppt_file_path")
	if err != nil {
		return nil, err
	}
	idx, ok := pyInt(cfg["slide_index"])
	if !ok {
		return nil, fmt.Errorf("slide_index: want an integer, got %s", show(cfg["slide_index"]))
	}
	dest, err := strKey(cfg, "dest")
	if err != nil {
		return nil, err
	}
	local, ok := fetchVMFile(env, pptPath, path.Base(pptPath))
	if !ok {
		return nil, fmt.Errorf("%s: %w", pptPath, os.ErrNotExist) // zipfile.ZipFile(None) raises
	}
	z, err := openZip(local)
	if err != nil {
		return nil, err
	}
	slide := fmt.Sprintf("ppt/slides/slide%d.xml", idx+1)
	data, err := zipPart(z, slide)
	if err != nil {
		return nil, nil
	}
	root, err := parseXML(data)
	if err != nil {
		return nil, err
	}
	imageID := ""
	for _, bg := range root.all("bgPr") {
		if bg.XMLName.Space != nsPML {
			continue
		}
		for _, b := range bg.all("blip") {
			if id, ok := b.attrNS(relNS, "embed"); ok && b.XMLName.Space == nsDML {
				imageID = id
				break
			}
		}
		if imageID != "" {
			break
		}
	}
	if imageID == "" {
		return nil, nil
	}
	relsData, err := zipPart(z, fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", idx+1))
	if err != nil {
		return nil, nil
	}
	rels, err := parseXML(relsData)
	if err != nil {
		return nil, err
	}
	for _, r := range rels.all("Relationship") {
		typ, _ := r.attr("Type")
		id, _ := r.attr("Id")
		if !strings.Contains(typ, "image") || id != imageID {
			continue
		}
		target, _ := r.attr("Target")
		if strings.HasPrefix(target, "..") {
			member := path.Clean(path.Join("ppt/slides", target))
			if !filepath.IsLocal(member) {
				return nil, fmt.Errorf("the background picture %q leaves the presentation", target)
			}
			out := filepath.Join(filepath.Dir(local), filepath.FromSlash(member))
			return out, extractMember(z, member, out)
		}
		if !strings.HasPrefix(target, "file://") {
			return nil, fmt.Errorf("AssertionError: %s", target)
		}
		dst, ok := fetchVMFile(env, target[len("file://"):], dest)
		if !ok {
			return nil, nil
		}
		return dst, nil
	}
	return nil, nil
}

// extractMember is ZipFile.extract(member, dir): the member written at out.
func extractMember(z *zip.Reader, member, out string) error {
	f, err := z.Open(member)
	if err != nil {
		return fmt.Errorf("KeyError: there is no item named %q in the archive", member)
	}
	defer f.Close()
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return err
	}
	w, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, io.LimitReader(f, maxPart))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}
