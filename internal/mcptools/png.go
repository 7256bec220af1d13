package mcptools

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// pngSignature starts every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// ChunkError is a PNG chunk that fails its checksum and that an image cannot
// be read without (a critical chunk: IHDR, PLTE, IDAT, IEND).
type ChunkError struct {
	Type   string // the chunk's type, e.g. "IDAT"
	Offset int    // where the chunk starts in the file, in bytes
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("png: the %s chunk at byte %d fails its checksum, and the image cannot be read without it", e.Type, e.Offset)
}

// repairPNG drops the ancillary chunks of a PNG whose checksum is wrong
// (the PNG specification lets a decoder ignore them; Go's image/png refuses
// the whole image instead). Servers do send such files: server-everything's
// tiny image carries an iCCP profile with a bad checksum. A critical chunk
// that fails its checksum is a *ChunkError. Data that is not a PNG, or whose
// chunks are not laid out as a PNG's, is returned as it is, for the decoder
// to report; so is a PNG whose chunks are all sound. dropped names the
// chunks left out.
func repairPNG(data []byte) (out []byte, dropped []string, err error) {
	if !bytes.HasPrefix(data, pngSignature) {
		return data, nil, nil
	}
	var keep [][2]int // spans of data kept, beyond the signature
	for off := len(pngSignature); off < len(data); {
		if len(data)-off < 12 {
			return data, nil, nil
		}
		n := int(binary.BigEndian.Uint32(data[off:]))
		if n > len(data)-off-12 {
			return data, nil, nil
		}
		end := off + 12 + n
		typ := data[off+4 : off+8]
		want := binary.BigEndian.Uint32(data[end-4:])
		if crc32.ChecksumIEEE(data[off+4:end-4]) != want {
			if typ[0]&0x20 == 0 { // an upper-case first letter: critical
				return nil, nil, &ChunkError{Type: string(typ), Offset: off}
			}
			dropped = append(dropped, string(typ))
		} else {
			keep = append(keep, [2]int{off, end})
		}
		off = end
		if string(typ) == "IEND" {
			break
		}
	}
	if len(dropped) == 0 {
		return data, nil, nil
	}
	out = append(make([]byte, 0, len(data)), pngSignature...)
	for _, k := range keep {
		out = append(out, data[k[0]:k[1]]...)
	}
	return out, dropped, nil
}
