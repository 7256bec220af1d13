package checks

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	"deskpilot/internal/smallfile"
)

// easyID3Keys are mutagen's EasyID3 text keys and their ID3v2.4 frames.
var easyID3Keys = map[string]string{
	"album": "TALB", "bpm": "TBPM", "compilation": "TCMP", "composer": "TCOM", "copyright": "TCOP",
	"encodedby": "TENC", "lyricist": "TEXT", "length": "TLEN", "media": "TMED", "mood": "TMOO",
	"title": "TIT2", "version": "TIT3", "artist": "TPE1", "albumartist": "TPE2", "conductor": "TPE3",
	"arranger": "TPE4", "discnumber": "TPOS", "organization": "TPUB", "tracknumber": "TRCK",
	"author": "TOLY", "albumartistsort": "TSO2", "albumsort": "TSOA", "composersort": "TSOC",
	"artistsort": "TSOP", "titlesort": "TSOT", "isrc": "TSRC", "discsubtitle": "TSST", "language": "TLAN",
	"genre": "TCON", "date": "TDRC", "originaldate": "TDOR",
}

// id3v22 maps ID3v2.2's three-letter text frames to v2.4's.
var id3v22 = map[string]string{
	"TAL": "TALB", "TBP": "TBPM", "TCM": "TCOM", "TCO": "TCON", "TCR": "TCOP", "TEN": "TENC",
	"TXT": "TEXT", "TLE": "TLEN", "TMT": "TMED", "TT2": "TIT2", "TT3": "TIT3", "TP1": "TPE1",
	"TP2": "TPE2", "TP3": "TPE3", "TP4": "TPE4", "TPA": "TPOS", "TPB": "TPUB", "TRK": "TRCK",
	"TOL": "TOLY", "TRC": "TSRC", "TLA": "TLAN", "TYE": "TYER",
}

// readID3 reads the text frames of a file's ID3v2 tag (at its start), by
// v2.4 frame id, each a list of values. A file without one is mutagen's
// ID3NoHeaderError.
func readID3(p string) (map[string][]string, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	if len(data) < 10 || string(data[:3]) != "ID3" {
		return nil, fmt.Errorf("ID3NoHeaderError: %s doesn't start with an ID3 tag", p)
	}
	ver, flags := data[3], data[5]
	if ver < 2 || ver > 4 {
		return nil, fmt.Errorf("ID3UnsupportedVersionError: ID3v2.%d", ver)
	}
	size := syncsafe(data[6:10])
	if 10+size > len(data) {
		size = len(data) - 10
	}
	tag := data[10 : 10+size]
	if flags&0x80 != 0 && ver < 4 {
		tag = unsync(tag)
	}
	if flags&0x40 != 0 && ver >= 3 && len(tag) >= 4 { // extended header
		n := int(binary.BigEndian.Uint32(tag))
		if ver == 4 {
			n = syncsafe(tag[:4])
		} else {
			n += 4
		}
		if n > len(tag) {
			return nil, errors.New("ID3: bad extended header")
		}
		tag = tag[n:]
	}
	frames := id3Frames(tag, ver)
	if _, ok := frames["TDRC"]; !ok { // mutagen's v2.3 upgrade: TYER(+TDAT) as TDRC
		if y, ok := frames["TYER"]; ok && len(y) > 0 {
			d := y[0]
			if t := frames["TDAT"]; len(t) > 0 && len(t[0]) == 4 {
				d += "-" + t[0][2:] + "-" + t[0][:2]
			}
			frames["TDRC"] = []string{d}
		}
	}
	return frames, nil
}

func syncsafe(b []byte) int {
	return int(b[0]&0x7f)<<21 | int(b[1]&0x7f)<<14 | int(b[2]&0x7f)<<7 | int(b[3]&0x7f)
}

// unsync undoes ID3 unsynchronisation (0xFF 0x00 → 0xFF).
func unsync(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		out = append(out, b[i])
		if b[i] == 0xff && i+1 < len(b) && b[i+1] == 0 {
			i++
		}
	}
	return out
}

// decodeID3Text decodes a text frame's values (NUL-separated).
func decodeID3Text(b []byte) []string {
	enc, b := b[0], b[1:]
	var s string
	switch enc {
	case 0:
		rs := make([]rune, len(b))
		for i, c := range b {
			rs[i] = rune(c)
		}
		s = string(rs)
	case 1, 2:
		big := enc == 2
		if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
			b, big = b[2:], false
		} else if len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff {
			b, big = b[2:], true
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			if big {
				u[i] = binary.BigEndian.Uint16(b[2*i:])
			} else {
				u[i] = binary.LittleEndian.Uint16(b[2*i:])
			}
		}
		// a BOM may start each value after the first
		s = strings.ReplaceAll(string(utf16.Decode(u)), "\x00\ufeff", "\x00")
	default:
		s = strings.ToValidUTF8(string(b), "\uFFFD")
	}
	s = strings.TrimRight(s, "\x00")
	return strings.Split(s, "\x00")
}

// checkMP3Meta is check_mp3_meta: each EasyID3 key's values, joined by ",",
// match their rule.
func checkMP3Meta(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no file"}, nil
	}
	meta, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	p, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("want a file path, got %s", PyType(c.Result))
	}
	frames, err := readID3(p)
	if err != nil {
		return Score{}, err
	}
	for k, rv := range meta {
		r, err := obj(rv, k)
		if err != nil {
			return Score{}, err
		}
		value := ""
		if id, ok := easyID3Keys[k]; ok {
			value = strings.Join(frames[id], ",")
		}
		okMatch, err := matchValueToRule(value, r)
		if err != nil {
			return Score{}, err
		}
		if !okMatch {
			return Score{Note: fmt.Sprintf("%s is %q", k, value)}, nil
		}
	}
	return Score{Value: 1}, nil
}

// id3Frames reads the text frames of a tag's frame area, by v2.4 frame id.
func id3Frames(tag []byte, ver byte) map[string][]string {
	frames := map[string][]string{}
	idLen, hdr := 4, 10
	if ver == 2 {
		idLen, hdr = 3, 6
	}
	for len(tag) >= hdr && tag[0] != 0 {
		id := string(tag[:idLen])
		var n int
		var fflags uint16
		switch ver {
		case 2:
			n = int(tag[3])<<16 | int(tag[4])<<8 | int(tag[5])
		case 3:
			n = int(binary.BigEndian.Uint32(tag[4:8]))
			fflags = binary.BigEndian.Uint16(tag[8:10])
		case 4:
			n = syncsafe(tag[4:8])
			fflags = binary.BigEndian.Uint16(tag[8:10])
		}
		if n < 0 || hdr+n > len(tag) {
			break
		}
		body := tag[hdr : hdr+n]
		tag = tag[hdr+n:]
		if ver == 2 {
			if id = id3v22[id]; id == "" {
				continue
			}
		}
		compressed := ver == 3 && fflags&0x00c0 != 0 || ver == 4 && fflags&0x000c != 0
		if compressed || !strings.HasPrefix(id, "T") || id == "TXXX" || len(body) == 0 {
			continue
		}
		if ver == 4 && fflags&0x0002 != 0 {
			body = unsync(body)
		}
		if ver == 4 && fflags&0x0001 != 0 && len(body) >= 4 { // data length indicator
			body = body[4:]
		}
		frames[id] = append(frames[id], decodeID3Text(body)...)
	}
	return frames
}
